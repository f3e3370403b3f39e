package ops

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestLongComputesStopWithTheirRun checks that the kernels whose Compute
// can run long (matrix products, Gemm, convolutions, recurrent cells,
// attention, Einsum, DFT and STFT, pooling, non-max suppression, integer
// convolution, the linear attention of opset 27 and its causal
// convolution, OneHot, Resize) return the error of their run's context (kernel.Args.Ctx)
// once it ended, and compute the same bits with a live context as
// without one.
func TestLongComputesStopWithTheirRun(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	f32 := func(shape ...int64) *kernel.Tensor {
		x := kernel.New(kernel.Float32, shape...)
		for i := range kernel.Float32s(x.Host) {
			kernel.Float32s(x.Host)[i] = float32(r.NormFloat64())
		}
		return x
	}
	f64 := func(shape ...int64) *kernel.Tensor {
		x := kernel.New(kernel.Float64, shape...)
		for i := range kernel.Float64s(x.Host) {
			kernel.Float64s(x.Host)[i] = r.NormFloat64()
		}
		return x
	}
	i32 := func(shape ...int64) *kernel.Tensor {
		x := kernel.New(kernel.Int32, shape...)
		for i := range kernel.Int32s(x.Host) {
			kernel.Int32s(x.Host)[i] = int32(r.IntN(100) - 50)
		}
		return x
	}
	u8 := func(shape ...int64) *kernel.Tensor {
		x := kernel.New(kernel.Uint8, shape...)
		for i := range x.Host {
			x.Host[i] = byte(r.IntN(256))
		}
		return x
	}
	// n boxes [y1, x1, y2, x2] of sides 1 to 2 at random corners in a
	// 10×10 square: some overlap.
	boxes := func(n int64) *kernel.Tensor {
		x := kernel.New(kernel.Float32, 1, n, 4)
		v := kernel.Float32s(x.Host)
		for i := range n {
			y, xx := float32(r.Float64()*10), float32(r.Float64()*10)
			v[4*i], v[4*i+1], v[4*i+2], v[4*i+3] = y, xx, y+1+float32(r.Float64()), xx+1+float32(r.Float64())
		}
		return x
	}
	cases := []struct {
		name  string
		op    string
		attrs kernel.Attrs
		in    []*kernel.Tensor
	}{
		// 200 rows of 256×256 products: blocks of 64 rows between checks.
		{"MatMul float32", "MatMul", nil, []*kernel.Tensor{f32(2, 200, 256), f32(256, 256)}},
		{"MatMul float64", "MatMul", nil, []*kernel.Tensor{f64(200, 256), f64(256, 256)}},
		{"MatMul int32", "MatMul", nil, []*kernel.Tensor{i32(200, 256), i32(256, 256)}},
		{"Gemm transB", "Gemm", kernel.Attrs{"transB": int64(1)}, []*kernel.Tensor{f32(40, 300), f32(200, 300)}},
		{"Conv", "Conv", kernel.Attrs{"pads": []int64{1, 1, 1, 1}}, []*kernel.Tensor{f32(2, 8, 20, 20), f32(40, 8, 3, 3), f32(40)}},
		{"ConvTranspose", "ConvTranspose", nil, []*kernel.Tensor{f32(1, 40, 10, 10), f32(40, 8, 3, 3)}},
		{"LSTM", "LSTM", kernel.Attrs{"hidden_size": int64(8)}, []*kernel.Tensor{f32(5, 2, 4), f32(1, 32, 4), f32(1, 32, 8)}},
		{"Attention", "Attention", nil, []*kernel.Tensor{f32(1, 2, 6, 8), f32(1, 2, 7, 8), f32(1, 2, 7, 8)}},
		{"Einsum", "Einsum", kernel.Attrs{"equation": "ij,jk->ik"}, []*kernel.Tensor{f32(40, 256), f32(256, 256)}},
		{"GRU", "GRU", kernel.Attrs{"hidden_size": int64(8)}, []*kernel.Tensor{f32(5, 2, 4), f32(1, 24, 4), f32(1, 24, 8)}},
		// 600 points: 600 terms a bin, a check every 437 bins.
		{"DFT", "DFT", nil, []*kernel.Tensor{f32(2, 600, 1)}},
		{"STFT", "STFT", nil, []*kernel.Tensor{f32(1, 600, 1), kernel.FromInt64([]int64{8}), kernel.New(kernel.Float32, 0), kernel.FromInt64([]int64{64})}},
		{"MaxPool", "MaxPool", kernel.Attrs{"kernel_shape": []int64{3, 3}}, []*kernel.Tensor{f32(1, 4, 20, 20)}},
		{"AveragePool", "AveragePool", kernel.Attrs{"kernel_shape": []int64{3, 3}, "pads": []int64{1, 1, 1, 1}}, []*kernel.Tensor{f32(1, 4, 20, 20)}},
		{"LpPool", "LpPool", kernel.Attrs{"kernel_shape": []int64{3, 3}}, []*kernel.Tensor{f32(1, 4, 20, 20)}},
		{"NonMaxSuppression", "NonMaxSuppression", nil, []*kernel.Tensor{boxes(300), f32(1, 1, 300), kernel.FromInt64([]int64{100}, 1)}},
		{"ConvInteger", "ConvInteger", kernel.Attrs{"pads": []int64{1, 1, 1, 1}}, []*kernel.Tensor{u8(1, 8, 40, 40), u8(16, 8, 3, 3)}},
		// 64 rows of 2000 outputs of 8 taps: a check about every 16 rows.
		{"CausalConvWithState", "CausalConvWithState", nil, []*kernel.Tensor{f32(2, 32, 2000), f32(32, 1, 8)}},
		// 8 recurrences of 100 tokens on a 32×32 state: a check about every 43
		// tokens.
		{"LinearAttention", "LinearAttention", kernel.Attrs{"q_num_heads": int64(8), "kv_num_heads": int64(4), "update_rule": "linear"},
			[]*kernel.Tensor{f32(2, 100, 256), f32(2, 100, 128), f32(2, 100, 128)}},
		// 300 indices of depth 1000: a check every 218 rows of depth.
		{"OneHot", "OneHot", nil, []*kernel.Tensor{i32(300), kernel.FromInt64([]int64{1000}), kernel.FromFloat32([]float32{0, 1}, 2)}},
		// 8×8 to 300×300: a check every 219 rows; the integer path every row.
		{"Resize nearest", "Resize", nil, []*kernel.Tensor{f32(1, 1, 8, 8), kernel.New(kernel.Float32, 0), kernel.New(kernel.Float32, 0), kernel.FromInt64([]int64{1, 1, 300, 300}, 4)}},
		{"Resize linear", "Resize", kernel.Attrs{"mode": "linear"}, []*kernel.Tensor{f32(1, 1, 8, 8), kernel.New(kernel.Float32, 0), kernel.New(kernel.Float32, 0), kernel.FromInt64([]int64{1, 1, 300, 300}, 4)}},
		{"Resize linear int32", "Resize", kernel.Attrs{"mode": "linear"}, []*kernel.Tensor{i32(1, 1, 8, 8), kernel.New(kernel.Float32, 0), kernel.New(kernel.Float32, 0), kernel.FromInt64([]int64{1, 1, 30, 30}, 4)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, err := computeIn(t, nil, c.op, c.attrs, c.in)
			if err != nil {
				t.Fatalf("without a context: %v", err)
			}
			if got, err := computeIn(t, context.Background(), c.op, c.attrs, c.in); err != nil || got != want {
				t.Fatalf("with a live context: %v; same results: %v", err, got == want)
			}
			if c.op == "MatMul" && c.in[0].DType != kernel.Int32 {
				checkMatMulRows(t, c.in[0], c.in[1], want)
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if _, err := computeIn(t, ctx, c.op, c.attrs, c.in); !errors.Is(err, context.Canceled) {
				t.Fatalf("Compute in a cancelled run: %v, want context.Canceled", err)
			}
		})
	}
}

// computeIn makes op's kernel, prepares it on in and has it compute in a
// run of context ctx (nil: outside a run); it returns the first output's
// bytes and Compute's error.
func computeIn(t *testing.T, ctx context.Context, op string, attrs kernel.Attrs, in []*kernel.Tensor) (string, error) {
	t.Helper()
	k, err := Builtins().New(op, attrs)
	if err != nil {
		t.Fatal(err)
	}
	a, err := prepare(k, 1, in...)
	if err != nil {
		t.Fatal(err)
	}
	a.Ctx = ctx
	err = k.Compute(a)
	return string(a.Out[0].Data()), err
}

// checkMatMulRows checks a MatMul's output against the scalar loop in the
// operands' float type, each product rounded: the blocks of rows between
// checks compute every row as it does.
func checkMatMulRows(t *testing.T, x, y *kernel.Tensor, got string) {
	t.Helper()
	m, kk, n := x.Shape[x.Shape.Rank()-2], y.Shape[0], y.Shape[1]
	batch := x.NumElements() / (m * kk)
	want := kernel.New(x.DType, batch, m, n)
	for b := range batch {
		for i := range m {
			for j := range n {
				if x.DType == kernel.Float32 {
					xs, ys := kernel.Float32s(x.Host), kernel.Float32s(y.Host)
					var s float32
					for p := range kk {
						s += float32(xs[(b*m+i)*kk+p] * ys[p*n+j])
					}
					kernel.Float32s(want.Host)[(b*m+i)*n+j] = s
				} else {
					xs, ys := kernel.Float64s(x.Host), kernel.Float64s(y.Host)
					var s float64
					for p := range kk {
						s += float64(xs[(b*m+i)*kk+p] * ys[p*n+j])
					}
					kernel.Float64s(want.Host)[(b*m+i)*n+j] = s
				}
			}
		}
	}
	if got != string(want.Host) {
		t.Fatal("the product differs from the scalar loop's")
	}
}

// endsAfterFirstCheck is a run's context that ends right after the
// first check a Compute makes: Err is nil once, then context.Canceled.
type endsAfterFirstCheck struct {
	context.Context
	checks int
}

func (c *endsAfterFirstCheck) Err() error {
	c.checks++
	if c.checks > 1 {
		return context.Canceled
	}
	return nil
}

// TestLongLoopsCheckTheirRun: a Compute whose one loop is long (a pool
// over one long row, a window function of many points, RoiAlign with many
// samples per bin) checks its run within the loop, not only between
// loops: a run that ends after Compute began stops it.
func TestLongLoopsCheckTheirRun(t *testing.T) {
	row := kernel.New(kernel.Float32, 1, 1, 1<<20)
	img := kernel.New(kernel.Float32, 1, 1, 8, 8)
	roi := kernel.FromFloat32([]float32{0, 0, 7, 7}, 1, 4)
	cases := []struct {
		op    string
		attrs kernel.Attrs
		in    []*kernel.Tensor
	}{
		{"AveragePool", kernel.Attrs{"kernel_shape": []int64{3}}, []*kernel.Tensor{row}},
		{"MaxPool", kernel.Attrs{"kernel_shape": []int64{3}}, []*kernel.Tensor{row}},
		{"LpPool", kernel.Attrs{"kernel_shape": []int64{3}}, []*kernel.Tensor{row}},
		{"BlackmanWindow", nil, []*kernel.Tensor{kernel.FromInt64([]int64{1 << 20})}},
		{"HannWindow", nil, []*kernel.Tensor{kernel.FromInt64([]int64{1 << 20})}},
		{"HammingWindow", nil, []*kernel.Tensor{kernel.FromInt64([]int64{1 << 20})}},
		{"RoiAlign", kernel.Attrs{"sampling_ratio": int64(64), "output_height": int64(16), "output_width": int64(16)},
			[]*kernel.Tensor{img, roi, kernel.FromInt64([]int64{0}, 1)}},
	}
	for _, c := range cases {
		if _, err := computeIn(t, &endsAfterFirstCheck{Context: context.Background()}, c.op, c.attrs, c.in); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: a run ending during Compute: %v, want context.Canceled", c.op, err)
		}
	}
}

// TestOneHotOfNoIndices: OneHot of no indices has no output, whatever the
// depth, and computes it at once: on axis 0 a loop over the depth alone,
// an empty row each, would not end.
func TestOneHotOfNoIndices(t *testing.T) {
	in := []*kernel.Tensor{kernel.New(kernel.Int64, 0), kernel.FromInt64([]int64{1 << 50}), kernel.FromFloat32([]float32{0, 1}, 2)}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := computeIn(t, ctx, "OneHot", kernel.Attrs{"axis": int64(0)}, in); err != nil {
		t.Fatalf("OneHot of no indices and depth 2^50: %v", err)
	}
}
