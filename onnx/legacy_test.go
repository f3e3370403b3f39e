package onnx_test

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/onnx"
)

// TestPyTorchSuites runs the ONNX project's PyTorch-exported test models
// (Debian's libonnx-testdata: data/pytorch-converted, modules of
// torch.nn, and data/pytorch-operator, single torch operators; all of
// default-domain opset 6, their weights initializers listed as inputs)
// against the outputs PyTorch computed, in KBK, and in Pipeline mode
// bit-identical to KBK. onnxruntime runs 83 of the 117 (it has no kernel
// for the opset-6 forms of Add, Mul, Gemm, BatchNormalization, PRelu, of
// AveragePool-1 and of Pow-1).
func TestPyTorchSuites(t *testing.T) {
	var dirs []string
	for _, sub := range []string{"pytorch-converted", "pytorch-operator"} {
		d, _ := filepath.Glob(filepath.Join("/usr/share/libonnx-testdata/data", sub, "test_*"))
		dirs = append(dirs, d...)
	}
	if len(dirs) == 0 {
		t.Skip("no PyTorch test models (install libonnx-testdata)")
	}
	for _, dir := range dirs {
		m, err := onnx.ReadFile(filepath.Join(dir, "model.onnx"))
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(dir), err)
			continue
		}
		if err := runNodeTest(dir, m); err != nil {
			t.Errorf("%s: %v", filepath.Base(dir), err)
		}
	}
	t.Logf("%d PyTorch test models", len(dirs))
}

// legacyModel is a model of default-domain opset opset: one node (or
// several) over float inputs of the given shapes.
func legacyModel(opset int64, nodes []*onnx.Node, inputs map[string][]int64, inits []*onnx.Tensor, outputs ...string) *onnx.Model {
	g := &onnx.Graph{Name: "legacy", Nodes: nodes, Initializers: inits}
	for _, name := range sortedKeys(inputs) {
		v := &onnx.ValueInfo{Name: name, DataType: onnx.Float, HasShape: true}
		for _, d := range inputs[name] {
			v.Dims = append(v.Dims, onnx.Dim{Value: d, Known: true})
		}
		g.Inputs = append(g.Inputs, v)
	}
	for _, o := range outputs {
		g.Outputs = append(g.Outputs, &onnx.ValueInfo{Name: o})
	}
	return &onnx.Model{IRVersion: 3, Opsets: map[string]int64{"": opset}, Graph: g}
}

func sortedKeys(m map[string][]int64) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func iota32(n int, from float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = from + float32(i)
	}
	return out
}

func f32Tensor(shape []int64, v []float32) *kernel.Tensor {
	t := kernel.New(kernel.Float32, shape...)
	copy(kernel.Float32s(t.Host), v)
	return t
}

func initF32(name string, dims []int64, v []float32) *onnx.Tensor {
	return &onnx.Tensor{Name: name, Dims: dims, DataType: onnx.Float, Floats: v}
}

func attrI(name string, v int64) *onnx.Attribute {
	return &onnx.Attribute{Name: name, Type: onnx.AttrInt, I: v}
}
func attrF(name string, v float32) *onnx.Attribute {
	return &onnx.Attribute{Name: name, Type: onnx.AttrFloat, F: v}
}
func attrInts(name string, v ...int64) *onnx.Attribute {
	return &onnx.Attribute{Name: name, Type: onnx.AttrInts, Ints: v}
}
func attrS(name, v string) *onnx.Attribute {
	return &onnx.Attribute{Name: name, Type: onnx.AttrString, S: []byte(v)}
}

