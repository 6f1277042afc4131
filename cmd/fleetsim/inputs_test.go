package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// azureTrace returns an Azure-format CSV trace of n rows, one every 50 ms.
func azureTrace(n int) string {
	var b strings.Builder
	b.WriteString("TIMESTAMP,ContextTokens,GeneratedTokens\n")
	for i := range n {
		fmt.Fprintf(&b, "%.3f,%d,%d\n", float64(i)*0.05, 100+i%7, 10+i%5)
	}
	return b.String()
}

// fleetCounts reads summary.json's warm-up count and the fleet's arrivals.
func fleetCounts(t *testing.T, out string) (warm, arrived int64) {
	t.Helper()
	var s struct {
		WarmupRequests int64 `json:"warmup_requests"`
		Fleet          struct {
			Arrived int64 `json:"arrived"`
		} `json:"fleet"`
	}
	if err := json.Unmarshal(readBytes(t, filepath.Join(out, summaryFile)), &s); err != nil {
		t.Fatal(err)
	}
	return s.WarmupRequests, s.Fleet.Arrived
}

// TestShortTraceWarmup is issue 7 bug 1: a trace shorter than --requests
// warms up on 20% of the rows it really replays (not of --requests, which
// made every row warm-up: arrived 0), and says so in one stderr line.
func TestShortTraceWarmup(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "t.csv", azureTrace(200))
	out := filepath.Join(dir, "out")
	args := []string{"simulate", "--trace", trace, "--pool", "x:a100:2:4096", "--requests", "1000", "--out", out, "--no-parquet"}
	code, _, errs := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// 200 rows, warm-up fraction 0.2 (the default): 40 warm-up, 160 measured.
	if warm, arrived := fleetCounts(t, out); warm != 40 || arrived != 160 {
		t.Errorf("warm-up %d, measured arrivals %d; want 40 and 160", warm, arrived)
	}
	if n := strings.Count(errs, "\n"); n != 1 || !strings.Contains(errs, "200 rows") || !strings.Contains(errs, "--requests 1000") {
		t.Errorf("stderr %q: want one line saying the trace has 200 rows, fewer than --requests 1000", errs)
	}
	// A trace at least as long as --requests prints nothing.
	code, _, errs = runCLI(t, "simulate", "--trace", trace, "--pool", "x:a100:2:4096", "--requests", "200", "--out", out, "--no-parquet")
	if code != 0 || errs != "" {
		t.Errorf("exit %d, stderr %q; want 0 and nothing", code, errs)
	}
}

// runWithin runs the command line and fails the test if it takes longer
// than d (a run that hangs on a FIFO opened twice).
func runWithin(t *testing.T, d time.Duration, args ...string) (int, string, string) {
	t.Helper()
	type res struct {
		code      int
		out, errs string
	}
	ch := make(chan res, 1)
	go func() {
		var o, e strings.Builder
		c := run(args, &o, &e)
		ch <- res{c, o.String(), e.String()}
	}()
	select {
	case r := <-ch:
		return r.code, r.out, r.errs
	case <-time.After(d):
		t.Fatalf("%v: still running after %v", args, d)
	}
	return 0, "", ""
}

// TestTraceReadOnce is issue 7 bug 6: the trace is read once, so a FIFO, and
// standard input as "-" or /dev/stdin, replay like a file. Before the fix
// the file was opened twice: a FIFO hung and /dev/stdin failed.
func TestTraceReadOnce(t *testing.T) {
	dir := t.TempDir()
	content := azureTrace(100)
	file := writeFile(t, dir, "t.csv", content)
	base := []string{"--pool", "x:a100:2:4096", "--requests", "100", "--no-parquet", "--format", "json"}
	code, want, errs := runCLI(t, append([]string{"simulate", "--trace", file, "--out", filepath.Join(dir, "f")}, base...)...)
	if code != 0 {
		t.Fatalf("file: exit %d: %s", code, errs)
	}
	// The summaries differ only in the trace's name.
	norm := func(s, name string) string {
		return strings.ReplaceAll(s, `"trace": "`+name+`"`, `"trace": "TRACE"`)
	}
	want = norm(want, file)

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	feed := func(p string) {
		go func() {
			w, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			w.WriteString(content)
			w.Close()
		}()
	}
	feed(fifo)
	code, got, errs := runWithin(t, 30*time.Second, append([]string{"simulate", "--trace", fifo, "--trace-format", "azure", "--out", filepath.Join(dir, "p")}, base...)...)
	if code != 0 || norm(got, fifo) != want {
		t.Errorf("FIFO: exit %d, stderr %q; summary differs from the file's: %v", code, errs, got != want)
	}

	for _, name := range []string{"-", "/dev/stdin"} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		old := os.Stdin
		os.Stdin = r
		go func() { w.WriteString(content); w.Close() }()
		if name == "/dev/stdin" {
			// /dev/stdin is file descriptor 0, not os.Stdin: give the pipe
			// that descriptor for the run.
			saved, _ := syscall.Dup(0)
			syscall.Dup2(int(r.Fd()), 0)
			defer func() { syscall.Dup2(saved, 0); syscall.Close(saved) }()
		}
		code, got, errs := runWithin(t, 30*time.Second, append([]string{"simulate", "--trace", name, "--trace-format", "azure", "--out", filepath.Join(dir, "s")}, base...)...)
		os.Stdin = old
		r.Close()
		if code != 0 || norm(got, name) != want {
			t.Errorf("--trace %s: exit %d, stderr %q, summary equal to the file's: %v", name, code, errs, norm(got, name) == want)
		}
	}
}

