package sweep

import (
	"fmt"
	"math"
	"slices"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/sim/osd"
)

// MaxRateOptions tune the maximum-sustainable-rate search.
type MaxRateOptions struct {
	// DurationS is the simulated time of every probe run, s: a probe at rate
	// r generates ceil(r × DurationS) requests. Required (> 0).
	DurationS float64
	// Probes is the number of rates first run, evenly spaced from
	// SaturatedRPS/Probes up to SaturatedRPS (default 6).
	Probes int
	// RelTol ends the bisection when the first rate that fired is within
	// RelTol of the highest that held, relatively (default 0.01).
	RelTol float64
	// SaturationRequests is the number of requests of the saturation run
	// (default 20 × the fleet's slots, at least 1,000).
	SaturationRequests int
	// Workers, Stop, Progress (called with runs done and runs started so
	// far) and Detector as in Options.
	Workers  int
	Stop     func() bool
	Progress func(done, total int)
	Detector Detector
}

// Probe is one run of the search.
type Probe struct {
	Phase   string  // "saturate", "sweep", "extend" or "bisect"
	RateRPS float64 // offered rate, requests/s
	Fired   bool    // the over-saturation detector fired (fleet or any pool)
	AtS     float64 // when it first fired, simulated s (NaN: not fired or unknown)
	// ThroughputRPS is the fleet's completions per second: over the whole
	// run for the saturation run, over the measurement window otherwise.
	ThroughputRPS float64
}

// MaxRate is the search's answer for one seed.
type MaxRate struct {
	Seed uint64
	// SaturatedRPS is the throughput of the saturation run: every request
	// offered at once, completions over the simulated time.
	SaturatedRPS float64
	// Held is the highest rate whose run the detector did not flag, below
	// Fired; 0 when every rate run fired.
	Held float64
	// Fired is the lowest rate whose run the detector flagged; +Inf when
	// none did (the search gave up after MaxExtend doublings).
	Fired    float64
	FiredAtS float64 // when the detector fired at rate Fired, simulated s
	// AboveSaturation is set when Held exceeds SaturatedRPS by more than
	// max(RelTol, SaturationSlack): no fleet
	// sustains more than it completes when every request is offered at
	// once, so the probes were too short for the detector to see that
	// overload (a longer DurationS settles it).
	AboveSaturation bool
	Probes          []Probe // every run in the order run (sorted by phase, then rate)
}

// SaturationSlack is how far above the saturated throughput a held rate
// may lie before it is flagged: the saturation run ends with its last, long
// requests draining alone, so it underestimates the steady-state capacity
// by 1–4% (docs/sweep.md §3, one A100 at 4,096 tokens).
const SaturationSlack = 0.05

// MinProbeDurationS returns the shortest probe, simulated s, on which the
// over-saturation detector with parameters p can decide: twice the time it
// must stay silent, max(minimum_duration_s, minimum_ttft_s,
// minimum_window_size) — the detector alerts only once the run is
// minimum_duration_s and minimum_ttft_s old and its effective window
// n = min(seconds, points) holds minimum_window_size points — so that it
// then has at least as long again to see a trend. Shorter probes cannot
// fire at any rate (guidellm's defaults: 2 × 30 = 60 s). The silent time
// is taken as at least minProbeSilenceS: with every parameter 0 a probe of
// 1e-9 s holds one request and still cannot fire.
func MinProbeDurationS(p osd.Config) float64 {
	return 2 * max(p.MinimumDuration, p.MinimumTTFT, float64(p.MinimumWindowSize), minProbeSilenceS)
}

// minProbeSilenceS is the least silent time MinProbeDurationS assumes, s.
const minProbeSilenceS = 1

// Search bounds.
const (
	// MaxExtend is the number of doublings above the saturation rate tried
	// when no probe fired.
	MaxExtend = 10
	// maxBisect bounds the bisection rounds (each halves the bracket).
	maxBisect = 40
	// saturationRate is the offered rate of the saturation run, requests/s:
	// high enough that all its requests arrive at once.
	saturationRate = 1e9
)

