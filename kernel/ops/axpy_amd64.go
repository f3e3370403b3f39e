package ops

import "golang.org/x/sys/cpu"

// useSIMD: the processor and the operating system support AVX.
var useSIMD = cpu.X86.HasAVX

//go:noescape
func axpyRows4F32(r0, r1, r2, r3, b *float32, n int, a0, a1, a2, a3 float32)

//go:noescape
func axpySum4F32(r, b0, b1, b2, b3 *float32, n int, a0, a1, a2, a3 float32)

//go:noescape
func axpy1F32(r, b *float32, n int, a float32)
