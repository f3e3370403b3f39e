package ops

import (
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// BenchmarkHostStages measures the host work of one kernel run on virtual
// data at model sizes: InferShape, Resize and Launch (no computation).
func BenchmarkHostStages(b *testing.B) {
	for _, c := range []struct {
		name  string
		op    string
		attrs kernel.Attrs
		in    []*kernel.Tensor
	}{
		{"Add", "Add", nil, []*kernel.Tensor{kernel.Virtual(kernel.Float16, 8, 2048, 4096), kernel.Virtual(kernel.Float16, 4096)}},
		{"MatMul", "MatMul", nil, []*kernel.Tensor{kernel.Virtual(kernel.Float16, 2048, 4096), kernel.Virtual(kernel.Float16, 4096, 4096)}},
		{"Softmax", "Softmax", nil, []*kernel.Tensor{kernel.Virtual(kernel.Float16, 8, 32, 2048, 2048)}},
		{"Reshape", "Reshape", nil, []*kernel.Tensor{kernel.Virtual(kernel.Float16, 8, 2048, 4096), kernel.FromInt64([]int64{8, 2048, 32, 128}, 4)}},
	} {
		b.Run(c.name, func(b *testing.B) {
			k, err := Builtins().New(c.op, c.attrs)
			if err != nil {
				b.Fatal(err)
			}
			a, err := prepare(k, 0, c.in...)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := k.InferShape(a.In, a.Out); err != nil {
					b.Fatal(err)
				}
				if err := k.Resize(a.In, a.Out, &a.Tiling); err != nil {
					b.Fatal(err)
				}
				if err := k.Compute(a); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCompute measures the real computation of small kernels: the
// element-wise and product ops, and the ops built on the blocked axpy
// product (Conv, ConvTranspose, Gemm) and the recurrent cells, in float32.
func BenchmarkCompute(b *testing.B) {
	x := f32(shp(64, 256))
	bias := f32(shp(256))
	w := f32(shp(256, 256))
	r := rand.New(rand.NewPCG(1, 2))
	img, img1 := randF32(r, 1, 32, 32, 32), randF32(r, 1, 64, 32, 32)
	for _, c := range []struct {
		name  string
		op    string
		attrs kernel.Attrs
		in    []*kernel.Tensor
	}{
		{"Add", "Add", nil, []*kernel.Tensor{x, bias}},
		{"MatMul", "MatMul", nil, []*kernel.Tensor{x, w}},
		{"Conv3x3", "Conv", kernel.Attrs{"pads": []int64{1, 1, 1, 1}}, []*kernel.Tensor{img, randF32(r, 32, 32, 3, 3), randF32(r, 32)}},
		{"Conv1x1", "Conv", nil, []*kernel.Tensor{img1, randF32(r, 64, 64, 1, 1)}},
		{"ConvTranspose", "ConvTranspose", kernel.Attrs{"strides": []int64{2, 2}}, []*kernel.Tensor{randF32(r, 1, 32, 16, 16), randF32(r, 32, 16, 3, 3)}},
		{"Gemm", "Gemm", nil, []*kernel.Tensor{randF32(r, 64, 256), randF32(r, 256, 256), randF32(r, 256)}},
		{"GemmTransB", "Gemm", kernel.Attrs{"transB": int64(1), "alpha": 0.5}, []*kernel.Tensor{randF32(r, 64, 256), randF32(r, 256, 256), randF32(r, 256)}},
		{"LSTM", "LSTM", kernel.Attrs{"hidden_size": int64(64)}, []*kernel.Tensor{randF32(r, 16, 4, 32), randF32(r, 1, 256, 32), randF32(r, 1, 256, 64)}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			benchCompute(b, c.op, c.attrs, c.in...)
		})
	}
}

// benchCompute times op's Compute on operands in.
func benchCompute(b *testing.B, op string, attrs kernel.Attrs, in ...*kernel.Tensor) {
	k, err := Builtins().New(op, attrs)
	if err != nil {
		b.Fatal(err)
	}
	a, err := prepare(k, 0, in...)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := k.Compute(a); err != nil {
			b.Fatal(err)
		}
	}
}
