package sim

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies keeps the package layout of DESIGN.md: sim imports the
// packages above it (workload, engine, pools, router) and simgo, but no
// output writer (parquet-go, sim/export), no CLI library (pflag) and nothing
// below it (experiments, cmd).
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
		"github.com/parquet-go/", "github.com/spf13/pflag",
		"github.com/fleetsim/fleetsim/sim/export", "github.com/fleetsim/fleetsim/experiments",
		"github.com/fleetsim/fleetsim/cmd/",
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if strings.HasPrefix(dep, f) {
				t.Errorf("sim depends on %s", dep)
			}
		}
	}
}
