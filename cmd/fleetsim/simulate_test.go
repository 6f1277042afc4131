package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/router"
	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/sim/export"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// repoTestdata is the repository's testdata directory (scenario examples,
// golden files).
const repoTestdata = "../../testdata"

// runCLI runs the command line in-process and returns its exit status,
// stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSimulateBadInput: every bad input exits with status 2, prints one
// line naming the field or flag and the value, and writes nothing: the
// --out directory is not even created.
func TestSimulateBadInput(t *testing.T) {
	dir := t.TempDir()
	nonMonotone := writeFile(t, dir, "nonmono.json", `[[100, 0.5], [200, 0.4], [300, 1]]`)
	malformed := writeFile(t, dir, "malformed.json", `[[100, 0.5], [200`)
	emptyCDF := writeFile(t, dir, "empty.json", `[]`)
	badTrace := writeFile(t, dir, "bad.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n"+
		"2023-11-16 18:17:03.9799600,4808,10\n2023-11-16 18:17:04.0319600,many,8\n")
	unknownKey := writeFile(t, dir, "unknown.yaml", "seed: 1\nworklaod:\n  rate: 5\n")
	badValue := writeFile(t, dir, "badvalue.yaml", "workload:\n  rate: -3\n")
	badJSON := writeFile(t, dir, "bad.json", `{"seed": "one"}`)
	badGPU := writeFile(t, dir, "gpu.json", `{"pools": [{"name": "x", "gpu": "v100", "count": 1, "max_ctx": 4096}]}`)
	badBShort := writeFile(t, dir, "bshort.yaml", "router: {kind: cr, b_short: 9000}\n")
	unusedGamma := writeFile(t, dir, "gamma.yaml", "router: {kind: spillover, gamma: 1.5}\n")
	codeGate := writeFile(t, dir, "gate.yaml", "router: {kind: cr, compressible: [prose, code]}\n")
	notMap := writeFile(t, dir, "list.yaml", "- a\n- b\n")
	junk := writeFile(t, dir, "junk.yaml", "\xff\xfe\x00garbage: [\n")
	unusedCold := writeFile(t, dir, "cold.yaml", "router: {kind: length, cold_start: 3}\n")
	badShares := writeFile(t, dir, "shares.yaml", "workload: {categories: {prose: 0.5, code: 0.3}}\n")
	badKind := writeFile(t, dir, "kind.yaml", "router: {kind: magic}\n")
	// Plan files: a valid one with every method, and broken ones.
	plan := filepath.Join(dir, "plan.json")
	if code, _, stderr := runCLI(t, "plan", "--workload", "azure", "--rate", "50", "--b-short", "4096", "--gpu", "a100",
		"--method", "all", "--format", "json", "--out", plan); code != 0 {
		t.Fatalf("fleetsim plan: exit status %d, stderr %q", code, stderr)
	}
	notJSON := writeFile(t, dir, "notjson.json", "pools: [short]\n")
	noMethods := writeFile(t, dir, "nomethods.json", `{"workload": "azure", "rate": 10, "methods": []}`)
	planGPU := writeFile(t, dir, "plangpu.json", `{"methods": [{"method": "pr", "pools": [{"name": "short", "gpu": "v100", "max_ctx": 4096, "gpus": 2}]}]}`)
	planCount := writeFile(t, dir, "plancount.json", `{"methods": [{"method": "pr", "pools": [{"name": "short", "gpu": "a100", "max_ctx": 4096, "gpus": 0}]}]}`)
	planCtx := writeFile(t, dir, "planctx.json", `{"methods": [{"method": "pr", "pools": [{"name": "short", "gpu": "a100", "max_ctx": 9000000, "gpus": 1}]}]}`)
	planGamma := writeFile(t, dir, "plangamma.json", `{"methods": [{"method": "retrofit", "gamma": 0.5, "p_c": 1, "pools": [{"name": "short", "gpu": "a100", "max_ctx": 4096, "gpus": 1}]}]}`)
	planRate := writeFile(t, dir, "planrate.json", `{"rate": "fast", "methods": [{"method": "pr", "pools": [{"name": "short", "gpu": "a100", "max_ctx": 4096, "gpus": 1}]}]}`)
	planCDF := writeFile(t, dir, "plancdf.json", `{"workload": "nosuch-cdf.json", "rate": 5, "methods": [{"method": "homo", "pools": [{"name": "homogeneous", "gpu": "a100", "max_ctx": 65536, "gpus": 1}]}]}`)

	tests := []struct {
		name string
		args []string
		want []string // substrings of the one stderr line
	}{
		{"negative rate", []string{"--rate", "-5"}, []string{"workload.rate", "-5"}},
		{"zero rate", []string{"--rate", "0"}, []string{"workload.rate", "0"}},
		{"rate not a number", []string{"--rate", "fast"}, []string{"rate", "fast"}},
		{"zero requests", []string{"--requests", "0"}, []string{"workload.requests", "0"}},
		{"unknown GPU", []string{"--pool", "x:v100:1:4096"}, []string{"pools[0].gpu", "v100", "a100"}},
		{"max ctx over KV budget", []string{"--pool", "x:a100:1:2000000"}, []string{"pools[0].max_ctx", "2000000", "KV budget"}},
		{"duplicate pool", []string{"--pool", "a:a100:1:4096", "--pool", "a:a100:2:8192"}, []string{"pools[1].name", `"a"`, "duplicate"}},
		{"zero count", []string{"--pool", "a:a100:0:4096"}, []string{"pools[0].count", "0"}},
		{"pool syntax", []string{"--pool", "a:a100:4096"}, []string{"--pool", "a:a100:4096", "NAME:GPU:COUNT:MAXCTX"}},
		{"pool count not int", []string{"--pool", "a:a100:x:4096"}, []string{"--pool", "COUNT", `"x"`}},
		{"unknown dispatch", []string{"--dispatch", "random"}, []string{"pools[0].dispatch", "random", "jsq"}},
		{"unknown timing", []string{"--timing", "fast"}, []string{"timing", "fast", "paper"}},
		{"unknown router", []string{"--router", "magic"}, []string{"router.kind", "magic"}},
		{"warmup 1", []string{"--warmup", "1"}, []string{"warmup_fraction", "1", "[0, 1)"}},
		{"warmup negative", []string{"--warmup", "-0.5"}, []string{"warmup_fraction", "-0.5"}},
		{"negative queue limit", []string{"--queue-limit", "-1"}, []string{"queue_limit", "-1"}},
		{"unknown workload", []string{"--workload", "nosuch"}, []string{"nosuch"}},
		{"non-monotone CDF", []string{"--workload", nonMonotone}, []string{"nonmono.json"}},
		{"malformed CDF", []string{"--workload", malformed}, []string{"malformed.json"}},
		{"empty CDF", []string{"--workload", emptyCDF}, []string{"empty.json"}},
		{"unparseable trace row", []string{"--trace", badTrace}, []string{"bad.csv", "many"}},
		{"missing trace", []string{"--trace", filepath.Join(dir, "nosuch.csv")}, []string{"nosuch.csv"}},
		{"unknown trace format", []string{"--trace", badTrace, "--trace-format", "parquet"}, []string{"trace_format", "parquet"}},
		{"workload and trace", []string{"--workload", "azure", "--trace", badTrace}, []string{"--workload", "--trace"}},
		{"unknown arrival", []string{"--arrival", "uniform"}, []string{"arrival", "uniform"}},
		{"unknown format", []string{"--format", "xml"}, []string{"--format", "xml"}},
		{"unknown flag", []string{"--speed", "9"}, []string{"speed"}},
		{"positional argument", []string{"extra"}, []string{"unknown command", "extra"}},
		{"stray argument", []string{"--seed", "1", "extra"}, []string{"unexpected argument", "extra"}},
		{"missing config", []string{"--config", filepath.Join(dir, "nosuch.yaml")}, []string{"--config", "nosuch.yaml"}},
		{"config unknown key", []string{"--config", unknownKey}, []string{"--config", "worklaod"}},
		{"config bad value", []string{"--config", badValue}, []string{"workload.rate", "-3"}},
		{"config bad JSON type", []string{"--config", badJSON}, []string{"--config", "seed"}},
		{"config unknown GPU", []string{"--config", badGPU}, []string{"pools[0].gpu", "v100"}},
		{"router b_short above the short pool", []string{"--config", badBShort}, []string{"b_short", "9000"}},
		{"zero SLO", []string{"--slo-ttft", "0"}, []string{"slo.ttft_s", "0"}},

		// Router flags (issue #4 item 7). A flag's zero would mean "the
		// default" in sim.RouterConfig, so zeros are refused too.
		{"categories sum below 1", []string{"--categories", "prose=0.6,code=0.3"}, []string{"--categories", "prose=0.6,code=0.3", "sum to 0.9", "must sum to 1"}},
		{"categories sum above 1", []string{"--categories", "prose=0.6,code=0.25,rag=0.25"}, []string{"--categories", "sum to 1.1"}},
		{"categories unknown name", []string{"--categories", "poetry=1"}, []string{"--categories", `"poetry"`, "prose, code, cjk, rag, mixed"}},
		{"categories no share", []string{"--categories", "prose"}, []string{"--categories", `"prose"`, "NAME=SHARE"}},
		{"categories share not a number", []string{"--categories", "prose=most"}, []string{"--categories", `"most"`, "not a number"}},
		{"categories negative share", []string{"--categories", "prose=1.5,code=-0.5"}, []string{"--categories", "1.5", "[0, 1]"}},
		{"categories NaN share", []string{"--categories", "prose=NaN"}, []string{"--categories", "NaN", "[0, 1]"}},
		{"categories twice", []string{"--categories", "prose=0.5,prose=0.5"}, []string{"--categories", "prose", "twice"}},
		{"categories empty", []string{"--categories", ""}, []string{"--categories", "empty"}},
		{"b-short zero", []string{"--router", "token-budget", "--b-short", "0"}, []string{"--b-short", "0", ">= 1"}},
		{"b-short negative", []string{"--router", "cr", "--b-short", "-4096"}, []string{"--b-short", "-4096"}},
		{"b-short above the short pool", []string{"--router", "cr", "--b-short", "8192"}, []string{"b_short", "8192", "4096"}},
		{"b-short not an integer", []string{"--b-short", "4k"}, []string{"b-short", "4k"}},
		{"b-short with the length router", []string{"--b-short", "2048"}, []string{"--b-short", "2048", "length"}},
		{"gamma below 1", []string{"--router", "cr", "--gamma", "0.8"}, []string{"--gamma", "0.8", "[1, 16]"}},
		{"gamma zero", []string{"--router", "cr", "--gamma", "0"}, []string{"--gamma", "0", "[1, 16]"}},
		{"gamma infinite", []string{"--router", "cr", "--gamma", "+Inf"}, []string{"--gamma", "+Inf"}},
		{"gamma NaN", []string{"--router", "cr", "--gamma", "NaN"}, []string{"--gamma", "NaN"}},
		{"gamma without cr", []string{"--router", "spillover", "--gamma", "1.5"}, []string{"--gamma", "1.5", "--router cr", "spillover"}},
		{"p-c zero", []string{"--router", "cr", "--p-c", "0"}, []string{"--p-c", "0", "(0, 1]"}},
		{"p-c above 1", []string{"--router", "cr", "--p-c", "1.2"}, []string{"--p-c", "1.2", "(0, 1]"}},
		{"p-c without cr", []string{"--router", "token-budget", "--p-c", "0.5"}, []string{"--p-c", "0.5", "token-budget"}},
		{"spill queue zero", []string{"--router", "spillover", "--spill-queue-per-gpu", "0"}, []string{"--spill-queue-per-gpu", "0", "(0, 1e+06]"}},
		{"spill queue negative", []string{"--router", "spillover", "--spill-queue-per-gpu", "-2"}, []string{"--spill-queue-per-gpu", "-2"}},
		{"spill queue without spillover", []string{"--router", "token-budget", "--spill-queue-per-gpu", "4"}, []string{"--spill-queue-per-gpu", "4", "spillover, cr"}},
		{"ema decay 1", []string{"--router", "token-budget", "--ema-decay", "1"}, []string{"--ema-decay", "1", "(0, 1)"}},
		{"ema decay zero", []string{"--router", "token-budget", "--ema-decay", "0"}, []string{"--ema-decay", "0", "(0, 1)"}},
		{"ema decay with length", []string{"--ema-decay", "0.9"}, []string{"--ema-decay", "0.9", "length"}},
		{"config gamma unused", []string{"--config", unusedGamma}, []string{"router.gamma", "1.5", "spillover"}},
		{"config compressible code", []string{"--config", codeGate}, []string{"compressible", "code"}},
		{"config not a mapping", []string{"--config", notMap}, []string{"list.yaml", "not a YAML mapping"}},
		{"config binary junk", []string{"--config", junk}, []string{"junk.yaml", "yaml"}},
		{"config cold_start unused", []string{"--config", unusedCold}, []string{"router.cold_start", "3", "length"}},
		{"config shares", []string{"--config", badShares}, []string{"categories", "sum to 1"}},
		{"config unknown router", []string{"--config", badKind}, []string{"router.kind", "magic"}},

		// --plan.
		{"plan missing", []string{"--plan", filepath.Join(dir, "nosuch-plan.json")}, []string{"--plan", "nosuch-plan.json"}},
		{"plan not JSON", []string{"--plan", notJSON}, []string{"--plan", "notjson.json", "not a fleetsim plan"}},
		{"plan without methods", []string{"--plan", noMethods}, []string{"--plan", "no methods"}},
		{"plan several methods", []string{"--plan", plan}, []string{"--plan", "homo, pr, retrofit, fleetopt", "--plan-method"}},
		{"plan unknown method", []string{"--plan", plan, "--plan-method", "magic"}, []string{"--plan", `"magic"`, "not in the plan"}},
		{"plan unknown GPU", []string{"--plan", planGPU}, []string{"--plan", "v100"}},
		{"plan zero GPUs", []string{"--plan", planCount}, []string{"--plan", "gpus 0"}},
		{"plan max ctx", []string{"--plan", planCtx}, []string{"--plan", "max_ctx 9000000"}},
		{"plan gamma", []string{"--plan", planGamma}, []string{"--plan", "gamma 0.5"}},
		{"plan rate type", []string{"--plan", planRate}, []string{"--plan", "planrate.json"}},
		{"plan missing CDF", []string{"--plan", planCDF}, []string{"--plan", "nosuch-cdf.json", "--workload"}},
		{"plan and pool", []string{"--plan", plan, "--plan-method", "pr", "--pool", "x:a100:1:4096"}, []string{"--pool", "--plan"}},
		{"plan-method without plan", []string{"--plan-method", "pr"}, []string{"--plan-method", "--plan"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := append(append([]string{}, tt.args...), "--out", out)
			if tt.name == "positional argument" {
				args = tt.args
			} else {
				args = append([]string{"simulate"}, args...)
			}
			code, stdout, stderr := runCLI(t, args...)
			if code != 2 {
				t.Fatalf("exit status %d, want 2; stderr: %q", code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout not empty: %q", stdout)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
				t.Errorf("stderr is not one line: %q", stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not name %q", stderr, w)
				}
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("--out %s was created on bad input", out)
			}
		})
	}
}

// TestSimulateBadInputExistingOut: on bad input an existing --out directory
// is left untouched (no file added).
func TestSimulateBadInputExistingOut(t *testing.T) {
	out := t.TempDir()
	if code, _, _ := runCLI(t, "simulate", "--rate", "-1", "--out", out); code != 2 {
		t.Fatalf("exit status %d, want 2", code)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("--out holds %v after bad input", entries)
	}
}

func TestSimulateHelp(t *testing.T) {
	code, stdout, _ := runCLI(t, "simulate", "--help")
	if code != 0 {
		t.Fatalf("exit status %d", code)
	}
	for _, f := range []string{"--config", "--workload", "--trace", "--trace-format", "--arrival", "--rate", "--requests",
		"--seed", "--pool", "--timing", "--dispatch", "--queue-limit", "--router", "--warmup", "--slo-ttft",
		"--slo-tpot", "--out", "--no-parquet", "--csv", "--format", "short:a100:43:4096", "docs/cli.md",
		"--categories", "--b-short", "--gamma", "--p-c", "--spill-queue-per-gpu", "--ema-decay", "--plan", "--plan-method"} {
		if !strings.Contains(stdout, f) {
			t.Errorf("--help does not mention %s", f)
		}
	}
}

// smallArgs is a quick scenario: the example file testdata/small.json.
func smallArgs(out string, extra ...string) []string {
	return append([]string{"simulate", "--config", filepath.Join(repoTestdata, "small.json"), "--out", out}, extra...)
}

func readBytes(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSimulateOutputs: a run writes requests.parquet (one row per request,
// readable back) and summary.json, says where, and leaves no temp file.
func TestSimulateOutputs(t *testing.T) {
	out := filepath.Join(t.TempDir(), "a", "b")
	code, stdout, stderr := runCLI(t, smallArgs(out, "--csv")...)
	if code != 0 {
		t.Fatalf("exit status %d, stderr %q", code, stderr)
	}
	for _, f := range []string{requestsFile, summaryFile, poolsCSVFile, seriesFile} {
		if !strings.Contains(stdout, filepath.Join(out, f)) {
			t.Errorf("stdout does not say it wrote %s:\n%s", f, stdout)
		}
	}
	if !strings.Contains(stdout, "| short ") || !strings.Contains(stdout, "| fleet ") {
		t.Errorf("no per-pool table on stdout:\n%s", stdout)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 5 {
		t.Errorf("--out holds %d entries, want 4 and the run marker (no temporary files): %v", len(entries), entries)
	}
	recs, err := export.ReadParquet(filepath.Join(out, requestsFile))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Requests int64 `json:"requests"`
		Seed     uint64
		Outputs  []export.OutputFile
	}
	if err := json.Unmarshal(readBytes(t, filepath.Join(out, summaryFile)), &sum); err != nil {
		t.Fatal(err)
	}
	// testdata/small.json: 2,000 requests, seed 3.
	if len(recs) != 2000 || sum.Requests != 2000 || sum.Seed != 3 {
		t.Errorf("%d rows, summary requests %d, seed %d; want 2000, 2000, 3", len(recs), sum.Requests, sum.Seed)
	}
	var outTok int64
	seen := make(map[int64]bool)
	for _, r := range recs {
		outTok += int64(r.OutputTokens)
		seen[r.ID] = true
	}
	if len(seen) != len(recs) {
		t.Errorf("%d distinct ids in %d rows", len(seen), len(recs))
	}
	if len(sum.Outputs) == 0 || sum.Outputs[0].Stats == nil || sum.Outputs[0].Stats.SumOutputTokens != outTok {
		t.Errorf("summary outputs %+v; read back sum(output_tokens) = %d", sum.Outputs, outTok)
	}
}

// TestSimulateJSON: --format json prints summary.json's content, and only
// it, on stdout.
func TestSimulateJSON(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, smallArgs(out, "--format", "json", "--no-parquet")...)
	if code != 0 {
		t.Fatalf("exit status %d, stderr %q", code, stderr)
	}
	if stdout != string(readBytes(t, filepath.Join(out, summaryFile))) {
		t.Error("stdout differs from summary.json")
	}
	if !strings.Contains(stderr, "wrote ") {
		t.Errorf("stderr %q does not say where it wrote", stderr)
	}
	if _, err := os.Stat(filepath.Join(out, requestsFile)); !os.IsNotExist(err) {
		t.Error("--no-parquet wrote requests.parquet")
	}
}

// TestSimulateDeterministic: the same seed gives byte-identical
// requests.parquet and summary.json across runs and across GOMAXPROCS 1
// and 2; another seed gives another file.
func TestSimulateDeterministic(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var first, firstSum []byte
	for i, procs := range []int{1, 2, 2, 1} {
		runtime.GOMAXPROCS(procs)
		out := t.TempDir()
		if code, _, stderr := runCLI(t, smallArgs(out)...); code != 0 {
			t.Fatalf("run %d: exit status %d, stderr %q", i, code, stderr)
		}
		pq := readBytes(t, filepath.Join(out, requestsFile))
		sm := readBytes(t, filepath.Join(out, summaryFile))
		if i == 0 {
			first, firstSum = pq, sm
			continue
		}
		if !bytes.Equal(pq, first) {
			t.Errorf("run %d (GOMAXPROCS=%d): requests.parquet differs from run 0 (GOMAXPROCS=1)", i, procs)
		}
		if !bytes.Equal(sm, firstSum) {
			t.Errorf("run %d (GOMAXPROCS=%d): summary.json differs from run 0", i, procs)
		}
	}
	out := t.TempDir()
	if code, _, _ := runCLI(t, smallArgs(out, "--seed", "4")...); code != 0 {
		t.Fatal("seed 4 run failed")
	}
	if bytes.Equal(readBytes(t, filepath.Join(out, requestsFile)), first) {
		t.Error("seeds 3 and 4 gave the same requests.parquet")
	}
}

// TestSummaryGolden compares summary.json of the small scenario with
// testdata/small.summary.golden.json; regenerate with
// `go test ./cmd/fleetsim -run TestSummaryGolden -update`.
func TestSummaryGolden(t *testing.T) {
	out := t.TempDir()
	if code, _, stderr := runCLI(t, smallArgs(out)...); code != 0 {
		t.Fatalf("exit status %d, stderr %q", code, stderr)
	}
	got := readBytes(t, filepath.Join(out, summaryFile))
	golden := filepath.Join(repoTestdata, "small.summary.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			g, w := "", ""
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Errorf("summary.json differs from %s at line %d: got %q, want %q (run `go test ./cmd/fleetsim -run TestSummaryGolden -update` if the change is intended)",
					golden, i+1, strings.TrimSpace(g), strings.TrimSpace(w))
				break
			}
		}
	}
}

