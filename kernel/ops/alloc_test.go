package ops

import (
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestComputeAllocatesNothing computes kernels on real data again and again:
// the computation must not allocate in steady state.
func TestComputeAllocatesNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for _, c := range []struct {
		op    string
		attrs kernel.Attrs
		in    []*kernel.Tensor
	}{
		{"Add", nil, []*kernel.Tensor{randTensor(r, kernel.Float32, shp(4, 64, 32)), randTensor(r, kernel.Float32, shp(64, 1))}},
		{"Mul", nil, []*kernel.Tensor{randTensor(r, kernel.Float16, shp(128)), randTensor(r, kernel.Float16, shp(128))}},
		{"Sub", nil, []*kernel.Tensor{randTensor(r, kernel.Int64, shp(3, 1, 5)), randTensor(r, kernel.Int64, shp(1, 4, 1))}},
		{"Add", nil, []*kernel.Tensor{f32(nil, 1), f32(nil, 2)}},
		{"MatMul", nil, []*kernel.Tensor{randTensor(r, kernel.Float32, shp(16, 32)), randTensor(r, kernel.Float32, shp(32, 24))}},
		{"MatMul", kernel.Attrs{"transA": true}, []*kernel.Tensor{randTensor(r, kernel.Float16, shp(8, 4)), randTensor(r, kernel.Float16, shp(8, 4))}},
		{"BatchMatMul", nil, []*kernel.Tensor{randTensor(r, kernel.Float32, shp(2, 3, 4, 5)), randTensor(r, kernel.Float32, shp(3, 5, 6))}},
		{"ReLU", nil, []*kernel.Tensor{randTensor(r, kernel.Float32, shp(100))}},
		{"Softmax", nil, []*kernel.Tensor{randTensor(r, kernel.Float32, shp(4, 100))}},
		{"LayerNorm", nil, []*kernel.Tensor{randTensor(r, kernel.Float16, shp(4, 16)), randTensor(r, kernel.Float16, shp(16)), randTensor(r, kernel.Float16, shp(16))}},
		{"ReduceSum", kernel.Attrs{"axes": []int64{1}}, []*kernel.Tensor{randTensor(r, kernel.Float32, shp(4, 5, 6))}},
		{"Transpose", nil, []*kernel.Tensor{randTensor(r, kernel.Float32, shp(4, 5, 6))}},
		{"Slice", kernel.Attrs{"starts": []int64{1}, "ends": []int64{-1}}, []*kernel.Tensor{randTensor(r, kernel.Float32, shp(4, 5))}},
		{"Gemm", kernel.Attrs{"transB": int64(1), "alpha": 0.5}, []*kernel.Tensor{randTensor(r, kernel.Float32, shp(3, 4)), randTensor(r, kernel.Float32, shp(5, 4)), randTensor(r, kernel.Float32, shp(5))}},
	} {
		k, err := Builtins().New(c.op, c.attrs)
		if err != nil {
			t.Fatal(err)
		}
		a, err := prepare(k, 0, c.in...)
		if err != nil {
			t.Fatal(err)
		}
		n := testing.AllocsPerRun(50, func() {
			if err := k.Compute(a); err != nil {
				t.Fatal(err)
			}
		})
		if n != 0 {
			t.Errorf("%s on %v: %v allocations per computation", c.op, c.in, n)
		}
	}
}

// TestHostStagesAllocateNothing checks the steady state of the host stages:
// InferShape reuses the output shape and Resize the node's tiling buffer, so
// neither allocates.
func TestHostStagesAllocateNothing(t *testing.T) {
	for _, c := range robustCases() {
		k, err := Builtins().New(c.op, c.attrs)
		if err != nil {
			t.Fatal(err)
		}
		out := []*kernel.Tensor{{}}
		if err := k.InferShape(c.in, out); err != nil {
			t.Fatal(err)
		}
		infer := testing.AllocsPerRun(20, func() {
			if err := k.InferShape(c.in, out); err != nil {
				t.Fatal(err)
			}
		})
		var tl kernel.Tiling
		resize := testing.AllocsPerRun(20, func() {
			if err := k.Resize(c.in, out, &tl); err != nil {
				t.Fatal(err)
			}
		})
		if infer != 0 || resize != 0 {
			t.Errorf("%s: InferShape %v allocations, Resize %v", c.op, infer, resize)
		}
	}
}
