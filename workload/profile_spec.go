package workload

import (
	"math"
	"math/rand/v2"
)

// validateProfile checks the rate_profile of s and its agreement with rate:
// rate is 0 (the profile's mean) or that mean within a relative 1e-9; a
// sinusoid or trace shape without mean=M takes rate as its mean (a
// sinusoid then needs rate > 0; a trace shape falls back on the trace's own
// mean rate).
func (s Spec) validateProfile() error {
	p, err := ParseRateProfile(s.RateProfile)
	if err != nil {
		return err
	}
	if !isFinite(s.Rate) || s.Rate < 0 || s.Rate > MaxRate {
		return fieldErr("rate", s.Rate, "must be 0 (the rate_profile's mean) or in [%g, %g] requests/s", MinRate, MaxRate)
	}
	if (p.Kind == ProfileSin || p.Kind == ProfileTraceShape) && p.Mean == 0 {
		if p.Kind == ProfileSin && s.Rate == 0 {
			return fieldErr("rate_profile.mean", 0, "sin needs mean=M or the workload's rate > 0")
		}
		return nil
	}
	if m := p.MeanRate(); s.Rate != 0 && math.Abs(s.Rate-m) > 1e-9*m {
		return fieldErr("rate", s.Rate, "with rate_profile %q the rate is the profile's mean %g requests/s (or 0)", s.RateProfile, m)
	}
	return nil
}

// profileDefaults fills Rate from the rate profile's mean when the profile
// states it (every kind but a trace shape without mean=M), and drops a
// const profile whose rate is Rate with a CDF: the two runs are the same (NewProfiled
// is then the identity), so the spec a summary records is the same too.
func (s Spec) profileDefaults() Spec {
	if s.RateProfile == "" {
		return s
	}
	p, err := ParseRateProfile(s.RateProfile)
	if err != nil {
		return s
	}
	if s.Rate == 0 {
		s.Rate = p.MeanRate() // 0 for a sin or trace shape without mean=M
	}
	if p.Kind == ProfileConst && s.Rate == p.Rates[0] && s.Trace == "" {
		s.RateProfile = ""
	}
	return s
}

// profileArrivals returns the arrivals of a spec with a rate profile: the
// spec's Arrival process (Poisson or MMPP) at the profile's mean rate R,
// time-changed by the profile (NewProfiled), drawing from rArr.
func profileArrivals(s Spec, rArr *rand.Rand) (Arrivals, error) {
	p, err := ParseRateProfile(s.RateProfile)
	if err != nil {
		return nil, err
	}
	c, mean, err := LoadRateProfile(p, s.Rate)
	if err != nil {
		return nil, err
	}
	base, err := baseArrivals(s, mean, rArr)
	if err != nil {
		return nil, err
	}
	return NewProfiled(base, mean, c), nil
}
