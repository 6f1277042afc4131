package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/router/compress"
)

const compressTestdata = "../../router/compress/testdata/fleetopt-paper.txt"

func TestCompressCommand(t *testing.T) {
	b, err := os.ReadFile(compressTestdata)
	if err != nil {
		t.Fatal(err)
	}
	orig := compress.CountTokens(string(b))
	budget := orig * 8 / 10
	code, out, errOut := runCLI(t, "compress", "--budget", itoa(budget), compressTestdata)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if n := compress.CountTokens(out); n > budget || n < budget/2 {
		t.Fatalf("text output has %d tokens; want at most the budget %d", n, budget)
	}
	code, out, errOut = runCLI(t, "compress", "--budget", itoa(budget), "--format", "json", compressTestdata)
	if code != 0 {
		t.Fatalf("json: exit %d, stderr %q", code, errOut)
	}
	var rep compressReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("json output: %v\n%s", err, out)
	}
	if rep.OriginalTokens != orig || rep.Tokens > budget || !rep.Compressed || rep.ROUGELRecall <= 0.5 || rep.TFIDFCosine <= 0.8 || rep.CompressMS <= 0 {
		t.Fatalf("report %+v", rep)
	}
}

func TestCompressBadInput(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no budget", []string{compressTestdata}, "--budget 0"},
		{"negative budget", []string{"--budget", "-5", compressTestdata}, "--budget -5"},
		{"bad format", []string{"--budget", "100", "--format", "xml", compressTestdata}, `--format "xml"`},
		{"no file", []string{"--budget", "100"}, "FILE"},
		{"missing file", []string{"--budget", "100", "/nonexistent/prompt.txt"}, "/nonexistent/prompt.txt"},
		{"budget below the kept sentences", []string{"--budget", "5", compressTestdata}, "--budget 5"},
		{"unknown flag", []string{"--ratio", "2", compressTestdata}, "ratio"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, append([]string{"compress"}, tt.args...)...)
			if code != 2 || out != "" || !strings.Contains(errOut, tt.want) || strings.Count(errOut, "\n") != 1 {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 2, nothing, one line naming %q", code, out, errOut, tt.want)
			}
		})
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestCompressJSONIncludesText: --format json carries the compressed text,
// the same text --format text prints (issue 19: the JSON had only metrics).
func TestCompressJSONIncludesText(t *testing.T) {
	code, text, errOut := runCLI(t, "compress", "--budget", "1000", compressTestdata)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, out, errOut := runCLI(t, "compress", "--budget", "1000", "--format", "json", compressTestdata)
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, errOut)
	}
	var rep struct {
		Text *string `json:"text"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Text == nil || *rep.Text+"\n" != text && *rep.Text != text {
		t.Fatalf("json text = %v, want the text output (%d bytes)", rep.Text, len(text))
	}
}
