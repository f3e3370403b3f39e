package onnx

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func vi(name string, dt DataType, dims ...int64) *ValueInfo {
	v := &ValueInfo{Name: name, DataType: dt, HasShape: true}
	for _, d := range dims {
		v.Dims = append(v.Dims, Dim{Value: d, Known: true})
	}
	return v
}

func model(nodes []*Node, inputs, outputs []*ValueInfo) *Model {
	return &Model{IRVersion: 8, Opsets: map[string]int64{"": 13}, Graph: &Graph{Name: "bad", Nodes: nodes, Inputs: inputs, Outputs: outputs}}
}

// TestBadGraphsAreClearErrors: each kind of bad graph is an error that
// names the node at fault.
func TestBadGraphsAreClearErrors(t *testing.T) {
	x := vi("x", Float, 2, 3)
	branch := func(outs ...string) *Graph {
		g := &Graph{Name: "b"}
		for _, o := range outs {
			g.Nodes = append(g.Nodes, &Node{OpType: "Relu", Inputs: []string{"x"}, Outputs: []string{o}})
			g.Outputs = append(g.Outputs, &ValueInfo{Name: o})
		}
		return g
	}
	for _, tc := range []struct {
		name, node string
		m          *Model
		cause      error
	}{
		{"cycle", "a", model([]*Node{
			{Name: "a", OpType: "Relu", Inputs: []string{"b_out"}, Outputs: []string{"a_out"}},
			{Name: "b", OpType: "Relu", Inputs: []string{"a_out"}, Outputs: []string{"b_out"}}}, []*ValueInfo{x}, []*ValueInfo{{Name: "b_out"}}), ErrImport},
		{"missing input", "r", model([]*Node{{Name: "r", OpType: "Relu", Inputs: []string{"nowhere"}, Outputs: []string{"y"}}},
			[]*ValueInfo{x}, []*ValueInfo{{Name: "y"}}), ErrImport},
		{"unsupported op", "h", model([]*Node{{Name: "h", OpType: "StringNormalizer", Inputs: []string{"x"}, Outputs: []string{"y"}}},
			[]*ValueInfo{x}, []*ValueInfo{{Name: "y"}}), ErrUnsupported},
		{"foreign domain", "c", model([]*Node{{Name: "c", OpType: "Relu", Domain: "com.microsoft", Inputs: []string{"x"}, Outputs: []string{"y"}}},
			[]*ValueInfo{x}, []*ValueInfo{{Name: "y"}}), ErrUnsupported},
		{"dtype the op does not take", "add", model([]*Node{{Name: "add", OpType: "Add", Inputs: []string{"p", "p"}, Outputs: []string{"y"}}},
			[]*ValueInfo{vi("p", Bool, 2)}, []*ValueInfo{{Name: "y"}}), ErrImport},
		{"shapes that do not broadcast", "add", model([]*Node{{Name: "add", OpType: "Add", Inputs: []string{"x", "q"}, Outputs: []string{"y"}}},
			[]*ValueInfo{x, vi("q", Float, 4)}, []*ValueInfo{{Name: "y"}}), ErrImport},
		{"axis out of range", "sm", model([]*Node{{Name: "sm", OpType: "Softmax", Inputs: []string{"x"}, Outputs: []string{"y"},
			Attrs: []*Attribute{{Name: "axis", Type: AttrInt, I: 5}}}}, []*ValueInfo{x}, []*ValueInfo{{Name: "y"}}), ErrImport},
		{"attribute given twice", "sm", model([]*Node{{Name: "sm", OpType: "Softmax", Inputs: []string{"x"}, Outputs: []string{"y"},
			Attrs: []*Attribute{{Name: "axis", Type: AttrInt, I: 1}, {Name: "axis", Type: AttrInt, I: 0}}}}, []*ValueInfo{x}, []*ValueInfo{{Name: "y"}}), ErrImport},
		{"output declared of another type", "y", model([]*Node{{Name: "r", OpType: "Relu", Inputs: []string{"x"}, Outputs: []string{"y"}}},
			[]*ValueInfo{x}, []*ValueInfo{{Name: "y", DataType: Int64}}), ErrImport},
		{"branches of different types", "if", model([]*Node{{Name: "if", OpType: "If", Inputs: []string{"c"}, Outputs: []string{"y"},
			Attrs: []*Attribute{{Name: "then_branch", Type: AttrGraph, G: typed(branch("t1"), Float)}, {Name: "else_branch", Type: AttrGraph, G: typed(branch("e1"), Int64)}}}},
			[]*ValueInfo{x, vi("c", Bool)}, []*ValueInfo{{Name: "y"}}), ErrImport},
		{"branches disagree", "if", model([]*Node{{Name: "if", OpType: "If", Inputs: []string{"c"}, Outputs: []string{"y"},
			Attrs: []*Attribute{{Name: "then_branch", Type: AttrGraph, G: branch("t1")}, {Name: "else_branch", Type: AttrGraph, G: branch("e1", "e2")}}}},
			[]*ValueInfo{x, vi("c", Bool)}, []*ValueInfo{{Name: "y"}}), ErrImport},
		{"defined twice", "r2", model([]*Node{
			{Name: "r1", OpType: "Relu", Inputs: []string{"x"}, Outputs: []string{"y"}},
			{Name: "r2", OpType: "Relu", Inputs: []string{"x"}, Outputs: []string{"y"}}}, []*ValueInfo{x}, []*ValueInfo{{Name: "y"}}), ErrImport},
		{"unsupported opset", "s", &Model{Opsets: map[string]int64{"": 11}, Graph: &Graph{Nodes: []*Node{{Name: "s", OpType: "HardSwish", Inputs: []string{"x"}, Outputs: []string{"y"}}},
			Inputs: []*ValueInfo{x}, Outputs: []*ValueInfo{{Name: "y"}}}}, ErrUnsupported},
	} {
		_, err := Import(tc.m, Options{})
		if err == nil {
			t.Errorf("%s: imported", tc.name)
			continue
		}
		if tc.cause != nil && !errors.Is(err, tc.cause) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.cause)
		}
		if !strings.Contains(err.Error(), `"`+tc.node+`"`) {
			t.Errorf("%s: error %v does not name node %q", tc.name, err, tc.node)
		}
	}
}

