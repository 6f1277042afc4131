// Package capacitycheck checks the reserved-capacity fluid model
// (pools/capacity) against the iteration-level simulator: it calibrates
// what one engine instance of a catalog GPU serves in the profile's work
// units, replays a trace on fleets of whole instances, and reports the
// fluid model's latency percentiles beside the simulated ones
// (`fleetsim capacity --simulate`; docs/capacity.md).
//
// A reserved unit maps onto instances through μ, the adjusted tokens per
// second one instance completes when saturated with the trace's own request
// mix: n instances are G = n·μ/τ units. The fluid model is then run at rate
// n·μ with a baseline latency fitted (NNLS) on the same instance's unloaded
// latencies, so the two sides differ only by what the fluid queue leaves
// out: batching, per-instance queues, prefill/decode interference.
package capacitycheck

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/fleetsim/fleetsim/pools/capacity"
	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/router"
	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/workload"
)

// Options choose the simulated hardware.
type Options struct {
	GPU    string // catalog name (catalog.LookupGPU)
	Timing string // iteration-time preset: "kv" or "paper"
	// MaxCtx is the instances' max context, tokens; 0 picks the smallest
	// power of two holding the largest request (I + O + H).
	MaxCtx int
	Seed   uint64
	// Stop, when set, interrupts the simulations (sim.Options.Stop) of
	// Calibrate and of the Compare given its Calibration: they then return
	// sim.ErrStopped.
	Stop func() bool
}

// Limits of a check, so a typo ends in a clear error.
const (
	MaxSaturationRequests = 20_000 // requests in the saturation run (a stride of the trace beyond it)
	BaselineRequests      = 400    // unloaded runs for the baseline fit
	unloadedGapS          = 1e4    // spacing of the unloaded runs, s (longer than any request)
)

// Calibration maps capacity units onto instances of one GPU profile.
type Calibration struct {
	GPU    string      `json:"gpu"`
	Timing string      `json:"timing"`
	MaxCtx int         `json:"max_ctx"`
	Slots  int         `json:"slots"` // sequences per instance at MaxCtx
	stop   func() bool // Options.Stop
	// InstanceTokS is μ: adjusted tokens per second one instance completes
	// with every request of the saturation run queued at t = 0 (ΣB over the
	// makespan).
	InstanceTokS       float64 `json:"instance_tok_s"`
	UnitsPerInstance   float64 `json:"units_per_instance"` // μ/τ
	SaturationRequests int     `json:"saturation_requests"`
	// Baseline is the NNLS fit of L_base on BaselineRequests requests run
	// alone on one instance.
	Baseline capacity.Fit `json:"baseline"`
}

// job turns a planner request into a simulator request. The engine has no
// prefix cache, so cached tokens are prefilled like the rest, and thinking
// tokens are generated like output tokens; each count is at least 1.
func job(id int64, at float64, r capacity.Request) workload.Request {
	in := max(1, r.Input)
	out := max(1, r.Output+r.Thinking)
	return workload.Request{ID: id, Arrival: at, InputTokens: in, OutputTokens: out, MaxOutputTokens: out,
		Bytes: max(1, int(float64(in)*workload.Prose.BytesPerToken())), Category: workload.Prose}
}

// maxCtx returns o.MaxCtx, or the smallest power of two >= every job's
// L_in + L_out when it is 0; an o.MaxCtx shorter than the longest job is
// an error (the check needs every request served).
func maxCtx(reqs []capacity.Request, o Options) (int, error) {
	longest := 2
	for _, r := range reqs {
		j := job(0, 0, r)
		longest = max(longest, j.InputTokens+j.OutputTokens)
	}
	if o.MaxCtx > 0 {
		if o.MaxCtx < longest {
			return 0, &workload.FieldError{Field: "max_ctx", Value: o.MaxCtx,
				Allowed: fmt.Sprintf("shorter than the longest request (%d tokens: input + output + thinking); every request must be served", longest)}
		}
		return o.MaxCtx, nil
	}
	c := 2
	for c < longest {
		c *= 2
	}
	return c, nil
}

