package workload

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"slices"
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
// the drawn or default values. NewSource reads the rows it will use (the
// first spec.Requests) once, checking them all, so a bad row fails here,
// before a run starts; the trace may be standard input ("-") or a FIFO. Arrival times
// are the rows' timestamps minus the first row's; with spec.Rate > 0 they are
// scaled by (n/span)/Rate, where n is the number of rows used and span the
// time from the first to the last, so the replay's mean rate n/span becomes
// Rate. A trace with fewer rows than spec.Requests ends early; the Source's Len
// says how many it replays. The
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
	normal   bool      // split model: normal (true) or fixed
	inFrac   float64   // fixed split input fraction
	mu, sd   float64   // normal split parameters
	rLen     *rand.PCG // uniform draws only (unitFloat)
	rSplit   *rand.Rand
	mix      *categoryMix
	pre      *prefixGen // shared prefixes, nil when none
	next     int64      // ID of the next request
	limit    int64      // number of requests
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
		rLen:   newPCG(seed, StreamLengths),
		rSplit: NewRand(seed, StreamSplit),
		mix:    mix,
		pre:    newPrefixGen(s, seed),
		limit:  int64(s.Requests),
	}
	rArr := NewRand(seed, StreamArrivals)
	if s.RateProfile != "" {
		src.arrivals, err = profileArrivals(s, rArr)
	} else {
		src.arrivals, err = baseArrivals(s, s.Rate, rArr)
	}
	if err != nil {
		return nil, err
	}
	return src, nil
}

// baseArrivals returns s's arrival process, Poisson or the bursty MMPP, at
// mean rate requests/s, drawing from rArr.
func baseArrivals(s Spec, rate float64, rArr *rand.Rand) (Arrivals, error) {
	if s.Arrival == ArrivalBursty {
		return NewMMPP(rate, s.BurstRatio, s.BurstMeanS, s.CalmMeanS, rArr)
	}
	return NewPoisson(rate, rArr)
}

func (s *cdfSource) Next(r *Request) bool {
	if s.next >= s.limit {
		return false
	}
	total := s.cdf.sampleU(unitFloat(s.rLen))
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
	if s.pre != nil {
		s.pre.apply(r)
	}
	s.next++
	return true
}

func (s *cdfSource) Err() error { return nil }

// SelfContained implements SelfContained: the requests come from the spec
// and the seed alone.
func (s *cdfSource) SelfContained() {}

// Len is the number of requests the source yields (Spec.Requests).
func (s *cdfSource) Len() int64 { return s.limit }

// traceSource replays a trace, read once (NewSource) into compact rows.
type traceSource struct {
	path, format string
	rows         []traceRec
	prefixes     []Prefix // per row (Mooncake hash_ids), nil when no row has hashes
	t0, scale    float64
	arrivals     Arrivals // with a rate profile: the arrival times (else the rows')
	mix          *categoryMix
	next         int
}

// traceRec is a trace row as kept in memory (32 bytes).
type traceRec struct {
	time                   float64 // raw time, s
	in, out, maxOut, bytes int32   // tokens; maxOut and bytes 0 when absent
	cat                    Category
	hasCat                 bool
}

// readTrace reads at most limit rows of the trace path in format, checking
// that they are sorted by time, and hands each to use; it returns the first
// and the last row's time. what names the trace in a limit error.
func readTrace(path, format, what string, limit int, use func(TraceRow) error) (first, last float64, err error) {
	f, rd, err := openTrace(path, format)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	for n := 0; n < limit; n++ {
		row, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			var le *LimitError
			if errors.As(err, &le) {
				return 0, 0, fmt.Errorf("workload: %s: %w", what, le)
			}
			return 0, 0, err
		}
		if n == 0 {
			first, last = row.Time, row.Time
		}
		if err := checkOrder(path, format, row, last); err != nil {
			return 0, 0, err
		}
		last = row.Time
		if err := use(row); err != nil {
			return 0, 0, err
		}
	}
	return first, last, nil
}

// traceReader returns a reader of format on r.
func traceReader(path, format string, r io.Reader) TraceReader {
	switch {
	case format == TraceMooncake:
		return NewMooncakeReader(path, r)
	case format == TraceGeneric && strings.EqualFold(filepath.Ext(path), ".csv"):
		return NewGenericCSVReader(path, r)
	case format == TraceGeneric:
		return NewGenericJSONLReader(path, r)
	}
	return NewAzureReader(path, r)
}

