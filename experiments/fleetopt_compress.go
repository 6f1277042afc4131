package experiments

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/fleetsim/fleetsim/router/compress"
	"github.com/fleetsim/fleetsim/workload"
)

// band is one workload's borderline band (B, γB] at γ = 1.5.
type band struct {
	Workload, Label string
	B               int
}

var compressBands = []band{{"azure", "Azure", 4096}, {"lmsys", "LMSYS", 1536}, {"agent-heavy", "Agent-heavy", 8192}}

// bandRequest is one borderline request: its total length L in (B, 1.5B],
// its prompt (L_in = ⌊0.8·L⌋ tokens of prose) and the C&R budget
// T_c = B − L_out.
type bandRequest struct {
	prompt string
	budget int
}

// bandRequests builds n borderline requests of the band, L uniform on
// (B, ⌊1.5B⌋], deterministic for seed.
func bandRequests(b band, n int, seed uint64) []bandRequest {
	rng := workload.NewRand(seed, workload.StreamCompressor)
	hi := b.B * 3 / 2
	out := make([]bandRequest, n)
	for i := range out {
		L := b.B + 1 + rng.IntN(hi-b.B)
		lin := int(workload.DefaultInputFraction * float64(L))
		out[i] = bandRequest{prompt: compress.ProsePrompt(rng, lin, lin+lin/20+64), budget: b.B - (L - lin)}
	}
	return out
}

// pct returns the nearest-rank percentile q (0–100) of sorted xs.
func pct(xs []float64, q float64) float64 {
	i := int(float64(len(xs))*q/100+0.999999) - 1
	return xs[min(max(i, 0), len(xs)-1)]
}

// fleetOptTable4Paper is FleetOpt Table 4 (ms): p50, p95, p99 and the mean
// overhead per request (the paper's "<0.2", "<0.1" as their bounds).
var fleetOptTable4Paper = map[string][4]float64{
	"azure": {1.8, 4.2, 6.5, 0.2}, "lmsys": {1.2, 3.1, 5.2, 0.1}, "agent-heavy": {3.4, 6.2, 7.8, 0.39},
}

// FleetOptTable4 reproduces FleetOpt Table 4: the compressor's latency on
// each workload's borderline band (B, 1.5B], prose prompts of L_in =
// ⌊0.8·L⌋ tokens built from the CC BY papers, compressed to T_c = B −
// L_out. Wall-clock and thread-CPU percentiles are measured only with
// Options.Timing (they are not byte-identical); without it the table
// gives the bands and β only.
func FleetOptTable4(o Options) ([]Table, error) {
	t := Table{
		Name:    "fleetopt-table4",
		Title:   "FleetOpt Table 4 — compressor latency per borderline band (ms)",
		Source:  "FleetOpt (arXiv 2603.16514) Table 4 and §5.2",
		Columns: append([]string{"workload", "quantity"}, CompareColumns...),
	}
	const n = 200 // prompts per band
	for _, b := range compressBands {
		cdf, err := workload.LoadCDF(b.Workload)
		if err != nil {
			return nil, err
		}
		beta := cdf.F(float64(b.B*3/2)) - cdf.F(float64(b.B))
		k := []any{fmt.Sprintf("%s (B = %d)", b.Label, b.B)}
		t.Rows = append(t.Rows, row(append(k, "β = F(1.5B) − F(B)"), Compare(beta, map[string]float64{"azure": 0.078, "lmsys": 0.046, "agent-heavy": 0.112}[b.Workload], 3)))
		if !o.Timing {
			continue
		}
		wall, cpu, err := timeCompress(bandRequests(b, n, o.seed(1)), o.ThreadCPU)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.Workload, err)
		}
		p := fleetOptTable4Paper[b.Workload]
		mean := 0.0
		for _, w := range wall {
			mean += w
		}
		mean /= float64(len(wall))
		t.Rows = append(t.Rows,
			row(append(k, "wall p50 ms"), Compare(pct(wall, 50), p[0], 2)),
			row(append(k, "wall p95 ms"), Compare(pct(wall, 95), p[1], 2)),
			row(append(k, "wall p99 ms"), Compare(pct(wall, 99), p[2], 2)),
			row(append(k, "overhead per request ms (β × mean wall)"), Compare(beta*mean, p[3], 3)),
		)
		if len(cpu) == len(wall) {
			t.Rows = append(t.Rows,
				row(append(k, "thread CPU p50 ms"), Compare(pct(cpu, 50), nan, 2)),
				row(append(k, "thread CPU p99 ms"), Compare(pct(cpu, 99), nan, 2)),
			)
		}
	}
	t.Notes = []string{
		fmt.Sprintf("Ours: router/compress on %d prose prompts per band built from the two CC BY 4.0 papers (compress.ProsePrompt; L uniform on (B, 1.5B], L_in = ⌊0.8·L⌋, T_c = B − L_out), one compression per prompt on one locked OS thread; nearest-rank percentiles. The paper measured on an Intel Xeon Platinum 8568Y+ single core on its own (LMSYS) prompts.", n),
		"Our compressor is several times faster than the paper's (Go, one pass of TextRank on a sparse TF-IDF graph; docs/router.md): the p50 and p99 differences are the implementation and the machine, not the band. The paper's overheads '<0.2' and '<0.1' ms are bounds; its agent-heavy 0.39 ms is β × a mean of ~3.5 ms.",
	}
	if o.Timing {
		t.Notes = append(t.Notes, "Measured on "+machine()+". Wall time includes waiting for a CPU on a shared machine; the thread CPU time does not.")
	} else {
		t.Notes = append(t.Notes, "Latency rows are measured only with --timing (a measurement is not byte-identical for a seed); docs/router.md's benchmarks record BenchmarkCompress (8K–12K tokens: p50 1.1 ms, p99 2.2 ms wall) and BenchmarkCompressBand (4K–6K: p50 0.45 ms, p99 0.8 ms).")
	}
	return []Table{t}, nil
}

