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
		Params: func(c Config) ([]Param, error) {
			s, err := dynShapeSizeOf(c)
			return listParams(s.params()), err
		},
	})
}

// dynShapeSize is the shape of the dynshape scenario.
type dynShapeSize struct {
	batch, seq, hidden, rows, vocab, ids int64
	blocks, indep                        int
}

func (s *dynShapeSize) params() []sizeParam {
	return []sizeParam{
		dim("batch", "first dimension of the reshaped activation x [batch, seq, hidden]", &s.batch),
		dim("seq", "second dimension of x", &s.seq),
		dim("hidden", "width of x and of the independent chain z", &s.hidden),
		dim("rows", "rows of the independent chain z [rows, hidden]", &s.rows),
		dim("vocab", "rows of the table the Unique's ids index", &s.vocab),
		dim("ids", "ids per Unique", &s.ids),
		count("blocks", "blocks, each with two value dependencies and a compute dependency", &s.blocks),
		count("indep", "independent kernels queued in front of each block's barriers", &s.indep),
	}
}

func dynShapeSizeOf(c Config) (dynShapeSize, error) {
	s := dynShapeSize{batch: 8, seq: 64, hidden: 256, rows: 256, vocab: 1000, ids: 512, blocks: 40, indep: 12}
	switch {
	case c.Real:
		s = dynShapeSize{batch: 2, seq: 3, hidden: 4, rows: 3, vocab: 10, ids: 6, blocks: 3, indep: 4}
	case c.Quick:
		s.blocks = 20
	}
	return s, applyParams("dynshape", s.params(), c)
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
	sz, err := dynShapeSizeOf(c)
	if err != nil {
		return nil, err
	}
	bsz, seq, hid, rows, vocab, nids, blocks, indep := sz.batch, sz.seq, sz.hidden, sz.rows, sz.vocab, sz.ids, sz.blocks, sz.indep
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
