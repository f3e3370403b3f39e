package subgraph_test

import (
	"fmt"

	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

func ExampleBuilder() {
	b := subgraph.NewBuilder("mlp")
	x := b.Input("x", kernel.Float32, 4, 8)
	w := b.Const("w", kernel.New(kernel.Float32, 8, 2))
	h := b.Op("MatMul", x, w)
	b.Output(b.Op("ReLU", h))
	c, err := subgraph.Validate(b.Graph(), ops.Builtins())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, i := range c.Order {
		n := c.Graph.Nodes[i]
		fmt.Println(n.Name, n.Op, n.Inputs, "->", n.Outputs, c.Meta[n.Outputs[0]].Shape)
	}
	// Output:
	// matmul_0 MatMul [x w] -> [matmul_0:0] [4,2]
	// relu_0 ReLU [matmul_0:0] -> [relu_0:0] [4,2]
}
