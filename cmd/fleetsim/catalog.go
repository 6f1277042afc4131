package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/fleetsim/fleetsim/pools/catalog"
	"github.com/fleetsim/fleetsim/pools/fleetopt"
	"github.com/spf13/pflag"
)

func init() {
	register("catalog", "list the GPU and model catalog; 'catalog profile' prints a computed instance profile with its arithmetic", runCatalog)
}

func catalogUsage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprint(w, `Usage: fleetsim catalog [--format table|json]
       fleetsim catalog profile --gpu GPU (--model MODEL | --hf-config FILE) [--tp N] [flags]
       fleetsim catalog profile --file PROFILE.yaml

The first form lists the GPU specifications (memory, bandwidth, dense FP16/FP8
throughput, interconnect, power, $/GPU-hour with its source), the models (KV
geometry, parameters, MoE experts) and the hand-written profiles (a100 = the
papers' constants).

A bare name (plan/simulate --gpu NAME) is a hand-written PROFILE when one has
that name (a100 = the papers' constants, a10g, mi300x, h100-est = the A100
constants scaled by bandwidth), and otherwise the SPECIFICATION serving
llama-3.1-70b at the smallest TP that fits (h100 = h100/llama-3.1-70b).
'catalog profile --gpu h100' takes the specification and computes an
instance; name it to plan or simulate with it: --gpu h100/llama-3.1-70b/tp4.

'catalog profile' computes one serving instance: a tensor-parallel group of
--tp GPUs serving the model. It prints the KV budget (tp × memory × util −
weights − tp × reserve), the KV blocks and slots, the price (tp × $/GPU-h),
and W, H and the prefill cost from the roofline with every term of the
arithmetic (docs/catalog.md). --gpu all prints one line per GPU instead.
The instance's name GPU/MODEL/tpN is accepted wherever a GPU is (plan --gpu,
simulate --pool NAME:GPU/MODEL/tpN:COUNT:MAXCTX, validate --gpu, scenario
files).

Flags:
`)
	fmt.Fprint(w, fs.FlagUsagesWrapped(100))
}

type catalogFlags struct {
	gpu, model, hf, file, format string
	tp                           int
	util, reserve                float64
}

func runCatalog(args []string, stdout, stderr io.Writer) error {
	profile := len(args) > 0 && args[0] == "profile"
	if profile {
		args = args[1:]
	}
	fs := pflag.NewFlagSet("catalog", pflag.ContinueOnError)
	fs.SortFlags = false
	var f catalogFlags
	fs.StringVar(&f.gpu, "gpu", "", "profile: GPU specification ("+strings.Join(catalog.HardwareNames(), ", ")+") or all")
	fs.StringVar(&f.model, "model", "", "profile: catalog model ("+strings.Join(catalog.ModelNames(), ", ")+")")
	fs.StringVar(&f.hf, "hf-config", "", "profile: a Hugging Face config.json `FILE` instead of --model")
	fs.IntVar(&f.tp, "tp", 0, "profile: GPUs per instance (tensor parallelism); 0 = smallest of 1, 2, 4, 8 that fits")
	fs.Float64Var(&f.util, "util", catalog.DefaultUtil, "profile: usable fraction of each GPU's memory, in (0, 1]")
	fs.Float64Var(&f.reserve, "reserve-gb", catalog.DefaultReserveGB, "profile: runtime reserve per GPU inside the usable memory, GB")
	fs.StringVar(&f.file, "file", "", "profile: a catalog profile `FILE` (YAML: constants or specs) instead of --gpu/--model")
	fs.StringVar(&f.format, "format", "table", "output: table or json")
	if help, err := parseFlags("catalog", fs, args, stdout, catalogUsage, false); help || err != nil {
		return err
	}
	if f.format != "table" && f.format != "json" {
		return badInput("--format %q: allowed: table, json", f.format)
	}
	if !profile {
		if f.gpu != "" || f.model != "" || f.hf != "" || f.file != "" || f.tp != 0 {
			return badInput("--gpu, --model, --hf-config, --tp and --file belong to 'fleetsim catalog profile'")
		}
		return writeCatalogList(stdout, f.format)
	}
	if f.file != "" {
		if f.gpu != "" || f.model != "" || f.hf != "" {
			return badInput("--file: give either --file or --gpu with --model/--hf-config")
		}
		g, in, err := readSpecFileInstance(f.file)
		if err != nil {
			return badInput("--file %s: %s", f.file, oneLine(err))
		}
		row := profileRow{G: g, In: in}
		if in != nil {
			r, _ := in.Roofline()
			row.R = &r
		}
		return writeProfiles(stdout, f.format, []profileRow{row})
	}
	if f.gpu == "" || (f.model == "") == (f.hf == "") {
		return badInput("catalog profile: needs --gpu and one of --model, --hf-config (or --file)")
	}
	if f.tp < 0 {
		return badInput("--tp %d: must be >= 1 (or 0: the smallest that fits)", f.tp)
	}
	m, err := catalogModel(f.model, f.hf)
	if err != nil {
		return err
	}
	gpus := []string{f.gpu}
	if strings.EqualFold(f.gpu, "all") {
		gpus = catalog.HardwareNames()
	}
	var rows []profileRow
	for _, name := range gpus {
		hw, err := catalog.LookupHardware(name)
		if err != nil {
			return badInput("--gpu: %v", err)
		}
		in, err := buildInstance(hw, m, f)
		if err == nil {
			var g catalog.GPU
			if g, err = in.Profile(); err == nil {
				r, _ := in.Roofline()
				rows = append(rows, profileRow{G: g, In: &in, R: &r})
				continue
			}
		}
		if len(gpus) == 1 {
			return badInput("%s", oneLine(err))
		}
		rows = append(rows, profileRow{G: catalog.GPU{Name: name}, Err: oneLine(err)})
	}
	if !slices.ContainsFunc(rows, func(r profileRow) bool { return r.Err == "" }) {
		return badInput("--gpu all: no GPU holds the instance; first: %s", rows[0].Err)
	}
	return writeProfiles(stdout, f.format, rows)
}

