package osd

import (
	"fmt"
	"math"
)

// Config holds the detector's parameters; the defaults are guidellm's
// (OverSaturationConstraint.__init__).
type Config struct {
	// MinimumDuration is how long, in seconds since the start, the detector
	// stays silent (guidellm min_seconds; default 30).
	MinimumDuration float64 `json:"minimum_duration_s" yaml:"minimum_duration_s"`
	// MinimumTTFT is the TTFT, in seconds, above which a first token counts
	// as a violation (default 2.5). The alert needs at least half of the
	// window's TTFTs to be violations.
	MinimumTTFT float64 `json:"minimum_ttft_s" yaml:"minimum_ttft_s"`
	// MaximumWindowSeconds drops points older than this many seconds
	// (default 120).
	MaximumWindowSeconds float64 `json:"maximum_window_s" yaml:"maximum_window_s"`
	// MOEThreshold is the largest relative margin of error (margin / slope,
	// dimensionless) at which a positive slope counts (default 2.0).
	MOEThreshold float64 `json:"moe_threshold" yaml:"moe_threshold"`
	// MaximumWindowRatio caps each window at this fraction of all the points
	// it was ever given (in [0, 1]; default 0.75).
	MaximumWindowRatio float64 `json:"maximum_window_ratio" yaml:"maximum_window_ratio"`
	// MinimumWindowSize is the smallest effective number of points a slope
	// is judged on (default 5).
	MinimumWindowSize int `json:"minimum_window_size" yaml:"minimum_window_size"`
	// Confidence is the two-sided confidence level of the margin of error,
	// in (0, 1) (default 0.95).
	Confidence float64 `json:"confidence" yaml:"confidence"`
	// Eps guards divisions by a zero spread or slope (default 1e-12).
	Eps float64 `json:"eps" yaml:"eps"`
}

// DefaultConfig returns guidellm's defaults: 30 s, 2.5 s, 120 s, MOE 2.0,
// ratio 0.75, 5 points, confidence 0.95, eps 1e-12.
func DefaultConfig() Config {
	return Config{
		MinimumDuration:      30,
		MinimumTTFT:          2.5,
		MaximumWindowSeconds: 120,
		MOEThreshold:         2,
		MaximumWindowRatio:   0.75,
		MinimumWindowSize:    5,
		Confidence:           0.95,
		Eps:                  1e-12,
	}
}

// ParamError is an invalid Config field: its name (as in JSON), its value
// and what is allowed.
type ParamError struct {
	Field   string
	Value   any
	Allowed string
}

func (e *ParamError) Error() string { return fmt.Sprintf("%s = %v: %s", e.Field, e.Value, e.Allowed) }

// Validate checks the ranges guidellm's OverSaturationConstraintArgs
// enforces (all >= 0, ratio and confidence at most 1), plus finiteness and
// a confidence strictly inside (0, 1) (the t quantile needs it). It returns
// the first problem as a *ParamError.
func (c Config) Validate() error {
	nonNeg := []struct {
		name string
		v    float64
	}{
		{"minimum_duration_s", c.MinimumDuration},
		{"minimum_ttft_s", c.MinimumTTFT},
		{"maximum_window_s", c.MaximumWindowSeconds},
		{"moe_threshold", c.MOEThreshold},
		{"eps", c.Eps},
	}
	for _, f := range nonNeg {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
			return &ParamError{f.name, f.v, "must be a finite number >= 0"}
		}
	}
	if r := c.MaximumWindowRatio; math.IsNaN(r) || r < 0 || r > 1 {
		return &ParamError{"maximum_window_ratio", r, "must be in [0, 1]"}
	}
	if c.MinimumWindowSize < 0 {
		return &ParamError{"minimum_window_size", c.MinimumWindowSize, "must be >= 0"}
	}
	if p := c.Confidence; math.IsNaN(p) || p <= 0 || p >= 1 {
		return &ParamError{"confidence", p, "must be in (0, 1)"}
	}
	return nil
}

// Mode says what a run does with the detector.
type Mode int

const (
	// Monitor runs the detector and reports whether and when it fired
	// (the default).
	Monitor Mode = iota
	// Enforce stops the run at the first detection.
	Enforce
	// Off runs no detector.
	Off
)

// String returns the mode's flag spelling: "monitor", "enforce" or "off".
func (m Mode) String() string {
	switch m {
	case Monitor:
		return "monitor"
	case Enforce:
		return "enforce"
	case Off:
		return "off"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode reads "monitor", "enforce" or "off" (the empty string is
// Monitor).
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "monitor":
		return Monitor, nil
	case "enforce":
		return Enforce, nil
	case "off":
		return Off, nil
	}
	return Monitor, fmt.Errorf("osd %q: must be monitor, enforce or off", s)
}
