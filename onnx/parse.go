package onnx

import (
	"fmt"
	"google.golang.org/protobuf/encoding/protowire"
	"io"
	"math"
	"os"
	"path/filepath"
)

// maxDepth bounds the nesting of subgraphs (If branches within branches):
// deeper is refused rather than recursed into.
const maxDepth = 64

// Parse reads an ONNX model from b. Tensors' raw data alias b, which must
// not change while the model is in use. Malformed input is an error
// wrapping ErrFormat that says what was being read; Parse never panics and
// never allocates more than a small multiple of len(b).
func Parse(b []byte) (*Model, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("%w: empty input", ErrFormat)
	}
	m, err := parseModel(b)
	if err != nil {
		return nil, err
	}
	if m.Graph == nil {
		return nil, fmt.Errorf("%w: the model has no graph", ErrFormat)
	}
	return m, nil
}

// Read reads a whole model from r (see Parse). The buffer it reads into is
// its own, so it also moves each tensor's raw data, by a few bytes over
// headers already decoded, to an address its element size divides:
// Tensor.Kernel then aliases the data instead of copying it. A nil r is
// an error wrapping ErrFormat.
func Read(r io.Reader) (*Model, error) {
	if r == nil {
		return nil, fmt.Errorf("onnx: read: %w: nil reader", ErrFormat)
	}
	var b []byte
	var err error
	if l, ok := r.(interface{ Len() int }); ok {
		// A bytes.Reader or Buffer: one exact allocation, no regrowth.
		b = make([]byte, l.Len())
		if _, err = io.ReadFull(r, b); err == nil {
			var extra []byte
			extra, err = io.ReadAll(r)
			b = append(b, extra...)
		}
	} else {
		b, err = io.ReadAll(r)
	}
	if err != nil {
		return nil, fmt.Errorf("onnx: read: %w", err)
	}
	m, err := Parse(b)
	if err != nil {
		return nil, err
	}
	alignRaw(m, b)
	return m, nil
}

