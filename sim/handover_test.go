package sim

import (
	"math"
	"sync"
	"testing"
	"time"

	"github.com/fleetsim/fleetsim/workload"
)

// TestSlackCoversTimeSlices: every buffer between the simulation and a
// helper goroutine holds at least slackRequests requests' worth (handover.go;
// a request makes three detector events: its start, first token and end).
// At the sizes before (4 × 1,024 entries, 3 × 4,096 requests) the 1M run's
// simulation waited ~70 and ~33 times.
func TestSlackCoversTimeSlices(t *testing.T) {
	for _, c := range []struct {
		name     string
		len, n   int
		perEvent int
	}{
		{"record entries", recBatchLen, recBatches, 1},
		{"requests read ahead", readAheadBatch, readAheadBatches, 1},
		{"detector events", osdBatchLen, osdBatches, 3},
	} {
		if got := c.len * c.n / c.perEvent; got < slackRequests {
			t.Errorf("%s: %d × %d hold %d requests, want >= %d", c.name, c.n, c.len, got, slackRequests)
		}
	}
	// The slack is more than one batch: the helper works on one while
	// the simulation fills another.
	if recBatches < 2 || readAheadBatches < 2 || osdBatches < 2 {
		t.Errorf("batches %d, %d, %d: want >= 2 each", recBatches, readAheadBatches, osdBatches)
	}
}

// TestRecWriterMakesBatchesAsNeeded: the writer makes a batch only when none
// is free, so a run that the writer keeps up with makes few, and none beyond
// recBatches however far behind it falls; waits counts the hand-overs at
// which the simulation had to wait.
func TestRecWriterMakesBatchesAsNeeded(t *testing.T) {
	// The sink holds the writer at its first record until release is
	// closed, so what the writer has returned at each hand-over is known,
	// not left to the scheduler. (Waiting for a batch back after a
	// hand-over that made a new one hung when the writer had returned the
	// first before the hand-over looked: it took it, made none and left
	// none to come back.)
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	// Should a hand-over wait for the writer, it is let go on in 2 s.
	defer time.AfterFunc(2*time.Second, free).Stop()
	w := newRecWriter(&recSide{fm: &acc{}, sink: blockedSink(release)})
	if w.made != 1 {
		t.Fatalf("a new writer made %d batches, want 1", w.made)
	}
	put := func(n int) {
		for range n {
			r := w.rejRecord()
			e := w.next()
			e.kind, e.rej = entReject, r
			if !w.put() {
				t.Fatal("put failed")
			}
		}
	}
	// Hand over one batch: the writer holds it, so a second is made.
	put(recBatchLen)
	if w.made != 2 || w.waits != 0 {
		t.Fatalf("one batch handed over, held by the writer: made %d, waits %d; want 2, 0", w.made, w.waits)
	}
	// Let the writer return it (taken and put back: free holds every
	// batch); the next hand-over reuses it.
	free()
	w.free <- <-w.free
	put(recBatchLen)
	if w.made != 2 || w.waits != 0 {
		t.Fatalf("after two batches, one returned: made %d, waits %d; want 2, 0", w.made, w.waits)
	}
	w.stop()
	if err := w.result(); err != nil {
		t.Fatal(err)
	}

	// A writer that cannot keep up (its sink blocked) makes recBatches, no
	// more, and the simulation then waits for one back.
	blocked := make(chan struct{})
	w = newRecWriter(&recSide{fm: &acc{}, sink: blockedSink(blocked)})
	put((recBatches - 1) * recBatchLen)
	if w.made != recBatches || w.waits != 0 {
		t.Errorf("%d batches handed over to a blocked writer: made %d, waits %d; want %d, 0",
			recBatches-1, w.made, w.waits, recBatches)
	}
	// The next hand-over finds no batch free and none to make: it waits
	// until the sink is released (2 s on, far longer than the hand-over).
	time.AfterFunc(2*time.Second, func() { close(blocked) })
	put(recBatchLen)
	if w.made != recBatches || w.waits != 1 {
		t.Errorf("one more: made %d, waits %d; want %d, 1", w.made, w.waits, recBatches)
	}
	w.stop()
	if err := w.result(); err != nil {
		t.Fatal(err)
	}
}

