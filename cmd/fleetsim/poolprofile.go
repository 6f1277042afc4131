package main

import (
	"fmt"
	"path/filepath"

	"github.com/fleetsim/fleetsim/pools/variants"
	"github.com/fleetsim/fleetsim/sim"
)

// loadPoolProfiles reads the profile file of every pool of a scenario file
// that names one (`profile:`, relative to the scenario's directory dir) and
// sets the pool's engine timing from it: W = α, H_seq = β, P = δ
// (variants.Profile.EngineTiming). The pool keeps its GPU's slots and KV
// budget.
func loadPoolProfiles(path, dir string, cfg *sim.Config) error {
	for i := range cfg.Pools {
		p := &cfg.Pools[i]
		if p.Profile == "" {
			continue
		}
		file := p.Profile
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		ps, err := readProfileFile(file)
		if err == nil {
			var prof variants.Profile
			if prof, err = variants.SelectProfile(ps, p.ProfileName); err == nil {
				t := prof.EngineTiming()
				p.Override = &sim.EngineOverride{Timing: &t}
				continue
			}
		}
		return fmt.Errorf("--config %s: pools[%d].profile %s: %s", path, i, p.Profile, oneLine(err))
	}
	return nil
}
