package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/fleetsim/fleetsim/sim"
	"github.com/fleetsim/fleetsim/workload"
)

// scenarioKeys records which workload fields a scenario file set, so that
// defaults that conflict with them can be dropped (a trace replaces the
// default CDF; a trace without a rate replays its own timestamps).
type scenarioKeys struct {
	cdf, trace, rate bool
}

// loadScenario overlays the scenario file at path (YAML, or JSON when the
// name ends in .json) on cfg. Keys the file leaves out keep their value in
// cfg; lists (pools) are replaced as a whole. Unknown keys are errors.
// Relative CDF and trace paths in the file are relative to the file's
// directory. Every error is one line.
func loadScenario(path string, cfg *sim.Config) (scenarioKeys, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return scenarioKeys{}, fmt.Errorf("--config %s: %v", path, oneLine(err))
	}
	return decodeScenario(path, data, cfg)
}

// decodeScenario is loadScenario on the file's content; path gives the
// format (by extension) and the directory of relative paths.
func decodeScenario(path string, data []byte, cfg *sim.Config) (scenarioKeys, error) {
	var keys scenarioKeys
	var err error
	isJSON := strings.EqualFold(filepath.Ext(path), ".json")
	// Probe which workload keys are present.
	var probe struct {
		Workload map[string]any `json:"workload" yaml:"workload"`
		Pools    any            `json:"pools" yaml:"pools"`
	}
	if isJSON {
		err = json.Unmarshal(data, &probe)
	} else {
		err = yaml.Unmarshal(data, &probe)
	}
	if err != nil {
		return keys, fmt.Errorf("--config %s: %s", path, oneLine(err))
	}
	_, keys.cdf = probe.Workload["cdf"]
	_, keys.trace = probe.Workload["trace"]
	_, keys.rate = probe.Workload["rate"]
	if keys.trace && !keys.cdf {
		cfg.Workload.CDF = ""
	}
	if probe.Pools != nil { // a file's pools replace the default pools
		cfg.Pools = nil
	}
	if keys.cdf && !keys.trace {
		cfg.Workload.Trace, cfg.Workload.TraceFormat = "", ""
	}

	if isJSON {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		err = dec.Decode(cfg)
	} else {
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		err = dec.Decode(cfg)
		if err != nil && err.Error() == "EOF" { // an empty file sets nothing
			err = nil
		}
	}
	if err != nil {
		return keys, fmt.Errorf("--config %s: %s", path, oneLine(err))
	}
	dir := filepath.Dir(path)
	w := &cfg.Workload
	if keys.cdf && w.CDF != "" && !slices.Contains(workload.BuiltinCDFs(), w.CDF) && !filepath.IsAbs(w.CDF) {
		w.CDF = filepath.Join(dir, w.CDF)
	}
	if keys.trace && w.Trace != "" && !filepath.IsAbs(w.Trace) {
		w.Trace = filepath.Join(dir, w.Trace)
	}
	return keys, nil
}

// oneLine joins a multi-line error message into one line.
func oneLine(err error) string {
	msg := strings.Replace(err.Error(), "yaml: unmarshal errors:\n", "", 1)
	fields := strings.Fields(strings.ReplaceAll(msg, "\n", " ; "))
	return strings.ReplaceAll(strings.Join(fields, " "), " ;", ";")
}
