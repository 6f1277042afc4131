#include "textflag.h"

// func prefetchFlight(fl *flight)
//
// PRFM on every cache line a flight can span (see prefetch_amd64.s).
TEXT ·prefetchFlight(SB), NOSPLIT|NOFRAME, $0-8
	MOVD	fl+0(FP), R0
	PRFM	(R0), PLDL1KEEP
	PRFM	64(R0), PLDL1KEEP
	PRFM	128(R0), PLDL1KEEP
	PRFM	191(R0), PLDL1KEEP
	RET
