package export

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fleetsim/fleetsim/sim"
)

// Report builds the report of a simulate run from its summary and what the
// collector gathered. command names what wrote it, dir the output
// directory and outputs its files.
func (c *RunCollector) Report(sum *sim.Summary, command, dir, outputs string) *Report {
	cfg := &sum.Config
	r := &Report{
		Title:    "fleetsim simulate report",
		Subtitle: fmt.Sprintf("%d requests, seed %d, %s timing, %.1f s of simulated time", sum.Requests, cfg.Seed, cfg.TimingLabel(), sum.SimTimeS),
		Meta:     runMeta(sum, command, dir, outputs),
	}
	r.Sections = append(r.Sections, summarySection(sum, c))
	r.Sections = append(r.Sections, c.latencySection(sum))
	if c.hasTS {
		r.Sections = append(r.Sections, c.timeSection(sum))
	}
	files := ReportSection{ID: "files", Title: "Reading the outputs", Notes: []string{
		"requests.parquet holds one row per request in completion order (the order the simulator emits them, which keeps its memory bounded); sort by id to get arrival order, e.g. in DuckDB: SELECT * FROM 'requests.parquet' ORDER BY id. Times and durations are seconds; NULL marks a time a rejected request never reached.",
		"timeseries.parquet holds one row per pool per interval of simulated time and one for the whole fleet (pool 'fleet'); docs/report.md documents its columns. examples/notebook/ shows the same analysis in DuckDB, pandas and polars.",
	}}
	if len(c.first) > 0 {
		t := ReportTable{Caption: "The first requests by id (arrival order), as requests.parquet holds them",
			Head:    []string{"id", "pool", "arrival_s", "ttft_s", "tpot_s", "e2e_s", "input_tokens", "output_tokens", "warmup", "rejected"},
			Numeric: []bool{true, false, true, true, true, true, true, true, false, false}}
		for _, r := range c.first {
			t.Rows = append(t.Rows, []string{strconv.FormatInt(r.ID, 10), r.Pool, num(r.ArrivalS, 4), num(r.TTFTS, 4), num(r.TPOTS, 5), num(r.E2ES, 3),
				strconv.Itoa(int(r.InputTokens)), strconv.Itoa(int(r.OutputTokens)), strconv.FormatBool(r.Warmup), strconv.FormatBool(r.Rejected)})
		}
		files.Tables = append(files.Tables, t)
	}
	r.Sections = append(r.Sections, files)
	return r
}

