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
