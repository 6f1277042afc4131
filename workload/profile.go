package workload

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// Rate-profile kinds (the word before the colon of a rate_profile string;
// docs/day.md).
const (
	ProfileConst      = "const"       // const:RATE
	ProfileSin        = "sin"         // sin:mean=M,ratio=R,period=P,peak=T
	ProfileStep       = "step"        // step:T=RATE,T=RATE,...[,period=P]: piecewise constant
	ProfileLinear     = "linear"      // linear:T=RATE,T=RATE,...[,period=P]: piecewise linear
	ProfileTraceShape = "trace-shape" // trace-shape:FILE[,bucket=B][,mean=M][,format=F]
)

// Bounds of a rate profile.
const (
	// MaxProfilePoints bounds the points of a step or linear profile and the
	// buckets of a trace shape.
	MaxProfilePoints = 1_000_000
	// MaxProfileRatio bounds a sinusoid's peak/trough ratio.
	MaxProfileRatio = 1e6
	// DefaultProfileBucketS is a trace shape's default bucket, seconds.
	DefaultProfileBucketS = 60.0
	// DefaultProfilePeriodS is a sinusoid's default period: one day, seconds.
	DefaultProfilePeriodS = 86400.0
)

// RateProfile is a parsed rate profile λ(t), requests per second at t
// seconds since the start of the run. Build it with ParseRateProfile; a
// trace shape's counts come from LoadRateProfile (it reads the trace).
//
// A profile is either a sinusoid (closed form) or a list of points joined
// into segments, piecewise constant (step) or piecewise linear; with Period
// > 0 it repeats every Period seconds, else it holds its last rate after its
// last point.
type RateProfile struct {
	Kind string // one of the Profile* kinds
	// Sinusoid: λ(t) = Mean·(1 + a·cos(2π(t − Peak)/Period)) with
	// a = (Ratio − 1)/(Ratio + 1), so that peak/trough = Ratio.
	Mean   float64 // requests/s; 0 in a sin or trace-shape string: the spec's rate
	Ratio  float64 // peak / trough rate, >= 1
	Peak   float64 // time of the peak within the period, seconds
	Period float64 // seconds; 0 for a step/linear profile that does not repeat
	// Step and linear profiles: the points, times in seconds (the first is 0,
	// strictly increasing) and rates in requests/s (>= 0).
	Times, Rates []float64
	// Trace shape: the trace file, its format ("" by extension) and the
	// bucket width, seconds.
	File, Format string
	Bucket       float64
}

// ParseRateProfile parses a rate_profile string (docs/day.md):
//
//	const:500
//	sin:mean=500,ratio=3,period=24h,peak=14h
//	step:0=200,6h=800,18h=200,period=24h
//	linear:0=200,12h=800,24h=200
//	trace-shape:trace.csv,bucket=1h,mean=500,format=azure
//
// Times and periods are Go durations (90m, 24h, 1h30m) or bare seconds.
// The result is validated, except a trace shape's file, read by
// LoadRateProfile. Errors are *FieldError naming rate_profile or one of its
// keys.
func ParseRateProfile(s string) (*RateProfile, error) {
	kind, body, ok := strings.Cut(s, ":")
	if !ok || body == "" {
		return nil, fieldErr("rate_profile", s, "want KIND:PARAMS with KIND %s (docs/day.md)", profileKinds())
	}
	p := &RateProfile{Kind: kind}
	items := strings.Split(body, ",")
	var err error
	switch kind {
	case ProfileConst:
		if len(items) != 1 {
			return nil, fieldErr("rate_profile", s, "const takes one rate: const:RATE")
		}
		r, err := parseNum("rate_profile.rate", items[0])
		if err != nil {
			return nil, err
		}
		p.Times, p.Rates = []float64{0}, []float64{r}
	case ProfileSin:
		p.Ratio, p.Period = 1, DefaultProfilePeriodS
		err = parseKeys(items, map[string]*float64{"mean": &p.Mean, "ratio": &p.Ratio, "period": &p.Period, "peak": &p.Peak},
			map[string]bool{"period": true, "peak": true})
	case ProfileStep, ProfileLinear:
		err = p.parsePoints(items)
	case ProfileTraceShape:
		p.File, p.Bucket = items[0], DefaultProfileBucketS
		if p.File == "" {
			return nil, fieldErr("rate_profile.file", p.File, "trace-shape needs a trace file: trace-shape:FILE[,bucket=B][,mean=M][,format=F]")
		}
		rest := items[1:]
		for i, it := range rest {
			if f, ok := strings.CutPrefix(it, "format="); ok {
				p.Format = f
				rest = slices.Delete(slices.Clone(rest), i, i+1)
				break
			}
		}
		err = parseKeys(rest, map[string]*float64{"bucket": &p.Bucket, "mean": &p.Mean}, map[string]bool{"bucket": true})
	default:
		return nil, fieldErr("rate_profile", s, "unknown kind %q: allowed %s", kind, profileKinds())
	}
	if err != nil {
		return nil, err
	}
	return p, p.Validate()
}