// TestScenarioFiles: the example scenario files load, and flags override
// them.
func TestScenarioFiles(t *testing.T) {
	cfg := parseScenario(t, "--config", filepath.Join(repoTestdata, "scenario.yaml"), "--requests", "500", "--pool", "x:h100:2:8192")
	if cfg.Workload.Requests != 500 || cfg.Workload.Rate != 1000 || len(cfg.Pools) != 1 || cfg.Pools[0].GPU != "h100" {
		t.Errorf("flags did not override the file: %+v", cfg)
	}

	// A trace file without a rate replays its own timestamps, and its
	// relative path is relative to the scenario file.
	cfg = parseScenario(t, "--config", filepath.Join(repoTestdata, "trace.yaml"))
	if cfg.Workload.CDF != "" || cfg.Workload.Rate != 0 || cfg.Workload.Trace != filepath.Join("..", "..", "workload", "testdata", "AzureLLMInferenceTrace_code.csv") {
		t.Errorf("trace scenario: %+v", cfg.Workload)
	}
	out := t.TempDir()
	if code, _, stderr := runCLI(t, "simulate", "--config", filepath.Join(repoTestdata, "trace.yaml"), "--out", out); code != 0 {
		t.Fatalf("trace scenario: exit status %d, stderr %q", code, stderr)
	}
}

