package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/workload"
)

// disaggRun runs reqs on one a100 pool (max_ctx 16384, kv timing)
// disaggregated 1:1 over link.
func disaggRun(t *testing.T, link catalog.KVLink, reqs []workload.Request) ([]Record, *Summary) {
	t.Helper()
	cfg := fleetCfg(len(reqs), 0, PoolConfig{Name: "p", GPU: "a100", Count: 2, MaxContext: 16384,
		Disaggregated: &DisaggConfig{Prefill: 1, Decode: 1, Link: &link}})
	cfg.SLO = SLO{TTFTS: 1, TPOTS: 1}
	g, _ := cfg.Pools[0].gpu()
	if err := cfg.Pools[0].Disaggregated.validate("pools[0]", cfg.Pools[0], g); err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	s, err := Run(cfg, &sliceSource{reqs: reqs}, sink, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sink.recs, s
}

// TestDisaggByHand: one request (L_in 100, L_out 3) on a pool
// disaggregated 1:1 over a link of no cost (10^300 GB/s, no latency:
// the transfer rounds to 0 ps). kv timing of the a100 (W = 8 ms,
// H_kv = 0.65 ms / 8,192 per token, docs/model.md): the prefill instance
// runs one iteration over 100 tokens, TTFT = W + 100·H_kv; the KV lands on
// the decode instance at that moment and it decodes tokens 2 and 3 in two
// iterations holding 101 and 102 tokens: finish = TTFT + 2W + 203·H_kv,
// TPOT = (2W + 203·H_kv)/2 — the colocated instance's times exactly.
func TestDisaggByHand(t *testing.T) {
	h := 0.00065 / 8192
	ttft := 0.008 + 100*h
	fin := ttft + 0.016 + 203*h
	recs, s := disaggRun(t, catalog.KVLink{GBs: 1e300}, []workload.Request{{ID: 0, InputTokens: 100, OutputTokens: 3, MaxOutputTokens: 3}})
	r := recs[0]
	if math.Abs(r.TTFTS-ttft) > 1e-12 || math.Abs(r.FinishS-fin) > 1e-12 || math.Abs(r.TPOTS-(fin-ttft)/2) > 1e-12 {
		t.Errorf("ttft %.15g finish %.15g tpot %.15g; want %.15g, %.15g, %.15g", r.TTFTS, r.FinishS, r.TPOTS, ttft, fin, (fin-ttft)/2)
	}
	if r.Instance != 1 || r.Ext.PrefillInstance != 0 || r.Ext.DecodeInstance != 1 || r.Ext.KVTransferS != 0 {
		t.Errorf("instance %d, ext %+v; want decode instance 1, prefill 0, no transfer time", r.Instance, r.Ext)
	}
	d := s.Pools[0].Disagg
	if d == nil || d.Prefill != 1 || d.Decode != 1 || d.Transfers != 1 || s.Pools[0].GPUs != 2 {
		t.Errorf("summary %+v, gpus %d", d, s.Pools[0].GPUs)
	}
	// The same request colocated on one instance: the same times.
	cfg := fleetCfg(1, 0, PoolConfig{Name: "p", GPU: "a100", Count: 1, MaxContext: 16384})
	cfg.SLO = SLO{TTFTS: 1, TPOTS: 1}
	sink := &memSink{}
	if _, err := Run(cfg, &sliceSource{reqs: []workload.Request{{ID: 0, InputTokens: 100, OutputTokens: 3, MaxOutputTokens: 3}}}, sink, Options{}); err != nil {
		t.Fatal(err)
	}
	if c := sink.recs[0]; c.TTFTS != r.TTFTS || c.FinishS != r.FinishS {
		t.Errorf("colocated ttft %.15g finish %.15g, disaggregated %.15g %.15g", c.TTFTS, c.FinishS, r.TTFTS, r.FinishS)
	}
}

// TestDisaggTransfer: a 10,000-token Llama-3-70B prompt (327,680 KV bytes
// per token: 80 layers × 8 KV heads × 128 × 2 × 2 B) over a 50 GB/s link
// with 1 ms latency moves in 10,000·327,680/(50·10^9) + 0.001 = 0.066536 s,
// which the record's kv_transfer_s holds and the decode waits for.
func TestDisaggTransfer(t *testing.T) {
	want := 10000*327680/50e9 + 0.001
	recs, s := disaggRun(t, catalog.KVLink{GBs: 50, LatencyS: 0.001}, []workload.Request{{ID: 0, InputTokens: 10000, OutputTokens: 2, MaxOutputTokens: 2}})
	r := recs[0]
	if math.Abs(r.Ext.KVTransferS-want) > 1e-12 {
		t.Errorf("kv_transfer_s %.15g, want %.15g", r.Ext.KVTransferS, want)
	}
	// TPOT (one decode token): the transfer, then one decode iteration of
	// W + 10,001·H_kv on the idle decode instance.
	if tpot := want + 0.008 + 10001*0.00065/8192; math.Abs(r.TPOTS-tpot) > 1e-9 {
		t.Errorf("tpot %.15g, want %.15g", r.TPOTS, tpot)
	}
	if q := s.Pools[0].Disagg.Transfer; math.Abs(q.P50-want)/want > SketchRelativeError {
		t.Errorf("summary kv_transfer_s p50 %v, want %v", q.P50, want)
	}
}

// TestDisaggDecodeWaitsForRoom: a decode instance with one slot
// (max_seqs 1) takes the second prefilled request only when the first
// has finished: its transfer starts then.
func TestDisaggDecodeWaitsForRoom(t *testing.T) {
	cfg := fleetCfg(2, 0, PoolConfig{Name: "p", GPU: "a100", Count: 2, MaxContext: 4096, MaxSeqs: 1,
		Disaggregated: &DisaggConfig{Prefill: 1, Decode: 1, Link: &catalog.KVLink{GBs: 1e300}}})
	cfg.SLO = SLO{TTFTS: 1, TPOTS: 1}
	sink := &memSink{}
	reqs := []workload.Request{{ID: 0, InputTokens: 100, OutputTokens: 50, MaxOutputTokens: 50}, {ID: 1, Arrival: 0.001, InputTokens: 100, OutputTokens: 5, MaxOutputTokens: 5}}
	s, err := Run(cfg, &sliceSource{reqs: reqs}, sink, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var r0, r1 Record
	for _, r := range sink.recs {
		if r.ID == 0 {
			r0 = r
		} else {
			r1 = r
		}
	}
	// r1's decode starts after r0 finished: 4 decode iterations after it.
	if !(r1.FinishS > r0.FinishS) || r1.FirstTokenS > r0.FinishS {
		t.Errorf("r0 finishes %v, r1 first token %v finishes %v: r1 should prefill early and decode after r0", r0.FinishS, r1.FirstTokenS, r1.FinishS)
	}
	if w := s.Pools[0].Disagg.DecodeWait; !(w.P99 > 0.3) {
		t.Errorf("decode wait %+v: r1 waited about %v s", w, r0.FinishS-r1.FirstTokenS)
	}
}

// TestDisaggConservation: 3,000 Poisson requests on a pool disaggregated
// 2:3 over a 25 GB/s link with KV-bound decode instances (max_seqs 16,
// 1,024 blocks: preemptions) all leave it, in the same way twice; every
// served request with L_out >= 2 was prefilled on a prefill instance
// (0, 1), decoded on a decode one (2..4) and moved in L_in·327,680/25e9 s.
func TestDisaggConservation(t *testing.T) {
	cfg := fleetCfg(3000, 0.2, PoolConfig{Name: "p", GPU: "a100", Count: 5, MaxContext: 8192, MaxSeqs: 16, KVBlocks: 1024,
		Disaggregated: &DisaggConfig{Prefill: 2, Decode: 3, Link: &catalog.KVLink{GBs: 25}}})
	run := func() ([]Record, *Summary) {
		sink := &memSink{}
		s, err := Run(cfg, newPoisson(3000, 40, 50, 6000, 11), sink, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return sink.recs, s
	}
	r1, s1 := run()
	r2, _ := run()
	if len(r1) != 3000 || len(r2) != 3000 {
		t.Fatalf("%d, %d records, want 3000", len(r1), len(r2))
	}
	checkConservation(t, s1)
	for i, r := range r1 {
		if r.ID != r2[i].ID || r.FinishS != r2[i].FinishS {
			t.Fatalf("record %d differs between runs", i)
		}
		if r.Rejected || r.OutputTokens < 2 {
			continue
		}
		want := float64(r.InputTokens) * 327680 / 25e9
		if r.Ext.PrefillInstance < 0 || r.Ext.PrefillInstance > 1 || r.Ext.DecodeInstance < 2 || r.Ext.DecodeInstance > 4 ||
			r.Instance != r.Ext.DecodeInstance || math.Abs(r.Ext.KVTransferS-want) > 1e-12 || r.FirstTokenS+r.Ext.KVTransferS > r.FinishS {
			t.Fatalf("record %+v", r)
		}
	}
	if s1.Pools[0].Preemptions == 0 {
		t.Log("no preemptions")
	}
	t.Logf("preemptions %d, decode wait %+v, transfer %+v", s1.Pools[0].Preemptions, s1.Pools[0].Disagg.DecodeWait, s1.Pools[0].Disagg.Transfer)
}

// TestDisaggDecodeBoundOverloaded: a disaggregated pool whose decode stage
// cannot keep up (3 prefill instances feeding 1 decode instance of 4 slots,
// 1,000-token outputs at 50 req/s: at most 4 requests per ~1000 decode
// iterations leave it) is overloaded. Its backlog is the requests waiting
// for a decode instance, which the prefill instances' queues do not show;
// before this test the pool reported overloaded = false, backlog 0.
func TestDisaggDecodeBoundOverloaded(t *testing.T) {
	cfg := fleetCfg(2000, 0.1, PoolConfig{Name: "p", GPU: "a100", Count: 4, MaxContext: 8192, MaxSeqs: 4, KVBlocks: 1024,
		Disaggregated: &DisaggConfig{Prefill: 3, Decode: 1, Link: &catalog.KVLink{GBs: 25}}})
	s, err := Run(cfg, newPoisson(2000, 50, 1000, 1000, 3), &memSink{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkConservation(t, s)
	m := s.Pools[0]
	if !m.Overloaded || m.Backlog < 1000 || !s.Fleet.Overloaded {
		t.Errorf("overloaded %v, backlog %d, growth %.1f req/s (arrival %.1f, throughput %.2f); fleet overloaded %v: want overloaded with a backlog of most arrivals",
			m.Overloaded, m.Backlog, m.BacklogGrowth, m.ArrivalRPS, m.ThroughputRPS, s.Fleet.Overloaded)
	}
}

// TestDisaggLinkTooSlow: a link on which the pool's longest prompt
// (max_ctx − 1 = 16,383 tokens of Llama-3-70B, 327,680 B each) would take
// more than catalog.MaxTransferS = 1,000 s is refused, naming the pool's
// link: such a transfer is no serving system, and one of 10^299 s (gb_s
// 1e-300) used to saturate engine.Time, overflow t + T and land at once —
// 2,000 requests "finished" with a P99 TPOT of 21 ms. By hand:
// 16,383·327,680 B / 1,000 s = 5.37 MB/s, so 0.01 GB/s (537 s) passes and
// 0.005 GB/s (1,074 s) does not; a fixed latency of 1,000 s plus the
// bytes is over the bound, 990 s plus 0.107 s is not. A run that skips
// the validation never lands such a transfer before its prefill's end:
// the request stays in flight.
func TestDisaggLinkTooSlow(t *testing.T) {
	for _, c := range []struct {
		link catalog.KVLink
		ok   bool
	}{
		{catalog.KVLink{GBs: 1e-300}, false},
		{catalog.KVLink{GBs: 0.005}, false},
		{catalog.KVLink{GBs: 50, LatencyS: 1e300}, false},
		{catalog.KVLink{GBs: 50, LatencyS: 1000}, false},
		{catalog.KVLink{GBs: 0.01}, true},
		{catalog.KVLink{GBs: 50, LatencyS: 990}, true},
	} {
		link := c.link
		cfg := Defaults()
		cfg.Pools = []PoolConfig{{Name: "p", GPU: "a100", Count: 2, MaxContext: 16384,
			Disaggregated: &DisaggConfig{Prefill: 1, Decode: 1, Link: &link}}}
		err := cfg.Validate()
		if (err == nil) != c.ok {
			t.Errorf("link %+v: error %v, want ok %v", c.link, err, c.ok)
		} else if err != nil && !strings.Contains(err.Error(), "pools[0].disaggregated = \"link {GBs:") {
			t.Errorf("link %+v: %v: does not name pools[0].disaggregated and its link", c.link, err)
		}
	}
}

// TestDisaggTransferBeyondClock: Run without Config.Validate (as the
// library allows) on a link of 10^-300 GB/s: the 10^299 s transfer
// saturates engine.Time; its landing must not wrap around to before the
// prefill's end (it did: the request finished 24 ms after its first
// token). It never lands, and Run says the work runs past the clock.
func TestDisaggTransferBeyondClock(t *testing.T) {
	link := catalog.KVLink{GBs: 1e-300}
	cfg := fleetCfg(1, 0, PoolConfig{Name: "p", GPU: "a100", Count: 2, MaxContext: 16384,
		Disaggregated: &DisaggConfig{Prefill: 1, Decode: 1, Link: &link}})
	cfg.SLO = SLO{TTFTS: 1, TPOTS: 1}
	sink := &memSink{}
	_, err := Run(cfg, &sliceSource{reqs: []workload.Request{{ID: 0, InputTokens: 100, OutputTokens: 3, MaxOutputTokens: 3}}}, sink, Options{})
	if err == nil || !strings.Contains(err.Error(), "1 requests unfinished") {
		t.Errorf("error %v, want the request unfinished (its transfer never lands); records %+v", err, sink.recs)
	}
}
