package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/sim"
)

// readSpecFile reads a catalog profile file (YAML: constants or specs);
// an hf_config it names is relative to the file's directory.
func readSpecFile(path string) (catalog.GPU, error) {
	g, _, err := readSpecFileInstance(path)
	return g, err
}

// readSpecFileInstance is readSpecFile that also returns the instance of a
// specification file (nil for constants).
func readSpecFileInstance(path string) (catalog.GPU, *catalog.Instance, error) {
	data, err := readSpecInput(path)
	if err != nil {
		return catalog.GPU{}, nil, err
	}
	dir := filepath.Dir(path)
	return catalog.ParseProfileFileInstance(data, func(p string) ([]byte, error) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return readSpecInput(p)
	})
}

// loadPoolSpecs resolves the files a scenario's pools name: `spec:` (a
// catalog profile file) and a `model:` ending in .json (a Hugging Face
// config.json served on `gpu:` with `tp:`), both relative to the scenario's
// directory dir. The resolved profile goes to the pool's Instance; a pool
// without a gpu takes the profile's name.
func loadPoolSpecs(path, dir string, cfg *sim.Config) error {
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	for i := range cfg.Pools {
		p := &cfg.Pools[i]
		var g catalog.GPU
		var err error
		field := ""
		switch {
		case p.Spec != "" && p.Model != "":
			return fmt.Errorf("--config %s: pools[%d]: give spec or model, not both (a profile file names its own model)", path, i)
		case p.Spec != "":
			field = "spec " + p.Spec
			g, err = readSpecFile(abs(p.Spec))
		case strings.HasSuffix(strings.ToLower(p.Model), ".json"):
			field = "model " + p.Model
			g, err = hfPoolProfile(abs(p.Model), p.GPU, p.TP)
		case p.Model != "" || p.TP != 0:
			// a catalog model: the pool is named by its instance, GPU/MODEL/tpN
			field = "model " + p.Model
			if g, err = p.InstanceProfile(); err == nil {
				p.GPU, p.Model, p.TP = g.Name, "", 0
				continue
			}
		default:
			continue
		}
		if err != nil {
			return fmt.Errorf("--config %s: pools[%d].%s: %s", path, i, field, oneLine(err))
		}
		p.Instance = &g
		if p.GPU == "" || p.Model != "" {
			p.GPU = g.Name
		}
		p.Model, p.TP = "", 0
	}
	return nil
}

// hfPoolProfile is the computed profile of tp GPUs (0: the smallest that
// fits) of the specification gpu serving the model of a config.json.
func hfPoolProfile(file, gpu string, tp int) (catalog.GPU, error) {
	data, err := readSpecInput(file)
	if err != nil {
		return catalog.GPU{}, err
	}
	m, err := catalog.ParseHFConfig(hfModelName(file), data)
	if err != nil {
		return catalog.GPU{}, err
	}
	hw, err := catalog.LookupHardware(gpu)
	if err != nil {
		return catalog.GPU{}, err
	}
	in, err := catalog.FitTP(hw, m, tp, nil)
	if err != nil {
		return catalog.GPU{}, err
	}
	return in.Profile()
}

// writePoolGPUsNote adds, under the simulate table, the physical GPUs of
// pools of computed tensor-parallel instances (the table counts instances).
func writePoolGPUsNote(w io.Writer, pools []sim.PoolConfig) {
	for _, p := range pools {
		if g, err := p.InstanceProfile(); err == nil && g.TP > 1 {
			fmt.Fprintf(w, "\npool %s: %d instances × tp %d = %d GPUs, $%.2f per instance-hour", p.Name, p.Count, g.TP, p.Count*g.TP, g.CostPerHour)
		}
	}
}
