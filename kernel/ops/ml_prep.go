package ops

import (
	"fmt"
	"math"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// The feature preprocessing ops of ai.onnx.ml: Scaler, Normalizer,
// Binarizer, Imputer, ArrayFeatureExtractor, OneHotEncoder and
// FeatureVectorizer (see mlOps).

// mlElem is an element-wise ml op: infer gives the output dtype and shape
// from X's, run computes.
type mlElem struct {
	check func(x *kernel.Tensor) error
	shape func(x *kernel.Tensor) (kernel.Shape, kernel.DType)
	run   func(a *kernel.Args) error
}

func (m *mlElem) infer(in, out []*kernel.Tensor) error {
	if err := m.check(in[0]); err != nil {
		return err
	}
	s, dt := m.shape(in[0])
	setShape(out[0], s, dt)
	return nil
}

func (m *mlElem) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	return 0, m.check(in[0])
}

func (m *mlElem) cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{FLOPs: float64(in[0].NumElements()), Bytes: float64(in[0].Bytes() + out[0].Bytes())}
}

func (m *mlElem) compute(a *kernel.Args) error {
	if err := m.check(a.In[0]); err != nil {
		return err
	}
	return m.run(a)
}

// mlDTypes checks that x has one of dts (op names the op for the error).
func mlDTypes(x *kernel.Tensor, op string, dts ...kernel.DType) error {
	for _, dt := range dts {
		if x.DType == dt {
			return nil
		}
	}
	// (A copy, so that dts does not escape and a call allocates nothing.)
	return fmt.Errorf("input X has dtype %v: onnxruntime's %s takes %v", x.DType, op, append([]kernel.DType(nil), dts...))
}

// mlStride is the feature count of X as onnxruntime's Scaler and Imputer
// read it: the first dimension of a 1-D X, else the second.
func mlStride(x *kernel.Tensor) int64 {
	if x.Shape.Rank() == 1 {
		return x.Shape[0]
	}
	return x.Shape[1]
}

func sameShapeF32(x *kernel.Tensor) (kernel.Shape, kernel.DType) { return x.Shape, kernel.Float32 }
func sameShape(x *kernel.Tensor) (kernel.Shape, kernel.DType)    { return x.Shape, x.DType }

// mlCheckAttrs checks the attribute names and the opset attribute.
func mlCheckAttrs(attrs kernel.Attrs, known ...string) error {
	if err := attrs.Check(known...); err != nil {
		return err
	}
	_, err := attrs.Opset(1)
	return err
}

// mlModel is the factory of a regressor or classifier op of one input X:
// a classifier has two outputs (the labels Y and the scores Z), a
// regressor one.
func mlModel(op string, classifier bool, parse func(kernel.Attrs) (impl, error)) kernel.Factory {
	if classifier {
		return mlFactory(op, 1, 1, 2, parse)
	}
	return mlFactory(op, 1, 1, 1, parse)
}

// mlFactory is the factory of an ML op of minIn to maxIn inputs (-1: any
// number) and nOut outputs whose impl parse builds from the attributes.
func mlFactory(op string, minIn, maxIn, nOut int, parse func(kernel.Attrs) (impl, error)) kernel.Factory {
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		k, err := parse(attrs)
		if err != nil {
			return nil, fmt.Errorf("ops: %s: %w", op, err)
		}
		return newKernel(sig{op: op, minIn: minIn, maxIn: maxIn, nOut: nOut}, k), nil
	}
}