func (o *MaxRateOptions) defaults(cfg sim.Config) {
	if o.Probes <= 0 {
		o.Probes = 6
	}
	if !(o.RelTol > 0) {
		o.RelTol = 0.01
	}
	if o.SaturationRequests <= 0 {
		slots := 0
		for _, p := range cfg.Pools {
			if g, err := catalog.LookupGPU(p.GPU); err == nil {
				slots += p.Count * g.Slots(p.MaxContext)
			}
		}
		o.SaturationRequests = max(1000, 20*slots)
	}
}

// job is one probe to run for one seed.
type job struct {
	seed  int
	phase string
	rate  float64
}

// FindMaxRate searches, for each seed, the highest arrival rate at which
// the over-saturation detector does not fire on base's fleet, like
// guidellm's sweep profile: a saturation run measures the fleet's
// throughput with every request offered at once; Probes rates evenly spaced
// up to that throughput follow; then the bracket between the highest rate
// that held and the lowest that fired is bisected until it is within
// RelTol. Runs use the detector in enforce mode. Every probe of a seed uses
// that seed, so results do not depend on scheduling; the runs of all seeds
// in one phase run in parallel.
func FindMaxRate(base sim.Config, seeds []uint64, o MaxRateOptions) ([]MaxRate, error) {
	if !(o.DurationS > 0) || math.IsInf(o.DurationS, 0) {
		return nil, fmt.Errorf("duration %v: a rate search needs a finite duration > 0 s", o.DurationS)
	}
	if len(seeds) == 0 {
		return nil, fmt.Errorf("seeds: at least one is needed")
	}
	det := o.Detector
	if det == nil {
		det = DefaultDetector
	}
	if _, ok := det.(SimDetector); ok { // the simulator's detector: its own settings bound the probes
		if base.OSD.Mode == sim.OSDOff {
			return nil, fmt.Errorf("osd.mode off: the rate search runs the over-saturation detector in enforce mode on every probe; leave the mode unset")
		}
		p := osd.DefaultConfig()
		if base.OSD.Params != nil {
			p = *base.OSD.Params
		}
		if m := MinProbeDurationS(p); !(o.DurationS >= m) {
			return nil, fmt.Errorf("duration %v s: a probe shorter than %g s cannot be decided by the over-saturation detector (2 × max(minimum_duration_s %g, minimum_ttft_s %g, minimum_window_size %d, 1 s))",
				o.DurationS, m, p.MinimumDuration, p.MinimumTTFT, p.MinimumWindowSize)
		}
	}
	o.defaults(base)
	res := make([]MaxRate, len(seeds))
	for i, s := range seeds {
		res[i] = MaxRate{Seed: s, Fired: math.Inf(1), FiredAtS: math.NaN()}
	}
	started, done := 0, 0
	run := func(jobs []job) error {
		started += len(jobs)
		probes := make([]Probe, len(jobs))
		err := parallel(len(jobs), o.Workers, o.Stop, func(k int) error {
			p, err := o.probe(base, seeds[jobs[k].seed], jobs[k])
			probes[k] = p
			return err
		})
		if err != nil {
			return err
		}
		for k, j := range jobs {
			res[j.seed].Probes = append(res[j.seed].Probes, probes[k])
		}
		done += len(jobs)
		if o.Progress != nil {
			o.Progress(done, started)
		}
		return nil
	}

	// 1. Saturation: the throughput with every request offered at once.
	var jobs []job
	for i := range seeds {
		jobs = append(jobs, job{seed: i, phase: "saturate", rate: saturationRate})
	}
	if err := run(jobs); err != nil {
		return nil, err
	}
	// 2. Evenly spaced rates up to the saturated throughput.
	jobs = jobs[:0]
	for i := range res {
		sat := res[i].Probes[0].ThroughputRPS
		res[i].SaturatedRPS = sat
		if !(sat > 0) {
			return nil, fmt.Errorf("seed %d: the saturation run served nothing (are all requests longer than every pool's max context?)", seeds[i])
		}
		for k := 1; k <= o.Probes; k++ {
			jobs = append(jobs, job{seed: i, phase: "sweep", rate: roundRate(sat*float64(k)/float64(o.Probes), sat*o.RelTol)})
		}
	}
	if err := run(jobs); err != nil {
		return nil, err
	}
	// 3. Extend upwards while nothing fired, then bisect.
	for round := 0; round < MaxExtend+maxBisect; round++ {
		jobs = jobs[:0]
		for i := range res {
			if j, ok := res[i].next(o.RelTol, round); ok {
				j.seed = i
				jobs = append(jobs, j)
			}
		}
		if len(jobs) == 0 {
			break
		}
		if err := run(jobs); err != nil {
			return nil, err
		}
	}
	for i := range res {
		res[i].bracket()
		res[i].AboveSaturation = res[i].Held > res[i].SaturatedRPS*(1+max(o.RelTol, SaturationSlack))
	}
	return res, nil
}

