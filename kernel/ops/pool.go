package ops

import (
	"fmt"
	"math"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// The pooling ops of ONNX over 1 to 3 spatial dimensions of X [N,C,D…]:
//
//   - GlobalAveragePool, GlobalMaxPool: the mean or maximum over all of
//     D…, giving [N,C,1…].
//   - AveragePool (kernel_shape, strides, pads, auto_pad, ceil_mode from
//     opset 10, count_include_pad, dilations from opset 19): windows as
//     Conv's; a window is clipped to the padded input, and its divisor
//     counts the taps in the padding it covers only with
//     count_include_pad. From opset 19 auto_pad SAME_UPPER and
//     SAME_LOWER with dilations above 1 are refused (onnxruntime pads
//     those as if undilated, the operator's text with the dilated
//     extent), and a window with no input element in it is 0.
//   - MaxPool (the same, dilations from opset 10, storage_order): the
//     maximum over the window's elements inside the input (IEEE 754's: a
//     NaN wins, +0 is above -0), and optional
//     output Indices (int64): the flat index of each maximum in X, row-major
//     (storage_order 0) or with the spatial axes column-major (1: the
//     first spatial axis varies fastest, as onnxruntime's and the ONNX
//     reference's 3-D pools take it). A window wholly in the padding
//     (dilations can step over the input) is 0 with index -1, as the
//     ONNX reference's 2-D pool gives it (onnxruntime gives the lowest
//     value and an index outside the channel).
//
// float32, float16, bfloat16 and float64 (MaxPool also int8 and uint8,
// the integer types ONNX's MaxPool takes); means are
// accumulated in float64 and rounded once. ceil_mode adds the partial
// window at the end, but not one that would start past the input and its
// leading padding (in the trailing padding), at every opset and in both
// pools, as onnxruntime and the ONNX reference do.
//
// Tiling (words):
//
//	0..24  geometry (see Conv), kernel 1… and out 1… for the global pools
//	25     count_include_pad
//
// Workspace: none. Cost: one operation per window element per output;
// bytes of X and Y.
type pool struct {
	op      string
	opset   int64
	global  bool
	max     bool
	w       window
	include bool
	order   int64
}

func newPool(op string) kernel.Factory {
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		opset, err := attrs.Opset(17)
		if err != nil {
			return nil, wrapAttr(err)
		}
		k := &pool{op: op, opset: opset, global: op == "GlobalAveragePool" || op == "GlobalMaxPool", max: op == "MaxPool" || op == "GlobalMaxPool"}
		s := sig{op: op, minIn: 1, maxIn: 1, nOut: 1}
		if k.global {
			if err := attrs.Check(); err != nil {
				return nil, wrapAttr(err)
			}
			return newKernel(s, k), nil
		}
		known := []string{"auto_pad", "kernel_shape", "pads", "strides"}
		if opset >= 10 {
			known = append(known, "ceil_mode")
		}
		if op == "MaxPool" {
			known = append(known, "storage_order")
			if opset >= 10 {
				known = append(known, "dilations")
			}
			s.nOut = 2
		} else {
			known = append(known, "count_include_pad")
			if op == "AveragePool" && opset >= 19 {
				known = append(known, "dilations")
			}
		}
		if err := attrs.Check(known...); err != nil {
			return nil, wrapAttr(err)
		}
		if k.w, err = parseWindow(op, attrs); err != nil {
			return nil, fmt.Errorf("ops: %s: %w", op, err)
		}
		if k.w.kernel == nil {
			return nil, fmt.Errorf("ops: %s: attribute kernel_shape is required", op)
		}
		if op == "AveragePool" && (k.w.autoPad == "SAME_UPPER" || k.w.autoPad == "SAME_LOWER") {
			for _, d := range k.w.dilations {
				if d != 1 {
					return nil, notImplemented("ops: %s: auto_pad %s with dilations %v is not implemented (use explicit pads)", op, k.w.autoPad, k.w.dilations)
				}
			}
		}
		inc, err := attrs.Int("count_include_pad", 0)
		if err != nil {
			return nil, wrapAttr(err)
		}
		k.include = inc != 0
		if k.order, err = attrs.Int("storage_order", 0); err != nil {
			return nil, wrapAttr(err)
		}
		if k.order != 0 && k.order != 1 {
			return nil, fmt.Errorf("ops: %s: storage_order %d (want 0 or 1)", op, k.order)
		}
		return newKernel(s, k), nil
	}
}

