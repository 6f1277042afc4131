package workload

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func drain(t testing.TB, src Source) []Request {
	t.Helper()
	var out []Request
	var r Request
	for src.Next(&r) {
		out = append(out, r)
	}
	if err := src.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func mustSource(t testing.TB, s Spec, seed uint64) Source {
	t.Helper()
	src, err := NewSource(s, seed)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestCDFSourceDefaults(t *testing.T) {
	reqs := drain(t, mustSource(t, Spec{CDF: "azure", Rate: 10, Requests: 5000}, 1))
	if len(reqs) != 5000 {
		t.Fatalf("%d requests, want 5000", len(reqs))
	}
	prev := 0.0
	for i, r := range reqs {
		total := r.TotalTokens()
		wantIn := int(math.Floor(0.8 * float64(total)))
		if total < 2 || total > 65536 {
			t.Fatalf("request %d: total %d outside [2, 65536]", i, total)
		}
		switch {
		case r.ID != int64(i):
			t.Fatalf("request %d has ID %d", i, r.ID)
		case r.Arrival < prev || r.Arrival <= 0:
			t.Fatalf("request %d arrives at %v after %v", i, r.Arrival, prev)
		case r.InputTokens < 1 || r.OutputTokens < 1:
			t.Fatalf("request %d: in %d out %d", i, r.InputTokens, r.OutputTokens)
		case total > 2 && r.InputTokens != wantIn:
			t.Fatalf("request %d: in %d, want floor(0.8*%d) = %d", i, r.InputTokens, total, wantIn)
		case r.MaxOutputTokens != r.OutputTokens:
			t.Fatalf("request %d: max output %d != output %d", i, r.MaxOutputTokens, r.OutputTokens)
		case r.Category != Prose:
			t.Fatalf("request %d: category %v, want prose", i, r.Category)
		}
		// Bytes within the 3-sigma jitter clip of 4.48 bytes/token.
		lo, hi := float64(r.InputTokens)*4.48*0.85-1, float64(r.InputTokens)*4.48*1.15+1
		if b := float64(r.Bytes); b < lo || b > hi || r.Bytes < 1 {
			t.Fatalf("request %d: %d bytes for %d prose tokens, want in [%v, %v]", i, r.Bytes, r.InputTokens, lo, hi)
		}
		prev = r.Arrival
	}
}

func TestSourceDeterministic(t *testing.T) {
	spec := Spec{CDF: "lmsys", Rate: 50, Requests: 2000, Arrival: "bursty", Split: "normal", OutputMu: 0.75, OutputSigma: 0.1,
		Categories: map[string]float64{"prose": 0.4, "code": 0.3, "cjk": 0.1, "rag": 0.1, "mixed": 0.1}}
	a := drain(t, mustSource(t, spec, 42))
	b := drain(t, mustSource(t, spec, 42))
	c := drain(t, mustSource(t, spec, 43))
	same := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("seed 42 twice: request %d differs: %+v vs %+v", i, a[i], b[i])
		}
		if a[i] == c[i] {
			same++
		}
	}
	if same > 10 {
		t.Errorf("seeds 42 and 43 share %d identical requests", same)
	}
}

// TestSourceStreamsIndependent checks the named streams: changing the
// category mix must not change lengths or arrivals.
func TestSourceStreamsIndependent(t *testing.T) {
	a := drain(t, mustSource(t, Spec{CDF: "azure", Rate: 5, Requests: 500}, 9))
	b := drain(t, mustSource(t, Spec{CDF: "azure", Rate: 5, Requests: 500, Categories: map[string]float64{"code": 0.5, "cjk": 0.5}}, 9))
	for i := range a {
		if a[i].Arrival != b[i].Arrival || a[i].InputTokens != b[i].InputTokens || a[i].OutputTokens != b[i].OutputTokens {
			t.Fatalf("request %d: arrivals or lengths changed with the category mix", i)
		}
	}
}

func interArrivalStats(reqs []Request) (rate, cv float64) {
	n := float64(len(reqs))
	rate = n / reqs[len(reqs)-1].Arrival
	sum, sum2, prev := 0.0, 0.0, 0.0
	for _, r := range reqs {
		d := r.Arrival - prev
		sum += d
		sum2 += d * d
		prev = r.Arrival
	}
	mean := sum / n
	return rate, math.Sqrt(sum2/n-mean*mean) / mean
}

