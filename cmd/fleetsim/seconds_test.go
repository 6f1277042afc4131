package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestLatencyFlagsTakeDurations: every latency flag takes the one duration
// syntax of plan and size (500ms, 0.5s or plain seconds); issue 19:
// `simulate --slo-ttft 500ms` was refused. The summary of a run with
// durations equals the one with plain seconds.
func TestLatencyFlagsTakeDurations(t *testing.T) {
	dir := t.TempDir()
	summary := func(args ...string) map[string]any {
		t.Helper()
		args = append(args, "--requests", "2000", "--no-parquet", "--format", "json")
		code, out, errOut := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatal(err)
		}
		return m["config"].(map[string]any)
	}
	want := summary("simulate", "--out", filepath.Join(dir, "a"), "--slo-ttft", "0.2", "--slo-tpot", "0.03")
	for _, args := range [][]string{
		{"--slo-ttft", "200ms", "--slo-tpot", "30ms"},
		{"--slo-ttft", "0.2s", "--slo-tpot", "0.03s"},
	} {
		got := summary(append([]string{"simulate", "--out", filepath.Join(dir, "b")}, args...)...)
		gb, _ := json.Marshal(got["slo"])
		wb, _ := json.Marshal(want["slo"])
		if string(gb) != string(wb) || string(gb) == "null" {
			t.Errorf("%v: slo %s, want %s", args, gb, wb)
		}
	}
	for _, cmd := range []string{"simulate", "sweep"} {
		code, _, errOut := runCLI(t, cmd, "--slo-ttft", "fast", "--out", filepath.Join(dir, cmd+"-bad"))
		if code != 2 || !strings.Contains(errOut, `"fast"`) || !strings.Contains(errOut, "500ms") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s --slo-ttft fast: exit %d, stderr %q; want 2, one line with the value and the syntax", cmd, code, errOut)
		}
	}
	code, _, errOut := runCLI(t, "sweep", "--rates", "100", "--duration", "5", "--slo-ttft", "250ms", "--slo-tpot", "40ms", "--out", filepath.Join(dir, "sw"))
	if code != 0 {
		t.Errorf("sweep with durations: exit %d: %s", code, errOut)
	}
}
