package pools

import (
	"strings"
	"testing"
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
			g, err := LookupGPU(p.GPU)
			if err != nil || p.Count < 1 || g.Slots(p.MaxCtx) < 1 {
				t.Fatalf("ReadPlan accepted an unusable pool %+v", p)
			}
		}
	})
}

// FuzzParseModels: any input gives valid models or an error, never a panic.
func FuzzParseModels(f *testing.F) {
	f.Add(`[{"name":"tiny","layers":2,"kv_heads":1,"head_dim":64,"kv_bytes":2,"weight_bytes":1e9}]`)
	f.Add(`[{"name":"x","layers":-1}]`)
	f.Add(`{}`)
	f.Fuzz(func(t *testing.T, doc string) {
		ms, err := ParseModels(strings.NewReader(doc))
		if err != nil {
			return
		}
		for _, m := range ms {
			if m.Validate() != nil || !(m.KVBytesPerToken() > 0) {
				t.Fatalf("ParseModels accepted an invalid model %+v", m)
			}
		}
	})
}
