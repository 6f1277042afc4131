package variants

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// alloc builds a hand-made workload with one candidate per (accelerator,
// replicas, value) triple, units per replica 1 unless given.
func alloc(name string, prio int, cands ...Candidate) Allocation {
	for i := range cands {
		if cands[i].Units == 0 {
			cands[i].Units = 1
		}
		if cands[i].Variant == "" {
			cands[i].Variant = name + "-" + cands[i].Accelerator
		}
		cands[i].Cost = cands[i].Value
	}
	return Allocation{Workload: name, Priority: prio, RateRPS: 1, Status: StatusUnallocated, Candidates: cands}
}

func runLimited(t *testing.T, policy string, deferred bool, inv map[string]int, as ...Allocation) map[string]Allocation {
	t.Helper()
	r := &Result{Mode: ModeLimited, Policy: policy, Inventory: inv, Allocations: as}
	limited(r, &Config{DeferBestEffort: deferred})
	out := map[string]Allocation{}
	used := map[string]int{}
	for _, a := range r.Allocations {
		out[a.Workload] = a
		used[a.Accelerator] += a.Units
	}
	for k, u := range used {
		if k != "" && u > inv[k] {
			t.Fatalf("%s: %d units used, inventory %d", k, u, inv[k])
		}
	}
	return out
}

// policyCase is the hand-checked scenario of the saturation policies: 10
// units of A; priority 1: w1 needs 6 replicas (value 60), w2 5 (50), w5 5
// (45); priority 2: w3 needs 7 (70). Greedy order w1, w2, w5, w3: w1 takes 6
// units, 4 are left and none of w2, w5, w3 fits.
func policyCase() []Allocation {
	return []Allocation{
		alloc("w1", 1, Candidate{Accelerator: "A", Replicas: 6, Value: 60}),
		alloc("w2", 1, Candidate{Accelerator: "A", Replicas: 5, Value: 50}),
		alloc("w5", 1, Candidate{Accelerator: "A", Replicas: 5, Value: 45}),
		alloc("w3", 2, Candidate{Accelerator: "A", Replicas: 7, Value: 70}),
	}
}

func TestSaturationPolicies(t *testing.T) {
	for _, c := range []struct {
		policy   string
		deferred bool
		want     map[string]int // replicas; the hand check is in the comment
	}{
		// None: the 4 units left stay idle.
		{PolicyNone, true, map[string]int{"w1": 6, "w2": 0, "w5": 0, "w3": 0}},
		// PriorityExhaustive: w2 (first left in order) takes min(4, 5) = 4.
		{PolicyPriorityExhaustive, true, map[string]int{"w1": 6, "w2": 4, "w5": 0, "w3": 0}},
		// PriorityRoundRobin: the priority-1 group {w2, w5} alternates:
		// w2, w5, w2, w5 — 2 each; w3 (priority 2) gets nothing.
		{PolicyPriorityRoundRobin, true, map[string]int{"w1": 6, "w2": 2, "w5": 2, "w3": 0}},
		// RoundRobin: w2, w5, w3, w2 across priorities — 2, 1, 1.
		{PolicyRoundRobin, true, map[string]int{"w1": 6, "w2": 2, "w5": 1, "w3": 1}},
		// Per group (not deferred): group 1 runs its best effort before
		// group 2 is allocated; RoundRobin then only sees {w2, w5}.
		{PolicyRoundRobin, false, map[string]int{"w1": 6, "w2": 2, "w5": 2, "w3": 0}},
		{PolicyPriorityExhaustive, false, map[string]int{"w1": 6, "w2": 4, "w5": 0, "w3": 0}},
	} {
		t.Run(fmt.Sprintf("%s/deferred=%v", c.policy, c.deferred), func(t *testing.T) {
			got := runLimited(t, c.policy, c.deferred, map[string]int{"A": 10}, policyCase()...)
			for w, n := range c.want {
				a := got[w]
				if a.Replicas != n {
					t.Errorf("%s: %d replicas, want %d", w, a.Replicas, n)
				}
				switch {
				case n == 0 && a.Status != StatusUnallocated:
					t.Errorf("%s: status %s, want %s", w, a.Status, StatusUnallocated)
				case n > 0 && n < a.Needed && a.Status != StatusPartial:
					t.Errorf("%s: status %s, want %s", w, a.Status, StatusPartial)
				}
			}
			if a := got["w1"]; a.Status != StatusOK || a.Cost != 60 {
				t.Errorf("w1: %s cost %v, want ok 60", a.Status, a.Cost)
			}
		})
	}
}