// e2eSink keeps each request's end-to-end latency by ID.
type e2eSink struct {
	e2e      []float64
	wait     []float64 // queue wait before admission, s
	finish   float64
	rejected int
}

func (s *e2eSink) Write(r *sim.Record) error {
	if r.Rejected {
		s.rejected++
		return nil
	}
	s.e2e[r.ID] = r.E2ES
	s.wait[r.ID] = r.QueueWaitS
	s.finish = math.Max(s.finish, r.FinishS)
	return nil
}

// run simulates jobs on n instances and returns their e2e latencies and
// the last finish time.
func run(jobs []workload.Request, n int, cal Calibration, seed uint64) (*e2eSink, *sim.Summary, error) {
	cfg := sim.Config{
		Seed:     seed,
		Workload: workload.Spec{Requests: len(jobs)},
		Pools:    []sim.PoolConfig{{Name: "reserved", GPU: cal.GPU, Count: n, MaxContext: cal.MaxCtx}},
		Timing:   cal.Timing,
		Router:   sim.RouterConfig{Config: router.Config{Kind: sim.RouterLength}},
	}
	sink := &e2eSink{e2e: make([]float64, len(jobs)), wait: make([]float64, len(jobs))}
	sum, err := sim.Run(cfg, workload.NewSliceSource(jobs), sink, sim.Options{Stop: cal.stop})
	if err != nil {
		return nil, nil, err
	}
	if sink.rejected > 0 {
		return nil, nil, fmt.Errorf("capacitycheck: %d requests rejected at max context %d (raise --max-ctx)", sink.rejected, cal.MaxCtx)
	}
	return sink, sum, nil
}

// Calibrate measures μ and the unloaded baseline of one instance for the
// requests' mix under profile p.
func Calibrate(reqs []capacity.Request, p capacity.Profile, o Options) (Calibration, error) {
	if len(reqs) == 0 {
		return Calibration{}, &workload.FieldError{Field: "requests", Value: 0, Allowed: "at least one request is needed"}
	}
	g, err := catalog.LookupGPU(o.GPU)
	if err != nil {
		return Calibration{}, &workload.FieldError{Field: "gpu", Value: o.GPU, Allowed: "unknown GPU (allowed: " + strings.Join(catalog.AcceptedGPUNames(), ", ") + ", or GPU/MODEL/tpN)"}
	}
	if o.Timing == "" {
		o.Timing = catalog.DefaultTiming
	}
	if _, err := g.Timing(o.Timing); err != nil {
		return Calibration{}, &workload.FieldError{Field: "timing", Value: o.Timing, Allowed: "allowed: kv, paper"}
	}
	cal := Calibration{GPU: g.Name, Timing: o.Timing, stop: o.Stop}
	if cal.MaxCtx, err = maxCtx(reqs, o); err != nil {
		return Calibration{}, err
	}
	if cal.Slots = g.Slots(cal.MaxCtx); cal.Slots < 1 {
		return Calibration{}, &workload.FieldError{Field: "max_ctx", Value: cal.MaxCtx,
			Allowed: fmt.Sprintf("exceeds the KV budget of one %s instance (%d tokens)", g.Name, g.KVBlocks*g.BlockTokens)}
	}
	// Saturation: a stride of at most MaxSaturationRequests requests, all
	// queued at t = 0 on one instance.
	stride := max(1, (len(reqs)+MaxSaturationRequests-1)/MaxSaturationRequests)
	var jobs []workload.Request
	work := 0.0
	for i := 0; i < len(reqs); i += stride {
		jobs = append(jobs, job(int64(len(jobs)), 0, reqs[i]))
		work += p.Work(reqs[i])
	}
	sink, _, err := run(jobs, 1, cal, o.Seed)
	if err != nil {
		return Calibration{}, err
	}
	if !(sink.finish > 0) {
		return Calibration{}, fmt.Errorf("capacitycheck: the saturation run took no time")
	}
	cal.SaturationRequests = len(jobs)
	cal.InstanceTokS = work / sink.finish
	cal.UnitsPerInstance = cal.InstanceTokS / p.Tau
	// Unloaded latencies: BaselineRequests requests, evenly strided, each
	// alone on the instance.
	k := min(len(reqs), BaselineRequests)
	jobs = jobs[:0]
	obs := make([]capacity.Request, k)
	for i := 0; i < k; i++ {
		r := reqs[i*len(reqs)/k]
		jobs = append(jobs, job(int64(i), float64(i)*unloadedGapS, r))
		obs[i] = r
	}
	sink, _, err = run(jobs, 1, cal, o.Seed)
	if err != nil {
		return Calibration{}, err
	}
	for i := range obs {
		obs[i].Latency = sink.e2e[i]
	}
	if cal.Baseline, err = capacity.FitBaseline(obs); err != nil {
		return Calibration{}, err
	}
	return cal, nil
}

