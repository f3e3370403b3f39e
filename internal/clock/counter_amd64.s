#include "textflag.h"

// func counter() int64
TEXT ·counter(SB), NOSPLIT, $0-8
	RDTSC
	SHLQ	$32, DX
	ORQ	DX, AX
	MOVQ	AX, ret+0(FP)
	RET

// func invariantTSC() bool
TEXT ·invariantTSC(SB), NOSPLIT, $0-1
	MOVL	$0x80000000, AX
	XORL	CX, CX
	CPUID
	CMPL	AX, $0x80000007
	JB	no
	MOVL	$0x80000007, AX
	XORL	CX, CX
	CPUID
	SHRL	$8, DX
	ANDL	$1, DX
	MOVB	DX, ret+0(FP)
	RET
no:
	MOVB	$0, ret+0(FP)
	RET
