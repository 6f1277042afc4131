package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"testing"
)

// resultsDigest drives an engine like BenchmarkEngine (advance to every
// NextEvent, submit at each arrival) and returns the sha256 of every
// result's tag, times and preemptions, in output order.
func resultsDigest(cfg Config, reqs []arrival) string {
	e, err := New(cfg)
	if err != nil {
		panic(err)
	}
	h := sha256.New()
	var out []Result
	put := func(rs []Result) {
		for _, r := range rs {
			var b [8 * 6]byte
			for i, v := range []int64{int64(r.Job.Tag), int64(r.Enqueued), int64(r.Admitted), int64(r.FirstToken), int64(r.Finished), int64(r.Preemptions)} {
				binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
			}
			h.Write(b[:])
		}
	}
	for _, r := range reqs {
		for ne := e.NextEvent(); ne < r.at; ne = e.NextEvent() {
			out = e.AdvanceTo(ne, out[:0])
			put(out)
		}
		out = e.AdvanceTo(r.at, out[:0])
		put(out)
		e.Submit(r.job, r.at)
	}
	put(e.AdvanceTo(Never, out[:0]))
	return fmt.Sprintf("%x", h.Sum(nil))
}

// TestNoCacheIdentical: without prefixes, the engine's results are
// byte-identical to those of the engine at commit c9db118 (before the prefix
// cache), whether the cache is off, on, or off with jobs carrying prefixes.
// The digests were printed by this same resultsDigest run on c9db118's
// engine package (A100 short pool, 20,000 Azure-like requests; the tight case
// has an eighth of the KV cache and preempts).
func TestNoCacheIdentical(t *testing.T) {
	tight := a100Short
	tight.KVBlocks = 8192
	for _, tc := range []struct {
		name string
		cfg  Config
		rate float64
		want string
	}{
		{"azure", a100Short, benchRate, "11621996f9c1f6748a0dcb56b2f8a717c68e478f55c103cd5f10ca53a75271be"},
		{"tight", tight, 60, "0c5e5bb4bf32d84651a745657bc775d73f5f31ba41e64146aa7106c37a1026d0"},
	} {
		reqs := azureShort(t, 20000, tc.rate)
		on := tc.cfg
		on.CacheBlocks = on.KVBlocks
		withPrefix := make([]arrival, len(reqs))
		p := &Prefix{Hashes: []uint64{7, 8, 9}, Tokens: 16}
		for i, r := range reqs {
			withPrefix[i] = r
			withPrefix[i].job.Prefix = p
		}
		for _, v := range []struct {
			name string
			cfg  Config
			reqs []arrival
		}{{"off", tc.cfg, reqs}, {"on, no prefixes", on, reqs}, {"off, prefixes", tc.cfg, withPrefix}} {
			if got := resultsDigest(v.cfg, v.reqs); got != tc.want {
				t.Errorf("%s, cache %s: digest %s, c9db118 gives %s", tc.name, v.name, got, tc.want)
			}
		}
	}
}
