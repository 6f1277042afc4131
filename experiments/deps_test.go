package experiments

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies keeps the package layout of DESIGN.md: experiments may
// import every core package (workload, engine, pools, router, sim) but not
// the CLI (cmd, pflag), Parquet (parquet-go, sim/export) or a plotting
// library: its writers are the standard library's.
func TestDependencies(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not found")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	forbidden := []string{
		"github.com/parquet-go/", "github.com/spf13/pflag", "gonum.org/v1/plot",
		"github.com/fleetsim/fleetsim/sim/export", "github.com/fleetsim/fleetsim/cmd/",
	}
	deps := strings.Fields(string(out))
	for _, dep := range deps {
		for _, f := range forbidden {
			if strings.HasPrefix(dep, f) {
				t.Errorf("experiments depends on %s", dep)
			}
		}
	}
	// It does use the planner, the router and the simulator.
	for _, need := range []string{"github.com/fleetsim/fleetsim/pools", "github.com/fleetsim/fleetsim/router", "github.com/fleetsim/fleetsim/sim"} {
		found := false
		for _, dep := range deps {
			found = found || dep == need
		}
		if !found {
			t.Errorf("experiments does not depend on %s", need)
		}
	}
}
