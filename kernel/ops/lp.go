package ops

import (
	"fmt"
	"math"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// lpOps are ONNX's Lp norm ops and MaxRoiPool, for float32, float16,
// bfloat16 and float64. Sums are accumulated in float64 and each result
// rounded once.
//
//   - LpNormalization (axis, default -1; p, 1 or 2, default 2): y = x /
//     ‖x‖ₚ along axis; a lane whose norm is 0 is +0 throughout. Other p
//     are refused, as onnxruntime refuses them. A NaN in a lane makes the
//     whole lane NaN, an infinity makes its finite elements 0 and itself
//     NaN. onnxruntime sums in the input type, so a float32 lane whose
//     squares overflow float32 is 0 there, and one whose squares all
//     underflow to 0 (subnormals) is 0 too; here both are normalized.
//   - LpPool (kernel_shape, strides, pads, auto_pad, p, default 2;
//     ceil_mode and dilations from opset 18): (Σ|x|ᵖ)^(1/p) over each
//     window's elements inside the input (padding adds nothing); windows
//     as AveragePool's, including, from opset 18 as onnxruntime does,
//     dropping a ceil_mode window that would start past the input and its
//     leading padding. A window with no input element in it is 0. p must
//     be 1 or more (onnxruntime also runs p 0 and negative p, which are
//     no norm); auto_pad SAME_UPPER or SAME_LOWER with dilations above 1
//     is refused (onnxruntime pads those as if undilated and does not
//     give the operator's output size). onnxruntime sums the powers in
//     float32, so sums beyond float32's range are +Inf there and finite
//     here.
//   - GlobalLpPool (p): (Σ|x|ᵖ)^(1/p) over all of D… of X [N,C,D…],
//     giving [N,C,1…]; p as LpPool's.
//   - MaxRoiPool(X [N,C,H,W], rois [R,5]) (pooled_shape [ph, pw],
//     spatial_scale, default 1): Y [R,C,ph,pw] as onnxruntime computes
//     it. A roi (b, x1, y1, x2, y2) reads image trunc(b), which must be
//     in X; its corners are round(coordinate·spatial_scale) (half away
//     from zero; the product in float32 for float32, float16 and
//     bfloat16, in float64 for float64, as onnxruntime computes the types
//     it runs) and it spans max(y2−y1+1, 1) rows and max(x2−x1+1, 1)
//     columns. Output bin (i, j) covers rows floor(i·h/ph) to
//     ceil((i+1)·h/ph) (exclusive) from y1
//     (the bin size h/ph, and its products, in the same float type), the
//     columns likewise, clipped to the image; a bin that is empty after
//     clipping is 0. A bin's value is onnxruntime's fold, which the
//     operator's text ("max pooling") does not pin down: starting from
//     the type's lowest finite value, each element in row-major order
//     replaces the value unless it is below it. So a bin of −∞ only is
//     the lowest finite value (−3.4028235e38 for float32; for float16 and
//     bfloat16, rounded, −∞), and a NaN is the result only when no element
//     after it is compared (an element after a NaN replaces it).
var lpOps = []builtin{
	{"LpNormalization", newLpNorm},
	{"LpPool", newLpPool("LpPool")},
	{"GlobalLpPool", newLpPool("GlobalLpPool")},
	{"MaxRoiPool", newMaxRoiPool},
}

// lpTerm is |x|ᵖ and lpRoot s^(1/p), exact in the cases p 1 and 2.
func lpTerm(x float64, p int64) float64 {
	switch p {
	case 1:
		return math.Abs(x)
	case 2:
		return mul64(x, x)
	}
	return math.Pow(math.Abs(x), float64(p))
}

func lpRoot(s float64, p int64) float64 {
	switch p {
	case 1:
		return s
	case 2:
		return math.Sqrt(s)
	}
	return math.Pow(s, 1/float64(p))
}

func newLpNorm(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("axis", "p"); err != nil {
		return nil, wrapAttr(err)
	}
	axis, err := attrs.Int("axis", -1)
	if err != nil {
		return nil, wrapAttr(err)
	}
	p, err := attrs.Int("p", 2)
	if err != nil {
		return nil, wrapAttr(err)
	}
	if p != 1 && p != 2 {
		return nil, notImplemented("ops: LpNormalization: p %d is not implemented (want 1 or 2)", p)
	}
	// geometry returns the lanes' outer count, length and stride.
	geometry := func(s kernel.Shape) (outer, m, inner int64, err error) {
		r := int64(s.Rank())
		a := axis
		if a < 0 {
			a += r
		}
		if a < 0 || a >= r {
			return 0, 0, 0, fmt.Errorf("axis %d out of range for input %v", axis, s)
		}
		outer, inner = 1, 1
		for _, d := range s[:a] {
			outer *= d
		}
		for _, d := range s[a+1:] {
			inner *= d
		}
		return outer, s[a], inner, nil
	}
	k := &simple{flops: 3}
	k.inferF = func(in, out []*kernel.Tensor) error {
		if err := dtypeIn(in[0], "input", onnxFloats...); err != nil {
			return err
		}
		if _, _, _, err := geometry(in[0].Shape); err != nil {
			return err
		}
		setShape(out[0], in[0].Shape, in[0].DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x, y := a.In[0], a.Out[0]
		outer, m, inner, err := geometry(x.Shape)
		if err != nil {
			return err
		}
		xb, yb := x.Data(), y.Data()
		for o := range outer {
			for i := range inner {
				base := o*m*inner + i
				var s float64
				for j := range m {
					s += lpTerm(loadF(x.DType, xb, base+j*inner), p)
				}
				norm := lpRoot(s, p)
				for j := range m {
					at := base + j*inner
					if norm == 0 {
						storeF(y.DType, yb, at, 0)
					} else {
						storeF(y.DType, yb, at, loadF(x.DType, xb, at)/norm)
					}
				}
			}
		}
		return nil
	}
	return newKernel(sig{op: "LpNormalization", minIn: 1, maxIn: 1, nOut: 1}, k), nil
}

// lpPool is LpPool and GlobalLpPool.
//
// Tiling (words):
//
//	0..24  geometry (see Conv); for GlobalLpPool n·c in word 0 and the
//	       spatial size in word 1
//
// Workspace: none. Cost: two operations per window element per output;
// bytes of X and Y.
type lpPool struct {
	op     string
	opset  int64
	global bool
	p      int64
	w      window
}

func newLpPool(op string) kernel.Factory {
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		opset, err := attrs.Opset(18)
		if err != nil {
			return nil, wrapAttr(err)
		}
		k := &lpPool{op: op, opset: opset, global: op == "GlobalLpPool"}
		known := []string{"p"}
		if !k.global {
			known = append(known, "auto_pad", "kernel_shape", "pads", "strides")
			if opset >= 18 {
				known = append(known, "ceil_mode", "dilations")
			}
		}
		if err := attrs.Check(known...); err != nil {
			return nil, wrapAttr(err)
		}
		if k.p, err = attrs.Int("p", 2); err != nil {
			return nil, wrapAttr(err)
		}
		if k.p < 1 {
			return nil, notImplemented("ops: %s: p %d is not implemented (want 1 or more)", op, k.p)
		}
		if !k.global {
			if k.w, err = parseWindow(op, attrs); err != nil {
				return nil, fmt.Errorf("ops: %s: %w", op, err)
			}
			if k.w.kernel == nil {
				return nil, fmt.Errorf("ops: %s: attribute kernel_shape is required", op)
			}
			if k.w.autoPad == "SAME_UPPER" || k.w.autoPad == "SAME_LOWER" {
				for _, d := range k.w.dilations {
					if d != 1 {
						return nil, notImplemented("ops: %s: auto_pad %s with dilations %v is not implemented (use explicit pads)", op, k.w.autoPad, k.w.dilations)
					}
				}
			}
		}
		return newKernel(sig{op: op, minIn: 1, maxIn: 1, nOut: 1}, k), nil
	}
}

// outShape is Y's shape; for LpPool also the geometry.
func (k *lpPool) outShape(x *kernel.Tensor) (kernel.Shape, geom, error) {
	if err := dtypeIn(x, "X", onnxFloats...); err != nil {
		return nil, geom{}, err
	}
	if k.global {
		if x.Shape.Rank() < 3 {
			return nil, geom{}, fmt.Errorf("input X has shape %v: want rank 3 or more", x.Shape)
		}
		s := kernel.Shape{x.Shape[0], x.Shape[1]}
		for range x.Shape.Rank() - 2 {
			s = append(s, 1)
		}
		return s, geom{}, nil
	}
	g, err := k.w.spatial(x.Shape, nil)
	if err != nil {
		return nil, g, err
	}
	if err := k.w.forward(&g); err != nil {
		return nil, g, err
	}
	if k.opset >= 18 && k.w.ceil {
		// The last window starts inside the input or its leading padding.
		for a := 3 - g.nd; a < 3; a++ {
			if g.out[a] > 1 && (g.out[a]-1)*g.stride[a] >= g.in[a]+g.padB[a] {
				g.out[a]--
			}
		}
	}
	return g.spatialShape(g.c), g, nil
}

func (k *lpPool) infer(in, out []*kernel.Tensor) error {
	s, _, err := k.outShape(in[0])
	if err != nil {
		return err
	}
	setShape(out[0], s, in[0].DType)
	return nil
}

func (k *lpPool) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	s, g, err := k.outShape(in[0])
	if err != nil {
		return 0, err
	}
	if !out[0].Shape.Equal(s) {
		return 0, fmt.Errorf("output %v differs from the inferred %v", out[0].Shape, s)
	}
	if k.global {
		x := in[0].Shape
		g = geom{n: x[0] * x[1], c: x[2:].NumElements()}
	}
	g.put(e)
	return 0, nil
}

