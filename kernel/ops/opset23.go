package ops

import (
	"fmt"
	"math"

	"github.com/pipert/pipert/kernel"
)

// opset23Ops are ONNX's ops of opsets 23 and 24 with no earlier form:
//
//   - RMSNormalization(X, scale) (axis −1, epsilon 1e-5, stash_type 1;
//     opset 23): X / √(mean(X²) + epsilon) · scale, the mean over the
//     axes from axis on. scale has X's dtype and broadcasts to X
//     (unidirectionally: of rank at most X's, each dimension 1 or X's).
//     stash_type is a float type: 1 (float32, the default), 10
//     (float16), 16 (bfloat16) or 11 (float64); whichever, the
//     statistics are evaluated in float64 and each output rounded once, a
//     float64 X included, as onnxruntime's kernel computes it (the
//     function body would cast X to the stash type).
//     float32, float16, bfloat16, float64.
//   - Swish(X) (alpha 1; opset 24): x · sigmoid(alpha · x), element-wise
//     as the math ops: evaluated in float64, rounded once. float32,
//     float16, bfloat16, float64.
//   - RotaryEmbedding(X, cos_cache, sin_cache[, position_ids])
//     (interleaved 0, rotary_embedding_dim 0, num_heads; opset 23): see
//     newRotaryEmbedding.
var opset23Ops = []builtin{
	{"RMSNormalization", newRMSNorm},
	{"Swish", func(attrs kernel.Attrs) (kernel.Kernel, error) { return newMath(swishOp, attrs) }},
	{"RotaryEmbedding", newRotaryEmbedding},
}

// swishOp is Swish as a math op with parameter alpha: x·(1/(1+e^(−alpha·x))),
// the product of x and Sigmoid's form of sigmoid(alpha·x).
var swishOp = mathOp{name: "Swish", flops: 6, params: [2]param{{"alpha", 1}}, fp: func(x, a, _ float64) float64 {
	return x * (1 / (1 + expF(-(a * x))))
}}

// newRMSNorm builds RMSNormalization. Each group of X (the elements that
// share the indices before axis) gives ms = Σx²/n, in ascending order, and
// rms = √(ms + epsilon); each element is y = (x / rms) · scale, evaluated
// in float64 and rounded once.
func newRMSNorm(attrs kernel.Attrs) (kernel.Kernel, error) {
	axis, eps, err := axisEpsilon(attrs)
	if err != nil {
		return nil, err
	}
	// Every stash_type computes float64 statistics, a float64 X included,
	// as onnxruntime's kernel does (and pipert's LayerNormalization).
	if err := floatTypeAttr(attrs, "RMSNormalization", "stash_type"); err != nil {
		return nil, err
	}
	k := &simple{flops: 4}
	k.inferF = func(in, out []*kernel.Tensor) error {
		x, scale := in[0], in[1]
		if err := dtypeIn(x, "X", onnxFloats...); err != nil {
			return err
		}
		if err := checkSameDType(scale, "scale", x, "X"); err != nil {
			return err
		}
		if _, err := kernel.NormAxis(axis, x.Shape.Rank()); err != nil || x.Shape.Rank() == 0 {
			return fmt.Errorf("axis %d is out of range for X %v: want [-r, r) for its rank r ≥ 1", axis, x.Shape)
		}
		if !broadcastsTo(scale.Shape, x.Shape) {
			return fmt.Errorf("input scale %v does not broadcast to X %v", scale.Shape, x.Shape)
		}
		setShape(out[0], x.Shape, x.DType)
		return nil
	}
	var w bcast
	k.computeF = func(a *kernel.Args) error {
		x, scale, y := a.In[0], a.In[1], a.Out[0]
		if x.DType != y.DType || !x.Shape.Equal(y.Shape) {
			return fmt.Errorf("operand %v differs from the output %v", x, y)
		}
		ax, err := kernel.NormAxis(axis, x.Shape.Rank())
		if err != nil {
			return err
		}
		if err := w.set(x.Shape, scale.Shape); err != nil {
			return err
		}
		n := x.Shape[ax:].NumElements()
		groups := x.Shape[:ax].NumElements()
		dt := x.DType
		xb, sb, yb := x.Data(), scale.Data(), y.Data()
		for g := range groups {
			if n == 0 {
				break
			}
			base := g * n
			var ss float64
			for i := range n {
				v := loadF(dt, xb, base+i)
				ss += mul64(v, v)
			}
			rms := math.Sqrt(ss/float64(n) + eps)
			for i := range n {
				storeF(dt, yb, base+i, loadF(dt, xb, base+i)/rms*loadF(dt, sb, w.off[0]))
				w.next()
			}
		}
		return nil
	}
	return newKernel(sig{op: "RMSNormalization", minIn: 2, maxIn: 2, nOut: 1}, k), nil
}

