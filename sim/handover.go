package sim

// The simulation's slack. Up to three goroutines feed the simulation's or
// are fed by it: the workload read ahead (readahead.go), the record side
// (recwriter.go) and the detectors' worker (osdasync.go); with Parquet
// output, the file's encoder (sim/export) runs beside them. On a machine
// with two CPUs the simulation holds one and the others share the second.
// Go's scheduler gives a runnable goroutine a CPU when the goroutine there
// blocks or has run for its time slice (10 ms), and the encoder, which lags
// behind by design, does not block while it has pages to compress. So a
// helper can wait 10–20 ms for a CPU, and the buffers between it and the
// simulation must hold more than that, or the simulation waits: its thread
// sleeps and is woken, and the helper is stolen by the other CPU's thread.
// With 4 × 1,024 record entries (~4 ms of the 1M run) and 3 × 4,096
// requests (~12 ms), the simulation of the 1M run with Parquet waited 64–80
// times for record batches and 3–5 for requests; with only the record
// buffer enlarged, ~33 times for requests, and then 8–12 for detector
// batches (4 × 16,384 events): each buffer in turn. Each wait parks the
// simulation's thread and wakes it again (the run made ~1,800–2,500
// context switches, now ~1,350–1,650), and the runs took 1–4% more CPU
// (BENCHMARKS.md, "Sixth session"). slackRequests is the rule each buffer
// keeps (TestSlackCoversTimeSlices).

// slackRequests is the least number of requests each buffer between the
// simulation and a helper goroutine holds: 25 ms at 1.3 million requests
// per second (the 1M run, at its fastest).
const slackRequests = 32768

// handoverWaits counts the times a run's simulation goroutine waited for a
// helper goroutine: for a record batch back (recWriter), for requests read
// ahead (readAhead) and for a detector batch back (the worker).
type handoverWaits struct {
	records, requests, detectors int
}

// handoverTap, when set (benchmarks), is given each run's waits when it
// ends.
var handoverTap func(handoverWaits)

// tapHandovers gives the run's waits to handoverTap.
func (f *fleet) tapHandovers() {
	var w handoverWaits
	if f.rw != nil {
		w.records = f.rw.waits
	}
	if f.ra != nil {
		w.requests = f.ra.waits
	}
	if f.osd != nil {
		w.detectors = f.osd.waits
	}
	handoverTap(w)
}