func (k *pool) geometry(x *kernel.Tensor) (geom, error) {
	types := onnxFloats
	if k.op == "MaxPool" {
		types = []kernel.DType{kernel.Float32, kernel.Float16, kernel.Float64, kernel.BFloat16, kernel.Int8, kernel.Uint8}
	}
	if err := dtypeIn(x, "X", types...); err != nil {
		return geom{}, err
	}
	if k.global {
		if x.Shape.Rank() < 3 || x.Shape.Rank() > 5 {
			return geom{}, fmt.Errorf("input X has shape %v: want rank 3 to 5", x.Shape)
		}
		w := window{autoPad: "NOTSET", kernel: x.Shape[2:]}
		g, err := w.spatial(x.Shape, nil)
		if err != nil {
			return g, err
		}
		return g, w.forward(&g)
	}
	g, err := k.w.spatial(x.Shape, nil)
	if err != nil {
		return g, err
	}
	if err := k.w.forward(&g); err != nil {
		return g, err
	}
	if k.w.ceil {
		// The last window starts inside the input or its leading padding,
		// as in onnxruntime and the ONNX reference (every opset).
		for a := 3 - g.nd; a < 3; a++ {
			if g.out[a] > 1 && (g.out[a]-1)*g.stride[a] >= g.in[a]+g.padB[a] {
				g.out[a]--
			}
		}
	}
	return g, nil
}

func (k *pool) infer(in, out []*kernel.Tensor) error {
	g, err := k.geometry(in[0])
	if err != nil {
		return err
	}
	s := g.spatialShape(g.c)
	setShape(out[0], s, in[0].DType)
	if len(out) > 1 {
		setShape(out[1], s, kernel.Int64)
	}
	return nil
}

func (k *pool) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	g, err := k.geometry(in[0])
	if err != nil {
		return 0, err
	}
	if !out[0].Shape.Equal(g.spatialShape(g.c)) {
		return 0, fmt.Errorf("output %v differs from the inferred %v", out[0].Shape, g.spatialShape(g.c))
	}
	g.put(e)
	e.putBool(k.include)
	return 0, nil
}

func (k *pool) cost(in, out []*kernel.Tensor) device.Cost {
	g, err := k.geometry(in[0])
	if err != nil {
		return device.Cost{}
	}
	return device.Cost{FLOPs: float64(out[0].NumElements() * g.k.prod()), Bytes: float64(in[0].Bytes() + out[0].Bytes())}
}

