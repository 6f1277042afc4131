package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A config or profile file that never ends (/dev/zero) or is absurdly large
// is one line and exit 2, not a hang and an out-of-memory crash.
func TestCatalogEndlessFiles(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "z.yaml")
	os.WriteFile(spec, []byte("gpu: h100\nhf_config: /dev/zero\n"), 0o644)
	scen := filepath.Join(dir, "s.yaml")
	os.WriteFile(scen, []byte("pools:\n  - {name: p, spec: /dev/zero, count: 1, max_ctx: 2048}\n"), 0o644)
	for _, args := range [][]string{
		{"catalog", "profile", "--gpu", "h100", "--hf-config", "/dev/zero"},
		{"catalog", "profile", "--file", "/dev/zero"},
		{"catalog", "profile", "--file", spec},
		{"simulate", "--config", scen, "--out", filepath.Join(dir, "o")},
	} {
		_, errs, code := runFS(t, args...)
		if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "longer than") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line about the size", args, code, errs)
		}
	}
}

// A scenario pool's tp must be >= 1 (or absent): tp -2 used to fall through
// to "the smallest tp that fits" and run.
func TestScenarioNegativeTP(t *testing.T) {
	dir := t.TempDir()
	scen := filepath.Join(dir, "s.yaml")
	os.WriteFile(scen, []byte("pools:\n  - {name: p, gpu: h100, model: llama-3.1-70b, tp: -2, count: 1, max_ctx: 2048}\n"), 0o644)
	_, errs, code := runFS(t, "simulate", "--config", scen, "--requests", "10", "--out", filepath.Join(dir, "o"))
	if code != 2 || !strings.Contains(errs, "tp = -2") {
		t.Fatalf("exit %d, stderr %q; want exit 2 naming tp = -2", code, errs)
	}
}

// --gpu all where no GPU can hold the instance (tp 1000, or 405B on one
// GPU) is bad input: one line, exit 2 — not an empty table and exit 0.
func TestCatalogAllNothingFits(t *testing.T) {
	for _, args := range [][]string{
		{"catalog", "profile", "--gpu", "all", "--model", "llama-3.1-70b", "--tp", "1000"},
		{"catalog", "profile", "--gpu", "all", "--model", "llama-3.1-405b", "--tp", "1"},
	} {
		out, errs, code := runFS(t, args...)
		if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, one line, no output", args, code, out, errs)
		}
	}
}
