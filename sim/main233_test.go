package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"os"
	"testing"

	"github.com/fleetsim/fleetsim/router"
	"github.com/fleetsim/fleetsim/workload"
)

// hashSink hashes every record it is given, in order.
type hashSink struct{ h hash.Hash }

func (s *hashSink) Write(r *Record) error {
	fmt.Fprintf(s.h, "%+v\n", *r)
	return nil
}

// main233Fleet is random fleet k of TestFleetsMatchMain233: two pools
// whose sizes sit at and around powers of two, every dispatch and router
// kind, small slot and KV overrides (KV-bound instances, which central
// dispatch must pass over), queue limits, and loads from light to heavily
// overloaded.
func main233Fleet(k int) (Config, *poissonSource) {
	rnd := workload.NewRand(uint64(100+k), workload.StreamPlanner)
	sizes := []int{1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65}
	dispatch := []string{DispatchCentral, DispatchJSQ, DispatchRR}
	kinds := []string{RouterLength, RouterTokenBudget, RouterSpillover, RouterCR}
	var pools []PoolConfig
	gpus := 0
	for j, ctx := range []int{4096, 32768} {
		pc := PoolConfig{Name: fmt.Sprintf("p%d", j), GPU: "a100", Count: sizes[rnd.IntN(len(sizes))], MaxContext: ctx,
			Dispatch: dispatch[rnd.IntN(len(dispatch))]}
		if rnd.IntN(2) == 0 {
			pc.MaxSeqs = 2 + rnd.IntN(14)
		}
		if rnd.IntN(2) == 0 { // room for a few prompts: KV-bound
			pc.KVBlocks = ctx/16 + rnd.IntN(4*ctx/16)
		}
		if rnd.IntN(3) == 0 {
			pc.QueueLimit = 1 + rnd.IntN(30)
		}
		gpus += pc.Count
		pools = append(pools, pc)
	}
	n := 3000 + rnd.IntN(3000)
	cfg := fleetCfg(n, 0.1, pools...)
	cfg.Seed = uint64(k)
	cfg.Router = RouterConfig{Config: router.Config{Kind: kinds[rnd.IntN(len(kinds))], PC: router.DefaultPC}}
	rate := float64(gpus) * (0.5 + 8*rnd.Float64())
	return cfg, newPoisson(n, rate, 100, 12000, uint64(k))
}

// main233Hashes are the SHA-256 of TestFleetsMatchMain233's fleets' records
// and pool counts, as main at 233ad42 (the speed-ups' base, whose outputs
// they must keep byte for byte) printed them: FLEETSIM_PRINT_233=1 go test
// -run TestFleetsMatchMain233 ./sim on that commit's tree.
var main233Hashes = []string{
	"16391ad4efcc71dc",
	"360afa4792aba56d",
	"29e627cb6003bcf1",
	"606f6d3025c82c86",
	"e329792bd6f6770f",
	"32d8bd4de9e47bd7",
	"bc66074934ab3c0e",
	"a362e44374a9f31e",
	"464d38e08185fdd5",
	"445da0e673cc1a51",
	"625f6425848b22ae",
	"6c01105ca55cd20e",
	"b4bbf539b433835f",
	"18c2293ad287a7af",
	"779157374045dd1b",
	"fc893e602c8143b3",
	"928ebed00320fa27",
	"cf6f950004316802",
	"487d40f0317c336f",
	"723f05851805e00a",
	"da255c5c2bb6337e",
	"8a5fa9a2a62e83db",
	"c475c44b789c1aec",
	"f531c194e34a538e",
	"ce3e08933c2910c5",
	"6efbd987e89d031f",
	"e332346adc63eba6",
	"cd5962ec8ebc554e",
	"2afd5fb8c4b5108a",
	"8b06977eb9713bcb",
	"27c8d2a39ae33b5a",
	"847a0426f42e3d9f",
	"ba346ff8b80d95bc",
	"2b76a81153f1c55b",
	"d42e3162c3722989",
	"92d68e57f7b30a99",
	"5529b0efc28e0d06",
	"1d15900dce1dfab0",
	"283a0891c71f0e8f",
	"cfba57049011207a",
}

// TestFleetsMatchMain233 runs random fleets (main233Fleet) and compares
// their records and pool counts with main233Hashes: the pools' bookkeeping
// (the instance index's ties, central dispatch's counts, the order of the
// pending results) must not change any output.
func TestFleetsMatchMain233(t *testing.T) {
	var got []string
	for k := range 40 {
		cfg, src := main233Fleet(k)
		sink := &hashSink{h: sha256.New()}
		s, err := Run(cfg, src, sink, Options{})
		if err != nil {
			t.Fatalf("fleet %d: %v", k, err)
		}
		for _, m := range append(s.Pools, s.Fleet) {
			fmt.Fprintf(sink.h, "%s %d %d %d %v %v\n", m.Name, m.Completed, m.Rejected, m.InFlight, m.SlotUtilization, m.Overloaded)
		}
		got = append(got, hex.EncodeToString(sink.h.Sum(nil))[:16])
		if os.Getenv("FLEETSIM_PRINT_233") == "" && got[k] != main233Hashes[k] {
			t.Errorf("fleet %d (%+v, router %s): hash %s, main 233ad42's %s", k, cfg.Pools, cfg.Router.Kind, got[k], main233Hashes[k])
		}
	}
	if os.Getenv("FLEETSIM_PRINT_233") != "" {
		fmt.Printf("%q\n", got)
	}
}
