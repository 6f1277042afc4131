package variants

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// oneVariant is a variants file with one variant and one workload; the
// fields are substituted into it.
func oneVariant(cost, units, minRep, alpha, beta, maxBatch, rate, in, out, prio string) []byte {
	return []byte(fmt.Sprintf(`inventory: {H100: 4}
variants:
  - {name: v1, model: m, accelerator: H100, unit_cost: %s, accelerators_per_replica: %s, min_replicas: %s,
     profile: {alpha_ms: %s, beta_ms: %s, gamma_ms: 15, delta_ms: 0.0003, max_batch: %s, at_tokens: 211}}
workloads:
  - {name: w, model: m, rate_rpm: %s, in_tokens: %s, out_tokens: %s, slo: {ttft_ms: 500, itl_ms: 24}, priority: %s,
     current: {variant: v1, replicas: 1}}
`, cost, units, minRep, alpha, beta, maxBatch, rate, in, out, prio))
}

// baseFields are oneVariant's arguments of a valid file.
var baseFields = []string{"1", "1", "0", "7.47", "0.044", "512", "6000", "1155", "211", "1"}

// fieldCase sets oneVariant's argument i to v and wants an error on field.
type fieldCase struct {
	i     int
	v     string
	field string
}

// checkFieldErrors parses oneVariant with argument i set to v for each case
// and wants a *FieldError on field.
func checkFieldErrors(t *testing.T, cases []fieldCase) {
	t.Helper()
	for _, c := range cases {
		f := slices.Clone(baseFields)
		f[c.i] = c.v
		_, err := ParseConfig(oneVariant(f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9]))
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%s = %s: err = %v, want a FieldError on %s", c.field, c.v, err, c.field)
		}
	}
}

// TestConfigWholeNumbers: integer keys take whole numbers only. yaml.v3
// truncates 1.5 into an int field silently (accelerators_per_replica 1.5
// became 1, priority 1.5 became 1); every such key is bad input naming it
// (review of issue 11).
func TestConfigWholeNumbers(t *testing.T) {
	f := baseFields
	if _, err := ParseConfig(oneVariant(f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9])); err != nil {
		t.Fatalf("base config: %v", err)
	}
	checkFieldErrors(t, []fieldCase{
		{1, "1.5", "variants[0].accelerators_per_replica"},
		{2, "0.5", "variants[0].min_replicas"},
		{5, "512.5", "variants[0].profile.max_batch"},
		{7, "1155.5", "workloads[0].in_tokens"},
		{8, "211.25", "workloads[0].out_tokens"},
		{9, "1.5", "workloads[0].priority"},
	})
	for _, c := range []struct{ yaml, field string }{
		{"inventory: {H100: 2.5}", "inventory.H100"},
		{"current: {variant: v1, replicas: 1.5}", "workloads[0].current.replicas"},
	} {
		data := oneVariant("1", "1", "0", "7.47", "0.044", "512", "6000", "1155", "211", "1")
		switch {
		case strings.HasPrefix(c.yaml, "inventory"):
			data = []byte(strings.Replace(string(data), "inventory: {H100: 4}", c.yaml, 1))
		default:
			data = []byte(strings.Replace(string(data), "current: {variant: v1, replicas: 1}", c.yaml, 1))
		}
		_, err := ParseConfig(data)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%s: err = %v, want a FieldError on %s", c.yaml, err, c.field)
		}
	}
	// A whole number written as a float is that number.
	cfg, err := ParseConfig(oneVariant("1", "2.0", "0", "7.47", "0.044", "512", "6000", "1155", "211", "1e0"))
	if err != nil || cfg.Variants[0].AcceleratorsPerReplica != 2 || *cfg.Workloads[0].Priority != 1 {
		t.Errorf("whole floats: %v", err)
	}
}

// TestConfigMagnitudes: a unit cost or a profile constant so large that
// costs or rates overflow is bad input. unit_cost 1e308 printed "total cost
// +Inf" and broke --format json; alpha_ms 1e308 gave "rate outside the
// model's range: +Inf req/s (allowed (0, 0])" (review of issue 11).
func TestConfigMagnitudes(t *testing.T) {
	checkFieldErrors(t, []fieldCase{
		{0, "1e308", "variants[0].unit_cost"},
		{3, "1e308", "variants[0].profile.alpha_ms"},
		{4, "1e308", "variants[0].profile.beta_ms"},
	})
	// At the bounds every cost and rate stays finite.
	cfg, err := ParseConfig(oneVariant(fmt.Sprint(MaxUnitCost), "1", "0", fmt.Sprint(MaxProfileMs), "0.044", "512", "6000", "1155", "211", "1"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Optimize(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := r.Allocations[0].Cost; math.IsInf(c, 0) || math.IsNaN(c) {
		t.Errorf("cost %v", c)
	}
}
