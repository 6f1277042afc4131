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