func TestArrivalRates(t *testing.T) {
	const rate = 10.0
	const n = 200000
	pois := drain(t, mustSource(t, Spec{CDF: "azure", Rate: rate, Requests: n}, 3))
	// Short sojourns give many burst cycles in 200k arrivals (about 8,000),
	// so the empirical rate is tight: its sd is about 0.5%.
	burst := drain(t, mustSource(t, Spec{CDF: "azure", Rate: rate, Requests: n, Arrival: "bursty", BurstRatio: 4, BurstMeanS: 0.5, CalmMeanS: 2}, 3))
	burstDefault := drain(t, mustSource(t, Spec{CDF: "azure", Rate: rate, Requests: n, Arrival: "bursty"}, 3))
	pr, pcv := interArrivalStats(pois)
	br, bcv := interArrivalStats(burst)
	_, dcv := interArrivalStats(burstDefault)
	t.Logf("poisson rate %.4f cv %.4f; bursty rate %.4f cv %.4f; bursty defaults cv %.4f", pr, pcv, br, bcv, dcv)
	if math.Abs(pr-rate) > 0.02*rate {
		t.Errorf("poisson: empirical rate %v, want %v within 2%%", pr, rate)
	}
	if math.Abs(br-rate) > 0.02*rate {
		t.Errorf("bursty: empirical rate %v, want %v within 2%%", br, rate)
	}
	// Poisson inter-arrivals are exponential: CV 1 (sd of the estimate ~0.3%).
	if math.Abs(pcv-1) > 0.02 {
		t.Errorf("poisson: inter-arrival CV %v, want 1", pcv)
	}
	if bcv < 1.1 || dcv < 1.1 || bcv <= pcv || dcv <= pcv {
		t.Errorf("bursty inter-arrival CV %v (defaults %v), want clearly above poisson's %v", bcv, dcv, pcv)
	}
}

func TestMMPPValidation(t *testing.T) {
	r := NewRand(1, StreamArrivals)
	for _, tt := range []struct {
		rate, ratio, burst, calm float64
		want                     string
	}{
		{0, 4, 1, 1, "rate = 0"},
		{1, 0.5, 1, 1, "burst_ratio = 0.5"},
		{1, 4, 0, 1, "burst_mean_s = 0"},
		{1, 4, 1, math.Inf(1), "calm_mean_s = +Inf"},
	} {
		if _, err := NewMMPP(tt.rate, tt.ratio, tt.burst, tt.calm, r); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewMMPP(%v, %v, %v, %v) error %v, want %q", tt.rate, tt.ratio, tt.burst, tt.calm, err, tt.want)
		}
	}
	if _, err := NewPoisson(-1, r); err == nil || !strings.Contains(err.Error(), "rate = -1") {
		t.Errorf("NewPoisson(-1) error %v", err)
	}
}

func TestSplitFixed(t *testing.T) {
	for _, tt := range []struct {
		total   int
		f       float64
		in, out int
	}{
		{10, 0.8, 8, 2},
		{1, 0.8, 1, 1}, // both parts at least 1 (documented)
		{2, 0.8, 1, 1},
		{3, 0.8, 2, 1},
		{5, 0.99, 4, 1}, // floor(4.95) = 4
		{100, 0.29, 29, 71},
		{100, 0.01, 1, 99},
		{4096, 0.8, 3276, 820},
	} {
		in, out := SplitFixed(tt.total, tt.f)
		if in != tt.in || out != tt.out {
			t.Errorf("SplitFixed(%d, %v) = %d, %d; want %d, %d", tt.total, tt.f, in, out, tt.in, tt.out)
		}
	}
}

func TestSplitNormal(t *testing.T) {
	r := NewRand(5, StreamSplit)
	const n = 100000
	const total = 10000
	sum, lo, hi := 0.0, 1.0, 0.0
	for range n {
		in, out := SplitNormal(total, 0.3, 0.5, r)
		if in+out != total || in < 1 || out < 1 {
			t.Fatalf("SplitNormal gave %d + %d", in, out)
		}
		o := float64(out) / total
		sum += o
		lo, hi = min(lo, o), max(hi, o)
	}
	if lo != 0.02 || hi != 0.95 {
		t.Errorf("output fraction range [%v, %v], want the clip [0.02, 0.95] reached", lo, hi)
	}
	// Mean of N(0.3, 0.5) clipped to [0.02, 0.95], by the clipped-normal
	// formula: E = a·Φ(α) + b·(1-Φ(β)) + μ(Φ(β)-Φ(α)) + σ(φ(α)-φ(β)),
	// α = (0.02-0.3)/0.5, β = (0.95-0.3)/0.5.
	phi := func(x float64) float64 { return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) }
	Phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	a, b := (0.02-0.3)/0.5, (0.95-0.3)/0.5
	want := 0.02*Phi(a) + 0.95*(1-Phi(b)) + 0.3*(Phi(b)-Phi(a)) + 0.5*(phi(a)-phi(b))
	if got := sum / n; math.Abs(got-want) > 0.003 {
		t.Errorf("mean output fraction %v, want %v", got, want)
	}
	// Tiny totals keep both parts >= 1.
	for range 1000 {
		if in, out := SplitNormal(2, 0.5, 0.5, r); in != 1 || out != 1 {
			t.Fatalf("SplitNormal(2) = %d, %d", in, out)
		}
	}
}

