package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fleetsim/fleetsim/internal/doctest"
)

// docFiles are the documentation files whose commands must run: README.md
// and docs/*.md (docs/results/ is generated output, not documentation).
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join(root, "README.md")}, files...)
}

// docCommands extracts the commands of every documentation file, keyed by
// file (relative to root), in the files' order.
func docCommands(t *testing.T, root string) (order []string, byFile map[string][]doctest.Command) {
	t.Helper()
	byFile = map[string][]doctest.Command{}
	for _, f := range docFiles(t, root) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		cmds, err := doctest.Extract(rel, string(src))
		if err != nil {
			t.Fatal(err)
		}
		order = append(order, rel)
		byFile[rel] = cmds
	}
	return order, byFile
}

// absoluteOutside matches a path under /tmp (or ~, $HOME) in a command:
// the test runs each file's commands in a temporary copy of the repository,
// and a command writing to /tmp/fleetsim-day would write there from every
// test run (and collide between parallel ones); outputs go under out/.
var absoluteOutside = regexp.MustCompile(`(^|[\s=>'"])(/tmp/|~/|\$HOME/|\$\{HOME\}/)\S*`)

// docSlowEnv, set to 1, also runs the commands marked slow (.ci/run sets it).
const docSlowEnv = "FLEETSIM_DOCS_SLOW"

// TestDocCommands runs every runnable command of README.md and docs/*.md as
// written, from a copy of the repository root (symbolic links to its
// directories, so outputs land in a temporary directory), with `fleetsim`
// the binary under test; a command fails the test with its file and line
// when its exit status is not the documented one (0 unless the block says
// `<!-- doctest: exit N -->`). Commands of a file run in order in one
// directory, as a reader pasting them would; files run in parallel.
// Commands marked slow run only with FLEETSIM_DOCS_SLOW=1 and without -short.
func TestDocCommands(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	slow := os.Getenv(docSlowEnv) == "1" && !testing.Short()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	wrapper := fmt.Sprintf("#!/bin/sh\nFLEETSIM_TEST_MAIN=1 exec %q \"$@\"\n", exe)
	if err := os.WriteFile(filepath.Join(bin, "fleetsim"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	order, byFile := docCommands(t, root)
	var runnable, synopses, skipped, notSlow int
	for _, f := range order {
		for _, c := range byFile[f] {
			switch {
			case c.Kind == doctest.Synopsis:
				synopses++
				if why := doctest.CheckSynopsis(c.Text); why != "" {
					t.Errorf("%s: synopsis %q: %s", c.Where(), c.Text, why)
				}
			case c.Skip != "":
				runnable++
				skipped++
			default:
				runnable++
				if p := absoluteOutside.FindString(c.Text); p != "" {
					t.Errorf("%s: %q names %s, outside the repository: a reader's run and the test would write there (use out/...)", c.Where(), firstLine(c.Text), strings.TrimSpace(p))
				}
				if c.Slow && !slow {
					notSlow++
				}
			}
		}
	}
	t.Logf("%d runnable commands (%d never run by this test, %d slow ones not run now: set %s=1), %d synopses",
		runnable, skipped, notSlow, docSlowEnv, synopses)
	for _, f := range order {
		cmds := byFile[f]
		t.Run(filepath.ToSlash(f), func(t *testing.T) {
			t.Parallel()
			work := docWorkspace(t, root)
			// ./fleetsim, as the docs' `go build -o fleetsim ./cmd/fleetsim`
			// leaves it: that command is slow, and when it runs it builds
			// the real binary there.
			if !slow {
				if err := os.WriteFile(filepath.Join(work, "fleetsim"), []byte(wrapper), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, c := range cmds {
				if c.Kind != doctest.Runnable || c.Skip != "" || (c.Slow && !slow) {
					continue
				}
				runDocCommand(t, c, work, bin)
			}
		})
	}
}

// docWorkspace returns a temporary directory holding a symbolic link to
// every entry of the repository root but the outputs a command may write.
func docWorkspace(t *testing.T, root string) string {
	t.Helper()
	work := t.TempDir()
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") || (!e.IsDir() && name != "go.mod" && name != "go.sum") {
			continue
		}
		switch name {
		case "out", "sweep", "fleetsim": // outputs of the documented commands
			continue
		}
		if err := os.Symlink(filepath.Join(root, name), filepath.Join(work, name)); err != nil {
			t.Fatal(err)
		}
	}
	return work
}

// runDocCommand runs c in work with bin first on PATH and fails the test
// unless it exits with the documented status.
func runDocCommand(t *testing.T, c doctest.Command, work, bin string) {
	t.Helper()
	script := "set -e -o pipefail\n" + strings.Join(c.Prelude, "\n") + "\n" + doctest.Rewrite(c.Text) + "\n"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GOBIN="+filepath.Join(work, "gobin"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	status := 0
	if err != nil {
		status = -1
		if ee, ok := err.(*exec.ExitError); ok {
			status = ee.ExitCode()
		}
	}
	t.Logf("%s: %.2fs exit %d: %s", c.Where(), time.Since(start).Seconds(), status, firstLine(c.Text))
	if status != c.Exit {
		t.Errorf("%s: %s\nexit status %d, want %d; output ends:\n%s", c.Where(), c.Text, status, c.Exit, tail(out.String(), 1500))
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