// catalogModel returns the catalog model or the model of a config.json.
func catalogModel(model, hf string) (catalog.Model, error) {
	if hf == "" {
		m, err := catalog.LookupModel(model)
		if err != nil {
			return m, badInput("--model: %v", err)
		}
		return m, nil
	}
	data, err := readSpecInput(hf)
	if err != nil {
		return catalog.Model{}, badInput("--hf-config: %s", oneLine(err))
	}
	m, err := catalog.ParseHFConfig(hfModelName(hf), data)
	if err != nil {
		return m, badInput("--hf-config: %s", oneLine(err))
	}
	return m, nil
}

// hfModelName names a model after its config file: the file name without
// ".json" and a trailing "-config" (or the directory for "config.json").
func hfModelName(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), ".json")
	if base == "config" {
		base = filepath.Base(filepath.Dir(path))
	}
	return strings.ToLower(strings.TrimSuffix(base, "-config"))
}

func buildInstance(hw catalog.Hardware, m catalog.Model, f catalogFlags) (catalog.Instance, error) {
	return catalog.FitTP(hw, m, f.tp, func(in *catalog.Instance) { in.Util, in.ReserveGB = f.util, f.reserve })
}

type profileRow struct {
	G   catalog.GPU       `json:"profile"`
	In  *catalog.Instance `json:"instance,omitempty"`
	R   *catalog.Roofline `json:"roofline,omitempty"`
	Err string            `json:"error,omitempty"`
}

func writeProfiles(w io.Writer, format string, rows []profileRow) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if len(rows) == 1 {
			return enc.Encode(rows[0])
		}
		return enc.Encode(rows)
	}
	if len(rows) == 1 && rows[0].In != nil {
		writeArithmetic(w, rows[0])
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "instance\tGPUs\tW ms\tH ms\tP µs/token\tKV blocks\tslots@8192\t$/h\t")
	var errs []string
	for _, r := range rows {
		if r.Err != "" {
			errs = append(errs, r.Err)
			continue
		}
		p := "-"
		if r.R != nil {
			p = fmt.Sprintf("%.2f", r.R.P*1e6)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.4f\t%s\t%d\t%d\t%.2f\t\n", r.G.Name, r.G.GPUsPerInstance(), r.G.W*1e3, r.G.H*1e3, p,
			r.G.KVBlocks, r.G.Slots(catalog.CalibCtx), r.G.CostPerHour)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, e := range errs {
		fmt.Fprintf(w, "not possible: %s\n", e)
	}
	return nil
}

