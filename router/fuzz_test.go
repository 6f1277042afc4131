package router

import (
	"math"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// FuzzConfig: no configuration makes Validate or New panic; an error is
// one line; a configuration Validate accepts builds a router whose
// decisions are sane (a pool index in range, a finite delay >= 0, a served
// prompt of at least one token) on requests of any shape, with feedback.
//
//	go test ./router -run '^$' -fuzz FuzzConfig
func FuzzConfig(f *testing.F) {
	f.Add(uint8(3), 4096, 1.5, 1.0, 0.0, 0.0, 0.95, 1.0, 4.0, 10, uint8(0b10101), 0.0005, 0.0008, 3000, 2000, int64(1))
	f.Add(uint8(2), 0, 0.0, 0.0, 4.0, 0.5, 0.0, -1.0, 0.0, 0, uint8(0), 0.0, 0.0, 1, 1, int64(0))
	f.Add(uint8(3), 1, 1e300, 0.5, 1e300, 1.0, 1e-300, 1e300, 1e-300, 1, uint8(0xff), 1e-300, 1e300, 1<<30, 1<<30, int64(-5))
	f.Fuzz(func(t *testing.T, kind uint8, bShort int, gamma, pc, spillQ, spillKV, ema, sigma, cold float64,
		minObs int, comp uint8, p50, p99 float64, in, bytes int, seed int64) {
		kinds := []string{KindLength, KindTokenBudget, KindSpillover, KindCR, "", "bogus"}
		var cats []workload.Category
		for k := workload.Category(0); k < 8; k++ {
			if comp&(1<<k) != 0 {
				cats = append(cats, k)
			}
		}
		cfg := Config{Kind: kinds[int(kind)%len(kinds)], BShort: bShort, Gamma: gamma, PC: pc,
			SpillQueuePerGPU: spillQ, SpillKVOccupancy: spillKV, EMADecay: ema, SigmaWeight: sigma,
			ColdStart: cold, MinObservations: minObs, Compressible: cats, CompressP50S: p50, CompressP99S: p99}
		pools := []Pool{{Name: "short", MaxContext: 4096, GPUs: 2, Slots: 64}, {Name: "long", MaxContext: 65536, GPUs: 3, Slots: 16}}
		r, err := New(cfg, pools, uint64(seed))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
			return
		}
		loads := []Load{{Queued: 1000, Running: 128, KVOccupancy: 1}, {}}
		for i := 0; i < 40; i++ {
			req := workload.Request{ID: int64(i), InputTokens: 1 + (in+i*977)%(1<<20), OutputTokens: 1 + i,
				MaxOutputTokens: 1 + i, Bytes: max(0, bytes+i*131) % (1 << 26), Category: workload.Category(i % int(workload.NumCategories))}
			d := r.Route(&req, loads)
			if d.Pool < 0 || d.Pool >= len(pools) || math.IsNaN(d.DelayS) || math.IsInf(d.DelayS, 0) || d.DelayS < 0 ||
				(d.Compressed && (d.InputTokens < 1 || d.InputTokens > req.InputTokens)) {
				t.Fatalf("config %+v, request %+v: decision %+v", cfg, req, d)
			}
			r.Observe(&req, req.InputTokens)
			loads[0], loads[1] = loads[1], loads[0]
		}
	})
}
