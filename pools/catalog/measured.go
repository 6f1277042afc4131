package catalog

import (
	"bufio"
	"embed"
	"fmt"
	"io"
	"math"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// measuredFS holds Vidur's profiled operator times (MIT licence;
// testdata/measured/SOURCES.md gives the repository, commit and the rows
// and columns kept).
//
//go:embed testdata/measured/*.csv
var measuredFS embed.FS

// MeasuredOps are the operator columns of a measured table, ms: the
// per-layer operators of one decoder layer (norms, QKV and output
// projections, rotary, gated MLP, residual add) and emb, the embedding
// lookup (once per iteration). Attention itself is not among them.
var MeasuredOps = []string{"emb", "input_layernorm", "attn_pre_proj", "attn_rope", "attn_post_proj",
	"post_attention_layernorm", "mlp_up_proj", "mlp_act", "mlp_down_proj", "add"}

// measuredGeometry are the keys of a table's first line, "# k=v,...".
var measuredGeometry = []string{"layers", "n_head", "n_kv_head", "n_embd", "n_expanded_embd", "vocab_size", "use_gated_mlp"}

// MeasuredTable is one GPU × model's profiled linear-operator times per
// tensor-parallel degree and token count (Vidur's mlp.csv, reduced).
type MeasuredTable struct {
	Name  string // file stem, "a100-llama-2-70b-hf"
	GPU   string // catalog hardware name, "a100"
	Model Model  // geometry from the table's header; Params and WeightBytes (bf16) computed from it
	FFN   int    // MLP intermediate size
	Gated bool   // gated MLP (three projections)
	TPs   []int  // tensor-parallel degrees with data, ascending
	curve map[int]opCurve
}

// opCurve is one TP degree's knots: token counts (strictly increasing),
// per-layer operator time (s, every op but emb) and embedding time (s).
type opCurve struct{ tokens, layerS, embS []float64 }

// ParseMeasuredTable reads a table in the format of testdata/measured
// (SOURCES.md): a "# layers=...,n_head=...,..." geometry line, a header
// naming tp, num_tokens and every MeasuredOps column, then rows grouped by
// tp with num_tokens strictly increasing. Every value must be a finite
// number >= 0 (ms). name is the file's name for messages and gpu the
// catalog hardware it was measured on.
func ParseMeasuredTable(name, gpu string, r io.Reader) (*MeasuredTable, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line := 0
	next := func() (string, bool) {
		for sc.Scan() {
			line++
			s := sc.Text()
			if line == 1 {
				s = strings.TrimPrefix(s, "\ufeff") // a UTF-8 byte-order mark
			}
			if s = strings.TrimSpace(s); s != "" {
				return s, true
			}
		}
		return "", false
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("measured table %s: line %d: %s", name, line, fmt.Sprintf(format, args...))
	}
	head, ok := next()
	if !ok || !strings.HasPrefix(head, "#") {
		return nil, fail("first line must be the geometry, '# %s=...'", strings.Join(measuredGeometry, "=...,"))
	}
	geo := map[string]string{}
	for _, kv := range strings.Split(strings.TrimSpace(strings.TrimPrefix(head, "#")), ",") {
		k, v, _ := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if _, dup := geo[k]; dup {
			return nil, fail("geometry key %q given twice", k)
		}
		if !slices.Contains(measuredGeometry, k) {
			return nil, fail("unknown geometry key %q (allowed: %s)", k, strings.Join(measuredGeometry, ", "))
		}
		geo[k] = strings.TrimSpace(v)
	}
	ints := map[string]int{}
	for _, k := range measuredGeometry[:6] {
		v, err := strconv.Atoi(geo[k])
		if err != nil || v < 1 || v > 1<<20 {
			return nil, fail("geometry %s = %q: must be an integer in [1, %d]", k, geo[k], 1<<20)
		}
		ints[k] = v
	}
	gated, err := strconv.ParseBool(geo["use_gated_mlp"])
	if err != nil {
		return nil, fail("geometry use_gated_mlp = %q: must be True or False", geo["use_gated_mlp"])
	}
	if ints["n_embd"]%ints["n_head"] != 0 || ints["n_head"]%ints["n_kv_head"] != 0 {
		return nil, fail("geometry n_embd %d, n_head %d, n_kv_head %d: n_head must divide n_embd and n_kv_head divide n_head",
			ints["n_embd"], ints["n_head"], ints["n_kv_head"])
	}
	hdr, ok := next()
	if !ok {
		return nil, fail("missing header (tp,num_tokens,%s)", strings.Join(MeasuredOps, ","))
	}
	cols := strings.Split(hdr, ",")
	idx := map[string]int{}
	for i, c := range cols {
		c = strings.TrimSpace(c)
		if _, dup := idx[c]; dup {
			return nil, fail("column %q named twice", c)
		}
		idx[c] = i
	}
	need := append([]string{"tp", "num_tokens"}, MeasuredOps...)
	for _, c := range need {
		if _, ok := idx[c]; !ok {
			return nil, fail("header lacks column %q (needs %s)", c, strings.Join(need, ","))
		}
	}
	t := &MeasuredTable{Name: name, GPU: gpu, FFN: ints["n_expanded_embd"], Gated: gated, curve: map[int]opCurve{}}
	t.Model = tableModel(name, ints, gated)
	lastTP := 0
	for {
		row, ok := next()
		if !ok {
			break
		}
		f := strings.Split(row, ",")
		if len(f) != len(cols) {
			return nil, fail("%d fields, header has %d", len(f), len(cols))
		}
		num := func(c string) (float64, error) {
			v, err := strconv.ParseFloat(strings.TrimSpace(f[idx[c]]), 64)
			if err != nil || !(v >= 0) || math.IsInf(v, 0) || v > 1e9 {
				return 0, fail("%s = %q: must be a finite number >= 0", c, f[idx[c]])
			}
			return v, nil
		}
		tpF, err := num("tp")
		if err != nil {
			return nil, err
		}
		tok, err := num("num_tokens")
		if err != nil {
			return nil, err
		}
		tp := int(tpF)
		if float64(tp) != tpF || tp < 1 || tp > MaxTP || tok < 1 || tok != math.Trunc(tok) {
			return nil, fail("tp %v, num_tokens %v: must be integers, tp in [1, %d], num_tokens >= 1", tpF, tok, MaxTP)
		}
		if tp != lastTP {
			if _, seen := t.curve[tp]; seen {
				return nil, fail("tp %d: its rows must be contiguous", tp)
			}
			lastTP = tp
		}
		c := t.curve[tp]
		if n := len(c.tokens); n > 0 && !(tok > c.tokens[n-1]) {
			return nil, fail("num_tokens %v after %v for tp %d: token counts must increase", tok, c.tokens[n-1], tp)
		}
		var layer float64
		var emb float64
		for _, op := range MeasuredOps {
			v, err := num(op)
			if err != nil {
				return nil, err
			}
			if op == "emb" {
				emb = v / 1e3
			} else {
				layer += v / 1e3
			}
		}
		c.tokens = append(c.tokens, tok)
		c.layerS = append(c.layerS, layer)
		c.embS = append(c.embS, emb)
		t.curve[tp] = c
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("measured table %s: %w", name, err)
	}
	if len(t.curve) == 0 {
		return nil, fmt.Errorf("measured table %s: no rows", name)
	}
	for tp, c := range t.curve {
		if len(c.tokens) < 2 {
			return nil, fmt.Errorf("measured table %s: tp %d has %d row: needs at least 2 token counts", name, tp, len(c.tokens))
		}
		t.TPs = append(t.TPs, tp)
	}
	sort.Ints(t.TPs)
	return t, nil
}

// tableModel is a table's geometry as a catalog Model: parameters counted
// from the geometry (QKV, output, MLP per layer; embedding and LM head),
// bf16 weights and KV cache.
func tableModel(name string, g map[string]int, gated bool) Model {
	h, heads, kvh, ffn, layers, vocab := g["n_embd"], g["n_head"], g["n_kv_head"], g["n_expanded_embd"], g["layers"], g["vocab_size"]
	hd := h / heads
	mlp := 2.0
	if gated {
		mlp = 3
	}
	perLayer := float64(h)*float64(h+2*kvh*hd) + float64(h)*float64(h) + mlp*float64(h)*float64(ffn)
	params := float64(layers)*perLayer + 2*float64(vocab)*float64(h)
	_, model, _ := strings.Cut(name, "-")
	return Model{Name: model, Layers: layers, KVHeads: kvh, HeadDim: hd, KVBytes: 2, WeightBytes: 2 * params,
		Hidden: h, Heads: heads, Vocab: vocab, Params: params,
		Source: "geometry of Vidur's profiled table " + name + " (testdata/measured/SOURCES.md)"}
}

// LayerWeightBytes is the bf16 weight bytes of one decoder layer (all TP
// ranks together).
func (t *MeasuredTable) LayerWeightBytes() float64 {
	m := t.Model
	return (m.Params - 2*float64(m.Vocab)*float64(m.Hidden)) / float64(m.Layers) * 2
}

// LinearOps returns the interpolated per-layer operator time and the
// embedding time (s) for tokens tokens at tensor-parallel degree tp:
// piecewise linear between the table's token counts, linear from the last
// two beyond the last one, and the first row's below it.
func (t *MeasuredTable) LinearOps(tp int, tokens float64) (layerS, embS float64, err error) {
	c, ok := t.curve[tp]
	if !ok {
		return 0, 0, fmt.Errorf("measured table %s: no data at tp %d (has %v)", t.Name, tp, t.TPs)
	}
	return interp(c.tokens, c.layerS, tokens), interp(c.tokens, c.embS, tokens), nil
}

// MaxTokens is the largest token count the table holds at tp (0 when tp
// has no data).
func (t *MeasuredTable) MaxTokens(tp int) float64 {
	c := t.curve[tp]
	if len(c.tokens) == 0 {
		return 0
	}
	return c.tokens[len(c.tokens)-1]
}

// knots returns tp's token counts and per-layer times (shared slices).
func (t *MeasuredTable) knots(tp int) ([]float64, []float64) {
	c := t.curve[tp]
	return c.tokens, c.layerS
}

// interp is piecewise-linear interpolation of (xs, ys) at x, xs strictly
// increasing with at least two points; linear extrapolation above, the
// first value below.
func interp(xs, ys []float64, x float64) float64 {
	if x <= xs[0] {
		return ys[0]
	}
	i := sort.SearchFloat64s(xs, x)
	if i == len(xs) {
		i = len(xs) - 1
	}
	x0, x1, y0, y1 := xs[i-1], xs[i], ys[i-1], ys[i]
	return y0 + (y1-y0)*(x-x0)/(x1-x0)
}

// measuredTables returns the embedded tables, parsed on first use (not at
// start-up: most runs never look at them, and parsing them cost about 5 ms
// and 1.2 MB of a `simulate --requests 1`'s start).
var measuredTables = sync.OnceValue(func() []*MeasuredTable {
	files, err := measuredFS.ReadDir("testdata/measured")
	if err != nil {
		panic(err)
	}
	var out []*MeasuredTable
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), ".csv") {
			continue
		}
		b, err := measuredFS.Open(path.Join("testdata/measured", f.Name()))
		if err != nil {
			panic(err)
		}
		name := strings.TrimSuffix(f.Name(), ".csv")
		gpu, _, _ := strings.Cut(name, "-")
		t, err := ParseMeasuredTable(name, gpu, b)
		b.Close()
		if err != nil {
			panic(err) // the embedded data is checked by the tests
		}
		out = append(out, t)
	}
	return out
})

