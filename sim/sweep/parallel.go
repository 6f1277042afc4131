package sweep

import (
	"github.com/fleetsim/fleetsim/sim"

	"runtime"
	"sync"
)

// Workers returns the worker count for n jobs: w if w > 0, else GOMAXPROCS,
// and never more than n.
func Workers(w, n int) int {
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	return max(1, min(w, n))
}

// workerHook, when set (by benchmarks), is called at the start of each
// worker goroutine; the function it returns is called when the worker ends.
var workerHook func() (end func())

// parallel runs fn(0), ..., fn(n-1) on workers goroutines. Jobs are handed
// out in index order; once a job fails (or stop returns true) no new job
// starts. It returns the error of the lowest failed index, so the error does
// not depend on scheduling among the jobs that ran.
func parallel(n, workers int, stop func() bool, fn func(i int) error) error {
	errs := make([]error, n)
	var (
		mu     sync.Mutex
		next   int
		failed bool
		wg     sync.WaitGroup
	)
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if failed || next >= n || (stop != nil && stop()) {
			return 0, false
		}
		next++
		return next - 1, true
	}
	for range Workers(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if workerHook != nil {
				defer workerHook()()
			}
			for {
				i, ok := take()
				if !ok {
					return
				}
				if err := fn(i); err != nil {
					errs[i] = err
					mu.Lock()
					failed = true
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if stop != nil && stop() {
		return sim.ErrStopped
	}
	return nil
}
