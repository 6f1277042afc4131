package export

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"sync/atomic"

	"github.com/parquet-go/parquet-go"

	"github.com/fleetsim/fleetsim/sim"
)

// RowGroupRows is the number of rows per Parquet row group. Rows are
// buffered in memory until a row group is full, so a writer's memory is
// bounded by one row group whatever the number of requests.
const RowGroupRows = 64 * 1024

// batchRows is the number of rows converted before they are handed to the
// Parquet writer in one call.
const batchRows = 1024

// Row is the Parquet schema of requests.parquet: one row per request, the
// columns of sim.Record in the same order. Times are seconds since the start
// of the run, durations seconds. A time or duration that is NaN in the
// record (one a rejected request never reached, such as its first token) is
// NULL, so readers' sums and averages skip it. The string columns are
// dictionary-encoded; the doubles use BYTE_STREAM_SPLIT, which makes them
// compress about 14% better at no measurable cost. docs/cli.md documents every column.
type Row struct {
	ID                  int64    `parquet:"id"`
	Pool                string   `parquet:"pool,dict"`
	Instance            int32    `parquet:"instance"`
	Category            string   `parquet:"category,dict"`
	ArrivalS            float64  `parquet:"arrival_s,split"`
	AdmitS              *float64 `parquet:"admit_s,split"`
	FirstTokenS         *float64 `parquet:"first_token_s,split"`
	FinishS             *float64 `parquet:"finish_s,split"`
	QueueWaitS          *float64 `parquet:"queue_wait_s,split"`
	TTFTS               *float64 `parquet:"ttft_s,split"`
	TPOTS               *float64 `parquet:"tpot_s,split"`
	E2ES                *float64 `parquet:"e2e_s,split"`
	InputTokens         int32    `parquet:"input_tokens"`
	OutputTokens        int32    `parquet:"output_tokens"`
	OriginalInputTokens int32    `parquet:"original_input_tokens"`
	EstimatedTokens     int32    `parquet:"estimated_tokens"`
	Preemptions         int32    `parquet:"preemptions"`
	Retries             int32    `parquet:"retries"`
	Compressed          bool     `parquet:"compressed"`
	Warmup              bool     `parquet:"warmup"`
	Rejected            bool     `parquet:"rejected"`
	RejectedReason      string   `parquet:"rejected_reason,dict"`
	RejectedDetail      string   `parquet:"rejected_detail,dict"`
}

// ExtCols are the columns of sim.RecordExt, which requests.parquet (and
// the CSV/JSONL rows) carry after Row's only in runs with a prefix cache or
// a disaggregated pool (FileInfo.Extended, sim.Config.ExtendedRecords).
type ExtCols struct {
	CachedTokens    int32    `parquet:"cached_tokens"`
	PrefillInstance int32    `parquet:"prefill_instance"`
	DecodeInstance  int32    `parquet:"decode_instance"`
	KVTransferS     *float64 `parquet:"kv_transfer_s,split"`
}

// RowExt is the schema of an extended requests.parquet: Row's columns, then
// ExtCols'.
type RowExt struct {
	Row
	ExtCols
}

// extRowBuf is a Row and its ExtCols with storage for their nullable
// values, so converting a record allocates nothing (the text sink's rows).
type extRowBuf struct {
	Row
	ExtCols
	vals [8]float64
}

func (b *extRowBuf) set(r *sim.Record) {
	setRow(&b.Row, (*[7]float64)(b.vals[:7]), r)
	e := &r.Ext
	b.ExtCols = ExtCols{CachedTokens: e.CachedTokens, PrefillInstance: e.PrefillInstance, DecodeInstance: e.DecodeInstance,
		KVTransferS: nullTime(&b.vals[7], e.KVTransferS)}
}

// setRow sets row to r's columns, its nullable times pointing into vals.
func setRow(row *Row, vals *[7]float64, r *sim.Record) {
	*row = Row{
		ID: r.ID, Pool: r.Pool, Instance: r.Instance, Category: r.Category,
		ArrivalS:            r.ArrivalS,
		AdmitS:              nullTime(&vals[0], r.AdmitS),
		FirstTokenS:         nullTime(&vals[1], r.FirstTokenS),
		FinishS:             nullTime(&vals[2], r.FinishS),
		QueueWaitS:          nullTime(&vals[3], r.QueueWaitS),
		TTFTS:               nullTime(&vals[4], r.TTFTS),
		TPOTS:               nullTime(&vals[5], r.TPOTS),
		E2ES:                nullTime(&vals[6], r.E2ES),
		InputTokens:         r.InputTokens,
		OutputTokens:        r.OutputTokens,
		OriginalInputTokens: r.OriginalInputTokens,
		EstimatedTokens:     r.EstimatedTokens,
		Preemptions:         r.Preemptions,
		Retries:             r.Retries,
		Compressed:          r.Compressed,
		Warmup:              r.Warmup,
		Rejected:            r.Rejected,
		RejectedReason:      r.RejectedReason,
		RejectedDetail:      r.RejectedDetail,
	}
}

