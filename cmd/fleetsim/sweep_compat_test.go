package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepCompatWithSweepFileScenario: a sweep file's scenario is the
// sweep's --config, so beside --compat papers it is refused like --config
// (one line, exit 2, nothing written); it used to replace the papers'
// fleet silently while keeping their kv timing.
func TestSweepCompatWithSweepFileScenario(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "s.yaml", "pools:\n  - {name: a, gpu: a10g, count: 1, max_ctx: 2048}\n")
	sw := writeFile(t, dir, "sweep.yaml", "scenario: s.yaml\ngrid:\n  rate: [1]\n")
	out := filepath.Join(dir, "out")
	code, _, errs := runCLI(t, "sweep", "--compat", "papers", "--sweep", sw, "--requests", "50", "--no-plots", "--out", out)
	want := "not with --compat papers"
	if code != 2 || !strings.Contains(errs, want) || !strings.Contains(errs, "scenario") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("exit %d, stderr %q; want 2 and one line naming the sweep file's scenario and %q", code, errs, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s exists (err %v)", out, err)
	}
}

// TestSweepCompatHelp: sweep's --compat help says what sweep does with it:
// its --timing is an axis that varies the papers' scenario, not a flag
// refused beside --compat (simulate's help says that one is refused).
func TestSweepCompatHelp(t *testing.T) {
	usage := func(cmd string) string {
		code, out, errs := runCLI(t, cmd, "--help")
		if code != 0 {
			t.Fatalf("%s --help: exit %d: %s", cmd, code, errs)
		}
		i := strings.Index(out, "\n      --compat ")
		if i < 0 {
			t.Fatalf("%s --help: no --compat", cmd)
		}
		line, _, _ := strings.Cut(out[i+1:], "\n      --")
		return strings.Join(strings.Fields(line), " ")
	}
	if s := usage("sweep"); strings.Contains(s, "--plan or --timing") || !strings.Contains(s, "--timing LIST") {
		t.Errorf("sweep --help, --compat: %q; want the axes (--timing LIST) to vary it, and --timing not refused", s)
	}
	if s := usage("simulate"); !strings.Contains(s, "--plan or --timing") {
		t.Errorf("simulate --help, --compat: %q; want --timing refused beside it", s)
	}
}
