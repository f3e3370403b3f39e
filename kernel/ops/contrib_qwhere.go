package ops

import (
	"errors"
	"fmt"

	"github.com/pipert/pipert/kernel"
)

// QLinearWhere (domain com.microsoft), the Where of onnxruntime's QOperator
// models: inputs condition (bool), X, x_scale, x_zero_point, Y, y_scale,
// y_zero_point, z_scale, z_zero_point, every one required, the three
// zero points of one dtype (int8 or uint8) and the data of it; scales
// float32 scalars (or 1-element vectors). The output, broadcast from the
// three of condition, X and Y (numpy rules), takes X's element where the
// condition holds and Y's elsewhere, each requantized to z's scale and
// zero point through onnxruntime's 256-entry table, saturate(round_half_even(
// x_scale·(x − x_zp)/z_scale) + z_zp) in float32 (QLinearConcat's), or
// copied when its scale and zero point are z's.
func newQLinearWhere(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check(); err != nil {
		return nil, wrapAttr(err)
	}
	check := func(in []*kernel.Tensor) (kernel.Shape, error) {
		if err := dtypeIn(in[0], "condition", kernel.Bool); err != nil {
			return nil, err
		}
		zz := in[8]
		if qAbsent(zz) {
			return nil, errors.New("input z_zero_point is required")
		}
		if err := dtypeIn(zz, "z_zero_point", qTypes...); err != nil {
			return nil, err
		}
		for _, p := range []struct {
			data, scale, zero int
			name              string
		}{{1, 2, 3, "x"}, {4, 5, 6, "y"}, {-1, 7, 8, "z"}} {
			if p.data >= 0 {
				if err := dtypeIn(in[p.data], p.name, zz.DType); err != nil {
					return nil, err
				}
			}
			if err := qScaleIn(in[p.scale], p.name+"_scale"); err != nil {
				return nil, err
			}
			if qAbsent(in[p.zero]) {
				return nil, fmt.Errorf("input %s_zero_point is required", p.name)
			}
			if err := qZeroIn(in, p.zero, p.name+"_zero_point", zz.DType); err != nil {
				return nil, err
			}
		}
		return broadcastAll(in[0].Shape, in[1].Shape, in[4].Shape)
	}
	var walk bcast
	k := &simple{flops: 1}
	k.inferF = func(in, out []*kernel.Tensor) error {
		s, err := check(in)
		if err != nil {
			return err
		}
		setShape(out[0], s, in[8].DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		s, err := check(a.In)
		if err != nil {
			return err
		}
		z := a.Out[0]
		dt := a.In[8].DType
		if !z.Shape.Equal(s) || z.DType != dt {
			return errors.New("operands differ from the inferred ones")
		}
		zs, zz := qScale(a.In[7]), qZero(a.In, 8)
		var tables [2]*[256]int64
		for i, p := range [2][2]int{{2, 3}, {5, 6}} {
			if xs, xz := qScale(a.In[p[0]]), qZero(a.In, p[1]); xs != zs || xz != zz {
				tables[i] = qTable(dt, xs, xz, zs, zz, func(v float32) float32 { return v })
			}
		}
		if err := walk.set(s, a.In[0].Shape, a.In[1].Shape, a.In[4].Shape); err != nil {
			return err
		}
		cb, xb, yb, zb := a.In[0].Data(), a.In[1].Data(), a.In[4].Data(), z.Data()
		for i := range z.NumElements() {
			b, t := yb[walk.off[2]], tables[1]
			if cb[walk.off[0]] != 0 {
				b, t = xb[walk.off[1]], tables[0]
			}
			if t != nil {
				b = byte(t[b])
			}
			zb[i] = b
			walk.next()
		}
		return nil
	}
	return newKernel(sig{op: "QLinearWhere", minIn: 9, maxIn: 9, nOut: 1}, k), nil
}
