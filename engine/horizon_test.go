package engine

import "fmt"

// checkHorizon checks the run's remembered horizon against a fresh search
// (horizon keeps it across quiet iterations: it must be where the batch
// alone puts it). The random scenarios call it after every advance.
func checkHorizon(e *Engine) error {
	if e.idle || !e.quiet() {
		return nil
	}
	k, ex := e.horizon()
	k2, ex2 := e.searchHorizon()
	if k != k2 || ex != ex2 {
		return fmt.Errorf("iteration %d: remembered horizon (%d, %v), searched (%d, %v)", e.it, k, ex, k2, ex2)
	}
	return nil
}
