package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestSimulateOSD: --osd enforce on one A100 at 1,000 req/s stops the run
// at the detection (30 s, guidellm's minimum_duration: from the start the
// queue only grows) with a STOPPED line and osd_stop in summary.json; a bad
// --osd value is one line and exit 2; --osd off leaves the verdicts out.
func TestSimulateOSD(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "simulate", "--osd", "enforce", "--pool", "one:a100:1:65536",
		"--requests", "200000", "--warmup", "0", "--no-parquet", "--out", out)
	if code != exitOSDStop {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "STOPPED: over-saturation detected in one at 30.00 s") {
		t.Errorf("no verdict line in:\n%s", stdout)
	}
	var sum struct {
		Requests int64 `json:"requests"`
		OSDStop  *struct {
			By          string  `json:"by"`
			DetectedAtS float64 `json:"detected_at_s"`
		} `json:"osd_stop"`
		Pools []struct {
			OSD struct {
				Fired    bool     `json:"fired"`
				FiredAtS *float64 `json:"fired_at_s"`
			} `json:"osd"`
		} `json:"pools"`
	}
	readSummary(t, out, &sum)
	if sum.OSDStop == nil || sum.OSDStop.By != "one" || !sum.Pools[0].OSD.Fired || sum.Requests > 40000 {
		t.Errorf("summary: %d requests, stop %+v, pool verdict %+v", sum.Requests, sum.OSDStop, sum.Pools[0].OSD)
	}

	code, _, stderr = runCLI(t, "simulate", "--osd", "on", "--out", t.TempDir())
	if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "osd.mode") {
		t.Errorf("--osd on: exit %d, stderr %q", code, stderr)
	}
	bad := writeFile(t, t.TempDir(), "bad.yaml", "osd:\n  params: {confidence: 1}\n")
	code, _, stderr = runCLI(t, "simulate", "--config", bad, "--out", t.TempDir())
	if code != 2 || !strings.Contains(stderr, "osd.params.confidence") {
		t.Errorf("confidence 1: exit %d, stderr %q", code, stderr)
	}
	// A file's params keep guidellm's defaults for the keys it leaves out.
	part := writeFile(t, t.TempDir(), "part.yaml", "osd:\n  params: {minimum_duration_s: 10}\n")
	cfg := parseScenario(t, "--config", part)
	if p := cfg.OSD.Params; p == nil || p.MinimumDuration != 10 || p.MOEThreshold != 2 || p.Confidence != 0.95 {
		t.Errorf("params from a partial file: %+v", p)
	}
	code, stdout, _ = runCLI(t, smallArgs(t.TempDir(), "--osd", "off")...)
	if code != 0 || strings.Contains(stdout, "over-saturation") || !strings.Contains(stdout, "| off") {
		t.Errorf("--osd off: exit %d, stdout:\n%s", code, stdout)
	}
}

// TestSimulateOSDEnforceStopExit3: a run the enforce-mode detector stopped
// exits with status 3 (docs/cli.md, "Exit status"), with one line on
// stderr, and reports the pool that stopped it, and so the fleet, as
// over-saturated (issue 19: it exited 0 and printed "overloaded: no"). Its
// outputs are written, as for any finished run.
func TestSimulateOSDEnforceStopExit3(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "simulate", "--osd", "enforce", "--pool", "one:a100:1:65536",
		"--requests", "200000", "--warmup", "0", "--no-parquet", "--out", out)
	if code != 3 {
		t.Fatalf("exit %d, want 3: %s", code, stderr)
	}
	if !strings.Contains(stderr, "over-saturated") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("stderr %q: want one line saying the pool is over-saturated", stderr)
	}
	for _, l := range strings.Split(stdout, "\n") {
		if (strings.HasPrefix(l, "| one ") || strings.HasPrefix(l, "| fleet ")) && !strings.Contains(l, "| yes") {
			t.Errorf("table row %q: want overloaded yes", l)
		}
	}
	var sum struct {
		Fleet struct {
			Overloaded bool `json:"overloaded"`
		} `json:"fleet"`
		Pools []struct {
			Overloaded bool `json:"overloaded"`
		} `json:"pools"`
	}
	readSummary(t, out, &sum)
	if !sum.Fleet.Overloaded || len(sum.Pools) != 1 || !sum.Pools[0].Overloaded {
		t.Errorf("summary.json: fleet overloaded %v, pools %+v; want all true", sum.Fleet.Overloaded, sum.Pools)
	}
}

// readSummary decodes DIR/summary.json into v.
func readSummary(t *testing.T, dir string, v any) {
	t.Helper()
	if err := json.Unmarshal(readBytes(t, filepath.Join(dir, summaryFile)), v); err != nil {
		t.Fatal(err)
	}
}
