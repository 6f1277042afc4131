package fleetopt

import (
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/pools/catalog"
)

// FuzzReadPlan: any input gives pools or an error, never a panic, and the
// pools returned are always usable by a simulation.
func FuzzReadPlan(f *testing.F) {
	f.Add(`{"methods":[{"method":"pr","pools":[{"name":"short","gpu":"a100","gpus":44,"max_ctx":4096},{"name":"long","gpu":"a100","gpus":131,"max_ctx":65536}]}]}`, "pr")
	f.Add(`{"methods":[]}`, "")
	f.Add(`[1,2]`, "homo")
	f.Add(`{"methods":[{"method":"homo","pools":[{"gpu":"A100","gpus":1,"max_ctx":1e9}]}]}`, "homo")
	f.Fuzz(func(t *testing.T, doc, method string) {
		ps, err := ReadPlan(strings.NewReader(doc), method)
		if err != nil {
			return
		}
		for _, p := range ps {
			g, err := catalog.LookupGPU(p.GPU)
			if err != nil || p.Count < 1 || g.Slots(p.MaxCtx) < 1 {
				t.Fatalf("ReadPlan accepted an unusable pool %+v", p)
			}
		}
	})
}
