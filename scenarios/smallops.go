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
		Params:      smallOpsParamsAt,
	})
}

// smallOpsSize is the ladder's shape.
type smallOpsSize struct {
	rows, cols int64
	steps      int
}

func (s *smallOpsSize) params() []sizeParam {
	return []sizeParam{
		dim("rows", "rows of every activation", &s.rows),
		dim("cols", "columns of every activation and side of the square matmul weight", &s.cols),
		count("steps", "ladder steps, 6 kernels each (every 8th adds a rung of 2)", &s.steps),
	}
}

func smallOpsSizeOf(name string, c Config) (smallOpsSize, error) {
	s := smallOpsSize{rows: 256, cols: 256, steps: 340}
	if c.Real {
		s = smallOpsSize{rows: 4, cols: 8, steps: 24}
	}
	return s, applyParams(name, s.params(), c)
}

func smallOpsParamsAt(c Config) ([]Param, error) {
	s, err := smallOpsSizeOf("smallops", c)
	return listParams(s.params()), err
}

// buildSmallOps builds two chains a and b of element-wise kernels; every
// fourth step each chain goes through a small matmul, and every eighth step a
// rung adds one chain into the other. Kernels per step: 2 000+ at benchmark
// size, about 200 in real mode.
func buildSmallOps(c Config) (*Workload, error) {
	sz, err := smallOpsSizeOf("smallops", c)
	if err != nil {
		return nil, err
	}
	rows, cols, steps := sz.rows, sz.cols, sz.steps
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
	if !c.Real && c.Params == nil && len(g.Nodes) < 2000 {
		return nil, fmt.Errorf("scenarios: smallops has %d kernels, want at least 2000", len(g.Nodes))
	}
	return &Workload{Graph: g, Inputs: inputs}, nil
}
