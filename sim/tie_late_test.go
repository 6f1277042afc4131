package sim

import (
	"testing"

	"github.com/fleetsim/fleetsim/engine"
	"github.com/fleetsim/fleetsim/workload"
)

// TestLateTieAdmitted is issue 7's bug 2 an hour into a trace: paper
// timing on one A100 (W = 8 ms, H = 0.65 ms), a lone 1024/128 request
// arriving at 4,128,005 ms runs iterations of 8.65 ms, so its iteration 7
// starts at 4,128,005 + 7 × 8.65 = 4,128,065.55 ms (hand computation),
// exactly when a 16/2 request arrives: that iteration admits it. The
// arrivals are the trace reader's milliseconds divided by 1000;
// s·10^12 rounded put the second one 1 ps late (admitted 8.65 ms later).
func TestLateTieAdmitted(t *testing.T) {
	reqs := []workload.Request{
		{ID: 0, Arrival: 0, InputTokens: 16, OutputTokens: 1, MaxOutputTokens: 1, Bytes: 64},
		{ID: 1, Arrival: 4128005.0 / 1000, InputTokens: 1024, OutputTokens: 128, MaxOutputTokens: 128, Bytes: 4096},
		{ID: 2, Arrival: 4128065.55 / 1000, InputTokens: 16, OutputTokens: 2, MaxOutputTokens: 2, Bytes: 64},
	}
	recs, err := runPaper(t, []PoolConfig{{Name: "x", GPU: "a100", Count: 1, MaxContext: 4096}}, reqs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.ID == 2 && engine.Seconds(r.AdmitS) != 4_128_065_550_000_000 {
			t.Errorf("request 2 admitted at %v s, want 4128.06555", r.AdmitS)
		}
	}
	if len(recs) != 3 {
		t.Fatalf("%d records", len(recs))
	}
}

// runPaper runs reqs on pools with paper timing and no warm-up.
func runPaper(t *testing.T, pools []PoolConfig, reqs []workload.Request) ([]Record, error) {
	t.Helper()
	cfg := Defaults()
	cfg.Timing = "paper"
	cfg.WarmupFraction = 0
	cfg.Pools = pools
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	_, err := Run(cfg, workload.NewSliceSource(reqs), sink, Options{})
	return sink.recs, err
}
