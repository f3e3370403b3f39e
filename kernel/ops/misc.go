package ops

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// simple is the impl of the ONNX ops whose device kernel is one pass over
// the output: a split over the output elements is their whole tiling, and
// compute re-derives the geometry from the operands' shapes.
//
// Tiling (words):
//
//	0..4  split over the elements of output 0; 4 buffers
//
// Workspace: none. Cost: flops operations per output element; bytes of
// every operand.
type simple struct {
	inferF   func(in, out []*kernel.Tensor) error
	computeF func(a *kernel.Args) error
	flops    float64
}

func (k *simple) infer(in, out []*kernel.Tensor) error { return k.inferF(in, out) }

func (k *simple) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	e.grow(splitWords)
	splitElems(out[0].NumElements(), out[0].DType.Size(), 4).put(e)
	return 0, nil
}

// ioBytes is the bytes a kernel reads and writes: its inputs' and its
// outputs'.
func ioBytes(in, out []*kernel.Tensor) float64 {
	var b int64
	for _, t := range in {
		b += t.Bytes()
	}
	for _, t := range out {
		b += t.Bytes()
	}
	return float64(b)
}

func (k *simple) cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{FLOPs: k.flops * float64(out[0].NumElements()), Bytes: ioBytes(in, out)}
}

func (k *simple) compute(a *kernel.Args) error {
	d := decoder{b: a.Tiling.Data}
	if err := readSplit(&d, a.Out[0].NumElements()); err != nil {
		return err
	}
	return k.computeF(a)
}

// miscBuiltins lists the ops of this file:
//
//   - Dropout: in inference output = data; the optional mask is all true
//     from opset 12, and all false before (as onnxruntime's kernels of
//     opsets 7 to 11 write it; of data's type before opset 10, bool
//     from 10). In training mode (opset 12 on) it drops elements at
//     random (see dropout).
//   - IsNaN; IsInf (detect_negative, detect_positive, default 1): bool.
//   - PRelu(X, slope): x, or slope·x below 0; slope broadcasts to X. Float
//     types, int8, uint8 and the integers of 32 and 64 bits; integers
//     multiply exactly (wrapping), unsigned ones are never below 0.
//   - Mod(A, B) (fmod 0: the result takes the divisor's sign, integers
//     only; fmod 1: C's fmod, the dividend's sign); every numeric type,
//     the unsigned ones divided as unsigned; integer division by zero is
//     an error.
//   - Tile(input, repeats): repeats (int64, a value dependency) per axis.
//   - Range(start, limit, delta): scalars of one dtype, float32, float16,
//     bfloat16, float64, int8, int16, int32, int64 or uint8 (value
//     dependencies); ⌈(limit−start)/delta⌉ elements (0 if negative).
//   - ArgMax, ArgMin (axis, keepdims, select_last_index from 12): int64
//     index of the first (or last) extreme along axis, of any numeric
//     dtype. The elements are compared in order with the extreme so far,
//     as onnxruntime does: a NaN compares false, so it is passed over
//     unless it comes first, and then it stays the extreme. Integers
//     compare exactly, the unsigned ones unsigned.
//   - CumSum(x, axis) (exclusive, reverse): axis a value dependency; float
//     types and the integers of 32 and 64 bits (wrapping).
//   - GatherElements(data, indices) (axis): out[i…] = data[… indices[i…] …].
//   - DepthToSpace (blocksize, mode DCR or CRD) and SpaceToDepth
//     (blocksize) on [N,C,H,W].
//   - InstanceNormalization(x, scale, B) (epsilon): per (n, c) over the
//     spatial elements.
//   - LayerNormalization(X, Scale[, B]) (axis −1, epsilon 1e-5,
//     stash_type a float type, whichever computing float64 statistics as
//     onnxruntime does): normalised over the axes from axis on; outputs
//     Y, Mean and InvStdDev (float32, the two last of the normalised
//     shape with 1s). Below
//     opset 17 (onnxruntime's contrib form) Scale, B and Y are of a float
//     type of their own, Y of Scale's.
//   - TfIdfVectorizer: n-gram counts of int32 and int64 rows (tfidf.go).
//
// Floating-point statistics and sums accumulate in float64 and round once.
func miscBuiltins() []builtin {
	return []builtin{
		{"Dropout", newDropout},
		{"IsNaN", newIsNaNInf("IsNaN")},
		{"IsInf", newIsNaNInf("IsInf")},
		{"PRelu", newPRelu},
		{"Mod", newMod},
		{"BitShift", newBitShift},
		{"Tile", newTile},
		{"Range", newRange},
		{"ArgMax", newArg("ArgMax")},
		{"ArgMin", newArg("ArgMin")},
		{"CumSum", newCumSum},
		{"GatherElements", newGatherElements},
		{"DepthToSpace", newDepthSpace("DepthToSpace")},
		{"SpaceToDepth", newDepthSpace("SpaceToDepth")},
		{"InstanceNormalization", newInstanceNorm},
		{"LayerNormalization", newLayerNormalization},
		{"Split", newSplit},
		{"TfIdfVectorizer", newTfIdf},
	}
}

// dropout is Dropout(data[, ratio[, training_mode]]) → (output[, mask]).
// In inference (training_mode absent or false, and always before opset
// 12) output is data and mask all true (from opset 12; see miscBuiltins
// for the masks of older opsets). In training mode each element is kept
// with probability 1 − ratio: mask says which, and output = mask · data ·
// scale with scale = 1/(1 − ratio) (rounded to float32 unless data is
// float64), so a dropped element is 0 (−0 of a negative, NaN of a NaN, as
// onnxruntime and ONNX's reference compute it). ratio (default 0.5) must
// then be in [0, 1); 0 keeps every element. The draws are pipert's own,
// from the generator of the random ops (random.go: attribute seed, else
// the node's name, and the run's number), one per element in row-major
// order.
type dropout struct {
	simple
	opset int64
	s     *streams
}

func (k *dropout) reset() { k.s.reset() }

// dropoutMode reads ratio and training_mode, when given, from Dropout's
// operands: whether the node drops at random, and with which ratio.
func dropoutMode(in []*kernel.Tensor) (training bool, ratio float64, err error) {
	ratio = 0.5
	if len(in) > 1 && in[1].NumElements() > 0 {
		r := in[1]
		if !r.DType.IsFloat() || r.NumElements() != 1 || r.Host == nil {
			return false, 0, fmt.Errorf("input ratio must be one float value, is %v %v", r.DType, r.Shape)
		}
		ratio = loadF(r.DType, r.Host, 0)
	}
	if len(in) > 2 && in[2].NumElements() > 0 {
		t := in[2]
		if t.DType != kernel.Bool || t.NumElements() != 1 || t.Host == nil {
			return false, 0, fmt.Errorf("input training_mode must be one bool value, is %v %v", t.DType, t.Shape)
		}
		training = t.Host[0] != 0
	}
	if training && !(ratio >= 0 && ratio < 1) {
		return false, 0, fmt.Errorf("input ratio is %v: in training mode it must be in [0, 1)", ratio)
	}
	return training, ratio, nil
}

func newDropout(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("ratio", "seed", "is_test"); err != nil {
		return nil, wrapAttr(err)
	}
	opset, err := attrs.Opset(12)
	if err != nil {
		return nil, wrapAttr(err)
	}
	// ratio (before opset 12; an input since) and is_test (before opset
	// 7) change nothing in inference, which is all those opsets run, but
	// their types are checked (not ratio's range: onnxruntime reads no
	// ratio there either).
	if _, err := attrs.Float("ratio", 0.5); err != nil {
		return nil, wrapAttr(err)
	}
	if _, err := attrs.Int("is_test", 0); err != nil {
		return nil, wrapAttr(err)
	}
	k := &dropout{opset: opset}
	if k.s, err = newStreams(attrs); err != nil {
		return nil, fmt.Errorf("ops: Dropout: %w", err)
	}
	k.flops = 1
	k.inferF = func(in, out []*kernel.Tensor) error {
		training, _, err := dropoutMode(in)
		if err != nil {
			return err
		}
		if training && opset < 12 {
			return fmt.Errorf("input training_mode is true at opset %d: training mode is from opset 12", opset)
		}
		if dt := in[0].DType; training && lowPrecision(dt) && (!dt.IsFloat8() || dt == kernel.Float8E8M0) {
			return fmt.Errorf("input data has dtype %v, which training mode does not scale (of the low-precision dtypes it takes the float 8 types but float8e8m0)", dt)
		}
		setShape(out[0], in[0].Shape, in[0].DType)
		if opset < 10 {
			setShape(out[1], in[0].Shape, in[0].DType)
		} else {
			setShape(out[1], in[0].Shape, kernel.Bool)
		}
		return nil
	}
	k.computeF = k.compute1
	return newKernel(sig{op: "Dropout", minIn: 1, maxIn: 3, nOut: 2, deps: kernel.Deps{Value: []int{1, 2}}}, k), nil
}

