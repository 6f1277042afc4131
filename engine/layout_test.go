package engine

import (
	"math/bits"
	"reflect"
	"testing"
)

// TestSeqLayout pins the size of seq to the allocator's 192-byte size class,
// whose objects are 64-byte aligned: a seq then spans exactly the three
// cache lines prefetch brings in (a 200-byte seq, in the 208-byte class,
// spanned four). Adding a field costs a cache line per completion.
func TestSeqLayout(t *testing.T) {
	if bits.UintSize != 64 {
		t.Skip("the layout is planned for 64-bit platforms")
	}
	if got := reflect.TypeFor[seq]().Size(); got != 192 {
		t.Fatalf("seq is %d bytes, want 192 (see the comment on seq and prefetch_*.s)", got)
	}
	// Objects of one size class are laid out from a page boundary, every
	// 192 bytes: each starts on a 64-byte boundary.
	for i := 0; i < 100; i++ {
		layoutSink = new(seq) // on the heap, as the engine's
		if p := reflect.ValueOf(layoutSink).Pointer(); p%64 != 0 {
			t.Fatalf("a new seq at %#x is not 64-byte aligned", p)
		}
	}
}

var layoutSink *seq