func (k *pool) compute(a *kernel.Args) error {
	d := decoder{b: a.Tiling.Data}
	g, err := readGeom(&d)
	if err != nil {
		return err
	}
	include := d.word() != 0
	if err := d.err(); err != nil {
		return err
	}
	x, y := a.In[0], a.Out[0]
	if g.n*g.c*g.in.prod() != x.NumElements() || g.n*g.c*g.out.prod() != y.NumElements() {
		return errTiling
	}
	var idx []int64
	if len(a.Out) > 1 {
		idx = kernel.Int64s(a.Out[1].Data())
	}
	xb, yb := x.Data(), y.Data()
	ip, op := g.in.prod(), g.out.prod()
	var lo, hi, cnt dims3 // per axis: first and past-the-last tap inside the input
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
					size := int64(1)
					for i := range 3 {
						start := pos[i]*g.stride[i] - g.padB[i]
						if k.max {
							// Taps start+j·dil inside [0, in).
							lo[i] = 0
							if start < 0 {
								lo[i] = ceilDiv(-start, g.dil[i])
							}
							hi[i] = min(g.k[i], ceilDiv(g.in[i]-start, g.dil[i]))
							cnt[i] = start
							continue
						}
						if g.dil[i] != 1 {
							// Taps start+j·dil, j in [lo, hi) inside [0, in);
							// the divisor counts those before the padding's end.
							d := g.dil[i]
							end := min(start+g.k[i]*d, g.in[i]+g.padE[i])
							size *= 1 + (end-start-1)/d
							lo[i], hi[i] = 0, min(g.k[i], ceilDiv(g.in[i]-start, d))
							if start < 0 {
								lo[i] = ceilDiv(-start, d)
							}
							cnt[i] = start
							continue
						}
						end := min(start+g.k[i], g.in[i]+g.padE[i])
						size *= end - start
						lo[i], hi[i] = max(start, 0), min(end, g.in[i])
						cnt[i] = 0
					}
					if k.max {
						best, at := math.Inf(-1), int64(-1)
						for jd := lo[0]; jd < hi[0]; jd++ {
							id := cnt[0] + jd*g.dil[0]
							for jh := lo[1]; jh < hi[1]; jh++ {
								ih := cnt[1] + jh*g.dil[1]
								for jw := lo[2]; jw < hi[2]; jw++ {
									iw := cnt[2] + jw*g.dil[2]
									off := (id*g.in[1]+ih)*g.in[2] + iw
									if v := loadF(x.DType, xb, base+off); at < 0 || above(v, best) {
										best, at = v, off
									}
								}
							}
						}
						if at < 0 {
							best = 0 // a window wholly in the padding
						}
						storeF(y.DType, yb, o, best)
						if idx != nil {
							switch {
							case at < 0:
								// No element: -1, not an index (base − 1
								// would name the previous channel's last
								// element).
								idx[o] = -1
							case k.order == 1:
								// Column-major over the spatial axes (the
								// leading ones of fewer than 3 are of size 1).
								w, h, d := at%g.in[2], at/g.in[2]%g.in[1], at/(g.in[2]*g.in[1])
								idx[o] = base + d + (h+w*g.in[1])*g.in[0]
							default:
								idx[o] = base + at
							}
						}
					} else {
						sum := math.Copysign(0, -1) // a sum of -0s is -0
						n := int64(0)
						// Input index cnt + j·dil for j in [lo, hi) (cnt 0
						// and dil 1 on undilated axes, where lo and hi are
						// indices).
						for jd := lo[0]; jd < hi[0]; jd++ {
							id := cnt[0] + jd*g.dil[0]
							for jh := lo[1]; jh < hi[1]; jh++ {
								row := base + (id*g.in[1]+cnt[1]+jh*g.dil[1])*g.in[2]
								for jw := lo[2]; jw < hi[2]; jw++ {
									sum += loadF(x.DType, xb, row+cnt[2]+jw*g.dil[2])
									n++
								}
							}
						}
						if n == 0 && k.opset >= 19 {
							// A window wholly in the padding (dilations can
							// step over the input): 0, as onnxruntime's.
							storeF(y.DType, yb, o, 0)
						} else {
							if include {
								n = size
							}
							storeF(y.DType, yb, o, sum/float64(n))
						}
					}
					o++
				}
			}
		}
	}
	return nil
}

// BatchNormalization: Y = (X − mean) / √(var + ε) · scale + B per channel
// (axis 1) of X [N,C,…] (a 1-D X [N] is [N,1], one channel), for float32,
// float16, bfloat16 and float64. Each
// element is ONNX's formula ((x − mean)/√(var + ε))·scale + B, evaluated in
// float64 in that order and rounded once. (Folding the statistics into one
// factor and offset per channel, x·factor + offset, differs on special
// values: an infinite scale or a mean beyond the range of the product gives
// Inf − Inf, NaN, where the formula is finite or infinite.) ε is rounded to
// float32, as the attribute is stored.
//
// In inference mode (the default) mean and var are the inputs; opset 7's
// spatial=0 takes per-element statistics of shape [C,D…].
//
// In training mode — training_mode 1 from opset 14; before it, attribute
// TrainingAttr, which the ONNX importer sets on a node of opset 7 to 13
// with its five outputs — mean and var are the batch's: each channel's
// mean and population variance over N and the spatial dimensions (in
// float64, two passes), and the node has more outputs:
//
//   - running_mean = input_mean·momentum + mean·(1 − momentum), and
//     running_var likewise, in the dtype and shape of the input
//     statistics (momentum defaults to 0.9, rounded to float32);
//   - before opset 14, then saved_mean (the batch mean) and saved_var,
//     which is 1/√(var + ε), the inverse standard deviation, as
//     onnxruntime gives it, both [C] in X's dtype.
//
// Training needs spatial statistics: spatial=0 with training is refused
// (as onnxruntime refuses it). A batch of no elements has NaN statistics.
//
// Tiling (words):
//
//	0..4  rows: N·C rows (N rows of C·∏D for spatial=0) of ∏D elements
//
// Workspace: none. Cost: two operations per element (four in training);
// bytes of X, Y and the statistics.
type batchNorm struct {
	eps, mom float64
	spatial  bool
	train    bool
	nOut     int
	sd       []float64 // by channel: √(var + ε)
	mean     []float64 // by channel, in training mode: the batch mean
	vr       []float64 // by channel, in training mode: the batch variance
}

