package workload

import "math"

// LoadRateProfile resolves p for a run whose spec rate is rate (requests/s,
// 0 when unset) and returns its Curve and the mean rate the curve averages.
//
// A trace shape reads its trace's timestamps (format by p.Format, else by
// extension) and counts the arrivals in buckets of p.Bucket seconds from the
// first row; the counts become a step profile that repeats every
// (buckets × bucket) seconds, rescaled so that its mean is p.Mean, else
// rate, else the trace's own mean rate (rows / (buckets × bucket)). A
// sinusoid with Mean 0 takes rate as its mean.
func LoadRateProfile(p *RateProfile, rate float64) (*Curve, float64, error) {
	if err := p.Validate(); err != nil {
		return nil, 0, err
	}
	switch p.Kind {
	case ProfileSin:
		m := p.Mean
		if m == 0 {
			m = rate
		}
		if !(m >= MinRate) {
			return nil, 0, fieldErr("rate_profile.mean", m, "sin needs mean=M or the workload's rate, in [%g, %g] requests/s", MinRate, MaxRate)
		}
		return NewCurve(p, m), m, nil
	case ProfileTraceShape:
		step, err := traceShape(p, rate)
		if err != nil {
			return nil, 0, err
		}
		return NewCurve(step, 0), step.MeanRate(), nil
	}
	return NewCurve(p, 0), p.MeanRate(), nil
}

// traceShape reads p's trace into a periodic step profile.
func traceShape(p *RateProfile, rate float64) (*RateProfile, error) {
	format, err := traceFormat(p.File, p.Format)
	if err != nil {
		return nil, fieldErr("rate_profile.file", p.File, "cannot tell the trace format from the extension (.csv azure, .jsonl mooncake): add format=F")
	}
	var counts []float64
	rows := 0
	var first float64
	_, _, err = readTrace(p.File, format, "rate_profile trace", math.MaxInt, func(row TraceRow) error {
		if rows == 0 {
			first = row.Time
		}
		b := int(math.Floor((row.Time - first) / p.Bucket))
		if b >= MaxProfilePoints {
			return traceErr(p.File, row.Line, "", "", "spans more than %d buckets of %g s (rate_profile.bucket): use a wider bucket", MaxProfilePoints, p.Bucket)
		}
		for len(counts) <= b {
			counts = append(counts, 0)
		}
		counts[b]++
		rows++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if rows == 0 {
		return nil, traceErr(p.File, 0, "", "", "has no rows")
	}
	n := len(counts)
	step := &RateProfile{Kind: ProfileStep, Times: make([]float64, n), Rates: make([]float64, n), Period: float64(n) * p.Bucket}
	target := p.Mean
	if target == 0 {
		target = rate
	}
	own := float64(rows) / step.Period
	scale := 1.0
	if target > 0 {
		scale = target / own
	}
	for i, c := range counts {
		step.Times[i] = float64(i) * p.Bucket
		step.Rates[i] = c / p.Bucket * scale
	}
	if err := step.Validate(); err != nil {
		return nil, err
	}
	return step, nil
}
