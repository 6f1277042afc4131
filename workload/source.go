package workload

// Source yields the requests of a run in arrival order.
//
// Next fills *r with the next request and reports whether there was one. A
// Source is single-use and not safe for concurrent use. Err reports the first
// error met (a trace row that does not parse, for example); Next returns false
// after it.
type Source interface {
	Next(r *Request) bool
	Err() error
}

// Sized is a Source that knows how many requests it yields in all (every
// Source of NewSource is one). The simulator decides its warm-up from it.
type Sized interface {
	Len() int64
}

// SelfContained is a Source whose requests depend on nothing but itself
// (its spec, its seed, its file read in advance): not on the run that
// consumes them, nor on time or other goroutines. The simulator may read
// such a source ahead of the run on a goroutine of its own, in batches; the
// run still sees exactly the same requests in the same order, and the error
// (Err) after the same request. A run that ends early (stopped, halted, an
// error) may leave the source read further than the run used. Every Source
// of NewSource and NewCDFSource is one, and so is SliceSource.
type SelfContained interface {
	Source
	// SelfContained marks the source; it does nothing.
	SelfContained()
}