// broadcastsTo reports whether shape s broadcasts unidirectionally to
// shape to: its rank at most to's and, aligned at the end, each of its
// dimensions 1 or to's.
func broadcastsTo(s, to kernel.Shape) bool {
	if len(s) > len(to) {
		return false
	}
	off := len(to) - len(s)
	for i, d := range s {
		if d != 1 && d != to[off+i] {
			return false
		}
	}
	return true
}

// newRotaryEmbedding builds RotaryEmbedding (ONNX opset 23), rotary
// positional embedding. X is [batch, heads, seq, head_size], or [batch,
// seq, hidden] with hidden = num_heads · head_size (num_heads required; a
// 4-D X ignores it). The first rotary_embedding_dim elements of each head
// (all of them for 0, the default; an even number at most head_size)
// rotate in pairs (x1, x2): the two halves of those elements, or with
// interleaved 1 the neighbours (2j, 2j+1), become
//
//	(cos·x1 − sin·x2, sin·x1 + cos·x2)
//
// with cos and sin the caches' entry j of the token's position; the other
// elements are copied. Without position_ids the caches are [batch, seq,
// rotary_embedding_dim/2], an entry per token; with position_ids (int64
// [batch, seq]) they are [positions, rotary_embedding_dim/2], read at the
// token's id, which must lie in [0, positions) (an error at compute
// otherwise, as in onnxruntime). X and the caches are float32, float16 or
// bfloat16, of one dtype; each output element is evaluated in float64 and
// rounded once.
func newRotaryEmbedding(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("interleaved", "rotary_embedding_dim", "num_heads"); err != nil {
		return nil, wrapAttr(err)
	}
	interleaved, err := flagAttr(attrs, "interleaved", false)
	if err != nil {
		return nil, wrapAttr(err)
	}
	rotDim, err := attrs.Int("rotary_embedding_dim", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	if rotDim < 0 {
		return nil, fmt.Errorf("ops: RotaryEmbedding: rotary_embedding_dim %d is negative", rotDim)
	}
	heads, err := attrs.Int("num_heads", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	if heads < 0 {
		return nil, fmt.Errorf("ops: RotaryEmbedding: num_heads %d is negative", heads)
	}
	// layout returns X's batch, heads, seq and head_size, and the rotated
	// elements per head.
	type dims struct{ batch, heads, seq, size, rot int64 }
	layout := func(x kernel.Shape) (dims, error) {
		var d dims
		switch x.Rank() {
		case 4:
			d = dims{batch: x[0], heads: x[1], seq: x[2], size: x[3]}
		case 3:
			if heads == 0 {
				return d, fmt.Errorf("input X %v is 3-D: attribute num_heads is required", x)
			}
			if x[2]%heads != 0 {
				return d, fmt.Errorf("input X %v: hidden size %d is not a multiple of num_heads %d", x, x[2], heads)
			}
			d = dims{batch: x[0], heads: heads, seq: x[1], size: x[2] / heads}
		default:
			return d, fmt.Errorf("input X %v: want [batch, heads, seq, head_size] or [batch, seq, hidden]", x)
		}
		d.rot = d.size
		if rotDim != 0 {
			if rotDim > d.size {
				return d, fmt.Errorf("rotary_embedding_dim %d exceeds the head size %d", rotDim, d.size)
			}
			d.rot = rotDim
		}
		if d.rot%2 != 0 {
			return d, fmt.Errorf("%d rotated elements per head (X %v, rotary_embedding_dim %d): want an even number", d.rot, x, rotDim)
		}
		return d, nil
	}
	k := &simple{flops: 3}
	k.inferF = func(in, out []*kernel.Tensor) error {
		x, cos, sin := in[0], in[1], in[2]
		pos := positionIDs(in)
		if err := dtypeIn(x, "X", kernel.Float32, kernel.Float16, kernel.BFloat16); err != nil {
			return err
		}
		d, err := layout(x.Shape)
		if err != nil {
			return err
		}
		want := kernel.Shape{d.batch, d.seq, d.rot / 2}
		if pos != nil {
			if err := dtypeIn(pos, "position_ids", kernel.Int64); err != nil {
				return err
			}
			if !pos.Shape.Equal(kernel.Shape{d.batch, d.seq}) {
				return fmt.Errorf("input position_ids %v: want [batch, seq] = [%d, %d]", pos.Shape, d.batch, d.seq)
			}
			if cos.Shape.Rank() != 2 || cos.Shape[1] != d.rot/2 {
				return fmt.Errorf("input cos_cache %v: with position_ids want [positions, %d]", cos.Shape, d.rot/2)
			}
			want = cos.Shape
		}
		for i, t := range []*kernel.Tensor{cos, sin} {
			name := [...]string{"cos_cache", "sin_cache"}[i]
			if err := checkSameDType(t, name, x, "X"); err != nil {
				return err
			}
			if !t.Shape.Equal(want) {
				return fmt.Errorf("input %s %v: want %v", name, t.Shape, want)
			}
		}
		setShape(out[0], x.Shape, x.DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x, cos, sin, y := a.In[0], a.In[1], a.In[2], a.Out[0]
		pos := positionIDs(a.In)
		if x.DType != y.DType || !x.Shape.Equal(y.Shape) {
			return fmt.Errorf("operand %v differs from the output %v", x, y)
		}
		d, err := layout(x.Shape)
		if err != nil {
			return err
		}
		half := d.rot / 2
		dt := x.DType
		size := int64(dt.Size())
		xb, cb, sb, yb := x.Data(), cos.Data(), sin.Data(), y.Data()
		for b := range d.batch {
			for s := range d.seq {
				row := b*d.seq + s // the caches' row of the token
				if pos != nil {
					p := kernel.Int64s(pos.Data())[b*d.seq+s]
					if n := cos.Shape[0]; p < 0 || p >= n {
						return fmt.Errorf("position_ids[%d][%d] is %d, out of range [0, %d)", b, s, p, n)
					}
					row = p
				}
				for h := range d.heads {
					// The head's first element.
					at := ((b*d.heads+h)*d.seq + s) * d.size
					if x.Shape.Rank() == 3 {
						at = ((b*d.seq+s)*d.heads + h) * d.size
					}
					for j := range half {
						c, sn := loadF(dt, cb, row*half+j), loadF(dt, sb, row*half+j)
						i1, i2 := at+j, at+j+half
						if interleaved {
							i1, i2 = at+2*j, at+2*j+1
						}
						x1, x2 := loadF(dt, xb, i1), loadF(dt, xb, i2)
						storeF(dt, yb, i1, mul64(c, x1)-mul64(sn, x2))
						storeF(dt, yb, i2, mul64(sn, x1)+mul64(c, x2))
					}
					for e := d.rot; e < d.size; e++ {
						copyElem(yb, at+e, xb, at+e, size)
					}
				}
			}
		}
		return nil
	}
	return newKernel(sig{op: "RotaryEmbedding", minIn: 3, maxIn: 4, nOut: 1}, k), nil
}

// positionIDs returns RotaryEmbedding's input position_ids, or nil when
// it is absent (missing, or given as a zero-element vector).
func positionIDs(in []*kernel.Tensor) *kernel.Tensor {
	if len(in) < 4 || in[3].Shape.Rank() == 1 && in[3].NumElements() == 0 {
		return nil
	}
	return in[3]
}
