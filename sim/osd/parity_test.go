package osd

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestParityTraces replays event streams through a Detector and compares,
// after every event, the alert, the two windows' sizes, the TTFT violation
// count (exactly) and the last slopes and margins of error (to a relative
// 1e-6) with testdata/parity. Those expected values were produced by a
// line-by-line Python transcription of guidellm's OverSaturationConstraint
// and SlopeChecker (../shared/seeds/guidellm-oversaturation-detection.txt:
// _add_started, _add_finished, _update_duration, _check_alert, check_slope,
// approx_t_ppf), fed "S x concurrency" as an in_progress update, "F x ttft"
// as a first token and "O x 0" as any other update at duration x. The first
// line is the configuration [minimum_duration, minimum_ttft,
// maximum_window_seconds, moe_threshold, maximum_window_ratio,
// minimum_window_size, confidence, eps]: three random ones (ratio, window
// seconds, windows of 0 and 1 included) and guidellm's defaults on a load
// that rises after 60 s (it fires) and on a stable one (it never does). The
// transcription squares with Python's x**2, which is pow and sometimes 1 ulp
// off x*x; hence the tolerance on the floats.
func TestParityTraces(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "parity", "case-*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no parity cases: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) { replayParity(t, path) })
	}
}

func replayParity(t *testing.T, path string) {
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Scan()
	var c []float64
	if err := json.Unmarshal(sc.Bytes(), &c); err != nil || len(c) != 8 {
		t.Fatalf("config line %q: %v", sc.Text(), err)
	}
	cfg := Config{MinimumDuration: c[0], MinimumTTFT: c[1], MaximumWindowSeconds: c[2], MOEThreshold: c[3],
		MaximumWindowRatio: c[4], MinimumWindowSize: int(c[5]), Confidence: c[6], Eps: c[7]}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	d := New(cfg, 0)
	fires := 0
	for line := 2; sc.Scan(); line++ {
		ev, want, _ := strings.Cut(sc.Text(), "|")
		e, w := strings.Fields(ev), strings.Fields(want)
		x, _ := strconv.ParseFloat(e[1], 64)
		y, _ := strconv.ParseFloat(e[2], 64)
		var alert bool
		switch e[0] {
		case "S":
			alert = d.StartWith(x, int(y))
		case "F":
			alert = d.FirstToken(x, y)
		default:
			alert = d.Observe(x)
		}
		if alert {
			fires++
		}
		s := d.State()
		got := []string{b2s(alert), strconv.Itoa(s.ConcurrencyN), strconv.Itoa(s.TTFTN), strconv.Itoa(s.TTFTViolations)}
		if strings.Join(got, " ") != strings.Join(w[:4], " ") {
			t.Fatalf("line %d (%s): alert, conc n, ttft n, violations = %v; guidellm %v", line, ev, got, w[:4])
		}
		for i, v := range []struct {
			x  float64
			ok bool
		}{{s.ConcurrencySlope, s.ConcurrencyEstimated}, {s.ConcurrencyMOE, s.ConcurrencyEstimated},
			{s.TTFTSlope, s.TTFTEstimated}, {s.TTFTMOE, s.TTFTEstimated}} {
			ws := w[4+i]
			if ws == "None" || !v.ok {
				if (ws == "None") != !v.ok {
					t.Fatalf("line %d: field %d estimated %v, guidellm %s", line, i, v.ok, ws)
				}
				continue
			}
			wv, _ := strconv.ParseFloat(ws, 64)
			if math.Abs(v.x-wv) > 1e-6*math.Max(1, math.Abs(wv)) {
				t.Fatalf("line %d (%s): field %d = %v, guidellm %v", line, ev, i, v.x, wv)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d events in alert", fires)
}

func b2s(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