// MeasuredTables returns the embedded tables in file-name order.
func MeasuredTables() []*MeasuredTable { return slices.Clone(measuredTables()) }

// measuredAlias maps a catalog model to the table of the same layer
// geometry, per GPU. Llama-3(.1)-70B and Llama-2-70B share every layer
// dimension (hidden 8192, 64 heads, 8 KV heads, MLP 28672, 80 layers);
// only the vocabulary (and so the LM head, which the tables do not time)
// differs, so H100, which has no Llama-3-70B table, uses Llama-2-70B's.
var measuredAlias = map[string]map[string]string{
	"a100": {"llama-3-70b": "meta-llama-3-70b", "llama-3.1-70b": "meta-llama-3-70b", "llama-3.1-8b": "meta-llama-3-8b"},
	"h100": {"llama-3-70b": "llama-2-70b-hf", "llama-3.1-70b": "llama-2-70b-hf"},
}

// LookupMeasured returns the table of a GPU × model: model is a table's
// model name (e.g. "llama-2-70b-hf") or a catalog model with the same
// layer geometry (measuredAlias).
func LookupMeasured(gpu, model string) (*MeasuredTable, error) {
	gpu, model = strings.ToLower(gpu), strings.ToLower(model)
	if a, ok := measuredAlias[gpu][model]; ok {
		model = a
	}
	var have []string
	for _, t := range measuredTables() {
		if t.GPU == gpu && t.Model.Name == model {
			return t, nil
		}
		have = append(have, t.GPU+"/"+t.Model.Name)
	}
	for g, m := range measuredAlias {
		for k := range m {
			have = append(have, g+"/"+k)
		}
	}
	sort.Strings(have)
	return nil, fmt.Errorf("no measured step-time data for %s/%s (measured data: %s)", gpu, model, strings.Join(have, ", "))
}
