package onnx

import (
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Model is an ONNX ModelProto: the parts pipert reads.
type Model struct {
	IRVersion int64
	// Opsets maps an operator-set domain ("" is the default ai.onnx) to
	// its version.
	Opsets   map[string]int64
	Producer string
	Graph    *Graph
	// Functions are the model's local functions (ModelProto.functions):
	// a node whose domain, op type and overload name one is a call of it,
	// which the import inlines.
	Functions []*Function
}

// Function is an ONNX FunctionProto: a named body of nodes over formal
// inputs, outputs and attributes.
type Function struct {
	Name, Domain, Overload string
	Inputs, Outputs        []string
	// Attrs names the attributes a call may give; AttrDefaults are those
	// with a default value.
	Attrs        []string
	AttrDefaults []*Attribute
	Nodes        []*Node
	// Opsets are the function's own operator-set imports.
	Opsets map[string]int64
}

// Graph is an ONNX GraphProto.
type Graph struct {
	Name         string
	Nodes        []*Node
	Initializers []*Tensor
	Inputs       []*ValueInfo
	Outputs      []*ValueInfo
	ValueInfo    []*ValueInfo
}

// Node is an ONNX NodeProto. An empty input name is an omitted optional
// input.
type Node struct {
	Name, OpType, Domain string
	Inputs, Outputs      []string
	Attrs                []*Attribute
	// Overload selects among local functions of one domain and name.
	Overload string
}

// Attr returns the attribute called name, or nil (for a nil Node too; nil
// entries of Attrs are passed over).
func (n *Node) Attr(name string) *Attribute {
	if n == nil {
		return nil
	}
	for _, a := range n.Attrs {
		if a != nil && a.Name == name {
			return a
		}
	}
	return nil
}

// intAttr returns n's int attribute name, def when absent. An attribute
// of another type is an error: the import reads no value as 0.
func intAttr(n *Node, name string, def int64) (int64, error) {
	a := n.Attr(name)
	if a == nil {
		return def, nil
	}
	if a.Type != AttrInt {
		return 0, fmt.Errorf("%w: attribute %q of %s is %v, want an int", ErrImport, name, n.OpType, a.Type)
	}
	return a.I, nil
}

// intsAttr returns n's ints attribute name and whether it is present. An
// attribute of another type is an error.
func intsAttr(n *Node, name string) ([]int64, bool, error) {
	a := n.Attr(name)
	if a == nil {
		return nil, false, nil
	}
	if a.Type != AttrInts {
		return nil, false, fmt.Errorf("%w: attribute %q of %s is %v, want ints", ErrImport, name, n.OpType, a.Type)
	}
	return a.Ints, true, nil
}

// AttrType is an ONNX AttributeProto.AttributeType.
type AttrType int32

// Attribute types.
const (
	AttrUndefined AttrType = iota
	AttrFloat
	AttrInt
	AttrString
	AttrTensor
	AttrGraph
	AttrFloats
	AttrInts
	AttrStrings
	AttrTensors
	AttrGraphs
	AttrSparseTensor
	AttrSparseTensors
	AttrTypeProto
	AttrTypeProtos
)

var attrTypeNames = [...]string{"UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR", "GRAPH", "FLOATS", "INTS", "STRINGS",
	"TENSORS", "GRAPHS", "SPARSE_TENSOR", "SPARSE_TENSORS", "TYPE_PROTO", "TYPE_PROTOS"}

func (t AttrType) String() string {
	if t >= 0 && int(t) < len(attrTypeNames) {
		return attrTypeNames[t]
	}
	return fmt.Sprintf("AttrType(%d)", int32(t))
}

// Attribute is an ONNX AttributeProto; the field its Type names holds the
// value.
type Attribute struct {
	Name    string
	Type    AttrType
	F       float32
	I       int64
	S       []byte
	T       *Tensor // also a sparse_tensor attribute, read dense
	G       *Graph
	Floats  []float32
	Ints    []int64
	Strings [][]byte
	Tensors []*Tensor
	Graphs  []*Graph
	// RefAttrName, set on attributes of a local function's nodes, names
	// the function's attribute whose value a call gives this one.
	RefAttrName string
}

// DataType is an ONNX TensorProto.DataType.
type DataType int32

// Data types.
const (
	Undefined DataType = iota
	Float
	Uint8
	Int8
	Uint16
	Int16
	Int32
	Int64
	String
	Bool
	Float16
	Double
	Uint32
	Uint64
	Complex64
	Complex128
	BFloat16
	Float8E4M3FN
	Float8E4M3FNUZ
	Float8E5M2
	Float8E5M2FNUZ
	Uint4
	Int4
	Float4E2M1
	Float8E8M0
	Uint2
	Int2
)

var dataTypeNames = [...]string{"UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64", "STRING",
	"BOOL", "FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16", "FLOAT8E4M3FN",
	"FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4", "INT4", "FLOAT4E2M1", "FLOAT8E8M0", "UINT2", "INT2"}

func (d DataType) String() string {
	if d >= 0 && int(d) < len(dataTypeNames) {
		return dataTypeNames[d]
	}
	return fmt.Sprintf("DataType(%d)", int32(d))
}

// Tensor is an ONNX TensorProto. Raw aliases the bytes the model was read
// from; the typed fields hold the data of tensors stored without raw data.
type Tensor struct {
	Name     string
	Dims     []int64
	DataType DataType
	Raw      []byte
	Floats   []float32
	Int32s   []int32 // int32_data: also int8/16, uint8/16, bool, float16 and bfloat16 bits
	Int64s   []int64
	Doubles  []float64
	Uint64s  []uint64 // uint64_data: also uint32
	Strings  [][]byte
	External bool // data_location EXTERNAL, or external_data entries
	// ExternalData holds the external_data entries (location, offset,
	// length, checksum) of an External tensor; ReadFile reads its data
	// from the file named, relative to the model's directory, into Raw
	// and clears External.
	ExternalData map[string]string
	// ExternalLocation is data_location EXTERNAL, which external data
	// needs.
	ExternalLocation bool
	Segment          bool
}

// ValueInfo is an ONNX ValueInfoProto of a tensor type: its name, element
// type and shape (Dims nil when the shape is unknown).
type ValueInfo struct {
	Name      string
	DataType  DataType
	Dims      []Dim
	HasShape  bool
	NotTensor bool // a sequence, map, optional or sparse type
}

// Dim is one dimension of a ValueInfo: a value, or a named parameter when
// Param is set, or unknown when neither is.
type Dim struct {
	Value int64
	Param string
	Known bool
}

// ErrFormat is the cause of every error Parse returns for bytes that are
// not a well-formed ONNX model.
var ErrFormat = errors.New("onnx: malformed model")

// decoder walks one protobuf message.
type decoder struct {
	b    []byte
	what string // the message, for errors
}

func (d *decoder) errf(format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrFormat, d.what, fmt.Sprintf(format, args...))
}

