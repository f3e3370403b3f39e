package scenarios

import (
	"fmt"

	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

func init() {
	register(Scenario{
		Name:        "dynshape",
		Description: "Shape→Gather→Concat→Reshape value dependencies and a Unique feeding a later branch, with independent work in between",
		Costs:       DefaultCosts(),
		Barriers:    true,
		Build:       buildDynShape,
	})
}

// buildDynShape builds blocks of dynamic-shape work. Each block:
//
//	s  = Shape(x)                          shape of the activation, [3]
//	nb = Concat(Gather(s, [0]), [-1])      the new shape [B, -1]
//	u  = Unique(ids_i)                     compute dependency
//	... independent matmul/element-wise work on z ...
//	f  = Reshape(x, nb)                    value dependency on nb
//	x  = Reshape(ReLU(f), s)               value dependency on s
//	z  = z + ReduceSum(Gather(table, u))   consumer of the Unique
//
// so every barrier has independent kernels queued in front of it: a barrier
// that drains the queues stalls on them, one that waits for its producer
// alone does not.
func buildDynShape(c Config) (*Workload, error) {
	bsz, seq, hid, rows, vocab, nids, blocks, indep := int64(8), int64(64), int64(256), int64(256), int64(1000), int64(512), 40, 12
	switch {
	case c.Real:
		bsz, seq, hid, rows, vocab, nids, blocks, indep = 2, 3, 4, 3, 10, 6, 3, 4
	case c.Quick:
		blocks = 20
	}
	d := newData(c)
	b := subgraph.NewBuilder("dynshape")
	x := b.Input("x", kernel.Float32, bsz, seq, hid)
	z := b.Input("z", kernel.Float32, rows, hid)
	inputs := map[string]*kernel.Tensor{
		"x": d.float(kernel.Float32, 1, bsz, seq, hid),
		"z": d.float(kernel.Float32, 1, rows, hid),
	}
	w := b.Const("w", d.float(kernel.Float32, 1/float32(hid), hid, hid))
	bias := b.Const("bias", d.float(kernel.Float32, 0.5, hid))
	table := b.Const("table", d.float(kernel.Float32, 1, vocab, hid))
	idx0 := b.Const("idx0", shapeConst(0))
	minus1 := b.Const("minus1", shapeConst(-1))
	for i := 0; i < blocks; i++ {
		ids := b.Input(fmt.Sprintf("ids%d", i), kernel.Int64, nids)
		inputs[ids] = d.ints(vocab, nids)
		s := b.Op("Shape", x)
		nb := b.OpAttrs("Concat", kernel.Attrs{"axis": int64(0)}, b.OpAttrs("Gather", kernel.Attrs{"axis": int64(0)}, s, idx0), minus1)
		u := b.Op("Unique", ids)
		for j := 0; j < indep; j++ {
			switch j % 3 {
			case 0:
				z = b.Op("MatMul", z, w)
			case 1:
				z = b.Op("Add", z, bias)
			case 2:
				z = b.Op("ReLU", z)
			}
		}
		f := b.Op("Reshape", x, nb)
		x = b.Op("Reshape", b.Op("ReLU", f), s)
		e := b.OpAttrs("Gather", kernel.Attrs{"axis": int64(0)}, table, u)
		r := b.OpAttrs("ReduceSum", kernel.Attrs{"axes": []int64{0}, "keepdims": false}, e)
		z = b.Op("Add", z, r)
	}
	b.Output(x, z)
	return &Workload{Graph: b.Graph(), Inputs: inputs}, nil
}
