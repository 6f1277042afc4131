package sim

import (
	"testing"

	"github.com/fleetsim/fleetsim/sim/osd"
)

// TestOSDMergeNotAcrossHandover: osdAsyncStart merges a start into the last
// event from the feed's note of it (mergeN), not from the batch; a note
// left over from a batch handed over must not match an unrelated event of
// the next batch that sits at the same index, with the flush's time. Here a
// flush at t = 1 is the second event of a batch handed over early (as a
// time-series sample does), the next batch gets two first tokens, and the
// fleet's start at t = 1 must come as a start of its own (with the note
// kept past the handover it turned the second token into a flush and
// start).
func TestOSDMergeNotAcrossHandover(t *testing.T) {
	var got [][]osdEv
	osdTap = func(b []osdEv) { got = append(got, append([]osdEv(nil), b...)) }
	defer func() { osdTap = nil }()
	f := &fleet{osd: &osdFeed{pools: make([]*osd.Detector, 1), started: true}}
	o := f.osd
	o.w = newOSDWorker(osd.DefaultConfig(), 1)
	o.evs = o.w.cur.evs
	f.osdAsyncAdd(osdEv{kind: evOrigin, t: 0})
	f.osdFlush(1)
	f.osdSend()
	f.osdAsyncAdd(tokenEv(0.5e12, 0.2e12, 0))
	f.osdAsyncAdd(tokenEv(1e12, 0.3e12, 0))
	f.osdAsyncStart(1, -1)
	f.osdAsyncStart(1, 0) // a pool's start after a start of its own: no merge either
	f.osdJoin()
	if len(got) != 2 {
		t.Fatalf("%d batches handed over, want 2", len(got))
	}
	want := []uint8{evToken, evToken, evStart, evStart}
	b := got[1]
	if len(b) != len(want) {
		t.Fatalf("second batch %+v, want kinds %v", b, want)
	}
	for i, k := range want {
		if b[i].kind != k {
			t.Fatalf("second batch %+v, want kinds %v", b, want)
		}
	}
	if b[2].det != -1 || b[2].t != 1 || b[3].det != 0 || b[3].t != 1 {
		t.Fatalf("starts %+v %+v, want the fleet's then pool 0's at t = 1", b[2], b[3])
	}
	// The merge itself still happens within a batch.
	got = nil
	f = &fleet{osd: &osdFeed{pools: make([]*osd.Detector, 1), started: true}}
	o = f.osd
	o.w = newOSDWorker(osd.DefaultConfig(), 1)
	o.evs = o.w.cur.evs
	f.osdAsyncAdd(osdEv{kind: evOrigin, t: 0})
	f.osdFlush(1)
	f.osdAsyncStart(1, -1)
	f.osdAsyncStart(1, 0)
	f.osdJoin()
	if len(got) != 1 || len(got[0]) != 2 || got[0][1].kind != evArrive || got[0][1].det != 0 {
		t.Fatalf("batches %+v, want the origin and one evArrive for pool 0", got)
	}
}
