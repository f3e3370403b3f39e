package onnx_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/pipert/pipert/onnx"
)

// mlTreeModel is a TreeEnsembleRegressor over X [2, 2] with the given
// attributes on top of one tree of a branch and two leaves, at ai.onnx.ml
// version mlOpset (0: not imported).
func mlTreeModel(mlOpset int64, op string, edit func(map[string]*onnx.Attribute)) *onnx.Model {
	ints := func(name string, v ...int64) *onnx.Attribute {
		return &onnx.Attribute{Name: name, Type: onnx.AttrInts, Ints: v}
	}
	floats := func(name string, v ...float32) *onnx.Attribute {
		return &onnx.Attribute{Name: name, Type: onnx.AttrFloats, Floats: v}
	}
	attrs := map[string]*onnx.Attribute{
		"nodes_treeids": ints("nodes_treeids", 0, 0, 0), "nodes_nodeids": ints("nodes_nodeids", 0, 1, 2),
		"nodes_featureids": ints("nodes_featureids", 1, 0, 0), "nodes_values": floats("nodes_values", 0.5, 0, 0),
		"nodes_modes":       {Name: "nodes_modes", Type: onnx.AttrStrings, Strings: [][]byte{[]byte("BRANCH_LEQ"), []byte("LEAF"), []byte("LEAF")}},
		"nodes_truenodeids": ints("nodes_truenodeids", 1, 0, 0), "nodes_falsenodeids": ints("nodes_falsenodeids", 2, 0, 0),
	}
	outs := []*onnx.ValueInfo{{Name: "y", DataType: onnx.Float}}
	if op == "TreeEnsembleClassifier" {
		attrs["classlabels_int64s"] = ints("classlabels_int64s", 3, 4)
		attrs["class_ids"], attrs["class_nodeids"], attrs["class_treeids"] = ints("class_ids", 1, 1), ints("class_nodeids", 1, 2), ints("class_treeids", 0, 0)
		attrs["class_weights"] = floats("class_weights", 0.25, 0.75)
		outs = []*onnx.ValueInfo{{Name: "label", DataType: onnx.Int64}, {Name: "y", DataType: onnx.Float}}
	} else {
		attrs["n_targets"] = &onnx.Attribute{Name: "n_targets", Type: onnx.AttrInt, I: 1}
		attrs["target_ids"], attrs["target_nodeids"], attrs["target_treeids"] = ints("target_ids", 0, 0), ints("target_nodeids", 1, 2), ints("target_treeids", 0, 0)
		attrs["target_weights"] = floats("target_weights", -1, 2)
	}
	if edit != nil {
		edit(attrs)
	}
	node := &onnx.Node{Name: "trees", OpType: op, Domain: onnx.MLDomain, Inputs: []string{"x"}}
	for _, o := range outs {
		node.Outputs = append(node.Outputs, o.Name)
	}
	for _, a := range attrs {
		if a != nil {
			node.Attrs = append(node.Attrs, a)
		}
	}
	opsets := map[string]int64{"": 17}
	if mlOpset > 0 {
		opsets[onnx.MLDomain] = mlOpset
	}
	return &onnx.Model{IRVersion: 8, Opsets: opsets, Graph: &onnx.Graph{Name: "g", Nodes: []*onnx.Node{node},
		Inputs:  []*onnx.ValueInfo{{Name: "x", DataType: onnx.Float, HasShape: true, Dims: []onnx.Dim{{Value: 2}, {Value: 2}}}},
		Outputs: outs}}
}