// TestLegacyForms imports the forms of opsets 1 to 6 that onnxruntime has
// no kernel for (the fixtures legacy_* cover those it has) and checks
// their outputs exactly against values worked out by hand from the ONNX
// operator changelog's text (inputs chosen so that they are exact), in KBK and in Pipeline mode bit-identical to KBK.
func TestLegacyForms(t *testing.T) {
	node := func(op string, in, out []string, attrs ...*onnx.Attribute) []*onnx.Node {
		return []*onnx.Node{{Name: "n", OpType: op, Inputs: in, Outputs: out, Attrs: attrs}}
	}
	ab := []string{"a", "b"}
	y := []string{"y"}
	for _, tc := range []struct {
		name  string
		m     *onnx.Model
		in    map[string]*kernel.Tensor
		want  []float32
		shape []int64
	}{
		{"Add-6 broadcast axis 1", legacyModel(6, node("Add", ab, y, attrI("broadcast", 1), attrI("axis", 1), attrInts("consumed_inputs", 0)),
			map[string][]int64{"a": {2, 3, 2}, "b": {3}}, nil, "y"),
			map[string]*kernel.Tensor{"a": f32Tensor([]int64{2, 3, 2}, iota32(12, 0)), "b": f32Tensor([]int64{3}, []float32{100, 200, 300})},
			[]float32{100, 101, 202, 203, 304, 305, 106, 107, 208, 209, 310, 311}, []int64{2, 3, 2}},
		{"Sub-1 broadcast axis 0", legacyModel(1, node("Sub", ab, y, attrI("broadcast", 1), attrI("axis", 0)),
			map[string][]int64{"a": {2, 2, 2}, "b": {2, 2}}, nil, "y"),
			map[string]*kernel.Tensor{"a": f32Tensor([]int64{2, 2, 2}, iota32(8, 0)), "b": f32Tensor([]int64{2, 2}, []float32{1, 2, 3, 4})},
			[]float32{-1, 0, 0, 1, 1, 2, 2, 3}, []int64{2, 2, 2}},
		{"Mul-6 broadcast suffix", legacyModel(6, node("Mul", ab, y, attrI("broadcast", 1)),
			map[string][]int64{"a": {2, 3}, "b": {3}}, nil, "y"),
			map[string]*kernel.Tensor{"a": f32Tensor([]int64{2, 3}, iota32(6, 1)), "b": f32Tensor([]int64{3}, []float32{1, 10, 100})},
			[]float32{1, 20, 300, 4, 50, 600}, []int64{2, 3}},
		{"Div-6 one-element B at axis 0", legacyModel(6, node("Div", ab, y, attrI("broadcast", 1), attrI("axis", 0)),
			map[string][]int64{"a": {2, 2}, "b": {1, 1}}, nil, "y"),
			map[string]*kernel.Tensor{"a": f32Tensor([]int64{2, 2}, []float32{2, 4, 6, 8}), "b": f32Tensor([]int64{1, 1}, []float32{2})},
			[]float32{1, 2, 3, 4}, []int64{2, 2}},
		{"Pow-1 broadcast axis 0", legacyModel(1, node("Pow", ab, y, attrI("broadcast", 1), attrI("axis", 0)),
			map[string][]int64{"a": {2, 2}, "b": {2}}, nil, "y"),
			map[string]*kernel.Tensor{"a": f32Tensor([]int64{2, 2}, []float32{2, 3, 4, 9}), "b": f32Tensor([]int64{2}, []float32{2, 0.5})},
			[]float32{4, 9, 2, 3}, []int64{2, 2}},
		{"Gemm-6 broadcast C", legacyModel(6, node("Gemm", []string{"a", "b", "c"}, y, attrI("broadcast", 1), attrF("beta", 2)),
			map[string][]int64{"a": {2, 2}, "b": {2, 2}, "c": {2}}, nil, "y"),
			map[string]*kernel.Tensor{"a": f32Tensor([]int64{2, 2}, []float32{1, 2, 3, 4}), "b": f32Tensor([]int64{2, 2}, []float32{1, 0, 0, 1}), "c": f32Tensor([]int64{2}, []float32{10, 20})},
			[]float32{21, 42, 23, 44}, []int64{2, 2}},
		{"BatchNormalization-6 is_test", legacyModel(6, node("BatchNormalization", []string{"x", "s", "b", "m", "v"}, y, attrI("is_test", 1), attrF("epsilon", 0)),
			map[string][]int64{"x": {1, 2, 1, 2}}, []*onnx.Tensor{initF32("s", []int64{2}, []float32{2, 3}), initF32("b", []int64{2}, []float32{1, -1}),
				initF32("m", []int64{2}, []float32{1, 2}), initF32("v", []int64{2}, []float32{4, 1})}, "y"),
			map[string]*kernel.Tensor{"x": f32Tensor([]int64{1, 2, 1, 2}, []float32{1, 3, 2, 4})},
			[]float32{1, 3, -1, 5}, []int64{1, 2, 1, 2}},
		{"Dropout-1 is_test 0 runs as inference", legacyModel(1, node("Dropout", []string{"x"}, y, attrI("is_test", 0), attrF("ratio", 0.5), attrInts("consumed_inputs", 0)),
			map[string][]int64{"x": {3}}, nil, "y"),
			map[string]*kernel.Tensor{"x": f32Tensor([]int64{3}, []float32{1, -2, 3})},
			[]float32{1, -2, 3}, []int64{3}},
		{"PRelu-6 slope per channel", legacyModel(6, node("PRelu", []string{"x", "s"}, y),
			map[string][]int64{"x": {1, 2, 1, 2}}, []*onnx.Tensor{initF32("s", []int64{2}, []float32{0.5, 0.25})}, "y"),
			map[string]*kernel.Tensor{"x": f32Tensor([]int64{1, 2, 1, 2}, []float32{-2, 2, -4, 4})},
			[]float32{-1, 2, -1, 4}, []int64{1, 2, 1, 2}},
		{"Reshape-1 shape attribute", legacyModel(1, node("Reshape", []string{"x"}, y, attrInts("shape", 0, -1), attrInts("consumed_inputs", 0)),
			map[string][]int64{"x": {2, 3, 1}}, nil, "y"),
			map[string]*kernel.Tensor{"x": f32Tensor([]int64{2, 3, 1}, iota32(6, 0))},
			iota32(6, 0), []int64{2, 3}},
		{"Concat-1 default axis 1", legacyModel(1, node("Concat", ab, y),
			map[string][]int64{"a": {2, 1}, "b": {2, 2}}, nil, "y"),
			map[string]*kernel.Tensor{"a": f32Tensor([]int64{2, 1}, []float32{1, 2}), "b": f32Tensor([]int64{2, 2}, []float32{3, 4, 5, 6})},
			[]float32{1, 3, 4, 2, 5, 6}, []int64{2, 3}},
		{"Pad-1 paddings", legacyModel(1, node("Pad", []string{"x"}, y, attrInts("paddings", 0, 1, 0, 2), attrF("value", -1)),
			map[string][]int64{"x": {1, 2}}, nil, "y"),
			map[string]*kernel.Tensor{"x": f32Tensor([]int64{1, 2}, []float32{5, 6})},
			[]float32{-1, 5, 6, -1, -1}, []int64{1, 5}},
		{"Split-1 split input", legacyModel(1, node("Split", []string{"x", "s"}, []string{"y", "z"}, attrI("axis", 0)),
			map[string][]int64{"x": {3}}, []*onnx.Tensor{initF32("s", []int64{2}, []float32{1, 2})}, "z"),
			map[string]*kernel.Tensor{"x": f32Tensor([]int64{3}, []float32{7, 8, 9})},
			[]float32{8, 9}, []int64{2}},
		{"Tile-1 tiles and axis", legacyModel(1, node("Tile", []string{"x", "t", "ax"}, y),
			map[string][]int64{"x": {2, 2}}, []*onnx.Tensor{initF32("t", nil, []float32{2}), initF32("ax", nil, []float32{1})}, "y"),
			map[string]*kernel.Tensor{"x": f32Tensor([]int64{2, 2}, []float32{1, 2, 3, 4})},
			[]float32{1, 2, 1, 2, 3, 4, 3, 4}, []int64{2, 4}},
		{"Upsample-1 nearest", legacyModel(1, node("Upsample", []string{"x"}, y, attrF("height_scale", 2), attrF("width_scale", 1)),
			map[string][]int64{"x": {1, 1, 1, 2}}, nil, "y"),
			map[string]*kernel.Tensor{"x": f32Tensor([]int64{1, 1, 1, 2}, []float32{1, 2})},
			[]float32{1, 2, 1, 2}, []int64{1, 1, 2, 2}},
		{"Upsample-1 bilinear", legacyModel(1, node("Upsample", []string{"x"}, y, attrF("height_scale", 1), attrF("width_scale", 2), attrS("mode", "bilinear")),
			map[string][]int64{"x": {1, 1, 1, 2}}, nil, "y"),
			map[string]*kernel.Tensor{"x": f32Tensor([]int64{1, 1, 1, 2}, []float32{0, 4})},
			[]float32{0, 2, 4, 4}, []int64{1, 1, 1, 4}},
		{"Clip-1 without min", legacyModel(1, node("Clip", []string{"x"}, y, attrF("max", 1)),
			map[string][]int64{"x": {3}}, nil, "y"),
			map[string]*kernel.Tensor{"x": f32Tensor([]int64{3}, []float32{float32(math.Inf(-1)), 0.5, 3})},
			[]float32{float32(math.Inf(-1)), 0.5, 1}, []int64{3}},
		{"Selu-1 defaults", legacyModel(1, node("Selu", []string{"x"}, y, attrInts("consumed_inputs", 0)),
			map[string][]int64{"x": {2}}, nil, "y"),
			map[string]*kernel.Tensor{"x": f32Tensor([]int64{2}, []float32{1, 0})},
			[]float32{1.0507, 0}, []int64{2}},
		{"LpPool-1 float p", legacyModel(1, node("LpPool", []string{"x"}, y, attrInts("kernel_shape", 2), attrF("p", 1)),
			map[string][]int64{"x": {1, 1, 3}}, nil, "y"),
			map[string]*kernel.Tensor{"x": f32Tensor([]int64{1, 1, 3}, []float32{1, -2, 3})},
			[]float32{3, 5}, []int64{1, 1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := onnx.Import(tc.m, onnx.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := runIn(g, tc.in, pipert.KBK)
			if err != nil {
				t.Fatal(err)
			}
			out := res.Outputs[g.Outputs[len(g.Outputs)-1]]
			if !out.Shape.Equal(tc.shape) {
				t.Fatalf("shape %v, want %v", out.Shape, tc.shape)
			}
			got := kernel.Float32s(out.Host)
			if !equal32(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			piped, err := runIn(g, tc.in, pipert.Pipeline)
			if err != nil {
				t.Fatal(err)
			}
			if p := piped.Outputs[g.Outputs[len(g.Outputs)-1]]; string(p.Host) != string(out.Host) {
				t.Error("pipeline differs from KBK")
			}
		})
	}
}

// TestLegacyRefused: a form of opsets 1 to 6 the import cannot take is an
// error naming what is wrong, matching ErrImport or ErrUnsupported.
func TestLegacyRefused(t *testing.T) {
	node := func(op string, in []string, attrs ...*onnx.Attribute) []*onnx.Node {
		return []*onnx.Node{{Name: "n", OpType: op, Inputs: in, Outputs: []string{"y"}, Attrs: attrs}}
	}
	ab := []string{"a", "b"}
	for _, tc := range []struct {
		name string
		m    *onnx.Model
		want error
	}{
		{"op of opset 7", legacyModel(6, node("Acos", []string{"a"}), map[string][]int64{"a": {2}}, nil, "y"), onnx.ErrImport},
		{"Loop without a body", legacyModel(6, node("Loop", []string{"a"}), map[string][]int64{"a": {2}}, nil, "y"), onnx.ErrImport},
		{"broadcast axis out of range", legacyModel(6, node("Add", ab, attrI("broadcast", 1), attrI("axis", 2)),
			map[string][]int64{"a": {2, 3}, "b": {3}}, nil, "y"), onnx.ErrImport},
		{"broadcast B of higher rank", legacyModel(6, node("Add", ab, attrI("broadcast", 1)),
			map[string][]int64{"a": {3}, "b": {2, 3}}, nil, "y"), onnx.ErrImport},
		{"broadcast dimension mismatch", legacyModel(6, node("Mul", ab, attrI("broadcast", 1), attrI("axis", 0)),
			map[string][]int64{"a": {2, 3}, "b": {3}}, nil, "y"), onnx.ErrImport},
		{"no broadcast, shapes differ", legacyModel(6, node("Add", ab),
			map[string][]int64{"a": {2, 3}, "b": {3}}, nil, "y"), onnx.ErrImport},
		{"Cast-1 to an unknown name", legacyModel(1, node("Cast", []string{"a"}, attrS("to", "REAL")),
			map[string][]int64{"a": {2}}, nil, "y"), onnx.ErrImport},
		{"Reshape-1 without shape", legacyModel(1, node("Reshape", []string{"a"}),
			map[string][]int64{"a": {2}}, nil, "y"), onnx.ErrImport},
		{"Tile-1 tiles not constant", legacyModel(1, node("Tile", []string{"a", "b", "c"}),
			map[string][]int64{"a": {2}, "b": {}, "c": {}}, nil, "y"), onnx.ErrUnsupported},
		{"LpPool-1 fractional p", legacyModel(1, node("LpPool", []string{"a"}, attrInts("kernel_shape", 2), attrF("p", 2.5)),
			map[string][]int64{"a": {1, 1, 4}}, nil, "y"), onnx.ErrUnsupported},
		{"Split-1 split twice", legacyModel(1, []*onnx.Node{{Name: "n", OpType: "Split", Inputs: []string{"a", "s"}, Outputs: []string{"y", "z"}, Attrs: []*onnx.Attribute{attrInts("split", 1, 1)}}},
			map[string][]int64{"a": {2}}, []*onnx.Tensor{initF32("s", []int64{2}, []float32{1, 1})}, "y"), onnx.ErrImport},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := onnx.Import(tc.m, onnx.Options{})
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			t.Log(err)
		})
	}
}