// Point is the fluid model and the simulator side by side for one fleet.
type Point struct {
	Instances   int     `json:"instances"`
	Units       float64 `json:"units"`       // G = n·μ/τ
	Utilization float64 `json:"utilization"` // fluid ΣB/(span·G·τ)
	FluidP95S   float64 `json:"fluid_p95_e2e_s"`
	FluidP99S   float64 `json:"fluid_p99_e2e_s"`
	SimP95S     float64 `json:"sim_p95_e2e_s"`
	SimP99S     float64 `json:"sim_p99_e2e_s"`
	// Under95 and Under99 are (sim − fluid)/sim: the share of the simulated
	// percentile the fluid model misses (negative: it overestimates).
	Under95 float64 `json:"underestimate_p95"`
	Under99 float64 `json:"underestimate_p99"`
	// A user with production latencies fits L_base on them. LoadFitP99S is
	// the fluid p99 with L_base fitted (NNLS) on this fleet's own simulated
	// latencies (the load the fit was measured at); RefFitP99S with L_base
	// fitted on the reference fleet's (Comparison.RefInstances), as when
	// latencies measured on today's fleet plan another size. The Under
	// fields are (sim − fluid)/sim.
	LoadFitP99S    float64 `json:"loadfit_fluid_p99_e2e_s"`
	LoadFitUnder99 float64 `json:"loadfit_underestimate_p99"`
	RefFitP99S     float64 `json:"reffit_fluid_p99_e2e_s"`
	RefFitUnder99  float64 `json:"reffit_underestimate_p99"`
	// SimQueueP99S is the simulated p99 wait before admission, s.
	SimQueueP99S float64 `json:"sim_p99_queue_s"`
	Preemptions  int64   `json:"sim_preemptions"`
	// With a Target: SimTargetS is the simulated latency at the target's
	// percentile and metric, and MetTarget whether it is within the
	// target's threshold (nil without a target).
	SimTargetS float64 `json:"sim_target_latency_s,omitempty"`
	MetTarget  *bool   `json:"met_target,omitempty"`
}

// Target is a latency target each simulated fleet is checked against (the
// latency plan's: `capacity --latency-slo`).
type Target struct {
	ThresholdS float64 `json:"threshold_s"` // s
	Percentile float64 `json:"percentile"`  // in (0, 1)
	Metric     string  `json:"metric"`      // capacity.MetricE2E or capacity.MetricQueue
}

// Comparison is the fluid model beside the simulator on several fleets.
type Comparison struct {
	// RefInstances is the fleet whose simulated latencies give the
	// reference L_base fit of RefFitP99S: the smallest fleet reaching the
	// plan when it is among the fleets, else the first.
	RefInstances int     `json:"ref_instances"`
	Points       []Point `json:"points"`
	Target       *Target `json:"target,omitempty"` // the latency target checked, if any
}