// bracket sets Held, Fired and FiredAtS from the probes (the saturation run
// excluded).
func (m *MaxRate) bracket() {
	m.Held, m.Fired, m.FiredAtS = 0, math.Inf(1), math.NaN()
	for _, p := range m.Probes {
		if p.Phase != "saturate" && p.Fired && p.RateRPS < m.Fired {
			m.Fired, m.FiredAtS = p.RateRPS, p.AtS
		}
	}
	for _, p := range m.Probes {
		if p.Phase != "saturate" && !p.Fired && p.RateRPS < m.Fired && p.RateRPS > m.Held {
			m.Held = p.RateRPS
		}
	}
}

// next returns the seed's next probe, if any.
func (m *MaxRate) next(relTol float64, round int) (job, bool) {
	m.bracket()
	if math.IsInf(m.Fired, 1) {
		top := 0.0
		extended := 0
		for _, p := range m.Probes {
			if p.Phase != "saturate" {
				top = max(top, p.RateRPS)
			}
			if p.Phase == "extend" {
				extended++
			}
		}
		if extended >= MaxExtend {
			return job{}, false
		}
		return job{phase: "extend", rate: 2 * top}, true
	}
	if m.Fired-m.Held <= relTol*m.Fired {
		return job{}, false
	}
	mid := roundRate((m.Held+m.Fired)/2, m.Fired*relTol/4)
	if !(mid > m.Held && mid < m.Fired) || slices.ContainsFunc(m.Probes, func(p Probe) bool { return p.RateRPS == mid && p.Phase != "saturate" }) {
		return job{}, false
	}
	return job{phase: "bisect", rate: mid}, true
}

// roundRate rounds r to a multiple of the power of ten at or below step, so
// that reported rates read 12.5 rather than 12.4999871.
func roundRate(r, step float64) float64 {
	if !(step > 0) {
		return r
	}
	q := math.Pow(10, math.Floor(math.Log10(step)))
	if v := math.Round(r/q) * q; v > 0 {
		// Printing with the decimal digits of q removes the binary residue.
		d := max(0, -int(math.Floor(math.Log10(q))))
		var out float64
		fmt.Sscanf(fmt.Sprintf("%.*f", d, v), "%g", &out)
		return out
	}
	return r
}

// probe runs one rate for one seed.
func (o *MaxRateOptions) probe(base sim.Config, seed uint64, j job) (Probe, error) {
	cfg := base
	cfg.Pools = append([]sim.PoolConfig(nil), base.Pools...)
	cfg.Seed = seed
	cfg.Workload.Rate = j.rate
	if j.phase == "saturate" {
		cfg.Workload.Requests = o.SaturationRequests
		cfg.WarmupFraction = 0
	} else {
		setDuration(&cfg, o.DurationS)
	}
	r, err := runPoint(cfg, Point{}, Options{Stop: o.Stop, Detector: o.Detector, Enforce: j.phase != "saturate"})
	if err != nil {
		return Probe{}, fmt.Errorf("seed %d, rate %g: %w", seed, j.rate, err)
	}
	p := Probe{Phase: j.phase, RateRPS: j.rate, Fired: r.Fleet.Fired, AtS: r.Fleet.AtS, ThroughputRPS: r.Summary.Fleet.ThroughputRPS}
	for _, v := range r.Pools {
		if v.Fired && !p.Fired {
			p.Fired, p.AtS = true, v.AtS
		}
	}
	if j.phase == "saturate" {
		p.Fired, p.AtS = false, math.NaN()
		p.ThroughputRPS = 0
		if r.Summary.SimTimeS > 0 {
			p.ThroughputRPS = float64(r.Summary.Fleet.Completed) / r.Summary.SimTimeS
		}
	}
	return p, nil
}
