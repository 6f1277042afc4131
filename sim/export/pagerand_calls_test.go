package export

import (
	"math/rand/v2"
	"testing"

	"github.com/fleetsim/fleetsim/sim"
)

// writeRandomCalls writes recs to path: half the time through the sink
// (1,024-row batches), else straight to the page writer in calls of random
// sizes (0 to 3,000 rows).
func writeRandomCalls(t *testing.T, path string, info FileInfo, recs []sim.Record, rng *rand.Rand) {
	t.Helper()
	if rng.IntN(2) == 0 {
		writeParquetInfo(t, path, info, recs)
		return
	}
	writeInCalls(t, path, info, recs, func() int { return rng.IntN(3001) })
}

// writeInCalls writes recs to path straight to the page writer, in calls
// of next() rows each (clipped to what is left), then closes and commits
// the file.
func writeInCalls(t *testing.T, path string, info FileInfo, recs []sim.Record, next func() int) {
	t.Helper()
	f, err := createAtomic(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := newRowWriter(f, info)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(recs); {
		n := min(next(), len(recs)-i)
		if err := w.write(recs[i : i+n]); err != nil {
			t.Fatal(err)
		}
		i += n
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
}