// Scaler.
func parseMLScaler(attrs kernel.Attrs) (impl, error) {
	if err := mlCheckAttrs(attrs, "scale", "offset"); err != nil {
		return nil, err
	}
	scale, err := attrs.Floats("scale", nil)
	if err != nil {
		return nil, err
	}
	offset, err := attrs.Floats("offset", nil)
	if err != nil {
		return nil, err
	}
	if len(scale) == 0 {
		return nil, fmt.Errorf("attribute \"scale\" is missing or empty")
	}
	if len(offset) != len(scale) {
		return nil, fmt.Errorf("attributes \"scale\" and \"offset\" have %d and %d values: want one length", len(scale), len(offset))
	}
	sc, off := mlF32s(scale), mlF32s(offset)
	m := &mlElem{shape: sameShapeF32}
	m.check = func(x *kernel.Tensor) error {
		if err := mlDTypes(x, "Scaler", kernel.Float32, kernel.Float64, kernel.Int64, kernel.Int32); err != nil {
			return err
		}
		if x.Shape.Rank() == 0 {
			return fmt.Errorf("input X is a scalar: want rank 1 or more")
		}
		if s := mlStride(x); int64(len(sc)) != s && len(sc) != 1 {
			return fmt.Errorf("input X %v has %d features: attributes \"scale\" and \"offset\" have %d values, want %d or 1", x.Shape, s, len(sc), s)
		}
		return nil
	}
	m.run = func(a *kernel.Args) error {
		x := a.In[0]
		b, y := x.Data(), kernel.Float32s(a.Out[0].Data())
		stride := mlStride(x)
		per := int64(len(sc)) == stride
		for i := range y {
			j := 0
			if per {
				j = int(int64(i) % stride)
			}
			switch x.DType {
			case kernel.Float64:
				d := kernel.Float64s(b)[i] - float64(off[j])
				y[i] = float32(d * float64(sc[j]))
			default:
				d := mlX32(x.DType, b, int64(i)) - off[j]
				y[i] = d * sc[j]
			}
		}
		return nil
	}
	return m, nil
}

// Normalizer.
const (
	mlNormMax = iota
	mlNormL1
	mlNormL2
)

func parseMLNormalizer(attrs kernel.Attrs) (impl, error) {
	if err := mlCheckAttrs(attrs, "norm"); err != nil {
		return nil, err
	}
	s, err := attrs.String("norm", "MAX")
	if err != nil {
		return nil, err
	}
	norm := map[string]int{"MAX": mlNormMax, "L1": mlNormL1, "L2": mlNormL2}
	mode, ok := norm[s]
	if !ok {
		return nil, fmt.Errorf("attribute \"norm\" is %q, want MAX, L1 or L2", s)
	}
	m := &mlElem{shape: sameShapeF32}
	m.check = func(x *kernel.Tensor) error {
		if err := mlDTypes(x, "Normalizer", kernel.Float32, kernel.Float64, kernel.Int64, kernel.Int32); err != nil {
			return err
		}
		if r := x.Shape.Rank(); r < 1 || r > 2 {
			return fmt.Errorf("input X %v: want rank 1 or 2", x.Shape)
		}
		return nil
	}
	m.run = func(a *kernel.Args) error {
		x := a.In[0]
		b, y := x.Data(), kernel.Float32s(a.Out[0].Data())
		c := mlStride(x)
		if c == 0 {
			return nil
		}
		rows := int64(len(y)) / c
		for r := range rows {
			yr := y[r*c : (r+1)*c]
			switch mode {
			case mlNormMax:
				mx := float32(-math.MaxFloat32)
				for k := range c {
					if v := mlX32(x.DType, b, r*c+k); mx < v {
						mx = v
					}
				}
				for k := range c {
					v := mlX32(x.DType, b, r*c+k)
					if mx != 0 {
						v /= mx
					}
					yr[k] = v
				}
			case mlNormL1:
				var sum float32
				for k := range c {
					sum += mlAbs32(x.DType, b, r*c+k)
				}
				for k := range c {
					v := mlX32(x.DType, b, r*c+k)
					if sum != 0 {
						v /= sum
					}
					yr[k] = v
				}
			default:
				var sum float32
				for k := range c {
					yr[k] = mlSquare32(x.DType, b, r*c+k)
					sum += yr[k]
				}
				for k := range c {
					if sum == 0 {
						yr[k] = mlX32(x.DType, b, r*c+k)
						continue
					}
					v := sqrtf(yr[k] / sum)
					if mlNeg(x.DType, b, r*c+k) {
						v = -v
					}
					yr[k] = v
				}
			}
		}
		return nil
	}
	return m, nil
}

// mlAbs32 is |x[i]| in x's type (an integer's wraps), rounded to float32.
func mlAbs32(dt kernel.DType, b []byte, i int64) float32 {
	switch dt {
	case kernel.Float32:
		return float32(math.Abs(float64(kernel.Float32s(b)[i])))
	case kernel.Float64:
		return float32(math.Abs(kernel.Float64s(b)[i]))
	case kernel.Int64:
		v := kernel.Int64s(b)[i]
		if v < 0 {
			v = -v
		}
		return float32(v)
	}
	v := kernel.Int32s(b)[i]
	if v < 0 {
		v = -v
	}
	return float32(v)
}

