package sim

import (
	"errors"
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// endFlag wraps a source and raises ended once it has yielded its last
// request.
type endFlag struct {
	workload.Source
	ended bool
}

func (s *endFlag) Next(r *workload.Request) bool {
	ok := s.Source.Next(r)
	s.ended = s.ended || !ok
	return ok
}

// afterSink counts the records written once the source has ended, and
// asks to stop (stop) after the first 100 of them: well into the drain.
type afterSink struct {
	src   *endFlag
	after int
	stop  bool
	late  int // records written after stop was raised
}

func (s *afterSink) Write(*Record) error {
	if s.stop {
		s.late++
	}
	if s.src.ended {
		s.after++
		s.stop = s.stop || s.after == 100
	}
	return nil
}

// TestStopWhileDraining is issue 20 item 1: Options.Stop is honoured after
// the last arrival, while an overloaded pool drains. One a10g instance at
// max context 2048 serves about 14.5 req/s (TestOverloadDetector); 30,000
// arrivals at 1,000 req/s leave ~29,000 requests queued at the last arrival,
// whose drain emits ~29,000 records. Asked to stop at the 100th record after
// the last arrival (the last tick is long past), the run must end with
// ErrStopped within a few polls (every 4,096 events or records). Before the
// fix Stop was polled only at arrivals and ticks: the run drained every
// request and returned no error.
func TestStopWhileDraining(t *testing.T) {
	const n = 30000
	for _, mode := range []string{"central", "rr"} {
		cfg := fleetCfg(n, 0.1, PoolConfig{Name: "p", GPU: "a10g", Count: 2, MaxContext: 2048, Dispatch: mode})
		cfg.Workload.Rate = 1000
		src := &endFlag{Source: newPoisson(n, 1000, 50, 2000, 3)}
		sink := &afterSink{src: src}
		polls := 0
		stop := func() bool { polls++; return sink.stop }
		_, err := Run(cfg, src, sink, Options{Stop: stop})
		if !errors.Is(err, ErrStopped) {
			t.Errorf("%s: Run returned %v after a stop asked in the drain; want ErrStopped", mode, err)
		}
		if sink.late > 8192 {
			t.Errorf("%s: %d records written after the stop was asked; want at most 8192", mode, sink.late)
		}
		t.Logf("%s: %d polls, %d records after the last arrival, %d after the stop", mode, polls, sink.after, sink.late)
	}
}
