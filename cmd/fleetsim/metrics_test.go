package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmptyPoolIsNull is issue 7 bug 8: a pool no measured request reached
// shows null in summary.json and "-" in the table (as docs/cli.md
// promises), and its SLO attainment, of nothing, is null rather than 0.
// Before the fix its latency quantiles and attainment were 0.
func TestEmptyPoolIsNull(t *testing.T) {
	out := filepath.Join(t.TempDir(), "o")
	// The azure CDF stays below 65,536 tokens, so the length router never
	// sends a request to the 131,072-token pool.
	code, stdout, errs := runCLI(t, "simulate", "--requests", "300", "--pool", "a:a100:4:65536", "--pool", "big:a100:1:131072",
		"--out", out, "--no-parquet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var s struct {
		Pools []map[string]json.RawMessage `json:"pools"`
	}
	if err := json.Unmarshal(readBytes(t, filepath.Join(out, summaryFile)), &s); err != nil {
		t.Fatal(err)
	}
	big := s.Pools[1]
	if string(big["arrived"]) != "0" {
		t.Fatalf("pool big: arrived %s, want 0 (the test needs an empty pool)", big["arrived"])
	}
	for _, k := range []string{"ttft_s", "tpot_s", "e2e_s", "queue_wait_s"} {
		if got := strings.Join(strings.Fields(string(big[k])), ""); got != `{"p50":null,"p90":null,"p99":null}` {
			t.Errorf("pool big: %s = %s, want null quantiles", k, got)
		}
	}
	if got := string(big["slo_attainment"]); got != "null" {
		t.Errorf("pool big: slo_attainment = %s, want null", got)
	}
	for _, line := range strings.Split(stdout, "\n") {
		if !strings.HasPrefix(line, "| big ") {
			continue
		}
		cells := strings.Split(line, "|")
		// ttft_p50_ms .. slo are columns 12..18 of the table (1-based after the leading "|").
		for _, c := range cells[12:19] {
			if strings.TrimSpace(c) != "-" {
				t.Errorf("table row of the empty pool: %q; want - for every latency and slo", line)
				break
			}
		}
	}
}

// TestQueueLimitRejectionsAreOverload is issue 7 bug 9: one GPU at 1,000
// req/s with --queue-limit 100 rejects most requests for lack of capacity;
// that is overload. Before the fix the bounded queue hid the growing
// backlog and the pool said "overloaded: no".
func TestQueueLimitRejectionsAreOverload(t *testing.T) {
	out := filepath.Join(t.TempDir(), "o")
	code, _, errs := runCLI(t, "simulate", "--requests", "20000", "--pool", "x:a100:1:65536", "--queue-limit", "100",
		"--out", out, "--no-parquet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var s struct {
		Fleet struct {
			Arrived, Rejected int64
			Overloaded        bool
		} `json:"fleet"`
		Pools []struct {
			Rejected   int64
			Overloaded bool
		} `json:"pools"`
	}
	if err := json.Unmarshal(readBytes(t, filepath.Join(out, summaryFile)), &s); err != nil {
		t.Fatal(err)
	}
	if s.Fleet.Rejected < s.Fleet.Arrived/2 {
		t.Fatalf("rejected %d of %d: the test needs a saturated pool", s.Fleet.Rejected, s.Fleet.Arrived)
	}
	if !s.Pools[0].Overloaded || !s.Fleet.Overloaded {
		t.Errorf("pool overloaded %v, fleet overloaded %v with %d of %d rejected for a full queue; want both true",
			s.Pools[0].Overloaded, s.Fleet.Overloaded, s.Fleet.Rejected, s.Fleet.Arrived)
	}
}
