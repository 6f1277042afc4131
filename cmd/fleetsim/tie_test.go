package main

import (
	"path/filepath"
	"testing"

	"github.com/fleetsim/fleetsim/sim/export"
)

// TestSimulateExactTie is issue 7's bug 2 from the command line: paper
// timing on one A100 (W = 8 ms, H = 0.65 ms) runs the first request's
// iterations at 8.65 ms each, so iteration 7 starts at 60.55 ms (hand
// computation) — exactly when the second request of the trace arrives
// (Mooncake JSONL timestamps are in ms). It must be admitted then, not one
// iteration later (0.0692 s before the fix).
func TestSimulateExactTie(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "tie.jsonl",
		`{"timestamp":0,"input_length":1024,"output_length":128}`+"\n"+
			`{"timestamp":60.55,"input_length":16,"output_length":2}`+"\n")
	out := filepath.Join(dir, "out")
	code, _, stderr := runCLI(t, "simulate", "--trace", trace, "--pool", "x:a100:1:4096",
		"--timing", "paper", "--requests", "2", "--warmup", "0", "--out", out)
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr)
	}
	recs, err := export.ReadParquet(filepath.Join(out, requestsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d rows", len(recs))
	}
	for _, r := range recs {
		if r.InputTokens == 16 && (r.ArrivalS != 0.06055 || r.AdmitS != 0.06055 || r.QueueWaitS != 0) {
			t.Errorf("second request: arrival %v admitted %v wait %v; want admitted at 0.06055 s with no wait", r.ArrivalS, r.AdmitS, r.QueueWaitS)
		}
	}
}