// nullTime is p set to x, or nil (NULL) when x is NaN or infinite.
func nullTime(p *float64, x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	*p = x
	return p
}

// Record converts a Parquet row back to a sim.Record (NULL becomes NaN).
func (r *Row) Record() sim.Record {
	f := orNaN
	return sim.Record{
		ID: r.ID, Pool: r.Pool, Instance: r.Instance, Category: r.Category,
		ArrivalS: r.ArrivalS, AdmitS: f(r.AdmitS), FirstTokenS: f(r.FirstTokenS),
		FinishS: f(r.FinishS), QueueWaitS: f(r.QueueWaitS), TTFTS: f(r.TTFTS),
		TPOTS: f(r.TPOTS), E2ES: f(r.E2ES),
		InputTokens: r.InputTokens, OutputTokens: r.OutputTokens,
		OriginalInputTokens: r.OriginalInputTokens, EstimatedTokens: r.EstimatedTokens,
		Preemptions: r.Preemptions, Retries: r.Retries,
		Compressed: r.Compressed, Warmup: r.Warmup, Rejected: r.Rejected,
		RejectedReason: r.RejectedReason, RejectedDetail: r.RejectedDetail,
	}
}

// orNaN is the value of a nullable column, NaN for NULL.
func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// Stats are totals of the rows written, computed from the records as they
// are streamed (not read back from the file), for independent readers to
// compare against.
type Stats struct {
	Rows            int64   `json:"rows"`
	SumOutputTokens int64   `json:"sum_output_tokens"` // over all rows, tokens
	SumInputTokens  int64   `json:"sum_input_tokens"`  // over all rows, tokens
	SumTTFTS        float64 `json:"sum_ttft_s"`        // over rows whose ttft_s is not NULL, s
	Rejected        int64   `json:"rejected"`          // rows with rejected = true
	Warmup          int64   `json:"warmup"`            // rows with warmup = true
}

func (s *Stats) add(r *sim.Record) {
	s.Rows++
	s.SumOutputTokens += int64(r.OutputTokens)
	s.SumInputTokens += int64(r.InputTokens)
	if !math.IsNaN(r.TTFTS) && !math.IsInf(r.TTFTS, 0) {
		s.SumTTFTS += r.TTFTS
	}
	if r.Rejected {
		s.Rejected++
	}
	if r.Warmup {
		s.Warmup++
	}
}

// ParquetSink is a sim.Sink that streams records to a zstd-compressed
// Parquet file (schema Row). The file appears at its path only when Close
// succeeds; Abort (or a failed Close) removes every trace of it.
//
// Encoding and compression run on a goroutine of their own: Write only
// copies the record into a batch (or, as a sim.SlotSink, Slot lends the
// batch's next row to build the record in and WriteSlot takes it), and
// hands each full batch (batchRows records) to the encoder over a bounded
// channel; batches are recycled, so at most pipelineBatches are in flight
// and memory stays flat. The encoder (pagewriter.go) shreds each batch into
// typed columns and writes the pages, row groups and footer itself, byte
// for byte as parquet-go's GenericWriter of Row structs writes them
// (TestParquetPipelineBytes, TestParquetEncoderAdversarial). Write and
// WriteSlot wait only when the encoder is pipelineBatches behind.
type ParquetSink struct {
	f     *atomicFile
	w     rowWriter
	cur   *batch
	free  chan *batch // recycled batches
	todo  chan *batch // full batches, in order, for the encoder
	done  chan struct{}
	stats Stats
	err   error // the sink's own error (sim side)

	werr   error // the encoder's error, read after done is closed or via failed
	failed atomic.Bool
	abort  atomic.Bool // Abort called: the encoder skips the footer
	closed bool        // todo closed
	spare  sim.Record  // Slot's storage once failed or closed
}

// pipelineBatches is the number of full batches the encoder may lag behind
// Write (32 × 1,024 rows, ~6.8 MB of records: half a row group). A batch is
// made when none is free, so the pool grows to the largest lag: in a 1M run
// the encoder, at the end of its first row group, falls 20–30 batches
// behind, and under load 64 (a whole row group, ~13.6 MB of memory first
// touched, which this VM's kernel zeroes at ~1.6 ms of CPU a MB); past 32,
// Write now waits for it instead.
const pipelineBatches = 32

// batch is batchRows records being copied (sim side) or encoded (encoder).
type batch struct {
	recs []sim.Record
	n    int
}

