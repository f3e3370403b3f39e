package ops

import (
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

// BenchmarkCompute measures the real computation of small kernels.
func BenchmarkCompute(b *testing.B) {
	x := f32(shp(64, 256))
	bias := f32(shp(256))
	w := f32(shp(256, 256))
	for _, c := range []struct {
		name string
		op   string
		in   []*kernel.Tensor
	}{
		{"Add", "Add", []*kernel.Tensor{x, bias}},
		{"MatMul", "MatMul", []*kernel.Tensor{x, w}},
	} {
		b.Run(c.name, func(b *testing.B) {
			k, _ := Builtins().New(c.op, nil)
			a, err := prepare(k, 0, c.in...)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := k.Compute(a); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
