package main

import (
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/sim"
)

// FuzzScenario: no scenario file content makes the loader or Validate
// panic, and every error is one line.
func FuzzScenario(f *testing.F) {
	f.Add("seed: 1\nworkload:\n  rate: 5\n", false)
	f.Add("pools:\n  - {name: a, gpu: a100, count: 1, max_ctx: 4096}\n", false)
	f.Add("workload: {trace: x.csv}\n", false)
	f.Add(`{"seed": 3, "workload": {"cdf": "lmsys", "rate": 200, "requests": 2000}}`, true)
	f.Add(`{"pools": [{"name": "x", "gpu": "b200"}]}`, true)
	f.Add("pools: 3\n", false)
	f.Add("", false)
	f.Fuzz(func(t *testing.T, data string, isJSON bool) {
		name := "s.yaml"
		if isJSON {
			name = "s.json"
		}
		cfg := sim.Defaults()
		_, err := decodeScenario(name, []byte(data), &cfg)
		if err == nil {
			err = cfg.Validate()
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("error is not one line: %q", err)
		}
	})
}

// FuzzParsePool: --pool values never panic; accepted ones round-trip.
func FuzzParsePool(f *testing.F) {
	for _, s := range []string{"short:a100:43:4096", "a:b:c:d", ":::", "x:a100:-1:99999999999999999999", "a:a100:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parsePool(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
			return
		}
		if back, _ := parsePool(poolsString([]sim.PoolConfig{p})); back != p {
			t.Errorf("%q parsed to %+v, which prints as %q", s, p, poolsString([]sim.PoolConfig{p}))
		}
	})
}