// typed declares g's outputs of type dt.
func typed(g *Graph, dt DataType) *Graph {
	for _, o := range g.Outputs {
		o.DataType = dt
	}
	return g
}

// TestNilEntriesAreErrors: a model built by hand with a nil node,
// initializer, value or attribute is an ErrImport error, never a panic.
func TestNilEntriesAreErrors(t *testing.T) {
	base := func() *Model {
		return model([]*Node{{Name: "r", OpType: "Relu", Inputs: []string{"x"}, Outputs: []string{"y"}}},
			[]*ValueInfo{vi("x", Float, 2)}, []*ValueInfo{{Name: "y"}})
	}
	for name, spoil := range map[string]func(m *Model){
		"initializer": func(m *Model) { m.Graph.Initializers = []*Tensor{nil} },
		"input":       func(m *Model) { m.Graph.Inputs = append(m.Graph.Inputs, nil) },
		"output":      func(m *Model) { m.Graph.Outputs = append(m.Graph.Outputs, nil) },
		"value_info":  func(m *Model) { m.Graph.ValueInfo = []*ValueInfo{nil} },
		"node":        func(m *Model) { m.Graph.Nodes = append(m.Graph.Nodes, nil) },
		"attribute":   func(m *Model) { m.Graph.Nodes[0].Attrs = []*Attribute{nil} },
		"in a branch": func(m *Model) {
			m.Graph.Nodes = append(m.Graph.Nodes, &Node{Name: "if", OpType: "If", Inputs: []string{"c"}, Outputs: []string{"z"},
				Attrs: []*Attribute{{Name: "then_branch", Type: AttrGraph, G: &Graph{Nodes: []*Node{nil}}}}})
		},
	} {
		m := base()
		spoil(m)
		if _, err := Import(m, Options{}); !errors.Is(err, ErrImport) || !strings.Contains(err.Error(), "nil") {
			t.Errorf("nil %s: %v, want ErrImport naming the nil entry", name, err)
		}
	}
}

