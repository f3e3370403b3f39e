package onnx

import (
	"errors"
	"strings"
	"testing"
)

// TestMistypedAttributesAreErrors: an attribute of the wrong type is an
// import error naming it, never read as 0 or ignored, in the attributes
// the import itself reads (sequence ops, legacy forms, Shape's and
// Gather's attributes) as in those it hands to the kernels.
func TestMistypedAttributesAreErrors(t *testing.T) {
	x := vi("x", Float, 2, 3, 4)
	str := func(name, s string) *Attribute { return &Attribute{Name: name, Type: AttrString, S: []byte(s)} }
	flt := func(name string, f float32) *Attribute { return &Attribute{Name: name, Type: AttrFloat, F: f} }
	at := func(opset int64, m *Model) *Model {
		m.Opsets = map[string]int64{"": opset}
		return m
	}
	seq := func(a ...*Attribute) *Model {
		return model([]*Node{
			{Name: "split", OpType: "SplitToSequence", Inputs: []string{"x"}, Outputs: []string{"s"}},
			{Name: "concat", OpType: "ConcatFromSequence", Inputs: []string{"s"}, Outputs: []string{"y"}, Attrs: a}},
			[]*ValueInfo{x}, []*ValueInfo{{Name: "y"}})
	}
	split := func(a ...*Attribute) *Model {
		return model([]*Node{
			{Name: "split", OpType: "SplitToSequence", Inputs: []string{"x"}, Outputs: []string{"s"}, Attrs: a},
			{Name: "concat", OpType: "ConcatFromSequence", Inputs: []string{"s"}, Outputs: []string{"y"}, Attrs: []*Attribute{{Name: "axis", Type: AttrInt, I: 0}}}},
			[]*ValueInfo{x}, []*ValueInfo{{Name: "y"}})
	}
	one := func(op string, a ...*Attribute) *Model {
		return model([]*Node{{Name: "n", OpType: op, Inputs: []string{"x"}, Outputs: []string{"y"}, Attrs: a}},
			[]*ValueInfo{x}, []*ValueInfo{{Name: "y"}})
	}
	for _, tc := range []struct {
		name, attr string
		m          *Model
	}{
		{"ConcatFromSequence axis FLOAT", "axis", seq(flt("axis", -1))},
		{"ConcatFromSequence axis STRING", "axis", seq(str("axis", "1"))},
		{"ConcatFromSequence new_axis STRING", "new_axis", seq(&Attribute{Name: "axis", Type: AttrInt, I: 0}, str("new_axis", "1"))},
		{"SplitToSequence axis STRING", "axis", split(str("axis", "1"))},
		{"SplitToSequence keepdims FLOAT", "keepdims", split(flt("keepdims", 0))},
		{"SequenceEmpty dtype FLOAT", "dtype", model([]*Node{
			{Name: "e", OpType: "SequenceEmpty", Outputs: []string{"s"}, Attrs: []*Attribute{flt("dtype", 7)}},
			{Name: "ins", OpType: "SequenceInsert", Inputs: []string{"s", "x"}, Outputs: []string{"s2"}},
			{Name: "at", OpType: "SequenceAt", Inputs: []string{"s2", "i"}, Outputs: []string{"y"}},
			{Name: "i", OpType: "Constant", Outputs: []string{"i"}, Attrs: []*Attribute{{Name: "value_int", Type: AttrInt, I: 0}}}},
			[]*ValueInfo{x}, []*ValueInfo{{Name: "y"}})},
		{"Gather axis FLOAT", "axis", model([]*Node{
			{Name: "s", OpType: "Shape", Inputs: []string{"x"}, Outputs: []string{"sh"}},
			{Name: "i", OpType: "Constant", Outputs: []string{"i"}, Attrs: []*Attribute{{Name: "value_ints", Type: AttrInts, Ints: []int64{1}}}},
			{Name: "g", OpType: "Gather", Inputs: []string{"sh", "i"}, Outputs: []string{"y"}, Attrs: []*Attribute{flt("axis", 1)}}},
			[]*ValueInfo{x}, []*ValueInfo{{Name: "y"}})},
		{"Shape start FLOAT", "start", at(15, one("Shape", flt("start", 1)))},
		{"Shape end STRING", "end", at(15, one("Shape", str("end", "2")))},
		{"Pad paddings INT (opset 1)", "paddings", at(1, one("Pad", &Attribute{Name: "paddings", Type: AttrInt, I: 1}))},
		{"Reshape shape FLOATS (opset 1)", "shape", at(1, one("Reshape", &Attribute{Name: "shape", Type: AttrFloats, Floats: []float32{6, 4}}))},
		{"Softmax axis STRING", "axis", one("Softmax", str("axis", "1"))},
	} {
		_, err := Import(tc.m, Options{})
		switch {
		case err == nil:
			t.Errorf("%s: imported", tc.name)
		case !errors.Is(err, ErrImport):
			t.Errorf("%s: %v, want ErrImport", tc.name, err)
		case !strings.Contains(err.Error(), `"`+tc.attr+`"`):
			t.Errorf("%s: %v does not name attribute %q", tc.name, err, tc.attr)
		}
	}
}