// TestPartialCost: a best-effort allocation costs its share of the SLO
// allocation (w2 gets 4 of 5 replicas worth 50: 40).
func TestPartialCost(t *testing.T) {
	got := runLimited(t, PolicyPriorityExhaustive, true, map[string]int{"A": 10}, policyCase()...)
	if a := got["w2"]; a.Cost != 40 || a.Needed != 5 {
		t.Errorf("w2: cost %v needed %d, want 40 and 5", a.Cost, a.Needed)
	}
}

// TestRegretOrder: wX and wY (same priority) both prefer A (4 units, only 4
// in stock). wY loses 40 by falling back to B, wX only 4, so wY gets A and
// wX falls back to B.
func TestRegretOrder(t *testing.T) {
	got := runLimited(t, PolicyNone, false, map[string]int{"A": 4, "B": 10},
		alloc("wX", 1, Candidate{Accelerator: "A", Replicas: 4, Value: 40}, Candidate{Accelerator: "B", Replicas: 4, Value: 44}),
		alloc("wY", 1, Candidate{Accelerator: "A", Replicas: 4, Value: 40}, Candidate{Accelerator: "B", Replicas: 4, Value: 80}),
	)
	if got["wY"].Accelerator != "A" || got["wX"].Accelerator != "B" {
		t.Errorf("wY on %q, wX on %q; want A and B", got["wY"].Accelerator, got["wX"].Accelerator)
	}
	// Priority beats regret: wX at priority 1 keeps A whatever wY loses.
	got = runLimited(t, PolicyNone, false, map[string]int{"A": 4, "B": 10},
		alloc("wX", 1, Candidate{Accelerator: "A", Replicas: 4, Value: 40}, Candidate{Accelerator: "B", Replicas: 4, Value: 44}),
		alloc("wY", 2, Candidate{Accelerator: "A", Replicas: 4, Value: 40}, Candidate{Accelerator: "B", Replicas: 4, Value: 80}),
	)
	if got["wX"].Accelerator != "A" || got["wY"].Accelerator != "B" {
		t.Errorf("wX on %q, wY on %q; want A and B", got["wX"].Accelerator, got["wY"].Accelerator)
	}
}

// TestLimitedInventoryProperty: on random workloads, candidates and
// inventories, no policy ever allocates more units of a type than the
// inventory holds, and no workload gets more replicas than it needs.
func TestLimitedInventoryProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 1))
	types := []string{"A", "B", "C"}
	n := 3000
	if testing.Short() {
		n = 500
	}
	for trial := range n {
		inv := map[string]int{}
		for _, k := range types {
			inv[k] = rng.IntN(30)
		}
		var as []Allocation
		for w := range 1 + rng.IntN(8) {
			var cs []Candidate
			for _, k := range types {
				if rng.IntN(3) > 0 {
					cs = append(cs, Candidate{Accelerator: k, Units: 1 + rng.IntN(4), Replicas: rng.IntN(8), Value: float64(rng.IntN(50))})
				}
			}
			if len(cs) == 0 {
				continue
			}
			a := alloc(fmt.Sprintf("w%d", w), 1+rng.IntN(3), cs...)
			slicesSortByValue(a.Candidates)
			as = append(as, a)
		}
		policy := Policies[rng.IntN(len(Policies))]
		deferred := rng.IntN(2) == 0
		r := &Result{Mode: ModeLimited, Policy: policy, Inventory: inv, Allocations: as}
		limited(r, &Config{DeferBestEffort: deferred})
		used := map[string]int{}
		for _, a := range r.Allocations {
			used[a.Accelerator] += a.Units
			if a.Replicas > a.Needed && a.Status != StatusUnallocated {
				t.Fatalf("trial %d: %s has %d replicas, needs %d", trial, a.Workload, a.Replicas, a.Needed)
			}
		}
		for k, u := range used {
			if k != "" && u > inv[k] {
				t.Fatalf("trial %d (%s, deferred %v): %d units of %s used, inventory %d", trial, policy, deferred, u, k, inv[k])
			}
		}
	}
}
