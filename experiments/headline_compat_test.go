package experiments

import (
	"math"
	"testing"
)

// TestHeadlineCompatColumn: fleetopt-headline names its side column after
// what it holds. Under --compat papers "ours" is the papers-compatible
// sizing (Azure PR savings 38.7%, the paper's Table 3: 1 − 174/284) and the
// side column the exact moments (40.1%: 1 − 175/292, docs/planner.md §6's
// exact fleets), so the side column must be called "exact moments";
// without --compat it is the other way round.
func TestHeadlineCompatColumn(t *testing.T) {
	for _, c := range []struct {
		compat     string
		side       string
		sideV, our float64
	}{
		{"", "papers-compatible", 100 * (1 - 174.0/284), 100 * (1 - 175.0/292)},
		{CompatPapers, "exact moments", 100 * (1 - 175.0/292), 100 * (1 - 174.0/284)},
	} {
		tabs, err := FleetOptHeadline(Options{Compat: c.compat})
		if err != nil {
			t.Fatal(err)
		}
		tab := tabs[0]
		if tab.Columns[2] != c.side {
			t.Errorf("compat %q: side column %q, want %q", c.compat, tab.Columns[2], c.side)
		}
		r := tab.Rows[0] // Azure, pool routing savings %
		side, ours := r[2].(Num).V, r[3].(Num).V
		if math.Abs(side-c.sideV) > 1e-9 || math.Abs(ours-c.our) > 1e-9 {
			t.Errorf("compat %q: Azure PR savings side %v ours %v, want %v and %v", c.compat, side, ours, c.sideV, c.our)
		}
	}
}
