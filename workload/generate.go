package workload

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// MaxTraceSpanS bounds a replayed trace's time span, seconds (about 46
// days): the simulator's engines count time in whole picoseconds in an
// int64 and accept arrivals up to 2^62 ps (sim.MaxArrivalS, about 53 days);
// a span that long is almost always a unit mix-up anyway.
const MaxTraceSpanS = 4e6

// NewSource validates spec and returns the Source of its requests, with
// randomness from seed (named streams: StreamArrivals, StreamLengths,
// StreamSplit, StreamCategories).
//
// CDF mode (spec.CDF set) generates spec.Requests requests lazily, in
// constant memory whatever their number:
//   - arrivals: Poisson at spec.Rate, or the bursty MMPP (see MMPP) with
//     long-run mean rate spec.Rate; the first request arrives one
//     inter-arrival time after 0;
//   - L_total from the CDF (CDF.Sample);
//   - the split: fixed (L_in = floor(InputFraction·L), default 0.8) or normal
//     (output fraction ~ N(OutputMu, OutputSigma) clipped to [0.02, 0.95],
//     defaults 0.10 and 0.05), with L_in >= 1 and L_out >= 1 (SplitFixed,
//     SplitNormal);
//   - category and byte length: see trace mode.
//
// Trace mode (spec.Trace set) replays an Azure LLM trace CSV, a Mooncake
// JSONL file or a generic CSV/JSONL trace (see TraceGeneric; format from
// spec.TraceFormat, else the extension: .csv azure, .jsonl mooncake). A
// generic trace's category, bytes and max_output_tokens, when given, replace
// the drawn or default values. NewSource first reads the rows it will use (the first
// spec.Requests) to check them all, so a bad row fails here, before a run
// starts; the Source then reads the file again, incrementally. Arrival times
// are the rows' timestamps minus the first row's; with spec.Rate > 0 they are
// scaled by (n/span)/Rate, where n is the number of rows used and span the
// time from the first to the last, so the replay's mean rate n/span becomes
// Rate. A trace with fewer rows than spec.Requests simply ends early. The
// rows must be sorted by time.
//
// In both modes: IDs are 0..n-1 in arrival order; the category is drawn from
// spec.Categories (default all prose); Bytes = max(1, round(L_in·c_k·(1 +
// 0.05·z))) with c_k the category's true bytes-per-token ratio
// (Category.BytesPerToken) and z ~ N(0,1) clipped to [-3, 3] (see
// BytesJitter); MaxOutputTokens = OutputTokens (the token-budget paper's
// router takes max_output_tokens as the output budget, so the cap is exact).
func NewSource(spec Spec, seed uint64) (Source, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if spec.Trace != "" {
		return newTraceSource(spec.WithDefaults(), seed)
	}
	c, err := LoadCDF(spec.CDF)
	if err != nil {
		return nil, err
	}
	return newCDFSource(spec.WithDefaults(), c, seed)
}

// NewCDFSource is NewSource in CDF mode with an already loaded CDF (for
// example one returned by CDF.Restrict); spec.CDF and spec.Trace are ignored.
func NewCDFSource(spec Spec, c *CDF, seed uint64) (Source, error) {
	if c == nil {
		return nil, fieldErr("cdf", "<nil>", "a CDF is needed")
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	spec.CDF, spec.Trace, spec.TraceFormat = c.Name, "", ""
	if spec.CDF == "" {
		spec.CDF = "cdf"
	}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	return newCDFSource(spec.WithDefaults(), c, seed)
}

// cdfSource generates requests from a CDF, one at a time.
type cdfSource struct {
	cdf      *lengthSampler
	arrivals Arrivals
	normal   bool    // split model: normal (true) or fixed
	inFrac   float64 // fixed split input fraction
	mu, sd   float64 // normal split parameters
	rLen     *rand.Rand
	rSplit   *rand.Rand
	mix      *categoryMix
	next     int64 // ID of the next request
	limit    int64 // number of requests
}

// newCDFSource builds the source of a validated spec with defaults applied.
func newCDFSource(s Spec, c *CDF, seed uint64) (*cdfSource, error) {
	mix, err := newCategoryMix(s.Categories, NewRand(seed, StreamCategories))
	if err != nil {
		return nil, err
	}
	src := &cdfSource{
		cdf:    newLengthSampler(c),
		normal: s.Split == SplitNormalName,
		inFrac: s.InputFraction,
		mu:     s.OutputMu,
		sd:     s.OutputSigma,
		rLen:   NewRand(seed, StreamLengths),
		rSplit: NewRand(seed, StreamSplit),
		mix:    mix,
		limit:  int64(s.Requests),
	}
	rArr := NewRand(seed, StreamArrivals)
	if s.Arrival == ArrivalBursty {
		src.arrivals, err = NewMMPP(s.Rate, s.BurstRatio, s.BurstMeanS, s.CalmMeanS, rArr)
	} else {
		src.arrivals, err = NewPoisson(s.Rate, rArr)
	}
	if err != nil {
		return nil, err
	}
	return src, nil
}

func (s *cdfSource) Next(r *Request) bool {
	if s.next >= s.limit {
		return false
	}
	total := s.cdf.sampleU(s.rLen.Float64())
	var in, out int
	if s.normal {
		in, out = SplitNormal(total, s.mu, s.sd, s.rSplit)
	} else {
		in, out = SplitFixed(total, s.inFrac)
	}
	cat, b := s.mix.draw(in)
	*r = Request{
		ID:              s.next,
		Arrival:         s.arrivals.Next(),
		InputTokens:     in,
		OutputTokens:    out,
		MaxOutputTokens: out,
		Bytes:           b,
		Category:        cat,
	}
	s.next++
	return true
}

func (s *cdfSource) Err() error { return nil }

// traceSource replays a trace file.
type traceSource struct {
	path, format string
	f            *os.File
	rd           TraceReader
	t0, scale    float64
	prev         float64 // previous row's raw time, seconds
	mix          *categoryMix
	next, limit  int64
	err          error
}

// openTrace opens path and returns a reader of its format.
func openTrace(path, format string) (*os.File, TraceReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, traceErr(path, 0, "", "", "cannot open: %v", err)
	}
	switch {
	case format == TraceMooncake:
		return f, NewMooncakeReader(path, f), nil
	case format == TraceGeneric && strings.EqualFold(filepath.Ext(path), ".csv"):
		return f, NewGenericCSVReader(path, f), nil
	case format == TraceGeneric:
		return f, NewGenericJSONLReader(path, f), nil
	}
	return f, NewAzureReader(path, f), nil
}

