package onnx

import (
	"errors"
	"strings"
	"testing"
)

// TestSplitNumOutputsImport: from opset 18 a Split has either the split
// input or the attribute num_outputs, which must count the node's
// outputs; before 18 num_outputs is not an attribute of Split.
func TestSplitNumOutputsImport(t *testing.T) {
	num := func(n int64) []*Attribute { return []*Attribute{{Name: "num_outputs", Type: AttrInt, I: n}} }
	splitModel := func(opset int64, inputs []string, attrs []*Attribute, outputs ...string) *Model {
		m := model([]*Node{{Name: "s", OpType: "Split", Inputs: inputs, Outputs: outputs, Attrs: attrs}},
			[]*ValueInfo{vi("x", Float, 7), vi("lens", Int64, 2)}, nil)
		for _, o := range outputs {
			m.Graph.Outputs = append(m.Graph.Outputs, &ValueInfo{Name: o})
		}
		m.Opsets[""] = opset
		return m
	}
	for _, tc := range []struct {
		name string
		m    *Model
		want string // an error fragment, "" when the import succeeds
	}{
		{"num_outputs", splitModel(18, []string{"x"}, num(3), "a", "b", "c"), ""},
		{"split input", splitModel(18, []string{"x", "lens"}, nil, "a", "b"), ""},
		{"opset 22", splitModel(22, []string{"x"}, num(2), "a", "b"), ""},
		{"opset 17 without either", splitModel(17, []string{"x"}, nil, "a"), ""},
		{"count mismatch", splitModel(18, []string{"x"}, num(2), "a", "b", "c"), "num_outputs 2 and 3 outputs"},
		{"both", splitModel(18, []string{"x", "lens"}, num(2), "a", "b"), "both"},
		{"neither", splitModel(18, []string{"x"}, nil, "a", "b"), "neither"},
		{"absent split input", splitModel(19, []string{"x", ""}, nil, "a", "b"), "neither"},
		{"attribute before 18", splitModel(17, []string{"x"}, num(1), "a"), "from opset 18"},
		{"empty last part", splitModel(18, []string{"x"}, num(5), "a", "b", "c", "d", "e"), "does not split"},
	} {
		_, err := Import(tc.m, Options{})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want == "":
		case err == nil:
			t.Errorf("%s: imported", tc.name)
		case !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `"s"`):
			t.Errorf("%s: error %v, want one naming node \"s\" and containing %q", tc.name, err, tc.want)
		case tc.want != "does not split" && !errors.Is(err, ErrImport):
			t.Errorf("%s: %v is not ErrImport", tc.name, err)
		}
	}
}
