package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/fleetsim/fleetsim/sim/export"
)

// TestParquetTraceable (issue 7 design): requests.parquet names its writer
// and version in created_by and carries the run's scenario, seed and version
// as key-value metadata, so the file alone says which run made it. The
// scenario is the effective configuration summary.json records.
func TestParquetTraceable(t *testing.T) {
	out := t.TempDir()
	if code, _, errs := runCLI(t, smallArgs(out)...); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	by, meta, err := export.ReadFileInfo(filepath.Join(out, requestsFile))
	if err != nil {
		t.Fatal(err)
	}
	if want := "fleetsim version " + version; by != want {
		t.Errorf("created_by %q, want %q", by, want)
	}
	// testdata/small.json: seed 3.
	if meta[export.MetaVersion] != version || meta[export.MetaSeed] != "3" {
		t.Errorf("metadata version %q seed %q; want %q and 3", meta[export.MetaVersion], meta[export.MetaSeed], version)
	}
	var sum struct {
		Config any `json:"config"`
	}
	if err := json.Unmarshal(readBytes(t, filepath.Join(out, summaryFile)), &sum); err != nil {
		t.Fatal(err)
	}
	var scen any
	if err := json.Unmarshal([]byte(meta[export.MetaScenario]), &scen); err != nil {
		t.Fatalf("%s is not JSON: %v", export.MetaScenario, err)
	}
	if !reflect.DeepEqual(scen, sum.Config) {
		t.Errorf("%s = %s\ndiffers from summary.json's config %v", export.MetaScenario, meta[export.MetaScenario], sum.Config)
	}
}
