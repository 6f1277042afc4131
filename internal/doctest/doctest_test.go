package doctest

import (
	"strings"
	"testing"
)

// TestExtract: the commands, kinds, lines, preludes and directives of a
// small document, written by hand.
func TestExtract(t *testing.T) {
	src := strings.Join([]string{
		"# Title",                               // 1
		"",                                      // 2
		"```sh",                                 // 3
		"T=trace.csv   # a trace",               // 4
		"fleetsim plan --rate 5   # comment",    // 5
		"",                                      // 6
		"# a comment line",                      // 7
		"fleetsim simulate --trace $T \\",       // 8
		"  --rate 9",                            // 9
		"```",                                   // 10
		"<!-- doctest: slow exit 3 -->",         // 11
		"```console",                            // 12
		"$ fleetsim simulate --osd enforce",     // 13
		"output line",                           // 14
		"```",                                   // 15
		"```synopsis",                           // 16
		"fleetsim simulate --osd {monitor,off}", // 17
		"```",                                   // 18
		"```text",                               // 19
		"fleetsim plan: --rate -1: must be > 0", // 20
		"```",                                   // 21
		"```sh",                                 // 22
		"go test ./...",                         // 23
		"go run ./cmd/fleetsim sweep --help",    // 24
		"```",                                   // 25
		"    fleetsim plan: error output is fine", // 26
	}, "\n")
	cmds, err := Extract("x.md", src)
	if err != nil {
		t.Fatal(err)
	}
	want := []Command{
		{File: "x.md", Line: 5, Text: "fleetsim plan --rate 5   # comment", Prelude: []string{"T=trace.csv   # a trace"}},
		{File: "x.md", Line: 8, Text: "fleetsim simulate --trace $T \\\n  --rate 9", Prelude: []string{"T=trace.csv   # a trace"}},
		{File: "x.md", Line: 13, Text: "fleetsim simulate --osd enforce", Prelude: []string{"T=trace.csv   # a trace"}, Slow: true, Exit: 3},
		{File: "x.md", Line: 17, Text: "fleetsim simulate --osd {monitor,off}", Kind: Synopsis, Prelude: []string{"T=trace.csv   # a trace"}},
		{File: "x.md", Line: 23, Text: "go test ./...", Prelude: []string{"T=trace.csv   # a trace"}, Skip: "go test runs the test suite, this test included"},
		{File: "x.md", Line: 24, Text: "go run ./cmd/fleetsim sweep --help", Prelude: []string{"T=trace.csv   # a trace"}},
	}
	if len(cmds) != len(want) {
		t.Fatalf("%d commands, want %d: %+v", len(cmds), len(want), cmds)
	}
	for i := range want {
		g, w := cmds[i], want[i]
		if g.File != w.File || g.Line != w.Line || g.Text != w.Text || g.Kind != w.Kind || g.Slow != w.Slow ||
			g.Exit != w.Exit || g.Skip != w.Skip || strings.Join(g.Prelude, "|") != strings.Join(w.Prelude, "|") {
			t.Errorf("command %d = %+v\nwant %+v", i, g, w)
		}
	}
	if got := Rewrite(cmds[5].Text); got != "fleetsim sweep --help" {
		t.Errorf("Rewrite = %q", got)
	}
}

// TestExtractRefuses: the blocks the rules refuse, each with its line.
func TestExtractRefuses(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"text\n```\n$ fleetsim plan\n```\n", "x.md:3: a command after a $ prompt"},
		{"text\n\n    fleetsim plan --rate 5\n", "x.md:3: a command in an indented block"},
		// docs/planner.md §5 ran a binary built elsewhere, unseen by the test.
		{"text\n\n    /tmp/fs plan --workload azure --rate 1000 \\\n", "x.md:3: a command in an indented block"},
		{"text\n\n    $ ./bin/fs simulate --plan p.json\n", "x.md:3: a command in an indented block"},
		{"<!-- doctest: fast -->\n```sh\nls\n```\n", `x.md:1: doctest directive "fast": unknown word "fast"`},
		{"<!-- doctest: exit -->\n```sh\nls\n```\n", "exit wants a status"},
		{"<!-- doctest: skip -->\n```sh\nls\n```\n", "skip wants a reason"},
		{"<!-- doctest: slow -->\ntext\n```sh\nls\n```\n", "x.md:2: a doctest directive must be followed by a fenced block"},
		{"```sh\nls\n", "x.md:1: fenced block never closed"},
	} {
		_, err := Extract("x.md", tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.src, err, tc.want)
		}
	}
}

func TestCheckSynopsis(t *testing.T) {
	if CheckSynopsis("fleetsim simulate --osd {monitor,enforce,off} --rate <N>") != "" {
		t.Error("braces refused")
	}
	if CheckSynopsis("fleetsim simulate --osd monitor|enforce|off") == "" {
		t.Error("a|b accepted")
	}
}

// TestExtractListFence: a fenced block inside a list item (its fence
// indented) holds commands like any other; the old extractor matched fences
// at the start of a line only and skipped them.
func TestExtractListFence(t *testing.T) {
	src := strings.Join([]string{
		"* Example:", // 1
		"",           // 2
		"  ```sh",    // 3
		"  fleetsim simulate --config examples/prefix/sessions.yaml \\", // 4
		"    --out out/sess", // 5 (the fence's indentation is not the command's)
		"  ```",              // 6
		"",                   // 7
		"   ~~~console",      // 8
		"   $ fleetsim plan", // 9
		"   ~~~",             // 10
	}, "\n")
	cmds, err := Extract("x.md", src)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line int
		text string
	}{
		{4, "fleetsim simulate --config examples/prefix/sessions.yaml \\\n  --out out/sess"},
		{9, "fleetsim plan"},
	}
	if len(cmds) != len(want) {
		t.Fatalf("%d commands %+v, want %d", len(cmds), cmds, len(want))
	}
	for i, w := range want {
		if cmds[i].Line != w.line || cmds[i].Text != w.text || cmds[i].Kind != Runnable {
			t.Errorf("command %d = line %d %q kind %v, want line %d %q runnable", i, cmds[i].Line, cmds[i].Text, cmds[i].Kind, w.line, w.text)
		}
	}
}
