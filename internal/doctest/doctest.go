// Package doctest extracts the shell commands written in the project's
// Markdown documentation, so that a test can run every one of them as
// written (docs/writing-docs.md states the rules).
//
// A fenced block's info string says what it holds:
//
//   - sh, bash, shell: a script, every line a command (a line ending in a
//     backslash continues on the next; blank lines and # comments are
//     skipped; a line NAME=value is an assignment kept for the later
//     commands of the same file);
//   - console: a transcript; lines starting with "$ " are commands, the
//     others their output;
//   - synopsis: the shape of a command with placeholders; never run.
//
// A fence may be indented (a block inside a list item); its lines lose as
// many leading spaces as the fence has.
//
// Any other block (text, yaml, json, sql, or none) is not a command, but a
// bare block whose line starts with "$ " is an error: it reads as a
// transcript and must be marked console (or synopsis). So is a command in
// an indented code block (the test would not see it): fleetsim, go, or a
// binary named by its path followed by a subcommand and a flag.
//
// An HTML comment on the line just before the opening fence,
// <!-- doctest: WORD[ ARG] ... -->, qualifies every command of the block:
// "slow" (run only when slow commands are asked for), "exit N" (the expected
// exit status, 0 otherwise), "skip REASON" (runnable as written, but not run
// by the test). A `go test` command is never run (it is the suite that runs
// the test).
package doctest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Kind is what a command is to the test.
type Kind int

const (
	// Runnable commands are run by the test.
	Runnable Kind = iota
	// Synopsis commands show a command's shape with placeholders; never run.
	Synopsis
)

// Command is one command of a documentation file.
type Command struct {
	File string // the documentation file, as given to Extract
	Line int    // 1-based line of the command's first line
	Text string // the command as written (continuation lines joined by "\\\n")
	Kind Kind
	// Prelude holds the assignments (NAME=value lines) written before the
	// command in the same file, in order.
	Prelude []string
	Slow    bool   // run only when slow commands are asked for
	Exit    int    // the expected exit status
	Skip    string // why the test does not run it ("" = run it)
}

// Where is "file:line".
func (c Command) Where() string { return fmt.Sprintf("%s:%d", c.File, c.Line) }

var (
	fenceRe      = regexp.MustCompile("^( *)(```+|~~~+)\\s*([^\\s`]*)")
	directiveRe  = regexp.MustCompile(`^<!--\s*doctest:\s*(.*?)\s*-->\s*$`)
	assignmentRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=\S*\s*(#.*)?$`)
)

// indentedCommand matches a command written in an indented code block,
// which the test would not see: fleetsim, go, or a binary named by its path
// followed by a subcommand and a flag (`/tmp/fs plan --rate 5`); errorLine
// is fleetsim's error output ("fleetsim plan: --gpu: ..."), which is not a
// command.
var (
	indentedCommand = regexp.MustCompile(`^(    |\t)\s*(\$ )?((fleetsim|\./fleetsim|go (run|test|build|install))(\s|$)|\S*/\S+ [a-z][a-z-]* --)`)
	errorLine       = regexp.MustCompile(`^(\$ )?fleetsim( [a-z-]+)?:`)
)

// goTest matches `go test`: the test suite, which the doc-command test
// never runs (it would run itself).
var goTest = regexp.MustCompile(`^go\s+test\b`)

// scriptInfo are the info strings of blocks whose every line is a command.
var scriptInfo = map[string]bool{"sh": true, "bash": true, "shell": true}

// directives are the qualifiers of a block's commands.
type directives struct {
	slow bool
	exit int
	skip string
}

func parseDirectives(s string) (directives, error) {
	var d directives
	fields := strings.Fields(s)
	for i := 0; i < len(fields); i++ {
		switch fields[i] {
		case "slow":
			d.slow = true
		case "exit":
			if i+1 == len(fields) {
				return d, fmt.Errorf("doctest directive %q: exit wants a status", s)
			}
			n, err := strconv.Atoi(fields[i+1])
			if err != nil || n < 0 || n > 255 {
				return d, fmt.Errorf("doctest directive %q: exit status %q is not in [0, 255]", s, fields[i+1])
			}
			d.exit = n
			i++
		case "skip":
			d.skip = strings.Join(fields[i+1:], " ")
			if d.skip == "" {
				return d, fmt.Errorf("doctest directive %q: skip wants a reason", s)
			}
			i = len(fields)
		default:
			return d, fmt.Errorf("doctest directive %q: unknown word %q (allowed: slow, exit N, skip REASON)", s, fields[i])
		}
	}
	return d, nil
}

// Extract returns the commands of the Markdown text src of file, in order.
// An error names the file and line of a block the rules refuse.
func Extract(file, src string) ([]Command, error) {
	lines := strings.Split(src, "\n")
	var (
		cmds    []Command
		prelude []string
		pending directives // from a directive line just before a fence
		hasDir  bool
	)
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := directiveRe.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			d, err := parseDirectives(m[1])
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", file, i+1, err)
			}
			pending, hasDir = d, true
			continue
		}
		m := fenceRe.FindStringSubmatch(line)
		if m == nil && indentedCommand.MatchString(line) && !errorLine.MatchString(strings.TrimSpace(line)) {
			return nil, fmt.Errorf("%s:%d: a command in an indented block: write it in a fenced block (sh, console or synopsis)", file, i+1)
		}
		if m == nil {
			if strings.TrimSpace(line) != "" && hasDir {
				return nil, fmt.Errorf("%s:%d: a doctest directive must be followed by a fenced block", file, i+1)
			}
			continue
		}
		indent, fence, info := m[1], m[2], m[3]
		open := i + 1 // 1-based line of the opening fence
		var body []string
		i++
		for ; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), fence); i++ {
			// A fence indented inside a list item: its lines lose as
			// many leading spaces as the fence has (CommonMark).
			body = append(body, trimIndent(lines[i], len(indent)))
		}
		if i == len(lines) {
			return nil, fmt.Errorf("%s:%d: fenced block never closed", file, open)
		}
		d := pending
		if !hasDir {
			d = directives{}
		}
		pending, hasDir = directives{}, false
		kind := Runnable
		var texts []string
		var starts []int
		switch {
		case scriptInfo[info], info == "synopsis":
			if info == "synopsis" {
				kind = Synopsis
			}
			texts, starts = scriptCommands(body)
		case info == "console":
			texts, starts = consoleCommands(body)
		case info == "":
			for j, b := range body {
				if strings.HasPrefix(b, "$ ") {
					return nil, fmt.Errorf("%s:%d: a command after a $ prompt in a block with no info string: mark the block console (run) or synopsis", file, open+1+j)
				}
			}
			continue
		default:
			continue // text, yaml, json, sql, ...
		}
		for k, t := range texts {
			if kind == Runnable && info != "console" && assignmentRe.MatchString(t) {
				prelude = append(prelude, t)
				continue
			}
			c := Command{
				File: file, Line: open + 1 + starts[k], Text: t, Kind: kind,
				Prelude: append([]string(nil), prelude...),
				Slow:    d.slow, Exit: d.exit, Skip: d.skip,
			}
			if c.Skip == "" && goTest.MatchString(t) {
				c.Skip = "go test runs the test suite, this test included"
			}
			cmds = append(cmds, c)
		}
	}
	return cmds, nil
}

