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
	cases := []struct {
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
	}
	// The ops built on the blocked axpy product and the recurrent cells, in
	// each float dtype: the conversions, the column matrix and the state
	// live in buffers the kernel keeps.
	for _, dt := range []kernel.DType{kernel.Float32, kernel.Float16, kernel.Float64} {
		rt := func(s ...int64) *kernel.Tensor { return randTensor(r, dt, s) }
		cases = append(cases, []struct {
			op    string
			attrs kernel.Attrs
			in    []*kernel.Tensor
		}{
			{"Conv", kernel.Attrs{"pads": []int64{1, 1, 1, 1}}, []*kernel.Tensor{rt(1, 2, 5, 5), rt(3, 2, 3, 3), rt(3)}},
			{"ConvTranspose", kernel.Attrs{"strides": []int64{2, 2}}, []*kernel.Tensor{rt(1, 2, 3, 3), rt(2, 3, 2, 2)}},
			{"Gemm", kernel.Attrs{"transB": int64(1), "alpha": 0.5}, []*kernel.Tensor{rt(3, 4), rt(5, 4), rt(5)}},
			{"LSTM", kernel.Attrs{"hidden_size": int64(3)}, []*kernel.Tensor{rt(2, 1, 4), rt(1, 12, 4), rt(1, 12, 3)}},
			{"GRU", kernel.Attrs{"hidden_size": int64(3)}, []*kernel.Tensor{rt(2, 1, 4), rt(1, 9, 4), rt(1, 9, 3)}},
			{"RNN", kernel.Attrs{"hidden_size": int64(3)}, []*kernel.Tensor{rt(2, 1, 4), rt(1, 3, 4), rt(1, 3, 3)}},
		}...)
	}
	for _, c := range cases {
		if n := computeAllocs(t, c.op, c.attrs, c.in); n != 0 {
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
		_, _, nOut := k.Arity()
		out := make([]*kernel.Tensor, nOut)
		for i := range out {
			out[i] = &kernel.Tensor{}
		}
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