// blockedSink is a Sink whose writes wait until release is closed.
type blockedSink chan struct{}

func (s blockedSink) Write(*Record) error {
	<-s
	return nil
}

// TestReadAheadCountsWaits: waits counts the batches the run wanted before
// the producer had filled them, and only those.
func TestReadAheadCountsWaits(t *testing.T) {
	const n = readAheadBatches * readAheadBatch
	gate := make(chan struct{})
	src := &gatedSource{failingSource: newFailing(n+1, -1, false), gateAt: n, gate: gate}
	ra := newReadAhead(src)
	defer ra.stop()
	// Every batch filled before the run reads: no waits.
	for len(ra.full) < readAheadBatches {
		time.Sleep(time.Millisecond)
	}
	var r workload.Request
	for i := range n {
		if !ra.Next(&r) {
			t.Fatalf("the read-ahead ended at request %d of %d", i, n+1)
		}
	}
	if ra.waits != 0 {
		t.Errorf("%d batches read, each filled beforehand: waits %d, want 0", readAheadBatches, ra.waits)
	}
	// The producer is held in the source at the next request: the run
	// waits for it (let go on in 500 ms, far longer than the hand-over).
	time.AfterFunc(500*time.Millisecond, func() { close(gate) })
	if !ra.Next(&r) {
		t.Fatalf("the read-ahead ended at request %d of %d", n, n+1)
	}
	if ra.waits != 1 {
		t.Errorf("one batch not filled when wanted: waits %d, want 1", ra.waits)
	}
}

// gatedSource is a failingSource whose request gateAt waits until gate is
// closed.
type gatedSource struct {
	*failingSource
	gateAt int
	gate   chan struct{}
}

func (s *gatedSource) Next(r *workload.Request) bool {
	if s.i == s.gateAt {
		<-s.gate
	}
	return s.failingSource.Next(r)
}

// TestReadAheadShortRunBatches: a run reads ahead in no more batches than
// its requests fill (8,192 requests: 2 of 4,096, not readAheadBatches'
// 2 MiB), and still yields every request and its end. The batches counted
// are those in circulation once the run has read to the end (the run holds
// the last, free the others), not only ra.made. A source's Len is only its
// word: one that yields more or fewer requests loses none and gains none,
// and one whose Len is near math.MaxInt64 (review of 80dd827: Len + 4,095
// overflowed, no batch was made and the run's first Next waited forever)
// reads ahead in readAheadBatches.
func TestReadAheadShortRunBatches(t *testing.T) {
	b := readAheadBatch
	for _, c := range []struct {
		len     int64
		n, made int
	}{
		{readAheadMin, readAheadMin, 2},
		{readAheadMin + 1, readAheadMin + 1, 3},
		{int64(3*b + 123), 3*b + 123, 4},
		{readAheadBatches * int64(b), readAheadBatches * b, readAheadBatches},
		{100 * int64(b), 100 * b, readAheadBatches},
		{readAheadMin, 10*b + 5, 2},
		{9 * int64(b), 5, readAheadBatches},
		{math.MaxInt64, 3*b + 7, readAheadBatches},
		{math.MaxInt64 - int64(b) + 2, 3*b + 7, readAheadBatches},
	} {
		ra := newReadAhead(&sizedAs{newFailing(c.n, -1, false), c.len})
		if ra.made != c.made {
			t.Fatalf("Len %d: %d batches, want %d", c.len, ra.made, c.made)
		}
		var r workload.Request
		got := 0
		for ra.Next(&r) {
			if r.ID != int64(got) {
				t.Fatalf("Len %d: request %d has ID %d", c.len, got, r.ID)
			}
			got++
		}
		ra.stop()
		if got != c.n || ra.Err() != nil {
			t.Errorf("Len %d: read %d of %d, error %v", c.len, got, c.n, ra.Err())
		}
		if n := len(ra.free) + 1; n != c.made {
			t.Errorf("Len %d: %d batches in circulation, want %d", c.len, n, c.made)
		}
	}
}

// sizedAs is a failingSource whose Len says len, whatever it yields.
type sizedAs struct {
	*failingSource
	len int64
}

func (s *sizedAs) Len() int64 { return s.len }
