package ops

import (
	"fmt"
	"math"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// mlLabelEncoder is LabelEncoder (versions 2 to 4) over numbers: the
// keys and the values, with their dtypes, and the value of a missing key.
type mlLabelEncoder struct {
	keyDT, valDT kernel.DType
	ints         map[int64]int   // int64 key → value index (its first)
	floats       map[float64]int // float key → value index (its first)
	nanAt        int             // value index of a NaN key (version 4), −1 none
	vals         []float64       // float values, exact in valDT
	ivals        []int64
	defF         float64
	defI         int64
}

// mlLabelPairs are the key and value dtypes onnxruntime's LabelEncoder
// takes (strings aside), by version: 2 and 3, then 4.
var mlLabelPairs = [2][][2]kernel.DType{
	{{kernel.Int64, kernel.Float32}, {kernel.Float32, kernel.Int64}, {kernel.Float32, kernel.Float32}, {kernel.Int64, kernel.Int64}},
	{{kernel.Int64, kernel.Float32}, {kernel.Float32, kernel.Int64}, {kernel.Float32, kernel.Float32}, {kernel.Int64, kernel.Int64},
		{kernel.Float64, kernel.Float64}, {kernel.Float64, kernel.Int64}, {kernel.Int64, kernel.Float64}},
}

// mlLabelList reads the keys or values (what): attribute what_int64s,
// what_floats or, from version 4, what_tensor; exactly one. It returns the
// values as float64 (floats) or int64, and their dtype.
func mlLabelList(attrs kernel.Attrs, what string, opset int64) ([]float64, []int64, kernel.DType, error) {
	if _, ok := attrs[what+"_strings"]; ok {
		return nil, nil, 0, notImplemented("attribute %q: string %s are not implemented (pipert has no string tensors)", what+"_strings", what)
	}
	// Each one given is read, so that one of the wrong type is named even
	// beside another.
	var (
		given []string
		fl    []float64
		in    []int64
		t     *kernel.Tensor
	)
	for _, s := range [...]string{"_int64s", "_floats", "_tensor"} {
		name := what + s
		if _, ok := attrs[name]; !ok {
			continue
		}
		given = append(given, name)
		var err error
		switch s {
		case "_int64s":
			in, err = attrs.Ints(name, nil)
		case "_floats":
			fl, err = attrs.Floats(name, nil)
		default:
			t, err = attrs.Tensor(name, nil)
		}
		if err != nil {
			return nil, nil, 0, err
		}
	}
	if len(given) != 1 {
		return nil, nil, 0, fmt.Errorf("attributes %s_int64s, %s_floats, %s_tensor: want exactly one, have %v", what, what, what, given)
	}
	switch given[0] {
	case what + "_int64s":
		return nil, in, kernel.Int64, nil
	case what + "_floats":
		return fl, nil, kernel.Float32, nil
	}
	if opset < 4 {
		return nil, nil, 0, fmt.Errorf("attribute %q is from version 4 of ai.onnx.ml (the node's is %d)", given[0], opset)
	}
	fl, in, err := mlTensorValues(t, given[0])
	return fl, in, t.DType, err
}

// mlTensorValues reads a tensor attribute of int64, float32 or float64.
func mlTensorValues(t *kernel.Tensor, name string) ([]float64, []int64, error) {
	h := t.Data()
	if int64(len(h)) < t.Bytes() {
		return nil, nil, fmt.Errorf("attribute %q has no contents", name)
	}
	switch t.DType {
	case kernel.Int64:
		return nil, append([]int64(nil), kernel.Int64s(h)[:t.NumElements()]...), nil
	case kernel.Float32, kernel.Float64:
		out := make([]float64, t.NumElements())
		for i := range out {
			out[i] = loadF(t.DType, h, int64(i))
		}
		return out, nil, nil
	}
	return nil, nil, fmt.Errorf("attribute %q has dtype %v, want int64, float32 or float64", name, t.DType)
}

func newMLLabelEncoder(attrs kernel.Attrs) (kernel.Kernel, error) {
	k, err := parseMLLabelEncoder(attrs)
	if err != nil {
		return nil, fmt.Errorf("ops: LabelEncoder: %w", err)
	}
	return newKernel(sig{op: "LabelEncoder", minIn: 1, maxIn: 1, nOut: 1}, k), nil
}

func parseMLLabelEncoder(attrs kernel.Attrs) (*mlLabelEncoder, error) {
	if err := attrs.Check("keys_int64s", "keys_floats", "keys_strings", "keys_tensor", "values_int64s", "values_floats",
		"values_strings", "values_tensor", "default_int64", "default_float", "default_string", "default_tensor", "classes_strings"); err != nil {
		return nil, err
	}
	opset, err := attrs.Opset(4)
	if err != nil {
		return nil, err
	}
	if opset < 2 {
		return nil, notImplemented("version %d of ai.onnx.ml maps strings (attribute \"classes_strings\"): not implemented (pipert has no string tensors)", opset)
	}
	if _, ok := attrs["classes_strings"]; ok {
		return nil, fmt.Errorf("attribute \"classes_strings\" is of version 1 of ai.onnx.ml (the node's is %d)", opset)
	}
	if _, ok := attrs["default_tensor"]; ok && opset < 4 {
		return nil, fmt.Errorf("attribute \"default_tensor\" is from version 4 of ai.onnx.ml (the node's is %d)", opset)
	}
	kf, ki, kdt, err := mlLabelList(attrs, "keys", opset)
	if err != nil {
		return nil, err
	}
	vf, vi, vdt, err := mlLabelList(attrs, "values", opset)
	if err != nil {
		return nil, err
	}
	pairs := mlLabelPairs[0]
	if opset >= 4 {
		pairs = mlLabelPairs[1]
	}
	ok := false
	for _, p := range pairs {
		ok = ok || p == [2]kernel.DType{kdt, vdt}
	}
	if !ok {
		return nil, fmt.Errorf("keys of %v and values of %v: onnxruntime's LabelEncoder (version %d) has no such kernel", kdt, vdt, opset)
	}
	nk, nv := len(kf)+len(ki), len(vf)+len(vi)
	if nk != nv {
		return nil, fmt.Errorf("the keys (%d) and the values (%d): want one length", nk, nv)
	}
	m := &mlLabelEncoder{keyDT: kdt, valDT: vdt, nanAt: -1, vals: vf, ivals: vi}
	if kdt == kernel.Int64 {
		m.ints = make(map[int64]int, nk)
		for i, k := range ki {
			if _, dup := m.ints[k]; !dup {
				m.ints[k] = i
			}
		}
	} else {
		m.floats = make(map[float64]int, nk)
		for i, k := range kf {
			if kdt == kernel.Float32 {
				k = float64(float32(k))
			}
			if k != k {
				// Version 4 matches NaN keys; before, a NaN key matches nothing.
				if opset >= 4 && m.nanAt < 0 {
					m.nanAt = i
				}
				continue
			}
			if _, dup := m.floats[k]; !dup {
				m.floats[k] = i
			}
		}
	}
	if vdt == kernel.Float32 {
		for i, v := range m.vals {
			m.vals[i] = float64(float32(v))
		}
	}
	// The value of a missing key: default_tensor (version 4), else
	// default_int64 or default_float by the values' dtype. All are read,
	// whichever is used.
	defI, err := attrs.Int("default_int64", -1)
	if err != nil {
		return nil, err
	}
	defF, err := attrs.Float("default_float", math.Copysign(0, -1))
	if err != nil {
		return nil, err
	}
	if _, err := attrs.String("default_string", ""); err != nil {
		return nil, err
	}
	m.defF, m.defI = math.Copysign(0, -1), -1
	if t, err := attrs.Tensor("default_tensor", nil); err != nil {
		return nil, err
	} else if t != nil {
		if t.DType != vdt {
			return nil, fmt.Errorf("attribute \"default_tensor\" has dtype %v, the values %v", t.DType, vdt)
		}
		if t.NumElements() != 1 {
			return nil, fmt.Errorf("attribute \"default_tensor\" %v: want one value", t.Shape)
		}
		f, in, err := mlTensorValues(t, "default_tensor")
		if err != nil {
			return nil, err
		}
		if in != nil {
			m.defI = in[0]
		} else {
			m.defF = f[0]
		}
		return m, nil
	}
	m.defI = defI
	if vdt == kernel.Float32 {
		// (For float64 values onnxruntime reads no default_float: −0.)
		m.defF = float64(float32(defF))
	}
	return m, nil
}

func (m *mlLabelEncoder) check(x *kernel.Tensor) error {
	if x.DType != m.keyDT {
		return fmt.Errorf("input X has dtype %v: the keys are %v", x.DType, m.keyDT)
	}
	return nil
}

func (m *mlLabelEncoder) infer(in, out []*kernel.Tensor) error {
	if err := m.check(in[0]); err != nil {
		return err
	}
	setShape(out[0], in[0].Shape, m.valDT)
	return nil
}

func (m *mlLabelEncoder) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	return 0, m.check(in[0])
}

func (m *mlLabelEncoder) cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{FLOPs: float64(in[0].NumElements()), Bytes: float64(in[0].Bytes() + out[0].Bytes())}
}

func (m *mlLabelEncoder) compute(a *kernel.Args) error {
	x, y := a.In[0], a.Out[0]
	if err := m.check(x); err != nil {
		return err
	}
	b, yb := x.Data(), y.Data()
	for i := range x.NumElements() {
		at := -1
		var ok bool
		switch m.keyDT {
		case kernel.Int64:
			at, ok = m.ints[kernel.Int64s(b)[i]]
		default:
			k := loadF(m.keyDT, b, i)
			if k != k {
				at, ok = m.nanAt, m.nanAt >= 0
			} else {
				at, ok = m.floats[k]
			}
		}
		switch m.valDT {
		case kernel.Int64:
			v := m.defI
			if ok {
				v = m.ivals[at]
			}
			kernel.Int64s(yb)[i] = v
		case kernel.Float32:
			v := m.defF
			if ok {
				v = m.vals[at]
			}
			kernel.Float32s(yb)[i] = float32(v)
		default:
			v := m.defF
			if ok {
				v = m.vals[at]
			}
			kernel.Float64s(yb)[i] = v
		}
	}
	return nil
}