// Compare replays reqs (times as given, relative to the first) on fleets
// of each instance count and runs the fluid model at the same capacity
// (planUnits chooses the reference fleet). Percentiles are the inverse
// empirical CDF over every request on both sides. Each instance count is
// simulated once: a count given twice is an error. With a target (nil:
// none), each fleet's simulated latency at its percentile and metric is
// checked against it.
func Compare(reqs []capacity.Request, p capacity.Profile, cal Calibration, instances []int, planUnits float64, seed uint64, target *Target) (Comparison, error) {
	s, err := capacity.NewSeries(reqs, p)
	if err != nil {
		return Comparison{}, err
	}
	base := make([]float64, len(reqs))
	jobs := make([]workload.Request, len(reqs))
	for i, r := range reqs {
		base[i] = cal.Baseline.Baseline.Predict(r)
		jobs[i] = job(int64(i), s.T[i], r)
	}
	cmp := Comparison{Points: make([]Point, len(instances)), Target: target}
	fits := make([]capacity.Baseline, len(instances))
	ref, want := 0, planInstances(planUnits, cal)
	obs := make([]capacity.Request, len(reqs))
	for k, n := range instances {
		if n < 1 || n > sim.MaxInstances {
			return Comparison{}, &workload.FieldError{Field: "instances", Value: n, Allowed: fmt.Sprintf("an integer in [1, %d]", sim.MaxInstances)}
		}
		if slices.Contains(instances[:k], n) {
			return Comparison{}, &workload.FieldError{Field: "instances", Value: n, Allowed: "each instance count once (it is given twice)"}
		}
		if n == want && instances[ref] != want {
			ref = k
		}
		units := float64(n) * cal.UnitsPerInstance
		fl := capacity.FluidLatency(s, base, units, p.Tau, nil)
		sink, sum, err := run(jobs, n, cal, seed)
		if err != nil {
			return Comparison{}, err
		}
		pt := Point{Instances: n, Units: units, Utilization: fl.Utilization,
			FluidP95S: fl.P95S, FluidP99S: fl.P99S,
			SimP95S: capacity.Percentile(sink.e2e, 0.95), SimP99S: capacity.Percentile(sink.e2e, 0.99),
			SimQueueP99S: sum.Fleet.QueueWait.P99, Preemptions: sum.Fleet.Preemptions}
		if target != nil {
			lat := sink.e2e
			if target.Metric == capacity.MetricQueue {
				lat = sink.wait
			}
			pt.SimTargetS = capacity.Percentile(lat, target.Percentile)
			met := pt.SimTargetS <= target.ThresholdS
			pt.MetTarget = &met
		}
		pt.Under95 = (pt.SimP95S - pt.FluidP95S) / pt.SimP95S
		pt.Under99 = (pt.SimP99S - pt.FluidP99S) / pt.SimP99S
		for i, r := range reqs {
			r.Latency = sink.e2e[i]
			obs[i] = r
		}
		fit, err := capacity.FitBaseline(obs)
		if err != nil {
			return Comparison{}, err
		}
		fits[k] = fit.Baseline
		cmp.Points[k] = pt
	}
	cmp.RefInstances = instances[ref]
	fluidP99 := func(b capacity.Baseline, units float64) float64 {
		for i, r := range reqs {
			base[i] = b.Predict(r)
		}
		return capacity.FluidLatency(s, base, units, p.Tau, nil).P99S
	}
	for k := range cmp.Points {
		pt := &cmp.Points[k]
		pt.LoadFitP99S = fluidP99(fits[k], pt.Units)
		pt.LoadFitUnder99 = (pt.SimP99S - pt.LoadFitP99S) / pt.SimP99S
		pt.RefFitP99S = fluidP99(fits[ref], pt.Units)
		pt.RefFitUnder99 = (pt.SimP99S - pt.RefFitP99S) / pt.SimP99S
	}
	return cmp, nil
}

// PlanFleet returns the point of the smallest simulated fleet reaching
// planUnits (the fleet that buys the plan), or nil when none does.
func (c Comparison) PlanFleet(planUnits float64) *Point {
	var best *Point
	for k := range c.Points {
		pt := &c.Points[k]
		if pt.Units >= planUnits*(1-1e-12) && (best == nil || pt.Units < best.Units) {
			best = pt
		}
	}
	return best
}

// planInstances returns the smallest instance count reaching g units.
func planInstances(g float64, cal Calibration) int {
	return max(1, int(math.Ceil(g/cal.UnitsPerInstance-1e-9)))
}

// Around returns the instance counts to check near a plan of g units: the
// smallest count reaching g, one below it (when >= 1) and two above.
func Around(g float64, cal Calibration) []int {
	n := planInstances(g, cal)
	var out []int
	for k := n - 1; k <= n+2; k++ {
		if k >= 1 {
			out = append(out, k)
		}
	}
	return out
}
