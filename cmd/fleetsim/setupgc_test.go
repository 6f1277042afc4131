package main

import (
	"runtime/debug"
	"testing"
)

// TestSetUpGCRestores: setUpGC turns the collector off and its restore
// puts back the previous setting (here 73, as GOGC=73 would), once however
// often it is called.
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
	if p := debug.SetGCPercent(orig); p != 73 {
		t.Errorf("after restore GC percent %d, want 73", p)
	}
}
