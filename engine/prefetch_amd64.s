#include "textflag.h"

// func prefetch(s *seq)
//
// PREFETCHT0 on every cache line of a seq: it is 192 bytes, and the
// allocator's 192-byte size class starts each object on a 64-byte boundary,
// so it spans exactly three lines (TestSeqLayout). A prefetch never faults,
// whatever the address.
TEXT ·prefetch(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ	s+0(FP), AX
	PREFETCHT0	(AX)
	PREFETCHT0	64(AX)
	PREFETCHT0	128(AX)
	RET