// mlSquare32 is x[i]·x[i] in x's type (an integer's wraps), rounded to
// float32.
func mlSquare32(dt kernel.DType, b []byte, i int64) float32 {
	switch dt {
	case kernel.Float32:
		v := kernel.Float32s(b)[i]
		return v * v
	case kernel.Float64:
		v := kernel.Float64s(b)[i]
		return float32(v * v)
	case kernel.Int64:
		v := kernel.Int64s(b)[i]
		return float32(v * v)
	}
	v := kernel.Int32s(b)[i]
	return float32(v * v)
}

// mlNeg reports x[i] < 0.
func mlNeg(dt kernel.DType, b []byte, i int64) bool {
	switch dt {
	case kernel.Float32:
		return kernel.Float32s(b)[i] < 0
	case kernel.Float64:
		return kernel.Float64s(b)[i] < 0
	case kernel.Int64:
		return kernel.Int64s(b)[i] < 0
	}
	return kernel.Int32s(b)[i] < 0
}

// Binarizer.
func parseMLBinarizer(attrs kernel.Attrs) (impl, error) {
	if err := mlCheckAttrs(attrs, "threshold"); err != nil {
		return nil, err
	}
	t, err := attrs.Float("threshold", 0)
	if err != nil {
		return nil, err
	}
	thr := float32(t)
	m := &mlElem{shape: sameShape}
	m.check = func(x *kernel.Tensor) error { return mlDTypes(x, "Binarizer", kernel.Float32) }
	m.run = func(a *kernel.Args) error {
		x, y := kernel.Float32s(a.In[0].Data()), kernel.Float32s(a.Out[0].Data())
		for i, v := range x {
			if v != v {
				return fmt.Errorf("input X[%d] is NaN", i)
			}
			y[i] = 0
			if v > thr {
				y[i] = 1
			}
		}
		return nil
	}
	return m, nil
}

// Imputer.
func parseMLImputer(attrs kernel.Attrs) (impl, error) {
	if err := mlCheckAttrs(attrs, "imputed_value_floats", "imputed_value_int64s", "replaced_value_float", "replaced_value_int64"); err != nil {
		return nil, err
	}
	fl, err := attrs.Floats("imputed_value_floats", nil)
	if err != nil {
		return nil, err
	}
	in, err := attrs.Ints("imputed_value_int64s", nil)
	if err != nil {
		return nil, err
	}
	rf, err := attrs.Float("replaced_value_float", 0)
	if err != nil {
		return nil, err
	}
	ri, err := attrs.Int("replaced_value_int64", 0)
	if err != nil {
		return nil, err
	}
	if (len(fl) == 0) == (len(in) == 0) {
		return nil, fmt.Errorf("attributes \"imputed_value_floats\" and \"imputed_value_int64s\": want exactly one non-empty")
	}
	ff, repF := mlF32s(fl), float32(rf)
	m := &mlElem{shape: sameShape}
	m.check = func(x *kernel.Tensor) error {
		if err := mlDTypes(x, "Imputer", kernel.Float32, kernel.Int64); err != nil {
			return err
		}
		if x.Shape.Rank() == 0 {
			return fmt.Errorf("input X is a scalar: want rank 1 or more")
		}
		if x.DType == kernel.Float32 && len(ff) == 0 {
			return fmt.Errorf("input X is float32: attribute \"imputed_value_floats\" is empty (the int64 values are for int64 X)")
		}
		if x.DType == kernel.Int64 && len(in) == 0 {
			return fmt.Errorf("input X is int64: attribute \"imputed_value_int64s\" is empty (the float values are for float32 X)")
		}
		return nil
	}
	m.run = func(a *kernel.Args) error {
		x := a.In[0]
		stride := mlStride(x)
		if x.DType == kernel.Float32 {
			xs, y := kernel.Float32s(x.Data()), kernel.Float32s(a.Out[0].Data())
			per := int64(len(ff)) == stride
			for i, v := range xs {
				if v == repF || v != v && repF != repF {
					if per {
						v = ff[int64(i)%stride]
					} else {
						v = ff[0]
					}
				}
				y[i] = v
			}
			return nil
		}
		xs, y := kernel.Int64s(x.Data()), kernel.Int64s(a.Out[0].Data())
		per := int64(len(in)) == stride
		for i, v := range xs {
			if v == ri {
				if per {
					v = in[int64(i)%stride]
				} else {
					v = in[0]
				}
			}
			y[i] = v
		}
		return nil
	}
	return m, nil
}