// writeArithmetic prints one computed profile with every term.
func writeArithmetic(w io.Writer, row profileRow) {
	g, in, r := row.G, *row.In, *row.R
	m, hw := in.Model, in.GPU
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	p("instance %s: %d × %s serving %s", g.Name, in.TP, hw.Description, m.Name)
	p("  GPU   %.0f GB, %.0f GB/s, %.0f TFLOPS FP16 dense (%.0f FP8), %s, %.0f W; %s", hw.MemGB, hw.MemBWGBs, hw.FP16TFLOPS, hw.FP8TFLOPS, hw.Interconnect, hw.PowerW, hw.Source)
	p("  model %d layers, hidden %d, %d heads, %d KV heads × %d, vocab %d, %.4g params (%.4g active), %.4g GB weights", m.Layers, m.Hidden, m.Heads, m.KVHeads, m.HeadDim, m.Vocab, m.Params, m.Active(), m.WeightBytes/1e9)
	if m.KVNote != "" {
		p("        %s", m.KVNote)
	}
	p("")
	p("memory (per GPU)")
	p("  KV bytes/token      2·%d·%d·%d·%g = %.0f B (whole model); split over min(tp, KV heads) = %d → %.0f B per GPU",
		m.Layers, m.KVHeads, m.HeadDim, m.KVBytes, m.KVBytesPerToken(), in.KVShards(), in.KVBytesPerTokenPerGPU())
	p("  usable              %.0f GB × %.2f − %.1f GB reserve = %.2f GB", hw.MemGB, in.Util, in.ReserveGB, in.UsableBytesPerGPU()/1e9)
	p("  weights             %.2f GB / %d = %.3f GB", m.WeightBytes/1e9, in.TP, in.WeightBytesPerGPU()/1e9)
	p("  KV budget           %.3f GB → floor(%.4g B / (%d tokens × %.0f B)) = %d blocks (%d tokens)",
		in.KVBytesPerGPU()/1e9, in.KVBytesPerGPU(), in.BlockTokens, in.KVBytesPerTokenPerGPU(), g.KVBlocks, g.KVBlocks*g.BlockTokens)
	p("  slots               %d at 8,192 tokens, %d at 4,096, %d at 32,768 (KV-limited)", g.Slots(8192), g.Slots(4096), g.Slots(32768))
	p("")
	e := in.Eff
	p("roofline (AIConfigurator speed-of-light terms; efficiency mem %.2f, compute %.2f, link %.2f)", e.Mem, e.Compute, e.Link)
	prec := "FP16"
	if r.FP8 {
		prec = "FP8"
	}
	p("  bandwidth           %.0f GB/s × %.2f = %.1f GB/s", hw.MemBWGBs, e.Mem, r.BW/1e9)
	p("  W weights           %.4g B (active) / tp / BW = %.4g B / %.4g B/s = %.4f ms", m.Active()*m.WeightBytes/m.Params, r.ReadBytes, r.BW, r.WMem*1e3)
	p("  W layers            %d × %.0f µs = %.4f ms", m.Layers, e.LayerOverhead*1e6, r.WLayers*1e3)
	p("  W all-reduce        2 × %d × %.0f µs = %.4f ms (tp > 1)", m.Layers, e.AllReduceLat*1e6, r.WComm*1e3)
	p("  W                   %.4f ms", r.W*1e3)
	p("  H_kv                %.0f B / %.4g B/s = %.4g ns per context token", in.KVBytesPerTokenPerGPU(), r.BW, r.HKV*1e9)
	p("  H_flop              2 × %.4g / %d / (%.0f TFLOPS %s × %.2f) = %.3f µs per token", m.Active(), in.TP, r.FLOPS/e.Compute/1e12, prec, e.Compute, r.HFlop*1e6)
	p("  H_comm              2 × %d × 2(tp−1)/tp × %d × 2 B / %.4g B/s = %.3f µs per token", m.Layers, m.Hidden, r.LinkBW, r.HComm*1e6)
	p("  H                   H_flop + H_comm + 8192 × H_kv = %.3f + %.3f + %.3f µs = %.4f ms", r.HFlop*1e6, r.HComm*1e6, 8192*r.HKV*1e6, r.H*1e3)
	p("  prefill P           H_flop + H_comm = %.3f µs per prompt token (%.3f ms per 512-token chunk; printed, not charged by the kv/paper presets)", r.P*1e6, 512*r.P*1e3)
	p("")
	p("price               %d × $%.2f/GPU-h = $%.2f per instance-hour (%s)", in.TP, hw.USDPerGPUHour, g.CostPerHour, hw.PriceSource)
	p("engine presets      kv: t_iter = %.4g + %.4g·kv_tokens s; paper: t_iter = %.4g + %.4g·n_active s", g.W, g.H/float64(g.CalibCtx), g.W, g.H)
}

