package sim

import (
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// A vLLM-style pool (max_seqs a cap, kv_blocks the budget) preempts in a
// fleet run; the catalog's slot rule never does (docs/fleet.md).
func TestKVBoundPoolPreempts(t *testing.T) {
	run := func(maxSeqs, kv int) *Summary {
		cfg := Defaults()
		cfg.Workload = workload.Spec{CDF: "azure", Rate: 60, Requests: 6000}
		cfg.Pools = []PoolConfig{{Name: "all", GPU: "a100", Count: 2, MaxContext: 65536, MaxSeqs: maxSeqs, KVBlocks: kv}}
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		src, err := workload.NewSource(cfg.Workload, 1)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := Run(cfg, src, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	if s := run(0, 0); s.Pools[0].Preemptions != 0 || s.Pools[0].Slots != 16 {
		t.Errorf("slot rule: %d preemptions, %d slots", s.Pools[0].Preemptions, s.Pools[0].Slots)
	}
	s := run(512, 8192)
	if s.Pools[0].Preemptions == 0 || s.Pools[0].Slots != 512 {
		t.Errorf("kv-bound: %d preemptions, %d slots", s.Pools[0].Preemptions, s.Pools[0].Slots)
	}
	if s.Pools[0].Completed+s.Pools[0].Rejected+s.Pools[0].InFlight != s.Pools[0].Arrived {
		t.Errorf("requests not conserved: %+v", s.Pools[0])
	}
	for _, tc := range []struct {
		pc   PoolConfig
		want string
	}{
		{PoolConfig{Name: "a", GPU: "a100", Count: 1, MaxContext: 65536, MaxSeqs: -1}, "pools[0].max_seqs"},
		{PoolConfig{Name: "a", GPU: "a100", Count: 1, MaxContext: 65536, KVBlocks: 100}, "pools[0].kv_blocks"},
	} {
		cfg := Defaults()
		cfg.Pools = []PoolConfig{tc.pc}
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.pc, err, tc.want)
		}
	}
}
