package ops

import (
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// BenchmarkProductsSIMD runs the matrix products with the assembly row
// updates and with the scalar loops, side by side in one run
// (go test -bench ProductsSIMD -count 5 ./kernel/ops, then benchstat).
func BenchmarkProductsSIMD(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	img := randF32(r, 1, 32, 32, 32)
	for _, c := range []struct {
		name  string
		op    string
		attrs kernel.Attrs
		in    []*kernel.Tensor
	}{
		{"MatMul", "MatMul", nil, []*kernel.Tensor{randF32(r, 64, 256), randF32(r, 256, 256)}},
		{"Gemm", "Gemm", nil, []*kernel.Tensor{randF32(r, 64, 256), randF32(r, 256, 256), randF32(r, 256)}},
		{"Conv3x3", "Conv", kernel.Attrs{"pads": []int64{1, 1, 1, 1}}, []*kernel.Tensor{img, randF32(r, 32, 32, 3, 3), randF32(r, 32)}},
	} {
		for _, simd := range []bool{false, true} {
			name := c.name + "/scalar"
			if simd {
				name = c.name + "/avx"
			}
			b.Run(name, func(b *testing.B) {
				if simd && !useSIMD {
					b.Skip("no AVX")
				}
				saved := useSIMD
				useSIMD = simd
				defer func() { useSIMD = saved }()
				k, err := Builtins().New(c.op, c.attrs)
				if err != nil {
					b.Fatal(err)
				}
				a, err := prepare(k, 0, c.in...)
				if err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					if err := k.Compute(a); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
