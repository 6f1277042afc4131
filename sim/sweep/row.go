package sweep

import (
	"math"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/sim"
)

// Row is one line of a sweep's results: one pool (or the whole fleet) of
// one point. sim/export writes rows as sweep.parquet (docs/sweep.md).
type Row struct {
	Point    int      // the point's index in the full grid
	Label    string   // the point's keys, "key=value ..."
	Values   []string // the point's value of each axis, in the grid's axis order
	Seed     uint64
	RateRPS  float64 // offered arrival rate, requests/s
	Requests int     // requests generated
	Workload string  // CDF name or trace file
	Router   string
	Timing   string
	BShort   int     // router B_short, tokens (0: the router's default)
	Gamma    float64 // C&R γ (0: the default)

	Fleet     bool   // the row sums the whole fleet (Pool is "fleet")
	PoolIndex int    // position in the scenario's pools; -1 for the fleet row
	Pool      string // pool name
	GPU       string // GPU catalog name ("" for the fleet row)
	MaxCtx    int    // tokens (0 for the fleet row)

	Metrics        sim.PoolMetrics
	CostUSDPerHour float64 // instances × the GPU's price, USD/h
	OSD            Verdict
	SimTimeS       float64 // simulated time of the run, s
}

// USDPerMillion is the cost of a million served requests, USD: the cost per
// hour over the completions per hour in the measurement window; NaN when
// nothing was served.
func (r *Row) USDPerMillion() float64 {
	if !(r.Metrics.ThroughputRPS > 0) {
		return math.NaN()
	}
	return r.CostUSDPerHour / (r.Metrics.ThroughputRPS * 3600) * 1e6
}

// Rows flattens results into rows: per point, the fleet row, then one row
// per pool in the scenario's order.
func Rows(results []Result) []Row {
	var rows []Row
	for _, r := range results {
		c := r.Config
		base := Row{
			Point: r.Point.Index, Label: r.Label, Values: r.Point.Values, Seed: c.Seed,
			RateRPS: c.Workload.Rate, Requests: c.Workload.Requests,
			Workload: workloadName(c), Router: c.Router.Kind, Timing: c.Timing,
			BShort: c.Router.BShort, Gamma: c.Router.Gamma, SimTimeS: r.Summary.SimTimeS,
		}
		fleet := base
		fleet.Fleet, fleet.PoolIndex, fleet.Pool = true, -1, "fleet"
		fleet.Metrics, fleet.OSD = r.Summary.Fleet, r.Fleet
		for _, pc := range c.Pools {
			g, _ := catalog.LookupGPU(pc.GPU)
			fleet.CostUSDPerHour += float64(pc.Count) * g.CostPerHour
		}
		rows = append(rows, fleet)
		for i, pc := range c.Pools {
			g, _ := catalog.LookupGPU(pc.GPU)
			row := base
			row.PoolIndex, row.Pool, row.GPU, row.MaxCtx = i, pc.Name, pc.GPU, pc.MaxContext
			row.Metrics = r.Summary.Pools[i]
			row.CostUSDPerHour = float64(pc.Count) * g.CostPerHour
			if i < len(r.Pools) {
				row.OSD = r.Pools[i]
			}
			rows = append(rows, row)
		}
	}
	return rows
}

func workloadName(c sim.Config) string {
	if c.Workload.Trace != "" {
		return c.Workload.Trace
	}
	return c.Workload.CDF
}