func TestCategoryMix(t *testing.T) {
	shares := map[string]float64{"prose": 0.5, "code": 0.2, "cjk": 0.1, "rag": 0.15, "mixed": 0.05}
	const n = 200000
	reqs := drain(t, mustSource(t, Spec{CDF: "azure", Rate: 1, Requests: n, Categories: shares}, 11))
	var count [NumCategories]float64
	var bytes, tokens [NumCategories]float64
	for _, r := range reqs {
		count[r.Category]++
		bytes[r.Category] += float64(r.Bytes)
		tokens[r.Category] += float64(r.InputTokens)
	}
	for name, want := range shares {
		c, _ := ParseCategory(name)
		sd := math.Sqrt(want * (1 - want) / n)
		if got := count[c] / n; math.Abs(got-want) > 5*sd {
			t.Errorf("%s share %v, want %v", name, got, want)
		}
		// The aggregate bytes-per-token ratio is the true ratio (jitter has
		// mean 0; rounding adds < 0.5 byte per request).
		if got := bytes[c] / tokens[c]; math.Abs(got-c.BytesPerToken()) > 0.005*c.BytesPerToken() {
			t.Errorf("%s bytes/token %v, want %v", name, got, c.BytesPerToken())
		}
	}
}

func TestBytesPerToken(t *testing.T) {
	// Token-budget paper, Table 4 ("True c_k"); RAG is our documented choice.
	for _, tt := range []struct {
		c    Category
		want float64
	}{{Prose, 4.48}, {Code, 3.52}, {CJK, 2.01}, {Mixed, 3.81}, {RAG, 4.20}} {
		if got := tt.c.BytesPerToken(); got != tt.want {
			t.Errorf("%v.BytesPerToken() = %v, want %v", tt.c, got, tt.want)
		}
	}
	if !math.IsNaN(NumCategories.BytesPerToken()) {
		t.Error("unknown category has a ratio")
	}
}

