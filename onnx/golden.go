package onnx

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"

	"github.com/pipert/pipert/kernel"
)

// Golden is a file of reference cases for a model: inputs and the outputs
// a reference runtime computed from them. The JSON form is
//
//	{"model": …, "runtime": …, "cases": [{"name": …,
//	  "inputs": {NAME: {"dtype": "float32", "shape": [1, 3], "data": [...]}},
//	  "outputs": {...}}]}
//
// with data flat and row-major; dtypes float32, float64, float16, bfloat16,
// int64, int32, int16, int8, uint64, uint32, uint16, uint8 and bool (data
// 0/1 or true/false). Integers are exact JSON integers (a uint64 up to
// 2^64−1); float16 and bfloat16 data are numbers, rounded to the type. A
// float value JSON cannot hold is the string "NaN", "Infinity" or
// "-Infinity".
type Golden struct {
	Model, Runtime string
	Cases          []Case
}

// Case is one golden case.
type Case struct {
	Name            string
	Inputs, Outputs map[string]*kernel.Tensor
}

// InputShapes returns the case's input shapes, for Options.Shapes.
func (c *Case) InputShapes() map[string][]int64 {
	if c == nil {
		return nil
	}
	m := make(map[string][]int64, len(c.Inputs))
	for name, t := range c.Inputs {
		m[name] = t.Shape.Clone()
	}
	return m
}

type goldenJSON struct {
	Model   string `json:"model"`
	Runtime string `json:"runtime"`
	Cases   []struct {
		Name    string                      `json:"name"`
		Inputs  map[string]goldenTensorJSON `json:"inputs"`
		Outputs map[string]goldenTensorJSON `json:"outputs"`
	} `json:"cases"`
}

type goldenTensorJSON struct {
	DType string          `json:"dtype"`
	Shape []int64         `json:"shape"`
	Data  json.RawMessage `json:"data"`
}

