package papercompat

import (
	"testing"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/fleetopt"
	"github.com/fleetsim/fleetsim/workload"
)

// BenchmarkPlan is `plan --compat papers` for FleetOpt Table 3's Azure
// row (CDF loaded once): homogeneous, PR, retrofit and the 11-γ FleetOpt
// sweep, each pool calibrated from 3,000 Python-MT draws, as the papers'
// simulator does.
func BenchmarkPlan(b *testing.B) {
	cdf, err := workload.LoadCDF("azure")
	if err != nil {
		b.Fatal(err)
	}
	g, _ := catalog.LookupGPU("a100")
	cfg := Config{CDF: cdf, Rate: 1000, BShort: 4096, Gamma: 1.5, PC: 1, ShortGPU: g}
	for b.Loop() {
		if _, err := Plan(cfg, fleetopt.Methods()); err != nil {
			b.Fatal(err)
		}
	}
}