// OneHotEncoder.
func parseMLOneHot(attrs kernel.Attrs) (impl, error) {
	if err := mlCheckAttrs(attrs, "cats_int64s", "cats_strings", "zeros"); err != nil {
		return nil, err
	}
	if _, ok := attrs["cats_strings"]; ok {
		return nil, notImplemented("attribute \"cats_strings\": string categories are not implemented (pipert has no string tensors)")
	}
	cats, err := attrs.Ints("cats_int64s", nil)
	if err != nil {
		return nil, err
	}
	if len(cats) == 0 {
		return nil, fmt.Errorf("attribute \"cats_int64s\" is missing or empty")
	}
	zeros, err := attrs.Int("zeros", 1)
	if err != nil {
		return nil, err
	}
	index := make(map[int64]int64, len(cats))
	for i, c := range cats {
		index[c] = int64(i) // a repeated category: its last position
	}
	n := int64(len(cats))
	m := &mlElem{}
	m.shape = func(x *kernel.Tensor) (kernel.Shape, kernel.DType) {
		s := append(append(kernel.Shape{}, x.Shape...), n)
		return s, kernel.Float32
	}
	m.check = func(x *kernel.Tensor) error {
		if err := mlDTypes(x, "OneHotEncoder", kernel.Int64, kernel.Float32, kernel.Float64); err != nil {
			return err
		}
		if x.Shape.Rank() > 2 {
			return fmt.Errorf("input X %v: want rank 2 or less", x.Shape)
		}
		return nil
	}
	m.run = func(a *kernel.Args) error {
		x := a.In[0]
		b, y := x.Data(), kernel.Float32s(a.Out[0].Data())
		clear(y)
		for i := range x.NumElements() {
			var v int64
			switch x.DType {
			case kernel.Int64:
				v = kernel.Int64s(b)[i]
			case kernel.Float32:
				v = mlTrunc64(float64(kernel.Float32s(b)[i]))
			default:
				v = mlTrunc64(kernel.Float64s(b)[i])
			}
			if j, ok := index[v]; ok {
				y[i*n+j] = 1
			} else if zeros == 0 {
				return fmt.Errorf("input X[%d] (%d) is no category of \"cats_int64s\" and attribute \"zeros\" is 0", i, v)
			}
		}
		return nil
	}
	return m, nil
}

// mlTrunc64 converts v to int64 as x86-64 does: toward zero, NaN and
// values out of range to the minimum int64.
func mlTrunc64(v float64) int64 {
	if v != v || v >= 1<<63 || v < -(1<<63) {
		return math.MinInt64
	}
	return int64(v)
}

// mlAFE is ArrayFeatureExtractor.
type mlAFE struct{}

func parseMLAFE(attrs kernel.Attrs) (impl, error) {
	if err := mlCheckAttrs(attrs); err != nil {
		return nil, err
	}
	return mlAFE{}, nil
}

func (mlAFE) check(x, idx *kernel.Tensor) error {
	if err := mlDTypes(x, "ArrayFeatureExtractor", kernel.Float32, kernel.Float64, kernel.Int64, kernel.Int32); err != nil {
		return err
	}
	if x.Shape.Rank() == 0 {
		return fmt.Errorf("input X is a scalar: want rank 1 or more")
	}
	if idx.DType != kernel.Int64 {
		return fmt.Errorf("input Y has dtype %v, want int64", idx.DType)
	}
	if idx.NumElements() == 0 {
		return fmt.Errorf("input Y %v has no indices", idx.Shape)
	}
	return nil
}

func (f mlAFE) infer(in, out []*kernel.Tensor) error {
	x, idx := in[0], in[1]
	if err := f.check(x, idx); err != nil {
		return err
	}
	n := idx.NumElements()
	if x.Shape.Rank() == 1 {
		setShape(out[0], kernel.Shape{1, n}, x.DType)
		return nil
	}
	s := append(kernel.Shape{}, x.Shape...)
	s[len(s)-1] = n
	setShape(out[0], s, x.DType)
	return nil
}

func (f mlAFE) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	return 0, f.check(in[0], in[1])
}

