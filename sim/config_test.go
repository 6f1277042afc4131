package sim

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/router"
)

func TestDefaultsValid(t *testing.T) {
	c := Defaults()
	if err := c.Validate(); err != nil {
		t.Fatalf("Defaults() is invalid: %v", err)
	}
	// The PR shape re-sized for prompt tokens charged (issue 21,
	// docs/experiments.md "The default fleet"): 161 short + 153 long A100s.
	if len(c.Pools) != 2 || c.Pools[0].Count != 161 || c.Pools[1].Count != 153 || c.Timing != catalog.TimingAuto {
		t.Errorf("default pools %+v timing %s, want 161 + 153 under auto", c.Pools, c.Timing)
	}
	// FleetOpt paper Table 5, pool routing (PR): 43 short + 131 long A100s,
	// under kv: Defaults but for the counts and the timing.
	p := PapersDefaults()
	if err := p.Validate(); err != nil {
		t.Fatalf("PapersDefaults() is invalid: %v", err)
	}
	if len(p.Pools) != 2 || p.Pools[0].Count != 43 || p.Pools[1].Count != 131 || p.Timing != catalog.TimingKV {
		t.Errorf("papers' pools %+v timing %s, want FleetOpt PR fleet 43 + 131 under kv", p.Pools, p.Timing)
	}
	p.Pools[0].Count, p.Pools[1].Count, p.Timing = c.Pools[0].Count, c.Pools[1].Count, c.Timing
	if !reflect.DeepEqual(p, c) {
		t.Errorf("Defaults %+v and PapersDefaults %+v differ beyond counts and timing", c, p)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(c *Config)
		field string // expected start of the message ("" = valid)
		value string // expected in the message
	}{
		{"defaults", func(c *Config) {}, "", ""},
		{"negative rate", func(c *Config) { c.Workload.Rate = -5 }, "workload.rate", "-5"},
		{"zero rate", func(c *Config) { c.Workload.Rate = 0 }, "workload.rate", "0"},
		{"NaN rate", func(c *Config) { c.Workload.Rate = math.NaN() }, "workload.rate", "NaN"},
		{"zero requests", func(c *Config) { c.Workload.Requests = 0 }, "workload.requests", "0"},
		{"no workload", func(c *Config) { c.Workload.CDF = "" }, "workload.cdf", `""`},
		{"cdf and trace", func(c *Config) { c.Workload.Trace = "x.csv" }, "workload.trace", "x.csv"},
		{"unknown timing", func(c *Config) { c.Timing = "fast" }, "timing", "fast"},
		{"paper timing", func(c *Config) { c.Timing = catalog.TimingPaper }, "", ""},
		{"no pools", func(c *Config) { c.Pools = nil }, "pools", "[]"},
		{"unknown GPU", func(c *Config) { c.Pools[1].GPU = "v100" }, "pools[1].gpu", "v100"},
		{"GPU case-insensitive", func(c *Config) { c.Pools[1].GPU = "A100" }, "", ""},
		{"zero count", func(c *Config) { c.Pools[0].Count = 0 }, "pools[0].count", "0"},
		{"zero max ctx", func(c *Config) { c.Pools[0].MaxContext = 0 }, "pools[0].max_ctx", "0"},
		{"max ctx 1", func(c *Config) { c.Pools[0].MaxContext = 1 }, "pools[0].max_ctx", "1"},
		{"max ctx 2", func(c *Config) { c.Pools[0].MaxContext = 2 }, "", ""},
		{"huge count", func(c *Config) { c.Pools[0].Count = 99_999_999_999 }, "pools[0].count", "99999999999"},
		{"fleet over the instance cap", func(c *Config) { c.Pools[0].Count, c.Pools[1].Count = 600_000, 600_000 }, "pools[1].count", "600000"},
		{"fleet at the instance cap", func(c *Config) { c.Pools[0].Count, c.Pools[1].Count = 500_000, 500_000 }, "", ""},
		// A100: 65,536 blocks of 16 tokens = 1,048,576 tokens (pools/catalog/gpu.go).
		{"max ctx over KV budget", func(c *Config) { c.Pools[1].MaxContext = 2_000_000 }, "pools[1].max_ctx", "2000000"},
		{"max ctx at KV budget", func(c *Config) { c.Pools[1].MaxContext = 1_048_576 }, "", ""},
		{"duplicate names", func(c *Config) { c.Pools[1].Name = "short" }, "pools[1].name", "short"},
		{"empty name", func(c *Config) { c.Pools[0].Name = "" }, "pools[0].name", `""`},
		{"name with colon", func(c *Config) { c.Pools[0].Name = "a:b" }, "pools[0].name", "a:b"},
		{"unknown dispatch", func(c *Config) { c.Pools[0].Dispatch = "random" }, "pools[0].dispatch", "random"},
		{"jsq dispatch", func(c *Config) { c.Pools[0].Dispatch = DispatchJSQ }, "", ""},
		{"negative queue limit", func(c *Config) { c.Pools[0].QueueLimit = -1 }, "pools[0].queue_limit", "-1"},
		{"unknown router", func(c *Config) { c.Router.Kind = "magic" }, "router.kind", "magic"},
		{"token-budget router", func(c *Config) { c.Router.Kind = RouterTokenBudget }, "", ""},
		// b_short must not exceed the smallest pool's max context (4,096).
		{"b_short too large", func(c *Config) { c.Router = RouterConfig{Config: router.Config{Kind: RouterCR, BShort: 9000}} }, "router: b_short", "9000"},
		{"negative gamma", func(c *Config) { c.Router = RouterConfig{Config: router.Config{Kind: RouterCR, Gamma: 0.5}} }, "router: gamma", "0.5"},
		{"warmup 1", func(c *Config) { c.WarmupFraction = 1 }, "warmup_fraction", "1"},
		{"warmup negative", func(c *Config) { c.WarmupFraction = -0.1 }, "warmup_fraction", "-0.1"},
		{"warmup 0", func(c *Config) { c.WarmupFraction = 0 }, "", ""},
		{"zero SLO", func(c *Config) { c.SLO.TTFTS = 0 }, "slo.ttft_s", "0"},
		{"negative TPOT SLO", func(c *Config) { c.SLO.TPOTS = -1 }, "slo.tpot_s", "-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Defaults()
			tt.edit(&c)
			err := c.Validate()
			if tt.field == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want one on %s", tt.field)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, tt.field+" = ") || !strings.Contains(msg, tt.value) || strings.Contains(msg, "\n") {
				if strings.HasPrefix(tt.field, "router: ") && strings.HasPrefix(msg, tt.field) && strings.Contains(msg, tt.value) {
					return // the router package's format
				}
				t.Errorf("message %q: want one line starting %q and naming %q", msg, tt.field+" = ", tt.value)
			}
		})
	}
}

func TestValidationErrorType(t *testing.T) {
	c := Defaults()
	c.Pools[0].GPU = "tpu"
	var ve *ValidationError
	if err := c.Validate(); !errors.As(err, &ve) || ve.Field != "pools[0].gpu" {
		t.Fatalf("error %v is not a *ValidationError on pools[0].gpu", err)
	}
}
