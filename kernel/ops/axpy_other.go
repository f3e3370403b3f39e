//go:build !amd64

package ops

// useSIMD is false: the row updates take their scalar loops.
const useSIMD = false

// The assembly's signatures, never called without it.
func axpyRows4F32(r0, r1, r2, r3, b *float32, n int, a0, a1, a2, a3 float32) {
	panic("ops: no assembly row update on this architecture")
}

func axpySum4F32(r, b0, b1, b2, b3 *float32, n int, a0, a1, a2, a3 float32) {
	panic("ops: no assembly row update on this architecture")
}

func axpy1F32(r, b *float32, n int, a float32) {
	panic("ops: no assembly row update on this architecture")
}