// TestMLDomainVersions checks that the ai.onnx.ml version selects the
// tree ensembles' forms: 1 to 4 import, 5 (where they are deprecated) and
// a model without the domain do not.
func TestMLDomainVersions(t *testing.T) {
	for _, op := range []string{"TreeEnsembleRegressor", "TreeEnsembleClassifier"} {
		for v := int64(1); v <= 4; v++ {
			if _, err := onnx.Import(mlTreeModel(v, op, nil), onnx.Options{}); err != nil {
				t.Errorf("%s at version %d: %v", op, v, err)
			}
		}
		if _, err := onnx.Import(mlTreeModel(5, op, nil), onnx.Options{}); !errors.Is(err, onnx.ErrUnsupported) {
			t.Errorf("%s at version 5: %v, want ErrUnsupported", op, err)
		}
		if _, err := onnx.Import(mlTreeModel(0, op, nil), onnx.Options{}); !errors.Is(err, onnx.ErrImport) {
			t.Errorf("%s without the domain: %v, want ErrImport", op, err)
		}
	}
	m := mlTreeModel(3, "TreeEnsembleRegressor", nil)
	m.Graph.Nodes[0].OpType = "ZipMap"
	if _, err := onnx.Import(m, onnx.Options{}); !errors.Is(err, onnx.ErrUnsupported) || !strings.Contains(err.Error(), "ZipMap") {
		t.Errorf("ZipMap: %v, want ErrUnsupported naming it", err)
	}
}

// TestMLTreeChecks checks that malformed trees and attributes pipert does
// not implement are refused at import with an error naming the attribute.
func TestMLTreeChecks(t *testing.T) {
	ints := func(name string, v ...int64) *onnx.Attribute {
		return &onnx.Attribute{Name: name, Type: onnx.AttrInts, Ints: v}
	}
	for _, c := range []struct {
		name, op, want string
		edit           func(map[string]*onnx.Attribute)
	}{
		{"child out of range", "TreeEnsembleRegressor", "nodes_truenodeids", func(a map[string]*onnx.Attribute) { a["nodes_truenodeids"] = ints("nodes_truenodeids", 7, 0, 0) }},
		{"own child", "TreeEnsembleRegressor", "nodes_falsenodeids", func(a map[string]*onnx.Attribute) { a["nodes_falsenodeids"] = ints("nodes_falsenodeids", 0, 0, 0) }},
		{"duplicate node", "TreeEnsembleRegressor", "nodes_nodeids", func(a map[string]*onnx.Attribute) { a["nodes_nodeids"] = ints("nodes_nodeids", 0, 1, 1) }},
		{"cycle", "TreeEnsembleRegressor", "cycle", func(a map[string]*onnx.Attribute) {
			a["nodes_modes"].Strings[1] = []byte("BRANCH_LT")
			a["nodes_truenodeids"], a["nodes_falsenodeids"] = ints("nodes_truenodeids", 1, 0, 0), ints("nodes_falsenodeids", 2, 2, 0)
		}},
		{"unknown mode", "TreeEnsembleRegressor", "nodes_modes", func(a map[string]*onnx.Attribute) { a["nodes_modes"].Strings[0] = []byte("BRANCH_MEMBER") }},
		{"target out of range", "TreeEnsembleRegressor", "target_ids", func(a map[string]*onnx.Attribute) { a["target_ids"] = ints("target_ids", 0, 1) }},
		{"weight of no node", "TreeEnsembleRegressor", "target_nodeids", func(a map[string]*onnx.Attribute) { a["target_nodeids"] = ints("target_nodeids", 1, 5) }},
		{"no n_targets", "TreeEnsembleRegressor", "n_targets", func(a map[string]*onnx.Attribute) { delete(a, "n_targets") }},
		{"aggregate", "TreeEnsembleRegressor", "aggregate_function", func(a map[string]*onnx.Attribute) {
			a["aggregate_function"] = &onnx.Attribute{Name: "aggregate_function", Type: onnx.AttrString, S: []byte("MEDIAN")}
		}},
		{"string labels", "TreeEnsembleClassifier", "classlabels_strings", func(a map[string]*onnx.Attribute) {
			delete(a, "classlabels_int64s")
			a["classlabels_strings"] = &onnx.Attribute{Name: "classlabels_strings", Type: onnx.AttrStrings, Strings: [][]byte{[]byte("a"), []byte("b")}}
		}},
		{"no classes", "TreeEnsembleClassifier", "classlabels_int64s", func(a map[string]*onnx.Attribute) { a["classlabels_int64s"] = ints("classlabels_int64s") }},
		{"post_transform", "TreeEnsembleClassifier", "post_transform", func(a map[string]*onnx.Attribute) {
			a["post_transform"] = &onnx.Attribute{Name: "post_transform", Type: onnx.AttrString, S: []byte("TANH")}
		}},
	} {
		_, err := onnx.Import(mlTreeModel(3, c.op, c.edit), onnx.Options{})
		if !errors.Is(err, onnx.ErrUnsupported) && !errors.Is(err, onnx.ErrImport) || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.name, err, c.want)
		}
	}
}

