package cputime

import (
	"runtime"
	"testing"
)

// TestClocksAdvance: burning a few milliseconds of CPU moves both clocks
// forward (where they are measured at all).
func TestClocksAdvance(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p0 := Process()
	t0, ok := Thread()
	x := 0.0
	for i := range 20_000_000 {
		x += float64(i % 7)
	}
	if x < 0 {
		t.Log(x)
	}
	if p0 > 0 && !(Process() > p0) {
		t.Errorf("process CPU time did not advance from %v", p0)
	}
	if t1, ok1 := Thread(); ok && ok1 && !(t1 > t0) {
		t.Errorf("thread CPU time did not advance from %v to %v", t0, t1)
	}
}
