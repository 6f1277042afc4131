package layout

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/fleetsim/fleetsim"

// allowed lists, for each top-level package of the README's layout table, the
// module's packages it may import (its own subpackages are always allowed).
var allowed = map[string][]string{
	"workload":    {},
	"engine":      {},
	"router":      {"workload"},
	"pools":       {"engine", "workload"},
	"sim":         {"workload", "engine", "pools", "router"},
	"experiments": {"workload", "engine", "pools", "router", "sim"},
}

// poolsWithin lists, for each subpackage of pools, the other pools
// subpackages it may import: the planners build on the catalog and the
// queueing models, which import no other pools package. A subpackage not
// listed here (a planner still to come) may import catalog and queueing.
var poolsWithin = map[string][]string{
	"":         {}, // pools itself: documentation only
	"catalog":  {},
	"queueing": {},
	"fleetopt": {"catalog", "queueing", "occupancy"},
	// autoscale's wva policy runs the variant optimizer.
	"autoscale": {"catalog", "queueing", "variants"},
}

// poolsAllowed reports whether pools subpackage sub may import pools
// subpackage dep.
func poolsAllowed(sub, dep string) bool {
	if sub == dep {
		return true
	}
	ok, known := poolsWithin[sub]
	if !known {
		ok = []string{"catalog", "queueing"}
	}
	return slices.Contains(ok, dep)
}

// pure lists standard-library packages a package may not import: the
// engine has no clock of its own, does no I/O and draws no random numbers
// (README, Layout; docs/model.md).
var pure = map[string][]string{
	"engine": {"time", "os", "math/rand", "math/rand/v2"},
}

// heavy are the libraries no core package may import: output writers and
// CLI libraries belong to sim/export and cmd.
var heavy = []string{"github.com/parquet-go/", "github.com/spf13/pflag", "gonum.org/v1/plot"}

// TestImportGraph lists every package's imports with `go list` and checks
// them against the README's layout table.
func TestImportGraph(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not found")
	}
	cmd := exec.Command(goTool, "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"/...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, imports := strings.TrimPrefix(fields[0], module+"/"), fields[1:]
		parts := strings.Split(pkg, "/")
		top := parts[0]
		ok, known := allowed[top]
		if !known {
			continue // cmd, internal: may import anything
		}
		checked++
		// Core packages: everything but experiments and sim's subpackages
		// (sim/export is where the writers live).
		core := top != "experiments" && !(top == "sim" && len(parts) > 1)
		for _, imp := range imports {
			if rel, ok2 := strings.CutPrefix(imp, module+"/"); ok2 {
				relParts := strings.Split(rel, "/")
				t2 := relParts[0]
				if t2 != top && !slices.Contains(ok, t2) {
					t.Errorf("%s imports %s: against the README's layout table (allowed: %v)", pkg, imp, ok)
				}
				if top == "pools" && t2 == "pools" && !poolsAllowed(subOf(parts), subOf(relParts)) {
					t.Errorf("%s imports %s: pools subpackages may import only %v of pools", pkg, imp, poolsWithin[subOf(parts)])
				}
				continue
			}
			if slices.Contains(pure[top], imp) {
				t.Errorf("%s imports %s: the engine is pure (no clock, I/O or randomness)", pkg, imp)
			}
			for _, h := range heavy {
				if core && strings.HasPrefix(imp, h) {
					t.Errorf("%s imports %s: keep I/O and CLI libraries out of the core", pkg, imp)
				}
			}
		}
	}
	if checked < len(allowed) {
		t.Errorf("checked %d packages, want at least %d: go list output changed?", checked, len(allowed))
	}
}

// subOf returns the first path element below the top-level package ("" for
// the top-level package itself).
func subOf(parts []string) string {
	if len(parts) < 2 {
		return ""
	}
	return parts[1]
}
