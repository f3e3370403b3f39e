package onnx

import (
	"errors"
	"testing"
)

// TestSequenceErrors: a sequence the import cannot resolve (a run-time
// position, a sequence where a tensor goes, a sequence graph output or a
// sequence read inside a runtime If) is ErrUnsupported; one the model gets
// wrong (a position out of range, an empty concatenation, mixed element
// types) is ErrImport.
func TestSequenceErrors(t *testing.T) {
	x := vi("x", Float, 2)
	pos := vi("pos", Int64)
	k := func(name string, v int64) *Node {
		return &Node{OpType: "Constant", Outputs: []string{name}, Attrs: []*Attribute{{Name: "value_int", Type: AttrInt, I: v}}}
	}
	construct := &Node{OpType: "SequenceConstruct", Inputs: []string{"x", "x"}, Outputs: []string{"s"}}
	branch := &Graph{Name: "b", Nodes: []*Node{{OpType: "SequenceLength", Inputs: []string{"s"}, Outputs: []string{"l"}}},
		Outputs: []*ValueInfo{{Name: "l"}}}
	for _, tc := range []struct {
		name   string
		nodes  []*Node
		inputs []*ValueInfo
		out    string
		cause  error
	}{
		{"run-time position", []*Node{construct, {OpType: "SequenceAt", Inputs: []string{"s", "pos"}, Outputs: []string{"y"}}},
			[]*ValueInfo{x, pos}, "y", ErrUnsupported},
		{"sequence into a tensor op", []*Node{construct, {OpType: "Relu", Inputs: []string{"s"}, Outputs: []string{"y"}}},
			[]*ValueInfo{x}, "y", ErrUnsupported},
		{"sequence graph output", []*Node{construct}, []*ValueInfo{x}, "s", ErrUnsupported},
		{"sequence in a runtime If", []*Node{construct, {OpType: "If", Inputs: []string{"c"}, Outputs: []string{"y"},
			Attrs: []*Attribute{{Name: "then_branch", Type: AttrGraph, G: branch}, {Name: "else_branch", Type: AttrGraph, G: branch}}}},
			[]*ValueInfo{x, vi("c", Bool)}, "y", ErrUnsupported},
		{"position out of range", []*Node{construct, k("p", 2), {OpType: "SequenceAt", Inputs: []string{"s", "p"}, Outputs: []string{"y"}}},
			[]*ValueInfo{x}, "y", ErrImport},
		{"empty concatenation", []*Node{{OpType: "SequenceEmpty", Outputs: []string{"e"}},
			{OpType: "ConcatFromSequence", Inputs: []string{"e"}, Outputs: []string{"y"}, Attrs: []*Attribute{{Name: "axis", Type: AttrInt, I: 0}}}},
			[]*ValueInfo{x}, "y", ErrImport},
		{"mixed element types", []*Node{{OpType: "SequenceConstruct", Inputs: []string{"x", "pos"}, Outputs: []string{"s"}},
			{OpType: "SequenceLength", Inputs: []string{"s"}, Outputs: []string{"y"}}}, []*ValueInfo{x, pos}, "y", ErrImport},
	} {
		m := model(tc.nodes, tc.inputs, []*ValueInfo{{Name: tc.out}})
		if _, err := Import(m, Options{}); !errors.Is(err, tc.cause) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.cause)
		}
	}
	// Before opset 11 there are no sequence ops.
	m := model([]*Node{construct, {OpType: "SequenceLength", Inputs: []string{"s"}, Outputs: []string{"y"}}}, []*ValueInfo{x}, []*ValueInfo{{Name: "y"}})
	m.Opsets[""] = 10
	if _, err := Import(m, Options{}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("opset 10: %v, want ErrUnsupported", err)
	}
}

// TestOptionalErrors: opening an empty optional, an optional where a
// tensor goes and the optional ops on a tensor before opset 18 are errors.
func TestOptionalErrors(t *testing.T) {
	x := vi("x", Float, 2)
	empty := &Node{OpType: "Optional", Outputs: []string{"o"}, Attrs: []*Attribute{{Name: "type", Type: AttrTypeProto}}}
	for _, tc := range []struct {
		name  string
		nodes []*Node
		cause error
	}{
		{"open an empty optional", []*Node{empty, {OpType: "OptionalGetElement", Inputs: []string{"o"}, Outputs: []string{"y"}}}, ErrImport},
		{"optional into a tensor op", []*Node{{OpType: "Optional", Inputs: []string{"x"}, Outputs: []string{"o"}},
			{OpType: "Relu", Inputs: []string{"o"}, Outputs: []string{"y"}}}, ErrUnsupported},
		{"a tensor before opset 18", []*Node{{OpType: "OptionalHasElement", Inputs: []string{"x"}, Outputs: []string{"y"}}}, ErrImport},
		{"an empty Optional without a type", []*Node{{OpType: "Optional", Outputs: []string{"o"}},
			{OpType: "OptionalHasElement", Inputs: []string{"o"}, Outputs: []string{"y"}}}, ErrImport},
	} {
		m := model(tc.nodes, []*ValueInfo{x}, []*ValueInfo{{Name: "y"}})
		m.Opsets[""] = 15
		if _, err := Import(m, Options{}); !errors.Is(err, tc.cause) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.cause)
		}
	}
}
