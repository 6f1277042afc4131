package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestExperimentCommand(t *testing.T) {
	code, out, errs := runCLI(t, "experiment")
	if code != 0 || !strings.Contains(out, "fleetopt-table3") || !strings.Contains(out, "tokenbudget-table4") {
		t.Errorf("experiment (list): exit %d, out %q, err %q", code, out, errs)
	}
	code, out, errs = runCLI(t, "experiment", "fleetopt-table3")
	if code != 0 || !strings.Contains(out, "| Azure (B = 4096, p_c = 1) | Pool routing (PR) | short GPUs n_s | 44 | 43 | 1 | 2.3 |") {
		t.Errorf("experiment fleetopt-table3: exit %d, err %q, out:\n%s", code, errs, out)
	}
	code, out, errs = runCLI(t, "experiment", "fleetopt-table2", "--format", "json")
	var tabs []struct {
		Name    string   `json:"name"`
		Columns []string `json:"columns"`
		Rows    [][]any  `json:"rows"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &tabs) != nil || len(tabs) != 1 || tabs[0].Name != "fleetopt-table2" || len(tabs[0].Rows) == 0 {
		t.Errorf("experiment --format json: exit %d, err %q, out %q", code, errs, out)
	}
	code, out, _ = runCLI(t, "experiment", "fleetopt-table6", "--format", "csv")
	if code != 0 || !strings.HasPrefix(out, "table,λ req/s,quantity,ours,paper,diff,diff %\n") {
		t.Errorf("experiment --format csv: exit %d, out %q", code, out)
	}
}

func TestExperimentBadInput(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"experiment", "table9"}, `experiment "table9": unknown (allowed: fleetopt-table1, fleetopt-headline, fleetopt-table2, fleetopt-table3`},
		{[]string{"experiment", "fleetopt-table3", "--format", "xml"}, `--format "xml": allowed: markdown, json, csv`},
		{[]string{"experiment", "fleetopt-table3", "--requests", "-1"}, "--requests -1"},
		{[]string{"experiment", "fleetopt-table3", "fleetopt-table2"}, `unexpected argument "fleetopt-table2"`},
		{[]string{"experiment", "--bogus"}, "unknown flag: --bogus"},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(t, tt.args...)
		if code != 2 || !strings.Contains(errs, tt.want) || out != "" || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit 2 and one line containing %q", tt.args, code, errs, out, tt.want)
		}
	}
}
