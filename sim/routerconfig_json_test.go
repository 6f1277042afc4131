package sim

import (
	"encoding/json"
	"testing"
)

// TestSummaryConfigSpellsOutPC: summary.json holds the configuration "with
// every default spelled out" (docs/cli.md). p_c is the one router field
// whose zero is not its default (0 = compress nothing; an absent p_c is 1,
// sim.Defaults), so a run with p_c = 0 must write "p_c": 0; omitted, the
// written configuration reads back as p_c = 1, another run.
func TestSummaryConfigSpellsOutPC(t *testing.T) {
	c := Defaults()
	c.Router.Kind, c.Router.PC = RouterCR, 0
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	back := Defaults()
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Router.PC != 0 {
		t.Errorf("p_c = 0 written as %s, reads back as %v", b, back.Router.PC)
	}
}
