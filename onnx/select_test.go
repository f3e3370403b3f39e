package onnx_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/onnx"
)

// TestZipMapClassifier: a classifier as skl2onnx writes it (fixture
// e_skl2onnx_zipmap: LinearClassifier, Normalizer, and ZipMap turning the
// probabilities into a sequence of maps) is refused with an error naming
// the tensor Options.Outputs can select instead; selecting it imports the
// classifier, whose outputs are onnxruntime's.
func TestZipMapClassifier(t *testing.T) {
	dir := filepath.Join("testdata", "opset")
	gold, err := onnx.ReadGolden(filepath.Join(dir, "e_skl2onnx_zipmap.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := onnx.ReadFile(filepath.Join(dir, gold.Model))
	if err != nil {
		t.Fatal(err)
	}
	_, err = onnx.Import(m, onnx.Options{})
	if !errors.Is(err, onnx.ErrUnsupported) || !strings.Contains(err.Error(), `select its input "probabilities", the tensor it maps, as an output instead (onnx.Options.Outputs`) {
		t.Fatalf("import with ZipMap: %v, want ErrUnsupported naming Options.Outputs and probabilities", err)
	}
	c := gold.Cases[0]
	for _, outs := range [][]string{{"label", "probabilities"}, {"probabilities"}, {"output_label", "probabilities"}} {
		gr, err := onnx.Import(m, onnx.Options{Outputs: outs})
		if err != nil {
			t.Fatalf("outputs %v: %v", outs, err)
		}
		if !equalNames(gr.Outputs, outs) {
			t.Fatalf("outputs %v: the graph's outputs are %v", outs, gr.Outputs)
		}
		want := c
		want.Outputs = map[string]*kernel.Tensor{}
		for _, o := range outs {
			want.Outputs[o] = c.Outputs[strings.TrimPrefix(o, "output_")] // output_label is label cast to int64
		}
		for _, mode := range []pipert.Mode{pipert.KBK, pipert.Pipeline} {
			res, err := runIn(gr, c.Inputs, mode)
			if err != nil {
				t.Fatalf("outputs %v, %v: %v", outs, mode, err)
			}
			if len(res.Outputs) != len(outs) {
				t.Errorf("outputs %v, %v: %d outputs", outs, mode, len(res.Outputs))
			}
			if _, err := want.Compare(res.Outputs, 1e-6); err != nil {
				t.Errorf("outputs %v, %v: %v", outs, mode, err)
			}
		}
	}
}

func equalNames(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

// selectModel: x → Relu → t → Neg → u → If (its branches read u and t
// from outside) → y; w an initializer; "junk" comes from an op pipert does
// not have. The model's outputs are y and junk.
func selectModel() *onnx.Model {
	f := onnx.Float
	x := &onnx.ValueInfo{Name: "x", DataType: f, Dims: []onnx.Dim{{Value: 3, Known: true}}, HasShape: true}
	branch := func(op, in string) *onnx.Graph {
		return &onnx.Graph{Name: op, Nodes: []*onnx.Node{{OpType: op, Inputs: []string{in}, Outputs: []string{"b"}}},
			Outputs: []*onnx.ValueInfo{{Name: "b", DataType: f}}}
	}
	return &onnx.Model{IRVersion: 8, Opsets: map[string]int64{"": 17}, Graph: &onnx.Graph{
		Name:         "select",
		Inputs:       []*onnx.ValueInfo{x, {Name: "c", DataType: onnx.Bool, HasShape: true}},
		Initializers: []*onnx.Tensor{{Name: "w", DataType: f, Dims: []int64{3}, Floats: []float32{1, 2, 3}}},
		Nodes: []*onnx.Node{
			{OpType: "Relu", Inputs: []string{"x"}, Outputs: []string{"t"}},
			{OpType: "Neg", Inputs: []string{"t"}, Outputs: []string{"u"}},
			{OpType: "If", Inputs: []string{"c"}, Outputs: []string{"y"}, Attrs: []*onnx.Attribute{
				{Name: "then_branch", Type: onnx.AttrGraph, G: branch("Identity", "u")},
				{Name: "else_branch", Type: onnx.AttrGraph, G: branch("Identity", "t")}}},
			{OpType: "NoSuchOp", Inputs: []string{"x"}, Outputs: []string{"junk"}},
		},
		ValueInfo: []*onnx.ValueInfo{{Name: "t", DataType: f}},
		Outputs:   []*onnx.ValueInfo{{Name: "y", DataType: f}, {Name: "junk", DataType: f}},
	}}
}

// TestSelectOutputs checks Options.Outputs on selectModel: each selection
// imports only what it needs (the unknown op only when junk is selected),
// keeps the model's inputs, and computes the values worked by hand, in
// every mode; a bad selection is ErrImport naming it.
func TestSelectOutputs(t *testing.T) {
	if _, err := onnx.Import(selectModel(), onnx.Options{}); !errors.Is(err, onnx.ErrUnsupported) {
		t.Fatalf("the whole model: %v, want ErrUnsupported (NoSuchOp)", err)
	}
	x := kernel.FromFloat32([]float32{-1, 2, -3}, 3)
	relu, neg := []float32{0, 2, 0}, []float32{0, -2, 0}
	for _, c := range []struct {
		outs []string
		cond bool
		want [][]float32
	}{
		{[]string{"t"}, true, [][]float32{relu}},
		{[]string{"u", "t"}, true, [][]float32{neg, relu}},
		{[]string{"y"}, true, [][]float32{neg}},
		{[]string{"y"}, false, [][]float32{relu}},
		{[]string{"x"}, true, [][]float32{{-1, 2, -3}}},
		{[]string{"w", "y"}, false, [][]float32{{1, 2, 3}, relu}},
	} {
		g, err := onnx.Import(selectModel(), onnx.Options{Outputs: c.outs})
		if err != nil {
			t.Fatalf("outputs %v: %v", c.outs, err)
		}
		if !equalNames(g.Outputs, c.outs) {
			t.Fatalf("outputs %v: the graph's outputs are %v", c.outs, g.Outputs)
		}
		if len(g.Inputs) != 2 {
			t.Errorf("outputs %v: %d graph inputs, want the model's 2", c.outs, len(g.Inputs))
		}
		for _, n := range g.Nodes {
			if n.Op == "NoSuchOp" {
				t.Errorf("outputs %v: imported NoSuchOp", c.outs)
			}
		}
		in := map[string]*kernel.Tensor{"x": x, "c": boolScalar(c.cond)}
		for _, mode := range pipert.Modes() {
			res, err := runIn(g, in, mode)
			if err != nil {
				t.Fatalf("outputs %v, %v: %v", c.outs, mode, err)
			}
			for i, o := range c.outs {
				if got := res.Outputs[o]; got == nil || !slices.Equal(kernel.Float32s(got.Host), c.want[i]) {
					t.Errorf("outputs %v, %v: %s = %v, want %v", c.outs, mode, o, got, c.want[i])
				}
			}
		}
	}
	for _, c := range []struct {
		outs []string
		want string
	}{
		{[]string{}, "Options.Outputs is empty"},
		{[]string{""}, "Options.Outputs[0] is empty"},
		{[]string{"t", "t"}, `names "t" twice`},
		{[]string{"nope"}, `"nope", which the graph neither takes nor computes`},
		{[]string{"b"}, `"b", which the graph neither takes nor computes`}, // a branch's own tensor
	} {
		if _, err := onnx.Import(selectModel(), onnx.Options{Outputs: c.outs}); !errors.Is(err, onnx.ErrImport) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("outputs %q: %v, want ErrImport saying %s", c.outs, err, c.want)
		}
	}
	if _, err := onnx.Import(selectModel(), onnx.Options{Outputs: []string{"junk"}}); !errors.Is(err, onnx.ErrUnsupported) || !strings.Contains(err.Error(), "NoSuchOp") {
		t.Errorf("outputs [junk]: %v, want ErrUnsupported naming NoSuchOp", err)
	}
}

func boolScalar(v bool) *kernel.Tensor {
	b := byte(0)
	if v {
		b = 1
	}
	return &kernel.Tensor{DType: kernel.Bool, Shape: kernel.Shape{}, Host: []byte{b}}
}

// refusingResolver builds every op but Relu with the built-ins; Relu's
// factory fails with errRefused.
type refusingResolver struct{ kernel.Resolver }

var errRefused = errors.New("refused by the caller's resolver")

func (r refusingResolver) New(op string, attrs kernel.Attrs) (kernel.Kernel, error) {
	if op == "ReLU" || op == "Relu" {
		return nil, fmt.Errorf("%s: %w", op, errRefused)
	}
	return r.Resolver.New(op, attrs)
}

// TestResolverErrorKeepsItsCause: a caller's resolver that refuses a node
// gives an import error matching ErrUnsupported and the resolver's own
// error.
func TestResolverErrorKeepsItsCause(t *testing.T) {
	_, err := onnx.Import(selectModel(), onnx.Options{Resolver: refusingResolver{ops.Builtins()}, Outputs: []string{"t"}})
	if !errors.Is(err, onnx.ErrUnsupported) || !errors.Is(err, errRefused) {
		t.Errorf("%v: want ErrUnsupported and the resolver's error", err)
	}
}

// TestSelectOutputsRefusesATensorDefinedTwice: a model in which two nodes
// write one name (an exporter's Constant repeated at the end of the graph,
// as in onnxruntime's gpt2_past test model) is refused with Options.Outputs
// as the whole graph's import refuses it, whichever node the selection
// would keep: the selected graph must not depend on which definition is
// found first.
func TestSelectOutputsRefusesATensorDefinedTwice(t *testing.T) {
	m := selectModel()
	m.Graph.Nodes = append(m.Graph.Nodes, &onnx.Node{Name: "again", OpType: "Neg", Inputs: []string{"x"}, Outputs: []string{"u"}})
	for _, outs := range [][]string{{"u"}, {"y"}, {"t"}} {
		_, err := onnx.Import(m, onnx.Options{Outputs: outs})
		if !errors.Is(err, onnx.ErrImport) || !strings.Contains(err.Error(), `tensor "u" defined twice`) {
			t.Errorf("outputs %v: %v, want ErrImport saying u is defined twice", outs, err)
		}
	}
}
