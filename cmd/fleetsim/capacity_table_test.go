package main

import (
	"strings"
	"testing"
)

// TestCapacityLatencyTableRows: the latency table has one row per distinct
// G. Without headroom the smallest G is the plan, and the table printed the
// same row twice (review of issue 10; docs/capacity.md shows one row).
func TestCapacityLatencyTableRows(t *testing.T) {
	for _, c := range []struct {
		headroom string
		rows     []string
	}{{"0", []string{"24"}}, {"0.2", []string{"24", "29"}}} {
		code, out, errs := runCLI(t, "capacity", "--trace", convTrace, "--requests", "0", "--latency-slo", "1s", "--headroom", c.headroom)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		_, table, _ := strings.Cut(out, "p99 R s\n")
		var got []string
		for _, line := range strings.Split(strings.TrimRight(table, "\n"), "\n") {
			f := strings.Fields(line)
			if len(f) != 8 {
				break
			}
			got = append(got, f[0])
		}
		if strings.Join(got, ",") != strings.Join(c.rows, ",") {
			t.Errorf("headroom %s: latency rows for G = %v, want %v\n%s", c.headroom, got, c.rows, out)
		}
	}
}
