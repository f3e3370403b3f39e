package ops

import (
	"fmt"
	"math"

	"github.com/pipert/pipert/kernel"
)

// lossOps are ONNX's classification losses, each a single pass (see
// simple) in float64, rounded once to the input's float dtype:
//
//   - NegativeLogLikelihoodLoss(input, target[, weight]) (reduction
//     "mean", ignore_index): input [N, C, d…] (log-probabilities), target
//     [N, d…] class indices (int32 or int64), weight [C]. Each element's
//     loss is −input[n, target, d…]·weight[target], 0 where target is
//     ignore_index. "none" outputs the losses [N, d…], "sum" their sum,
//     "mean" their sum over the sum of the weights of the elements not
//     ignored (their count without weight).
//   - SoftmaxCrossEntropyLoss(scores, labels[, weights]) (reduction
//     "mean", ignore_index) → output[, log_prob]: the same loss on
//     log_prob = log(softmax(scores)) over axis 1, which is the optional
//     second output.
//
// A target outside [0, C) that is not ignore_index is an error.
var lossOps = []builtin{
	{"NegativeLogLikelihoodLoss", newLoss(false)},
	{"SoftmaxCrossEntropyLoss", newLoss(true)},
}

func newLoss(softmax bool) kernel.Factory {
	op, nOut := "NegativeLogLikelihoodLoss", 1
	if softmax {
		op, nOut = "SoftmaxCrossEntropyLoss", 2
	}
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		if err := attrs.Check("reduction", "ignore_index"); err != nil {
			return nil, wrapAttr(err)
		}
		red, err := attrs.String("reduction", "mean")
		if err != nil {
			return nil, wrapAttr(err)
		}
		if red != "none" && red != "sum" && red != "mean" {
			return nil, fmt.Errorf("ops: %s: reduction %q, want none, sum or mean", op, red)
		}
		_, hasIgnore := attrs["ignore_index"]
		ignore, err := attrs.Int("ignore_index", 0)
		if err != nil {
			return nil, wrapAttr(err)
		}
		var logp []float64
		k := &simple{flops: 4}
		k.inferF = func(in, out []*kernel.Tensor) error {
			x, t := in[0], in[1]
			if err := dtypeIn(x, "input", onnxFloats...); err != nil {
				return err
			}
			if !isIndex(t.DType) {
				return fmt.Errorf("input target has dtype %v, want int32 or int64", t.DType)
			}
			r := x.Shape.Rank()
			if r < 2 || t.Shape.Rank() != r-1 || t.Shape[0] != x.Shape[0] || !t.Shape[1:].Equal(x.Shape[2:]) {
				return fmt.Errorf("input %v and target %v: want [N, C, d…] and [N, d…]", x.Shape, t.Shape)
			}
			if len(in) > 2 && in[2].NumElements() > 0 {
				if err := checkSameDType(in[2], "weight", x, "input"); err != nil {
					return err
				}
				if !in[2].Shape.Equal(kernel.Shape{x.Shape[1]}) {
					return fmt.Errorf("weight %v: want [%d]", in[2].Shape, x.Shape[1])
				}
			}
			if red == "none" {
				setShape(out[0], t.Shape, x.DType)
			} else {
				setShape(out[0], nil, x.DType)
			}
			if softmax {
				setShape(out[1], x.Shape, x.DType)
			}
			return nil
		}
		k.computeF = func(a *kernel.Args) error {
			x, t, o := a.In[0], a.In[1], a.Out[0]
			n, c := x.Shape[0], x.Shape[1]
			d := x.Shape[2:].NumElements()
			xb, tb := x.Data(), t.Data()
			var w *kernel.Tensor
			if len(a.In) > 2 && a.In[2].NumElements() > 0 {
				w = a.In[2]
			}
			in := func(ni, ci, di int64) float64 { return loadF(x.DType, xb, (ni*c+ci)*d+di) }
			if softmax {
				if int64(cap(logp)) < x.NumElements() {
					logp = make([]float64, x.NumElements())
				}
				logp = logp[:x.NumElements()]
				lp := a.Out[1].Data()
				for ni := range n {
					for di := range d {
						m := math.Inf(-1)
						for ci := range c {
							m = max(m, in(ni, ci, di))
						}
						var s float64
						for ci := range c {
							s += expF(in(ni, ci, di) - m)
						}
						for ci := range c {
							i := (ni*c+ci)*d + di
							logp[i] = in(ni, ci, di) - m - math.Log(s)
							storeF(x.DType, lp, i, logp[i])
						}
					}
				}
				in = func(ni, ci, di int64) float64 { return logp[(ni*c+ci)*d+di] }
			}
			ob := o.Data()
			var sum, wsum float64
			for ni := range n {
				for di := range d {
					i := ni*d + di
					cls := loadI(t.DType, tb, i)
					var l, wt float64
					if !hasIgnore || cls != ignore {
						if cls < 0 || cls >= c {
							return fmt.Errorf("target %d at element %d is not a class in [0, %d)", cls, i, c)
						}
						wt = 1
						if w != nil {
							wt = loadF(w.DType, w.Data(), cls)
						}
						l = -in(ni, cls, di) * wt
					}
					if red == "none" {
						storeF(o.DType, ob, i, l)
					}
					sum += l
					wsum += wt
				}
			}
			switch red {
			case "sum":
				storeF(o.DType, ob, 0, sum)
			case "mean":
				storeF(o.DType, ob, 0, sum/wsum)
			}
			return nil
		}
		return newKernel(sig{op: op, minIn: 2, maxIn: 3, nOut: nOut}, k), nil
	}
}
