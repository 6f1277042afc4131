package engine

import (
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// burstScenario builds a scenario of large batches full of ties: bursts of
// up to 200 identical jobs arrive at one instant, so dozens of sequences
// finish their prefill in one iteration and then share their last
// iteration (equal fin in the decoder heap, which only ord orders); a few
// have one output token (they finish with their prefill, in the same
// iteration as decoders); one in eight arrives prefilled. The KV cache
// holds a quarter to all of the slots' worst case, so decoders run out of
// blocks, are preempted (the newest first) and come back with a new ord.
// Block sizes include ones that are not powers of two and ones above 16.
func burstScenario(seed uint64) scenario {
	rng := workload.NewRand(seed, workload.StreamLengths)
	bt := []int{1, 3, 16, 16, 24, 64}[rng.IntN(6)]
	c := Config{
		MaxSeqs:     40 + rng.IntN(260),
		BlockTokens: bt,
		ChunkTokens: []int{512, 64, 7}[rng.IntN(3)],
		MaxModelLen: 400,
		Timing:      Timing{W: 0.008, HSeq: 0.0002 * rng.Float64(), HKV: 1e-6 * rng.Float64()},
	}
	if rng.IntN(3) == 0 {
		c.BatchTokenBudget = 256 + rng.IntN(1024)
	}
	worst := c.MaxSeqs * c.MaxModelLen
	c.KVBlocks = max(ceilDiv(c.MaxModelLen, bt), ceilDiv(worst/4+rng.IntN(worst), bt))
	sc := scenario{cfg: c, useEvent: seed%2 == 0}
	now := 0.0
	for b := 0; b < 12; b++ {
		now += 0.5 * rng.ExpFloat64()
		in := []int{1, 16, 17, 100, 300}[rng.IntN(5)]
		out := []int{1, 2, 3, 40, 41, 99}[rng.IntN(6)]
		for k := 20 + rng.IntN(180); k > 0; k-- {
			j := Job{Tag: len(sc.reqs), In: in, Out: out}
			if rng.IntN(10) == 0 {
				j.Out = 1
			}
			sc.reqs = append(sc.reqs, arrival{at: Seconds(now), job: j})
			sc.shared = append(sc.shared, false)
			sc.partial = append(sc.partial, -1)
			sc.tie = append(sc.tie, false)
			sc.prefilled = append(sc.prefilled, rng.IntN(8) == 0)
		}
	}
	return sc
}

// TestBurstTiesAgainstOracle compares the engine with the oracle on burst
// scenarios (burstScenario). It fails unless the scenarios preempt and
// finish many jobs in one iteration, the cases the decoder heap's order
// between equal last iterations decides.
func TestBurstTiesAgainstOracle(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 8
	}
	preempted, bigTies := 0, 0
	for i := 0; i < n; i++ {
		sc := burstScenario(uint64(i))
		o, _, err := runScenario(sc)
		if err != nil {
			t.Fatalf("scenario %d (cfg %+v): %v", i, sc.cfg, err)
		}
		if o.preemptions > 0 {
			preempted++
		}
		if mostAtOnce(sc) >= 20 {
			bigTies++
		}
	}
	if preempted < n/4 || bigTies < n/2 {
		t.Errorf("%d of %d scenarios preempted, %d finished >= 20 jobs in one iteration: the scenarios no longer test what they are for",
			preempted, n, bigTies)
	}
	t.Logf("%d of %d scenarios preempted, %d finished >= 20 jobs in one iteration", preempted, n, bigTies)
}

// mostAtOnce runs sc's jobs on an engine alone and returns the largest
// number of served jobs finishing at one instant (in one iteration).
func mostAtOnce(sc scenario) int {
	e, _ := New(sc.cfg)
	var out []Result
	for i, r := range sc.reqs {
		out = e.AdvanceTo(r.at, out)
		if sc.prefilled[i] {
			e.SubmitPrefilled(r.job, r.at)
		} else {
			e.Submit(r.job, r.at)
		}
	}
	at := make(map[Time]int)
	most := 0
	for _, r := range e.AdvanceTo(Never, out) {
		if !r.Rejected {
			at[r.Finished]++
			most = max(most, at[r.Finished])
		}
	}
	return most
}
