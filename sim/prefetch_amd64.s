#include "textflag.h"

// func prefetchFlight(fl *flight)
//
// PREFETCHT0 on every cache line a flight can span: 192 bytes
// (TestFlightLayout), three lines when the allocator's 192-byte class places
// it on a line boundary, four otherwise, the last holding its byte 191.
TEXT ·prefetchFlight(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ	fl+0(FP), AX
	PREFETCHT0	(AX)
	PREFETCHT0	64(AX)
	PREFETCHT0	128(AX)
	PREFETCHT0	191(AX)
	RET
