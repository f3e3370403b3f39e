package ops

import (
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestDynamicQuantizeLSTMErrors: every operand DynamicQuantizeLSTM
// refuses, and the zero points onnxruntime refuses, are errors naming the
// input.
func TestDynamicQuantizeLSTMErrors(t *testing.T) {
	i8, u8, f := kernel.Int8, kernel.Uint8, kernel.Float32
	attrs := kernel.Attrs{"hidden_size": int64(2)}
	// X [3, 1, 2], hidden 2: W [1, 2, 8], R [1, 2, 8].
	ok := func() []*kernel.Tensor {
		return []*kernel.Tensor{
			tensor(f, []int64{3, 1, 2}, 1, -2, 0.5, 0.25, -1, 2),
			qTensor(i8, []int64{1, 2, 8}, make([]int64, 16)), qTensor(i8, []int64{1, 2, 8}, make([]int64, 16)),
			absent(), absent(), absent(), absent(), absent(),
			tensor(f, []int64{1}, 0.01), qTensor(i8, []int64{1}, []int64{0}),
			tensor(f, []int64{1}, 0.02), qTensor(i8, []int64{1}, []int64{0}),
		}
	}
	with := func(i int, t *kernel.Tensor) []*kernel.Tensor {
		in := ok()
		in[i] = t
		return in
	}
	mustRun(t, "DynamicQuantizeLSTM", attrs, ok()...)
	wantErr(t, "DynamicQuantizeLSTM", attrs, ok()[:11], "inputs")
	wantErr(t, "DynamicQuantizeLSTM", attrs, with(0, tensor(kernel.Float64, []int64{3, 1, 2}, 1, 2, 3, 4, 5, 6)), "input X has dtype float64")
	wantErr(t, "DynamicQuantizeLSTM", attrs, with(1, qTensor(i8, []int64{1, 8, 2}, make([]int64, 16))), "input W has shape [1,8,2], want [1,2,8]")
	wantErr(t, "DynamicQuantizeLSTM", attrs, with(2, qTensor(u8, []int64{1, 2, 8}, make([]int64, 16))), "input R has dtype uint8, want W's int8")
	wantErr(t, "DynamicQuantizeLSTM", attrs, with(2, tensor(f, []int64{1, 2, 8}, make([]float64, 16)...)), "input R has dtype float32")
	wantErr(t, "DynamicQuantizeLSTM", attrs, with(4, tensor(kernel.Int64, []int64{1}, 3)), "input sequence_lens has dtype int64")
	wantErr(t, "DynamicQuantizeLSTM", attrs, with(4, tensor(kernel.Int32, []int64{1}, 4)), "sequence_lens[0] is 4, want 0 to 3")
	wantErr(t, "DynamicQuantizeLSTM", attrs, with(5, tensor(f, []int64{1, 2, 2}, 0, 0, 0, 0)), "input initial_h has shape [1,2,2], want [1,1,2]")
	wantErr(t, "DynamicQuantizeLSTM", attrs, with(8, tensor(f, []int64{2}, 1, 1)), "input W_scale has shape [2], want [1] (per direction) or [1 8] (per column)")
	wantErr(t, "DynamicQuantizeLSTM", attrs, with(9, qTensor(u8, []int64{1}, []int64{0})), "input W_zero_point has dtype uint8")
	wantErr(t, "DynamicQuantizeLSTM", attrs, with(11, qTensor(i8, []int64{1, 8}, []int64{0, 0, 0, 1, 0, 0, 0, 0})), "R_zero_point: an int8 zero point per column must be 0, have 1")
	u := ok()
	u[1], u[2] = qTensor(u8, []int64{1, 2, 8}, make([]int64, 16)), qTensor(u8, []int64{1, 2, 8}, make([]int64, 16))
	u[9], u[11] = qTensor(u8, []int64{1, 8}, []int64{3, 3, 3, 3, 3, 3, 3, 4}), qTensor(u8, []int64{1}, []int64{3})
	wantErr(t, "DynamicQuantizeLSTM", attrs, u, "W_zero_point: a zero point per column must be the same for every column, have 3 and 4")
	wantErr(t, "DynamicQuantizeLSTM", kernel.Attrs{"hidden_size": int64(2), "layout": int64(1)}, ok(), "layout")
	wantErr(t, "DynamicQuantizeLSTM", kernel.Attrs{"hidden_size": int64(2), kernel.OpsetAttr: int64(21), "layout": int64(0)}, ok(), "layout")
}
