package export

import (
	"fmt"
	"strings"

	"github.com/fleetsim/fleetsim/sim"
)

// OSDVerdictLine is one line on the over-saturation detectors of a run, for
// people: "" when they were off; otherwise who fired and when (simulated
// seconds), or that none did, and, when an enforce-mode detector stopped the
// run, where and with how many requests still in flight.
func OSDVerdictLine(s *sim.Summary) string {
	if s.Fleet.OSD.Mode == "" {
		return ""
	}
	if st := s.OSDStop; st != nil {
		line := fmt.Sprintf("STOPPED: over-saturation detected in %s at %.2f s (guidellm OSD, --osd enforce); the run ended at %.2f s after %d arrivals; the requests still in flight have no record",
			st.By, st.DetectedAtS, st.StoppedAtS, s.Requests)
		if s.WarmupRequests >= s.Requests {
			line += fmt.Sprintf("; every arrival was warm-up (--warmup %g), so the metrics above are empty", s.Config.WarmupFraction)
		}
		return line
	}
	var fired []string
	for _, m := range append(append([]sim.PoolMetrics(nil), s.Pools...), s.Fleet) {
		if m.OSD.Fired {
			fired = append(fired, fmt.Sprintf("%s at %.1f s", m.Name, *m.OSD.FiredAtS))
		}
	}
	if len(fired) == 0 {
		return fmt.Sprintf("over-saturation (guidellm OSD, %s): not detected", s.Fleet.OSD.Mode)
	}
	return fmt.Sprintf("over-saturation (guidellm OSD, %s): detected in %s", s.Fleet.OSD.Mode, strings.Join(fired, "; "))
}
