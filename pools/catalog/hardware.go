package catalog

import (
	"fmt"
	"sort"
	"strings"
)

// Hardware is one accelerator's specification: what a computed profile
// (Instance.Profile) needs of it. Throughputs are dense (no structured
// sparsity) tensor-core figures; memory and bandwidth are per GPU.
type Hardware struct {
	Name          string  `json:"name" yaml:"name"`                         // catalog key, lower case ("h100")
	Description   string  `json:"description" yaml:"description"`           // model and form factor
	MemGB         float64 `json:"mem_gb" yaml:"mem_gb"`                     // HBM/GDDR per GPU, GB (1e9 bytes)
	MemBWGBs      float64 `json:"mem_bw_gbs" yaml:"mem_bw_gbs"`             // peak memory bandwidth, GB/s
	FP16TFLOPS    float64 `json:"fp16_tflops" yaml:"fp16_tflops"`           // dense FP16/BF16 tensor throughput, TFLOP/s
	FP8TFLOPS     float64 `json:"fp8_tflops" yaml:"fp8_tflops"`             // dense FP8 tensor throughput, TFLOP/s (0: none)
	LinkGBs       float64 `json:"link_gbs" yaml:"link_gbs"`                 // GPU-to-GPU bandwidth per GPU as the datasheet states it (both directions together), GB/s
	Interconnect  string  `json:"interconnect" yaml:"interconnect"`         // what LinkGBs is ("NVLink 4, 900 GB/s total")
	PowerW        float64 `json:"power_w" yaml:"power_w"`                   // max board power (TDP/TBP), W
	USDPerGPUHour float64 `json:"usd_per_gpu_hour" yaml:"usd_per_gpu_hour"` // price of one GPU, USD per hour
	PriceSource   string  `json:"price_source" yaml:"price_source"`         // where the price comes from and its date
	Source        string  `json:"source" yaml:"source"`                     // datasheet the other figures come from
}

// MaxSpec bounds every figure of a Hardware (GB, GB/s, TFLOPS, W, USD per
// hour): far above any real GPU, low enough that the arithmetic stays
// finite and fits an int.
const MaxSpec = 1e6