// TestDefaultScenario runs the default command (no subcommand) on a smaller
// request count.
func TestDefaultScenario(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "--requests", "3000", "--out", out)
	if code != 0 {
		t.Fatalf("exit status %d, stderr %q", code, stderr)
	}
	if !strings.Contains(stdout, "azure workload") || !strings.Contains(stdout, "| long ") {
		t.Errorf("unexpected output:\n%s", stdout)
	}
}

func TestParsePool(t *testing.T) {
	p, err := parsePool("short:a100:43:4096")
	if err != nil || p.Name != "short" || p.GPU != "a100" || p.Count != 43 || p.MaxContext != 4096 {
		t.Errorf("parsePool: %+v, %v", p, err)
	}
}

// TestSimulateOutIsFile: an --out that is a regular file is bad input, and
// the file is left as it was.
func TestSimulateOutIsFile(t *testing.T) {
	p := writeFile(t, t.TempDir(), "out", "keep")
	code, _, stderr := runCLI(t, "simulate", "--requests", "10", "--out", p)
	if code != 2 || !strings.Contains(stderr, "not a directory") {
		t.Fatalf("exit status %d, stderr %q; want 2 and 'not a directory'", code, stderr)
	}
	if b := readBytes(t, p); string(b) != "keep" {
		t.Errorf("the file was changed to %q", b)
	}
}

