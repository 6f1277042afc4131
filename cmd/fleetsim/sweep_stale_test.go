package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Review of #20 item 6: the lock keeps two sweeps running at once from
// mixing their files, but a sweep into an --out a previous sweep wrote left
// that run's plots (with --no-plots) and its extra points/point-*.parquet
// beside its own sweep.parquet: docs/sweep.md promises the files in DIR are
// one run's set. A finished sweep removes the sweep outputs it did not
// write (only those names, only regular files).
func TestSweepRemovesStaleOutputs(t *testing.T) {
	out := t.TempDir()
	if code, _, stderr := runCLI(t, sweepArgs(out, "--rates", "20,40,60", "--points")...); code != 0 {
		t.Fatalf("first sweep: %s", stderr)
	}
	keep := filepath.Join(out, "notes.txt") // not a sweep output: left alone
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, sweepArgs(out, "--rates", "30", "--no-plots", "--points")...); code != 0 {
		t.Fatalf("second sweep: %s", stderr)
	}
	var got []string
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(out, p)
			got = append(got, rel)
		}
		return nil
	})
	want := []string{runMarker, "notes.txt", filepath.Join("points", "point-000000.parquet"), "sweep.md", "sweep.parquet"}
	if !slices.Equal(got, want) {
		t.Errorf("--out after the second sweep holds %v, want %v", got, want)
	}
}

// TestSweepKeepsUserFilesNamedLikeOutputs: a sweep into a directory no
// fleetsim run wrote removes nothing, whatever the files are called: the
// name-based removal deleted a user's cost.png and points/point-000007.parquet
// (`fleetsim sweep --no-plots --out DIR`). Stale outputs are those the
// directory's marker records (TestRunMarkerKeepsUserFiles).
func TestSweepKeepsUserFilesNamedLikeOutputs(t *testing.T) {
	out := t.TempDir()
	writeFile(t, out, "cost.png", "mine")
	if err := os.MkdirAll(filepath.Join(out, pointsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(out, pointsDir), "point-000007.parquet", "mine")
	if code, _, stderr := runCLI(t, sweepArgs(out, "--rates", "30", "--no-plots")...); code != 0 {
		t.Fatalf("sweep: %s", stderr)
	}
	for _, p := range []string{"cost.png", filepath.Join(pointsDir, "point-000007.parquet")} {
		if b, err := os.ReadFile(filepath.Join(out, p)); err != nil || string(b) != "mine" {
			t.Errorf("%s after the sweep: %q, %v; want the user's file kept", p, b, err)
		}
	}
}
