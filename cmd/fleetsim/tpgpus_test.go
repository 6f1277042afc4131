package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/sim/export"
)

// tpPools are a tp1 pool of 3 instances (3 GPUs) and a tp4 pool of 3
// instances (12 GPUs): 6 instances, 15 GPUs.
var tpPools = []string{"--pool", "short:h100/llama-3.1-8b/tp1:3:4096", "--pool", "long:h200/llama-3.1-70b/tp4:3:65536"}

// TestTPPoolsCountGPUs: for tensor-parallel instances `gpus` counts GPUs
// (instances × tp) and `instances` the instances, in simulate's summary and
// table (instances only where they are not the GPUs) and in sweep's table
// and Parquet rows (issue 19: gpus counted instances). Hand computation: 3 × 1 + 3 × 4 = 15 GPUs.
func TestTPPoolsCountGPUs(t *testing.T) {
	dir := t.TempDir()
	args := append([]string{"simulate", "--rate", "20", "--requests", "500", "--no-parquet", "--out", filepath.Join(dir, "sim")}, tpPools...)
	code, out, errOut := runCLI(t, append(args, "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	type counts struct {
		Name      string `json:"name"`
		GPUs      int    `json:"gpus"`
		Instances int    `json:"instances"`
	}
	var sum struct {
		Fleet counts   `json:"fleet"`
		Pools []counts `json:"pools"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	// instances is left out where it equals gpus (the tp1 pool), so other
	// runs' summaries are unchanged.
	want := []counts{{"short", 3, 0}, {"long", 12, 3}}
	if len(sum.Pools) != 2 || sum.Pools[0] != want[0] || sum.Pools[1] != want[1] || sum.Fleet.GPUs != 15 || sum.Fleet.Instances != 6 {
		t.Errorf("summary: pools %+v, fleet %+v; want %+v and fleet 15 GPUs, 6 instances", sum.Pools, sum.Fleet, want)
	}
	code, out, errOut = runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	checkTableCounts(t, "simulate", out, map[string][2]string{"long": {"3", "12"}, "fleet": {"6", "15"}})

	sw := filepath.Join(dir, "sweep")
	code, out, errOut = runCLI(t, append([]string{"sweep", "--rates", "20", "--duration", "10", "--out", sw}, tpPools...)...)
	if code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, errOut)
	}
	checkTableCounts(t, "sweep", out, map[string][2]string{"long": {"3", "12"}, "fleet": {"6", "15"}})
	rows, err := export.ReadSweepParquet(filepath.Join(sw, "sweep.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		wantI, wantG := map[string]int32{"short": 3, "long": 3, "fleet": 6}[r.Pool], map[string]int32{"short": 3, "long": 12, "fleet": 15}[r.Pool]
		if r.Instances != wantI || r.GPUs != wantG {
			t.Errorf("sweep.parquet %s: instances %d, gpus %d; want %d, %d", r.Pool, r.Instances, r.GPUs, wantI, wantG)
		}
	}
}

// checkTableCounts checks the instances and gpus cells of the Markdown
// table rows named in want (pool → {instances, gpus}).
func checkTableCounts(t *testing.T, what, out string, want map[string][2]string) {
	t.Helper()
	var header []string
	seen := 0
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(l, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if header == nil {
			header = cells
			continue
		}
		col := func(name string) string {
			for i, h := range header {
				if h == name && i < len(cells) {
					return cells[i]
				}
			}
			return "(no " + name + " column)"
		}
		for _, c := range cells {
			if w, ok := want[c]; ok {
				seen++
				if col("instances") != w[0] || col("gpus") != w[1] {
					t.Errorf("%s table row %q: instances %s, gpus %s; want %s, %s", what, l, col("instances"), col("gpus"), w[0], w[1])
				}
				break
			}
		}
	}
	if seen < len(want) {
		t.Errorf("%s table: %d of the rows %v found in:\n%s", what, seen, want, out)
	}
}

// TestPlanTPCountsGPUs: a plan of tensor-parallel instances gives gpus =
// instances × tp and instances per pool, total_gpus and total_instances per
// method, the same in its table, and `simulate --plan` reads the instances
// back (issue 19: gpus counted instances). Hand computation from the pr
// plan's 3 + 19 tp4 instances: 12 + 76 = 88 GPUs.
func TestPlanTPCountsGPUs(t *testing.T) {
	dir := t.TempDir()
	planFile := filepath.Join(dir, "plan.json")
	args := []string{"plan", "--gpu", "h100/llama-3.1-70b/tp4", "--rate", "50", "--b-short", "4096", "--method", "pr"}
	code, _, errOut := runCLI(t, append(args, "--format", "json", "--out", planFile)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(planFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Methods []struct {
			TotalGPUs      int `json:"total_gpus"`
			TotalInstances int `json:"total_instances"`
			Pools          []struct {
				Name      string `json:"name"`
				GPUs      int    `json:"gpus"`
				Instances int    `json:"instances"`
				TP        int    `json:"tp"`
			} `json:"pools"`
		} `json:"methods"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	m := doc.Methods[0]
	if len(m.Pools) != 2 || m.Pools[0].Instances != 3 || m.Pools[0].GPUs != 12 || m.Pools[1].Instances != 19 || m.Pools[1].GPUs != 76 ||
		m.TotalGPUs != 88 || m.TotalInstances != 22 {
		t.Errorf("plan: %+v; want short 3 instances / 12 GPUs, long 19 / 76, total 22 / 88", m)
	}
	code, out, errOut := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "instances") {
		t.Errorf("plan table has no instances column:\n%s", out)
	}
	code, out, errOut = runCLI(t, "simulate", "--plan", planFile, "--requests", "300", "--no-parquet", "--out", filepath.Join(dir, "sim"), "--format", "json")
	if code != 0 {
		t.Fatalf("simulate --plan: exit %d: %s", code, errOut)
	}
	var sum struct {
		Fleet struct {
			GPUs      int `json:"gpus"`
			Instances int `json:"instances"`
		} `json:"fleet"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Fleet.GPUs != 88 || sum.Fleet.Instances != 22 {
		t.Errorf("simulate --plan: fleet %+v, want 88 GPUs, 22 instances", sum.Fleet)
	}
}

// TestBareGPUNamesCLI: bare catalog GPU names work as pools and planner
// GPUs (issue 19: `--pool a:h200:...` and `plan --gpu l40s` were refused),
// as the specification serving catalog.DefaultModel: h200 holds Llama-3.1-70B
// at tp2 (141 GB × 0.9 − 2 GB per GPU against 141 GB of weights, so tp1 is
// too small), so 2 instances are 4 GPUs.
func TestBareGPUNamesCLI(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "simulate", "--pool", "a:h200:2:8192", "--rate", "5", "--requests", "200", "--no-parquet", "--format", "json", "--out", dir)
	if code != 0 {
		t.Fatalf("simulate h200: exit %d: %s", code, errOut)
	}
	var sum struct {
		Pools []struct {
			GPUs      int `json:"gpus"`
			Instances int `json:"instances"`
		} `json:"pools"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.Pools) != 1 || sum.Pools[0].Instances != 2 || sum.Pools[0].GPUs != 4 {
		t.Errorf("h200 pool: %+v, want 2 instances of 2 GPUs", sum.Pools)
	}
	if code, _, errOut := runCLI(t, "plan", "--gpu", "l40s", "--b-short", "4096", "--method", "pr"); code != 0 {
		t.Errorf("plan --gpu l40s: exit %d: %s", code, errOut)
	}
}