// TestUnknownAttributesOfResolvedOps: an attribute that an op the import
// resolves itself (Identity, If, Loop, the sequence and optional ops) does
// not take is an ErrUnsupported error naming it, as a kernel's refusal
// of an unknown attribute is; one a local function does not declare, on
// a call of it, an ErrImport.
func TestUnknownAttributesOfResolvedOps(t *testing.T) {
	x := vi("x", Float, 2, 3)
	zz := &Attribute{Name: "zz_unknown", Type: AttrInt, I: 1}
	branch := func(out string) *Graph {
		return &Graph{Name: "b", Nodes: []*Node{{OpType: "Identity", Inputs: []string{"x"}, Outputs: []string{out}}}, Outputs: []*ValueInfo{{Name: out}}}
	}
	for name, m := range map[string]*Model{
		"Identity": model([]*Node{{Name: "n", OpType: "Identity", Inputs: []string{"x"}, Outputs: []string{"y"}, Attrs: []*Attribute{zz}}},
			[]*ValueInfo{x}, []*ValueInfo{{Name: "y"}}),
		"If": model([]*Node{{Name: "n", OpType: "If", Inputs: []string{"c"}, Outputs: []string{"y"}, Attrs: []*Attribute{
			{Name: "then_branch", Type: AttrGraph, G: branch("t")}, {Name: "else_branch", Type: AttrGraph, G: branch("e")}, zz}}},
			[]*ValueInfo{x, vi("c", Bool)}, []*ValueInfo{{Name: "y"}}),
		"SequenceConstruct": model([]*Node{
			{Name: "n", OpType: "SequenceConstruct", Inputs: []string{"x"}, Outputs: []string{"s"}, Attrs: []*Attribute{zz}},
			{Name: "c", OpType: "ConcatFromSequence", Inputs: []string{"s"}, Outputs: []string{"y"}, Attrs: []*Attribute{{Name: "axis", Type: AttrInt, I: 0}}}},
			[]*ValueInfo{x}, []*ValueInfo{{Name: "y"}}),
		"ConcatFromSequence": model([]*Node{
			{Name: "s", OpType: "SequenceConstruct", Inputs: []string{"x"}, Outputs: []string{"s"}},
			{Name: "n", OpType: "ConcatFromSequence", Inputs: []string{"s"}, Outputs: []string{"y"}, Attrs: []*Attribute{{Name: "axis", Type: AttrInt, I: 0}, zz}}},
			[]*ValueInfo{x}, []*ValueInfo{{Name: "y"}}),
	} {
		_, err := Import(m, Options{})
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), `"zz_unknown"`) || !strings.Contains(err.Error(), `"n"`) {
			t.Errorf("%s with an unknown attribute: %v, want an ErrUnsupported naming node n and the attribute", name, err)
		}
	}
	f := &Function{Name: "F", Domain: "local", Inputs: []string{"a"}, Outputs: []string{"b"}, Attrs: []string{"alpha"},
		Nodes: []*Node{{OpType: "Relu", Inputs: []string{"a"}, Outputs: []string{"b"}}}, Opsets: map[string]int64{"": 13}}
	call := func(a *Attribute) *Model {
		m := model([]*Node{{Name: "n", OpType: "F", Domain: "local", Inputs: []string{"x"}, Outputs: []string{"y"}, Attrs: []*Attribute{a}}},
			[]*ValueInfo{x}, []*ValueInfo{{Name: "y"}})
		m.Opsets["local"] = 1
		m.Functions = []*Function{f}
		return m
	}
	if _, err := Import(call(&Attribute{Name: "alpha", Type: AttrFloat, F: 1}), Options{}); err != nil {
		t.Errorf("a call with a declared attribute: %v", err)
	}
	if _, err := Import(call(zz), Options{}); !errors.Is(err, ErrImport) || !strings.Contains(err.Error(), `"zz_unknown"`) {
		t.Errorf("a call with an undeclared attribute: %v, want an ErrImport naming it", err)
	}
}
