package sweep

import (
	"cmp"
	"math"
	"slices"

	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/sim/osd"
)

// ReplayDetector runs guidellm's over-saturation detector (package osd,
// default configuration unless Config is set) on a run's per-request
// records: it keeps each request's arrival (the start, as a benchmark
// client sees it), first token and end, then feeds them to one detector per
// pool and one for the fleet in time order (ties: starts, then first tokens,
// then ends, each by request id). It cannot stop a run early; memory grows
// by 48 bytes per request. Rejected requests start and end at their arrival.
type ReplayDetector struct {
	Config *osd.Config // nil: osd.DefaultConfig()
}

// event kinds in tie order.
const (
	evStart = iota
	evFirst
	evEnd
)

type event struct {
	t, ttft float64
	id      int64
	kind    int32
	pool    int32
}

// replaySink records the events of the records passing to next.
type replaySink struct {
	next   sim.Sink
	pools  map[string]int32
	events []event
}

func (s *replaySink) Write(r *sim.Record) error {
	p, ok := s.pools[r.Pool]
	if !ok {
		p = -1 // no pool (rejected before routing): fleet only
	}
	s.events = append(s.events, event{t: r.ArrivalS, id: r.ID, kind: evStart, pool: p})
	if !math.IsNaN(r.FirstTokenS) && !math.IsNaN(r.TTFTS) {
		s.events = append(s.events, event{t: r.FirstTokenS, ttft: r.TTFTS, id: r.ID, kind: evFirst, pool: p})
	}
	end := r.FinishS
	if math.IsNaN(end) {
		end = r.ArrivalS
	}
	s.events = append(s.events, event{t: end, id: r.ID, kind: evEnd, pool: p})
	if s.next != nil {
		return s.next.Write(r)
	}
	return nil
}

// Begin wraps the sink to record the events.
func (d ReplayDetector) Begin(cfg *sim.Config, _ *sim.Options, sink sim.Sink, _ bool) (sim.Sink, VerdictFunc) {
	c := osd.DefaultConfig()
	if d.Config != nil {
		c = *d.Config
	}
	rs := &replaySink{next: sink, pools: map[string]int32{}}
	for i, p := range cfg.Pools {
		rs.pools[p.Name] = int32(i)
	}
	n := len(cfg.Pools)
	return rs, func(*sim.Summary) (Verdict, []Verdict) {
		ev := rs.events
		slices.SortFunc(ev, func(a, b event) int {
			if c := cmp.Compare(a.t, b.t); c != 0 {
				return c
			}
			if c := cmp.Compare(a.kind, b.kind); c != 0 {
				return c
			}
			return cmp.Compare(a.id, b.id)
		})
		fleet := osd.New(c, 0)
		pools := make([]*osd.Detector, n)
		for i := range pools {
			pools[i] = osd.New(c, 0)
		}
		feed := func(d *osd.Detector, e *event) {
			switch e.kind {
			case evStart:
				d.Start(e.t)
			case evFirst:
				d.FirstToken(e.t, e.ttft)
			default:
				d.End(e.t)
			}
		}
		for i := range ev {
			feed(fleet, &ev[i])
			if p := ev[i].pool; p >= 0 {
				feed(pools[p], &ev[i])
			}
		}
		rs.events = nil
		verdict := func(d *osd.Detector) Verdict {
			f, at := d.Fired()
			if !f {
				at = math.NaN()
			}
			return Verdict{Fired: f, AtS: at}
		}
		out := make([]Verdict, n)
		for i, d := range pools {
			out[i] = verdict(d)
		}
		return verdict(fleet), out
	}
}