// next returns the next field; done at the end of the message.
func (d *decoder) next() (num protowire.Number, typ protowire.Type, done bool, err error) {
	if len(d.b) == 0 {
		return 0, 0, true, nil
	}
	num, typ, n := protowire.ConsumeTag(d.b)
	if n < 0 {
		return 0, 0, false, d.errf("bad field tag: %v", protowire.ParseError(n))
	}
	d.b = d.b[n:]
	return num, typ, false, nil
}

func (d *decoder) bytes(typ protowire.Type) ([]byte, error) {
	if typ != protowire.BytesType {
		return nil, d.errf("length-delimited field has wire type %d", typ)
	}
	v, n := protowire.ConsumeBytes(d.b)
	if n < 0 {
		return nil, d.errf("truncated field: %v", protowire.ParseError(n))
	}
	d.b = d.b[n:]
	return v, nil
}

func (d *decoder) varint(typ protowire.Type) (uint64, error) {
	if typ != protowire.VarintType {
		return 0, d.errf("varint field has wire type %d", typ)
	}
	v, n := protowire.ConsumeVarint(d.b)
	if n < 0 {
		return 0, d.errf("truncated varint: %v", protowire.ParseError(n))
	}
	d.b = d.b[n:]
	return v, nil
}

func (d *decoder) fixed32(typ protowire.Type) (uint32, error) {
	if typ != protowire.Fixed32Type {
		return 0, d.errf("fixed32 field has wire type %d", typ)
	}
	v, n := protowire.ConsumeFixed32(d.b)
	if n < 0 {
		return 0, d.errf("truncated fixed32: %v", protowire.ParseError(n))
	}
	d.b = d.b[n:]
	return v, nil
}

func (d *decoder) fixed64(typ protowire.Type) (uint64, error) {
	if typ != protowire.Fixed64Type {
		return 0, d.errf("fixed64 field has wire type %d", typ)
	}
	v, n := protowire.ConsumeFixed64(d.b)
	if n < 0 {
		return 0, d.errf("truncated fixed64: %v", protowire.ParseError(n))
	}
	d.b = d.b[n:]
	return v, nil
}

func (d *decoder) skip(num protowire.Number, typ protowire.Type) error {
	n := protowire.ConsumeFieldValue(num, typ, d.b)
	if n < 0 {
		return d.errf("bad field %d: %v", num, protowire.ParseError(n))
	}
	d.b = d.b[n:]
	return nil
}

// varints reads a repeated varint field, packed or not, appending to out.
// A packed run's count is bounded by its length, so out never grows past
// the input's size.
func (d *decoder) varints(typ protowire.Type, out []int64) ([]int64, error) {
	if typ == protowire.VarintType {
		v, err := d.varint(typ)
		return append(out, int64(v)), err
	}
	b, err := d.bytes(typ)
	if err != nil {
		return out, err
	}
	for len(b) > 0 {
		v, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return out, d.errf("truncated packed varint: %v", protowire.ParseError(n))
		}
		out = append(out, int64(v))
		b = b[n:]
	}
	return out, nil
}

// floats reads a repeated float field, packed or not.
func (d *decoder) floats(typ protowire.Type, out []float32) ([]float32, error) {
	if typ == protowire.Fixed32Type {
		v, err := d.fixed32(typ)
		return append(out, math.Float32frombits(v)), err
	}
	b, err := d.bytes(typ)
	if err != nil {
		return out, err
	}
	if len(b)%4 != 0 {
		return out, d.errf("packed floats of %d bytes", len(b))
	}
	for i := 0; i < len(b); i += 4 {
		out = append(out, math.Float32frombits(uint32(b[i])|uint32(b[i+1])<<8|uint32(b[i+2])<<16|uint32(b[i+3])<<24))
	}
	return out, nil
}

// doubles reads a repeated double field, packed or not.
func (d *decoder) doubles(typ protowire.Type, out []float64) ([]float64, error) {
	if typ == protowire.Fixed64Type {
		v, err := d.fixed64(typ)
		return append(out, math.Float64frombits(v)), err
	}
	b, err := d.bytes(typ)
	if err != nil {
		return out, err
	}
	if len(b)%8 != 0 {
		return out, d.errf("packed doubles of %d bytes", len(b))
	}
	for i := 0; i < len(b); i += 8 {
		var u uint64
		for k := 7; k >= 0; k-- {
			u = u<<8 | uint64(b[i+k])
		}
		out = append(out, math.Float64frombits(u))
	}
	return out, nil
}
