package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAutoDefaultIsKVForPaperProfiles: the default timing (auto) runs the
// papers' hand-written a100 fleet exactly as --timing kv: the summary and
// the per-pool table are byte-identical but for the timing name; the
// summary line names what auto resolved to.
func TestAutoDefaultIsKVForPaperProfiles(t *testing.T) {
	dir := t.TempDir()
	read := func(args ...string) (string, []byte, []byte) {
		out := filepath.Join(dir, strings.Join(args, "_"))
		code, stdout, errs := runCLI(t, append([]string{"simulate", "--requests", "3000", "--out", out, "--format", "table"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		sum, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		req, err := os.ReadFile(filepath.Join(out, "requests.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		return stdout, sum, req
	}
	outA, sumA, reqA := read()
	outK, sumK, reqK := read("--timing", "kv")
	if !strings.Contains(outA, "seed 1, auto (kv) timing,") || !strings.Contains(outK, "seed 1, kv timing,") {
		t.Errorf("summary lines:\n%s\n%s", strings.SplitN(outA, "\n", 2)[0], strings.SplitN(outK, "\n", 2)[0])
	}
	if !bytes.Equal(bytes.Replace(sumA, []byte(`"timing": "auto"`), []byte(`"timing": "kv"`), 1), sumK) {
		t.Errorf("summary.json differs beyond the timing name")
	}
	// requests.parquet carries the run's configuration in its metadata
	// ("auto" is 2 bytes longer than "kv"); compare sizes and the printed
	// table rows instead.
	if len(reqA) != len(reqK)+2 {
		t.Errorf("requests.parquet: %d bytes by default, %d with --timing kv", len(reqA), len(reqK))
	}
	rows := func(s string) (out []string) {
		for _, ln := range strings.Split(s, "\n") {
			if strings.HasPrefix(ln, "|") {
				out = append(out, ln)
			}
		}
		return out
	}
	if a, k := strings.Join(rows(outA), "\n"), strings.Join(rows(outK), "\n"); a != k || a == "" {
		t.Errorf("per-pool tables differ:\n%s\n%s", a, k)
	}
}
