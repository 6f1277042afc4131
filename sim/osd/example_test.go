package osd_test

import (
	"fmt"

	"github.com/fleetsim/fleetsim/sim/osd"
)

// A server that starts 10 requests a second but finishes fewer: requests
// pile up (one more in flight every 0.5 s) and each waits longer for its
// first token. The detector, fed in simulated time, fires once the run is
// minimum_duration (30 s) old.
func Example() {
	d := osd.New(osd.DefaultConfig(), 0) // clock origin: t = 0 s
	for i := range 600 {                 // 60 s of arrivals, 10 per second
		t := float64(i) / 10
		d.Start(t)               // one more request in flight
		d.FirstToken(t, 2+0.2*t) // its TTFT (s), observed at t for brevity
		if i%2 == 0 {
			d.End(t) // only every other request leaves
		}
	}
	fired, at := d.Fired()
	st := d.State()
	fmt.Printf("fired %v at t = %.1f s; concurrency slope %.2f req/s, TTFT slope %.2f s/s\n",
		fired, at, st.ConcurrencySlope, st.TTFTSlope)
	// Output:
	// fired true at t = 30.0 s; concurrency slope 5.00 req/s, TTFT slope 0.20 s/s
}
