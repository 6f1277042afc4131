#include "textflag.h"

// func prefetchFlight(fl *flight)
//
// PREFETCHT0 on every cache line a flight can span (168 bytes, not aligned
// to a line: up to four lines, the last holding its byte 167).
TEXT ·prefetchFlight(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ	fl+0(FP), AX
	PREFETCHT0	(AX)
	PREFETCHT0	64(AX)
	PREFETCHT0	128(AX)
	PREFETCHT0	167(AX)
	RET