// Application is the application recorded in the Parquet footer's
// created_by, followed by " version " and FileInfo.Version. The footer holds
// no build or time information, so the same run gives byte-identical files.
const Application = "fleetsim"

// Key-value metadata keys of requests.parquet (FileInfo.Meta may add
// others). A reader recovers the run from them: the effective scenario (as
// JSON, the config of summary.json), its seed and the fleetsim version.
const (
	MetaVersion  = "fleetsim.version"
	MetaSeed     = "fleetsim.seed"
	MetaScenario = "fleetsim.scenario"
)

// FileInfo identifies the run that writes a Parquet file.
type FileInfo struct {
	Version string            // fleetsim version: created_by and MetaVersion
	Meta    map[string]string // more key-value metadata (MetaSeed, MetaScenario, ...)
	// Extended adds the ExtCols columns to requests.parquet (schema
	// RowExt): runs with a prefix cache or a disaggregated pool.
	Extended bool
	// Set, when not nil, makes the file one of that output set: Close
	// leaves it finished under its temporary name until Set.Replace.
	Set *OutputSet
}

// rowWriter encodes batches of records into requests.parquet.
type rowWriter interface {
	write(recs []sim.Record) error
	Close() error
}

// newRowWriter starts the writer of requests.parquet's schema (Row, or
// RowExt when info.Extended) on f.
func newRowWriter(f *atomicFile, info FileInfo) (rowWriter, error) {
	return newPageWriter(f, info)
}

// createdBy sets the footer's created_by exactly ("APP version V", the
// Parquet convention without a build part).
type createdBy string

func (c createdBy) ConfigureWriter(cfg *parquet.WriterConfig) { cfg.CreatedBy = string(c) }

// NewParquetSink starts a Parquet file at path (its directory must exist)
// with no run information (created_by "fleetsim") and its encoder
// goroutine. Nothing is visible at path until Close; call Close or Abort to
// end the goroutine.
func NewParquetSink(path string) (*ParquetSink, error) {
	return NewParquetSinkInfo(path, FileInfo{})
}

// NewParquetSinkInfo is NewParquetSink recording info in the footer:
// created_by "fleetsim version VERSION" and the key-value metadata
// (MetaVersion and info.Meta), written in key order.
func NewParquetSinkInfo(path string, info FileInfo) (*ParquetSink, error) {
	f, err := createAtomicIn(info.Set, path)
	if err != nil {
		return nil, err
	}
	w, err := newRowWriter(f, info)
	if err != nil {
		f.Abort()
		return nil, err
	}
	s := &ParquetSink{
		f: f, w: w,
		free: make(chan *batch, pipelineBatches+1),
		todo: make(chan *batch, pipelineBatches),
		done: make(chan struct{}),
	}
	s.cur = newBatch()
	go s.encode()
	return s, nil
}

func newBatch() *batch {
	return &batch{recs: make([]sim.Record, batchRows)}
}

// encode is the encoder goroutine: it writes the batches in order until todo
// is closed, then (unless a write failed) the footer. A panic while writing
// is an error like a failed write (recovered): the goroutine keeps draining
// todo, so Write never blocks on it, and Close discards the file.
func (s *ParquetSink) encode() {
	defer close(s.done)
	for b := range s.todo {
		if s.werr == nil {
			if err := unpanic(func() error { return s.w.write(b.recs[:b.n]) }); err != nil {
				s.werr = fmt.Errorf("export: writing %s: %w", s.f.path, err)
				s.failed.Store(true)
			}
		}
		b.n = 0
		select {
		case s.free <- b:
		default:
		}
	}
	if s.werr == nil && !s.aborting() {
		if err := unpanic(s.w.Close); err != nil {
			s.werr = fmt.Errorf("export: writing %s: %w", s.f.path, err)
		}
	}
}

// unpanic runs f, returning a panic in it as an error (with the stack, for
// the bug report) instead of ending the process with the file half written.
func unpanic(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: panic: %v\n%s", p, debug.Stack())
		}
	}()
	return f()
}

// aborting reports whether the sink is being aborted (its error set by
// Abort before todo was closed).
func (s *ParquetSink) aborting() bool { return s.abort.Load() }

// Write implements sim.Sink. It does not keep r. An encoding error shows
// at a later Write or at Close.
func (s *ParquetSink) Write(r *sim.Record) error {
	*s.Slot() = *r
	return s.WriteSlot()
}

// Slot implements sim.SlotSink: the next row of the current batch (or, once
// the sink has failed or closed, storage that WriteSlot discards).
func (s *ParquetSink) Slot() *sim.Record {
	if s.err != nil || s.closed {
		return &s.spare
	}
	return &s.cur.recs[s.cur.n]
}

