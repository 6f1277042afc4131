#include "textflag.h"

// func prefetch(s *seq)
//
// PREFETCHT0 on every cache line a seq can span: it is 200 bytes and at
// least 8-byte aligned (the allocator's 208-byte class: 16), so it starts at
// most 56 bytes into a line and ends by that line's start + 255: four lines.
// A prefetch never faults, whatever the address.
TEXT ·prefetch(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ	s+0(FP), AX
	PREFETCHT0	(AX)
	PREFETCHT0	64(AX)
	PREFETCHT0	128(AX)
	PREFETCHT0	192(AX)
	RET
