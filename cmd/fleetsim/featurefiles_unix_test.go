//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFeatureFilesLimits: the inputs of capacity, fit and optimize are read
// once with size limits (docs/cli.md, "Input limits"): /dev/zero as a
// profile, benchmark, variants file or profile_file read forever, and now
// ends in one line and exit 2; and their outputs may replace only regular
// files: --out or --plot through a symbolic link replaced the link, and
// --out /dev/null as root replaced the device node with a regular file.
// Review of issues 10 and 11.
func TestFeatureFilesLimits(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	trace := writeFile(t, dir, "t.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.68,374,44\n2023-11-16 18:15:50.99,396,109\n")
	bench := writeFile(t, dir, "b.csv", "mm,hw,prec,bb,itl\nm,H,f,1,7\nm,H,f,64,8.7\n")
	variantsFile, _ := filepath.Abs("../../examples/variants.yaml")
	target := writeFile(t, dir, "target.json", "keep")
	link := filepath.Join(dir, "link.json")
	plotLink := filepath.Join(dir, "link.png")
	for _, l := range []string{link, plotLink} {
		if err := os.Symlink(target, l); err != nil {
			t.Fatal(err)
		}
	}
	zeroProfile := writeFile(t, dir, "v.yaml", `variants:
  - {name: a, model: m, accelerator: H, unit_cost: 1, profile_file: /dev/zero}
workloads:
  - {name: w, model: m, rate_rpm: 60, in_tokens: 10, out_tokens: 10}
`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"capacity", "--trace", trace, "--profile", "/dev/zero"}, "--profile"},
		{[]string{"fit", "--bench", "/dev/zero"}, "--bench"},
		{[]string{"optimize", "--config", "/dev/zero"}, "--config"},
		{[]string{"optimize", "--config", zeroProfile}, "profile_file"},
		{[]string{"capacity", "--trace", trace, "--out", link}, "--out"},
		{[]string{"capacity", "--trace", trace, "--out", fifo}, "--out"},
		{[]string{"optimize", "--config", variantsFile, "--out", link}, "--out"},
		{[]string{"fit", "--bench", bench, "--out", fifo}, "--out"},
		{[]string{"fit", "--bench", bench, "--plot", plotLink}, "--plot"},
		{[]string{"fit", "--bench", bench, "--plot", filepath.Join(dir, "p.png"), "--out", link}, "--out"},
	} {
		code, _, errs := runWithin(t, 20*time.Second, c.args...)
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line naming %s", c.args, code, errs, c.want)
		}
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "keep" {
		t.Errorf("the symbolic links' target changed: %q, %v", b, err)
	}
	for _, l := range []string{link, plotLink} {
		if fi, err := os.Lstat(l); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s was replaced: %v, %v", l, fi.Mode(), err)
		}
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v, %v", fi.Mode(), err)
	}
	if _, err := os.Stat(filepath.Join(dir, "p.png")); err == nil {
		t.Error("a plot was written although --out was refused")
	}
}

// TestFeatureFIFOInput: like a trace, a capacity profile, a benchmark and a
// variants file may come from a FIFO (or process substitution): read once.
func TestFeatureFIFOInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		content string
		args    func(fifo string) []string
	}{
		{"tau: 1000\n", func(p string) []string {
			return []string{"capacity", "--trace", "../../workload/testdata/AzureLLMInferenceTrace_conv.csv", "--requests", "50", "--profile", p}
		}},
		{"mm,hw,prec,bb,itl\nm,H,f,1,7\nm,H,f,64,8.7\n", func(p string) []string { return []string{"fit", "--bench", p} }},
	} {
		fifo := filepath.Join(dir, "in.fifo")
		os.Remove(fifo)
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Skip("mkfifo:", err)
		}
		go func() {
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				f.WriteString(c.content)
				f.Close()
			}
		}()
		if code, _, errs := runWithin(t, 20*time.Second, c.args(fifo)...); code != 0 {
			t.Errorf("%v: exit %d: %s", c.args(fifo), code, errs)
		}
	}
}