// WriteSlot implements sim.SlotSink: it writes the record built in Slot's
// storage.
func (s *ParquetSink) WriteSlot() error {
	if s.err != nil {
		return s.err
	}
	if s.closed { // after Close: the encoder's queue is closed
		return fmt.Errorf("export: %s: write after Close", s.f.path)
	}
	b := s.cur
	s.stats.add(&b.recs[b.n])
	b.n++
	if b.n == batchRows {
		return s.send()
	}
	return nil
}

// ConcurrentWrite implements sim.ConcurrentSink: Write may be called from
// the simulator's record goroutine (Close after Run has returned), and it
// feeds nothing back to the run.
func (s *ParquetSink) ConcurrentWrite() {}

// send hands the current batch to the encoder and takes a fresh one.
func (s *ParquetSink) send() error {
	if s.failed.Load() { // werr was set before failed: safe to read
		s.err = s.werr
		return s.err
	}
	s.todo <- s.cur
	select {
	case s.cur = <-s.free:
	default:
		s.cur = newBatch()
	}
	return nil
}

// finish sends the partial batch, closes the queue and waits for the
// encoder; it returns the encoder's error.
func (s *ParquetSink) finish() error {
	if !s.closed {
		if s.cur.n > 0 && s.err == nil {
			s.todo <- s.cur
		}
		close(s.todo)
		s.closed = true
	}
	<-s.done
	return s.werr
}

// Stats returns the totals of the rows written so far. During a sim.Run
// that writes to the sink, call it only once Run has returned: Write may
// run on the simulator's record goroutine (ConcurrentWrite).
func (s *ParquetSink) Stats() Stats { return s.stats }

// Path returns the file's final path.
func (s *ParquetSink) Path() string { return s.f.path }

// Close writes the buffered rows and the footer, waits for the encoder and
// renames the file into place. On error nothing is left at the path.
func (s *ParquetSink) Close() error {
	if s.f.done {
		return s.err
	}
	if err := s.finish(); err != nil {
		s.f.Abort()
		s.err = err
		return err
	}
	if s.err != nil {
		s.f.Abort()
		return s.err
	}
	if err := s.f.Commit(); err != nil {
		s.err = err
		return err
	}
	return nil
}

// Abort discards the file: the encoder stops, nothing is left at its path or
// under a temporary name. It is a no-op after a successful Close.
func (s *ParquetSink) Abort() {
	if s.f.done {
		return
	}
	if s.err == nil {
		s.err = fmt.Errorf("export: %s aborted", s.f.path)
	}
	s.abort.Store(true)
	s.finish()
	s.f.Abort()
}

// ReadParquet reads a requests.parquet file back into records (NULL times
// become NaN). It loads the whole file; it is meant for tests and small
// files.
func ReadParquet(path string) ([]sim.Record, error) {
	rows, err := parquet.ReadFile[Row](path)
	if err != nil {
		return nil, err
	}
	recs := make([]sim.Record, len(rows))
	for i := range rows {
		recs[i] = rows[i].Record()
	}
	return recs, nil
}

// ReadParquetExt reads an extended requests.parquet (FileInfo.Extended)
// back into records, their Ext set. Like ReadParquet, for tests and small
// files.
//
// It reads Row's and ExtCols' columns separately: parquet-go v0.32.0's
// reader of RowExt returns some NULLs of the embedded Row's times as
// pointers to 0, not nil (TestPageWriterRandomStreams).
func ReadParquetExt(path string) ([]sim.Record, error) {
	rows, err := parquet.ReadFile[Row](path)
	if err != nil {
		return nil, err
	}
	ext, err := parquet.ReadFile[ExtCols](path)
	if err != nil {
		return nil, err
	}
	if len(ext) != len(rows) {
		return nil, fmt.Errorf("export: %s: %d rows of ExtCols, %d of Row", path, len(ext), len(rows))
	}
	recs := make([]sim.Record, len(rows))
	for i := range rows {
		recs[i] = rows[i].Record()
		e := &ext[i]
		recs[i].Ext = sim.RecordExt{CachedTokens: e.CachedTokens, PrefillInstance: e.PrefillInstance,
			DecodeInstance: e.DecodeInstance, KVTransferS: orNaN(e.KVTransferS)}
	}
	return recs, nil
}

// ReadFileInfo returns a Parquet file's created_by and its key-value
// metadata.
func ReadFileInfo(path string) (createdBy string, meta map[string]string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", nil, err
	}
	pf, err := parquet.OpenFile(f, fi.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return "", nil, err
	}
	md := pf.Metadata()
	meta = make(map[string]string, len(md.KeyValueMetadata))
	for _, kv := range md.KeyValueMetadata {
		meta[kv.Key] = kv.Value
	}
	return md.CreatedBy, meta, nil
}
