package scenarios

import (
	"fmt"

	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

func init() {
	register(Scenario{
		Name:        "smallops",
		Description: "a ladder of 2 000+ small element-wise and matmul kernels (two chains with rungs)",
		Costs:       DefaultCosts(),
		Build:       buildSmallOps,
	})
}

// buildSmallOps builds two chains a and b of element-wise kernels; every
// fourth step each chain goes through a small matmul, and every eighth step a
// rung adds one chain into the other. Kernels per step: 2 000+ at benchmark
// size, about 200 in real mode.
func buildSmallOps(c Config) (*Workload, error) {
	rows, cols, steps := int64(256), int64(256), 340
	if c.Real {
		rows, cols, steps = 4, 8, 24
	}
	d := newData(c)
	b := subgraph.NewBuilder("smallops")
	x := b.Input("x", kernel.Float32, rows, cols)
	y := b.Input("y", kernel.Float32, rows, cols)
	inputs := map[string]*kernel.Tensor{"x": d.float(kernel.Float32, 1, rows, cols), "y": d.float(kernel.Float32, 1, rows, cols)}
	w := b.Const("w", d.float(kernel.Float32, 0.25, cols, cols))
	bias := b.Const("bias", d.float(kernel.Float32, 0.5, cols))
	scale := b.Const("scale", d.float(kernel.Float32, 1, 1, cols))
	a, z := x, y
	for i := 0; i < steps; i++ {
		a = b.Op("Add", a, bias)
		z = b.Op("Mul", z, scale)
		a = b.Op("ReLU", a)
		z = b.Op("Sub", z, bias)
		if i%4 == 3 {
			a = b.Op("MatMul", a, w)
			z = b.Op("MatMul", z, w)
		} else {
			a = b.Op("Mul", a, scale)
			z = b.Op("ReLU", z)
		}
		if i%8 == 7 {
			a = b.Op("Add", a, z)
			z = b.Op("Sub", z, a)
		}
	}
	b.Output(a, z)
	g := b.Graph()
	if !c.Real && len(g.Nodes) < 2000 {
		return nil, fmt.Errorf("scenarios: smallops has %d kernels, want at least 2000", len(g.Nodes))
	}
	return &Workload{Graph: g, Inputs: inputs}, nil
}