// writeCatalogList prints the GPU specifications, the models and the
// hand-written profiles.
func writeCatalogList(w io.Writer, format string) error {
	var hws []catalog.Hardware
	for _, n := range catalog.HardwareNames() {
		h, _ := catalog.LookupHardware(n)
		hws = append(hws, h)
	}
	var ms []catalog.Model
	for _, n := range catalog.ModelNames() {
		m, _ := catalog.LookupModel(n)
		ms = append(ms, m)
	}
	var ps []profileListRow
	for _, n := range catalog.GPUNames() {
		g, _ := catalog.LookupGPU(n)
		r := profileListRow{GPU: g}
		if p, ok, err := g.PrefillCost(); ok && err == nil {
			r.PrefillS, r.PrefillSource = p, g.Stands.Describe()
		}
		ps = append(ps, r)
	}
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			GPUs     []catalog.Hardware `json:"gpus"`
			Models   []catalog.Model    `json:"models"`
			Profiles []profileListRow   `json:"profiles"`
		}{hws, ms, ps})
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "GPU\tmemory GB\tGB/s\tFP16 TFLOPS\tFP8 TFLOPS\tlink GB/s\tpower W\t$/GPU-h\tprice source\t")
	for _, h := range hws {
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.2f\t%s\t\n", h.Name, h.MemGB, h.MemBWGBs, h.FP16TFLOPS, h.FP8TFLOPS, h.LinkGBs, h.PowerW, h.USDPerGPUHour, h.PriceSource)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\tlayers\thidden\theads\tKV heads\thead dim\tvocab\tparams B\tactive B\texperts\tKV B/token\tweights GB\t")
	for _, m := range ms {
		ex := "-"
		if m.Experts > 0 {
			ex = fmt.Sprintf("%d (%d)", m.Experts, m.ActiveExperts)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%.2f\t%.2f\t%s\t%.0f\t%.1f\t\n", m.Name, m.Layers, m.Hidden, m.Heads, m.KVHeads, m.HeadDim, m.Vocab,
			m.Params/1e9, m.Active()/1e9, ex, m.KVBytesPerToken(), m.WeightBytes/1e9)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "profile\tW s\tH s\tKV blocks\tslots@8192\t$/instance-h\tsource\t")
	for _, g := range ps {
		fmt.Fprintf(tw, "%s\t%g\t%g\t%d\t%d\t%.2f\t%s\t\n", g.Name, g.W, g.H, g.KVBlocks, g.Slots(8192), g.CostPerHour, g.Source)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nPrompt tokens under the default timing (auto: kv + calibrated prefill), P per prompt token:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "profile\tP µs/token\tsource\t")
	for _, g := range ps {
		if g.PrefillSource != "" {
			fmt.Fprintf(tw, "%s\t%.2f\t%s\t\n", g.Name, g.PrefillS*1e6, g.PrefillSource)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nThe profiles above are what a bare --gpu NAME means; another bare GPU name is its specification serving "+catalog.DefaultModel+".")
	fmt.Fprintln(w, "Computed profiles: GPU/MODEL/tpN (e.g. h100/llama-3.1-70b/tp4); see 'fleetsim catalog profile --help'.")
	return nil
}

// profileListRow is a hand-written profile in the catalog listing, with the
// per-prompt-token cost the default timing charges it (catalog.GPU.PrefillCost).
type profileListRow struct {
	catalog.GPU
	PrefillS      float64 `json:"prefill_s_per_token,omitempty"` // P under auto, s per prompt token
	PrefillSource string  `json:"prefill_source,omitempty"`      // where P comes from
}

// writeInstanceNote adds, under a plan table, the arithmetic of the GPUs
// of pools whose profile is a computed tensor-parallel instance.
func writeInstanceNote(w io.Writer, methods []fleetopt.MethodPlan) {
	for _, m := range methods {
		for _, pp := range m.Pools {
			if pp.TP > 0 {
				fmt.Fprintf(w, "%s %s pool: %d instances × tp %d = %d GPUs ($ = instances × tp × $/GPU-h; μ_gpu, slots and the eq. 8 and profiler counts are per instance)\n",
					m.Method, pp.Name, pp.GPUs, pp.TP, pp.PhysicalGPUs())
			}
		}
	}
}