// TestLegacyIfBranch: the nodes of an If's branches in a model of opset 6
// are upgraded too, in a branch run at run time and in one the import
// inlines.
func TestLegacyIfBranch(t *testing.T) {
	branch := func(v float32) *onnx.Graph {
		return &onnx.Graph{Name: "b",
			Initializers: []*onnx.Tensor{initF32("k", []int64{2}, []float32{v, 2 * v})},
			Nodes: []*onnx.Node{{OpType: "Add", Inputs: []string{"x", "k"}, Outputs: []string{"o"},
				Attrs: []*onnx.Attribute{attrI("broadcast", 1), attrI("axis", 0)}}},
			Outputs: []*onnx.ValueInfo{{Name: "o"}}}
	}
	m := legacyModel(6, []*onnx.Node{{Name: "if", OpType: "If", Inputs: []string{"c"}, Outputs: []string{"y"},
		Attrs: []*onnx.Attribute{{Name: "then_branch", Type: onnx.AttrGraph, G: branch(10)}, {Name: "else_branch", Type: onnx.AttrGraph, G: branch(100)}}}},
		map[string][]int64{"x": {2, 2}}, nil, "y")
	m.Graph.Inputs = append(m.Graph.Inputs, &onnx.ValueInfo{Name: "c", DataType: onnx.Bool, HasShape: true})
	g, err := onnx.Import(m, onnx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := f32Tensor([]int64{2, 2}, []float32{1, 2, 3, 4})
	for _, tc := range []struct {
		cond bool
		want []float32
	}{{true, []float32{11, 12, 23, 24}}, {false, []float32{101, 102, 203, 204}}} {
		c := kernel.New(kernel.Bool)
		if tc.cond {
			c.Host[0] = 1
		}
		res, err := runIn(g, map[string]*kernel.Tensor{"x": x, "c": c}, pipert.KBK)
		if err != nil {
			t.Fatal(err)
		}
		if got := kernel.Float32s(res.Outputs["y"].Host); !equal32(got, tc.want) {
			t.Errorf("cond %v: got %v, want %v", tc.cond, got, tc.want)
		}
	}
	// Folded: the condition a constant.
	m.Graph.Inputs = m.Graph.Inputs[:1]
	m.Graph.Initializers = append(m.Graph.Initializers, &onnx.Tensor{Name: "c", DataType: onnx.Bool, Int32s: []int32{0}})
	g, err = onnx.Import(m, onnx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := runIn(g, map[string]*kernel.Tensor{"x": x}, pipert.KBK)
	if err != nil {
		t.Fatal(err)
	}
	if got := kernel.Float32s(res.Outputs["y"].Host); !equal32(got, []float32{101, 102, 203, 204}) {
		t.Errorf("folded: got %v", got)
	}
}

func equal32(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// valueInfo declares a tensor of dtype dt and known dimensions.
func valueInfo(name string, dt onnx.DataType, dims ...int64) *onnx.ValueInfo {
	v := &onnx.ValueInfo{Name: name, DataType: dt, HasShape: true}
	for _, d := range dims {
		v.Dims = append(v.Dims, onnx.Dim{Value: d, Known: true})
	}
	return v
}

// TestLegacyLoopBody: the nodes of a Loop's body in a model of opset 6
// are upgraded by the ranks the body declares for its inputs (their
// dimensions unknown at import): PRelu's slope per channel applies along
// dimension 1 and a broadcast B aligns at axis, as in the main graph.
func TestLegacyLoopBody(t *testing.T) {
	vi := valueInfo
	body := &onnx.Graph{Name: "body",
		Inputs: []*onnx.ValueInfo{vi("i", onnx.Int64), vi("ci", onnx.Bool), vi("v", onnx.Float, 1, 3, 3)},
		Nodes: []*onnx.Node{
			{OpType: "PRelu", Inputs: []string{"v", "s"}, Outputs: []string{"p"}},
			{OpType: "Add", Inputs: []string{"v", "b"}, Outputs: []string{"a"}, Attrs: []*onnx.Attribute{attrI("broadcast", 1), attrI("axis", 1)}},
			{OpType: "Add", Inputs: []string{"p", "a"}, Outputs: []string{"v2"}},
			{OpType: "Identity", Inputs: []string{"ci"}, Outputs: []string{"co"}},
		},
		Outputs: []*onnx.ValueInfo{{Name: "co"}, {Name: "v2"}}}
	m := legacyModel(6, []*onnx.Node{{Name: "loop", OpType: "Loop", Inputs: []string{"m", "", "x"}, Outputs: []string{"y"},
		Attrs: []*onnx.Attribute{{Name: "body", Type: onnx.AttrGraph, G: body}}}},
		map[string][]int64{"x": {1, 3, 3}}, []*onnx.Tensor{
			{Name: "m", DataType: onnx.Int64, Int64s: []int64{1}},
			initF32("s", []int64{3}, []float32{0.5, 0.25, 2}),
			initF32("b", []int64{3}, []float32{100, 200, 300})}, "y")
	g, err := onnx.Import(m, onnx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := f32Tensor([]int64{1, 3, 3}, []float32{-4, 4, -8, -4, 4, -8, -4, 4, -8})
	want := []float32{94, 108, 88, 195, 208, 190, 288, 308, 276}
	res, err := runIn(g, map[string]*kernel.Tensor{"x": x}, pipert.KBK)
	if err != nil {
		t.Fatal(err)
	}
	if got := kernel.Float32s(res.Outputs["y"].Host); !equal32(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	piped, err := runIn(g, map[string]*kernel.Tensor{"x": x}, pipert.Pipeline)
	if err != nil {
		t.Fatal(err)
	}
	if string(piped.Outputs["y"].Host) != string(res.Outputs["y"].Host) {
		t.Error("pipeline differs from KBK")
	}
}

// TestLegacyPReluSymbolic: PRelu's slope per channel in a model of opset
// 6 applies along dimension 1 also when the input's dimensions are
// symbolic.
func TestLegacyPReluSymbolic(t *testing.T) {
	m := legacyModel(6, []*onnx.Node{{Name: "n", OpType: "PRelu", Inputs: []string{"x", "s"}, Outputs: []string{"y"}}},
		map[string][]int64{"x": {1, 2, 1, 2}}, []*onnx.Tensor{initF32("s", []int64{2}, []float32{0.5, 0.25})}, "y")
	for i := range m.Graph.Inputs[0].Dims {
		m.Graph.Inputs[0].Dims[i] = onnx.Dim{Param: fmt.Sprintf("d%d", i)}
	}
	g, err := onnx.Import(m, onnx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := runIn(g, map[string]*kernel.Tensor{"x": f32Tensor([]int64{1, 2, 1, 2}, []float32{-2, 2, -4, 4})}, pipert.KBK)
	if err != nil {
		t.Fatal(err)
	}
	if got := kernel.Float32s(res.Outputs["y"].Host); !equal32(got, []float32{-1, 2, -1, 4}) {
		t.Errorf("got %v, want [-1 2 -1 4]", got)
	}
}

// TestLegacySymbolicRanks: in a model of opset 6 whose input has symbolic
// dimensions, the upgrade of a node reading another node's output takes
// that output's rank: Add's B aligned at axis 1 and PRelu's slope per
// channel after a Relu. An output whose rank depends on the unknown
// dimensions (Squeeze without axes) stays unknown: the Add after it is
// refused.
func TestLegacySymbolicRanks(t *testing.T) {
	bcast := []*onnx.Attribute{attrI("broadcast", 1), attrI("axis", 1)}
	m := legacyModel(6, []*onnx.Node{
		{Name: "r", OpType: "Relu", Inputs: []string{"x"}, Outputs: []string{"h"}},
		{Name: "a", OpType: "Add", Inputs: []string{"h", "b"}, Outputs: []string{"s"}, Attrs: bcast},
		{Name: "p", OpType: "PRelu", Inputs: []string{"s", "k"}, Outputs: []string{"y"}},
	}, map[string][]int64{"x": {1, 2, 1, 2}}, []*onnx.Tensor{initF32("b", []int64{2}, []float32{10, -20}), initF32("k", []int64{2}, []float32{0.5, 0.25})}, "y")
	m.Graph.Inputs[0].Dims[0] = onnx.Dim{Param: "N"}
	m.Graph.Inputs[0].Dims[3] = onnx.Dim{Param: "W"}
	g, err := onnx.Import(m, onnx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]*kernel.Tensor{"x": f32Tensor([]int64{1, 2, 1, 2}, []float32{-2, 4, -6, 8})}
	res, err := runIn(g, in, pipert.KBK)
	if err != nil {
		t.Fatal(err)
	}
	if got := kernel.Float32s(res.Outputs["y"].Host); !equal32(got, []float32{10, 14, -5, -3}) {
		t.Errorf("got %v, want [10 14 -5 -3]", got)
	}
	piped, err := runIn(g, in, pipert.Pipeline)
	if err != nil {
		t.Fatal(err)
	}
	if string(piped.Outputs["y"].Host) != string(res.Outputs["y"].Host) {
		t.Error("pipeline differs from KBK")
	}

	m = legacyModel(6, []*onnx.Node{
		{Name: "q", OpType: "Squeeze", Inputs: []string{"x"}, Outputs: []string{"h"}},
		{Name: "a", OpType: "Add", Inputs: []string{"h", "b"}, Outputs: []string{"y"}, Attrs: bcast},
	}, map[string][]int64{"x": {1, 2, 1, 2}}, []*onnx.Tensor{initF32("b", []int64{2}, []float32{10, -20})}, "y")
	m.Graph.Inputs[0].Dims[0] = onnx.Dim{Param: "N"}
	if _, err := onnx.Import(m, onnx.Options{}); !errors.Is(err, onnx.ErrUnsupported) {
		t.Fatalf("Squeeze of symbolic dimensions then Add: got %v, want ErrUnsupported", err)
	}

	// A pool whose window is longer than a symbolic dimension read as 1.
	m = legacyModel(6, []*onnx.Node{
		{Name: "m", OpType: "MaxPool", Inputs: []string{"x"}, Outputs: []string{"h"}, Attrs: []*onnx.Attribute{attrInts("kernel_shape", 1, 3)}},
		{Name: "a", OpType: "Add", Inputs: []string{"h", "b"}, Outputs: []string{"y"}, Attrs: bcast},
	}, map[string][]int64{"x": {1, 2, 1, 4}}, []*onnx.Tensor{initF32("b", []int64{2}, []float32{10, -20})}, "y")
	m.Graph.Inputs[0].Dims[3] = onnx.Dim{Param: "W"}
	g, err = onnx.Import(m, onnx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err = runIn(g, map[string]*kernel.Tensor{"x": f32Tensor([]int64{1, 2, 1, 4}, []float32{1, 2, 3, 4, 5, 6, 7, 8})}, pipert.KBK)
	if err != nil {
		t.Fatal(err)
	}
	if got := kernel.Float32s(res.Outputs["y"].Host); !equal32(got, []float32{13, 14, -13, -12}) {
		t.Errorf("MaxPool then Add: got %v, want [13 14 -13 -12]", got)
	}
}

// TestLegacyLayerNormalization: onnxruntime's contrib LayerNormalization,
// which it takes in the default domain at every opset, is imported in a
// model of opset 6 as ONNX_OPS lists it: over the last axis, Y scaled and
// shifted.
func TestLegacyLayerNormalization(t *testing.T) {
	m := legacyModel(6, []*onnx.Node{{Name: "n", OpType: "LayerNormalization", Inputs: []string{"x", "s", "b"}, Outputs: []string{"y"}, Attrs: []*onnx.Attribute{attrF("epsilon", 0)}}},
		map[string][]int64{"x": {2, 2}}, []*onnx.Tensor{initF32("s", []int64{2}, []float32{2, 3}), initF32("b", []int64{2}, []float32{1, -1})}, "y")
	g, err := onnx.Import(m, onnx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := runIn(g, map[string]*kernel.Tensor{"x": f32Tensor([]int64{2, 2}, []float32{1, 3, 5, 1})}, pipert.KBK)
	if err != nil {
		t.Fatal(err)
	}
	// Each row normalises to [-1, 1] or [1, -1] (variance 1 or 4, mean
	// between), then ×[2, 3] + [1, -1].
	if got := kernel.Float32s(res.Outputs["y"].Host); !equal32(got, []float32{-1, 2, 3, -4}) {
		t.Errorf("got %v, want [-1 2 3 -4]", got)
	}
}