func (k *lpPool) cost(in, out []*kernel.Tensor) device.Cost {
	_, g, err := k.outShape(in[0])
	if err != nil {
		return device.Cost{}
	}
	taps := g.k.prod()
	if k.global {
		taps = in[0].Shape[2:].NumElements()
	}
	return device.Cost{FLOPs: 2 * float64(out[0].NumElements()*taps), Bytes: float64(in[0].Bytes() + out[0].Bytes())}
}

func (k *lpPool) compute(a *kernel.Args) error {
	d := decoder{b: a.Tiling.Data}
	g, err := readGeom(&d)
	if err != nil {
		return err
	}
	x, y := a.In[0], a.Out[0]
	xb, yb := x.Data(), y.Data()
	if k.global {
		rows, n := g.n, g.c
		if rows < 0 || n < 0 || rows*n != x.NumElements() || rows != y.NumElements() {
			return errTiling
		}
		for r := range rows {
			var s float64
			for i := range n {
				s += lpTerm(loadF(x.DType, xb, r*n+i), k.p)
			}
			storeF(y.DType, yb, r, lpRoot(s, k.p))
		}
		return nil
	}
	if g.n*g.c*g.in.prod() != x.NumElements() || g.n*g.c*g.out.prod() != y.NumElements() {
		return errTiling
	}
	ip, op := g.in.prod(), g.out.prod()
	var lo, hi, start dims3 // per axis: taps start+j·dil, j in [lo, hi), inside the input
	p, taps := poller{a: a}, max(g.k.prod(), 1)
	for nc := range g.n * g.c {
		base := nc * ip
		o := nc * op
		for od := range g.out[0] {
			for oh := range g.out[1] {
				for ow := range g.out[2] {
					if err := p.add(taps); err != nil { // a row may be long
						return err
					}
					pos := dims3{od, oh, ow}
					for i := range 3 {
						start[i] = pos[i]*g.stride[i] - g.padB[i]
						lo[i] = 0
						if start[i] < 0 {
							lo[i] = ceilDiv(-start[i], g.dil[i])
						}
						hi[i] = min(g.k[i], ceilDiv(g.in[i]-start[i], g.dil[i]))
					}
					var s float64
					for jd := lo[0]; jd < hi[0]; jd++ {
						id := start[0] + jd*g.dil[0]
						for jh := lo[1]; jh < hi[1]; jh++ {
							row := base + (id*g.in[1]+start[1]+jh*g.dil[1])*g.in[2]
							for jw := lo[2]; jw < hi[2]; jw++ {
								s += lpTerm(loadF(x.DType, xb, row+start[2]+jw*g.dil[2]), k.p)
							}
						}
					}
					storeF(y.DType, yb, o, lpRoot(s, k.p))
					o++
				}
			}
		}
	}
	return nil
}