// TestMLStringsRefused checks that the forms of the ai.onnx.ml ops that
// need string tensors are refused at import with an error naming the
// attribute or the version.
func TestMLStringsRefused(t *testing.T) {
	strs := func(name string, v ...string) *onnx.Attribute {
		a := &onnx.Attribute{Name: name, Type: onnx.AttrStrings}
		for _, s := range v {
			a.Strings = append(a.Strings, []byte(s))
		}
		return a
	}
	ints := func(name string, v ...int64) *onnx.Attribute {
		return &onnx.Attribute{Name: name, Type: onnx.AttrInts, Ints: v}
	}
	floats := func(name string, v ...float32) *onnx.Attribute {
		return &onnx.Attribute{Name: name, Type: onnx.AttrFloats, Floats: v}
	}
	for _, c := range []struct {
		name, op string
		version  int64
		attrs    []*onnx.Attribute
		outs     int
		want     string
	}{
		{"linear string labels", "LinearClassifier", 1, []*onnx.Attribute{floats("coefficients", 1, 2), floats("intercepts", 0), strs("classlabels_strings", "a", "b")}, 2, "classlabels_strings"},
		{"one-hot string categories", "OneHotEncoder", 1, []*onnx.Attribute{strs("cats_strings", "a", "b")}, 1, "cats_strings"},
		{"label encoder string keys", "LabelEncoder", 2, []*onnx.Attribute{strs("keys_strings", "a"), ints("values_int64s", 1)}, 1, "keys_strings"},
		{"label encoder string values", "LabelEncoder", 4, []*onnx.Attribute{ints("keys_int64s", 1), strs("values_strings", "a")}, 1, "values_strings"},
		{"label encoder version 1", "LabelEncoder", 1, []*onnx.Attribute{strs("classes_strings", "a")}, 1, "versions 2 to 5"},
	} {
		node := &onnx.Node{Name: "n", OpType: c.op, Domain: onnx.MLDomain, Inputs: []string{"x"}, Attrs: c.attrs}
		var outs []*onnx.ValueInfo
		for i := range c.outs {
			name := []string{"y", "z"}[i]
			node.Outputs = append(node.Outputs, name)
			outs = append(outs, &onnx.ValueInfo{Name: name, DataType: onnx.Float})
		}
		m := &onnx.Model{IRVersion: 8, Opsets: map[string]int64{"": 17, onnx.MLDomain: c.version}, Graph: &onnx.Graph{Name: "g", Nodes: []*onnx.Node{node},
			Inputs:  []*onnx.ValueInfo{{Name: "x", DataType: onnx.Int64, HasShape: true, Dims: []onnx.Dim{{Value: 2}, {Value: 2}}}},
			Outputs: outs}}
		_, err := onnx.Import(m, onnx.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.name, err, c.want)
		}
	}
}

// TestMLStringLabelsUnread: a classifier with string labels whose label
// output nothing reads imports (its scores do not depend on the labels),
// and the import leaves the caller's model as it was.
func TestMLStringLabelsUnread(t *testing.T) {
	m, err := onnx.ReadFile("testdata/opset/ml_linearcls_strings.onnx")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := onnx.Import(m, onnx.Options{}); err != nil {
		t.Fatal(err)
	}
	n := m.Graph.Nodes[0]
	if n.Attr("classlabels_strings") == nil || n.Attr("classlabels_ints") != nil {
		t.Errorf("the import changed the model's node: %+v", n.Attrs)
	}
	// Read by a graph output, the labels are refused.
	m.Graph.Outputs = append(m.Graph.Outputs, &onnx.ValueInfo{Name: n.Outputs[0]})
	if _, err := onnx.Import(m, onnx.Options{}); err == nil || !strings.Contains(err.Error(), "classlabels_strings") {
		t.Errorf("labels read by a graph output: %v, want an error naming classlabels_strings", err)
	}
}
