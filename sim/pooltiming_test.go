package sim

import (
	"reflect"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// TestPoolTiming: a pool's own timing key applies to that pool only. With
// the length router the long pool gets the same requests whatever the short
// pool's timing, so its metrics are identical between a run whose short
// pool is measured and one whose short pool is kv, while the short pool's
// differ (prompt tokens charged); a bad key fails naming the pool.
func TestPoolTiming(t *testing.T) {
	run := func(short string) *Summary {
		cfg := Defaults()
		cfg.Timing = "kv"
		cfg.Workload = workload.Spec{CDF: "azure", Rate: 200, Requests: 4000}
		cfg.Pools = []PoolConfig{
			{Name: "short", GPU: "a100", Model: "llama-3-70b", TP: 8, Count: 40, MaxContext: 4096, Timing: short},
			{Name: "long", GPU: "a100", Count: 20, MaxContext: 65536},
		}
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		src, err := workload.NewSource(cfg.Workload, cfg.Seed)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Run(cfg, src, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	m, k := run("measured"), run("")
	if !reflect.DeepEqual(m.Pools[1], k.Pools[1]) {
		t.Errorf("long pool differs:\n%+v\n%+v", m.Pools[1], k.Pools[1])
	}
	if !(m.Pools[0].TTFT.P50 > k.Pools[0].TTFT.P50) {
		t.Errorf("short pool TTFT P50: measured %v, kv %v; want measured slower (prompt tokens charged)", m.Pools[0].TTFT.P50, k.Pools[0].TTFT.P50)
	}
	cfg := Defaults()
	cfg.Pools[0].Timing = "fast"
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), `pools[0].timing = "fast"`) {
		t.Errorf("bad pool timing: %v", err)
	}
}