// sparseFile makes a 1 GiB file of zeros that takes no disk space (the
// adversarial input of issue 7 bug 6, which used 5.7 GB of memory).
func sparseFile(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return p
}

// TestInputLimits is issue 7 bug 6: a huge input (1 GiB of zeros, no
// newline) given as a trace, CDF, scenario, plan, model list or compress
// input ends in exit 2 with one line naming the limit, having read a bounded
// part of it (allocations stay far below the file's size).
func TestInputLimits(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	cases := [][]string{
		{"simulate", "--trace", sparseFile(t, dir, "t.csv"), "--out", out},
		{"simulate", "--trace", sparseFile(t, dir, "t.jsonl"), "--out", out},
		{"simulate", "--trace", sparseFile(t, dir, "g.jsonl"), "--trace-format", "generic", "--out", out},
		{"simulate", "--workload", sparseFile(t, dir, "c.json"), "--out", out},
		{"simulate", "--config", sparseFile(t, dir, "s.yaml"), "--out", out},
		{"simulate", "--plan", sparseFile(t, dir, "p.json"), "--out", out},
		{"plan", "--workload", filepath.Join(dir, "c.json"), "--method", "homo"},
		{"plan", "--memory", "--models", sparseFile(t, dir, "m.json")},
		{"compress", "--budget", "100", sparseFile(t, dir, "prompt.txt")},
		// review5: the newer commands read their files whole, without a
		// limit (/dev/zero hung them, a sparse file filled memory).
		{"optimize", "--config", sparseFile(t, dir, "v.yaml")},
		{"fit", "--bench", sparseFile(t, dir, "b.csv")},
		{"capacity", "--workload", "azure", "--rate", "10", "--requests", "100", "--profile", sparseFile(t, dir, "prof.yaml")},
		{"catalog", "profile", "--file", sparseFile(t, dir, "spec.yaml")},
		{"catalog", "profile", "--gpu", "a100", "--hf-config", sparseFile(t, dir, "config.json")},
	}
	for _, args := range cases {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		code, _, errs := runCLI(t, args...)
		runtime.ReadMemStats(&after)
		oneErrLine(t, args, code, errs, "longer than")
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
			t.Errorf("%v: allocated %d MiB reading a 1 GiB input", args, alloc>>20)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("--out %s created by a refused run", out)
	}
}

// TestScenarioAliasBomb (review5): a "billion laughs" YAML scenario, nine
// levels of nine aliases (9^9 = 387M scalars in a 1 KB file), is refused in
// one line instead of expanding every alias (which ran for minutes).
func TestScenarioAliasBomb(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("a: &a [x, x, x, x, x, x, x, x, x]\n")
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		fmt.Fprintf(&b, "%s: &%s [%s]\n", n, n, strings.TrimSuffix(strings.Repeat("*"+prev+", ", 9), ", "))
		prev = n
	}
	file := writeFile(t, dir, "bomb.yaml", b.String())
	out := filepath.Join(dir, "out")
	args := []string{"simulate", "--config", file, "--out", out}
	code, _, errs := runWithin(t, 20*time.Second, args...)
	oneErrLine(t, args, code, errs, "aliases")
	if _, err := os.Stat(out); err == nil {
		t.Errorf("--out %s created by a refused run", out)
	}
}