func newTraceSource(s Spec, seed uint64) (*traceSource, error) {
	format, err := traceFormat(s.Trace, s.TraceFormat)
	if err != nil {
		return nil, err
	}
	mix, err := newCategoryMix(s.Categories, NewRand(seed, StreamCategories))
	if err != nil {
		return nil, err
	}
	// Pass 1: check every row used and measure n and the time span.
	f, rd, err := openTrace(s.Trace, format)
	if err != nil {
		return nil, err
	}
	var n int64
	var first, last float64
	for n < int64(s.Requests) {
		row, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			f.Close()
			return nil, err
		}
		if n == 0 {
			first, last = row.Time, row.Time
		}
		if err := checkOrder(s.Trace, format, row, last); err != nil {
			f.Close()
			return nil, err
		}
		last = row.Time
		n++
	}
	f.Close()
	if n == 0 {
		return nil, traceErr(s.Trace, 0, "", "", "has no rows")
	}
	scale := 1.0
	if s.Rate > 0 && n > 1 {
		span := last - first
		if !(span > 0) {
			return nil, traceErr(s.Trace, 0, "", "", "all %d rows share one timestamp, so it cannot be rescaled to rate %v (use rate 0)", n, s.Rate)
		}
		scale = (float64(n) / span) / s.Rate
	}
	if span := (last - first) * scale; span > MaxTraceSpanS {
		return nil, traceErr(s.Trace, 0, "", "", "its timestamps span %g s (after rescaling): at most %g s; check the timestamps' unit", span, float64(MaxTraceSpanS))
	}
	// Pass 2 is the Source itself.
	f, rd, err = openTrace(s.Trace, format)
	if err != nil {
		return nil, err
	}
	return &traceSource{
		path: s.Trace, format: format, f: f, rd: rd,
		t0: first, scale: scale, prev: first,
		mix: mix, limit: n,
	}, nil
}

func (s *traceSource) Next(r *Request) bool {
	if s.err != nil || s.next >= s.limit {
		s.Close()
		return false
	}
	row, err := s.rd.Next()
	if err == nil {
		err = checkOrder(s.path, s.format, row, s.prev)
	}
	if err != nil {
		if err == io.EOF { // the file shrank since NewSource read it
			err = traceErr(s.path, 0, "", "", "ended after %d rows, %d expected (file changed during the run?)", s.next, s.limit)
		}
		s.err = err
		s.Close()
		return false
	}
	s.prev = row.Time
	var cat Category
	var b int
	if row.HasCategory {
		cat, b = row.Category, s.mix.bytes(row.Category, row.Input)
	} else {
		cat, b = s.mix.draw(row.Input)
	}
	if row.Bytes > 0 {
		b = row.Bytes
	}
	maxOut := row.Output
	if row.MaxOutput > 0 {
		maxOut = row.MaxOutput
	}
	*r = Request{
		ID:              s.next,
		Arrival:         (row.Time - s.t0) * s.scale,
		InputTokens:     row.Input,
		OutputTokens:    row.Output,
		MaxOutputTokens: maxOut,
		Bytes:           b,
		Category:        cat,
	}
	s.next++
	return true
}

func (s *traceSource) Err() error { return s.err }

// Close closes the trace file; Next closes it by itself at the end of the
// trace or on an error. Close is idempotent.
func (s *traceSource) Close() error {
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}

// String describes the source, for logs.
func (s *traceSource) String() string {
	return fmt.Sprintf("trace %s (%s, %d rows, time scale %g)", s.path, s.format, s.limit, s.scale)
}
