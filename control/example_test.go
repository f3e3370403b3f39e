package control_test

import (
	"context"
	"fmt"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/control"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

// An If node: its first input is the condition, the others are captures,
// handed to the branch taken as its inputs, in order. The pipeline waits
// only for the condition and skips the branch not taken.
func ExampleIf() {
	branch := func(name, op string) *subgraph.Graph {
		b := subgraph.NewBuilder(name)
		x := b.Input(name+"/x", kernel.Float32, kernel.Dynamic)
		b.Output(b.Op(op, x))
		return b.Graph()
	}
	b := subgraph.NewBuilder("if")
	c := b.Input("c", kernel.Bool)
	x := b.Input("x", kernel.Float32, 4)
	b.Node(&subgraph.Node{Name: "if", Op: "If", Inputs: []string{c, x},
		Attrs: kernel.Attrs{control.ThenBranch: branch("then", "ReLU"), control.ElseBranch: branch("else", "Neg")}}, 1)
	y := b.Last().Outputs[0]
	b.Output(y)

	exe, err := pipert.Compile(b.Graph(), pipert.WithRegistry(control.Resolver{Base: ops.Builtins()}), pipert.WithMode(pipert.Pipeline))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer exe.Close()
	for _, cond := range []byte{1, 0} {
		c := kernel.New(kernel.Bool)
		c.Host[0] = cond
		res, err := exe.Run(context.Background(), map[string]*kernel.Tensor{"c": c, "x": kernel.FromFloat32([]float32{-2, -1, 1, 2}, 4)})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(cond == 1, kernel.Float32s(res.Outputs[y].Host))
	}
	// Output:
	// true [0 0 1 2]
	// false [2 1 -1 -2]
}
