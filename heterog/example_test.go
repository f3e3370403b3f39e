package heterog_test

import (
	"context"
	"fmt"

	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
)

// A chain of index work labelled for the CPU runs beside device work; the
// two meet at the final Add. Under the per-tensor barrier (the default)
// parts hand their tensors over one by one, so the device's work is one
// part: it starts with Mul while the CPU part runs and awaits the CPU's sum
// at Add.
func ExampleCompile() {
	b := subgraph.NewBuilder("example")
	v := b.Input("v", kernel.Float32, 6)
	x := b.Input("x", kernel.Float32, 2, 3)
	u := b.Op("Unique", v)
	b.Last().Placement = subgraph.OnCPU
	s := b.OpAttrs("ReduceSum", kernel.Attrs{"axes": []int64{0}, "keepdims": true}, u)
	b.Last().Placement = subgraph.OnCPU
	y := b.Op("Mul", x, b.Const("two", kernel.FromFloat32([]float32{2}, 1)))
	out := b.Op("Add", y, s)
	b.Output(out)

	m, err := heterog.NewManager(nil, nil) // a host CPU and a simulated accelerator
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Release()
	e, err := heterog.Compile(b.Graph(), plan.Config{}, m)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer e.Close()
	r, err := e.Run(context.Background(), map[string]*kernel.Tensor{
		"v": kernel.FromFloat32([]float32{3, 1, 3, 2, 1, 3}, 6),
		"x": kernel.FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 3),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range e.Partitioning().Parts {
		var nodes []string
		for _, n := range p.Graph.Nodes {
			nodes = append(nodes, n.Op)
		}
		fmt.Println(p.Placement, nodes, "inputs", len(p.Graph.Inputs))
	}
	fmt.Println(kernel.Float32s(r.Outputs[out].Host))
	// Output:
	// cpu [Unique ReduceSum] inputs 1
	// device [Mul Add] inputs 2
	// [8 10 12 14 16 18]
}
