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

// runWithin runs the CLI and fails the test instead of hanging when it does
// not return within d. A run blocked opening fifo is released by opening
// the FIFO's other end; one reading /dev/zero is left behind (the test
// binary ends with the failed test run).
func runWithin(t *testing.T, d time.Duration, fifo string, args ...string) (int, string) {
	t.Helper()
	type res struct {
		code int
		errs string
	}
	done := make(chan res, 1)
	go func() {
		code, _, errs := runCLI(t, args...)
		done <- res{code, errs}
	}()
	select {
	case r := <-done:
		return r.code, r.errs
	case <-time.After(d):
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		t.Errorf("%v: still running after %v (blocked on a FIFO or an endless file)", args, d)
		return -1, ""
	}
}

// TestFeatureFilesNotRegular: the inputs of capacity, fit and optimize must
// be regular files (a FIFO blocked the command forever, /dev/zero never
// ended), and their outputs may replace only regular files: --out through a
// symbolic link replaced the link, and --out /dev/null as root replaced the
// device node with a regular file. Each is one line and exit status 2, and
// nothing is written. Review of issues 10 and 11.
func TestFeatureFilesNotRegular(t *testing.T) {
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
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fifoYAML := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifoYAML, 0o644); err != nil {
		t.Fatal(err)
	}
	cfgWithFifoProfile := writeFile(t, dir, "v.yaml", `variants:
  - {name: a, model: m, accelerator: H, unit_cost: 1, profile_file: fifo}
workloads:
  - {name: w, model: m, rate_rpm: 60, in_tokens: 10, out_tokens: 10}
`)
	for _, c := range []struct {
		fifo string
		args []string
		want string
	}{
		{fifoYAML, []string{"capacity", "--trace", trace, "--profile", fifoYAML}, "--profile"},
		{fifo, []string{"capacity", "--trace", fifo, "--trace-format", "azure"}, "--trace"},
		{fifo, []string{"capacity", "--trace", "/dev/zero", "--trace-format", "azure"}, "--trace"},
		{fifo, []string{"capacity", "--workload", fifo, "--rate", "5", "--requests", "10"}, "--workload"},
		{fifo, []string{"fit", "--bench", fifo}, "--bench"},
		{fifo, []string{"fit", "--bench", "/dev/zero"}, "--bench"},
		{fifo, []string{"optimize", "--config", fifo}, "--config"},
		{fifo, []string{"optimize", "--config", "/dev/zero"}, "--config"},
		{fifo, []string{"optimize", "--config", cfgWithFifoProfile}, "profile_file"},
		{fifo, []string{"capacity", "--trace", trace, "--out", link}, "--out"},
		{fifo, []string{"capacity", "--trace", trace, "--out", fifo}, "--out"},
		{fifo, []string{"optimize", "--config", variantsFile, "--out", link}, "--out"},
		{fifo, []string{"fit", "--bench", bench, "--out", fifo}, "--out"},
		{fifo, []string{"fit", "--bench", bench, "--plot", filepath.Join(dir, "p.png"), "--out", link}, "--out"},
	} {
		if strings.Contains(strings.Join(c.args, " "), "/dev/zero") {
			if _, err := os.Stat("/dev/zero"); err != nil {
				continue
			}
		}
		code, errs := runWithin(t, 5*time.Second, c.fifo, c.args...)
		if code == -1 {
			continue
		}
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line naming %s", c.args, code, errs, c.want)
		}
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "keep" {
		t.Errorf("the symbolic link's target changed: %q, %v", b, err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symbolic link was replaced: %v, %v", fi.Mode(), err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v, %v", fi.Mode(), err)
	}
	if _, err := os.Stat(filepath.Join(dir, "p.png")); err == nil {
		t.Error("a plot was written although --out was refused")
	}
}