func TestNewCDFSourceRestricted(t *testing.T) {
	c := mustCDF(t, "azure")
	short, err := c.Restrict(0, 4096)
	if err != nil {
		t.Fatal(err)
	}
	src, err := NewCDFSource(Spec{Rate: 3, Requests: 10000}, short, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range drain(t, src) {
		if r.TotalTokens() > 4096 {
			t.Fatalf("restricted source produced %d tokens", r.TotalTokens())
		}
	}
	if _, err := NewCDFSource(Spec{Rate: 3, Requests: 1}, nil, 1); err == nil {
		t.Error("nil CDF accepted")
	}
}

func TestSourceNoAllocs(t *testing.T) {
	src := mustSource(t, Spec{CDF: "agent-heavy", Rate: 100, Requests: MaxRequests / 100, Arrival: "bursty", Split: "normal",
		Categories: map[string]float64{"prose": 0.5, "code": 0.5}}, 1)
	var r Request
	if a := testing.AllocsPerRun(10000, func() { src.Next(&r) }); a != 0 {
		t.Errorf("Next allocates %v times per request, want 0", a)
	}
}

func TestAzureTraceReplay(t *testing.T) {
	path := filepath.Join("testdata", "AzureLLMInferenceTrace_conv.csv")
	reqs := drain(t, mustSource(t, Spec{Trace: path, Requests: MaxRequests}, 1))
	// SOURCES.md: 19,366 rows from 18:15:46.68 to 19:14:08.40.
	if len(reqs) != 19366 {
		t.Fatalf("%d rows, want 19366", len(reqs))
	}
	first, last := reqs[0], reqs[len(reqs)-1]
	// First and last data rows of the file.
	if first.Arrival != 0 || first.InputTokens != 374 || first.OutputTokens != 44 || first.MaxOutputTokens != 44 {
		t.Errorf("first request %+v, want arrival 0, 374 in, 44 out", first)
	}
	span := 3501.7219370 // 19:14:08.4025270 - 18:15:46.6805900
	if math.Abs(last.Arrival-span) > 1e-6 || last.InputTokens != 197 || last.OutputTokens != 183 || last.ID != 19365 {
		t.Errorf("last request %+v, want arrival %v, 197 in, 183 out", last, span)
	}
	// Rescaled to 20 req/s and capped at 1,000 rows: the replay's mean rate
	// n/span equals the target.
	reqs = drain(t, mustSource(t, Spec{Trace: path, Rate: 20, Requests: 1000}, 1))
	if len(reqs) != 1000 {
		t.Fatalf("%d rows, want 1000", len(reqs))
	}
	if got := 1000 / reqs[999].Arrival; math.Abs(got-20) > 1e-9 {
		t.Errorf("rescaled rate %v, want 20", got)
	}
}

func TestMooncakeTraceReplay(t *testing.T) {
	path := filepath.Join("testdata", "mooncake_conversation_head500.jsonl")
	// Requests above the row count: the trace ends early, without error.
	reqs := drain(t, mustSource(t, Spec{Trace: path, Requests: 100000}, 1))
	if len(reqs) != 500 {
		t.Fatalf("%d rows, want 500", len(reqs))
	}
	// First and last lines of the file.
	if r := reqs[0]; r.Arrival != 0 || r.InputTokens != 6758 || r.OutputTokens != 500 {
		t.Errorf("first request %+v", r)
	}
	if r := reqs[499]; r.Arrival != 165 || r.InputTokens != 15597 || r.OutputTokens != 138 {
		t.Errorf("last request %+v, want arrival 165 s (165000 ms)", r)
	}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTraceErrors(t *testing.T) {
	const hdr = "TIMESTAMP,ContextTokens,GeneratedTokens\n"
	tests := []struct {
		name, content string
		rate          float64
		want          []string // substrings of the one-line error
	}{
		{"a.csv", "", 0, []string{"empty file"}},
		{"a.csv", "time,ctx,gen\n1,2,3\n", 0, []string{"line 1", "no TIMESTAMP column"}},
		{"a.csv", hdr + "2023-11-16 18:17:03.98,abc,10\n", 0, []string{"line 2", `ContextTokens = "abc"`, "not an integer"}},
		{"a.csv", hdr + "2023-11-16 18:17:03.98,100,0\n", 0, []string{"line 2", `GeneratedTokens = "0"`, "[1, 1073741824]"}},
		{"a.csv", hdr + "yesterday,100,10\n", 0, []string{"line 2", `TIMESTAMP = "yesterday"`}},
		{"a.csv", hdr + "1,100,10\n2,100\n", 0, []string{"line 3", "has 2 fields, the header has 3"}},
		{"a.csv", hdr + "5,100,10\n4,100,10\n", 0, []string{"line 3", `TIMESTAMP = "4"`, "earlier than the previous row's 5"}},
		{"a.csv", hdr + "\"5,100,10\n", 0, []string{"malformed CSV"}},
		{"a.csv", hdr, 0, []string{"has no rows"}},
		{"a.csv", hdr + "5,100,10\n5,100,10\n", 3, []string{"share one timestamp"}},
		{"m.jsonl", `{"timestamp": 0, "input_length": 5}` + "\n", 0, []string{"line 1", "output_length", "missing"}},
		{"m.jsonl", "\n" + `{"timestamp": "x", "input_length": 5, "output_length": 1}`, 0, []string{"line 2", "not a JSON object"}},
		{"m.jsonl", `{"timestamp": 0, "input_length": 5.5, "output_length": 1}`, 0, []string{"line 1", `input_length = "5.5"`}},
		{"m.jsonl", `{"timestamp": 0, "input_length": -5, "output_length": 1}`, 0, []string{"line 1", `input_length = "-5"`}},
		{"m.jsonl", `{"timestamp": 10, "input_length": 5, "output_length": 1}` + "\n" + `{"timestamp": 9, "input_length": 5, "output_length": 1}`, 0,
			[]string{"line 2", `timestamp = "9"`, "previous row's 10 ms"}},
		{"m.jsonl", "[1, 2]\n", 0, []string{"line 1", `"[1, 2]"`}},
		// 10^15 ms = 10^12 s, beyond MaxTraceSpanS (a µs trace read as ms, say).
		{"m.jsonl", `{"timestamp": 0, "input_length": 5, "output_length": 1}` + "\n" + `{"timestamp": 1e15, "input_length": 5, "output_length": 1}`, 0,
			[]string{"span 1e+12 s", "at most 4e+06 s"}},
	}
	for _, tt := range tests {
		p := writeFile(t, tt.name, tt.content)
		checkTraceError(t, Spec{Trace: p, Requests: 10, Rate: tt.rate}, tt.content, tt.want)
	}
	if _, err := NewSource(Spec{Trace: filepath.Join(t.TempDir(), "none.csv"), Requests: 1}, 1); err == nil || !strings.Contains(err.Error(), "cannot open") {
		t.Errorf("missing trace: error %v", err)
	}
	// Rows past Requests are not read, so a bad row there is not an error.
	p := writeFile(t, "late.csv", hdr+"1,100,10\n2,100,10\nbad,bad,bad\n")
	if reqs := drain(t, mustSource(t, Spec{Trace: p, Requests: 2}, 1)); len(reqs) != 2 {
		t.Errorf("%d requests, want 2", len(reqs))
	}
}

func TestSpecValidate(t *testing.T) {
	ok := Spec{CDF: "azure", Rate: 10, Requests: 100}
	tr := Spec{Trace: "t.csv", Requests: 100}
	with := func(s Spec, f func(*Spec)) Spec { f(&s); return s }
	tests := []struct {
		spec Spec
		want string // the whole one-line message
	}{
		{Spec{Rate: 1, Requests: 1}, `cdf = "": a workload needs a CDF (azure, lmsys, agent-heavy or a CDF JSON file) or a trace file`},
		{with(ok, func(s *Spec) { s.Trace = "t.csv" }), `trace = "t.csv": give either a CDF (cdf = "azure") or a trace, not both`},
		{with(ok, func(s *Spec) { s.Rate = -1 }), `rate = -1: must be in [1e-06, 1e+09] requests/s`},
		{with(ok, func(s *Spec) { s.Rate = 0 }), `rate = 0: must be in [1e-06, 1e+09] requests/s`},
		{with(ok, func(s *Spec) { s.Rate = math.NaN() }), `rate = NaN: must be in [1e-06, 1e+09] requests/s`},
		{with(tr, func(s *Spec) { s.Rate = -2 }), `rate = -2: must be 0 (the trace's own rate) or in [1e-06, 1e+09] requests/s`},
		{with(ok, func(s *Spec) { s.Requests = 0 }), `requests = 0: must be in [1, 1000000000]`},
		{with(tr, func(s *Spec) { s.Requests = -1 }), `requests = -1: must be in [1, 1000000000]`},
		{with(ok, func(s *Spec) { s.Arrival = "uniform" }), `arrival = "uniform": allowed: poisson, bursty (or trace with a trace file)`},
		{with(ok, func(s *Spec) { s.Arrival = "trace" }), `arrival = "trace": needs a trace file (allowed with a CDF: poisson, bursty)`},
		{with(tr, func(s *Spec) { s.Arrival = "bursty" }), `arrival = "bursty": a trace replays its own timestamps (allowed with a trace: trace, or empty)`},
		{with(ok, func(s *Spec) { s.BurstRatio = 0.5 }), `burst_ratio = 0.5: must be in [1, 1000] (high-state rate / low-state rate; 0 = default 4)`},
		{with(ok, func(s *Spec) { s.BurstMeanS = -1 }), `burst_mean_s = -1: must be in (0, 1e+06] seconds (0 = default 5)`},
		{with(ok, func(s *Spec) { s.CalmMeanS = math.Inf(1) }), `calm_mean_s = +Inf: must be in (0, 1e+06] seconds (0 = default 20)`},
		{with(ok, func(s *Spec) { s.Split = "half" }), `split = "half": allowed: fixed, normal`},
		{with(ok, func(s *Spec) { s.InputFraction = 1 }), `input_fraction = 1: must be in (0, 1) (0 = default 0.8)`},
		{with(ok, func(s *Spec) { s.OutputMu = -0.1 }), `output_mu = -0.1: must be in (0, 1) (0 = default 0.1)`},
		{with(ok, func(s *Spec) { s.OutputSigma = -1 }), `output_sigma = -1: must be in (0, 1] (0 = default 0.05)`},
		{with(ok, func(s *Spec) { s.TraceFormat = "azure" }), `trace_format = "azure": applies only to a trace (trace is empty)`},
		{with(tr, func(s *Spec) { s.TraceFormat = "parquet" }), `trace_format = "parquet": allowed: azure, mooncake, generic (or empty: by file extension)`},
		{with(tr, func(s *Spec) { s.Trace = "t.txt" }), `trace = "t.txt": cannot tell the trace format from the extension (want .csv for azure, .jsonl for mooncake, or set trace_format)`},
		{with(ok, func(s *Spec) { s.Categories = map[string]float64{"poetry": 1} }), `categories = "poetry": unknown category (allowed: prose, code, cjk, rag, mixed)`},
		{with(ok, func(s *Spec) { s.Categories = map[string]float64{"prose": 1.5, "code": -0.5} }), `categories.code = -0.5: a share must be in [0, 1]`},
		{with(ok, func(s *Spec) { s.Categories = map[string]float64{"prose": 0.5, "code": 0.4} }), `categories = 0.9: the shares (code, prose) must sum to 1`},
	}
	for _, tt := range tests {
		err := tt.spec.Validate()
		if err == nil || err.Error() != tt.want {
			t.Errorf("Validate(%+v) = %v\nwant %s", tt.spec, err, tt.want)
		}
		if _, serr := NewSource(tt.spec, 1); serr == nil || (err != nil && serr.Error() != err.Error()) {
			t.Errorf("NewSource(%+v) error %v, want %v", tt.spec, serr, err)
		}
	}
	for _, s := range []Spec{
		ok, tr,
		with(tr, func(s *Spec) { s.Arrival = "trace"; s.Rate = 5; s.TraceFormat = "mooncake"; s.Trace = "x.log" }),
		with(tr, func(s *Spec) { s.Arrival = "poisson" }),
		with(ok, func(s *Spec) { s.Categories = map[string]float64{"prose": 0.3, "code": 0.7 + 5e-10} }),
	} {
		if err := s.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v, want nil", s, err)
		}
	}
	if _, err := NewSource(Spec{CDF: "nope", Rate: 1, Requests: 1}, 1); err == nil || !strings.Contains(err.Error(), `cdf "nope": not a built-in`) {
		t.Errorf("unknown CDF: error %v", err)
	}
}

func TestWithDefaults(t *testing.T) {
	// Only the parameters of the selected models are spelled out, so the
	// result validates again (a parameter that does not apply is an error).
	d := Spec{CDF: "azure", Rate: 1, Requests: 1}.WithDefaults()
	if d.Arrival != "poisson" || d.Split != "fixed" || d.InputFraction != 0.8 || d.OutputMu != 0 || d.OutputSigma != 0 ||
		d.BurstRatio != 0 || d.BurstMeanS != 0 || d.CalmMeanS != 0 || d.Categories["prose"] != 1 || d.TraceFormat != "" {
		t.Errorf("defaults %+v", d)
	}
	b := Spec{CDF: "azure", Rate: 1, Requests: 1, Arrival: "bursty", Split: "normal"}.WithDefaults()
	if b.BurstRatio != 4 || b.BurstMeanS != 5 || b.CalmMeanS != 20 || b.InputFraction != 0 || b.OutputMu != 0.1 || b.OutputSigma != 0.05 {
		t.Errorf("bursty, normal split defaults %+v", b)
	}
	tr := Spec{Trace: "x.jsonl", Requests: 1}.WithDefaults()
	if tr.Arrival != "trace" || tr.TraceFormat != "mooncake" || tr.Split != "" || tr.InputFraction != 0 {
		t.Errorf("trace defaults %+v", tr)
	}
	for _, s := range []Spec{d, b, tr} {
		if err := s.Validate(); err != nil {
			t.Errorf("WithDefaults result does not validate: %v", err)
		}
	}
}

// checkTraceError checks that NewSource refuses spec (a trace holding
// content) with one line naming the file and containing every want.
func checkTraceError(t *testing.T, spec Spec, content string, want []string) {
	t.Helper()
	_, err := NewSource(spec, 1)
	if err == nil {
		t.Errorf("%q: no error, want %q", content, want)
		return
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, spec.Trace) {
		t.Errorf("%q: error %q is not one line naming the file", content, msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("%q: error %q, want it to contain %q", content, msg, w)
		}
	}
}