// ReadFile reads the model in file path (see Parse).
func ReadFile(path string) (*Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	m, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	alignRaw(m, b)
	if err := loadExternal(m, filepath.Dir(path)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

func parseModel(b []byte) (*Model, error) {
	d := &decoder{b: b, what: "ModelProto"}
	m := &Model{Opsets: map[string]int64{}}
	for {
		num, typ, done, err := d.next()
		if err != nil || done {
			return m, err
		}
		switch num {
		case 1:
			v, err := d.varint(typ)
			if err != nil {
				return nil, err
			}
			m.IRVersion = int64(v)
		case 2:
			v, err := d.bytes(typ)
			if err != nil {
				return nil, err
			}
			m.Producer = string(v)
		case 7:
			v, err := d.bytes(typ)
			if err != nil {
				return nil, err
			}
			if m.Graph, err = parseGraph(v, 0); err != nil {
				return nil, err
			}
		case 8:
			if err := d.opset(typ, m.Opsets); err != nil {
				return nil, err
			}
		case 25:
			v, err := d.bytes(typ)
			if err != nil {
				return nil, err
			}
			f, err := parseFunction(v)
			if err != nil {
				return nil, fmt.Errorf("function %d: %w", len(m.Functions), err)
			}
			m.Functions = append(m.Functions, f)
		default:
			if err := d.skip(num, typ); err != nil {
				return nil, err
			}
		}
	}
}

// parseFunction reads a FunctionProto.
func parseFunction(b []byte) (*Function, error) {
	d := &decoder{b: b, what: "FunctionProto"}
	f := &Function{Opsets: map[string]int64{}}
	for {
		num, typ, done, err := d.next()
		if err != nil {
			return nil, err
		}
		if done {
			return f, nil
		}
		switch num {
		case 1, 4, 5, 6, 7, 9, 10, 11, 13:
		default:
			if err := d.skip(num, typ); err != nil {
				return nil, err
			}
			continue
		}
		v, err := d.bytes(typ)
		if err != nil {
			return nil, err
		}
		switch num {
		case 1:
			f.Name = string(v)
		case 4:
			f.Inputs = append(f.Inputs, string(v))
		case 5:
			f.Outputs = append(f.Outputs, string(v))
		case 6:
			f.Attrs = append(f.Attrs, string(v))
		case 7:
			n, err := parseNode(v, 1)
			if err != nil {
				return nil, fmt.Errorf("function %q node %d: %w", f.Name, len(f.Nodes), err)
			}
			f.Nodes = append(f.Nodes, n)
		case 9:
			domain, version, err := parseOpset(v)
			if err != nil {
				return nil, err
			}
			if err := addOpset(f.Opsets, domain, version); err != nil {
				return nil, fmt.Errorf("function %q: %w", f.Name, err)
			}
		case 10:
			f.Domain = string(v)
		case 11:
			a, err := parseAttr(v, 1)
			if err != nil {
				return nil, fmt.Errorf("function %q: %w", f.Name, err)
			}
			f.AttrDefaults = append(f.AttrDefaults, a)
		case 13:
			f.Overload = string(v)
		}
	}
}

// opset reads an OperatorSetIdProto field of a model's opset_import into
// opsets. A domain listed twice follows its last entry, as onnxruntime
// loads such a model ("ai.onnx" and "" being one domain).
func (d *decoder) opset(typ protowire.Type, opsets map[string]int64) error {
	v, err := d.bytes(typ)
	if err != nil {
		return err
	}
	domain, version, err := parseOpset(v)
	if err != nil {
		return err
	}
	opsets[domain] = version
	return nil
}

// addOpset records the version of domain in a function's imports,
// refusing a domain imported twice at different versions (which one the
// nodes follow is unknown).
func addOpset(opsets map[string]int64, domain string, version int64) error {
	if old, ok := opsets[domain]; ok && old != version {
		name := domain
		if name == "" {
			name = "ai.onnx (the default domain)"
		}
		return fmt.Errorf("%w: opset_import lists domain %s twice, at versions %d and %d", ErrFormat, name, old, version)
	}
	opsets[domain] = version
	return nil
}

// parseOpset reads an OperatorSetIdProto; the default domain, "" or
// "ai.onnx", is "".
func parseOpset(b []byte) (string, int64, error) {
	d := &decoder{b: b, what: "OperatorSetIdProto"}
	var domain string
	var version int64
	for {
		num, typ, done, err := d.next()
		if err != nil || done {
			return domain, version, err
		}
		switch num {
		case 1:
			v, err := d.bytes(typ)
			if err != nil {
				return "", 0, err
			}
			if domain = string(v); domain == "ai.onnx" {
				domain = ""
			}
		case 2:
			v, err := d.varint(typ)
			if err != nil {
				return "", 0, err
			}
			version = int64(v)
		default:
			if err := d.skip(num, typ); err != nil {
				return "", 0, err
			}
		}
	}
}

func parseGraph(b []byte, depth int) (*Graph, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%w: subgraphs nested deeper than %d", ErrFormat, maxDepth)
	}
	d := &decoder{b: b, what: "GraphProto"}
	g := &Graph{}
	for {
		num, typ, done, err := d.next()
		if err != nil {
			return nil, err
		}
		if done {
			return g, nil
		}
		if num != 1 && num != 2 && num != 5 && num != 11 && num != 12 && num != 13 && num != 15 {
			if err := d.skip(num, typ); err != nil {
				return nil, err
			}
			continue
		}
		v, err := d.bytes(typ)
		if err != nil {
			return nil, err
		}
		switch num {
		case 1:
			n, err := parseNode(v, depth)
			if err != nil {
				return nil, fmt.Errorf("graph %q node %d: %w", g.Name, len(g.Nodes), err)
			}
			g.Nodes = append(g.Nodes, n)
		case 2:
			g.Name = string(v)
		case 5:
			t, err := parseTensor(v)
			if err != nil {
				return nil, fmt.Errorf("graph %q initializer %d: %w", g.Name, len(g.Initializers), err)
			}
			g.Initializers = append(g.Initializers, t)
		case 15:
			t, err := parseSparse(v)
			if err != nil {
				return nil, fmt.Errorf("graph %q sparse initializer: %w", g.Name, err)
			}
			g.Initializers = append(g.Initializers, t) // dense, as onnxruntime holds it
		case 11, 12, 13:
			vi, err := parseValueInfo(v)
			if err != nil {
				return nil, fmt.Errorf("graph %q: %w", g.Name, err)
			}
			switch num {
			case 11:
				g.Inputs = append(g.Inputs, vi)
			case 12:
				g.Outputs = append(g.Outputs, vi)
			default:
				g.ValueInfo = append(g.ValueInfo, vi)
			}
		}
	}
}

func parseNode(b []byte, depth int) (*Node, error) {
	d := &decoder{b: b, what: "NodeProto"}
	n := &Node{}
	for {
		num, typ, done, err := d.next()
		if err != nil {
			return nil, err
		}
		if done {
			return n, nil
		}
		if num < 1 || num > 8 || num == 6 {
			if err := d.skip(num, typ); err != nil {
				return nil, err
			}
			continue
		}
		v, err := d.bytes(typ)
		if err != nil {
			return nil, err
		}
		switch num {
		case 1:
			n.Inputs = append(n.Inputs, string(v))
		case 2:
			n.Outputs = append(n.Outputs, string(v))
		case 3:
			n.Name = string(v)
		case 4:
			n.OpType = string(v)
		case 5:
			a, err := parseAttr(v, depth)
			if err != nil {
				return nil, fmt.Errorf("node %q (%s): %w", n.Name, n.OpType, err)
			}
			n.Attrs = append(n.Attrs, a)
		case 7:
			n.Domain = string(v)
		case 8:
			n.Overload = string(v)
		}
	}
}

func parseAttr(b []byte, depth int) (*Attribute, error) {
	d := &decoder{b: b, what: "AttributeProto"}
	a := &Attribute{}
	sparse := false
	for {
		num, typ, done, err := d.next()
		if err != nil {
			return nil, err
		}
		if done {
			break
		}
		switch num {
		case 1, 4, 5, 6, 9, 10, 11, 21, 22:
			v, err := d.bytes(typ)
			if err != nil {
				return nil, err
			}
			switch num {
			case 1:
				a.Name = string(v)
			case 4:
				a.S = v
			case 5:
				if a.T, err = parseTensor(v); err != nil {
					return nil, fmt.Errorf("attribute %q: %w", a.Name, err)
				}
			case 6:
				if a.G, err = parseGraph(v, depth+1); err != nil {
					return nil, fmt.Errorf("attribute %q: %w", a.Name, err)
				}
			case 9:
				a.Strings = append(a.Strings, v)
			case 10:
				t, err := parseTensor(v)
				if err != nil {
					return nil, fmt.Errorf("attribute %q: %w", a.Name, err)
				}
				a.Tensors = append(a.Tensors, t)
			case 11:
				g, err := parseGraph(v, depth+1)
				if err != nil {
					return nil, fmt.Errorf("attribute %q: %w", a.Name, err)
				}
				a.Graphs = append(a.Graphs, g)
			case 21:
				a.RefAttrName = string(v)
			case 22:
				if a.T, err = parseSparse(v); err != nil { // dense
					return nil, fmt.Errorf("attribute %q: %w", a.Name, err)
				}
				sparse = true
			}
		case 2:
			v, err := d.fixed32(typ)
			if err != nil {
				return nil, err
			}
			a.F = math.Float32frombits(v)
		case 3:
			v, err := d.varint(typ)
			if err != nil {
				return nil, err
			}
			a.I = int64(v)
		case 7:
			if a.Floats, err = d.floats(typ, a.Floats); err != nil {
				return nil, err
			}
		case 8:
			if a.Ints, err = d.varints(typ, a.Ints); err != nil {
				return nil, err
			}
		case 20:
			v, err := d.varint(typ)
			if err != nil {
				return nil, err
			}
			a.Type = AttrType(int32(v))
		default:
			if err := d.skip(num, typ); err != nil {
				return nil, err
			}
		}
	}
	if a.Type == AttrUndefined {
		a.Type = guessType(a)
		if sparse {
			a.Type = AttrSparseTensor
		}
	}
	return a, nil
}

// guessType is the attribute type of IR versions before 0.0.2, which did
// not record it: the field that holds a value.
func guessType(a *Attribute) AttrType {
	switch {
	case a.G != nil:
		return AttrGraph
	case a.T != nil:
		return AttrTensor
	case a.S != nil:
		return AttrString
	case len(a.Floats) > 0:
		return AttrFloats
	case len(a.Ints) > 0:
		return AttrInts
	case len(a.Strings) > 0:
		return AttrStrings
	case len(a.Tensors) > 0:
		return AttrTensors
	case len(a.Graphs) > 0:
		return AttrGraphs
	case a.F != 0:
		return AttrFloat
	}
	return AttrInt
}

func parseTensor(b []byte) (*Tensor, error) {
	d := &decoder{b: b, what: "TensorProto"}
	t := &Tensor{}
	for {
		num, typ, done, err := d.next()
		if err != nil {
			return nil, err
		}
		if done {
			return t, nil
		}
		switch num {
		case 1:
			if t.Dims, err = d.varints(typ, t.Dims); err != nil {
				return nil, err
			}
		case 2:
			v, err := d.varint(typ)
			if err != nil {
				return nil, err
			}
			t.DataType = DataType(int32(v))
		case 3:
			t.Segment = true
			if err := d.skip(num, typ); err != nil {
				return nil, err
			}
		case 4:
			if t.Floats, err = d.floats(typ, t.Floats); err != nil {
				return nil, err
			}
		case 5:
			var v []int64
			if v, err = d.varints(typ, nil); err != nil {
				return nil, err
			}
			for _, x := range v {
				t.Int32s = append(t.Int32s, int32(x))
			}
		case 6:
			v, err := d.bytes(typ)
			if err != nil {
				return nil, err
			}
			t.Strings = append(t.Strings, v)
		case 7:
			if t.Int64s, err = d.varints(typ, t.Int64s); err != nil {
				return nil, err
			}
		case 8:
			v, err := d.bytes(typ)
			if err != nil {
				return nil, err
			}
			t.Name = string(v)
		case 9:
			if t.Raw, err = d.bytes(typ); err != nil {
				return nil, err
			}
			if t.Raw == nil {
				t.Raw = []byte{}
			}
		case 10:
			if t.Doubles, err = d.doubles(typ, t.Doubles); err != nil {
				return nil, err
			}
		case 11:
			var v []int64
			if v, err = d.varints(typ, nil); err != nil {
				return nil, err
			}
			for _, x := range v {
				t.Uint64s = append(t.Uint64s, uint64(x))
			}
		case 13:
			t.External = true
			v, err := d.bytes(typ)
			if err != nil {
				return nil, err
			}
			k, val, err := parseEntry(v)
			if err != nil {
				return nil, err
			}
			if t.ExternalData == nil {
				t.ExternalData = map[string]string{}
			}
			t.ExternalData[k] = val
		case 14:
			v, err := d.varint(typ)
			if err != nil {
				return nil, err
			}
			if v == 1 {
				t.External, t.ExternalLocation = true, true
			}
		default:
			if err := d.skip(num, typ); err != nil {
				return nil, err
			}
		}
	}
}

// parseEntry reads a StringStringEntryProto.
func parseEntry(b []byte) (key, value string, err error) {
	d := &decoder{b: b, what: "StringStringEntryProto"}
	for {
		num, typ, done, err := d.next()
		if err != nil || done {
			return key, value, err
		}
		switch num {
		case 1, 2:
			v, err := d.bytes(typ)
			if err != nil {
				return "", "", err
			}
			if num == 1 {
				key = string(v)
			} else {
				value = string(v)
			}
		default:
			if err := d.skip(num, typ); err != nil {
				return "", "", err
			}
		}
	}
}

func parseValueInfo(b []byte) (*ValueInfo, error) {
	d := &decoder{b: b, what: "ValueInfoProto"}
	vi := &ValueInfo{}
	for {
		num, typ, done, err := d.next()
		if err != nil {
			return nil, err
		}
		if done {
			return vi, nil
		}
		switch num {
		case 1:
			v, err := d.bytes(typ)
			if err != nil {
				return nil, err
			}
			vi.Name = string(v)
		case 2:
			v, err := d.bytes(typ)
			if err != nil {
				return nil, err
			}
			if err := parseType(v, vi); err != nil {
				return nil, fmt.Errorf("value %q: %w", vi.Name, err)
			}
		default:
			if err := d.skip(num, typ); err != nil {
				return nil, err
			}
		}
	}
}

func parseType(b []byte, vi *ValueInfo) error {
	d := &decoder{b: b, what: "TypeProto"}
	for {
		num, typ, done, err := d.next()
		if err != nil || done {
			return err
		}
		switch num {
		case 1:
			v, err := d.bytes(typ)
			if err != nil {
				return err
			}
			if err := parseTensorType(v, vi); err != nil {
				return err
			}
		case 4, 5, 8, 9:
			vi.NotTensor = true
			if err := d.skip(num, typ); err != nil {
				return err
			}
		default:
			if err := d.skip(num, typ); err != nil {
				return err
			}
		}
	}
}

func parseTensorType(b []byte, vi *ValueInfo) error {
	d := &decoder{b: b, what: "TypeProto.Tensor"}
	for {
		num, typ, done, err := d.next()
		if err != nil || done {
			return err
		}
		switch num {
		case 1:
			v, err := d.varint(typ)
			if err != nil {
				return err
			}
			vi.DataType = DataType(int32(v))
		case 2:
			v, err := d.bytes(typ)
			if err != nil {
				return err
			}
			vi.HasShape = true
			if err := parseShape(v, vi); err != nil {
				return err
			}
		default:
			if err := d.skip(num, typ); err != nil {
				return err
			}
		}
	}
}

func parseShape(b []byte, vi *ValueInfo) error {
	d := &decoder{b: b, what: "TensorShapeProto"}
	for {
		num, typ, done, err := d.next()
		if err != nil || done {
			return err
		}
		if num != 1 {
			if err := d.skip(num, typ); err != nil {
				return err
			}
			continue
		}
		v, err := d.bytes(typ)
		if err != nil {
			return err
		}
		dim, err := parseDim(v)
		if err != nil {
			return err
		}
		vi.Dims = append(vi.Dims, dim)
	}
}

func parseDim(b []byte) (Dim, error) {
	d := &decoder{b: b, what: "TensorShapeProto.Dimension"}
	var dim Dim
	for {
		num, typ, done, err := d.next()
		if err != nil || done {
			return dim, err
		}
		switch num {
		case 1:
			v, err := d.varint(typ)
			if err != nil {
				return dim, err
			}
			dim.Value, dim.Known = int64(v), true
		case 2:
			v, err := d.bytes(typ)
			if err != nil {
				return dim, err
			}
			dim.Param = string(v)
		default:
			if err := d.skip(num, typ); err != nil {
				return dim, err
			}
		}
	}
}

// ParseTensor reads a serialized TensorProto (the input_N.pb and
// output_N.pb files of the ONNX backend tests).
func ParseTensor(b []byte) (*Tensor, error) { return parseTensor(b) }