// TrainingAttr is the pipert attribute of BatchNormalization before opset
// 14 selecting training mode (1) and its five outputs; from opset 14 the
// ONNX attribute training_mode does.
const TrainingAttr = "pipert_training"

func newBatchNorm(attrs kernel.Attrs) (kernel.Kernel, error) {
	opset, err := attrs.Opset(17)
	if err != nil {
		return nil, wrapAttr(err)
	}
	known := []string{"epsilon", "momentum"}
	if opset < 9 {
		known = append(known, "spatial")
	}
	train := "training_mode"
	if opset < 14 {
		train = TrainingAttr
	}
	known = append(known, train)
	if err := attrs.Check(known...); err != nil {
		return nil, wrapAttr(err)
	}
	k := &batchNorm{nOut: 1}
	if k.eps, err = attrs.Float("epsilon", 1e-5); err != nil {
		return nil, wrapAttr(err)
	}
	k.eps = float64(float32(k.eps))
	if k.mom, err = attrs.Float("momentum", 0.9); err != nil {
		return nil, wrapAttr(err)
	}
	k.mom = float64(float32(k.mom))
	sp, err := attrs.Int("spatial", 1)
	if err != nil {
		return nil, wrapAttr(err)
	}
	k.spatial = sp != 0
	tm, err := attrs.Int(train, 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	switch {
	case tm == 0:
	case tm != 1:
		return nil, fmt.Errorf("ops: BatchNormalization: %s %d: want 0 or 1", train, tm)
	case !k.spatial:
		return nil, fmt.Errorf("ops: BatchNormalization: training mode with spatial=0: training takes spatial statistics only")
	case opset < 14:
		k.train, k.nOut = true, 5
	default:
		k.train, k.nOut = true, 3
	}
	return newKernel(sig{op: "BatchNormalization", minIn: 5, maxIn: 5, nOut: k.nOut}, k), nil
}

// bnShape is X's shape as the op reads it: a 1-D X of N elements is
// [N, 1], one channel (as the ONNX operator says).
func bnShape(x kernel.Shape) kernel.Shape {
	if len(x) == 1 {
		return kernel.Shape{x[0], 1}
	}
	return x
}

// stats is the shape the statistics have for x.
func (k *batchNorm) stats(x kernel.Shape) kernel.Shape {
	x = bnShape(x)
	if k.spatial {
		return kernel.Shape{x[1]}
	}
	return x[1:]
}

func (k *batchNorm) infer(in, out []*kernel.Tensor) error {
	x := in[0]
	if err := dtypeIn(x, "X", onnxFloats...); err != nil {
		return err
	}
	if x.Shape.Rank() < 1 {
		return fmt.Errorf("input X has shape %v: want rank 1 or more", x.Shape)
	}
	want := k.stats(x.Shape)
	for i, name := range [...]string{"", "scale", "B", "mean", "var"} {
		if i == 0 {
			continue
		}
		t := in[i]
		if !t.DType.IsFloat() {
			return fmt.Errorf("input %s has dtype %v, want a float type", name, t.DType)
		}
		if t.NumElements() != want.NumElements() || t.Shape.Rank() > want.Rank() {
			return fmt.Errorf("input %s has shape %v, want %v", name, t.Shape, want)
		}
	}
	setShape(out[0], x.Shape, x.DType)
	if k.train {
		setShape(out[1], in[3].Shape, in[3].DType)
		setShape(out[2], in[4].Shape, in[4].DType)
		if k.nOut == 5 {
			c := bnShape(x.Shape)[1]
			setShape(out[3], kernel.Shape{c}, x.DType)
			setShape(out[4], kernel.Shape{c}, x.DType)
		}
	}
	return nil
}

// geometryBN returns rows, channels and the row length.
func (k *batchNorm) geometry(x kernel.Shape) (rows, ch, inner int64) {
	x = bnShape(x)
	if k.spatial {
		inner = 1
		for _, d := range x[2:] {
			inner *= d
		}
		return x[0] * x[1], x[1], inner
	}
	return x[0], x[1:].NumElements(), 1
}

func (k *batchNorm) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	rows, _, inner := k.geometry(in[0].Shape)
	if !k.spatial {
		inner = bnShape(in[0].Shape)[1:].NumElements()
	}
	e.grow(rowsWords)
	splitRows(rows, inner, in[0].DType.Size(), 4).put(e)
	return 0, nil
}