// timeCompress compresses every request once (after one warm-up pass of
// ten) and returns the sorted wall-clock and thread-CPU times, ms (cpu
// empty when threadCPU is nil).
func timeCompress(reqs []bandRequest, threadCPU func() (float64, bool)) (wall, cpu []float64, err error) {
	if threadCPU == nil {
		threadCPU = func() (float64, bool) { return 0, false }
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var c compress.Compressor
	for _, r := range reqs[:min(10, len(reqs))] {
		if _, err := c.Compress(r.prompt, r.budget); err != nil {
			return nil, nil, err
		}
	}
	for _, r := range reqs {
		c0, ok0 := threadCPU()
		t0 := time.Now()
		if _, err := c.Compress(r.prompt, r.budget); err != nil {
			return nil, nil, err
		}
		wall = append(wall, float64(time.Since(t0).Nanoseconds())/1e6)
		if c1, ok1 := threadCPU(); ok0 && ok1 {
			cpu = append(cpu, (c1-c0)*1e3)
		}
	}
	slices.Sort(wall)
	slices.Sort(cpu)
	return wall, cpu, nil
}

// paperCut is Table 7's mean token reduction, %; atPaperCut labels the
// rows measured with every prompt cut by that much.
const (
	paperCut   = 15.4
	atPaperCut = " at a 15.4% cut"
)

// fleetOptTable7Paper is FleetOpt Table 7 (300 LMSYS-Chat-1M borderline
// prompts, agent-heavy band 8,192–12,288): mean, p10, p50, p90.
var fleetOptTable7Paper = map[string][4]float64{
	"ROUGE-L recall":    {0.856, 0.783, 0.861, 0.921},
	"TF-IDF cosine":     {0.981, 0.963, 0.984, 0.996},
	"token reduction %": {15.4, 6.1, 14.2, 26.3},
	"BERTScore F1":      {0.884, 0.831, 0.891, 0.934},
}

// FleetOptTable7 reproduces FleetOpt Table 7 (compression fidelity) on the
// offline CC BY prose: 300 agent-heavy borderline requests (B = 8,192,
// γ = 1.5) compressed to T_c = B − L_out; p_c, ROUGE-L recall, TF-IDF
// cosine and token reduction (mean, p10, p50, p90).
func FleetOptTable7(o Options) ([]Table, error) {
	t := Table{
		Name:    "fleetopt-table7",
		Title:   "FleetOpt Table 7 — compression fidelity on 300 borderline prose prompts (B = 8,192, γ = 1.5)",
		Source:  "FleetOpt (arXiv 2603.16514) Table 7 and Appendix C",
		Columns: append([]string{"metric", "statistic"}, CompareColumns...),
	}
	const n = 300 // the paper's count
	reqs := bandRequests(band{"agent-heavy", "Agent-heavy", 8192}, n, o.seed(1))
	var c compress.Compressor
	// Two cuts: the band's own budget T_c = B − L_out, and the paper's mean
	// token reduction (15.4%) applied to every prompt.
	vals := map[string][]float64{}
	ok := 0
	for _, r := range reqs {
		res, err := c.Compress(r.prompt, r.budget)
		if err != nil {
			continue // a C&R failure: counted in p_c
		}
		ok++
		f := compress.Measure(r.prompt, res.Text)
		vals["ROUGE-L recall"] = append(vals["ROUGE-L recall"], f.ROUGELRecall)
		vals["TF-IDF cosine"] = append(vals["TF-IDF cosine"], f.TFIDFCosine)
		vals["token reduction %"] = append(vals["token reduction %"], 100*(1-float64(res.Tokens)/float64(res.OriginalTokens)))
		res2, err := c.Compress(r.prompt, int(float64(res.OriginalTokens)*(1-paperCut/100)))
		if err != nil {
			return nil, err
		}
		f2 := compress.Measure(r.prompt, res2.Text)
		vals["ROUGE-L recall"+atPaperCut] = append(vals["ROUGE-L recall"+atPaperCut], f2.ROUGELRecall)
		vals["TF-IDF cosine"+atPaperCut] = append(vals["TF-IDF cosine"+atPaperCut], f2.TFIDFCosine)
	}
	t.Rows = append(t.Rows, row([]any{"p_c (compressed within budget)", "share"}, Compare(float64(ok)/float64(len(reqs)), 1.00, 3)))
	for _, m := range []string{"ROUGE-L recall", "TF-IDF cosine", "token reduction %", "ROUGE-L recall" + atPaperCut, "TF-IDF cosine" + atPaperCut, "BERTScore F1"} {
		p := fleetOptTable7Paper[strings.TrimSuffix(m, atPaperCut)]
		xs := vals[m]
		slices.Sort(xs)
		digits := 3
		if m == "token reduction %" {
			digits = 1
		}
		stats := []float64{nan, nan, nan, nan}
		if len(xs) > 0 {
			mean := 0.0
			for _, x := range xs {
				mean += x
			}
			stats = []float64{mean / float64(len(xs)), pct(xs, 10), pct(xs, 50), pct(xs, 90)}
		}
		for i, v := range stats {
			t.Rows = append(t.Rows, row([]any{m, []string{"mean", "p10", "p50", "p90"}[i]}, Compare(v, p[i], digits)))
		}
	}
	t.Notes = []string{
		fmt.Sprintf("Ours: router/compress on %d prose prompts built from the two CC BY 4.0 papers (compress.ProsePrompt: L uniform on (8,192, 12,288], L_in = ⌊0.8·L⌋, T_c = 8,192 − L_out, seed %d); compress.Measure gives ROUGE-L recall (LCS of the word sequences over the original's length) and the TF-IDF cosine (IDF over the original's sentences).", n, o.seed(1)),
		"Not reproducible here: BERTScore F1 needs the RoBERTa-large model, and the paper's 300 LMSYS-Chat-1M prompts are not available offline (the dataset's licence requires an agreement); our prompts are technical prose, so the comparison is of the method, not the data.",
		"Token reduction: T_c = B − L_out with L_out = L − ⌊0.8·L⌋ cuts a mean of ~25% of our prompts, against the paper's 15.4% (its prompts' output budgets are not stated). The rows 'at a 15.4% cut' compress the same prompts to 84.6% of their tokens: there ROUGE-L recall and TF-IDF cosine are close to the paper's, so the first rows' lower ROUGE-L is the larger cut, not the compressor. Their p10–p90 spread is narrower than the paper's because every prompt gets the same cut (the paper's cuts range 6–26%).",
	}
	return []Table{t}, nil
}
