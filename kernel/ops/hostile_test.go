package ops

import (
	"strings"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestHostileShapes gives the ONNX ops operands and attributes that
// overflow or make absurd sizes: each is an error, never a panic or a huge
// allocation.
func TestHostileShapes(t *testing.T) {
	x := f32(shp(1, 1, 4, 4))
	for _, c := range []struct {
		op    string
		attrs kernel.Attrs
		in    []*kernel.Tensor
	}{
		{"Resize", nil, []*kernel.Tensor{x, f32(shp(0)), f32(shp(4), 1, 1, 1e30, 1)}},
		{"Resize", nil, []*kernel.Tensor{x, f32(shp(0)), f32(shp(4), 1, 1, -2, 1)}},
		{"Resize", nil, []*kernel.Tensor{x, f32(shp(0)), f32(shp(4), 1, 1, 2, 2), i64(shp(4), 1, 1, 8, 8)}},
		{"Tile", nil, []*kernel.Tensor{x, i64(shp(4), 1, 1, 1<<40, 1<<40)}},
		{"Conv", kernel.Attrs{"strides": []int64{1 << 40, 1}}, []*kernel.Tensor{x, f32(shp(1, 1, 3, 3))}},
		{"Conv", nil, []*kernel.Tensor{x, f32(shp(1, 1, 9, 9))}},
		{"Conv", kernel.Attrs{"group": int64(3)}, []*kernel.Tensor{x, f32(shp(1, 1, 3, 3))}},
		{"Conv", kernel.Attrs{"kernel_shape": []int64{2, 2}}, []*kernel.Tensor{f32(shp()), f32(shp())}},
		{"ConvTranspose", nil, []*kernel.Tensor{f32(shp(2)), f32(shp(2))}},
		{"FusedConv", nil, []*kernel.Tensor{f32(shp(1, 1)), f32(shp(1, 1))}},
		{"MaxPool", kernel.Attrs{"kernel_shape": []int64{9, 9}}, []*kernel.Tensor{x}},
		{"Pad", kernel.Attrs{"mode": "reflect"}, []*kernel.Tensor{x, i64(shp(8), 0, 0, 4, 0, 0, 0, 0, 0)}},
		{"Pad", nil, []*kernel.Tensor{x, i64(shp(8), 0, 0, -5, 0, 0, 0, 0, 0)}},
		{"Range", nil, []*kernel.Tensor{f32(shp(), 0), f32(shp(), 1e30), f32(shp(), 1)}},
		{"Range", nil, []*kernel.Tensor{i64(shp(), 0), i64(shp(), 10), i64(shp(), 0)}},
		{"TopK", nil, []*kernel.Tensor{x, i64(shp(1), 5)}},
		{"Split", kernel.Attrs{"num_outputs": int64(2)}, []*kernel.Tensor{x, i64(shp(2), 1, 1)}},
		{"OneHot", nil, []*kernel.Tensor{i64(shp(2), 0, 1), f32(shp(), 0), f32(shp(2), 0, 1)}},
		{"ConstantOfShape", nil, []*kernel.Tensor{i64(shp(2), -1, 4)}},
		{"Expand", nil, []*kernel.Tensor{x, i64(shp(4), 1, 1, 3, 4)}},
		{"LSTM", kernel.Attrs{"hidden_size": int64(2)}, []*kernel.Tensor{f32(shp(1, 1, 3)), f32(shp(1, 8, 2)), f32(shp(1, 8, 2))}},
		{"Gemm", nil, []*kernel.Tensor{f32(shp(2, 3)), f32(shp(2, 3))}},
		{"ScatterND", nil, []*kernel.Tensor{f32(shp(4)), i64(shp(1, 1), 9), f32(shp(1))}},
		{"GatherElements", nil, []*kernel.Tensor{f32(shp(2, 2)), i64(shp(2, 2), 0, 5, 1, 0)}},
		{"Mod", nil, []*kernel.Tensor{i64(shp(2), 1, 2), i64(shp(2), 0, 1)}},
		// Labels beyond the operand's rank, around an ellipsis.
		{"Einsum", kernel.Attrs{"equation": "...ii->...i"}, []*kernel.Tensor{f32(shp(2))}},
		{"Einsum", kernel.Attrs{"equation": "...ii->...i"}, []*kernel.Tensor{f32(shp())}},
		{"Einsum", kernel.Attrs{"equation": "...ij,jk->...ik"}, []*kernel.Tensor{f32(shp(2)), f32(shp(2, 2))}},
		// Empty operands where a value is needed.
		{"GridSample", nil, []*kernel.Tensor{f32(shp(1, 1, 2, 0)), f32(shp(1, 1, 1, 2), 0.25, -0.5)}},
		{"GridSample", kernel.Attrs{"padding_mode": "border"}, []*kernel.Tensor{f32(shp(1, 1, 0, 2)), f32(shp(1, 1, 1, 2), 0.25, -0.5)}},
		{"ImageScaler", kernel.Attrs{"bias": []float64{0.5, 2.5}}, []*kernel.Tensor{f32(shp(1, 2, 2, 2, 0))}},
		{"QLinearMatMul", nil, qlinearMatMulOperands(1, f32(shp(0)))},
		{"QLinearMatMul", nil, qlinearMatMulOperands(7, u8t(shp(0)))},
		{"QLinearMatMul", nil, qlinearMatMulOperands(6, f32(shp(0)))},
		{"QLinearConv", nil, []*kernel.Tensor{u8t(shp(1, 1, 2, 2), 1, 2, 3, 4), f32(shp(), 0.5), u8t(shp()), u8t(shp(1, 1, 1, 1), 2), f32(shp(0)), u8t(shp(1)), f32(shp(), 0.25), u8t(shp())}},
	} {
		if _, err := runOp(c.op, c.attrs, c.in...); err == nil {
			t.Errorf("%s %v on %v: no error", c.op, c.attrs, c.in)
		}
	}
}

// u8t is a uint8 tensor of shape with values v (zeros when none).
func u8t(shape []int64, v ...byte) *kernel.Tensor {
	t := kernel.New(kernel.Uint8, shape...)
	copy(t.Host, v)
	return t
}

// qlinearMatMulOperands are QLinearMatMul's eight operands on 2×2 uint8
// matrices, per-tensor parameters, with operand i replaced by t.
func qlinearMatMulOperands(i int, t *kernel.Tensor) []*kernel.Tensor {
	in := []*kernel.Tensor{u8t(shp(2, 2), 1, 2, 3, 4), f32(shp(1), 0.5), u8t(shp(1)), u8t(shp(2, 2), 1, 0, 0, 1), f32(shp(1), 0.5), u8t(shp(1)), f32(shp(1), 0.25), u8t(shp(1))}
	in[i] = t
	return in
}

// TestWindowBeyondTiling: a window size, stride or dilation, or a spatial
// dimension, beyond what a tiling holds is an error naming it at
// InferShape, not an internal tiling error at launch.
func TestWindowBeyondTiling(t *testing.T) {
	x := f32(shp(1, 1, 9))
	for _, c := range []struct {
		op    string
		attrs kernel.Attrs
		x     *kernel.Tensor
		want  string
	}{
		{"MaxPool", kernel.Attrs{"kernel_shape": []int64{1<<31 + 1}, "auto_pad": "SAME_UPPER"}, x, "kernel_shape [2147483649]: a value above 2^31"},
		{"AveragePool", kernel.Attrs{"kernel_shape": []int64{3}, "strides": []int64{1<<31 + 1}}, x, "strides [2147483649]: a value above 2^31"},
		{"LpPool", kernel.Attrs{"kernel_shape": []int64{1<<31 + 1}, "auto_pad": "SAME_LOWER"}, x, "kernel_shape [2147483649]: a value above 2^31"},
		{"MaxPool", kernel.Attrs{"kernel_shape": []int64{1}}, kernel.Virtual(kernel.Float32, 1, 1, 1<<31+1), "a spatial dimension above 2^31"},
	} {
		k, err := Builtins().New(c.op, c.attrs)
		if err != nil {
			t.Fatal(err)
		}
		out := []*kernel.Tensor{{}, {}}
		_, _, n := k.Arity()
		if err := k.InferShape([]*kernel.Tensor{c.x}, out[:n]); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: InferShape: %v, want an error saying %s", c.op, c.attrs, err, c.want)
		}
	}
	// At the bound, the window runs.
	mustRun(t, "MaxPool", kernel.Attrs{"kernel_shape": []int64{1 << 31}, "auto_pad": "SAME_UPPER"}, x)
}
