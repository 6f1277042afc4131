package engine

import (
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

// vllmLong is the KV-bound long-pool instance of `fleetsim validate
// --fidelity kv` (sim.PoolConfig max_seqs 256, kv_blocks 65,536 at 65,536
// tokens): 256 is only a cap (vLLM's max_num_seqs) and the KV cache, 2^20
// tokens, holds about 200 Azure long-slice sequences, so it runs out first.
var vllmLong = Config{
	MaxSeqs: 256, KVBlocks: 65536, BlockTokens: 16, ChunkTokens: 512, MaxModelLen: 65536,
	Timing: Timing{W: 0.008, HKV: 0.00065 / 8192},
}

// TestKVBoundAgainstOracle checks the engine against the one-iteration
// stepper on the KV-bound configuration, with Azure lengths above 4,096
// (fixed split 0.8, as the fleet runs) arriving fast enough to preempt.
func TestKVBoundAgainstOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("slow oracle")
	}
	c, err := workload.LoadCDF("azure")
	if err != nil {
		t.Fatal(err)
	}
	if c, err = c.Restrict(4096, 65536); err != nil {
		t.Fatal(err)
	}
	lr := workload.NewRand(2, workload.StreamLengths)
	ar := workload.NewRand(2, workload.StreamArrivals)
	e, _ := New(vllmLong)
	o := newOracle(vllmLong)
	var got, want []Result
	now := 0.0
	for i := range 1500 {
		now += ar.ExpFloat64() / 16
		in, out := workload.SplitFixed(c.Sample(lr), 0.8)
		j := Job{Tag: i, In: in, Out: out}
		at := Seconds(now)
		got = e.AdvanceTo(at, got)
		want = o.advance(at, want)
		e.Submit(j, at)
		o.submit(j, at)
	}
	got = e.AdvanceTo(Never, got)
	want = o.advance(Never, want)
	if err := compareResults(got, want); err != nil {
		t.Fatal(err)
	}
	if err := checkStats(e, o); err != nil {
		t.Fatal(err)
	}
	if o.preemptions == 0 {
		t.Error("no preemption: the KV cache never bound")
	}
	t.Logf("%d results, %d iterations, %d preemptions", len(got), o.iterations, o.preemptions)
}
