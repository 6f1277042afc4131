package catalog

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestMeasuredReproducesKnots: the measured model's linear-operator time at
// every token count of every embedded table equals the table's row (sum of
// the per-layer operator medians, and emb) within 2% (issue #21 acceptance).
// The expected values are re-read from the CSV text, not from the parsed
// curve.
func TestMeasuredReproducesKnots(t *testing.T) {
	checked := 0
	for _, tb := range MeasuredTables() {
		b, err := measuredFS.ReadFile("testdata/measured/" + tb.Name + ".csv")
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		for _, ln := range lines[2:] {
			var tp, tok int
			var v [10]float64
			f := strings.Split(ln, ",")
			tp, tok = atoi(t, f[0]), atoi(t, f[1])
			layer := 0.0
			for i := range v {
				v[i] = atof(t, f[2+i])
				if i > 0 {
					layer += v[i]
				}
			}
			gotL, gotE, err := tb.LinearOps(tp, float64(tok))
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(gotL*1e3-layer) > 0.02*layer || math.Abs(gotE*1e3-v[0]) > 0.02*v[0]+1e-9 {
				t.Errorf("%s tp %d tokens %d: layer %.4f ms emb %.4f ms, table %.4f / %.4f", tb.Name, tp, tok, gotL*1e3, gotE*1e3, layer, v[0])
			}
			checked++
		}
	}
	if checked < 1000 {
		t.Errorf("checked %d rows, want the ~1,300 embedded", checked)
	}
}

// TestMeasuredInterpolatesHeldOut drops every other token count of each
// table (from 8 tokens up), rebuilds the curve from the rest and predicts
// the dropped rows: median |error| <= 10% (issue #21 acceptance).
func TestMeasuredInterpolatesHeldOut(t *testing.T) {
	var errs []float64
	for _, tb := range MeasuredTables() {
		for _, tp := range tb.TPs {
			c := tb.curve[tp]
			var kt, kl []float64
			type pt struct{ x, y float64 }
			var held []pt
			for i := range c.tokens {
				if i >= 3 && i%2 == 1 && i < len(c.tokens)-1 {
					held = append(held, pt{c.tokens[i], c.layerS[i]})
					continue
				}
				kt, kl = append(kt, c.tokens[i]), append(kl, c.layerS[i])
			}
			for _, h := range held {
				errs = append(errs, RelErr(interp(kt, kl, h.x), h.y))
			}
		}
	}
	med, p95 := AbsQuantile(errs, 0.5), AbsQuantile(errs, 0.95)
	t.Logf("held-out rows %d: median |error| %.2f%%, P95 %.2f%%", len(errs), 100*med, 100*p95)
	if len(errs) < 300 || med > 0.10 {
		t.Errorf("held-out rows %d: median |error| %.3f, want <= 0.10", len(errs), med)
	}
}

func atoi(t *testing.T, s string) int { return int(atof(t, s)) }

func atof(t *testing.T, s string) float64 {
	t.Helper()
	var v float64
	if _, err := fmt.Sscan(s, &v); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}

// TestParseMeasuredTableErrors: bad tables fail with one line naming the
// line, the field and what is allowed.
func TestParseMeasuredTableErrors(t *testing.T) {
	const geo = "# layers=2,n_head=4,n_kv_head=2,n_embd=64,n_expanded_embd=128,vocab_size=100,use_gated_mlp=True\n"
	const hdr = "tp,num_tokens,emb,input_layernorm,attn_pre_proj,attn_rope,attn_post_proj,post_attention_layernorm,mlp_up_proj,mlp_act,mlp_down_proj,add\n"
	row := func(tp, n int, v string) string {
		return strings.Join([]string{strconv.Itoa(tp), strconv.Itoa(n), v, "1", "1", "1", "1", "1", "1", "1", "1", "1"}, ",") + "\n"
	}
	good := geo + hdr + row(1, 1, "1") + row(1, 2, "1")
	// A UTF-8 byte-order mark and CRLF line ends (a spreadsheet's export)
	// read as the plain file.
	for _, in := range []string{good, "\ufeff" + good, strings.ReplaceAll(good, "\n", "\r\n")} {
		if _, err := ParseMeasuredTable("ok", "a100", strings.NewReader(in)); err != nil {
			t.Fatalf("good table %q: %v", in[:8], err)
		}
	}
	for _, c := range []struct{ name, in, want string }{
		{"missing column", geo + strings.Replace(hdr, ",mlp_act", "", 1) + "1,1,1,1,1,1,1,1,1,1,1\n", `lacks column "mlp_act"`},
		{"non-monotone", geo + hdr + row(1, 2, "1") + row(1, 1, "1"), "num_tokens 1 after 2 for tp 1: token counts must increase"},
		{"NaN", geo + hdr + row(1, 1, "NaN") + row(1, 2, "1"), `emb = "NaN": must be a finite number >= 0`},
		{"negative", geo + hdr + row(1, 1, "-1") + row(1, 2, "1"), `emb = "-1"`},
		{"no geometry", hdr + row(1, 1, "1"), "first line must be the geometry"},
		{"bad geometry", strings.Replace(geo, "layers=2", "layers=x", 1) + hdr, `geometry layers = "x"`},
		{"one row", geo + hdr + row(1, 1, "1"), "tp 1 has 1 row"},
		{"split tp", geo + hdr + row(1, 1, "1") + row(2, 1, "1") + row(1, 2, "1"), "tp 1: its rows must be contiguous"},
		{"short row", geo + hdr + "1,1,1\n", "3 fields, header has 12"},
		{"empty", "", "first line must be the geometry"},
		{"column twice", geo + strings.Replace(hdr, "tp,", "tp,tp,", 1) + "1,1,1,1,1,1,1,1,1,1,1,1,1\n", `column "tp" named twice`},
		{"geometry key twice", strings.Replace(geo, "layers=2", "layers=2,layers=3", 1) + hdr + row(1, 1, "1") + row(1, 2, "1"), `geometry key "layers" given twice`},
		{"unknown geometry key", strings.Replace(geo, "layers=2", "layers=2,n_layer=3", 1) + hdr + row(1, 1, "1") + row(1, 2, "1"), `unknown geometry key "n_layer"`},
	} {
		_, err := ParseMeasuredTable("t.csv", "a100", strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %v, want one line containing %q", c.name, err, c.want)
		}
	}
}
