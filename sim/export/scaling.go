package export

import (
	"fmt"

	"github.com/fleetsim/fleetsim/sim"
)

// ScalingLines are the lines on an autoscaled run's cost and service, for
// people (none for a fixed fleet): GPU-hours, cost, scale events, the SLO
// attainment overall and in the worst hour, and when the fleet's P99 TTFT
// over 60 s windows was above the SLO and when it came back under it.
func ScalingLines(s *sim.Summary) []string {
	sc := s.Scaling
	if sc == nil {
		return nil
	}
	lines := []string{fmt.Sprintf("autoscaling (%s, every %g s): %.1f GPU-hours, $%.2f ($%.2f reserved + $%.2f on demand); %d instances started, %d drained or cancelled",
		sc.Policy, sc.IntervalS, sc.GPUHours, sc.CostUSD, sc.ReservedUSD, sc.OnDemandUSD, sc.ScaleUps, sc.ScaleDowns)}
	lines = append(lines, fmt.Sprintf("SLO attainment %.4f, worst hour %.4f (from %.0f s)", sc.SLOAttainment, sc.WorstHourSLOAttainment, sc.WorstHourStartS))
	w := sc.TTFTWindows
	if w.Above == 0 {
		lines = append(lines, fmt.Sprintf("P99 TTFT (%g s windows) never above the SLO %g s (worst window %.3g s)", w.WindowS, s.Config.SLO.TTFTS, w.WorstP99S))
	} else {
		lines = append(lines, fmt.Sprintf("P99 TTFT (%g s windows) above the SLO %g s in %d of %d windows, first from %.0f s; back under it from %.0f s (worst window %.3g s)",
			w.WindowS, s.Config.SLO.TTFTS, w.Above, w.Windows, w.FirstAboveS, w.LastAboveEndS, w.WorstP99S))
	}
	if sc.BShort > 0 {
		lines = append(lines, fmt.Sprintf("adaptive B_short at the end: %d tokens", sc.BShort))
	}
	return lines
}
