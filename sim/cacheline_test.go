package sim

import (
	"reflect"
	"testing"
)

// TestGoroutinesWriteApart: the fields one goroutine writes on every
// request lie at least cacheLinePad's 128 bytes from those another writes
// (two 64-byte lines, as the adjacent-line prefetcher fetches them), so
// that neither core has to take the line back from the other (false
// sharing). Before the padding, a pool's and the fleet's acc held arrived
// (the simulation goroutine, every arrival) on the same line as completed,
// preemptions, sloMet and servedWin (the record side's goroutine, every
// completion): the 1M benchmark run took 5–7% more CPU (BENCHMARKS.md,
// "false sharing"). The test fails when a field moves across a pad, a
// pad is dropped, or a field is added to acc or osdWorker without being
// named in a group (placed by position only, it could sit with the other
// goroutine's fields unseen), or a field of fleet is added beside rs.
func TestGoroutinesWriteApart(t *testing.T) {
	const apart = uintptr(len(cacheLinePad{}))
	type span struct{ lo, hi uintptr } // [lo, hi): a group's bytes
	group := func(typ reflect.Type, names ...string) span {
		s := span{^uintptr(0), 0}
		for _, n := range names {
			f, ok := typ.FieldByName(n)
			if !ok {
				t.Fatalf("%s has no field %s", typ, n)
			}
			s.lo = min(s.lo, f.Offset)
			s.hi = max(s.hi, f.Offset+f.Type.Size())
		}
		return s
	}
	check := func(what string, a, b span) {
		t.Helper()
		if gap := b.lo - a.hi; b.lo < a.hi || gap < apart {
			t.Errorf("%s: [%d, %d) and [%d, %d) are %d bytes apart, want >= %d", what, a.lo, a.hi, b.lo, b.hi, int(b.lo)-int(a.hi), apart)
		}
	}

	// every: each field of typ but the pads is in one of the groups, so a
	// field added later has to be placed on a side (a field added where its
	// writer's group is not would otherwise pass unseen).
	every := func(typ reflect.Type, groups ...[]string) {
		t.Helper()
		named := map[string]bool{"_": true}
		for _, g := range groups {
			for _, n := range g {
				named[n] = true
			}
		}
		for i := range typ.NumField() {
			if n := typ.Field(i).Name; !named[n] {
				t.Errorf("%s.%s: in no group: name the goroutine that writes it (and place it with that goroutine's fields)", typ, n)
			}
		}
	}

	at := reflect.TypeOf(acc{})
	simNames := []string{"arrived", "rejected", "capRejected", "backlog", "trend"}
	recNames := []string{"completed", "preemptions", "sloMet", "servedWin", "ttft", "tpot", "e2e", "wait", "busyWin", "cached", "prompt"}
	every(at, simNames, recNames)
	simSide, recSide := group(at, simNames...), group(at, recNames...)
	check("acc: simulation's counts, then the record side's", simSide, recSide)
	// acc is embedded in pool and fleet after fields the simulation writes:
	// its own pads keep the record side's group clear of them.
	check("acc: the struct's start, then the record side's", span{0, 0}, recSide)
	check("acc: the record side's, then the struct's end", recSide, span{at.Size(), at.Size()})
	check("acc: the struct's start, then the simulation's", span{0, 0}, simSide)

	// Every other field of fleet (the simulation's) lies 128 bytes from rs,
	// wherever it is added.
	ft := reflect.TypeOf(fleet{})
	rs := group(ft, "rs")
	for i := range ft.NumField() {
		f := ft.Field(i)
		if f.Name == "_" || f.Name == "rs" {
			continue
		}
		if g := group(ft, f.Name); g.hi <= rs.lo {
			check("fleet: "+f.Name+", then rs", g, rs)
		} else {
			check("fleet: rs, then "+f.Name, rs, g)
		}
	}

	wt := reflect.TypeOf(osdWorker{})
	fleetHalf := []string{"work", "free", "done", "cur", "made", "sent", "back", "pending", "spare"}
	workerHalf := []string{"params", "pools", "fleet", "first", "lastT", "backwards"}
	every(wt, fleetHalf, workerHalf)
	check("osdWorker: the fleet's half, then the worker's", group(wt, fleetHalf...), group(wt, workerHalf...))
	check("osdWorker: the worker's half, then the struct's end", group(wt, workerHalf...), span{wt.Size(), wt.Size()})
}
