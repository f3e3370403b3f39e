package subgraph_test

import (
	"errors"
	"testing"

	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

// TestValidateRefusesSizesThatOverflow checks that an input or a constant
// whose element or byte count overflows int64 is refused: kernel's counts
// wrap (2^61 float64 elements hold 0 bytes).
func TestValidateRefusesSizesThatOverflow(t *testing.T) {
	input := &subgraph.Graph{Name: "in", Inputs: []subgraph.Value{{Name: "x", DType: kernel.Float32, Shape: kernel.Shape{1 << 31, 1 << 31, 3}}},
		Nodes: []*subgraph.Node{{Name: "n", Op: "Neg", Inputs: []string{"x"}, Outputs: []string{"y"}}}, Outputs: []string{"y"}}
	if _, err := subgraph.Validate(input, ops.Builtins()); !errors.Is(err, subgraph.ErrBadInput) {
		t.Errorf("an input of 3·2^62 elements: %v, want ErrBadInput", err)
	}
	big := &kernel.Tensor{DType: kernel.Float64, Shape: kernel.Shape{1 << 61}}
	konst := &subgraph.Graph{Name: "const", Consts: []subgraph.Const{{Name: "k", Tensor: big}},
		Nodes: []*subgraph.Node{{Name: "n", Op: "Neg", Inputs: []string{"k"}, Outputs: []string{"y"}}}, Outputs: []string{"y"}}
	if _, err := subgraph.Validate(konst, ops.Builtins()); !errors.Is(err, subgraph.ErrBadConst) {
		t.Errorf("a constant of 2^61 float64s: %v, want ErrBadConst", err)
	}
}

// TestValidateRefusesOutputBytesThatOverflow: a node whose inferred output
// has a countable number of elements but more bytes than int64 counts
// (ConstantOfShape [2^31, 2^31] of float32: 2^64 bytes) is refused at
// Validate, naming the node, where it failed only when run.
func TestValidateRefusesOutputBytesThatOverflow(t *testing.T) {
	for _, dims := range [][]int64{{1 << 31, 1 << 31}, {1 << 61}} {
		g := &subgraph.Graph{Name: "g", Consts: []subgraph.Const{{Name: "shape", Tensor: kernel.FromInt64(dims, int64(len(dims)))}},
			Nodes: []*subgraph.Node{{Name: "cos", Op: "ConstantOfShape", Inputs: []string{"shape"}, Outputs: []string{"y"}}}, Outputs: []string{"y"}}
		_, err := subgraph.Validate(g, ops.Builtins())
		var se *subgraph.Error
		if !errors.As(err, &se) || se.Node != "cos" {
			t.Errorf("ConstantOfShape %v: %v, want an error naming the node", dims, err)
		}
	}
}
