package main

import (
	"runtime/debug"
	"testing"
)

// TestSetUpGCRestores: setUpGC turns the collector off and its restore
// puts back the previous setting (here 73, as GOGC=73 would), once however
// often it is called, and after the last of overlapping set-ups.
func TestSetUpGCRestores(t *testing.T) {
	orig := debug.SetGCPercent(73)
	defer debug.SetGCPercent(orig)
	restore := setUpGC()
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Errorf("during the set-up GC percent %d, want -1 (off)", p)
	}
	restore()
	debug.SetGCPercent(50) // a later change that a second restore must not undo
	restore()
	if p := debug.SetGCPercent(73); p != 50 {
		t.Errorf("after a second restore GC percent %d, want 50 (left alone)", p)
	}
	restore = setUpGC()
	restore()
	if p := debug.SetGCPercent(73); p != 73 {
		t.Errorf("after restore GC percent %d, want 73", p)
	}
	// Overlapping set-ups: off until the last ends, then 73 again (a
	// second set-up must not save the first one's "off").
	r1, r2 := setUpGC(), setUpGC()
	r1()
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Errorf("with one set-up still under way GC percent %d, want -1", p)
	}
	r2()
	if p := debug.SetGCPercent(orig); p != 73 {
		t.Errorf("after both set-ups GC percent %d, want 73", p)
	}
}
