package ops

import (
	"fmt"

	"github.com/pipert/pipert/kernel"
)

// GroupNormalization (ONNX opsets 18 and 21) normalises X [N, C, D…] over
// num_groups groups of C/num_groups channels each, every group's mean and
// variance taken over its channels and spatial positions, then applies
// scale and bias: one value per group at opset 18, one per channel from
// opset 21 (the earlier form is deprecated, its result the same only when
// every channel of a group has the same scale and bias). epsilon defaults
// to 1e-5. stash_type (opset 21) is 1 (float32, the default) or 11
// (float64): the statistics and the normalized values are evaluated in
// float64 and the output rounded once, except that under stash_type 1 a
// float64 X is first cast to float32 and the normalized values rounded
// to float32, as the specification's function body has it.
//
// Workspace: none. Cost: five operations per element.
func newGroupNorm(attrs kernel.Attrs) (kernel.Kernel, error) {
	opset, err := attrs.Opset(21)
	if err != nil {
		return nil, wrapAttr(err)
	}
	names := []string{"epsilon", "num_groups"}
	if opset >= 21 {
		names = append(names, "stash_type")
	}
	if err := attrs.Check(names...); err != nil {
		return nil, wrapAttr(err)
	}
	eps, err := attrs.Float("epsilon", 1e-5)
	if err != nil {
		return nil, wrapAttr(err)
	}
	eps = float64(float32(eps))
	groups, err := attrs.Int("num_groups", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	if _, ok := attrs["num_groups"]; !ok || groups < 1 {
		return nil, fmt.Errorf("ops: GroupNormalization: attribute \"num_groups\" must be a positive integer, have %d", groups)
	}
	narrowF64, err := stashType(attrs, "GroupNormalization")
	if err != nil {
		return nil, err
	}
	perChannel := opset >= 21
	k := &simple{flops: 5}
	k.inferF = func(in, out []*kernel.Tensor) error {
		x := in[0]
		if err := dtypeIn(x, "X", onnxFloats...); err != nil {
			return err
		}
		if x.Shape.Rank() < 2 {
			return fmt.Errorf("input X %v: want [N, C, D…]", x.Shape)
		}
		c := x.Shape[1]
		if c%groups != 0 {
			return fmt.Errorf("input X has %d channels, not a multiple of num_groups %d", c, groups)
		}
		want := groups
		if perChannel {
			want = c
		}
		for i, name := range [...]string{"scale", "bias"} {
			if t := in[1+i]; !t.Shape.Equal(kernel.Shape{want}) || t.DType != x.DType {
				return fmt.Errorf("input %s is %v, want %v[%d]", name, t, x.DType, want)
			}
		}
		setShape(out[0], x.Shape, x.DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x, scale, bias, y := a.In[0], a.In[1], a.In[2], a.Out[0]
		if x.DType != y.DType || x.NumElements() != y.NumElements() {
			return fmt.Errorf("operand %v differs from the output %v", x, y)
		}
		c := x.Shape[1]
		per := c / groups                    // channels per group
		spatial := x.Shape[2:].NumElements() // elements per channel
		n := per * spatial                   // elements per group
		xb, yb := x.Data(), y.Data()
		sb, bb := scale.Data(), bias.Data()
		narrow := narrowF64 && opset >= 21 && x.DType == kernel.Float64
		for g := range x.Shape[0] * groups {
			mean, inv := moments(x.DType, xb, g*n, n, eps, narrow)
			for ch := range per {
				at := g % groups
				if perChannel {
					at = at*per + ch
				}
				s, b := loadF(scale.DType, sb, at), loadF(bias.DType, bb, at)
				f := inv * s
				base := g*n + ch*spatial
				for i := range spatial {
					v := loadF(x.DType, xb, base+i)
					if narrow {
						// The first stage's normalized value, in float32.
						storeF(x.DType, yb, base+i, mul64(stage(mul64(stage(v, true)-mean, inv), true), s)+b)
						continue
					}
					storeF(x.DType, yb, base+i, mul64(v-mean, f)+b)
				}
			}
		}
		return nil
	}
	return newKernel(sig{op: "GroupNormalization", minIn: 3, maxIn: 3, nOut: 1}, k), nil
}