func profileKinds() string {
	return strings.Join([]string{ProfileConst, ProfileSin, ProfileStep, ProfileLinear, ProfileTraceShape}, ", ")
}

// parseNum parses a finite number for field.
func parseNum(field, s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !isFinite(v) {
		return 0, fieldErr(field, s, "must be a finite number")
	}
	return v, nil
}

// ParseSeconds parses a duration, seconds: a Go duration ("90m", "24h") or
// a bare number of seconds. It must be finite; its sign is the caller's to
// check. Errors are *FieldError naming field.
func ParseSeconds(field, s string) (float64, error) {
	s = strings.TrimSpace(s)
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if !isFinite(v) {
			return 0, fieldErr(field, s, "must be a finite duration")
		}
		return v, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fieldErr(field, s, "must be a duration such as 90m, 24h or a number of seconds")
	}
	return d.Seconds(), nil
}

// parseKeys parses KEY=VALUE items into the named numbers; durations marks
// the keys read with ParseSeconds.
func parseKeys(items []string, keys map[string]*float64, durations map[string]bool) error {
	seen := map[string]bool{}
	for _, it := range items {
		k, v, ok := strings.Cut(it, "=")
		dst, known := keys[k]
		if !ok || !known {
			names := make([]string, 0, len(keys))
			for n := range keys {
				names = append(names, n)
			}
			slices.Sort(names)
			return fieldErr("rate_profile", it, "want KEY=VALUE with KEY one of %s", strings.Join(names, ", "))
		}
		if seen[k] {
			return fieldErr("rate_profile."+k, v, "given twice")
		}
		seen[k] = true
		var err error
		if durations[k] {
			*dst, err = ParseSeconds("rate_profile."+k, v)
		} else {
			*dst, err = parseNum("rate_profile."+k, v)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// parsePoints parses T=RATE items and an optional period=P.
func (p *RateProfile) parsePoints(items []string) error {
	for _, it := range items {
		k, v, ok := strings.Cut(it, "=")
		if !ok {
			return fieldErr("rate_profile", it, "want TIME=RATE (or period=P)")
		}
		if k == "period" {
			if p.Period != 0 {
				return fieldErr("rate_profile.period", v, "given twice")
			}
			d, err := ParseSeconds("rate_profile.period", v)
			if err != nil {
				return err
			}
			if !(d > 0) {
				return fieldErr("rate_profile.period", v, "must be a duration > 0")
			}
			p.Period = d
			continue
		}
		t, err := ParseSeconds("rate_profile.time", k)
		if err != nil {
			return err
		}
		r, err := parseNum("rate_profile.rate", v)
		if err != nil {
			return err
		}
		p.Times, p.Rates = append(p.Times, t), append(p.Rates, r)
	}
	return nil
}

// Validate checks the profile and returns the first problem as a
// *FieldError: rates finite, >= 0 and <= MaxRate, with a positive mean;
// points start at 0 and strictly increase (and lie below a period when one
// is given); a period, a bucket finite and > 0; a ratio in [1,
// MaxProfileRatio]; a peak in [0, period).
func (p *RateProfile) Validate() error {
	if p == nil {
		return nil
	}
	checkRate := func(field string, r float64) error {
		if !isFinite(r) || r < 0 || r > MaxRate {
			return fieldErr(field, r, "must be a rate in [0, %g] requests/s", MaxRate)
		}
		return nil
	}
	switch p.Kind {
	case ProfileConst:
		if len(p.Rates) != 1 {
			return fieldErr("rate_profile", len(p.Rates), "const takes one rate: const:RATE")
		}
		if r := p.Rates[0]; !(r >= MinRate) || r > MaxRate {
			return fieldErr("rate_profile.rate", r, "const needs a rate in [%g, %g] requests/s", MinRate, MaxRate)
		}
	case ProfileSin:
		if err := checkRate("rate_profile.mean", p.Mean); err != nil {
			return err
		}
		if !isFinite(p.Ratio) || p.Ratio < 1 || p.Ratio > MaxProfileRatio {
			return fieldErr("rate_profile.ratio", p.Ratio, "must be in [1, %g] (peak rate / trough rate)", MaxProfileRatio)
		}
		if !isFinite(p.Period) || !(p.Period > 0) || p.Period > MaxTraceSpanS {
			return fieldErr("rate_profile.period", p.Period, "must be in (0, %g] seconds", float64(MaxTraceSpanS))
		}
		if !isFinite(p.Peak) || p.Peak < 0 || p.Peak >= p.Period {
			return fieldErr("rate_profile.peak", p.Peak, "must be a time in [0, period = %g) seconds", p.Period)
		}
	case ProfileStep, ProfileLinear:
		n := len(p.Times)
		if n == 0 || n != len(p.Rates) || n > MaxProfilePoints {
			return fieldErr("rate_profile", n, "%s needs 1 to %d TIME=RATE points", p.Kind, MaxProfilePoints)
		}
		if p.Times[0] != 0 {
			return fieldErr("rate_profile.time", p.Times[0], "the first point must be at time 0")
		}
		for i := range n {
			if err := checkRate("rate_profile.rate", p.Rates[i]); err != nil {
				return err
			}
			if i > 0 && !(p.Times[i] > p.Times[i-1]) {
				return fieldErr("rate_profile.time", p.Times[i], "points must be sorted by strictly increasing time (after %g s)", p.Times[i-1])
			}
		}
		if !isFinite(p.Period) || p.Period < 0 || p.Period > MaxTraceSpanS {
			return fieldErr("rate_profile.period", p.Period, "must be 0 (no repeat) or in (0, %g] seconds", float64(MaxTraceSpanS))
		}
		if p.Period > 0 && p.Times[n-1] >= p.Period {
			return fieldErr("rate_profile.time", p.Times[n-1], "points of a periodic profile must lie before the period %g s", p.Period)
		}
		if !(p.mean() > 0) {
			return fieldErr("rate_profile.rate", p.mean(), "the mean rate must be > 0 requests/s")
		}
		if p.Period == 0 && !(p.Rates[n-1] > 0) {
			return fieldErr("rate_profile.rate", p.Rates[n-1], "the last rate of a profile that does not repeat (no period) holds for ever: must be > 0")
		}
	case ProfileTraceShape:
		if err := checkRate("rate_profile.mean", p.Mean); err != nil {
			return err
		}
		if !isFinite(p.Bucket) || !(p.Bucket > 0) || p.Bucket > MaxTraceSpanS {
			return fieldErr("rate_profile.bucket", p.Bucket, "must be in (0, %g] seconds", float64(MaxTraceSpanS))
		}
		if p.Format != "" {
			if _, err := traceFormat(p.File, p.Format); err != nil {
				return fieldErr("rate_profile.format", p.Format, "allowed: azure, mooncake, generic (a generic trace ends in .csv, .jsonl or .json), or leave it out (by extension)")
			}
		}
	default:
		return fieldErr("rate_profile", p.Kind, "unknown kind: allowed %s", profileKinds())
	}
	return nil
}

// mean returns a step or linear profile's time-average rate over one period,
// or over [0, last point] when it does not repeat (its one rate when it has
// a single point).
func (p *RateProfile) mean() float64 {
	n := len(p.Times)
	end := p.Period
	if end == 0 {
		if n == 1 {
			return p.Rates[0]
		}
		end = p.Times[n-1]
	}
	var area float64
	for i := range n {
		t1 := end
		if i+1 < n {
			t1 = p.Times[i+1]
		}
		dt := t1 - p.Times[i]
		if dt <= 0 {
			continue
		}
		r1 := p.Rates[i]
		if p.Kind == ProfileLinear {
			r1 = p.rateAtEnd(i)
		}
		area += dt * (p.Rates[i] + r1) / 2
	}
	return area / end
}

// rateAtEnd is a linear profile's rate at the end of segment i: the next
// point's, the first point's for the last segment of a periodic profile,
// else the segment's own (held).
func (p *RateProfile) rateAtEnd(i int) float64 {
	switch {
	case i+1 < len(p.Rates):
		return p.Rates[i+1]
	case p.Period > 0:
		return p.Rates[0]
	}
	return p.Rates[i]
}

// MeanRate returns the profile's mean rate, requests/s: a sinusoid's or a trace
// shape's Mean, a constant's rate, and a step or linear profile's average
// over one period (or over [0, last point] when it does not repeat).
func (p *RateProfile) MeanRate() float64 {
	switch p.Kind {
	case ProfileSin, ProfileTraceShape:
		return p.Mean
	case ProfileConst:
		return p.Rates[0]
	}
	return p.mean()
}
