package sweep

import (
	"os"
	"testing"
)

// checkDisaggAnswer checks a disaggregated size against the simulator:
// the chosen (N_p, N_d) meets the targets on seeds 1..seeds and on seeds
// 101..100+seeds, which neither the search nor its confirmation used, and
// one decode instance fewer — and, when N_p > 1, one prefill instance
// fewer — misses them on at least one of seeds 1..seeds.
func checkDisaggAnswer(t *testing.T, cfg SizeConfig, seeds int) *DisaggSize {
	t.Helper()
	res, err := Size(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := res.Pools[0]
	d := p.Disagg
	if d == nil || p.GPUsSim != d.Prefill+d.Decode {
		t.Fatalf("pool %+v: no disaggregated answer", p)
	}
	t.Logf("analytic %d + %d, simulated %d + %d (colocated: paper %d, occupancy %d)", d.PrefillAnalytic, d.DecodeAnalytic, d.Prefill, d.Decode, p.GPUsPaper, p.GPUsOccupancy)
	check := cfg
	check.Seeds = seeds
	for _, first := range []uint64{1, 101} {
		ok, s, err := EvaluateDisagg(check, res, 0, d.Prefill, d.Decode, first)
		if err != nil || !ok {
			t.Errorf("%d + %d, seeds from %d: meets the targets %v (%+v, %v)", d.Prefill, d.Decode, first, ok, s, err)
		}
	}
	if ok, s, err := EvaluateDisagg(check, res, 0, d.Prefill, d.Decode-1, 1); err != nil || ok {
		t.Errorf("%d + %d (one decode fewer) meets the targets (%+v, %v)", d.Prefill, d.Decode-1, s, err)
	}
	if d.Prefill > 1 {
		if ok, s, err := EvaluateDisagg(check, res, 0, d.Prefill-1, d.Decode, 1); err != nil || ok {
			t.Errorf("%d + %d (one prefill fewer) meets the targets (%+v, %v)", d.Prefill-1, d.Decode, s, err)
		}
	}
	return d
}

// TestSizeDisagg: Azure at 40 req/s on one disaggregated A100 pool (homo,
// max context 65,536), P99 TTFT ≤ 300 ms and P99 TPOT ≤ 60 ms: the search's
// answer holds and is minimal in the decode stage (the kv preset charges
// no prompt tokens, so one prefill instance suffices).
func TestSizeDisagg(t *testing.T) {
	cfg := SizeConfig{Workload: "azure", Rate: 40, Method: "homo", Timing: "kv", SLOTTFTS: 0.3, SLOTPOTS: 0.06,
		Seeds: 1, ConfirmSeeds: 1, Requests: 3000, Workers: 1, Disaggregated: true}
	d := checkDisaggAnswer(t, cfg, 1)
	if d.Prefill != 1 || d.Decode < 2 {
		t.Errorf("answer %d + %d: want one prefill instance and several decode ones", d.Prefill, d.Decode)
	}
}

// TestSizeDisaggPrefillBound (FLEETSIM_LONG=1, 5–15 s): at 100 req/s with a
// P99 TTFT target of 103 ms, 3% above the idle P99 prefill, the prefill
// stage needs more than one instance; one fewer of either stage misses a
// target on one of the search's and confirmation's seeds.
func TestSizeDisaggPrefillBound(t *testing.T) {
	if testing.Short() || os.Getenv("FLEETSIM_LONG") == "" {
		t.Skip("FLEETSIM_LONG=1: a 5–15 s search")
	}
	cfg := SizeConfig{Workload: "azure", Rate: 100, Method: "homo", Timing: "kv", SLOTTFTS: 0.103, SLOTPOTS: 0.06,
		Seeds: 1, ConfirmSeeds: 1, Requests: 3000, Disaggregated: true}
	if d := checkDisaggAnswer(t, cfg, 2); d.Prefill < 2 {
		t.Errorf("prefill %d: want >= 2", d.Prefill)
	}
}
