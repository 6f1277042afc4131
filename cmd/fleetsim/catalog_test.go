package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runFS(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestCatalogList(t *testing.T) {
	out, _, code := runFS(t, "catalog")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"a100", "h100", "h200", "b200", "l40s", "a10g", "mi300x",
		"llama-3.1-405b", "qwen3-235b-a22b", "mixtral-8x7b", "deepseek-v3", "mistral-7b", "327680", "70272"} {
		if !strings.Contains(out, want) {
			t.Errorf("catalog list lacks %q", want)
		}
	}
}

// TestCatalogProfile checks the printed arithmetic of the example
// against the hand computation in docs/catalog.md: weights per GPU
// 141.2/4 = 35.3 GB; KV (70 − 35.3) GB / (16 × 81,920 B) = 26,473 blocks;
// W = 35.3e9/2.68e12 + 0.8 + 1.28 ms = 15.2516 ms.
func TestCatalogProfile(t *testing.T) {
	out, errs, code := runFS(t, "catalog", "profile", "--gpu", "h100", "--model", "llama-3.1-70b", "--tp", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"= 26473 blocks", "W                   15.2516 ms", "4 × $3.90/GPU-h = $15.60", "51 at 8,192"} {
		if !strings.Contains(out, want) {
			t.Errorf("profile output lacks %q:\n%s", want, out)
		}
	}
	out, _, code = runFS(t, "catalog", "profile", "--gpu", "all", "--model", "llama-3.1-8b", "--tp", "1")
	if code != 0 || strings.Count(out, "/llama-3.1-8b/tp1") != 7 {
		t.Errorf("--gpu all: exit %d\n%s", code, out)
	}
}

func TestCatalogBadSpecs(t *testing.T) {
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero.yaml")
	os.WriteFile(zero, []byte("gpu_spec: {name: z, mem_gb: 80, mem_bw_gbs: 0, fp16_tflops: 100, usd_per_gpu_hour: 1}\nmodel: llama-3.1-8b\ntp: 1\n"), 0o644)
	for _, args := range [][]string{
		{"catalog", "profile", "--file", zero},
		{"catalog", "profile", "--gpu", "h100", "--model", "llama-3.1-70b", "--tp", "3"},
		{"catalog", "profile", "--gpu", "a10g", "--model", "llama-3.1-70b", "--tp", "1"},
		{"plan", "--gpu", "h100/llama-3.1-70b/tp3"},
		{"simulate", "--pool", "s:h100/llama-3.1-405b/tp8:1:4096", "--out", dir},
		{"validate", "--gpu", "a10g/llama-3.1-70b/tp1"},
	} {
		_, errs, code := runFS(t, args...)
		if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line", args, code, errs)
		}
	}
}

// TestScenarioComputedPools simulates the example scenario: a catalog model
// by fields, a profile file and a Hugging Face config.json of a model not in
// the catalog (Phi-3-mini on an L40S).
func TestScenarioComputedPools(t *testing.T) {
	out, errs, code := runFS(t, "simulate", "--config", "../../examples/catalog/scenario.yaml", "--requests", "600", "--no-parquet", "--out", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"h100/llama-3.1-8b/tp1", "l40s/phi-3-mini-4k/tp1", "h100/llama-3.1-70b/tp4", "4 instances × tp 4 = 16 GPUs"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