func (k *dropout) compute1(a *kernel.Args) error {
	training, ratio, err := dropoutMode(a.In)
	if err != nil {
		return err
	}
	x, y, m := a.In[0], a.Out[0], a.Out[1].Data()
	if !training || ratio == 0 {
		copy(y.Data(), x.Data()[:x.Bytes()])
		var one byte
		if k.opset >= 12 {
			one = 1
		}
		for i := range m {
			m[i] = one
		}
		return nil
	}
	scale := 1 / (1 - ratio)
	if x.DType != kernel.Float64 {
		scale = float64(float32(scale))
	}
	r := k.s.rng(a)
	xb, yb := x.Data(), y.Data()
	for i := range x.NumElements() {
		var keep float64
		if r.Float64() >= ratio {
			keep = 1
		}
		m[i] = byte(keep)
		storeF(x.DType, yb, i, mul64(mul64(keep, loadF(x.DType, xb, i)), scale))
	}
	return nil
}

// nanInfTypes are the dtypes IsNaN and IsInf take: the float types and,
// from ONNX's opset 20 (pipert: at every opset), the float 8 types but
// float8e8m0. float8e5m2 alone has infinities.
var nanInfTypes = append(slices.Clip(onnxFloats), kernel.Float8E4M3FN, kernel.Float8E4M3FNUZ, kernel.Float8E5M2,
	kernel.Float8E5M2FNUZ)

func newIsNaNInf(op string) kernel.Factory {
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		known := []string{}
		if op == "IsInf" {
			known = []string{"detect_negative", "detect_positive"}
		}
		if err := attrs.Check(known...); err != nil {
			return nil, wrapAttr(err)
		}
		neg, err := attrs.Int("detect_negative", 1)
		if err != nil {
			return nil, wrapAttr(err)
		}
		pos, err := attrs.Int("detect_positive", 1)
		if err != nil {
			return nil, wrapAttr(err)
		}
		k := &simple{flops: 1}
		k.inferF = func(in, out []*kernel.Tensor) error {
			if err := dtypeIn(in[0], "X", nanInfTypes...); err != nil {
				return err
			}
			setShape(out[0], in[0].Shape, kernel.Bool)
			return nil
		}
		k.computeF = func(a *kernel.Args) error {
			x, ob := a.In[0], a.Out[0].Data()
			xb := x.Data()
			for i := range ob {
				v := loadF(x.DType, xb, int64(i))
				var r bool
				if op == "IsNaN" {
					r = math.IsNaN(v)
				} else {
					r = neg != 0 && math.IsInf(v, -1) || pos != 0 && math.IsInf(v, 1)
				}
				ob[i] = b2u(r)
			}
			return nil
		}
		return newKernel(sig{op: op, minIn: 1, maxIn: 1, nOut: 1}, k), nil
	}
}

