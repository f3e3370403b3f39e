#include "textflag.h"

// The float32 row updates of the matrix products (axpy.go), eight elements
// a step in AVX registers and the rest one at a time. Each element takes
// the multiplications and additions of the scalar loop in the same order,
// none fused, so the results are the same bits.

// func axpyRows4F32(r0, r1, r2, r3, b *float32, n int, a0, a1, a2, a3 float32)
TEXT ·axpyRows4F32(SB), NOSPLIT, $0-64
	MOVQ r0+0(FP), DI
	MOVQ r1+8(FP), SI
	MOVQ r2+16(FP), R8
	MOVQ r3+24(FP), R9
	MOVQ b+32(FP), DX
	MOVQ n+40(FP), CX
	VBROADCASTSS a0+48(FP), Y4
	VBROADCASTSS a1+52(FP), Y5
	VBROADCASTSS a2+56(FP), Y6
	VBROADCASTSS a3+60(FP), Y7
	XORQ AX, AX
	MOVQ CX, BX
	ANDQ $-8, BX

rows4loop:
	CMPQ AX, BX
	JGE  rows4tail
	VMOVUPS (DX)(AX*4), Y0
	VMULPS  Y4, Y0, Y1
	VMOVUPS (DI)(AX*4), Y2
	VADDPS  Y1, Y2, Y2
	VMOVUPS Y2, (DI)(AX*4)
	VMULPS  Y5, Y0, Y1
	VMOVUPS (SI)(AX*4), Y2
	VADDPS  Y1, Y2, Y2
	VMOVUPS Y2, (SI)(AX*4)
	VMULPS  Y6, Y0, Y1
	VMOVUPS (R8)(AX*4), Y2
	VADDPS  Y1, Y2, Y2
	VMOVUPS Y2, (R8)(AX*4)
	VMULPS  Y7, Y0, Y1
	VMOVUPS (R9)(AX*4), Y2
	VADDPS  Y1, Y2, Y2
	VMOVUPS Y2, (R9)(AX*4)
	ADDQ    $8, AX
	JMP     rows4loop

rows4tail:
	CMPQ   AX, CX
	JGE    rows4done
	VMOVSS (DX)(AX*4), X0
	VMULSS X4, X0, X1
	VMOVSS (DI)(AX*4), X2
	VADDSS X1, X2, X2
	VMOVSS X2, (DI)(AX*4)
	VMULSS X5, X0, X1
	VMOVSS (SI)(AX*4), X2
	VADDSS X1, X2, X2
	VMOVSS X2, (SI)(AX*4)
	VMULSS X6, X0, X1
	VMOVSS (R8)(AX*4), X2
	VADDSS X1, X2, X2
	VMOVSS X2, (R8)(AX*4)
	VMULSS X7, X0, X1
	VMOVSS (R9)(AX*4), X2
	VADDSS X1, X2, X2
	VMOVSS X2, (R9)(AX*4)
	INCQ   AX
	JMP    rows4tail

rows4done:
	VZEROUPPER
	RET

// func axpySum4F32(r, b0, b1, b2, b3 *float32, n int, a0, a1, a2, a3 float32)
TEXT ·axpySum4F32(SB), NOSPLIT, $0-64
	MOVQ r+0(FP), DI
	MOVQ b0+8(FP), SI
	MOVQ b1+16(FP), R8
	MOVQ b2+24(FP), R9
	MOVQ b3+32(FP), DX
	MOVQ n+40(FP), CX
	VBROADCASTSS a0+48(FP), Y4
	VBROADCASTSS a1+52(FP), Y5
	VBROADCASTSS a2+56(FP), Y6
	VBROADCASTSS a3+60(FP), Y7
	XORQ AX, AX
	MOVQ CX, BX
	ANDQ $-8, BX

sum4loop:
	CMPQ    AX, BX
	JGE     sum4tail
	VMOVUPS (SI)(AX*4), Y0
	VMULPS  Y4, Y0, Y0
	VMOVUPS (R8)(AX*4), Y1
	VMULPS  Y5, Y1, Y1
	VADDPS  Y1, Y0, Y0
	VMOVUPS (R9)(AX*4), Y1
	VMULPS  Y6, Y1, Y1
	VADDPS  Y1, Y0, Y0
	VMOVUPS (DX)(AX*4), Y1
	VMULPS  Y7, Y1, Y1
	VADDPS  Y1, Y0, Y0
	VMOVUPS (DI)(AX*4), Y2
	VADDPS  Y0, Y2, Y2
	VMOVUPS Y2, (DI)(AX*4)
	ADDQ    $8, AX
	JMP     sum4loop

sum4tail:
	CMPQ   AX, CX
	JGE    sum4done
	VMOVSS (SI)(AX*4), X0
	VMULSS X4, X0, X0
	VMOVSS (R8)(AX*4), X1
	VMULSS X5, X1, X1
	VADDSS X1, X0, X0
	VMOVSS (R9)(AX*4), X1
	VMULSS X6, X1, X1
	VADDSS X1, X0, X0
	VMOVSS (DX)(AX*4), X1
	VMULSS X7, X1, X1
	VADDSS X1, X0, X0
	VMOVSS (DI)(AX*4), X2
	VADDSS X0, X2, X2
	VMOVSS X2, (DI)(AX*4)
	INCQ   AX
	JMP    sum4tail

sum4done:
	VZEROUPPER
	RET

// func axpy1F32(r, b *float32, n int, a float32)
TEXT ·axpy1F32(SB), NOSPLIT, $0-28
	MOVQ r+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS a+24(FP), Y4
	XORQ AX, AX
	MOVQ CX, BX
	ANDQ $-8, BX

one8loop:
	CMPQ    AX, BX
	JGE     onetail
	VMOVUPS (SI)(AX*4), Y0
	VMULPS  Y4, Y0, Y0
	VMOVUPS (DI)(AX*4), Y2
	VADDPS  Y0, Y2, Y2
	VMOVUPS Y2, (DI)(AX*4)
	ADDQ    $8, AX
	JMP     one8loop

onetail:
	CMPQ   AX, CX
	JGE    onedone
	VMOVSS (SI)(AX*4), X0
	VMULSS X4, X0, X0
	VMOVSS (DI)(AX*4), X2
	VADDSS X0, X2, X2
	VMOVSS X2, (DI)(AX*4)
	INCQ   AX
	JMP    onetail

onedone:
	VZEROUPPER
	RET
