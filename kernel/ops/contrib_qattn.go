package ops

import (
	"errors"
	"fmt"

	"github.com/pipert/pipert/kernel"
)

// newQAttention builds com.microsoft's QAttention, what onnxruntime's
// quantize_dynamic makes of a fused com.microsoft Attention, as
// onnxruntime's CPU kernel computes it:
//
//	QAttention(input, weight, bias, input_scale, weight_scale[,
//	mask_index[, input_zero_point[, weight_zero_point[, past]]]])
//	→ output[, present]
//
// input is uint8 or int8 [batch, S, hidden_in], weight uint8 or int8
// [hidden_in, 3·D] (D a multiple of num_heads, H = D/num_heads), bias
// float32 [3·D]. input_scale and input_zero_point (input's dtype) are one
// value; weight_scale and weight_zero_point (weight's dtype) one value or
// one per column, [3·D]. Zero points default to 0. Column c of Q, K and V
// (in that order) for a token is the exact integer sum acc = Σ (x −
// input_zero_point)·(w − weight_zero_point_c), then, as onnxruntime's
// MLAS, float32(float32(acc)·scale_c) + bias_c rounded to float32 with
// scale_c = float32(input_scale·weight_scale_c). The attention that
// follows, mask_index, past, present and the attributes num_heads,
// unidirectional, scale, mask_filter_value and past_present_share_buffer
// are com.microsoft Attention's (newMSAttention), in float32; do_rotary
// must be 0. onnxruntime's CPU kernel takes a uint8 input only.
//
// Workspace: none (Q, K, V and a row of scores the kernel keeps).
func newQAttention(attrs kernel.Attrs) (kernel.Kernel, error) {
	m, share, err := msAttnAttrs(attrs, "QAttention", "num_heads", "unidirectional", "scale", "mask_filter_value",
		"do_rotary", "past_present_share_buffer")
	if err != nil {
		return nil, err
	}
	q := &simple{}
	q.inferF = func(in, out []*kernel.Tensor) error {
		d, err := qAttnDims(m, in, share)
		if err != nil {
			return err
		}
		setShape(out[0], kernel.Shape{d.b, d.s, d.n * d.hv}, kernel.Float32)
		setShape(out[1], m.presentShape(d), kernel.Float32)
		return nil
	}
	q.computeF = func(a *kernel.Args) error {
		d, err := qAttnDims(m, a.In, share)
		if err != nil {
			return err
		}
		for i, want := range []kernel.Shape{{d.b, d.s, d.n * d.hv}, m.presentShape(d)} {
			if o := a.Out[i]; o.DType != kernel.Float32 || !o.Shape.Equal(want) {
				return errors.New("operands differ from the inferred ones")
			}
		}
		x, w := a.In[0], a.In[1]
		xb, wb, bias := x.Data(), w.Data(), kernel.Float32s(a.In[2].Data())
		cols := w.Shape[1]
		inScale, ws := qScale(a.In[3]), kernel.Float32s(a.In[4].Data())
		xz := qZero(a.In, 6)
		wz := input(a.In, 7)
		m.project(d, cols, func(b, s, c int64) float64 {
			var wzc int64
			if !qAbsent(wz) {
				wzc = loadI(wz.DType, wz.Data(), min(c, wz.NumElements()-1))
			}
			xr := (b*d.s + s) * d.hin
			var acc int64
			for i := range d.hin {
				acc += (loadI(x.DType, xb, xr+i) - xz) * (loadI(w.DType, wb, i*cols+c) - wzc)
			}
			sc := inScale * ws[min(c, int64(len(ws))-1)]
			return float64(float32(float32(acc)*sc) + bias[c])
		})
		return m.attend(a.Out, d, kernel.Float32, optional(a.In, 5), optional(a.In, 8), nil)
	}
	return newKernel(sig{op: "QAttention", minIn: 5, maxIn: 9, nOut: 2}, &msAttnCost{q, func(in []*kernel.Tensor) (msAttnDims, error) {
		return qAttnDims(m, in, false)
	}}), nil
}

// qAttnDims validates QAttention's operands (all but mask_index's values)
// and returns its sizes.
func qAttnDims(m *msAttn, in []*kernel.Tensor, share bool) (msAttnDims, error) {
	var d msAttnDims
	x, w, bias := in[0], in[1], in[2]
	if err := dtypeIn(x, "input", kernel.Uint8, kernel.Int8); err != nil {
		return d, err
	}
	if x.Shape.Rank() != 3 || x.Shape[0] < 1 || x.Shape[1] < 1 || x.Shape[2] < 1 {
		return d, fmt.Errorf("input input %v: want [batch, sequence, hidden], each ≥ 1", x.Shape)
	}
	d.b, d.s, d.hin, d.n = x.Shape[0], x.Shape[1], x.Shape[2], m.numHeads
	if err := dtypeIn(w, "weight", kernel.Uint8, kernel.Int8); err != nil {
		return d, err
	}
	if err := m.split(&d, w, bias); err != nil {
		return d, err
	}
	if err := dtypeIn(bias, "bias", kernel.Float32); err != nil {
		return d, err
	}
	if err := qScaleIn(in[3], "input_scale"); err != nil {
		return d, err
	}
	if err := qZeroIn(in, 6, "input_zero_point", x.DType); err != nil {
		return d, err
	}
	cols := w.Shape[1]
	ws := in[4]
	if err := dtypeIn(ws, "weight_scale", kernel.Float32); err != nil {
		return d, err
	}
	if !isScalarOr1(ws) && !ws.Shape.Equal(kernel.Shape{cols}) {
		return d, fmt.Errorf("input weight_scale %v: want one value or one per column, [%d]", ws.Shape, cols)
	}
	if wz := input(in, 7); !qAbsent(wz) {
		if wz.DType != w.DType {
			return d, fmt.Errorf("input weight_zero_point has dtype %v, want weight's dtype %v", wz.DType, w.DType)
		}
		if !isScalarOr1(wz) && !wz.Shape.Equal(kernel.Shape{cols}) {
			return d, fmt.Errorf("input weight_zero_point %v: want one value or one per column, [%d]", wz.Shape, cols)
		}
	}
	return d, m.extras(&d, kernel.Float32, optional(in, 5), optional(in, 8), nil, nil, share)
}
