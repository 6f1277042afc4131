package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/fleetsim/fleetsim/pools/capacity"
	"github.com/fleetsim/fleetsim/sim/capacitycheck"
)

// writeCapacityTable prints the capacity report for people.
func writeCapacityTable(w io.Writer, rep *capacityReport) error {
	p := rep.Profile
	units := p.Unit + "s" // plural: units, GSUs, PTUs
	fmt.Fprintf(w, "input:   %s: %d requests over %.1f s\n", rep.Input, rep.Requests, rep.SpanS)
	fmt.Fprintf(w, "profile: %s: τ = %g adjusted tokens/s per %s; weights in %g, cached %g, out %g, think %g",
		p.Name, p.Tau, p.Unit, p.Weights.Input, p.Weights.Cached, p.Weights.Output, p.Weights.Thinking)
	if l := p.Long; l != nil {
		fmt.Fprintf(w, "; long context above %d input tokens", l.Threshold)
	}
	fmt.Fprintf(w, "; increment %d, minimum %d\n", p.Increment, p.Minimum)
	fmt.Fprintf(w, "work:    %.4g adjusted tokens in all; mean %.2f %s over the span\n", rep.TotalWork, rep.MeanUnits, units)
	for _, plan := range rep.Throughput {
		fmt.Fprintf(w, "\nthroughput plan p%g (windows %s s, headroom %g", 100*plan.Percentile, joinFloats(rep.WindowsS), plan.Headroom)
		if plan.MaxOverloadProb != nil {
			fmt.Fprintf(w, ", max overload probability %g", *plan.MaxOverloadProb)
		}
		fmt.Fprintf(w, "): G = %d %s\n", plan.Units, units)
		fmt.Fprintf(w, "  worst window Δ = %g s needs %.3f at p%g → %d (increment/minimum) → %d with headroom",
			plan.WorstWindowS, plan.Required, 100*plan.Percentile, plan.Covered, plan.WithHeadroom)
		if plan.MaxOverloadProb != nil {
			fmt.Fprintf(w, " → %d for the overload target", plan.Units)
		}
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "  Δ s\twindows\tmean X\tp95 X\tp99 X\tmax X\tP(X>G)\tE[(X−G)+]\tE[(G−X)+]\tspare\t")
		for _, s := range plan.Windows {
			fmt.Fprintf(tw, "  %g\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.5f\t%.4f\t%.3f\t%.1f%%\t\n",
				s.WindowS, s.Buckets, s.MeanX, s.P95X, s.P99X, s.MaxX, s.Overload, s.Overflow, s.Spare, 100*s.SpareFraction)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if l := rep.Latency; l != nil {
		pl := l.Plan
		fmt.Fprintf(w, "\nlatency plan p%g %s <= %g s (fluid FCFS queue at G·τ): G = %d %s (smallest %d, headroom %g)\n",
			100*pl.Percentile, pl.Metric, pl.ThresholdS, pl.Units, units, pl.MinUnits, pl.Headroom)
		writeBaseline(w, "  baseline", l.Baseline)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "  G\tutilization\tqueued\tmean W s\tp99 W s\tp50 R s\tp95 R s\tp99 R s\t")
		rows := []capacity.LatencyStats{pl.AtMin, pl.At}
		if pl.At.Units == pl.AtMin.Units { // no headroom bought: one row
			rows = rows[:1]
		}
		for _, st := range rows {
			fmt.Fprintf(tw, "  %g\t%.3f\t%.1f%%\t%.4f\t%.4f\t%.3f\t%.3f\t%.3f\t\n",
				st.Units, st.Utilization, 100*st.QueuedShare, st.MeanQueueS, st.P99QueueS, st.P50S, st.P95S, st.P99S)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if s := rep.Simulation; s != nil {
		c := s.Calibration
		fmt.Fprintf(w, "\nsimulation check: %s instances (%s timing, max context %d, %d slots)\n", c.GPU, c.Timing, c.MaxCtx, c.Slots)
		fmt.Fprintf(w, "  one instance serves μ = %.0f adjusted tokens/s saturated (%d requests queued at t = 0) = %.3f %s\n",
			c.InstanceTokS, c.SaturationRequests, c.UnitsPerInstance, units)
		writeBaseline(w, "  baseline (NNLS on unloaded runs)", c.Baseline)
		fmt.Fprintf(w, "  fleets around the plan's %g %s; underestimate = (sim − fluid)/sim\n", s.PlanUnits, units)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		head := "  instances\tG units\tutilization\tfluid p95 s\tsim p95 s\tunder p95\tfluid p99 s\tsim p99 s\tunder p99\tsim p99 wait s\tload-fit p99 s\tunder\tref-fit p99 s\tunder\t"
		tg := s.Target
		if tg != nil {
			head += fmt.Sprintf("sim %s s\ttarget\t", targetName(tg))
		}
		fmt.Fprintln(tw, head)
		for _, pt := range s.Points {
			fmt.Fprintf(tw, "  %d\t%.2f\t%.3f\t%.3f\t%.3f\t%.1f%%\t%.3f\t%.3f\t%.1f%%\t%.3f\t%.3f\t%.1f%%\t%.3f\t%.1f%%\t",
				pt.Instances, pt.Units, pt.Utilization, pt.FluidP95S, pt.SimP95S, 100*pt.Under95,
				pt.FluidP99S, pt.SimP99S, 100*pt.Under99, pt.SimQueueP99S,
				pt.LoadFitP99S, 100*pt.LoadFitUnder99, pt.RefFitP99S, 100*pt.RefFitUnder99)
			if tg != nil && pt.MetTarget != nil {
				fmt.Fprintf(tw, "%.3f\t%s\t", pt.SimTargetS, map[bool]string{true: "met", false: "MISSED"}[*pt.MetTarget])
			}
			fmt.Fprintln(tw)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(w, "  load-fit: L_base fitted (NNLS) on that fleet's simulated latencies; ref-fit: on the %d-instance fleet's\n", s.RefInstances)
		if tg != nil {
			writePlanVerdict(w, s, tg)
		}
	}
	for _, path := range rep.Plots {
		fmt.Fprintf(w, "\nplot: %s", path)
	}
	if len(rep.Plots) > 0 {
		fmt.Fprintln(w)
	}
	return nil
}

// targetName is a latency target's percentile and metric: "p99 e2e".
func targetName(t *capacitycheck.Target) string {
	return fmt.Sprintf("p%g %s", 100*t.Percentile, t.Metric)
}

// writePlanVerdict states whether the latency plan holds in simulation on
// the smallest simulated fleet reaching its units.
func writePlanVerdict(w io.Writer, s *simulationReport, t *capacitycheck.Target) {
	pt := s.PlanFleet(s.PlanUnits)
	switch {
	case pt == nil || pt.MetTarget == nil:
		fmt.Fprintf(w, "  latency plan not checked: no simulated fleet reaches its %g units\n", s.PlanUnits)
	case *pt.MetTarget:
		fmt.Fprintf(w, "  latency plan met in simulation: %s = %.2f units (the smallest reaching the plan's %g) give %s %.3f s <= %g s\n",
			instancesName(pt.Instances), pt.Units, s.PlanUnits, targetName(t), pt.SimTargetS, t.ThresholdS)
	default:
		fmt.Fprintf(w, "  MISSED: the latency plan (%g units for %s <= %g s) does not hold in simulation: %s = %.2f units (the smallest reaching it) give %s %.3f s\n",
			s.PlanUnits, targetName(t), t.ThresholdS, instancesName(pt.Instances), pt.Units, targetName(t), pt.SimTargetS)
	}
}

func instancesName(n int) string {
	if n == 1 {
		return "1 instance"
	}
	return fmt.Sprintf("%d instances", n)
}

func writeBaseline(w io.Writer, label string, f capacity.Fit) {
	b := f.Baseline
	how := fmt.Sprintf("NNLS fit on %d observed latencies, rmse %.4f s", f.Observations, f.RMSES)
	if !f.Fitted {
		how = fmt.Sprintf("slosizer's defaults: %d observed latencies, %d needed to fit", f.Observations, capacity.MinFitObservations)
	}
	fmt.Fprintf(w, "%s: L_base = %.4g s + %.3g·I + %.3g·C + %.3g·O + %.3g·H (%s)\n",
		label, b.InterceptS, b.InputS, b.CachedS, b.OutputS, b.ThinkingS, how)
}

func joinFloats(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprintf("%g", x)
	}
	return strings.Join(s, ",")
}
