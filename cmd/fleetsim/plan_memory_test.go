package main

import (
	"strings"
	"syscall"
	"testing"
)

// Issue 20 item 2: the occupancy model at 10⁹ req/s allocated 34 GB and
// died with Go's out-of-memory trace. Now its chains are windows
// (pools/queueing.SolveChain) and the run's peak RSS stays under 256 MiB
// (what needs a wider window is refused: TestChainWindowMatchesExact).
func TestPlanOccupancyHugeRateBoundedMemory(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"plan", "--service-model", "occupancy", "--rate", "1e9", "--method", "pr", "--b-short", "4096", "--format", "json"}, 0, ""},
	} {
		cmd, errb := startCLI(t, tt.args...)
		code := waitExit(t, cmd)
		rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
		msg := strings.TrimSpace(errb.String())
		if code != tt.code || !strings.Contains(msg, tt.want) || strings.Count(msg, "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit %d with one line containing %q", tt.args, code, msg, tt.code, tt.want)
		}
		if rss > 256<<10 {
			t.Errorf("%v: peak RSS %d KiB > 256 MiB", tt.args, rss)
		}
	}
}
