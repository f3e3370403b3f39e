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

// A graph's inputs, walked by their sources: the node and output that
// produce each (node -1: a graph input or constant), with no name looked up.
func ExampleChecked_Source() {
	g := &subgraph.Graph{
		Name:   "split",
		Inputs: []subgraph.Value{{Name: "x", DType: kernel.Float32, Shape: kernel.Shape{2, 4}}},
		Nodes: []*subgraph.Node{
			{Name: "halves", Op: "Split", Attrs: kernel.Attrs{"axis": int64(1), "num_outputs": int64(2)}, Inputs: []string{"x"}, Outputs: []string{"a", "b"}},
			{Name: "sum", Op: "Add", Inputs: []string{"b", "a"}, Outputs: []string{"y"}},
		},
		Outputs: []string{"y"},
	}
	c, err := subgraph.Validate(g, ops.Builtins())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, i := range c.Order {
		n := c.Graph.Nodes[i]
		for j, in := range n.Inputs {
			node, out, err := c.Source(i, j)
			if err != nil {
				fmt.Println(err)
				return
			}
			fmt.Printf("%s input %d (%s): node %d, output %d\n", n.Name, j, in, node, out)
		}
	}
	// Output:
	// halves input 0 (x): node -1, output -1
	// sum input 0 (b): node 0, output 1
	// sum input 1 (a): node 0, output 0
}
