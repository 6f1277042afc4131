package export

import (
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/workload"
)

// TestRunReportTimingLabel: the report names the timing the pools ran,
// as the summary line does (sim.Config.TimingLabel): under the default
// auto the hand-written a100 runs "kv + calibrated prefill", which the
// subtitle and the metadata table must say rather than a bare "auto"; a
// preset the user named is printed as given.
func TestRunReportTimingLabel(t *testing.T) {
	for _, c := range []struct{ timing, want string }{
		{"auto", "auto (kv + calibrated prefill) timing"},
		{"kv", "seed 1, kv timing"},
	} {
		cfg := sim.Defaults()
		cfg.Timing = c.timing
		cfg.Workload = workload.Spec{CDF: "azure", Rate: 10, Requests: 50}
		cfg.Pools = []sim.PoolConfig{{Name: "short", GPU: "a100", Count: 1, MaxContext: 4096}}
		src, err := workload.NewSource(cfg.Workload, cfg.Seed)
		if err != nil {
			t.Fatal(err)
		}
		coll := NewRunCollector()
		s, err := sim.Run(cfg, src, coll, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := coll.Report(s, "test", "out", "requests.parquet")
		if !strings.Contains(r.Subtitle, c.want) {
			t.Errorf("%s: subtitle %q, want %q", c.timing, r.Subtitle, c.want)
		}
		var meta string
		for _, kv := range r.Meta {
			if kv[0] == "timing" {
				meta = kv[1]
			}
		}
		if want := strings.TrimSuffix(strings.TrimPrefix(c.want, "seed 1, "), " timing"); meta != want {
			t.Errorf("%s: metadata timing %q, want %q", c.timing, meta, want)
		}
	}
}
