package onnx_test

import (
	"context"
	"slices"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/onnx"
)

// TestOutputsOfOneTensor: graph outputs that are one tensor under several
// names (Identity of it, Identity of an Identity, the tensor itself in
// either order) each get its value.
func TestOutputsOfOneTensor(t *testing.T) {
	x := &onnx.ValueInfo{Name: "x", DataType: onnx.Float, Dims: []onnx.Dim{{Value: 2, Known: true}}, HasShape: true}
	nodes := []*onnx.Node{
		{OpType: "Relu", Inputs: []string{"x"}, Outputs: []string{"t"}},
		{OpType: "Identity", Inputs: []string{"t"}, Outputs: []string{"y"}},
		{OpType: "Identity", Inputs: []string{"t"}, Outputs: []string{"z"}},
		{OpType: "Identity", Inputs: []string{"y"}, Outputs: []string{"w"}},
	}
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{-1, 2}, 2)}
	relu := []float32{0, 2}
	for _, outs := range [][]string{{"y", "z"}, {"t", "y"}, {"y", "t"}, {"w", "y", "z", "t"}} {
		var vs []*onnx.ValueInfo
		want := make([][]float32, len(outs))
		for i, o := range outs {
			vs = append(vs, &onnx.ValueInfo{Name: o})
			want[i] = relu
		}
		m := &onnx.Model{IRVersion: 8, Opsets: map[string]int64{"": 17}, Graph: &onnx.Graph{Name: "g", Inputs: []*onnx.ValueInfo{x}, Nodes: nodes, Outputs: vs}}
		g, err := onnx.Import(m, onnx.Options{})
		if err != nil {
			t.Fatalf("outputs %v: %v", outs, err)
		}
		checkRunOutputs(t, g, in, want)
	}
}

// TestOutputListedTwice: a graph output listed twice is one output, as
// onnxruntime returns it once; its declared type is checked once.
func TestOutputListedTwice(t *testing.T) {
	x := &onnx.ValueInfo{Name: "x", DataType: onnx.Float, Dims: []onnx.Dim{{Value: 2, Known: true}}, HasShape: true}
	nodes := []*onnx.Node{{OpType: "Relu", Inputs: []string{"x"}, Outputs: []string{"t"}}}
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{-1, 2}, 2)}
	vals := map[string][]float32{"t": {0, 2}, "x": {-1, 2}}
	for _, tc := range []struct{ listed, want []string }{
		{[]string{"t", "t"}, []string{"t"}},
		{[]string{"t", "x", "t", "x"}, []string{"t", "x"}},
		{[]string{"x", "t", "x"}, []string{"x", "t"}},
	} {
		var vs []*onnx.ValueInfo
		for _, o := range tc.listed {
			vs = append(vs, &onnx.ValueInfo{Name: o, DataType: onnx.Float})
		}
		m := &onnx.Model{IRVersion: 8, Opsets: map[string]int64{"": 17}, Graph: &onnx.Graph{Name: "g", Inputs: []*onnx.ValueInfo{x}, Nodes: nodes, Outputs: vs}}
		g, err := onnx.Import(m, onnx.Options{})
		if err != nil {
			t.Fatalf("outputs %v: %v", tc.listed, err)
		}
		if !slices.Equal(g.Outputs, tc.want) {
			t.Fatalf("outputs %v imported as %v, want %v", tc.listed, g.Outputs, tc.want)
		}
		var want [][]float32
		for _, o := range tc.want {
			want = append(want, vals[o])
		}
		checkRunOutputs(t, g, in, want)
	}
}

// TestEmptyFoldedOutputIsReal: a graph output folded at import from an
// empty input (Reshape of [2, 0, 3]) is a real empty tensor: it has host
// data (of no bytes), so that a caller tells it from a virtual one.
func TestEmptyFoldedOutputIsReal(t *testing.T) {
	g, err := onnx.ImportFile("testdata/opset/e_empty_reshape.onnx", onnx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	exe, err := pipert.Compile(g)
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	res, err := exe.Run(context.Background(), map[string]*kernel.Tensor{"a": kernel.New(kernel.Float32, 2, 0, 3)})
	if err != nil {
		t.Fatal(err)
	}
	if y := res.Outputs["y"]; y == nil || y.Host == nil || !y.Shape.Equal(kernel.Shape{2, 0}) {
		t.Fatalf("output y %+v: want a real [2 0] tensor", y)
	}
}
