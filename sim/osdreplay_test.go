//go:build unix

package sim

import (
	"encoding/binary"
	"math"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"testing"

	"github.com/fleetsim/fleetsim/internal/cputime"
	"github.com/fleetsim/fleetsim/sim/osd"
	"github.com/fleetsim/fleetsim/workload"
)

// TestOSDReplay is a measuring harness, skipped unless OSD_REPLAY names a
// file: the monitor-mode worker replaying the events of
// BenchmarkFleetAzure's run (1M requests) in a fresh process, as the CLI's
// worker sees fresh memory (BenchmarkOSDWorker repeats the replay in one
// process, on a warm heap). The first call captures the events (osdTap)
// into the file (21 bytes each); later calls read them and replay them
// OSD_REPS times (default 1) on fresh detectors, logging per replay the
// thread's CPU ms and the process's minor page faults, with the fleet
// detector's final state (the same in every replay). It asserts nothing
// about time.
func TestOSDReplay(t *testing.T) {
	path := os.Getenv("OSD_REPLAY")
	if path == "" {
		t.Skip("OSD_REPLAY not set")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		raw = captureOSDEvents(t, path)
	}
	evs := make([]osdEv, len(raw)/21)
	for i := range evs {
		b := raw[21*i:]
		evs[i] = osdEv{t: math.Float64frombits(binary.LittleEndian.Uint64(b)), v: math.Float64frombits(binary.LittleEndian.Uint64(b[8:])),
			det: int32(binary.LittleEndian.Uint32(b[16:])), kind: b[20]}
	}
	reps := 1
	if s := os.Getenv("OSD_REPS"); s != "" {
		reps, _ = strconv.Atoi(s)
	}
	runtime.GC()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for range reps {
		var ru0, ru1 syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
		t0, _ := cputime.Thread()
		w := &osdWorker{params: osd.DefaultConfig(), pools: make([]*osd.Detector, 2)}
		for i := 0; i < len(evs); i += osdBatchLen {
			w.applyBatch(&osdBatch{evs: evs[i:min(i+osdBatchLen, len(evs))]})
		}
		t1, _ := cputime.Thread()
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
		runtime.KeepAlive(raw) // the replays' memory comes fresh, not from raw's
		st := w.fleet.State()
		t.Logf("REPLAY cpu_ms %.1f minflt %d events %d evaluations %d concurrency_n %d ttft_n %d",
			(t1-t0)*1e3, ru1.Minflt-ru0.Minflt, len(evs), st.Evaluations, st.ConcurrencyN, st.TTFTN)
	}
}

// captureOSDEvents runs BenchmarkFleetAzure's 1M requests, writes the
// events handed to the worker to path and returns the file's bytes.
func captureOSDEvents(t *testing.T, path string) []byte {
	var evs []osdEv
	osdTap = func(batch []osdEv) { evs = append(evs, batch...) }
	defer func() { osdTap = nil }()
	spec := workload.Spec{CDF: "azure", Rate: 1000, Requests: 1000000}
	cfg := Config{Seed: 1, Workload: spec, Timing: "kv", WarmupFraction: 0.2, Pools: []PoolConfig{
		{Name: "short", GPU: "a100", Count: 43, MaxContext: 4096},
		{Name: "long", GPU: "a100", Count: 131, MaxContext: 65536}}}
	src, err := workload.NewSource(spec, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err = Run(cfg, src, nil, Options{}); err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 0, 21*len(evs))
	for _, e := range evs {
		raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(e.t))
		raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(e.v))
		raw = binary.LittleEndian.AppendUint32(raw, uint32(e.det))
		raw = append(raw, e.kind)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return raw
}
