#include "textflag.h"

// func prefetch(s *seq)
//
// PREFETCHT0 on every cache line a seq can span (it is 200 bytes, not
// aligned to a line: up to five lines, the last holding its byte 199).
TEXT ·prefetch(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ	s+0(FP), AX
	PREFETCHT0	(AX)
	PREFETCHT0	64(AX)
	PREFETCHT0	128(AX)
	PREFETCHT0	192(AX)
	PREFETCHT0	199(AX)
	RET
