package ops

import "unsafe"

// The float32 row updates of the matrix products: mmFloat32's four output
// rows from one row of B (axpyRows4), and mmAxpy's sum of four products
// added to an output row (axpySum4) or one product (axpy1). Where the
// processor has AVX (amd64), they run eight elements a step in assembly
// (axpy_amd64.s); each element still takes the multiplications and
// additions of the scalar loop, in the same order and none fused, so the
// results are the same bits (TestAxpyMatchesScalar; only a NaN's payload
// may differ where both operands of an operation are NaN).

// simdMin is the shortest row worth the assembly's call.
const simdMin = 8

// axpyRows4 is r_i[j] += float32(a_i·b[j]) for the four rows, j < len(b);
// every r_i holds at least len(b) elements.
func axpyRows4(r0, r1, r2, r3, b []float32, a0, a1, a2, a3 float32) {
	n := len(b)
	if useSIMD && n >= simdMin {
		_, _, _, _ = r0[n-1], r1[n-1], r2[n-1], r3[n-1]
		axpyRows4F32(&r0[0], &r1[0], &r2[0], &r3[0], &b[0], n, a0, a1, a2, a3)
		return
	}
	r0, r1, r2, r3 = r0[:n], r1[:n], r2[:n], r3[:n]
	for j, bv := range b {
		r0[j] += mul(a0, bv)
		r1[j] += mul(a1, bv)
		r2[j] += mul(a2, bv)
		r3[j] += mul(a3, bv)
	}
}

// axpySum4 is r[j] += ((a0·b0[j] + a1·b1[j]) + a2·b2[j]) + a3·b3[j], each
// product rounded, for j < len(r); every b_i holds at least len(r)
// elements. T is float32 or float64; float32 may take the assembly.
func axpySum4[T float32 | float64](r, b0, b1, b2, b3 []T, a0, a1, a2, a3 T) {
	n := len(r)
	if useSIMD && unsafe.Sizeof(a0) == 4 && n >= simdMin {
		_, _, _, _ = b0[n-1], b1[n-1], b2[n-1], b3[n-1]
		axpySum4F32(f32p(&r[0]), f32p(&b0[0]), f32p(&b1[0]), f32p(&b2[0]), f32p(&b3[0]), n, f32v(a0), f32v(a1), f32v(a2), f32v(a3))
		return
	}
	b0, b1, b2, b3 = b0[:n], b1[:n], b2[:n], b3[:n]
	for j := range r {
		r[j] += mul(a0, b0[j]) + mul(a1, b1[j]) + mul(a2, b2[j]) + mul(a3, b3[j])
	}
}

// axpy1 is r[j] += a·b[j], the product rounded, for j < len(r); b holds at
// least len(r) elements.
func axpy1[T float32 | float64](r, b []T, a T) {
	n := len(r)
	if useSIMD && unsafe.Sizeof(a) == 4 && n >= simdMin {
		_ = b[n-1]
		axpy1F32(f32p(&r[0]), f32p(&b[0]), n, f32v(a))
		return
	}
	b = b[:n]
	for j := range r {
		r[j] += mul(a, b[j])
	}
}

// f32p and f32v read a T that is float32 as one: callers check its size.
func f32p[T float32 | float64](p *T) *float32 { return (*float32)(unsafe.Pointer(p)) }
func f32v[T float32 | float64](v T) float32   { return *(*float32)(unsafe.Pointer(&v)) }