func newMaxRoiPool(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("pooled_shape", "spatial_scale"); err != nil {
		return nil, wrapAttr(err)
	}
	pooled, err := attrs.Ints("pooled_shape", nil)
	if err != nil {
		return nil, wrapAttr(err)
	}
	if len(pooled) != 2 || pooled[0] < 1 || pooled[1] < 1 {
		return nil, fmt.Errorf("ops: MaxRoiPool: attribute pooled_shape %v: want two positive values (height, width)", pooled)
	}
	scale, err := attrs.Float("spatial_scale", 1)
	if err != nil {
		return nil, wrapAttr(err)
	}
	scale = float64(float32(scale))
	ph, pw := pooled[0], pooled[1]
	k := &simple{flops: 1}
	k.inferF = func(in, out []*kernel.Tensor) error {
		x, r := in[0], in[1]
		if err := dtypeIn(x, "X", onnxFloats...); err != nil {
			return err
		}
		if r.DType != x.DType {
			return fmt.Errorf("input rois has dtype %v, want X's %v", r.DType, x.DType)
		}
		if x.Shape.Rank() != 4 || r.Shape.Rank() != 2 || r.Shape[1] != 5 {
			return fmt.Errorf("inputs X %v and rois %v: want [N, C, H, W] and [R, 5]", x.Shape, r.Shape)
		}
		setShape(out[0], kernel.Shape{r.Shape[0], x.Shape[1], ph, pw}, x.DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x, rois, y := a.In[0], a.In[1], a.Out[0]
		n, c, h, w := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
		wide := x.DType == kernel.Float64
		// rnd rounds to the type the coordinates are computed in.
		rnd := func(v float64) float64 {
			if wide {
				return v
			}
			return float64(float32(v))
		}
		lowest := -math.MaxFloat64
		if !wide {
			lowest = -math.MaxFloat32
		}
		xb, rb, yb := x.Data(), rois.Data(), y.Data()
		var o int64
		for r := range rois.Shape[0] {
			var v [5]int64
			for i := range v {
				f := loadF(rois.DType, rb, r*5+int64(i))
				if i > 0 {
					f = math.Round(rnd(f * scale))
				}
				if !(math.Abs(f) < 1<<31) {
					return fmt.Errorf("rois[%d][%d] = %g: not a finite value in the range of int32 (after spatial_scale)", r, i, loadF(rois.DType, rb, r*5+int64(i)))
				}
				v[i] = int64(f)
			}
			b, x1, y1, x2, y2 := v[0], v[1], v[2], v[3], v[4]
			if b < 0 || b >= n {
				return fmt.Errorf("rois[%d] has batch index %d, not an image of X's %d", r, b, n)
			}
			binH := rnd(float64(max(y2-y1+1, 1)) / float64(ph))
			binW := rnd(float64(max(x2-x1+1, 1)) / float64(pw))
			for ci := range c {
				plane := (b*c + ci) * h * w
				for i := range ph {
					h0 := min(max(int64(math.Floor(rnd(float64(i)*binH)))+y1, 0), h)
					h1 := min(max(int64(math.Ceil(rnd(float64(i+1)*binH)))+y1, 0), h)
					for j := range pw {
						w0 := min(max(int64(math.Floor(rnd(float64(j)*binW)))+x1, 0), w)
						w1 := min(max(int64(math.Ceil(rnd(float64(j+1)*binW)))+x1, 0), w)
						m := 0.0
						if h1 > h0 && w1 > w0 {
							m = lowest
							for hi := h0; hi < h1; hi++ {
								for wi := w0; wi < w1; wi++ {
									if e := loadF(x.DType, xb, plane+hi*w+wi); !(e < m) {
										m = e
									}
								}
							}
						}
						storeF(y.DType, yb, o, m)
						o++
					}
				}
			}
		}
		return nil
	}
	return newKernel(sig{op: "MaxRoiPool", minIn: 2, maxIn: 2, nOut: 1}, k), nil
}