// openTrace opens the trace path (StdinName: standard input) and returns a
// reader of its format, reading through the input limits
// (MaxTraceLineBytes for CSV lines, maxJSONLLine for JSONL lines,
// MaxTraceBytes in all).
func openTrace(path, format string) (io.Closer, TraceReader, error) {
	f, err := openInput(path)
	if err != nil {
		return nil, nil, traceErr(path, 0, "", "", "cannot open: %v", err)
	}
	if err := checkSize(f, path, MaxTraceBytes); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("workload: trace: %w", err)
	}
	maxLine := int64(MaxTraceLineBytes)
	if format != TraceAzure && !(format == TraceGeneric && strings.EqualFold(filepath.Ext(path), ".csv")) {
		maxLine = 0 // JSONL: the scanner's own limit, maxJSONLLine
	}
	return f, traceReader(path, format, newLimitReader(f, path, maxLine, MaxTraceBytes)), nil
}

// newTraceSource reads the rows the run uses (the first s.Requests) in one
// pass, checking each, so a bad row fails here, before a run starts; the
// file is never opened twice, so standard input (StdinName, /dev/stdin) and
// FIFOs work. Memory is 32 bytes per row used; the file is read as a stream
// with a line-length and a size limit (MaxTraceLineBytes, MaxTraceBytes).
func newTraceSource(s Spec, seed uint64) (*traceSource, error) {
	format, err := traceFormat(s.Trace, s.TraceFormat)
	if err != nil {
		return nil, err
	}
	mix, err := newCategoryMix(s.Categories, NewRand(seed, StreamCategories))
	if err != nil {
		return nil, err
	}
	src := &traceSource{path: s.Trace, format: format, mix: mix}
	first, last, err := readTrace(s.Trace, format, "trace", s.Requests, func(row TraceRow) error {
		src.rows = append(src.rows, traceRec{time: row.Time, in: int32(row.Input), out: int32(row.Output),
			maxOut: int32(row.MaxOutput), bytes: int32(row.Bytes), cat: row.Category, hasCat: row.HasCategory})
		if row.HashIDs != nil && src.prefixes == nil {
			src.prefixes = make([]Prefix, len(src.rows)-1)
		}
		if src.prefixes != nil {
			src.prefixes = append(src.prefixes, Prefix{Hashes: row.HashIDs, Tokens: MooncakeHashTokens})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	n := len(src.rows)
	if n == 0 {
		return nil, traceErr(s.Trace, 0, "", "", "has no rows")
	}
	if s.RateProfile != "" { // the rows give the lengths, the profile the times
		src.scale = 1
		src.arrivals, err = profileArrivals(s, NewRand(seed, StreamArrivals))
		if err != nil {
			return nil, err
		}
		src.rows = slices.Clip(src.rows)
		src.prefixes = slices.Clip(src.prefixes)
		return src, nil
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
	src.t0, src.scale = first, scale
	src.rows = slices.Clip(src.rows)
	src.prefixes = slices.Clip(src.prefixes)
	return src, nil
}

func (s *traceSource) Next(r *Request) bool {
	if s.next >= len(s.rows) {
		return false
	}
	row := &s.rows[s.next]
	in := int(row.in)
	var cat Category
	var b int
	if row.hasCat {
		cat, b = row.cat, s.mix.bytes(row.cat, in)
	} else {
		cat, b = s.mix.draw(in)
	}
	if row.bytes > 0 {
		b = int(row.bytes)
	}
	maxOut := int(row.out)
	if row.maxOut > 0 {
		maxOut = int(row.maxOut)
	}
	arrival := (row.time - s.t0) * s.scale
	if s.arrivals != nil {
		arrival = s.arrivals.Next()
	}
	*r = Request{
		ID:              int64(s.next),
		Arrival:         arrival,
		InputTokens:     in,
		OutputTokens:    int(row.out),
		MaxOutputTokens: maxOut,
		Bytes:           b,
		Category:        cat,
	}
	if s.prefixes != nil && len(s.prefixes[s.next].Hashes) > 0 {
		r.Prefix = &s.prefixes[s.next]
	}
	s.next++
	return true
}

func (s *traceSource) Err() error { return nil }

// SelfContained implements SelfContained: the rows were read in advance.
func (s *traceSource) SelfContained() {}

// Len is the number of requests the trace replays: its rows, at most
// Spec.Requests.
func (s *traceSource) Len() int64 { return int64(len(s.rows)) }

// String describes the source, for logs.
func (s *traceSource) String() string {
	return fmt.Sprintf("trace %s (%s, %d rows, time scale %g)", s.path, s.format, len(s.rows), s.scale)
}
