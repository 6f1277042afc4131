package export

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/sim"
)

// randStream is a random record stream's shape: how often each kind of
// value appears. Each seed draws its own shape, so some streams are all
// NULLs, some have no NULL, some unique strings in every row.
type randStream struct {
	rng      *rand.Rand
	special  float64  // chance a time is a special value
	reject   float64  // chance a run of rows is rejected (all times NULL)
	zero     float64  // chance queue_wait_s / tpot_s is exactly 0
	unique   float64  // chance a string is new (unique to the row)
	long     float64  // chance a new string is long (1 KiB..300 KiB)
	longLeft int      // bytes of long strings left (16 MiB a stream)
	intExtr  float64  // chance an int is an extreme
	boolMode int      // 0 random, 1 all false, 2 all true, 3 runs
	strs     []string // the stream's common strings
}

var randSpecials = []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1),
	math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64,
	math.Float64frombits(0x7ff8000000000001), 1, -1, 1e-300, 1e300}

var randInts = []int32{0, -1, 1, math.MinInt32, math.MaxInt32, math.MinInt32 + 1, math.MaxInt32 - 1}

func newRandStream(seed uint64) *randStream {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	p := func() float64 {
		switch rng.IntN(4) {
		case 0:
			return 0
		case 1:
			return 1
		default:
			return rng.Float64() * rng.Float64()
		}
	}
	s := &randStream{rng: rng, special: p() * 0.3, reject: p() * 0.5, zero: p(), unique: p() * p(),
		long: p() * 0.02, longLeft: 16 << 20, intExtr: p() * 0.2, boolMode: rng.IntN(4)}
	base := []string{"", "short", "long", "\xff", "\xff\xfe\x00", strings.Repeat("\xff", 40),
		strings.Repeat("日本語", 10), "zz" + strings.Repeat("a", 30), "a", "A", "\x00", "b", "c",
		"queue_full", "too long", strings.Repeat("z", 17), strings.Repeat("z", 16)}
	for range 1 + rng.IntN(len(base)) {
		s.strs = append(s.strs, base[rng.IntN(len(base))])
	}
	return s
}

// time draws a time: usually finite, a special value with chance special.
func (s *randStream) time(x float64) float64 {
	if s.rng.Float64() < s.special {
		return randSpecials[s.rng.IntN(len(randSpecials))]
	}
	return x
}

func (s *randStream) str(row int) string {
	if s.rng.Float64() < s.unique {
		if s.rng.Float64() < s.long && s.longLeft > 0 {
			n := 1<<10 + s.rng.IntN(300<<10)
			s.longLeft -= n
			return fmt.Sprintf("%d:%s", row, strings.Repeat(string(rune('a'+s.rng.IntN(26))), n))
		}
		return fmt.Sprintf("%d-%x", row, s.rng.Uint64()>>s.rng.IntN(64))
	}
	return s.strs[s.rng.IntN(len(s.strs))]
}

func (s *randStream) int32() int32 {
	if s.rng.Float64() < s.intExtr {
		return randInts[s.rng.IntN(len(randInts))]
	}
	return int32(s.rng.IntN(5000))
}

func (s *randStream) bool(row int) bool {
	switch s.boolMode {
	case 1:
		return false
	case 2:
		return true
	case 3:
		return row/(1+row%1000)%2 == 0
	}
	return s.rng.IntN(2) == 0
}

