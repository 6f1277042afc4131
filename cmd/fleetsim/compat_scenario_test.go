package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScenarioCompatKey: a scenario file's `compat: papers` starts it from
// the papers' default scenario, as --compat papers does (the same
// requests.parquet), and its other keys apply on top (here the seed).
func TestScenarioCompatKey(t *testing.T) {
	dir := t.TempDir()
	scen := writeFile(t, dir, "s.yaml", "compat: papers\nseed: 2\n")
	run := func(name string, args ...string) []byte {
		out := filepath.Join(dir, name)
		if code, _, errs := runCLI(t, append([]string{"simulate", "--requests", "2000", "--out", out}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		return readBytes(t, filepath.Join(out, requestsFile))
	}
	if !bytes.Equal(run("file", "--config", scen), run("flag", "--compat", "papers", "--seed", "2")) {
		t.Errorf("compat: papers in a scenario file differs from --compat papers")
	}
}

// TestScenarioCompatKeyBadInput: a compat other than papers, or beside the
// keys and flags that would replace the papers' fleet or timing, is one
// line naming it and exit 2, nothing written.
func TestScenarioCompatKeyBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		file string
		args []string
		want string
	}{
		{"compat: paper\n", nil, `compat = "paper": allowed: papers`},
		{"compat: papers\ntiming: auto\n", nil, "timing: not with compat: papers"},
		{"compat: papers\npools:\n  - {name: a, gpu: a100, count: 1, max_ctx: 4096}\n", nil, "pools: not with compat: papers"},
		{"compat: papers\n", []string{"--timing", "auto"}, "--timing: not with compat: papers"},
		{"compat: papers\n", []string{"--pool", "a:a100:1:4096"}, "--pool: not with compat: papers"},
		{"compat: papers\n", []string{"--compat", "papers"}, "--config: not with --compat papers"},
	} {
		scen := writeFile(t, dir, "s.yaml", c.file)
		out := filepath.Join(dir, "out")
		code, _, errs := runCLI(t, append([]string{"simulate", "--requests", "100", "--config", scen, "--out", out}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%q %v: exit %d, stderr %q; want 2 and one line with %q", c.file, c.args, code, errs, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%q %v: %s exists (err %v)", c.file, c.args, out, err)
		}
	}
}
