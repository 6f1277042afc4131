package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRequestsByteIdenticalC9DB118 pins requests.parquet of small runs to
// the bytes the baseline binary built from commit c9db118 wrote (issue 20:
// the speed and memory work must not change any result). The sha256 sums
// are of `fleetsim simulate --timing kv ARGS --out D` run with that binary
// (/work/bin/fleetsim-base), whose default fleet was the papers'. The runs
// here name the papers' convention explicitly, so that the default
// scenario's change (issue 21: auto charges prompt tokens, the fleet
// re-sized) does not move them: --compat papers on the default fleet (which
// so reproduces c9db118's default run), --timing kv with --pool. The cases
// cover central, jsq and rr dispatch, compress-and-route, an overloaded pool
// (its drain), an enforce-mode stop, and queue_full, misrouted and spillover
// rejections.
func TestRequestsByteIdenticalC9DB118(t *testing.T) {
	cases := []struct{ args, sha string }{
		{"--requests 20000", "2f4354ecdf5200cb860c100f5a153be9d60d54ab8a49051e3c555fb9e4aee781"},
		{"--requests 20000 --dispatch jsq", "506315ecf8cd02410b4da56e591bda06441f95277e346f17c0d484126fce5b70"},
		{"--requests 20000 --dispatch rr", "ea03102c79dff7c8e5da52f077fdaa2c2168327e2728808ef48f4d25b291f07a"},
		{"--requests 20000 --router cr --gamma 1.5", "73a7307efb598cd68f3365a61b731df8d7a3b63e37f3b71252233dfdd33f6449"},
		{"--pool a:a10g:1:2048 --rate 1000 --requests 20000", "c6154b56c08d33b9355aee7f760a869cc2d2948787412f3071b16a813e8169db"},
		{"--pool a:a10g:2:2048 --pool b:a100:2:8192 --rate 300 --requests 20000 --osd enforce", "75ea108ce45dab748eaa1fce2a5d22fe6bba6df06687e901ccfa926c8dbd2092"},
		// Rejections (issue 20, second pass: dispatch no longer returns
		// them): queue_full at a queue limit of 1 under central, jsq and
		// rr dispatch (about 15,900 rejections, many at one instant),
		// misrouted, and spillover with a queue limit.
		{"--pool one:a100:2:65536 --requests 20000 --queue-limit 1", "7edf1299f04c82f5be9a7f79f996a2dc649b20b61b0cccc6d20f1362a114e556"},
		{"--pool one:a100:2:65536 --requests 20000 --queue-limit 1 --dispatch jsq", "76099c135e8340c4db1088bd6ec2dcd42a94cf8fcc0d6b32be231a6aa32a7ddb"},
		{"--pool one:a100:2:65536 --requests 20000 --queue-limit 1 --dispatch rr", "56e98d5aaef5c0bd442b13554f52d8ee936a704499388b3011ac4a1000b30e5c"},
		{"--pool a:a100:3:2048 --pool b:a100:2:3000 --requests 20000", "4f35ac4f3829009e37454da5561f8963f1b4b5755fa9a5a830e5e28b5f774e24"},
		{"--router spillover --rate 1500 --queue-limit 20 --requests 20000", "b2ae08ef26a5ad72e58c2b54b9783c1124566228947dee8a06812143a04a5828"},
	}
	for _, c := range cases {
		out := filepath.Join(t.TempDir(), "D")
		conv := []string{"--compat", "papers"}
		if strings.Contains(c.args, "--pool") {
			conv = []string{"--timing", "kv"}
		}
		args := append(append([]string{"simulate"}, conv...), strings.Fields(c.args)...)
		args = append(args, "--out", out, "--format", "json")
		// An enforce-mode stop writes its outputs and exits 3 (issue 19).
		want := 0
		if strings.Contains(c.args, "--osd enforce") {
			want = exitOSDStop
		}
		if code, _, errs := runCLI(t, args...); code != want {
			t.Fatalf("%s: exit %d, want %d: %s", c.args, code, want, errs)
		}
		data, err := os.ReadFile(filepath.Join(out, requestsFile))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != c.sha {
			t.Errorf("%s: requests.parquet sha256 %s, want %s (c9db118)", c.args, got, c.sha)
		}
	}
}

// papersFleet are the flags of the papers' default scenario (sim.PapersDefaults)
// for a run that also reads a scenario file (--compat papers takes none).
var papersFleet = []string{"--timing", "kv", "--pool", "short:a100:43:4096", "--pool", "long:a100:131:65536"}
