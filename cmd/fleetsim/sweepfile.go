package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// sweepFileSpec is a sweep file's content:
//
//	scenario: base.yaml   # a scenario file (as simulate --config), relative to this file
//	preset: lam-range     # optional
//	duration_s: 300       # optional
//	grid:                 # key: list or range, in any order
//	  rate: 100:1000:100
//	  count.short: [10, 20, 30]
//	  router: [length, cr]
type sweepFileSpec struct {
	scenario  string
	preset    string
	durationS float64
	axes      [][2]string // key, values as a flag would give them
}

// loadSweepFile reads and decodes a sweep file; errors are one line naming
// the file.
func loadSweepFile(path string) (sweepFileSpec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return sweepFileSpec{}, fmt.Errorf("--sweep %s: %s", path, oneLine(err))
	}
	s, err := decodeSweepFile(data)
	if err != nil {
		return s, fmt.Errorf("--sweep %s: %s", path, oneLine(err))
	}
	if s.scenario != "" && !filepath.IsAbs(s.scenario) {
		s.scenario = filepath.Join(filepath.Dir(path), s.scenario)
	}
	return s, nil
}

func decodeSweepFile(data []byte) (sweepFileSpec, error) {
	var top struct {
		Scenario  string    `yaml:"scenario"`
		Preset    string    `yaml:"preset"`
		DurationS float64   `yaml:"duration_s"`
		Grid      yaml.Node `yaml:"grid"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&top); err != nil {
		if err.Error() == "EOF" {
			return sweepFileSpec{}, nil
		}
		if strings.Contains(err.Error(), "cannot unmarshal") && !strings.Contains(err.Error(), "field") {
			return sweepFileSpec{}, fmt.Errorf("not a YAML mapping of sweep keys (want scenario, preset, duration_s, grid)")
		}
		return sweepFileSpec{}, err
	}
	s := sweepFileSpec{scenario: top.Scenario, preset: top.Preset, durationS: top.DurationS}
	g := &top.Grid
	if g.Kind == 0 {
		return s, nil
	}
	if g.Kind != yaml.MappingNode {
		return s, fmt.Errorf("line %d: grid must be a mapping of key: values", g.Line)
	}
	for i := 0; i+1 < len(g.Content); i += 2 {
		k, v := g.Content[i], g.Content[i+1]
		var vals string
		switch v.Kind {
		case yaml.ScalarNode:
			vals = v.Value
		case yaml.SequenceNode:
			items := make([]string, len(v.Content))
			for j, it := range v.Content {
				if it.Kind != yaml.ScalarNode {
					return s, fmt.Errorf("line %d: grid.%s: a list of plain values is needed", it.Line, k.Value)
				}
				items[j] = it.Value
			}
			vals = strings.Join(items, ",")
		default:
			return s, fmt.Errorf("line %d: grid.%s: want a list [v1, v2] or a range START:STOP:STEP", v.Line, k.Value)
		}
		s.axes = append(s.axes, [2]string{k.Value, vals})
	}
	return s, nil
}