// TestRuntimeIfImports: an If whose condition is a graph input stays a
// runtime If whose branches capture the outer tensors they read; one whose
// condition folds is inlined.
func TestRuntimeIfImports(t *testing.T) {
	x := vi("x", Float, 2, 3)
	branch := func(op string) *Graph {
		return &Graph{Name: op, Nodes: []*Node{{OpType: op, Inputs: []string{"x"}, Outputs: []string{"o"}}}, Outputs: []*ValueInfo{{Name: "o"}}}
	}
	ifNode := &Node{Name: "if", OpType: "If", Inputs: []string{"c"}, Outputs: []string{"y"},
		Attrs: []*Attribute{{Name: "then_branch", Type: AttrGraph, G: branch("Relu")}, {Name: "else_branch", Type: AttrGraph, G: branch("Relu")}}}
	g, err := Import(model([]*Node{ifNode}, []*ValueInfo{x, vi("c", Bool)}, []*ValueInfo{{Name: "y"}}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Nodes) != 1 || g.Nodes[0].Op != "If" || len(g.Nodes[0].Inputs) != 2 || g.Nodes[0].Inputs[1] != "x" {
		t.Fatalf("runtime If imported as %+v", g.Nodes)
	}
	folded := model([]*Node{{Name: "k", OpType: "Constant", Outputs: []string{"c"},
		Attrs: []*Attribute{{Name: "value", Type: AttrTensor, T: &Tensor{DataType: Bool, Raw: []byte{1}}}}}, ifNode}, []*ValueInfo{x}, []*ValueInfo{{Name: "y"}})
	g, err = Import(folded, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Nodes) != 1 || g.Nodes[0].Op != "ReLU" {
		t.Fatalf("folded If imported as %+v", g.Nodes)
	}
}

// TestNotImplementedIsUnsupported: a valid node whose operands a kernel
// does not implement (com.microsoft QGemm with an empty inner dimension,
// found at shape inference, not by the op's factory) is ErrUnsupported,
// not an invalid graph.
func TestNotImplementedIsUnsupported(t *testing.T) {
	m := model([]*Node{{OpType: "QGemm", Domain: MSDomain, Inputs: []string{"a", "as", "az", "b", "bs", "bz"}, Outputs: []string{"y"}}},
		[]*ValueInfo{vi("a", Uint8, 2, 0)}, []*ValueInfo{{Name: "y"}})
	m.Opsets[MSDomain] = 1
	m.Graph.Initializers = []*Tensor{
		{Name: "as", DataType: Float, Floats: []float32{0.5}},
		{Name: "az", DataType: Uint8, Raw: []byte{1}},
		{Name: "b", DataType: Uint8, Dims: []int64{0, 3}},
		{Name: "bs", DataType: Float, Floats: []float32{0.25}},
		{Name: "bz", DataType: Uint8, Raw: []byte{2}},
	}
	_, err := Import(m, Options{})
	if !errors.Is(err, ErrUnsupported) || errors.Is(err, ErrImport) {
		t.Fatalf("QGemm with K = 0: %v, want ErrUnsupported (and not ErrImport)", err)
	}
	if !strings.Contains(err.Error(), "not implemented") {
		t.Errorf("error %q does not say what is not implemented", err)
	}
}

// TestNoDefaultOpset: a model of IR version 3 or later whose nodes are of
// the default domain must import its opset (a file cut short loses
// opset_import); before IR version 3 models had none and follow opset 1.
func TestNoDefaultOpset(t *testing.T) {
	m := model([]*Node{{Name: "sm", OpType: "Softmax", Inputs: []string{"x"}, Outputs: []string{"y"}}},
		[]*ValueInfo{vi("x", Float, 2, 2, 2)}, []*ValueInfo{{Name: "y"}})
	m.Opsets = nil
	_, err := Import(m, Options{})
	if !errors.Is(err, ErrImport) || !strings.Contains(err.Error(), "opset_import") || !strings.Contains(err.Error(), `"sm"`) {
		t.Fatalf("IR version 8 without opset_import: %v, want ErrImport naming opset_import and the node", err)
	}
	m.Opsets = map[string]int64{MLDomain: 3}
	if _, err := Import(m, Options{}); !errors.Is(err, ErrImport) {
		t.Fatalf("IR version 8 importing only ai.onnx.ml: %v, want ErrImport", err)
	}
	m.IRVersion, m.Opsets = 2, nil
	if _, err := Import(m, Options{}); err != nil {
		t.Fatalf("IR version 2 without opset_import (opset 1): %v", err)
	}
}

// TestHandBuiltModelsThatParseCannotMake: a model built by hand whose If
// branch is its own graph, or whose function has a nil node, is an
// ErrImport error, not a stack overflow or a nil dereference.
func TestHandBuiltModelsThatParseCannotMake(t *testing.T) {
	x := vi("x", Float, 2)
	m := model([]*Node{{Name: "r", OpType: "Relu", Inputs: []string{"x"}, Outputs: []string{"y"}}}, []*ValueInfo{x, vi("c", Bool)}, []*ValueInfo{{Name: "y"}})
	m.Graph.Nodes = append(m.Graph.Nodes, &Node{Name: "if", OpType: "If", Inputs: []string{"c"}, Outputs: []string{"z"},
		Attrs: []*Attribute{{Name: "then_branch", Type: AttrGraph, G: m.Graph}, {Name: "else_branch", Type: AttrGraph, G: m.Graph}}})
	if _, err := Import(m, Options{}); !errors.Is(err, ErrImport) || !strings.Contains(err.Error(), "holds itself") {
		t.Errorf("an If whose branch is its own graph: %v, want ErrImport naming the cycle", err)
	}
	f := model([]*Node{{Name: "call", OpType: "F", Domain: "local", Inputs: []string{"x"}, Outputs: []string{"y"}}}, []*ValueInfo{x}, []*ValueInfo{{Name: "y"}})
	f.Opsets["local"] = 1
	f.Functions = []*Function{{Name: "F", Domain: "local", Inputs: []string{"a"}, Outputs: []string{"b"}, Nodes: []*Node{nil}, Opsets: map[string]int64{"": 13}}}
	if _, err := Import(f, Options{}); !errors.Is(err, ErrImport) || !strings.Contains(err.Error(), "function F") {
		t.Errorf("a function with a nil node: %v, want ErrImport naming the function", err)
	}
}

// TestFunctionFanOutIsBounded: local functions each calling the next
// twice make a small model stand for 2^depth nodes: past maxInlined the
// import fails (ErrImport), where it would run for hours.
func TestFunctionFanOutIsBounded(t *testing.T) {
	defer func(n int) { maxInlined = n }(maxInlined)
	maxInlined = 1000
	fan := func(depth int) *Model {
		m := model([]*Node{{Name: "call", OpType: "F0", Domain: "local", Inputs: []string{"x"}, Outputs: []string{"y"}}},
			[]*ValueInfo{vi("x", Float, 2)}, []*ValueInfo{{Name: "y"}})
		m.Opsets["local"] = 1
		for i := range depth {
			f := &Function{Name: fmt.Sprintf("F%d", i), Domain: "local", Inputs: []string{"a"}, Outputs: []string{"b"}, Opsets: map[string]int64{"": 13, "local": 1}}
			if i == depth-1 {
				f.Nodes = []*Node{{Name: "r", OpType: "Relu", Inputs: []string{"a"}, Outputs: []string{"b"}}}
			} else {
				next := fmt.Sprintf("F%d", i+1)
				f.Nodes = []*Node{{Name: "c1", OpType: next, Domain: "local", Inputs: []string{"a"}, Outputs: []string{"p"}},
					{Name: "c2", OpType: next, Domain: "local", Inputs: []string{"a"}, Outputs: []string{"q"}},
					{Name: "add", OpType: "Add", Inputs: []string{"p", "q"}, Outputs: []string{"b"}}}
			}
			m.Functions = append(m.Functions, f)
		}
		return m
	}
	if _, err := Import(fan(6), Options{NoFold: true}); err != nil {
		t.Fatalf("depth 6 (%d nodes): %v", 1<<6, err)
	}
	if _, err := Import(fan(30), Options{NoFold: true}); !errors.Is(err, ErrImport) || !strings.Contains(err.Error(), "more than 1000 nodes") {
		t.Errorf("depth 30: %v, want ErrImport naming the bound", err)
	}
}

// TestNodeRedefiningAGraphInput: a node writing a graph input's or an
// initializer's name is that name defined twice, said so, not a cycle
// through the nodes reading it.
func TestNodeRedefiningAGraphInput(t *testing.T) {
	x := vi("x", Float, 2)
	m := model([]*Node{{Name: "add", OpType: "Add", Inputs: []string{"x", "x"}, Outputs: []string{"y"}},
		{Name: "neg", OpType: "Neg", Inputs: []string{"y"}, Outputs: []string{"x"}}}, []*ValueInfo{x}, []*ValueInfo{{Name: "y"}})
	if _, err := Import(m, Options{}); !errors.Is(err, ErrImport) || !strings.Contains(err.Error(), `tensor "x" defined twice: graph input and output of node "neg"`) {
		t.Errorf("a node writing a graph input: %v", err)
	}
	m = model([]*Node{{Name: "add", OpType: "Add", Inputs: []string{"x", "w"}, Outputs: []string{"y"}},
		{Name: "neg", OpType: "Neg", Inputs: []string{"x"}, Outputs: []string{"w"}}}, []*ValueInfo{x}, []*ValueInfo{{Name: "y"}})
	m.Graph.Initializers = []*Tensor{{Name: "w", DataType: Float, Dims: []int64{2}, Floats: []float32{1, 2}}}
	if _, err := Import(m, Options{}); !errors.Is(err, ErrImport) || !strings.Contains(err.Error(), `tensor "w" defined twice: initializer`) {
		t.Errorf("a node writing an initializer: %v", err)
	}
}

// TestOptionsShapesAndValuesAgree: an input given both a shape and a value
// in Options must be given one shape; contradicting ones are ErrImport
// (the value won, silently).
func TestOptionsShapesAndValuesAgree(t *testing.T) {
	m := model([]*Node{{Name: "r", OpType: "Relu", Inputs: []string{"x"}, Outputs: []string{"y"}}},
		[]*ValueInfo{{Name: "x", DataType: Float}}, []*ValueInfo{{Name: "y"}})
	v := kernel.FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	if _, err := Import(m, Options{Shapes: map[string][]int64{"x": {3, 3}}, Values: map[string]*kernel.Tensor{"x": v}}); !errors.Is(err, ErrImport) {
		t.Errorf("shape [3 3] and a [2 3] value: %v, want ErrImport", err)
	}
	if _, err := Import(m, Options{Shapes: map[string][]int64{"x": {2, 3}}, Values: map[string]*kernel.Tensor{"x": v}}); err != nil {
		t.Errorf("shape [2 3] and a [2 3] value: %v", err)
	}
}

// TestInputOfAnyRank: a graph input with no shape at all is valid ONNX
// that pipert cannot take without its dimensions: ErrUnsupported, saying
// to give them; with Options.Shapes it imports.
func TestInputOfAnyRank(t *testing.T) {
	m := model([]*Node{{OpType: "Relu", Inputs: []string{"x"}, Outputs: []string{"y"}}}, []*ValueInfo{{Name: "x", DataType: Float}}, []*ValueInfo{vi("y", Float)})
	if _, err := Import(m, Options{}); !errors.Is(err, ErrUnsupported) || errors.Is(err, ErrImport) || !strings.Contains(err.Error(), "Options.Shapes") {
		t.Errorf("input of any rank: %v, want ErrUnsupported naming Options.Shapes", err)
	}
	if _, err := Import(m, Options{Shapes: map[string][]int64{"x": {2, 3}}}); err != nil {
		t.Errorf("with its shape given: %v", err)
	}
}

// TestQLinearSoftmaxOpsetRequired: com.microsoft QLinearSoftmax's
// attribute "opset" is its own and required (onnxruntime refuses the node
// without it); the model's opset, which every node's attributes carry
// under that name, does not stand in for a missing one.
func TestQLinearSoftmaxOpsetRequired(t *testing.T) {
	for _, c := range []struct {
		name  string
		attrs []*Attribute
		ok    bool
	}{
		{"without opset", nil, false},
		{"opset 13", []*Attribute{{Name: "opset", Type: AttrInt, I: 13}}, true},
	} {
		m := model([]*Node{{Name: "sm", OpType: "QLinearSoftmax", Domain: MSDomain, Inputs: []string{"x", "xs", "xz", "ys", "yz"}, Outputs: []string{"y"}, Attrs: c.attrs}},
			[]*ValueInfo{vi("x", Int8, 2, 4)}, []*ValueInfo{{Name: "y"}})
		m.Opsets[MSDomain] = 1
		m.Graph.Initializers = []*Tensor{
			{Name: "xs", DataType: Float, Floats: []float32{0.5}},
			{Name: "xz", DataType: Int8, Raw: []byte{0}},
			{Name: "ys", DataType: Float, Floats: []float32{1.0 / 256}},
			{Name: "yz", DataType: Int8, Raw: []byte{0x80}},
		}
		_, err := Import(m, Options{})
		switch {
		case c.ok && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case !c.ok && (!errors.Is(err, ErrImport) || !strings.Contains(err.Error(), `"opset"`) || !strings.Contains(err.Error(), "QLinearSoftmax")):
			t.Errorf("%s: %v, want ErrImport naming the node and the attribute", c.name, err)
		}
	}
}

// TestDecodeGoldenOfNoReader: DecodeGolden of a nil reader is an error;
// Attr of a nil Node, or past a nil attribute, never panics.
func TestDecodeGoldenOfNoReader(t *testing.T) {
	if _, err := DecodeGolden(nil); err == nil {
		t.Error("DecodeGolden(nil) gave no error")
	}
	var n *Node
	if n.Attr("axis") != nil {
		t.Error("a nil Node has an attribute")
	}
	n = &Node{Attrs: []*Attribute{nil, {Name: "axis", Type: AttrInt, I: 1}}}
	if a := n.Attr("axis"); a == nil || a.I != 1 {
		t.Errorf("Attr past a nil attribute: %v", a)
	}
}
