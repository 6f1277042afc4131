package catalog

import (
	"fmt"
	"math"
)

// KVLink is the link a disaggregated pool moves a prompt's KV cache over,
// from the prefill instance to the decode instance (issue 18).
type KVLink struct {
	GBs      float64 `json:"gb_s" yaml:"gb_s"`           // bandwidth in one direction, GB/s (10^9 bytes/s), > 0
	LatencyS float64 `json:"latency_s" yaml:"latency_s"` // fixed cost of one transfer, s, >= 0
}

// Validate reports the first invalid field of l, naming it, its value and
// what is allowed.
func (l KVLink) Validate() error {
	if !(l.GBs > 0) || math.IsInf(l.GBs, 0) {
		return fmt.Errorf("kv link: gb_s = %v, must be a finite number > 0 (bandwidth, GB/s)", l.GBs)
	}
	if !(l.LatencyS >= 0) || math.IsInf(l.LatencyS, 0) {
		return fmt.Errorf("kv link: latency_s = %v, must be a finite number >= 0 (seconds)", l.LatencyS)
	}
	return nil
}

// MaxTransferS bounds a disaggregated pool's longest transfer, s: moving
// the KV cache of its longest prompt must take at most this long. A
// transfer of more than 1,000 s is no serving system, and the bound keeps
// a transfer's landing time inside the simulator's clock (engine.Time,
// whose iterations are bounded the same way, engine.MaxIterationS).
const MaxTransferS = 1e3

// CheckLongest reports an error when moving the KV cache of a prompt of
// tokens tokens, kvBytes bytes each, over l takes longer than MaxTransferS
// (l valid, kvBytes > 0).
func (l KVLink) CheckLongest(tokens int, kvBytes float64) error {
	if t := float64(tokens)*kvBytes/(l.GBs*1e9) + l.LatencyS; !(t <= MaxTransferS) {
		return fmt.Errorf("kv link: gb_s = %v, latency_s = %v: moving a %d-token prompt (%g bytes/token) takes %.4g s, more than the %g s allowed (a faster link or fewer bytes per token)", l.GBs, l.LatencyS, tokens, kvBytes, t, MaxTransferS)
	}
	return nil
}

// TransferS returns the time to move the KV cache of a prompt of tokens
// tokens of model m over l, seconds:
//
//	t = tokens · KVBytesPerToken / (GBs · 10^9) + LatencyS
//
// (the whole prompt's KV, all tensor-parallel shards together, over one
// link of GBs; a link per GPU shard would divide the bytes and the
// bandwidth alike).
func (l KVLink) TransferS(m Model, tokens int) float64 {
	return float64(tokens)*m.KVBytesPerToken()/(l.GBs*1e9) + l.LatencyS
}