// parseScenario builds the configuration of a simulate command line.
func parseScenario(t *testing.T, args ...string) sim.Config {
	t.Helper()
	f := newSimFlags()
	if err := f.fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	cfg, err := f.scenario()
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestSimulateRouterFlags: the router flags and --categories reach the
// run's configuration (and summary.json); scenario-file keys do the same,
// and flags override them.
func TestSimulateRouterFlags(t *testing.T) {
	cfg := parseScenario(t, "--router", "cr", "--categories", "prose=0.6,code=0.25,rag=0.15", "--b-short", "3072",
		"--gamma", "1.25", "--p-c", "0.8", "--spill-queue-per-gpu", "6", "--ema-decay", "0.9")
	want := sim.RouterConfig{Config: router.Config{Kind: "cr", BShort: 3072, Gamma: 1.25, PC: 0.8, SpillQueuePerGPU: 6, EMADecay: 0.9}}
	if !reflect.DeepEqual(cfg.Router, want) {
		t.Errorf("router %+v, want %+v", cfg.Router, want)
	}
	if c := cfg.Workload.Categories; len(c) != 3 || c["prose"] != 0.6 || c["code"] != 0.25 || c["rag"] != 0.15 {
		t.Errorf("categories %v", c)
	}
	// Names are case-insensitive; shares that are not exact in binary
	// still sum to 1 within the workload package's 1e-9.
	cfg = parseScenario(t, "--categories", "Prose=0.1,CODE=0.2,cjk=0.3,mixed=0.4", "--router", "spillover")
	if c := cfg.Workload.Categories; c["prose"] != 0.1 || c["code"] != 0.2 || c["cjk"] != 0.3 || c["mixed"] != 0.4 || cfg.Router.Kind != "spillover" {
		t.Errorf("categories %v, router %+v", c, cfg.Router)
	}

	dir := t.TempDir()
	file := writeFile(t, dir, "r.yaml", `workload:
  cdf: azure
  rate: 50
  requests: 1500
  categories: {prose: 0.75, code: 0.25}
pools:
  - {name: short, gpu: a100, count: 2, max_ctx: 4096}
  - {name: long, gpu: a100, count: 6, max_ctx: 65536}
router: {kind: cr, b_short: 4096, gamma: 1.5, p_c: 1, spill_queue_per_gpu: 8, ema_decay: 0.95}
`)
	cfg = parseScenario(t, "--config", file)
	want = sim.RouterConfig{Config: router.Config{Kind: "cr", BShort: 4096, Gamma: 1.5, PC: 1, SpillQueuePerGPU: 8, EMADecay: 0.95}}
	if !reflect.DeepEqual(cfg.Router, want) || cfg.Workload.Categories["code"] != 0.25 {
		t.Errorf("file: router %+v, categories %v", cfg.Router, cfg.Workload.Categories)
	}
	cfg = parseScenario(t, "--config", file, "--gamma", "2", "--categories", "prose=1")
	if cfg.Router.Gamma != 2 || cfg.Router.BShort != 4096 || len(cfg.Workload.Categories) != 1 {
		t.Errorf("flags over file: router %+v, categories %v", cfg.Router, cfg.Workload.Categories)
	}

	// A run: the summary records the router and the mix, code is never
	// compressed, and compressed requests are served by the short pool.
	out := t.TempDir()
	code, _, stderr := runCLI(t, "simulate", "--config", file, "--out", out, "--format", "json")
	if code != 0 {
		t.Fatalf("exit status %d, stderr %q", code, stderr)
	}
	var sum struct {
		Config sim.Config `json:"config"`
	}
	if err := json.Unmarshal(readBytes(t, filepath.Join(out, summaryFile)), &sum); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sum.Config.Router, want) || sum.Config.Workload.Categories["code"] != 0.25 {
		t.Errorf("summary.json config: router %+v, categories %v", sum.Config.Router, sum.Config.Workload.Categories)
	}
	recs, err := export.ReadParquet(filepath.Join(out, requestsFile))
	if err != nil {
		t.Fatal(err)
	}
	cats := map[string]int{}
	compressed := 0
	for _, r := range recs {
		cats[r.Category]++
		if r.Compressed {
			compressed++
			if r.Category == "code" || r.Pool != "short" {
				t.Errorf("request %d (%s) compressed, served by %s", r.ID, r.Category, r.Pool)
			}
		}
	}
	if cats["code"] == 0 || cats["prose"] == 0 || len(cats) != 2 || compressed == 0 {
		t.Errorf("categories %v, %d compressed: the mix or C&R did not reach the run", cats, compressed)
	}
}

