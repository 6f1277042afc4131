package catalog

import (
	"strings"
	"testing"
)

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