func (k *batchNorm) cost(in, out []*kernel.Tensor) device.Cost {
	b := in[0].Bytes() + out[0].Bytes()
	for _, t := range in[1:] {
		b += t.Bytes()
	}
	for _, t := range out[1:] {
		b += t.Bytes()
	}
	ops := 2 * float64(out[0].NumElements())
	if k.train {
		ops *= 2
	}
	return device.Cost{FLOPs: ops, Bytes: float64(b)}
}

func (k *batchNorm) compute(a *kernel.Args) error {
	x, y := a.In[0], a.Out[0]
	rows, ch, inner := k.geometry(x.Shape)
	rowLen := inner
	if !k.spatial {
		rowLen = ch
	}
	d := decoder{b: a.Tiling.Data}
	if err := readRows(&d, rows, rowLen); err != nil {
		return err
	}
	if int64(cap(k.sd)) < ch {
		k.sd = make([]float64, ch)
	}
	sd := k.sd[:ch]
	sc, b, mean, vr := a.In[1], a.In[2], a.In[3], a.In[4]
	if k.train {
		return k.train1(a, ch, inner, sd)
	}
	for c := range ch {
		sd[c] = math.Sqrt(loadF(vr.DType, vr.Data(), c) + k.eps)
	}
	xb, yb := x.Data(), y.Data()
	n := x.NumElements()
	for i := range n {
		c := i % ch
		if k.spatial {
			c = i / inner % ch
		}
		v := (loadF(x.DType, xb, i) - loadF(mean.DType, mean.Data(), c)) / sd[c]
		storeF(x.DType, yb, i, mul64(v, loadF(sc.DType, sc.Data(), c))+loadF(b.DType, b.Data(), c))
	}
	return nil
}

// train1 is compute in training mode (spatial statistics): the batch's
// mean and variance by channel, Y from them, and the statistics outputs.
func (k *batchNorm) train1(a *kernel.Args, ch, inner int64, sd []float64) error {
	x, y := a.In[0], a.Out[0]
	if int64(cap(k.mean)) < ch {
		k.mean, k.vr = make([]float64, ch), make([]float64, ch)
	}
	mu, vr := k.mean[:ch], k.vr[:ch]
	clear(mu)
	clear(vr)
	xb, yb := x.Data(), y.Data()
	n := x.NumElements()
	cnt := float64(x.Shape[0] * inner)
	for i := range n {
		mu[i/inner%ch] += loadF(x.DType, xb, i)
	}
	for c := range mu {
		mu[c] /= cnt
	}
	for i := range n {
		d := loadF(x.DType, xb, i) - mu[i/inner%ch]
		vr[i/inner%ch] += mul64(d, d)
	}
	for c := range vr {
		vr[c] /= cnt
		sd[c] = math.Sqrt(vr[c] + k.eps)
	}
	sc, b := a.In[1], a.In[2]
	for i := range n {
		c := i / inner % ch
		v := (loadF(x.DType, xb, i) - mu[c]) / sd[c]
		storeF(x.DType, yb, i, mul64(v, loadF(sc.DType, sc.Data(), c))+loadF(b.DType, b.Data(), c))
	}
	for j, batch := range [2][]float64{mu, vr} {
		in, out := a.In[3+j], a.Out[1+j]
		for c := range ch {
			storeF(out.DType, out.Data(), c, mul64(loadF(in.DType, in.Data(), c), k.mom)+mul64(batch[c], 1-k.mom))
		}
	}
	if k.nOut == 5 {
		for c := range ch {
			storeF(x.DType, a.Out[3].Data(), c, mu[c])
			storeF(x.DType, a.Out[4].Data(), c, 1/sd[c])
		}
	}
	return nil
}