// planPool is what a plan file says about one pool.
type planPool struct {
	Name   string `json:"name"`
	GPU    string `json:"gpu"`
	MaxCtx int    `json:"max_ctx"`
	GPUs   int    `json:"gpus"`
}

// TestSimulatePlan: fleetsim plan → JSON file → fleetsim simulate --plan
// simulates exactly the planned pools (names, GPUs, counts, max contexts),
// with the plan's workload, rate and timing; a retrofit plan (γ = 1.5)
// turns on the cr router with the plan's B_short, γ and p_c.
func TestSimulatePlan(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.json")
	if code, _, stderr := runCLI(t, "plan", "--workload", "lmsys", "--rate", "40", "--b-short", "1536", "--gpu", "a100",
		"--gamma", "1.5", "--method", "all", "--format", "json", "--out", plan); code != 0 {
		t.Fatalf("fleetsim plan: exit status %d, stderr %q", code, stderr)
	}
	var doc struct {
		Rate    float64 `json:"rate"`
		Methods []struct {
			Method string     `json:"method"`
			BShort int        `json:"b_short"`
			Gamma  float64    `json:"gamma"`
			PC     float64    `json:"p_c"`
			Pools  []planPool `json:"pools"`
		} `json:"methods"`
	}
	if err := json.Unmarshal(readBytes(t, plan), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Methods) != 4 {
		t.Fatalf("plan holds %d methods, want 4", len(doc.Methods))
	}
	for _, m := range doc.Methods {
		t.Run(m.Method, func(t *testing.T) {
			out := t.TempDir()
			code, _, stderr := runCLI(t, "simulate", "--plan", plan, "--plan-method", m.Method, "--requests", "2000",
				"--no-parquet", "--out", out)
			if code != 0 {
				t.Fatalf("exit status %d, stderr %q", code, stderr)
			}
			var sum struct {
				Config sim.Config `json:"config"`
				Pools  []struct {
					Name       string `json:"name"`
					GPU        string `json:"gpu"`
					GPUs       int    `json:"gpus"`
					MaxContext int    `json:"max_ctx"`
					Arrived    int64  `json:"arrived"`
				} `json:"pools"`
			}
			if err := json.Unmarshal(readBytes(t, filepath.Join(out, summaryFile)), &sum); err != nil {
				t.Fatal(err)
			}
			if len(sum.Pools) != len(m.Pools) {
				t.Fatalf("%d pools simulated, %d planned", len(sum.Pools), len(m.Pools))
			}
			for i, pp := range m.Pools {
				got := sum.Pools[i]
				if got.Name != pp.Name || !strings.EqualFold(got.GPU, pp.GPU) || got.GPUs != pp.GPUs || got.MaxContext != pp.MaxCtx {
					t.Errorf("pool %d: simulated %s %s ×%d at %d tokens, planned %s %s ×%d at %d",
						i, got.Name, got.GPU, got.GPUs, got.MaxContext, pp.Name, pp.GPU, pp.GPUs, pp.MaxCtx)
				}
			}
			w := sum.Config.Workload
			if w.CDF != "lmsys" || w.Rate != doc.Rate || w.InputFraction != 0.8 || sum.Config.Timing != "kv" {
				t.Errorf("workload %+v, timing %s: want the plan's lmsys at %v req/s, kv", w, sum.Config.Timing, doc.Rate)
			}
			r := sum.Config.Router
			if m.Gamma > 1 {
				want := sim.RouterConfig{Config: router.Config{Kind: "cr", BShort: m.BShort, Gamma: m.Gamma, PC: m.PC}}
				if !reflect.DeepEqual(r, want) {
					t.Errorf("router %+v, want %+v (the plan relies on C&R)", r, want)
				}
			} else if r.Kind != "length" {
				t.Errorf("router %+v, want length (γ = %v)", r, m.Gamma)
			}
		})
	}

	// Flags override the plan's workload, rate and router; the fleet stays
	// the plan's.
	cfg := parseScenario(t, "--plan", plan, "--plan-method", "retrofit", "--workload", "azure", "--rate", "7", "--router", "spillover")
	if cfg.Workload.CDF != "azure" || cfg.Workload.Rate != 7 || cfg.Router.Kind != "spillover" || cfg.Router.Gamma != 0 || cfg.Router.BShort != 1536 {
		t.Errorf("flags over the plan: workload %+v, router %+v", cfg.Workload, cfg.Router)
	}
	// A relative CDF file is found beside the plan.
	cdf := writeFile(t, dir, "mine.json", `[[1000, 0.5], [4000, 1]]`)
	p2 := filepath.Join(dir, "plan2.json")
	if code, _, stderr := runCLI(t, "plan", "--workload", cdf, "--rate", "10", "--b-short", "2048", "--gpu", "a100",
		"--method", "pr", "--format", "json", "--out", p2); code != 0 {
		t.Fatalf("fleetsim plan: exit status %d, stderr %q", code, stderr)
	}
	data := strings.Replace(string(readBytes(t, p2)), strings.ReplaceAll(cdf, `\`, `\\`), "mine.json", 1)
	p3 := writeFile(t, dir, "plan3.json", data)
	cfg = parseScenario(t, "--plan", p3)
	if cfg.Workload.CDF != cdf || cfg.Workload.Rate != 10 {
		t.Errorf("relative CDF: workload %+v, want %s", cfg.Workload, cdf)
	}
}

// FuzzParseCategories: no --categories value panics; an accepted mix has
// known names and shares in [0, 1] summing to 1, and the workload package
// accepts it; every error is one line naming --categories.
func FuzzParseCategories(f *testing.F) {
	for _, s := range []string{"prose=0.6,code=0.25,rag=0.15", "prose=1", "prose", "=", ",", "prose=0.5,prose=0.5",
		"cjk=NaN", "mixed=+Inf", "code=1e-400,prose=1", "PROSE = 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := parseCategories(s)
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "--categories ") {
				t.Errorf("error %q: not one line naming --categories", msg)
			}
			return
		}
		sum := 0.0
		for _, v := range m {
			if !(v >= 0 && v <= 1) {
				t.Errorf("%q: share %v accepted", s, v)
			}
			sum += v
		}
		if d := sum - 1; d > 1e-9 || d < -1e-9 {
			t.Errorf("%q: shares sum to %v", s, sum)
		}
		spec := sim.Defaults().Workload
		spec.Categories = m
		if err := spec.Validate(); err != nil {
			t.Errorf("%q accepted by --categories, refused by workload.Spec: %v", s, err)
		}
	})
}