// ReadGolden reads a golden file.
func ReadGolden(path string) (*Golden, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	g, err := DecodeGolden(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

// DecodeGolden reads a golden file's JSON from r.
func DecodeGolden(r io.Reader) (*Golden, error) {
	if r == nil {
		return nil, errors.New("onnx: golden: nil reader")
	}
	var j goldenJSON
	dec := json.NewDecoder(r)
	if err := dec.Decode(&j); err != nil {
		return nil, fmt.Errorf("onnx: golden: %w", err)
	}
	g := &Golden{Model: j.Model, Runtime: j.Runtime}
	for i, c := range j.Cases {
		gc := Case{Name: c.Name, Inputs: map[string]*kernel.Tensor{}, Outputs: map[string]*kernel.Tensor{}}
		if gc.Name == "" {
			gc.Name = fmt.Sprintf("case%d", i)
		}
		for _, side := range []struct {
			src map[string]goldenTensorJSON
			dst map[string]*kernel.Tensor
		}{{c.Inputs, gc.Inputs}, {c.Outputs, gc.Outputs}} {
			for name, tj := range side.src {
				t, err := tj.tensor()
				if err != nil {
					return nil, fmt.Errorf("onnx: golden: case %q, tensor %q: %w", gc.Name, name, err)
				}
				side.dst[name] = t
			}
		}
		if len(gc.Outputs) == 0 {
			return nil, fmt.Errorf("onnx: golden: case %q has no outputs", gc.Name)
		}
		g.Cases = append(g.Cases, gc)
	}
	if len(g.Cases) == 0 {
		return nil, fmt.Errorf("onnx: golden: no cases")
	}
	return g, nil
}

func (tj goldenTensorJSON) tensor() (*kernel.Tensor, error) {
	dt, err := kernel.ParseDType(tj.DType)
	if err != nil {
		return nil, err
	}
	for _, d := range tj.Shape {
		if d < 0 {
			return nil, fmt.Errorf("negative dimension in shape %v", tj.Shape)
		}
	}
	shape := kernel.Shape(tj.Shape)
	if shape == nil {
		shape = kernel.Shape{}
	}
	// The count grows dimension by dimension, so that no product wraps.
	n := int64(1)
	for _, d := range shape {
		if d > 0 && n > (1<<28)/d {
			return nil, fmt.Errorf("shape %v is too large", tj.Shape)
		}
		n *= d
	}
	t := kernel.New(dt, shape...)
	var raw []json.RawMessage
	if err := json.Unmarshal(tj.Data, &raw); err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	if int64(len(raw)) != n {
		return nil, fmt.Errorf("data has %d values, shape %v holds %d", len(raw), tj.Shape, n)
	}
	for i, r := range raw {
		if dt == kernel.Bool {
			var b bool
			if json.Unmarshal(r, &b) == nil {
				if b {
					t.Host[i] = 1
				}
				continue
			}
		}
		var v json.Number
		if dt.IsFloat() {
			// JSON has no NaN or infinities: they come as strings.
			var s string
			if json.Unmarshal(r, &s) == nil {
				f, ok := nonFinite[s]
				if !ok {
					return nil, fmt.Errorf("data[%d]: %q is not a number (want a number, \"NaN\", \"Infinity\" or \"-Infinity\")", i, s)
				}
				storeGolden(t, i, f)
				continue
			}
		}
		if err := json.Unmarshal(r, &v); err != nil {
			return nil, fmt.Errorf("data[%d]: %w", i, err)
		}
		switch {
		case dt == kernel.Uint64:
			x, err := strconv.ParseUint(v.String(), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("data[%d]: %w", i, err)
			}
			kernel.Uint64s(t.Host)[i] = x
		case !dt.IsFloat():
			x, err := v.Int64()
			if err != nil {
				return nil, fmt.Errorf("data[%d]: %w", i, err)
			}
			if lo, hi := dt.IntRange(); x < lo || x > hi {
				return nil, fmt.Errorf("data[%d]: %d is out of the %v range", i, x, dt)
			}
			switch dt {
			case kernel.Int64:
				kernel.Int64s(t.Host)[i] = x
			case kernel.Int32, kernel.Uint32:
				kernel.Uint32s(t.Host)[i] = uint32(x)
			case kernel.Int16, kernel.Uint16:
				kernel.Uint16s(t.Host)[i] = uint16(x)
			default:
				t.Host[i] = byte(x)
			}
		default:
			x, err := v.Float64()
			if err != nil {
				return nil, fmt.Errorf("data[%d]: %w", i, err)
			}
			storeGolden(t, i, x)
		}
	}
	return t, nil
}

// nonFinite are the strings a golden file writes for the float values
// JSON cannot hold.
var nonFinite = map[string]float64{"NaN": math.NaN(), "Infinity": math.Inf(1), "-Infinity": math.Inf(-1)}

// storeGolden stores x as element i of float tensor t.
func storeGolden(t *kernel.Tensor, i int, x float64) {
	switch t.DType {
	case kernel.Float32:
		kernel.Float32s(t.Host)[i] = float32(x)
	case kernel.Float64:
		kernel.Float64s(t.Host)[i] = x
	case kernel.Float16:
		kernel.Uint16s(t.Host)[i] = kernel.F32ToF16(float32(x))
	case kernel.BFloat16:
		kernel.Uint16s(t.Host)[i] = kernel.F32ToBF16(float32(x))
	default:
		if t.DType.IsFloat() { // the float 8 and float 4 types
			t.Host[i] = kernel.F64ToF8(t.DType, x, true)
		}
	}
}

// Mismatch is where an output differs most from its reference.
type Mismatch struct {
	Output    string
	Index     int64
	Got, Want float64
	// MaxAbs is the largest absolute difference over every output.
	MaxAbs float64
}

// Compare compares outputs with a case's reference outputs: floats to an
// absolute tolerance tol, other dtypes exactly (uint64 and int64 too,
// beyond 2^53). It returns the largest
// absolute error and, when it exceeds tol (or an output is missing, or
// differs in dtype or shape), an error naming the worst element.
func (c *Case) Compare(got map[string]*kernel.Tensor, tol float64) (float64, error) {
	return c.CompareRel(got, tol, 0)
}

// CompareRel is Compare where a float element passes when its absolute
// error is at most atol + rtol·|want| (numpy's allclose): a relative
// tolerance for outputs of large magnitude, or of a narrow float type
// whose rounding differs between runtimes (float16: rtol about 1e-3 a
// rounding). The error names the element furthest beyond its tolerance.
func (c *Case) CompareRel(got map[string]*kernel.Tensor, atol, rtol float64) (float64, error) {
	if c == nil {
		return 0, errors.New("onnx: compare with a nil Case")
	}
	names := make([]string, 0, len(c.Outputs))
	for name := range c.Outputs {
		names = append(names, name)
	}
	sort.Strings(names)
	worst := Mismatch{Index: -1}
	var bad *Mismatch          // the element furthest beyond its tolerance
	over := 0.0                // by how much
	var badGot, badWant string // its values, exactly for integers
	for _, name := range names {
		want := c.Outputs[name]
		g := got[name]
		if g == nil || g.Host == nil && g.NumElements() != 0 {
			return math.Inf(1), fmt.Errorf("case %s: output %q is missing", c.Name, name)
		}
		if g.DType != want.DType || !g.Shape.Equal(want.Shape) {
			return math.Inf(1), fmt.Errorf("case %s: output %q is %v %v, want %v %v", c.Name, name, g.DType, g.Shape, want.DType, want.Shape)
		}
		n := want.NumElements()
		for i := range n {
			a, b := elemF(g, i), elemF(want, i)
			d := math.Abs(a - b)
			switch {
			case math.IsNaN(a) != math.IsNaN(b):
				d = math.Inf(1)
			case math.IsNaN(a) || a == b: // NaN for NaN; equal infinities, whose difference is NaN
				d = 0
			}
			if !want.DType.IsFloat() && elemBits(g, i) != elemBits(want, i) {
				d = math.Inf(1)
			}
			if d > worst.MaxAbs || worst.Index < 0 {
				worst = Mismatch{Output: name, Index: i, Got: a, Want: b, MaxAbs: max(d, worst.MaxAbs)}
			}
			tol := atol
			if want.DType.IsFloat() && !math.IsInf(b, 0) {
				tol += rtol * math.Abs(b)
			}
			if x := d - tol; x > 0 && (bad == nil || x > over) {
				bad, over = &Mismatch{Output: name, Index: i, Got: a, Want: b, MaxAbs: d}, x
				badGot, badWant = elemString(g, i), elemString(want, i)
			}
		}
	}
	if bad != nil {
		if !c.Outputs[bad.Output].DType.IsFloat() {
			return worst.MaxAbs, fmt.Errorf("case %s: output %q element %d is %s, want %s (%v compares exactly)",
				c.Name, bad.Output, bad.Index, badGot, badWant, c.Outputs[bad.Output].DType)
		}
		bound := fmt.Sprintf("%g", atol)
		if rtol > 0 {
			bound = fmt.Sprintf("%g + %g·|want|", atol, rtol)
		}
		return worst.MaxAbs, fmt.Errorf("case %s: output %q element %d is %s, want %s (error %g > %s; max abs error %g)",
			c.Name, bad.Output, bad.Index, badGot, badWant, bad.MaxAbs, bound, worst.MaxAbs)
	}
	return worst.MaxAbs, nil
}

// elemString formats element i of t exactly: an integer in full, a float
// with %g.
func elemString(t *kernel.Tensor, i int64) string {
	switch {
	case t.DType == kernel.Int64:
		return strconv.FormatInt(kernel.Int64s(t.Host)[i], 10)
	case t.DType == kernel.Uint64:
		return strconv.FormatUint(kernel.Uint64s(t.Host)[i], 10)
	case !t.DType.IsFloat():
		return strconv.FormatFloat(elemF(t, i), 'f', -1, 64) // exact below 2^53
	}
	return fmt.Sprintf("%g", elemF(t, i))
}

func elemF(t *kernel.Tensor, i int64) float64 {
	b := t.Host
	switch t.DType {
	case kernel.Float32:
		return float64(kernel.Float32s(b)[i])
	case kernel.Float64:
		return kernel.Float64s(b)[i]
	case kernel.Float16:
		return float64(kernel.F16ToF32(kernel.Uint16s(b)[i]))
	case kernel.BFloat16:
		return float64(kernel.BF16ToF32(kernel.Uint16s(b)[i]))
	case kernel.Int64:
		return float64(kernel.Int64s(b)[i])
	case kernel.Int32:
		return float64(kernel.Int32s(b)[i])
	case kernel.Int16:
		return float64(kernel.Int16s(b)[i])
	case kernel.Uint64:
		return float64(kernel.Uint64s(b)[i])
	case kernel.Uint32:
		return float64(kernel.Uint32s(b)[i])
	case kernel.Uint16:
		return float64(kernel.Uint16s(b)[i])
	case kernel.Int8, kernel.Int4, kernel.Int2: // the sub-byte types sign-extended
		return float64(int8(b[i]))
	}
	if t.DType.IsFloat() {
		return float64(kernel.F8ToF32(t.DType, b[i]))
	}
	return float64(b[i])
}

// elemBits is element i of integer or bool tensor t as its bits, zero
// extended: equal exactly when the elements are.
func elemBits(t *kernel.Tensor, i int64) uint64 {
	size := int64(t.DType.Size())
	var v uint64
	for j := size - 1; j >= 0; j-- {
		v = v<<8 | uint64(t.Host[i*size+j])
	}
	return v
}