// runMeta is the metadata table of a run.
func runMeta(sum *sim.Summary, command, dir, outputs string) [][2]string {
	cfg := &sum.Config
	w := cfg.Workload
	wl := w.CDF
	if w.Trace != "" {
		wl = "trace " + w.Trace
	}
	rate := "the trace's own timestamps"
	if w.Rate > 0 {
		rate = num(w.Rate, 1) + " req/s"
	}
	var pools []string
	for _, p := range cfg.Pools {
		pools = append(pools, fmt.Sprintf("%s: %d × %s, max context %d, %s dispatch", p.Name, p.Count, p.GPU, p.MaxContext, p.Dispatch))
	}
	slo := func(v float64) string {
		if v <= 0 {
			return "none"
		}
		return ms(v) + " ms"
	}
	router := cfg.Router.Kind
	if b, err := json.Marshal(cfg.Router); err == nil {
		router = string(b)
	}
	m := [][2]string{
		{"written by", command},
		{"fleetsim version", sum.Version},
		{"output directory", dir},
		{"files", outputs},
		{"seed", strconv.FormatUint(cfg.Seed, 10)},
		{"workload", fmt.Sprintf("%s, %s arrivals at %s, %d requests", wl, orDash(w.Arrival), rate, sum.Requests)},
		{"pools", strings.Join(pools, "; ")},
		{"timing", cfg.TimingLabel()},
		{"router", router},
		{"warm-up", fmt.Sprintf("first %g of arrivals (%d requests) kept in the output, left out of the metrics", cfg.WarmupFraction, sum.WarmupRequests)},
		{"measurement window", fmt.Sprintf("%.2f s to %.2f s (first post-warm-up arrival to last arrival)", sum.WindowStartS, sum.WindowEndS)},
		{"SLO", fmt.Sprintf("TTFT %s, TPOT %s", slo(cfg.SLO.TTFTS), slo(cfg.SLO.TPOTS))},
		{"over-saturation detector", orDash(cfg.OSD.Mode)},
		{"simulated time", fmt.Sprintf("%.2f s", sum.SimTimeS)},
		{"latency quantiles", fmt.Sprintf("%s, relative error ≤ %.2f%%", sum.Percentiles.Method, 100*sum.Percentiles.RelativeError)},
	}
	return m
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// summarySection is the per-pool metrics table, the OSD verdict and the
// rejections by reason.
func summarySection(sum *sim.Summary, c *RunCollector) ReportSection {
	// The table of simulate's stdout, split in two so that each fits a
	// page: load and verdicts, then latencies (by column name).
	tcols := columns(sum)
	all := tableRows(sum, tcols)
	split := func(caption string, cols ...string) ReportTable {
		t := ReportTable{Caption: caption}
		var idx []int
		for i, col := range tcols {
			if slices.Contains(cols, col.head) {
				idx = append(idx, i)
				t.Head = append(t.Head, col.head)
				t.Numeric = append(t.Numeric, !leftAligned(i, len(tcols)))
			}
		}
		for _, row := range all {
			r := make([]string, len(idx))
			for j, i := range idx {
				r[j] = row[i]
			}
			t.Rows = append(t.Rows, r)
		}
		return t
	}
	s := ReportSection{ID: "summary", Title: "Metrics", Tables: []ReportTable{
		split("Load per pool, over the post-warm-up requests (the last row is the whole fleet)",
			"pool", "gpu", "instances", "gpus", "max_ctx", "slots", "arrived", "completed", "rejected", "preempt", "util", "thru_rps", "slo", "overloaded", "osd"),
		split("Latency per pool: quantiles over the post-warm-up requests",
			"pool", "ttft_p50_ms", "ttft_p99_ms", "tpot_p50_ms", "tpot_p99_ms", "e2e_p99_s", "wait_p99_ms"),
	}}
	if v := OSDVerdictLine(sum); v != "" {
		s.Notes = append(s.Notes, v+".")
	}
	if c != nil && len(c.rejects) > 0 {
		rt := ReportTable{Caption: "Rejected requests by reason (post-warm-up)", Head: []string{"reason", "requests"}, Numeric: []bool{false, true}}
		reasons := make([]string, 0, len(c.rejects))
		for k := range c.rejects {
			reasons = append(reasons, k)
		}
		slices.Sort(reasons)
		for _, k := range reasons {
			rt.Rows = append(rt.Rows, []string{k, strconv.FormatInt(c.rejects[k], 10)})
		}
		s.Tables = append(s.Tables, rt)
	}
	return s
}

// poolKeys are the collector's latency keys in the summary's pool order
// (pools it never saw are skipped), then the fleet when there are several.
func (c *RunCollector) poolKeys(sum *sim.Summary) (keys, names []string) {
	order := make([]string, 0, len(sum.Pools))
	for _, p := range sum.Pools {
		order = append(order, p.Name)
	}
	for _, p := range c.pools {
		if !slices.Contains(order, p) {
			order = append(order, p)
		}
	}
	for _, p := range order {
		if c.lat[p] != nil {
			keys, names = append(keys, p), append(names, p)
		}
	}
	if len(keys) > 1 {
		keys, names = append(keys, fleetKey), append(names, "fleet")
	}
	return keys, names
}

// latencySection draws the CDFs of TTFT, TPOT, end-to-end latency and queue
// wait per pool, with the SLO targets.
func (c *RunCollector) latencySection(sum *sim.Summary) ReportSection {
	s := ReportSection{ID: "latency", Title: "Latency distributions"}
	keys, names := c.poolKeys(sum)
	if len(keys) == 0 {
		s.Notes = append(s.Notes, "No post-warm-up request was served: there is no latency to draw.")
		return s
	}
	slo := sum.Config.SLO
	mk := func(name, title string, pick func(*latencies) *hist, ref float64, refName, caption string) {
		f := Figure{Name: name, Title: title, XLabel: "seconds (log scale)", YLabel: "fraction of requests ≤ x", LogX: true, NoPoints: true}
		for i, k := range keys {
			x, y := pick(c.lat[k]).cdf()
			if len(x) > 0 {
				f.Series = append(f.Series, FigureSeries{Name: names[i], X: x, Y: y})
			}
		}
		if len(f.Series) == 0 {
			return
		}
		if ref > 0 {
			f.Refs = append(f.Refs, FigureRef{Label: refName, Vertical: true, At: ref})
		}
		s.Figures = append(s.Figures, ReportFigure{Figure: f, Caption: caption})
	}
	bins := fmt.Sprintf("Empirical CDF over the served post-warm-up requests, %d log-spaced bins per decade.", histPerDecade)
	mk("ttft-cdf", "Time to first token", func(l *latencies) *hist { return &l.ttft }, slo.TTFTS, "SLO "+ms(slo.TTFTS)+" ms", bins+" The dashed line is the TTFT SLO target.")
	mk("tpot-cdf", "Time per output token", func(l *latencies) *hist { return &l.tpot }, slo.TPOTS, "SLO "+ms(slo.TPOTS)+" ms", bins+" Requests with one output token have no TPOT. The dashed line is the TPOT SLO target.")
	mk("e2e-cdf", "End-to-end latency", func(l *latencies) *hist { return &l.e2e }, 0, "", bins)
	mk("wait-cdf", "Queue wait", func(l *latencies) *hist { return &l.wait }, 0, "", bins+" Wait from arrival to admission into a running batch.")
	return s
}

// timeSection draws the time series: arrivals, queue, running batch, KV
// cache and TTFT P99 over simulated time, per pool.
func (c *RunCollector) timeSection(sum *sim.Summary) ReportSection {
	s := ReportSection{ID: "time", Title: "Over simulated time"}
	idx := make([]int, 0, len(c.series))
	for k := range c.series {
		if k >= 0 {
			idx = append(idx, k)
		}
	}
	slices.Sort(idx)
	name := func(k int) string {
		if k < len(sum.Pools) {
			return sum.Pools[k].Name
		}
		return "pool " + strconv.Itoa(k)
	}
	res := "Each point is one interval of the time series"
	if c.merged > 1 {
		res = fmt.Sprintf("The run is long: each point merges %d intervals of the time series (counts summed, gauges averaged, the largest TTFT P99 kept)", c.merged)
	}
	s.Notes = append(s.Notes, res+"; gauges are read at the interval's end. The dashed lines mark the measurement window (warm-up before it).")
	window := []FigureRef{{Label: "window start", Vertical: true, At: sum.WindowStartS}, {Label: "window end", Vertical: true, At: sum.WindowEndS}}
	if sum.WarmupRequests == 0 {
		window = window[1:]
	}
	mk := func(stem, title, ylabel string, pools []int, val func(k int, p seriesPoint) float64, refs []FigureRef, caption string) {
		f := Figure{Name: stem, Title: title, XLabel: "simulated time, s", YLabel: ylabel, NoPoints: true, YFromZero: true, Refs: refs}
		for _, k := range pools {
			pts := c.series[k]
			x, y := make([]float64, len(pts)), make([]float64, len(pts))
			for i, p := range pts {
				x[i], y[i] = p.endS, val(k, p)
			}
			lbl := "fleet"
			if k >= 0 {
				lbl = name(k)
			}
			f.Series = append(f.Series, FigureSeries{Name: lbl, X: x, Y: y})
		}
		s.Figures = append(s.Figures, ReportFigure{Figure: f, Caption: caption})
	}
	withFleet := idx
	if len(idx) > 1 {
		withFleet = append(append([]int(nil), idx...), -1)
	}
	rate := func(p seriesPoint, n int64) float64 { return float64(n) / (p.endS - p.startS) }
	mk("arrivals", "Arrival rate", "requests/s", withFleet, func(_ int, p seriesPoint) float64 { return rate(p, p.arrivals) }, window,
		"Requests arriving per second of the interval (at a pool: delivered to it, retries included), warm-up included.")
	mk("completions", "Completion rate", "requests/s", withFleet, func(_ int, p seriesPoint) float64 { return rate(p, p.completions) }, window,
		"Requests served to their last token per second of the interval.")
	mk("queue", "Queue length", "requests waiting", idx, func(_ int, p seriesPoint) float64 { return p.queue }, window,
		"Requests waiting for admission at the interval's end (averaged over merged intervals).")
	mk("running", "Running batch (slot utilization)", "running sequences / slots", idx, func(_ int, p seriesPoint) float64 {
		if p.slots <= 0 {
			return math.NaN()
		}
		return p.running / p.slots
	}, window, "Sequences in running batches over the pool's slots (instances × max sequences per instance).")
	mk("kv", "KV cache in use", "fraction of KV blocks in use", idx, func(_ int, p seriesPoint) float64 {
		if p.kvTotal <= 0 {
			return math.NaN()
		}
		return p.kvUsed / p.kvTotal
	}, window, "16-token KV blocks held by running sequences over the pool's blocks.")
	refs := window
	if slo := sum.Config.SLO.TTFTS; slo > 0 {
		refs = append(slices.Clone(window), FigureRef{Label: "TTFT SLO " + ms(slo) + " ms", At: slo})
	}
	mk("ttft-p99", "TTFT P99 per interval", "seconds", idx, func(_ int, p seriesPoint) float64 { return p.ttftP99 }, refs,
		"P99 of the TTFT of the requests completed in the interval (none: no point).")
	return s
}
