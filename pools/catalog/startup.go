package catalog

import (
	"fmt"
	"math"
	"strings"
)

// Start-up of a new serving instance (docs/day.md, "Start-up delay").
const (
	// DefaultLoadBandwidth is the rate at which a new instance loads its
	// weights, bytes per second per instance: 2 GB/s, an estimate of a
	// safetensors load from local NVMe or a parallel object-store stream
	// (NVIDIA, "Reducing cold start latency for LLM inference with NVIDIA
	// Run:ai Model Streamer", 2025, measures vLLM's loaders on local SSD and
	// Amazon S3 in that order of magnitude). Llama-3-70B in fp16, 141 GB,
	// then loads in 71 s.
	DefaultLoadBandwidth = 2e9
	// DefaultProvisionS is the time from the scale-up decision to the start
	// of the weight load, seconds: node or pod scheduling, container start,
	// CUDA and engine initialisation, compilation and warm-up. An estimate
	// (one vLLM cold start measured 39 s of torch.compile plus profiling and
	// warm-up after the weights; scheduling a node adds more).
	DefaultProvisionS = 60.0
)

// Startup is how long a new instance takes to serve: ProvisionS seconds,
// then its weights at LoadBandwidth bytes/s. Zero fields mean the defaults.
type Startup struct {
	ProvisionS    float64 `json:"provision_s,omitempty" yaml:"provision_s,omitempty"`       // seconds, >= 0
	LoadBandwidth float64 `json:"load_bandwidth,omitempty" yaml:"load_bandwidth,omitempty"` // bytes/s, > 0
}

// Validate checks the fields (0 means the default): provision_s finite and
// >= 0, load_bandwidth finite and >= 0.
func (s Startup) Validate() error {
	if math.IsNaN(s.ProvisionS) || math.IsInf(s.ProvisionS, 0) || s.ProvisionS < 0 {
		return fmt.Errorf("provision_s = %v: must be a finite number of seconds >= 0 (0: default %g)", s.ProvisionS, DefaultProvisionS)
	}
	if math.IsNaN(s.LoadBandwidth) || math.IsInf(s.LoadBandwidth, 0) || s.LoadBandwidth < 0 {
		return fmt.Errorf("load_bandwidth = %v: must be a finite number of bytes/s > 0 (0: default %g)", s.LoadBandwidth, DefaultLoadBandwidth)
	}
	return nil
}

// DelayS returns the start-up delay of an instance holding weightBytes of
// weights, seconds: provision + weightBytes / bandwidth, defaults for zero
// fields.
func (s Startup) DelayS(weightBytes float64) float64 {
	p, bw := s.ProvisionS, s.LoadBandwidth
	if p == 0 {
		p = DefaultProvisionS
	}
	if bw == 0 {
		bw = DefaultLoadBandwidth
	}
	return p + max(weightBytes, 0)/bw
}

// profileModels names the model each hand-written profile serves (its
// Description), for its weight bytes.
var profileModels = map[string]string{
	"a100": "llama-3-70b", "h100-est": "llama-3-70b", "a10g": "llama-3.1-8b", "mi300x": "qwen3-235b-a22b",
}

// WeightBytes returns the weights one instance of the named profile loads,
// bytes: the model of a computed profile GPU/MODEL/tpN, the model a
// hand-written profile's description names, or DefaultModel for a bare
// GPU specification name.
func WeightBytes(profile string) (float64, error) {
	name := strings.ToLower(profile)
	if strings.Contains(name, "/") {
		in, err := ParseInstanceName(name)
		if err != nil {
			return 0, err
		}
		return in.Model.WeightBytes, nil
	}
	model, ok := profileModels[name]
	if _, err := LookupHardware(name); !ok && err == nil {
		model, ok = DefaultModel, true // a bare specification serves DefaultModel
	}
	if !ok {
		return 0, fmt.Errorf("gpu %q: no model known for its weights (give a computed profile GPU/MODEL/tpN)", profile)
	}
	m, err := LookupModel(model)
	if err != nil {
		return 0, err
	}
	return m.WeightBytes, nil
}
