package kernel

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Attrs are a node's static attributes (axis, perm, epsilon, ...). Values
// are int64, float64, string, bool, []int64, []float64, []string or
// *Tensor; the getters convert int and float32 forms and report a missing or
// mistyped attribute as an error.
//
// Ops that implement an ONNX op take its attributes under their ONNX names
// and values. Where an op's semantics changed between ONNX opsets, the
// integer attribute "opset" (OpsetAttr) names the opset the node follows;
// absent, a default of the op's own: opset 17 for most built-in ops (ONNX
// 1.12's forms), for a few the opset their form comes from. The ONNX
// importer always sets it; a graph built by hand sets it to get a later
// opset's semantics, such as ReduceMax of bool at 20.
type Attrs map[string]any

// ErrBadAttr is the cause of the Attrs getters' errors: an attribute of
// the wrong type (a string where an integer belongs), a dtype of no name,
// an opset below 1. Its text is just "attribute", so that such errors
// read `attribute "axis": want an integer, have string`. Check's error
// for an attribute the op does not know is not one: a later ONNX opset
// may define it.
var ErrBadAttr = errors.New("attribute")

// OpsetAttr is the attribute holding the ONNX opset a node follows.
const OpsetAttr = "opset"

// Opset returns the opset the node follows (OpsetAttr), or def when absent.
// An opset below 1 is an error.
func (a Attrs) Opset(def int64) (int64, error) {
	v, err := a.Int(OpsetAttr, def)
	if err == nil && v < 1 {
		return 0, fmt.Errorf("%w %q: opset %d, want at least 1", ErrBadAttr, OpsetAttr, v)
	}
	return v, err
}

// Int returns attribute name as int64, or def if it is absent.
func (a Attrs) Int(name string, def int64) (int64, error) {
	v, ok := a[name]
	if !ok {
		return def, nil
	}
	switch x := v.(type) {
	case int64:
		return x, nil
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	}
	return 0, fmt.Errorf("%w %q: want an integer, have %T", ErrBadAttr, name, v)
}

// Float returns attribute name as float64, or def if it is absent.
func (a Attrs) Float(name string, def float64) (float64, error) {
	v, ok := a[name]
	if !ok {
		return def, nil
	}
	switch x := v.(type) {
	case float64:
		return x, nil
	case float32:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case int:
		return float64(x), nil
	}
	return 0, fmt.Errorf("%w %q: want a number, have %T", ErrBadAttr, name, v)
}

// Ints returns attribute name as []int64, or def if it is absent.
func (a Attrs) Ints(name string, def []int64) ([]int64, error) {
	v, ok := a[name]
	if !ok {
		return def, nil
	}
	switch x := v.(type) {
	case []int64:
		return x, nil
	case []int:
		out := make([]int64, len(x))
		for i, e := range x {
			out[i] = int64(e)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w %q: want a list of integers, have %T", ErrBadAttr, name, v)
}

// Floats returns attribute name as []float64, or def if it is absent.
func (a Attrs) Floats(name string, def []float64) ([]float64, error) {
	v, ok := a[name]
	if !ok {
		return def, nil
	}
	switch x := v.(type) {
	case []float64:
		return x, nil
	case []float32:
		out := make([]float64, len(x))
		for i, e := range x {
			out[i] = float64(e)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w %q: want a list of numbers, have %T", ErrBadAttr, name, v)
}

// Strings returns attribute name as []string, or def if it is absent.
func (a Attrs) Strings(name string, def []string) ([]string, error) {
	v, ok := a[name]
	if !ok {
		return def, nil
	}
	if x, ok := v.([]string); ok {
		return x, nil
	}
	return nil, fmt.Errorf("%w %q: want a list of strings, have %T", ErrBadAttr, name, v)
}

// Tensor returns attribute name as a tensor, or def if it is absent.
func (a Attrs) Tensor(name string, def *Tensor) (*Tensor, error) {
	v, ok := a[name]
	if !ok {
		return def, nil
	}
	x, ok := v.(*Tensor)
	if !ok || x == nil {
		return nil, fmt.Errorf("%w %q: want a tensor, have %T", ErrBadAttr, name, v)
	}
	if err := x.checkValue(); err != nil {
		return nil, fmt.Errorf("%w %q: %w", ErrBadAttr, name, err)
	}
	return x, nil
}

// String returns attribute name as a string, or def if it is absent.
func (a Attrs) String(name string, def string) (string, error) {
	v, ok := a[name]
	if !ok {
		return def, nil
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	return "", fmt.Errorf("%w %q: want a string, have %T", ErrBadAttr, name, v)
}

// Bool returns attribute name as a bool, or def if it is absent.
func (a Attrs) Bool(name string, def bool) (bool, error) {
	v, ok := a[name]
	if !ok {
		return def, nil
	}
	if b, ok := v.(bool); ok {
		return b, nil
	}
	return false, fmt.Errorf("%w %q: want a bool, have %T", ErrBadAttr, name, v)
}

// DType returns attribute name as a DType (a DType value or its name).
func (a Attrs) DType(name string, def DType) (DType, error) {
	v, ok := a[name]
	if !ok {
		return def, nil
	}
	switch x := v.(type) {
	case DType:
		if x.Valid() {
			return x, nil
		}
	case string:
		d, err := ParseDType(x)
		if err != nil {
			return 0, fmt.Errorf("%w %q: %w", ErrBadAttr, name, err)
		}
		return d, nil
	}
	return 0, fmt.Errorf("%w %q: want a dtype, have %v", ErrBadAttr, name, v)
}

// Check reports the first attribute whose name is not in known. OpsetAttr
// is always known.
func (a Attrs) Check(known ...string) error {
	names := make([]string, 0, len(a))
	for k := range a {
		if k != OpsetAttr {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		found := false
		for _, n := range known {
			if n == k {
				found = true
				break
			}
		}
		if !found {
			if len(known) == 0 {
				return fmt.Errorf("unknown attribute %q (the op takes none)", k)
			}
			return fmt.Errorf("unknown attribute %q (known: %s)", k, strings.Join(known, ", "))
		}
	}
	return nil
}

// checkValue checks a tensor given as a value (an attribute): a valid
// dtype, a known shape whose byte count fits an int64, and contents of
// exactly that many bytes, on the host or in a device buffer.
func (t *Tensor) checkValue() error {
	if !t.DType.Valid() {
		return fmt.Errorf("tensor of invalid dtype %v", t.DType)
	}
	n, ok := t.Shape.product(int64(t.DType.Size()))
	switch {
	case n < 0:
		return fmt.Errorf("tensor of shape %v: a dimension is negative", t.Shape)
	case !ok:
		return fmt.Errorf("tensor of shape %v: more bytes than an int64 counts", t.Shape)
	}
	if data := t.Data(); data == nil || int64(len(data)) != n {
		return fmt.Errorf("tensor %v holds %d bytes, want %d", t, len(t.Data()), n)
	}
	return nil
}
