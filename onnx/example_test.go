package onnx_test

import (
	"context"
	"fmt"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/control"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/onnx"
)

// Example imports an ONNX backend test model (Relu) built here in the
// protobuf wire format, and runs it.
func Example() {
	g, err := onnx.Import(reluModel(), onnx.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	exe, err := pipert.Compile(g, pipert.WithRegistry(control.Resolver{Base: ops.Builtins()}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer exe.Close()
	res, err := exe.Run(context.Background(), map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{-1, 2, -3}, 3)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.Nodes[0].Op, kernel.Float32s(res.Outputs["y"].Host))
	// Output: ReLU [0 2 0]
}

// reluModel is y = Relu(x), x float32[3], at opset 13.
func reluModel() *onnx.Model {
	return &onnx.Model{IRVersion: 8, Opsets: map[string]int64{"": 13}, Graph: &onnx.Graph{
		Name:    "relu",
		Nodes:   []*onnx.Node{{Name: "r", OpType: "Relu", Inputs: []string{"x"}, Outputs: []string{"y"}}},
		Inputs:  []*onnx.ValueInfo{{Name: "x", DataType: onnx.Float, HasShape: true, Dims: []onnx.Dim{{Value: 3, Known: true}}}},
		Outputs: []*onnx.ValueInfo{{Name: "y", DataType: onnx.Float}},
	}}
}
