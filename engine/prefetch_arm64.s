#include "textflag.h"

// func prefetch(s *seq)
//
// PRFM on every cache line a seq can span (see prefetch_amd64.s).
TEXT ·prefetch(SB), NOSPLIT|NOFRAME, $0-8
	MOVD	s+0(FP), R0
	PRFM	(R0), PLDL1KEEP
	PRFM	64(R0), PLDL1KEEP
	PRFM	128(R0), PLDL1KEEP
	RET