func (mlAFE) cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{Bytes: float64(in[1].Bytes() + 2*out[0].Bytes())}
}

func (f mlAFE) compute(a *kernel.Args) error {
	x, idxT := a.In[0], a.In[1]
	if err := f.check(x, idxT); err != nil {
		return err
	}
	idx := kernel.Int64s(idxT.Data())
	stride := x.Shape[x.Shape.Rank()-1]
	for i, v := range idx {
		if v < 0 || v >= stride {
			return fmt.Errorf("input Y[%d] is %d: out of range [0, %d)", i, v, stride)
		}
	}
	es := int64(x.DType.Size())
	xb, yb := x.Data(), a.Out[0].Data()
	rows := int64(0)
	if stride > 0 {
		rows = x.NumElements() / stride
	}
	n := int64(len(idx))
	for r := range rows {
		for j, v := range idx {
			src := (r*stride + v) * es
			dst := (r*n + int64(j)) * es
			copy(yb[dst:dst+es], xb[src:src+es])
		}
	}
	return nil
}

// mlFV is FeatureVectorizer.
type mlFV struct {
	dims  []int64
	total int64
}

func parseMLFV(attrs kernel.Attrs) (impl, error) {
	if err := mlCheckAttrs(attrs, "inputdimensions"); err != nil {
		return nil, err
	}
	d, err := attrs.Ints("inputdimensions", nil)
	if err != nil {
		return nil, err
	}
	if len(d) == 0 {
		return nil, fmt.Errorf("attribute \"inputdimensions\" is missing or empty")
	}
	f := &mlFV{dims: d}
	for i, v := range d {
		if v < 0 || v > 1<<40 {
			return nil, fmt.Errorf("attribute \"inputdimensions\"[%d] is %d, want ≥ 0", i, v)
		}
		f.total += v
	}
	return f, nil
}

// rows is the batch size of an input: 1 for a 1-D one, else its first
// dimension; width the rest.
func mlFVRows(x *kernel.Tensor) (rows, width int64) {
	if x.Shape.Rank() == 1 {
		return 1, x.Shape[0]
	}
	rows = x.Shape[0]
	width = 1
	for _, d := range x.Shape[1:] {
		width *= d
	}
	return rows, width
}

func (f *mlFV) check(in []*kernel.Tensor) error {
	if len(in) != len(f.dims) {
		return fmt.Errorf("%d inputs: attribute \"inputdimensions\" has %d values, want one per input", len(in), len(f.dims))
	}
	for i, x := range in {
		if x.DType != kernel.Float32 && x.DType != kernel.Float64 && x.DType != kernel.Int64 && x.DType != kernel.Int32 {
			return fmt.Errorf("input %d has dtype %v, want float32, float64, int64 or int32", i, x.DType)
		}
		if x.DType != in[0].DType {
			return fmt.Errorf("input %d has dtype %v, input 0 %v: want one dtype, as onnxruntime", i, x.DType, in[0].DType)
		}
		if x.Shape.Rank() == 0 {
			return fmt.Errorf("input %d is a scalar: want rank 1 or more", i)
		}
		n0, _ := mlFVRows(in[0])
		if n, _ := mlFVRows(x); n > n0 {
			return fmt.Errorf("input %d %v has %d rows, more than input 0's %d", i, x.Shape, n, n0)
		}
	}
	return nil
}

func (f *mlFV) infer(in, out []*kernel.Tensor) error {
	if err := f.check(in); err != nil {
		return err
	}
	n, _ := mlFVRows(in[0])
	setShape(out[0], kernel.Shape{n, f.total}, kernel.Float32)
	return nil
}

func (f *mlFV) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) { return 0, f.check(in) }

func (f *mlFV) cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{Bytes: float64(2 * out[0].Bytes())}
}

func (f *mlFV) compute(a *kernel.Args) error {
	if err := f.check(a.In); err != nil {
		return err
	}
	y := kernel.Float32s(a.Out[0].Data())
	clear(y)
	off := int64(0)
	for i, x := range a.In {
		rows, width := mlFVRows(x)
		w := min(width, f.dims[i])
		b := x.Data()
		for r := range rows {
			for k := range w {
				y[r*f.total+off+k] = mlX32(x.DType, b, r*width+k)
			}
		}
		off += f.dims[i]
	}
	return nil
}
