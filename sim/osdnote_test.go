package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/fleetsim/fleetsim/sim/osd"
)

// TestOSDNoteSameAsBatchRead: osdAsyncStart decides a merge from the feed's
// note (mergeN, mergeKind, mergeT), where it used to read the batch's last
// event back. Random streams of flushes, starts of the fleet and of pools
// (at the flush's time or not), first tokens, early handovers and batches
// that fill up (several times osdBatchLen events, so flushes and starts
// land on every side of a handover; batches of one to three events, so a
// note kept past a handover would match) must hand the worker the batches
// the old rule gives, event for event.
func TestOSDNoteSameAsBatchRead(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 42))
	for trial := range 6 {
		var got, want [][]osdEv
		osdTap = func(b []osdEv) { got = append(got, append([]osdEv(nil), b...)) }
		f := &fleet{osd: &osdFeed{pools: make([]*osd.Detector, 2), started: true}}
		o := f.osd
		o.w = newOSDWorker(osd.DefaultConfig(), 2)
		o.evs = o.w.cur.evs
		// The reference: the old rule on batches of its own.
		var cur []osdEv
		add := func(e osdEv) {
			cur = append(cur, e)
			if len(cur) == osdBatchLen {
				want, cur = append(want, cur), nil
			}
		}
		start := func(tm float64, det int32) {
			w := evFlush
			if det >= 0 {
				w = evFlushStart
			}
			if n := len(cur); n > 0 && cur[n-1].kind == w && cur[n-1].t == tm {
				cur[n-1].kind++
				cur[n-1].det = det
				return
			}
			add(osdEv{kind: evStart, t: tm, det: det})
		}
		f.osdAsyncAdd(osdEv{kind: evOrigin, t: 0})
		add(osdEv{kind: evOrigin, t: 0})
		tm := 0.0
		for range 3*osdBatchLen + r.IntN(osdBatchLen) {
			if r.IntN(3) > 0 {
				tm += float64(r.IntN(3)) // often the same time
			}
			switch k := r.IntN(10); {
			case k < 3:
				f.osdFlush(tm)
				add(osdEv{kind: evFlush, t: tm})
			case k < 5:
				f.osdAsyncStart(tm, -1)
				start(tm, -1)
			case k < 8:
				det := int32(r.IntN(2))
				f.osdAsyncStart(tm, det)
				start(tm, det)
			case k < 9:
				e := tokenEv(0, 0, r.IntN(2))
				e.t = tm // an odd token time for the worker, which only must not fail
				f.osdAsyncAdd(e)
				add(e)
			default:
				// a handover before the batch is full, often of a few
				// events (a note left from it could match the next batch's)
				if n := len(o.evs); n > 0 && (n < 4 || r.IntN(20) == 0) {
					f.osdSend()
					want, cur = append(want, cur), nil
				}
			}
		}
		f.osdJoin()
		if len(cur) > 0 {
			want = append(want, cur)
		}
		osdTap = nil
		merged := 0
		for _, b := range got {
			for _, e := range b {
				if e.kind == evArrive || e.kind == evFlushStart {
					merged++
				}
			}
		}
		if merged < 1000 {
			t.Fatalf("trial %d: %d merged events: the streams do not reach the merge", trial, merged)
		}
		if len(got) != len(want) {
			t.Fatalf("trial %d: %d batches, want %d", trial, len(got), len(want))
		}
		for i := range want {
			if len(got[i]) != len(want[i]) {
				t.Fatalf("trial %d batch %d: %d events, want %d", trial, i, len(got[i]), len(want[i]))
			}
			for j := range want[i] {
				if got[i][j] != want[i][j] {
					t.Fatalf("trial %d batch %d event %d: %+v, want %+v", trial, i, j, got[i][j], want[i][j])
				}
			}
		}
	}
}