// Validate checks that a spec can give a profile: memory, bandwidth (>= 1
// GB/s), FP16 throughput (>= 0.01 TFLOPS) and price > 0; link bandwidth,
// FP8 throughput and power >= 0; all <= MaxSpec.
func (h Hardware) Validate() error {
	pos := func(field string, v float64) error {
		if !(v > 0 && v <= MaxSpec) {
			return fmt.Errorf("gpu %q: %s = %g: must be a number > 0 and <= %g", h.Name, field, v, float64(MaxSpec))
		}
		return nil
	}
	nonneg := func(field string, v float64) error {
		if !(v >= 0 && v <= MaxSpec) {
			return fmt.Errorf("gpu %q: %s = %g: must be a number >= 0 and <= %g", h.Name, field, v, float64(MaxSpec))
		}
		return nil
	}
	// floors keep computed times finite and meaningful (a slower GPU
	// than 1 GB/s or 0.01 TFLOPS is a typo for another unit)
	floor := func(field string, v, lo float64) error {
		if v < lo {
			return fmt.Errorf("gpu %q: %s = %g: must be >= %g", h.Name, field, v, lo)
		}
		return nil
	}
	if strings.TrimSpace(h.Name) == "" {
		return fmt.Errorf("gpu: name missing")
	}
	for _, err := range []error{
		pos("mem_gb", h.MemGB), pos("mem_bw_gbs", h.MemBWGBs), pos("fp16_tflops", h.FP16TFLOPS),
		pos("usd_per_gpu_hour", h.USDPerGPUHour), nonneg("fp8_tflops", h.FP8TFLOPS),
		nonneg("link_gbs", h.LinkGBs), nonneg("power_w", h.PowerW),
		floor("mem_bw_gbs", h.MemBWGBs, 1), floor("fp16_tflops", h.FP16TFLOPS, 0.01),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

// hardware is the built-in GPU specification catalog. Figures are the
// vendors' datasheets (named in Source); dense = without 2:4 sparsity (the
// datasheets print the sparse figure first; dense is half of it). Prices
// are per GPU-hour: the A100's and MI300X's are the papers', A10G's is a
// published on-demand list price, the others are market estimates and say
// so (PriceSource) — replace them with your own contract price.
var hardware = map[string]Hardware{
	"a100": {
		Name: "a100", Description: "NVIDIA A100 80GB SXM4",
		MemGB: 80, MemBWGBs: 2039, FP16TFLOPS: 312, FP8TFLOPS: 0,
		LinkGBs: 600, Interconnect: "NVLink 3, 600 GB/s per GPU (bidirectional total)", PowerW: 400,
		USDPerGPUHour: 2.21, PriceSource: "FleetOpt paper §7.1 / token-budget paper App. A ($2.21 per A100-hour)",
		Source: "NVIDIA A100 Tensor Core GPU datasheet (80GB SXM: 2,039 GB/s, FP16 tensor 312 TFLOPS dense)",
	},
	"h100": {
		Name: "h100", Description: "NVIDIA H100 SXM5 80GB",
		MemGB: 80, MemBWGBs: 3350, FP16TFLOPS: 989, FP8TFLOPS: 1979,
		LinkGBs: 900, Interconnect: "NVLink 4, 900 GB/s per GPU (bidirectional total)", PowerW: 700,
		USDPerGPUHour: 3.90, PriceSource: "market estimate (on-demand cloud H100 SXM, fleetsim's earlier h100 profile), assumed 2026-11; not a quote",
		Source: "NVIDIA H100 Tensor Core GPU datasheet (SXM: 3.35 TB/s, BF16 1,979 TFLOPS sparse = 989 dense, FP8 3,958 sparse = 1,979 dense)",
	},
	"h200": {
		Name: "h200", Description: "NVIDIA H200 SXM 141GB",
		MemGB: 141, MemBWGBs: 4800, FP16TFLOPS: 989, FP8TFLOPS: 1979,
		LinkGBs: 900, Interconnect: "NVLink 4, 900 GB/s per GPU (bidirectional total)", PowerW: 700,
		USDPerGPUHour: 4.50, PriceSource: "market estimate (on-demand cloud H200), assumed 2026-11; not a quote",
		Source: "NVIDIA H200 Tensor Core GPU datasheet (SXM: 141 GB HBM3e, 4.8 TB/s, same tensor cores as H100 SXM)",
	},
	"b200": {
		Name: "b200", Description: "NVIDIA B200 (HGX/DGX B200, 180 GB usable per GPU)",
		MemGB: 180, MemBWGBs: 8000, FP16TFLOPS: 2250, FP8TFLOPS: 4500,
		LinkGBs: 1800, Interconnect: "NVLink 5, 1.8 TB/s per GPU (bidirectional total)", PowerW: 1000,
		USDPerGPUHour: 6.00, PriceSource: "market estimate (on-demand cloud B200), assumed 2026-11; not a quote",
		Source: "NVIDIA DGX B200 datasheet (1,440 GB over 8 GPUs, 64 TB/s HBM3e total; FP8 72 PFLOPS sparse over 8 GPUs) and HGX B200 figures (BF16 2.25 PFLOPS dense per GPU)",
	},
	"l40s": {
		Name: "l40s", Description: "NVIDIA L40S 48GB (PCIe)",
		MemGB: 48, MemBWGBs: 864, FP16TFLOPS: 362, FP8TFLOPS: 733,
		LinkGBs: 64, Interconnect: "PCIe Gen4 x16, 64 GB/s bidirectional (no NVLink)", PowerW: 350,
		USDPerGPUHour: 1.80, PriceSource: "market estimate (on-demand cloud L40S), assumed 2026-11; not a quote",
		Source: "NVIDIA L40S datasheet (48 GB GDDR6, 864 GB/s, FP16 tensor 733 TFLOPS sparse = 362 dense, FP8 1,466 sparse = 733 dense)",
	},
	"a10g": {
		Name: "a10g", Description: "NVIDIA A10G 24GB (AWS G5; A10 silicon)",
		MemGB: 24, MemBWGBs: 600, FP16TFLOPS: 125, FP8TFLOPS: 0,
		LinkGBs: 64, Interconnect: "PCIe Gen4 x16, 64 GB/s bidirectional (no NVLink)", PowerW: 300,
		USDPerGPUHour: 1.01, PriceSource: "AWS on-demand g5.xlarge (1×A10G) list price, us-east-1, $1.006/h (as in fleetsim's earlier a10g profile)",
		Source: "NVIDIA A10 datasheet (24 GB GDDR6, 600 GB/s, FP16 tensor 250 TFLOPS sparse = 125 dense); NVIDIA publishes no separate A10G datasheet, AWS G5 page gives 24 GB and 300 W, so the A10 throughput is an upper bound",
	},
	"mi300x": {
		Name: "mi300x", Description: "AMD Instinct MI300X 192GB (OAM)",
		MemGB: 192, MemBWGBs: 5300, FP16TFLOPS: 1307, FP8TFLOPS: 2615,
		LinkGBs: 896, Interconnect: "AMD Infinity Fabric, 7 links × 128 GB/s = 896 GB/s per GPU", PowerW: 750,
		USDPerGPUHour: 3.67, PriceSource: "token-budget paper §4.7 ($3.67 per MI300X-hour)",
		Source: "AMD Instinct MI300X data sheet (192 GB HBM3, 5.3 TB/s, FP16 1,307.4 TFLOPS dense, FP8 2,614.9 dense)",
	},
}

// LookupHardware returns the GPU specification of that name
// (case-insensitive).
func LookupHardware(name string) (Hardware, error) {
	h, ok := hardware[strings.ToLower(strings.TrimSpace(name))]
	if !ok {
		return Hardware{}, fmt.Errorf("unknown GPU %q (allowed: %s)", name, strings.Join(HardwareNames(), ", "))
	}
	return h, nil
}

// HardwareNames lists the GPU specifications in order.
func HardwareNames() []string {
	out := make([]string, 0, len(hardware))
	for n := range hardware {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