func newPRelu(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check(); err != nil {
		return nil, wrapAttr(err)
	}
	k := &simple{flops: 2}
	var w bcast
	k.inferF = func(in, out []*kernel.Tensor) error {
		// PRelu-16's T; no version takes the 8-bit integers.
		if err := dtypeIn(in[0], "X", onnxWide...); err != nil {
			return err
		}
		if err := checkSameDType(in[1], "slope", in[0], "X"); err != nil {
			return err
		}
		if err := bcastStrides(make([]int64, in[0].Shape.Rank()), in[1].Shape, in[0].Shape, 1); err != nil {
			return fmt.Errorf("slope: %w", err)
		}
		setShape(out[0], in[0].Shape, in[0].DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x, s, o := a.In[0], a.In[1], a.Out[0]
		if err := w.set(o.Shape, s.Shape); err != nil {
			return err
		}
		xb, sb, ob := x.Data(), s.Data(), o.Data()
		if x.DType.IsInt() {
			signed := !x.DType.IsUnsigned()
			for i := range o.NumElements() {
				v := loadI(x.DType, xb, i)
				if signed && v < 0 {
					v *= loadI(s.DType, sb, w.off[0])
				}
				storeI(o.DType, ob, i, v)
				w.next()
			}
			return nil
		}
		for i := range o.NumElements() {
			v := loadF(x.DType, xb, i)
			if v < 0 {
				v *= loadF(s.DType, sb, w.off[0])
			}
			storeF(o.DType, ob, i, v)
			w.next()
		}
		return nil
	}
	return newKernel(sig{op: "PRelu", minIn: 2, maxIn: 2, nOut: 1}, k), nil
}

// inferSameBinary infers an elementwise binary op whose inputs a and b
// have one dtype among types and broadcast to the output's shape.
func inferSameBinary(in, out []*kernel.Tensor, a, b string, types ...kernel.DType) error {
	if err := dtypeIn(in[0], a, types...); err != nil {
		return err
	}
	if err := checkSameDType(in[1], b, in[0], a); err != nil {
		return err
	}
	s, err := broadcastAll(in[0].Shape, in[1].Shape)
	if err != nil {
		return err
	}
	setShape(out[0], s, in[0].DType)
	return nil
}

func newMod(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("fmod"); err != nil {
		return nil, wrapAttr(err)
	}
	fm, err := attrs.Int("fmod", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	k := &simple{flops: 2}
	var w bcast
	k.inferF = func(in, out []*kernel.Tensor) error {
		if err := inferSameBinary(in, out, "A", "B", onnxNumeric...); err != nil {
			return err
		}
		if fm == 0 && in[0].DType.IsFloat() {
			return fmt.Errorf("fmod 0 takes integers; floats need fmod 1")
		}
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x, y, o := a.In[0], a.In[1], a.Out[0]
		if err := w.set(o.Shape, x.Shape, y.Shape); err != nil {
			return err
		}
		xb, yb, ob := x.Data(), y.Data(), o.Data()
		for i := range o.NumElements() {
			if o.DType.IsFloat() {
				storeF(o.DType, ob, i, math.Mod(loadF(x.DType, xb, w.off[0]), loadF(y.DType, yb, w.off[1])))
			} else {
				p, q := loadI(x.DType, xb, w.off[0]), loadI(y.DType, yb, w.off[1])
				if q == 0 {
					return errDivZero
				}
				var r int64
				if isU64(o.DType) {
					r = int64(uint64(p) % uint64(q)) // no sign to fix
				} else {
					r = p % q
					if fm == 0 && r != 0 && (r < 0) != (q < 0) {
						r += q
					}
				}
				storeI(o.DType, ob, i, r)
			}
			w.next()
		}
		return nil
	}
	return newKernel(sig{op: "Mod", minIn: 2, maxIn: 2, nOut: 1}, k), nil
}

// newBitShift is ONNX BitShift: X shifted left or right (attribute
// direction, "LEFT" or "RIGHT", required) by Y bits, elementwise with
// broadcasting, over the unsigned integer dtypes (uint8, uint16, uint32,
// uint64). A right shift is logical. A shift by the width or more gives 0,
// as the shifted-out bits are lost.
func newBitShift(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("direction"); err != nil {
		return nil, wrapAttr(err)
	}
	dir, err := attrs.String("direction", "")
	if err != nil {
		return nil, wrapAttr(err)
	}
	if dir != "LEFT" && dir != "RIGHT" {
		return nil, fmt.Errorf("ops: BitShift: direction %q: want LEFT or RIGHT", dir)
	}
	k := &simple{flops: 1}
	var w bcast
	k.inferF = func(in, out []*kernel.Tensor) error {
		return inferSameBinary(in, out, "X", "Y", kernel.Uint8, kernel.Uint16, kernel.Uint32, kernel.Uint64)
	}
	k.computeF = func(a *kernel.Args) error {
		x, y, o := a.In[0], a.In[1], a.Out[0]
		if err := w.set(o.Shape, x.Shape, y.Shape); err != nil {
			return err
		}
		xb, yb, ob := x.Data(), y.Data(), o.Data()
		dt := o.DType
		width := uint64(8 * dt.Size())
		for i := range o.NumElements() {
			// loadI zero-extends the narrower unsigned types and keeps a
			// uint64's bits: as uint64 both are the unsigned values.
			v, n := uint64(loadI(dt, xb, w.off[0])), uint64(loadI(dt, yb, w.off[1]))
			var r uint64
			switch {
			case n >= width:
			case dir == "LEFT":
				r = v << n // storeI keeps the low bits
			default:
				r = v >> n
			}
			storeI(dt, ob, i, int64(r))
			w.next()
		}
		return nil
	}
	return newKernel(sig{op: "BitShift", minIn: 2, maxIn: 2, nOut: 1}, k), nil
}

func newTile(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check(); err != nil {
		return nil, wrapAttr(err)
	}
	k := &simple{}
	var idx []int64
	k.inferF = func(in, out []*kernel.Tensor) error {
		rep, err := shapeValues(in[1], "repeats")
		if err != nil {
			return err
		}
		if len(rep) != in[0].Shape.Rank() {
			return fmt.Errorf("repeats %v: want %d values for input %v", rep, in[0].Shape.Rank(), in[0].Shape)
		}
		s := make(kernel.Shape, len(rep))
		for i, r := range rep {
			if r < 0 || r > 1<<40 || in[0].Shape[i] > 0 && r > (1<<40)/in[0].Shape[i] {
				return fmt.Errorf("repeats %v: negative or too large for input %v", rep, in[0].Shape)
			}
			s[i] = in[0].Shape[i] * r
		}
		setShape(out[0], s, in[0].DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x, o := a.In[0], a.Out[0]
		r := o.Shape.Rank()
		idx = grownInts(idx, r)
		clear(idx)
		size := int64(o.DType.Size())
		xb, ob := x.Data(), o.Data()
		for i := range o.NumElements() {
			off := int64(0)
			for d := range r {
				off = off*x.Shape[d] + idx[d]%x.Shape[d]
			}
			copyElem(ob, i, xb, off, size)
			for d := r - 1; d >= 0; d-- {
				idx[d]++
				if idx[d] < o.Shape[d] {
					break
				}
				idx[d] = 0
			}
		}
		return nil
	}
	return newKernel(sig{op: "Tile", minIn: 2, maxIn: 2, nOut: 1, deps: kernel.Deps{Value: []int{1}}}, k), nil
}

// newRange is Range. Range-27 added float16 and bfloat16, computed in the
// type stash_type names (1, float32, by default; 11, float64) and rounded
// to T once per element, as ONNX's reference computes them (numpy's
// arange): the element count from the stash-type values in float64, the
// elements start + i·delta in the stash type. The other types compute the
// count exactly (integers) or in float64, and each element in float64
// rounded once.
func newRange(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("stash_type"); err != nil {
		return nil, wrapAttr(err)
	}
	if err := attrInOpset(attrs, "Range", "stash_type", 27, 0); err != nil {
		return nil, err
	}
	// A graph built by hand, without an opset, has the newest form.
	opset, err := attrs.Opset(27)
	if err != nil {
		return nil, wrapAttr(err)
	}
	// stash_type is an ONNX element type: FLOAT (1) or DOUBLE (11).
	stash, err := attrs.Int("stash_type", 1)
	if err != nil {
		return nil, wrapAttr(err)
	}
	var st kernel.DType
	switch stash {
	case 1:
		st = kernel.Float32
	case 11:
		st = kernel.Float64
	default:
		return nil, fmt.Errorf("ops: Range: stash_type %d: want 1 (float) or 11 (double)", stash)
	}
	types := []kernel.DType{kernel.Float32, kernel.Float64, kernel.Int16, kernel.Int32, kernel.Int64}
	if opset >= 27 {
		types = append(types, kernel.Float16, kernel.BFloat16)
	}
	// low reports whether start's type is computed in the stash type.
	low := func(dt kernel.DType) bool { return dt == kernel.Float16 || dt == kernel.BFloat16 }
	k := &simple{flops: 1}
	scalar := func(t *kernel.Tensor, name string) (float64, int64, error) {
		if t.NumElements() != 1 || t.Host == nil {
			return 0, 0, fmt.Errorf("input %s must be a scalar value, have %v", name, t)
		}
		return loadF(t.DType, t.Host, 0), loadI(t.DType, t.Host, 0), nil
	}
	count := func(in []*kernel.Tensor) (int64, error) {
		for i, name := range [...]string{"start", "limit", "delta"} {
			if i > 0 {
				if err := checkSameDType(in[i], name, in[0], "start"); err != nil {
					return 0, err
				}
			}
		}
		// Range-11's T, and Range-27's.
		if err := dtypeIn(in[0], "start", types...); err != nil {
			return 0, err
		}
		sf, si, err := scalar(in[0], "start")
		if err != nil {
			return 0, err
		}
		lf, li, err := scalar(in[1], "limit")
		if err != nil {
			return 0, err
		}
		df, di, err := scalar(in[2], "delta")
		if err != nil {
			return 0, err
		}
		if in[0].DType.IsFloat() {
			if df == 0 {
				return 0, fmt.Errorf("delta is 0")
			}
			c := math.Ceil((lf - sf) / df)
			if math.IsNaN(c) || c > 1<<31 {
				return 0, fmt.Errorf("range from %g to %g by %g has too many elements", sf, lf, df)
			}
			return max(int64(c), 0), nil
		}
		if di == 0 {
			return 0, fmt.Errorf("delta is 0")
		}
		// ceil((limit − start) / delta), in uint64: limit − start may be
		// beyond int64 (from -2^63 to 2^63−1), but not beyond uint64.
		if (li > si) != (di > 0) || li == si {
			return 0, nil
		}
		span, step := uint64(li)-uint64(si), uint64(di)
		if di < 0 {
			span, step = uint64(si)-uint64(li), -uint64(di)
		}
		n := span / step
		if span%step != 0 {
			n++
		}
		if n > 1<<31 {
			return 0, fmt.Errorf("range from %d to %d by %d has too many elements", si, li, di)
		}
		return int64(n), nil
	}
	k.inferF = func(in, out []*kernel.Tensor) error {
		n, err := count(in)
		if err != nil {
			return err
		}
		if n > 1<<31 {
			return fmt.Errorf("range of %d elements", n)
		}
		setShape(out[0], kernel.Shape{n}, in[0].DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		o := a.Out[0]
		start, dl := a.In[0], a.In[2]
		ob := o.Data()
		if low(o.DType) && st == kernel.Float32 {
			s0, d := float32(loadF(start.DType, start.Host, 0)), float32(loadF(dl.DType, dl.Host, 0))
			for i := range o.NumElements() {
				storeF(o.DType, ob, i, float64(s0+mul(float32(i), d)))
			}
			return nil
		}
		for i := range o.NumElements() {
			if o.DType.IsFloat() {
				storeF(o.DType, ob, i, loadF(start.DType, start.Host, 0)+mul64(float64(i), loadF(dl.DType, dl.Host, 0)))
			} else {
				storeI(o.DType, ob, i, loadI(start.DType, start.Host, 0)+i*loadI(dl.DType, dl.Host, 0))
			}
		}
		return nil
	}
	return newKernel(sig{op: "Range", minIn: 3, maxIn: 3, nOut: 1, deps: kernel.Deps{Value: []int{0, 1, 2}}}, k), nil
}

func newArg(op string) kernel.Factory {
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		if err := attrs.Check("axis", "keepdims", "select_last_index"); err != nil {
			return nil, wrapAttr(err)
		}
		if err := attrInOpset(attrs, op, "select_last_index", 12, 0); err != nil {
			return nil, err
		}
		axis, err := attrs.Int("axis", 0)
		if err != nil {
			return nil, wrapAttr(err)
		}
		keep, err := flagAttr(attrs, "keepdims", true)
		if err != nil {
			return nil, wrapAttr(err)
		}
		last, err := flagAttr(attrs, "select_last_index", false)
		if err != nil {
			return nil, wrapAttr(err)
		}
		k := &simple{flops: 1}
		k.inferF = func(in, out []*kernel.Tensor) error {
			x := in[0]
			if err := dtypeIn(x, "data", onnxNumeric...); err != nil {
				return err
			}
			a, err := kernel.NormAxis(axis, x.Shape.Rank())
			if err != nil {
				return err
			}
			// An empty axis has no index to give, unless the output
			// has no element either (another axis is empty).
			if x.Shape[a] == 0 && !emptyBeside(x.Shape, a) {
				return fmt.Errorf("axis %d of data %v is empty", a, x.Shape)
			}
			s := x.Shape.Clone()
			if keep {
				s[a] = 1
			} else {
				s = append(s[:a], s[a+1:]...)
			}
			setShape(out[0], s, kernel.Int64)
			return nil
		}
		k.computeF = func(a *kernel.Args) error {
			x := a.In[0]
			ax, err := kernel.NormAxis(axis, x.Shape.Rank())
			if err != nil {
				return err
			}
			outer, n, inner := around(x.Shape, ax)
			xb, ob := x.Data(), kernel.Int64s(a.Out[0].Data())
			if x.DType.IsInt() {
				// Exactly, in loadOrd's form: int64 and uint64 beyond
				// 2^53, uint64 as unsigned.
				for o := range outer {
					for i := range inner {
						best, at := loadOrd(x.DType, xb, o*n*inner+i), int64(0)
						for j := int64(1); j < n; j++ {
							v := loadOrd(x.DType, xb, (o*n+j)*inner+i)
							better := v > best
							if op == "ArgMin" {
								better = v < best
							}
							if better || last && v == best {
								best, at = v, j
							}
						}
						ob[o*inner+i] = at
					}
				}
				return nil
			}
			for o := range outer {
				for i := range inner {
					best, at := loadF(x.DType, xb, o*n*inner+i), int64(0)
					for j := int64(1); j < n; j++ {
						v := loadF(x.DType, xb, (o*n+j)*inner+i)
						if argBetter(op == "ArgMin", last, v, best) {
							best, at = v, j
						}
					}
					ob[o*inner+i] = at
				}
			}
			return nil
		}
		return newKernel(sig{op: op, minIn: 1, maxIn: 1, nOut: 1}, k), nil
	}
}

// argBetter says whether float v replaces the extreme best so far in
// ArgMax (ArgMin when min), as in onnxruntime: v > best (v < best), or
// v >= best (v <= best) with select_last_index (last). A NaN compares
// false, so it never replaces, and a NaN in the first place is never
// replaced.
func argBetter(min, last bool, v, best float64) bool {
	switch {
	case min && last:
		return v <= best
	case min:
		return v < best
	case last:
		return v >= best
	}
	return v > best
}

func newCumSum(attrs kernel.Attrs) (kernel.Kernel, error) {
	return newCumulative("CumSum", attrs, 0, func(a, b float64) float64 { return a + b }, func(a, b int64) int64 { return a + b })
}

// newCumulative builds CumSum and CumProd: op over x along the axis its
// second input gives (attributes exclusive and reverse), from identity
// one. Floats combine in float64, each output rounded once to x's dtype
// (the first element as it is: not 0 + v, which turns a -0 into +0);
// integers combine in int64 and wrap to the dtype.
func newCumulative(op string, attrs kernel.Attrs, one float64, combF func(a, b float64) float64, combI func(a, b int64) int64) (kernel.Kernel, error) {
	if err := attrs.Check("exclusive", "reverse"); err != nil {
		return nil, wrapAttr(err)
	}
	excl, err := flagAttr(attrs, "exclusive", false)
	if err != nil {
		return nil, wrapAttr(err)
	}
	rev, err := flagAttr(attrs, "reverse", false)
	if err != nil {
		return nil, wrapAttr(err)
	}
	axisOf := func(in []*kernel.Tensor) (int, error) {
		v, err := valueInts(in[1], "axis", 1)
		if err != nil {
			return 0, err
		}
		if v.n != 1 {
			return 0, fmt.Errorf("input axis has %d values, want 1", v.n)
		}
		return kernel.NormAxis(v.at(0), in[0].Shape.Rank())
	}
	k := &simple{flops: 1}
	k.inferF = func(in, out []*kernel.Tensor) error {
		if err := dtypeIn(in[0], "x", onnxWide...); err != nil {
			return err
		}
		if _, err := axisOf(in); err != nil {
			return err
		}
		setShape(out[0], in[0].Shape, in[0].DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x, o := a.In[0], a.Out[0]
		if x.DType != o.DType || !x.Shape.Equal(o.Shape) {
			return fmt.Errorf("operand %v differs from the output %v", x, o)
		}
		ax, err := axisOf(a.In)
		if err != nil {
			return err
		}
		outer, n, inner := around(x.Shape, ax)
		xb, ob := x.Data(), o.Data()
		isFloat := x.DType.IsFloat()
		store := func(at int64, f float64, p int64) {
			if isFloat {
				storeF(o.DType, ob, at, f)
			} else {
				storeI(o.DType, ob, at, p)
			}
		}
		for q := range outer {
			for i := range inner {
				f, p := one, int64(one)
				for jj := range n {
					j := jj
					if rev {
						j = n - 1 - jj
					}
					at := (q*n+j)*inner + i
					if excl {
						store(at, f, p)
					}
					if isFloat {
						if v := loadF(x.DType, xb, at); jj == 0 {
							f = v
						} else {
							f = combF(f, v)
						}
					} else {
						p = combI(p, loadI(x.DType, xb, at))
					}
					if !excl {
						store(at, f, p)
					}
				}
			}
		}
		return nil
	}
	return newKernel(sig{op: op, minIn: 2, maxIn: 2, nOut: 1, deps: kernel.Deps{Value: []int{1}}}, k), nil
}

func newGatherElements(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("axis"); err != nil {
		return nil, wrapAttr(err)
	}
	axis, err := attrs.Int("axis", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	k := &simple{}
	var idx []int64
	k.inferF = func(in, out []*kernel.Tensor) error {
		x, ix := in[0], in[1]
		if !isIndex(ix.DType) {
			return fmt.Errorf("input indices has dtype %v, want int32 or int64", ix.DType)
		}
		if ix.Shape.Rank() != x.Shape.Rank() {
			return fmt.Errorf("indices %v and data %v differ in rank", ix.Shape, x.Shape)
		}
		if _, err := kernel.NormAxis(axis, x.Shape.Rank()); err != nil {
			return err
		}
		setShape(out[0], ix.Shape, x.DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x, ix, o := a.In[0], a.In[1], a.Out[0]
		ax, _ := kernel.NormAxis(axis, x.Shape.Rank())
		r := x.Shape.Rank()
		idx = grownInts(idx, r)
		clear(idx)
		size := int64(o.DType.Size())
		xb, ib, ob := x.Data(), ix.Data(), o.Data()
		for i := range o.NumElements() {
			j := loadI(ix.DType, ib, i)
			if j < 0 {
				j += x.Shape[ax]
			}
			if j < 0 || j >= x.Shape[ax] {
				return fmt.Errorf("index %d out of range for axis %d of data %v", loadI(ix.DType, ib, i), ax, x.Shape)
			}
			off := int64(0)
			for d := range r {
				c := idx[d]
				if d == ax {
					c = j
				}
				if c >= x.Shape[d] {
					return fmt.Errorf("indices %v exceed data %v on axis %d", ix.Shape, x.Shape, d)
				}
				off = off*x.Shape[d] + c
			}
			copyElem(ob, i, xb, off, size)
			for d := r - 1; d >= 0; d-- {
				idx[d]++
				if idx[d] < o.Shape[d] {
					break
				}
				idx[d] = 0
			}
		}
		return nil
	}
	return newKernel(sig{op: "GatherElements", minIn: 2, maxIn: 2, nOut: 1}, k), nil
}

func newDepthSpace(op string) kernel.Factory {
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		known := []string{"blocksize"}
		if op == "DepthToSpace" {
			known = append(known, "mode")
		}
		if err := attrs.Check(known...); err != nil {
			return nil, wrapAttr(err)
		}
		if err := attrInOpset(attrs, op, "mode", 11, 0); err != nil {
			return nil, err
		}
		b, err := attrs.Int("blocksize", 0)
		if err != nil {
			return nil, wrapAttr(err)
		}
		if b < 1 || b > 1<<31 {
			return nil, fmt.Errorf("ops: %s: attribute blocksize %d: want 1 to 2^31", op, b)
		}
		mode, err := attrs.String("mode", "DCR")
		if err != nil {
			return nil, wrapAttr(err)
		}
		if mode != "DCR" && mode != "CRD" {
			return nil, fmt.Errorf("ops: %s: mode %q (want DCR or CRD)", op, mode)
		}
		k := &simple{}
		k.inferF = func(in, out []*kernel.Tensor) error {
			x := in[0]
			if x.Shape.Rank() != 4 {
				return fmt.Errorf("input %v: want [N,C,H,W]", x.Shape)
			}
			n, c, h, w := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
			if op == "DepthToSpace" {
				if c%(b*b) != 0 {
					return fmt.Errorf("channels %d are not divisible by blocksize² %d", c, b*b)
				}
				if h > math.MaxInt64/b || w > math.MaxInt64/b {
					return fmt.Errorf("height %d and width %d times blocksize %d overflow", h, w, b)
				}
				setShape(out[0], kernel.Shape{n, c / (b * b), h * b, w * b}, x.DType)
				return nil
			}
			if h%b != 0 || w%b != 0 {
				return fmt.Errorf("height %d and width %d must be divisible by blocksize %d", h, w, b)
			}
			if c > math.MaxInt64/(b*b) {
				return fmt.Errorf("channels %d times blocksize² %d overflow", c, b*b)
			}
			setShape(out[0], kernel.Shape{n, c * b * b, h / b, w / b}, x.DType)
			return nil
		}
		k.computeF = func(a *kernel.Args) error {
			x, o := a.In[0], a.Out[0]
			size := int64(o.DType.Size())
			xb, ob := x.Data(), o.Data()
			// Walk the deep side's [N, C, H, W] and the block (i, j).
			n, c, h, w := x.Shape[0], x.Shape[1]/(b*b), x.Shape[2], x.Shape[3]
			if op == "SpaceToDepth" {
				n, c, h, w = x.Shape[0], x.Shape[1], x.Shape[2]/b, x.Shape[3]/b
			}
			for ni := range n {
				for ci := range c {
					for i := range b {
						for j := range b {
							// The depth channel of (ci, i, j): block-major
							// (DCR, SpaceToDepth) or channel-major (CRD).
							dc := (i*b+j)*c + ci
							if op == "DepthToSpace" && mode == "CRD" {
								dc = ci*b*b + i*b + j
							}
							for hi := range h {
								for wi := range w {
									deep := ((ni*c*b*b+dc)*h+hi)*w + wi
									wide := ((ni*c+ci)*h*b+hi*b+i)*w*b + wi*b + j
									if op == "DepthToSpace" {
										copyElem(ob, wide, xb, deep, size)
									} else {
										copyElem(ob, deep, xb, wide, size)
									}
								}
							}
						}
					}
				}
			}
			return nil
		}
		return newKernel(sig{op: op, minIn: 1, maxIn: 1, nOut: 1}, k), nil
	}
}

// moments returns the mean and 1/√(variance + eps) of the n elements of
// xb from base, in float64, the variance from the centred values.
func moments(dt kernel.DType, xb []byte, base, n int64, eps float64, narrow bool) (mean, inv float64) {
	var s, ss float64
	for i := range n {
		s += stage(loadF(dt, xb, base+i), narrow)
	}
	mean = s / float64(n)
	for i := range n {
		d := stage(loadF(dt, xb, base+i), narrow) - mean
		ss += mul64(d, d)
	}
	return mean, 1 / math.Sqrt(ss/float64(n)+eps)
}

// normalize writes y = (x − mean)/√(var + eps)·scale + bias over groups of
// n consecutive elements of x, with scale and bias read at at(g).
func normalize(x *kernel.Tensor, y []byte, groups, n int64, eps float64, scale, bias *kernel.Tensor, at func(g int64) int64) {
	xb := x.Data()
	for g := range groups {
		m, is := moments(x.DType, xb, g*n, n, eps, false)
		f := is * loadF(scale.DType, scale.Data(), at(g))
		b := loadF(bias.DType, bias.Data(), at(g))
		for i := range n {
			storeF(x.DType, y, g*n+i, mul64(loadF(x.DType, xb, g*n+i)-m, f)+b)
		}
	}
}

func newInstanceNorm(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("epsilon"); err != nil {
		return nil, wrapAttr(err)
	}
	eps, err := attrs.Float("epsilon", 1e-5)
	if err != nil {
		return nil, wrapAttr(err)
	}
	eps = float64(float32(eps))
	k := &simple{flops: 5}
	k.inferF = func(in, out []*kernel.Tensor) error {
		x := in[0]
		if err := dtypeIn(x, "input", onnxFloats...); err != nil {
			return err
		}
		if x.Shape.Rank() < 3 {
			return fmt.Errorf("input %v: want [N,C,D…]", x.Shape)
		}
		for i, name := range [...]string{"scale", "B"} {
			if t := in[1+i]; !t.Shape.Equal(kernel.Shape{x.Shape[1]}) || t.DType != x.DType {
				return fmt.Errorf("input %s is %v, want %v[%d]", name, t, x.DType, x.Shape[1])
			}
		}
		setShape(out[0], x.Shape, x.DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x := a.In[0]
		c := x.Shape[1]
		n := x.Shape[2:].NumElements()
		normalize(x, a.Out[0].Data(), x.Shape[0]*c, n, eps, a.In[1], a.In[2], func(g int64) int64 { return g % c })
		return nil
	}
	return newKernel(sig{op: "InstanceNormalization", minIn: 3, maxIn: 3, nOut: 1}, k), nil
}

// axisEpsilon reads the attributes ONNX's LayerNormalization and
// RMSNormalization share, after checking that attrs holds no others:
// axis (default -1) and epsilon (default 1e-5, a float32 value).
func axisEpsilon(attrs kernel.Attrs) (axis int64, eps float64, err error) {
	if err := attrs.Check("axis", "epsilon", "stash_type"); err != nil {
		return 0, 0, wrapAttr(err)
	}
	if axis, err = attrs.Int("axis", -1); err != nil {
		return 0, 0, wrapAttr(err)
	}
	if eps, err = attrs.Float("epsilon", 1e-5); err != nil {
		return 0, 0, wrapAttr(err)
	}
	return axis, float64(float32(eps)), nil
}

func newLayerNormalization(attrs kernel.Attrs) (kernel.Kernel, error) {
	axis, eps, err := axisEpsilon(attrs)
	if err != nil {
		return nil, err
	}
	// Every stash_type computes float64 statistics, a float64 X
	// included, as onnxruntime's kernel does; the attribute is checked.
	if err := floatTypeAttr(attrs, "LayerNormalization", "stash_type"); err != nil {
		return nil, err
	}
	opset, err := attrs.Opset(17)
	if err != nil {
		return nil, wrapAttr(err)
	}
	k := &simple{flops: 5}
	k.inferF = func(in, out []*kernel.Tensor) error {
		x := in[0]
		if err := dtypeIn(x, "X", onnxFloats...); err != nil {
			return err
		}
		// Below opset 17 the op is onnxruntime's contrib form, whose Scale,
		// B and Y share a float type of their own (V), X's or another.
		ydt := x.DType
		if opset < 17 {
			if err := dtypeIn(in[1], "Scale", onnxFloats...); err != nil {
				return err
			}
			ydt = in[1].DType
		}
		a, err := kernel.NormAxis(axis, x.Shape.Rank())
		if err != nil {
			return err
		}
		norm := x.Shape[a:]
		for i, t := range in[1:] {
			if t.NumElements() == 0 && i == 1 {
				continue
			}
			if _, err := broadcastAll(norm, t.Shape); err != nil || t.Shape.Rank() > norm.Rank() {
				return fmt.Errorf("input %s %v does not broadcast to the normalised shape %v", [...]string{"Scale", "B"}[i], t.Shape, norm)
			}
		}
		setShape(out[0], x.Shape, ydt)
		stat := x.Shape.Clone()
		for i := a; i < len(stat); i++ {
			stat[i] = 1
		}
		setShape(out[1], stat, kernel.Float32)
		setShape(out[2], stat, kernel.Float32)
		return nil
	}
	var ws, wb bcast
	var sIdx, bIdx []int64
	k.computeF = func(a *kernel.Args) error {
		x := a.In[0]
		ax, _ := kernel.NormAxis(axis, x.Shape.Rank())
		norm := x.Shape[ax:]
		n := norm.NumElements()
		groups := x.Shape[:ax].NumElements()
		scale := a.In[1]
		var bias *kernel.Tensor
		if len(a.In) > 2 && a.In[2].NumElements() > 0 {
			bias = a.In[2]
		}
		// Scale and B broadcast to the normalised shape; their offsets per
		// element i of a group, walked once.
		if err := ws.set(norm, scale.Shape); err != nil {
			return err
		}
		sIdx = grownInts(sIdx, int(n))
		for i := range sIdx {
			sIdx[i] = ws.off[0]
			ws.next()
		}
		if bias != nil {
			if err := wb.set(norm, bias.Shape); err != nil {
				return err
			}
			bIdx = grownInts(bIdx, int(n))
			for i := range bIdx {
				bIdx[i] = wb.off[0]
				wb.next()
			}
		}
		mb, ib := kernel.Float32s(a.Out[1].Data()), kernel.Float32s(a.Out[2].Data())
		y := a.Out[0].Data()
		xb := x.Data()
		for g := range groups {
			m, is := moments(x.DType, xb, g*n, n, eps, false)
			mb[g], ib[g] = float32(m), float32(is)
			for i := range n {
				v := mul64((loadF(x.DType, xb, g*n+i)-m)*is, loadF(scale.DType, scale.Data(), sIdx[i]))
				if bias != nil {
					v += loadF(bias.DType, bias.Data(), bIdx[i])
				}
				storeF(a.Out[0].DType, y, g*n+i, v)
			}
		}
		return nil
	}
	return newKernel(sig{op: "LayerNormalization", minIn: 2, maxIn: 3, nOut: 3}, k), nil
}

// Split cuts input along axis (default 0) into num_outputs parts: of the
// lengths in split (attribute before opset 13, optional int64 input — a
// value dependency — from 13), or equal parts. num_outputs is the node's
// output count; the ONNX importer sets it from the node (from opset 18 it
// is also an ONNX attribute, which must match the node). Without split,
// before opset 18 each part has ⌈dim/num_outputs⌉ elements but the last
// ones, which take what is left (0 when nothing is); from opset 18 the
// parts but the last have ⌈dim/num_outputs⌉ and the last the rest, which
// must not be empty (as onnxruntime requires: 7 into 3 is 3, 3, 1; 4 into
// 3 is an error).
//
// Tiling (words):
//
//	0..4  split over the input elements; 4 buffers
//
// Workspace: none. Cost: no arithmetic; bytes of input and outputs, read
// and written.
type splitOp struct {
	axis      int64
	n         int
	attrSplit []int64
	fromInput bool
	chunks    bool // opset 18: equal parts, the last one the non-empty rest
}

func newSplit(attrs kernel.Attrs) (kernel.Kernel, error) {
	opset, err := attrs.Opset(17)
	if err != nil {
		return nil, wrapAttr(err)
	}
	k := &splitOp{fromInput: opset >= 13, chunks: opset >= 18}
	known := []string{"axis", "num_outputs"}
	if !k.fromInput {
		known = append(known, "split")
	}
	if err := attrs.Check(known...); err != nil {
		return nil, wrapAttr(err)
	}
	if k.axis, err = attrs.Int("axis", 0); err != nil {
		return nil, wrapAttr(err)
	}
	n, err := attrs.Int("num_outputs", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	if n < 1 || n > math.MaxInt16 {
		return nil, fmt.Errorf("ops: Split: num_outputs %d: want 1 to %d (the node's output count)", n, math.MaxInt16)
	}
	k.n = int(n)
	if k.attrSplit, err = attrs.Ints("split", nil); err != nil {
		return nil, wrapAttr(err)
	}
	s := sig{op: "Split", minIn: 1, maxIn: 1, nOut: k.n}
	if k.fromInput {
		s.maxIn, s.deps = 2, kernel.Deps{Value: []int{1}}
	}
	return newKernel(s, k), nil
}

// parts returns the axis and the part lengths for x.
func (k *splitOp) parts(in []*kernel.Tensor) (int, []int64, error) {
	x := in[0]
	ax, err := kernel.NormAxis(k.axis, x.Shape.Rank())
	if err != nil {
		return 0, nil, err
	}
	d := x.Shape[ax]
	lens := k.attrSplit
	if k.fromInput && len(in) > 1 && (in[1].NumElements() > 0 || k.chunks) {
		// From opset 18 a split input is there to be used, even empty.
		if lens, err = shapeValues(in[1], "split"); err != nil {
			return 0, nil, err
		}
	}
	if lens == nil {
		each := ceilDiv(d, int64(k.n))
		if k.chunks && (int64(k.n) > d || d-each*int64(k.n-1) <= 0) {
			return 0, nil, fmt.Errorf("num_outputs %d: axis %d of input %v (%d elements) does not split into %d parts of %d, the last one smaller but not empty",
				k.n, ax, x.Shape, d, k.n, each)
		}
		lens = make([]int64, k.n)
		rest := d
		for i := range lens {
			lens[i] = min(each, rest)
			rest -= lens[i]
		}
		return ax, lens, nil
	}
	if len(lens) != k.n {
		return 0, nil, fmt.Errorf("split %v has %d parts, the node %d outputs", lens, len(lens), k.n)
	}
	var sum int64
	for _, l := range lens {
		if l < 0 {
			return 0, nil, fmt.Errorf("split %v: negative length", lens)
		}
		sum += l
	}
	if sum != d {
		return 0, nil, fmt.Errorf("split %v sums to %d, axis %d of input %v has %d", lens, sum, ax, x.Shape, d)
	}
	return ax, lens, nil
}

func (k *splitOp) infer(in, out []*kernel.Tensor) error {
	ax, lens, err := k.parts(in)
	if err != nil {
		return err
	}
	for i, l := range lens {
		s := in[0].Shape.Clone()
		s[ax] = l
		setShape(out[i], s, in[0].DType)
	}
	return nil
}

func (k *splitOp) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	e.grow(splitWords)
	splitElems(in[0].NumElements(), in[0].DType.Size(), 4).put(e)
	return 0, nil
}

func (k *splitOp) cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{Bytes: float64(2 * in[0].Bytes())}
}

func (k *splitOp) compute(a *kernel.Args) error {
	x := a.In[0]
	d := decoder{b: a.Tiling.Data}
	if err := readSplit(&d, x.NumElements()); err != nil {
		return err
	}
	ax, lens, err := k.parts(a.In)
	if err != nil {
		return err
	}
	outer, n, inner := around(x.Shape, ax)
	size := int64(x.DType.Size())
	xb := x.Data()
	start := int64(0)
	for i, l := range lens {
		ob := a.Out[i].Data()
		row := l * inner * size
		for o := range outer {
			copy(ob[o*row:(o+1)*row], xb[((o*n+start)*inner)*size:][:row])
		}
		start += l
	}
	return nil
}

// moreBuiltins lists Trilu, ScatterND, ScatterElements (and its opset 9
// name Scatter), OneHot and CastLike:
//
//   - Trilu(input[, k]) (upper, default 1): keeps the upper (lower)
//     triangle of the last two axes from diagonal k (a value dependency,
//     default 0) and zeroes the rest.
//   - ScatterND(data, indices, updates) (reduction none, add, mul, max
//     or min; ONNX has max and min from opset 18): a copy of data with the
//     slices indices address replaced or combined, update after update in
//     index order.
//     max keeps the element when it is above the update and else takes
//     the update, min when it is below: a NaN update replaces the element,
//     a NaN element gives way to the next update, as in onnxruntime.
//     Integers compare exactly (the unsigned ones unsigned); bool is
//     false < true.
//   - ScatterElements(data, indices, updates) (axis, reduction): a copy of
//     data with element j of axis replaced where indices say.
//   - OneHot(indices, depth, values) (axis −1): values[1] where the index
//     (negative counting from depth) matches, else values[0]; depth is a
//     value dependency. indices of any numeric dtype but bfloat16, values
//     of any dtype. A float index selects a position only when equal to
//     it, as in onnxruntime and ONNX's reference (1.5, 0.9 and −1.2
//     select none, where truncation would select 1, 0 and depth − 1); a
//     negative one adds depth first, in float32 for float32 and float16
//     indices (onnxruntime's arithmetic), in float64 for float64 ones.
//   - CastLike(input, target_type): Cast to target_type's dtype (saturate
//     from opset 19 and round_mode from 24, as Cast's).
func moreBuiltins() []builtin {
	return []builtin{
		{"Trilu", newTrilu},
		{"ScatterND", newScatter("ScatterND")},
		{"ScatterElements", newScatter("ScatterElements")},
		{"Scatter", newScatter("Scatter")},
		{"OneHot", newOneHot},
		{"CastLike", newCastLike},
		{"Einsum", newEinsum},
	}
}

func newTrilu(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("upper"); err != nil {
		return nil, wrapAttr(err)
	}
	upper, err := flagAttr(attrs, "upper", true)
	if err != nil {
		return nil, wrapAttr(err)
	}
	diag := func(in []*kernel.Tensor) (int64, error) {
		if len(in) < 2 || in[1].NumElements() == 0 {
			return 0, nil
		}
		v, err := shapeValues(in[1], "k")
		if err != nil {
			return 0, err
		}
		if len(v) != 1 {
			return 0, fmt.Errorf("input k has %d values, want 1", len(v))
		}
		return v[0], nil
	}
	k := &simple{}
	k.inferF = func(in, out []*kernel.Tensor) error {
		if in[0].Shape.Rank() < 2 {
			return fmt.Errorf("input %v: want rank 2 or more", in[0].Shape)
		}
		if _, err := diag(in); err != nil {
			return err
		}
		if err := checkHasZero(in[0].DType, "input input"); err != nil {
			return err
		}
		setShape(out[0], in[0].Shape, in[0].DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x, o := a.In[0], a.Out[0]
		d, err := diag(a.In)
		if err != nil {
			return err
		}
		r := x.Shape.Rank()
		rows, cols := x.Shape[r-2], x.Shape[r-1]
		size := int64(o.DType.Size())
		xb, ob := x.Data(), o.Data()
		clear(ob)
		for i := range o.NumElements() {
			c := i % cols
			row := i / cols % rows
			if upper && c-row >= d || !upper && c-row <= d {
				copyElem(ob, i, xb, i, size)
			}
		}
		return nil
	}
	return newKernel(sig{op: "Trilu", minIn: 1, maxIn: 2, nOut: 1, deps: kernel.Deps{Value: []int{1}}}, k), nil
}

func newScatter(op string) kernel.Factory {
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		known := []string{"reduction"}
		if op != "ScatterND" {
			known = append(known, "axis")
		}
		if err := attrs.Check(known...); err != nil {
			return nil, wrapAttr(err)
		}
		red, err := attrs.String("reduction", "none")
		if err != nil {
			return nil, wrapAttr(err)
		}
		switch red {
		case "none", "add", "mul", "max", "min":
		default:
			return nil, fmt.Errorf("ops: %s: reduction %q", op, red)
		}
		axis, err := attrs.Int("axis", 0)
		if err != nil {
			return nil, wrapAttr(err)
		}
		k := &simple{}
		k.inferF = func(in, out []*kernel.Tensor) error {
			x, ix, up := in[0], in[1], in[2]
			if !isIndex(ix.DType) {
				return fmt.Errorf("input indices has dtype %v, want int32 or int64", ix.DType)
			}
			if err := checkSameDType(up, "updates", x, "data"); err != nil {
				return err
			}
			if red != "none" && lowPrecision(x.DType) {
				return fmt.Errorf("input data has dtype %v, which reduction %s does not take: only none moves the low-precision dtypes", x.DType, red)
			}
			if op == "ScatterND" {
				q := ix.Shape.Rank()
				if q < 1 || ix.Shape[q-1] > int64(x.Shape.Rank()) {
					return fmt.Errorf("indices %v do not address data %v", ix.Shape, x.Shape)
				}
				want := append(ix.Shape[:q-1].Clone(), x.Shape[ix.Shape[q-1]:]...)
				if !up.Shape.Equal(want) {
					return fmt.Errorf("updates %v, want %v", up.Shape, want)
				}
			} else {
				if _, err := kernel.NormAxis(axis, x.Shape.Rank()); err != nil {
					return err
				}
				if !up.Shape.Equal(ix.Shape) || ix.Shape.Rank() != x.Shape.Rank() {
					return fmt.Errorf("indices %v and updates %v must match, with the rank of data %v", ix.Shape, up.Shape, x.Shape)
				}
			}
			setShape(out[0], x.Shape, x.DType)
			return nil
		}
		combine := func(dt kernel.DType, b []byte, at int64, v []byte, vi int64) {
			switch red {
			case "none":
				copyElem(b, at, v, vi, int64(dt.Size()))
				return
			case "max", "min":
				var keep bool
				if dt.IsFloat() {
					p, q := loadF(dt, b, at), loadF(dt, v, vi)
					keep = red == "max" && p > q || red == "min" && p < q
				} else {
					p, q := loadOrd(dt, b, at), loadOrd(dt, v, vi)
					if dt == kernel.Bool {
						p, q = min(p, 1), min(q, 1)
					}
					keep = red == "max" && p > q || red == "min" && p < q
				}
				if !keep {
					copyElem(b, at, v, vi, int64(dt.Size()))
				}
				return
			}
			if !dt.IsFloat() {
				// Integers add and multiply in int64 and wrap to the type,
				// as C++ (onnxruntime) does: exact where float64 would round
				// beyond 2^53.
				p, q := loadI(dt, b, at), loadI(dt, v, vi)
				if red == "add" {
					p += q
				} else {
					p *= q
				}
				storeI(dt, b, at, p)
				return
			}
			p, q := loadF(dt, b, at), loadF(dt, v, vi)
			switch red {
			case "add":
				p += q
			case "mul":
				p *= q
			}
			storeF(dt, b, at, p)
		}
		var idx []int64
		k.computeF = func(a *kernel.Args) error {
			x, ix, up, o := a.In[0], a.In[1], a.In[2], a.Out[0]
			ob, ib, ub := o.Data(), ix.Data(), up.Data()
			copy(ob, x.Data()[:x.Bytes()])
			r := x.Shape.Rank()
			bound := func(j, d int64) (int64, error) {
				if j < -d || j >= d {
					return 0, fmt.Errorf("index %d out of range [%d, %d)", j, -d, d)
				}
				if j < 0 {
					j += d
				}
				return j, nil
			}
			if op == "ScatterND" {
				q := ix.Shape.Rank()
				kk := ix.Shape[q-1]
				slice := x.Shape[kk:].NumElements()
				for t := range ix.Shape[:q-1].NumElements() {
					off := int64(0)
					for d := range kk {
						j, err := bound(loadI(ix.DType, ib, t*kk+d), x.Shape[d])
						if err != nil {
							return err
						}
						off = off*x.Shape[d] + j
					}
					for e := range slice {
						combine(o.DType, ob, off*slice+e, ub, t*slice+e)
					}
				}
				return nil
			}
			ax, _ := kernel.NormAxis(axis, r)
			idx = grownInts(idx, r)
			clear(idx)
			for i := range ix.NumElements() {
				j, err := bound(loadI(ix.DType, ib, i), x.Shape[ax])
				if err != nil {
					return err
				}
				off := int64(0)
				for d := range r {
					c := idx[d]
					if d == ax {
						c = j
					}
					if c >= x.Shape[d] {
						return fmt.Errorf("indices %v exceed data %v on axis %d", ix.Shape, x.Shape, d)
					}
					off = off*x.Shape[d] + c
				}
				combine(o.DType, ob, off, ub, i)
				for d := r - 1; d >= 0; d-- {
					idx[d]++
					if idx[d] < ix.Shape[d] {
						break
					}
					idx[d] = 0
				}
			}
			return nil
		}
		return newKernel(sig{op: op, minIn: 3, maxIn: 3, nOut: 1}, k), nil
	}
}

func newOneHot(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("axis"); err != nil {
		return nil, wrapAttr(err)
	}
	axis, err := attrs.Int("axis", -1)
	if err != nil {
		return nil, wrapAttr(err)
	}
	depthOf := func(t *kernel.Tensor) (int64, error) {
		if t.NumElements() != 1 || t.Host == nil {
			return 0, fmt.Errorf("input depth must be one value, have %v", t)
		}
		d := int64(loadF(t.DType, t.Host, 0))
		if d < 1 {
			return 0, fmt.Errorf("depth %d must be positive", d)
		}
		return d, nil
	}
	k := &simple{}
	k.inferF = func(in, out []*kernel.Tensor) error {
		ix, vals := in[0], in[2]
		if err := dtypeIn(ix, "indices", onnxNumericNoBF16...); err != nil {
			return err
		}
		if vals.NumElements() != 2 {
			return fmt.Errorf("input values has %d elements, want 2 (off, on)", vals.NumElements())
		}
		d, err := depthOf(in[1])
		if err != nil {
			return err
		}
		r := ix.Shape.Rank() + 1
		a, err := kernel.NormAxis(axis, r)
		if err != nil {
			return err
		}
		s := append(append(ix.Shape[:a].Clone(), d), ix.Shape[a:]...)
		setShape(out[0], s, vals.DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		ix, vals, o := a.In[0], a.In[2], a.Out[0]
		d, err := depthOf(a.In[1])
		if err != nil {
			return err
		}
		ax, _ := kernel.NormAxis(axis, ix.Shape.Rank()+1)
		outer, inner := ix.Shape[:ax].NumElements(), ix.Shape[ax:].NumElements()
		size := int64(o.DType.Size())
		ib, vb, ob := ix.Data(), vals.Data(), o.Data()
		if outer == 0 || inner == 0 {
			return nil // no output, whatever the depth
		}
		var done int64 // elements written since the last look at the run
		for p := range outer {
			for j := range d {
				// Large outputs take long at a match an element: the
				// run's end is checked every 64 Ki elements.
				if done += inner; done >= 1<<16 {
					if err := a.Err(); err != nil {
						return err
					}
					done = 0
				}
				for q := range inner {
					sel := int64(0)
					if oneHotMatch(ix.DType, ib, p*inner+q, j, d) {
						sel = 1
					}
					copyElem(ob, (p*d+j)*inner+q, vb, sel, size)
				}
			}
		}
		return nil
	}
	return newKernel(sig{op: "OneHot", minIn: 3, maxIn: 3, nOut: 1, deps: kernel.Deps{Value: []int{1}}}, k), nil
}

// oneHotMatch reports whether element i of OneHot's indices b (of dtype
// dt) selects position j of depth d. An integer index selects j when it
// is j, or j − d when negative (a uint64 one is never negative). A float
// index computes as onnxruntime's kernels do, in the index type (float16
// cast to float32): a negative one adds depth, rounded to that type, and
// the result must equal j converted to that type, so that a fractional
// index selects nothing and whole ones select as integers do.
func oneHotMatch(dt kernel.DType, b []byte, i, j, d int64) bool {
	switch dt {
	case kernel.Float32, kernel.Float16:
		v := float32(loadF(dt, b, i))
		if v < 0 {
			v += float32(d)
		}
		return v == float32(j)
	case kernel.Float64:
		v := loadF(dt, b, i)
		if v < 0 {
			v += float64(d)
		}
		return v == float64(j)
	}
	v := loadI(dt, b, i)
	if v < 0 && dt != kernel.Uint64 {
		v += d
	}
	return v == j
}

// castLike runs a Cast to the dtype of input 1, built when that dtype is
// first seen, with CastLike's saturate and round_mode.
type castLike struct {
	attrs kernel.Attrs
	casts map[kernel.DType]kernel.Kernel
	til   kernel.Tiling
}

func newCastLike(attrs kernel.Attrs) (kernel.Kernel, error) {
	if _, err := castAttrs(attrs); err != nil {
		return nil, err
	}
	k := &castLike{attrs: maps.Clone(attrs), casts: map[kernel.DType]kernel.Kernel{}}
	return newKernel(sig{op: "CastLike", minIn: 2, maxIn: 2, nOut: 1}, k), nil
}

func (k *castLike) cast(dt kernel.DType) (kernel.Kernel, error) {
	if c := k.casts[dt]; c != nil {
		return c, nil
	}
	attrs := maps.Clone(k.attrs)
	if attrs == nil {
		attrs = kernel.Attrs{}
	}
	attrs["to"] = dt
	c, err := newCast(attrs)
	if err != nil {
		return nil, err
	}
	k.casts[dt] = c
	return c, nil
}

func (k *castLike) infer(in, out []*kernel.Tensor) error {
	c, err := k.cast(in[1].DType)
	if err != nil {
		return err
	}
	return c.InferShape(in[:1], out)
}

func (k *castLike) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	c, err := k.cast(in[1].DType)
	if err != nil {
		return 0, err
	}
	if err := c.Resize(in[:1], out, &k.til); err != nil {
		return 0, err
	}
	e.Data = append(e.Data, k.til.Data...)
	return k.til.Workspace, nil
}

func (k *castLike) cost(in, out []*kernel.Tensor) device.Cost {
	c, err := k.cast(in[1].DType)
	if err != nil {
		return device.Cost{}
	}
	return c.Cost(in[:1], out)
}

func (k *castLike) compute(a *kernel.Args) error {
	c, err := k.cast(a.In[1].DType)
	if err != nil {
		return err
	}
	inner := *a
	inner.In = a.In[:1]
	return c.Compute(&inner)
}

// Einsum (equation; opset 12) sums products of its operands over the
// indices the equation's output omits: "ij,jk->ik" is a matrix product,
// "ii->i" a diagonal, "...ij->...ji" a batched transpose. Without "->",
// the output has the indices that appear once, in alphabetical order,
// after the broadcast "..." dimensions. Repeated indices within an
// operand select its diagonal; "..." dimensions broadcast numpy-style,
// and so does an index of extent 1 in one operand against the others'
// ("ij,ij->ij" with [1, 3] and [2, 3] is [2, 3]), as in numpy, PyTorch and
// onnxruntime.
// Numeric dtypes but bfloat16 (as ONNX's Einsum); floats accumulate in
// float64, integers in int64 (wrapping to the type).
type einsum struct {
	eq   string
	ins  [][]int // per operand, the label of each of its dimensions
	outL []int   // the output's labels
	nl   int     // labels in all
}

func newEinsum(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("equation"); err != nil {
		return nil, wrapAttr(err)
	}
	eq, err := attrs.String("equation", "")
	if err != nil {
		return nil, wrapAttr(err)
	}
	// An empty equation is one of a scalar operand, copied (numpy's
	// einsum("", x)); only a missing one is an error.
	if _, ok := attrs["equation"]; !ok {
		return nil, fmt.Errorf("ops: Einsum: attribute equation is required")
	}
	k := &einsum{eq: strings.ReplaceAll(eq, " ", "")}
	s := &simple{flops: 2}
	s.inferF = func(in, out []*kernel.Tensor) error {
		dims, err := k.parse(in)
		if err != nil {
			return err
		}
		for i, t := range in[1:] {
			if err := checkSameDType(t, fmt.Sprint(i+1), in[0], "0"); err != nil {
				return err
			}
		}
		if err := dtypeIn(in[0], "Inputs", onnxNumericNoBF16...); err != nil {
			return err
		}
		shape := make(kernel.Shape, len(k.outL))
		for i, l := range k.outL {
			shape[i] = dims[l]
		}
		setShape(out[0], shape, in[0].DType)
		return nil
	}
	s.computeF = func(a *kernel.Args) error { return k.run(a) }
	return newKernel(sig{op: "Einsum", minIn: 1, maxIn: -1, nOut: 1}, s), nil
}

// einsumPoll is how many terms Einsum sums between two checks that its
// run goes on.
const einsumPoll = 1 << 20

// parse maps the equation's labels onto the operands' dimensions and
// returns each label's extent; "..." becomes labels of its own.
func (k *einsum) parse(in []*kernel.Tensor) ([]int64, error) {
	lhs, rhs, explicit := strings.Cut(k.eq, "->")
	terms := strings.Split(lhs, ",")
	if len(terms) != len(in) {
		return nil, fmt.Errorf("equation %q has %d operands, the node %d inputs", k.eq, len(terms), len(in))
	}
	// Ellipsis rank: the largest any operand gives it.
	ell := 0
	for i, term := range terms {
		letters := strings.Count(strings.ReplaceAll(term, "...", ""), "")
		letters--
		if strings.Contains(term, "...") {
			if in[i].Shape.Rank() < letters {
				return nil, fmt.Errorf("equation term %q has %d indices besides \"...\", input %d has rank %d", term, letters, i, in[i].Shape.Rank())
			}
			ell = max(ell, in[i].Shape.Rank()-letters)
		} else if letters != in[i].Shape.Rank() {
			return nil, fmt.Errorf("equation term %q has %d indices, input %d has rank %d", term, letters, i, in[i].Shape.Rank())
		}
	}
	if ell < 0 {
		return nil, fmt.Errorf("equation %q names more dimensions than the inputs have", k.eq)
	}
	label := map[rune]int{}
	k.nl = ell // labels 0..ell-1 are the ellipsis dimensions
	lab := func(r rune) (int, error) {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return 0, fmt.Errorf("equation %q: %q is not an index letter", k.eq, r)
		}
		if l, ok := label[r]; ok {
			return l, nil
		}
		label[r] = k.nl
		k.nl++
		return k.nl - 1, nil
	}
	count := map[int]int{}
	k.ins = k.ins[:0]
	for i, term := range terms {
		var ls []int
		pre, post, has := strings.Cut(term, "...")
		for _, r := range pre {
			l, err := lab(r)
			if err != nil {
				return nil, err
			}
			ls = append(ls, l)
		}
		if has {
			r := in[i].Shape.Rank() - len([]rune(pre)) - len([]rune(post))
			for e := ell - r; e < ell; e++ {
				ls = append(ls, e)
			}
			for _, r := range post {
				l, err := lab(r)
				if err != nil {
					return nil, err
				}
				ls = append(ls, l)
			}
		}
		for _, l := range ls {
			count[l]++
		}
		k.ins = append(k.ins, ls)
	}
	k.outL = k.outL[:0]
	if explicit {
		pre, post, has := strings.Cut(rhs, "...")
		for _, r := range pre {
			l, ok := label[r]
			if !ok {
				return nil, fmt.Errorf("equation %q: output index %q is in no input", k.eq, r)
			}
			k.outL = append(k.outL, l)
		}
		if has {
			for e := range ell {
				k.outL = append(k.outL, e)
			}
			for _, r := range post {
				l, ok := label[r]
				if !ok {
					return nil, fmt.Errorf("equation %q: output index %q is in no input", k.eq, r)
				}
				k.outL = append(k.outL, l)
			}
		}
	} else {
		for e := range ell {
			k.outL = append(k.outL, e)
		}
		for r := 'A'; r <= 'z'; r++ {
			if l, ok := label[r]; ok && count[l] == 1 {
				k.outL = append(k.outL, l)
			}
		}
	}
	dims := make([]int64, k.nl)
	for i := range dims {
		dims[i] = -1
	}
	// An index of extent 1 in one operand broadcasts against the others'
	// (numpy, PyTorch and onnxruntime do so); an index repeated within an
	// operand (a diagonal) has one extent there.
	for i, ls := range k.ins {
		for j, l := range ls {
			d := in[i].Shape[j]
			for j2 := range j {
				if ls[j2] == l && in[i].Shape[j2] != d {
					return nil, fmt.Errorf("equation %q: input %d repeats index %d with extents %d and %d", k.eq, i, l, in[i].Shape[j2], d)
				}
			}
			switch {
			case dims[l] < 0 || dims[l] == 1:
				dims[l] = d
			case d == dims[l] || d == 1:
			default:
				return nil, fmt.Errorf("equation %q: index %d is %d in one place and %d in another", k.eq, l, dims[l], d)
			}
		}
	}
	for i := range dims {
		if dims[i] < 0 { // an ellipsis dimension no operand has
			dims[i] = 1
		}
	}
	return dims, nil
}

func (k *einsum) run(a *kernel.Args) error {
	dims, err := k.parse(a.In)
	if err != nil {
		return err
	}
	o := a.Out[0]
	float := o.DType.IsFloat()
	accF := make([]float64, o.NumElements())
	accI := make([]int64, o.NumElements())
	// Strides of each operand and of the output per label (0 where the
	// label is absent, or a broadcast unit dimension).
	strides := make([][]int64, len(a.In)+1)
	for i, ls := range append(append([][]int{}, k.ins...), k.outL) {
		st := make([]int64, k.nl)
		var shape kernel.Shape
		if i < len(a.In) {
			shape = a.In[i].Shape
		} else {
			shape = o.Shape
		}
		acc := int64(1)
		for j := len(ls) - 1; j >= 0; j-- {
			if shape[j] != 1 || dims[ls[j]] == 1 {
				st[ls[j]] += acc
			}
			acc *= shape[j]
		}
		strides[i] = st
	}
	idx := make([]int64, k.nl)
	total := int64(1)
	for _, d := range dims {
		total *= d
	}
	if total > 1<<32 {
		return fmt.Errorf("equation %q sums over %d terms: too many", k.eq, total)
	}
	startSums(accF, total) // every output has total/len(accF) terms
	offs := make([]int64, len(strides))
	for n := range total {
		if n%einsumPoll == 0 {
			if err := a.Err(); err != nil {
				return err // the run ended (kernel.Args.Ctx)
			}
		}
		if float {
			p := 1.0
			for i, t := range a.In {
				p *= loadF(t.DType, t.Data(), offs[i])
			}
			accF[offs[len(a.In)]] += p
		} else {
			p := int64(1)
			for i, t := range a.In {
				p *= loadI(t.DType, t.Data(), offs[i])
			}
			accI[offs[len(a.In)]] += p
		}
		for l := k.nl - 1; l >= 0; l-- {
			idx[l]++
			for i := range offs {
				offs[i] += strides[i][l]
			}
			if idx[l] < dims[l] {
				break
			}
			for i := range offs {
				offs[i] -= strides[i][l] * dims[l]
			}
			idx[l] = 0
		}
	}
	ob := o.Data()
	for i := range o.NumElements() {
		if float {
			storeF(o.DType, ob, i, accF[i])
		} else {
			storeI(o.DType, ob, i, accI[i])
		}
	}
	return nil
}

// emptyBeside reports whether an axis of s other than a is empty.
func emptyBeside(s kernel.Shape, a int) bool {
	for i, d := range s {
		if i != a && d == 0 {
			return true
		}
	}
	return false
}
