package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fleetsim/fleetsim/sim/export"
)

// Issue #20 item 6: two sweeps into one --out could leave the plots of one
// run beside the Parquet of the other. A sweep now holds --out's lock while
// it runs: a second one is refused in one line (exit 1) and writes nothing.
func TestSweepOutLocked(t *testing.T) {
	out := t.TempDir()
	// a live holder: this process
	lock := filepath.Join(out, export.LockName)
	unlock, err := export.LockDir(out)
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, sweepArgs(out, "--rates", "20")...)
	unlock()
	want := fmt.Sprintf("another fleetsim process (pid %d) is writing its outputs there", os.Getpid())
	if code != 1 || !strings.Contains(stderr, want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Fatalf("locked --out: exit %d, stderr %q; want exit 1 and one line containing %q", code, stderr, want)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("locked --out: the refused sweep wrote into it: %v", ents)
	}
	// a lock file left by a process that is gone is taken over (and removed)
	if err := os.WriteFile(lock, []byte("999999999\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, sweepArgs(out, "--rates", "20", "--no-plots")...); code != 0 {
		t.Fatalf("stale lock: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Errorf("lock not removed after the sweep: %v", err)
	}
}

// TestSweepConcurrentOut: two sweeps started together into one --out end
// with one run's complete set (Parquet, table and plots byte-identical to
// that run alone), never a mix; the other finished first or was refused.
func TestSweepConcurrentOut(t *testing.T) {
	files := []string{"sweep.parquet", "sweep.md", "ttft_p99.svg", "utilization.svg", "cost.svg"}
	args := [2][]string{{"--rates", "20,40"}, {"--rates", "30,50"}}
	var ref [2]map[string]string
	for i, a := range args {
		dir := t.TempDir()
		if code, _, stderr := runCLI(t, sweepArgs(dir, a...)...); code != 0 {
			t.Fatalf("solo sweep %d: %s", i, stderr)
		}
		ref[i] = readSet(t, dir, files)
	}
	for round := range 3 {
		out := t.TempDir()
		var wg sync.WaitGroup
		var codes [2]int
		var errs [2]string
		for i, a := range args {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[i], _, errs[i] = runCLI(t, sweepArgs(out, a...)...)
			}()
		}
		wg.Wait()
		for i := range codes {
			if codes[i] != 0 && !strings.Contains(errs[i], "is writing its outputs there") {
				t.Fatalf("round %d sweep %d: exit %d: %s", round, i, codes[i], errs[i])
			}
		}
		got := readSet(t, out, files)
		if !maps.Equal(got, ref[0]) && !maps.Equal(got, ref[1]) {
			t.Fatalf("round %d: --out holds a mix of the two runs' files (exits %v)", round, codes)
		}
	}
}

func readSet(t *testing.T, dir string, names []string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		m[n] = string(b)
	}
	return m
}