// records draws n records. Rejections come in runs (1..200 rows), as
// on an overloaded pool, with every time NULL.
func (s *randStream) records(n int) []sim.Record {
	recs := make([]sim.Record, n)
	rejectLeft := 0
	for i := range recs {
		if rejectLeft == 0 && s.rng.Float64() < s.reject*0.05 {
			rejectLeft = 1 + s.rng.IntN(200)
		}
		a := float64(i)*0.001 + s.rng.Float64()*1e-4
		w := s.rng.Float64() * 0.01
		if s.rng.Float64() < s.zero {
			w = 0
		}
		tpot := 0.02 * s.rng.Float64()
		if s.rng.Float64() < s.zero {
			tpot = 0
		}
		r := sim.Record{ID: int64(i), Pool: s.str(i), Instance: s.int32(), Category: s.str(i),
			ArrivalS: s.time(a), AdmitS: s.time(a + w), FirstTokenS: s.time(a + w + 0.03), FinishS: s.time(a + 1),
			QueueWaitS: s.time(w), TTFTS: s.time(w + 0.03), TPOTS: s.time(tpot), E2ES: s.time(1),
			InputTokens: s.int32(), OutputTokens: s.int32(), OriginalInputTokens: s.int32(),
			EstimatedTokens: s.int32(), Preemptions: s.int32(), Retries: s.int32(),
			Compressed: s.bool(i), Warmup: s.bool(i + 7), Rejected: s.bool(i + 13),
			RejectedReason: s.str(i), RejectedDetail: s.str(i),
			Ext: sim.RecordExt{CachedTokens: s.int32(), PrefillInstance: s.int32(), DecodeInstance: s.int32(),
				KVTransferS: s.time(0.001 * float64(i%5))}}
		if s.rng.IntN(3) == 0 {
			r.ID = s.rng.Int64() - s.rng.Int64()
		}
		if rejectLeft > 0 {
			rejectLeft--
			r.Rejected = true
			nan := math.NaN()
			r.AdmitS, r.FirstTokenS, r.FinishS, r.QueueWaitS, r.TTFTS, r.TPOTS, r.E2ES = nan, nan, nan, nan, nan, nan, nan
			r.Ext.KVTransferS = nan
		}
		recs[i] = r
	}
	return recs
}

// randRows are the stream lengths drawn: around a chunk, a row group and
// its multiples, and anything up to three row groups.
var randRows = []int{0, 1, 2, 63, 64, 65, 127, 128, 129, 1023, 1024, 1025, 64255, 64256, 64257,
	RowGroupRows - 1, RowGroupRows, RowGroupRows + 1, RowGroupRows + 63, RowGroupRows + 64, 2 * RowGroupRows}

// TestPageWriterRandomStreams: random record streams (each seed its own
// mix of special times, NULL runs, zeros, unique and long strings, integer
// extremes and boolean patterns; lengths around chunks, pages and row
// groups), written through the page writer in random call sizes, give the
// bytes of parquet-go's GenericWriter of Row (RowExt) structs
// (syncParquetOf), and read back to the records.
func TestPageWriterRandomStreams(t *testing.T) {
	seeds := 6 // FLEETSIM_PQ_SEEDS=N for more (the review ran 400)
	if testing.Short() {
		seeds = 3
	}
	if n, err := strconv.Atoi(os.Getenv("FLEETSIM_PQ_SEEDS")); err == nil {
		seeds = n
	}
	dir := t.TempDir()
	for seed := range uint64(seeds) {
		s := newRandStream(seed)
		n := randRows[s.rng.IntN(len(randRows))]
		if s.rng.IntN(4) == 0 {
			n = s.rng.IntN(3 * RowGroupRows)
		}
		recs := s.records(n)
		ext := s.rng.IntN(2) == 0
		path := filepath.Join(dir, fmt.Sprintf("r%d.parquet", seed))
		writeRandomCalls(t, path, FileInfo{Extended: ext}, recs, s.rng)
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if want := syncParquetOf(t, recs, ext); !bytes.Equal(got, want) {
			t.Errorf("seed %d (%d rows, extended %v): %d bytes, parquet-go's GenericWriter %d", seed, n, ext, len(got), len(want))
			continue
		}
		back, err := ReadParquet(path)
		if ext {
			back, err = ReadParquetExt(path)
		}
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if len(back) != len(recs) {
			t.Fatalf("seed %d: read %d rows back, wrote %d", seed, len(back), len(recs))
		}
		for i := range recs {
			want := recs[i]
			for _, p := range []*float64{&want.AdmitS, &want.FirstTokenS, &want.FinishS, &want.QueueWaitS,
				&want.TTFTS, &want.TPOTS, &want.E2ES, &want.Ext.KVTransferS} {
				if math.IsInf(*p, 0) {
					*p = math.NaN() // NULL
				}
			}
			if !ext {
				want.Ext = sim.RecordExt{}
			}
			got := back[i]
			kvOK := sameFloat(got.Ext.KVTransferS, want.Ext.KVTransferS)
			got.Ext.KVTransferS, want.Ext.KVTransferS = 0, 0
			if !kvOK || !sameRecord(&got, &want) {
				t.Fatalf("seed %d row %d: read back %+v, wrote %+v", seed, i, back[i], want)
			}
		}
	}
}
