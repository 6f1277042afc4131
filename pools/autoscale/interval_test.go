package autoscale

import (
	"strings"
	"testing"
)

// A control interval below 1 ms rounds to (nearly) no simulated time: a run
// with interval_s = 1e-12 ticked without end (review of issue 17, rev-day).
// Both the scenario key and the --autoscale flag refuse it, naming the field.
func TestIntervalBelowMinimumRefused(t *testing.T) {
	for _, iv := range []float64{1e-12, 0.0009} {
		c := Config{Policy: PolicyThreshold, Metric: "queue", Target: 2, IntervalS: iv}
		if err := c.Validate([]string{"p"}); err == nil || !strings.Contains(err.Error(), "interval_s") {
			t.Errorf("interval_s %g: got %v, want an error naming interval_s", iv, err)
		}
	}
	if _, err := ParseConfig("threshold:metric=queue,target=2,interval=1e-12"); err == nil || !strings.Contains(err.Error(), "interval_s") {
		t.Errorf("--autoscale interval=1e-12: got %v, want an error naming interval_s", err)
	}
	ok := Config{Policy: PolicyThreshold, Metric: "queue", Target: 2, IntervalS: MinIntervalS}
	if err := ok.Validate([]string{"p"}); err != nil {
		t.Errorf("interval_s = 1 ms: %v", err)
	}
}
