package sim

import (
	"errors"

	"github.com/fleetsim/fleetsim/workload"
)

// Options tune a run without changing its results.
type Options struct {
	// Progress, when set, is called now and then with the number of
	// requests that have arrived so far.
	Progress func(arrived int64)
}

// Run simulates cfg's fleet on the requests of src, writing one Record per
// request to sink (which may be nil) in completion order, and returns the
// run's summary. cfg must be valid (Config.Validate).
//
// CONTRACT stub: implemented by the simulator work.
func Run(cfg Config, src workload.Source, sink Sink, opts Options) (*Summary, error) {
	return nil, errors.New("sim: not implemented")
}
