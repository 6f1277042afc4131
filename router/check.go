package router

import (
	"fmt"
	"math"
)

// valueRule is what a tuning field allows once its default is filled in.
type valueRule struct {
	ok      func(v float64) bool
	allowed string
}

// valueRules holds the range of every real-valued tuning field, by its
// scenario key. Validate applies them; the CLI checks its flags with
// CheckValue, so a range is written once.
var valueRules = map[string]valueRule{
	"gamma": {func(v float64) bool { return v >= 1 && v <= MaxGamma },
		fmt.Sprintf("must be in [1, %d] (the C&R band is (b_short, gamma*b_short])", MaxGamma)},
	"p_c": {func(v float64) bool { return v >= 0 && v <= 1 }, "must be in [0, 1]"},
	"spill_queue_per_gpu": {func(v float64) bool { return v >= 0 && v <= MaxSpillQueuePerGPU },
		fmt.Sprintf("must be in [0, %g] queued requests per GPU", float64(MaxSpillQueuePerGPU))},
	"spill_kv_occupancy": {func(v float64) bool { return v >= 0 && v <= 1 }, "must be in [0, 1] (0: off)"},
	"ema_decay":          {func(v float64) bool { return v > 0 && v < 1 }, "must be in (0, 1)"},
	"sigma_weight": {func(v float64) bool { return math.Abs(v) <= MaxSigmaWeight },
		fmt.Sprintf("must be in [-%d, %d]", MaxSigmaWeight, MaxSigmaWeight)},
	"cold_start": {func(v float64) bool { return v > 0 && v <= MaxColdStart },
		fmt.Sprintf("must be a bytes/token ratio in (0, %d]", MaxColdStart)},
}

// CheckValue reports whether v is an allowed value of the real-valued
// tuning field key (a scenario key such as "gamma" or "ema_decay"), taken
// literally: whatever a zero stands for in Config, a zero here is checked
// as the number 0. The error says what is allowed, without the field's
// name. An unknown key is an error.
func CheckValue(key string, v float64) error {
	r, ok := valueRules[key]
	if !ok {
		return fmt.Errorf("unknown router field %q", key)
	}
	if !r.ok(v) {
		return fmt.Errorf("%s", r.allowed)
	}
	return nil
}

// checkValues applies valueRules to c (defaults filled in), naming the
// first bad field.
func (c Config) checkValues() error {
	for _, f := range []struct {
		key string
		v   float64
	}{
		{"gamma", c.Gamma}, {"p_c", c.PC}, {"spill_queue_per_gpu", c.SpillQueuePerGPU},
		{"spill_kv_occupancy", c.SpillKVOccupancy}, {"ema_decay", c.EMADecay},
		{"sigma_weight", c.SigmaWeight}, {"cold_start", c.ColdStart},
	} {
		if err := CheckValue(f.key, f.v); err != nil {
			return fmt.Errorf("router: %s = %g: %v", f.key, f.v, err)
		}
	}
	return nil
}