// trimIndent removes up to n leading spaces of line.
func trimIndent(line string, n int) string {
	for ; n > 0 && strings.HasPrefix(line, " "); n-- {
		line = line[1:]
	}
	return line
}

// scriptCommands splits a script block into commands and their 0-based
// first lines in the block.
func scriptCommands(body []string) (texts []string, starts []int) {
	for j := 0; j < len(body); j++ {
		t := strings.TrimSpace(body[j])
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		start := j
		var text string
		text, j = continued(body, j, body[j])
		texts = append(texts, text)
		starts = append(starts, start)
	}
	return texts, starts
}

// continued joins first (line j of body) with the lines after it while a
// line ends in a backslash, and returns the command and its last line.
func continued(body []string, j int, first string) (string, int) {
	text := first
	for strings.HasSuffix(strings.TrimRight(text, " \t"), "\\") && j+1 < len(body) {
		j++
		text += "\n" + body[j]
	}
	return strings.TrimSpace(text), j
}

// consoleCommands returns the "$ " lines of a transcript (with their
// continuation lines) and their 0-based lines in the block.
func consoleCommands(body []string) (texts []string, starts []int) {
	for j := 0; j < len(body); j++ {
		if !strings.HasPrefix(body[j], "$ ") {
			continue
		}
		start := j
		var text string
		text, j = continued(body, j, strings.TrimPrefix(body[j], "$ "))
		texts = append(texts, text)
		starts = append(starts, start)
	}
	return texts, starts
}

// pipeAlternative matches a|b written without spaces, the synopsis style a
// shell turns into a pipe.
var pipeAlternative = regexp.MustCompile(`[A-Za-z0-9_-]\|[A-Za-z0-9_-]`)

// CheckSynopsis returns why a synopsis's text is in a style the docs do not
// use ("" when it is fine): alternatives are written {a,b,c}, never a|b.
func CheckSynopsis(text string) string {
	if pipeAlternative.MatchString(text) {
		return "alternatives written a|b (a shell pipe if pasted): write {a,b}"
	}
	return ""
}

// goRun matches the ways the docs start fleetsim from source.
var goRun = regexp.MustCompile(`(^|[\s;&|(])go run \./cmd/fleetsim\b`)

// Rewrite returns the command a test runs for text: `go run ./cmd/fleetsim`
// becomes `fleetsim` (the test puts an already built fleetsim first on
// PATH), so the command is not compiled again for every line.
func Rewrite(text string) string {
	return goRun.ReplaceAllString(text, "${1}fleetsim")
}
