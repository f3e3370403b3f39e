package scenarios

import (
	"fmt"
	"math/rand/v2"

	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

func init() {
	register(Scenario{
		Name:        "hetero",
		Description: "sparse feature chains labelled for the CPU (Unique→Gather→ReduceSum→Softmax, real small tensors) beside a dense MatMul/LayerNorm/GELU tower on the device, joined once per segment",
		Costs:       DefaultCosts(),
		Barriers:    true,
		Hetero:      true,
		Build:       buildHetero,
		Params: func(c Config) ([]Param, error) {
			s, err := heteroSizeOf(c)
			return listParams(s.params()), err
		},
	})
}

func (s *heteroSize) params() []sizeParam {
	return []sizeParam{
		dim("batch", "rows of the dense tower's activations", &s.batch),
		dim("hidden", "width of the dense tower", &s.hidden),
		dim("ffn", "width of the tower's MLP", &s.ffn),
		dim("classes", "outputs of the head", &s.classes),
		count("layers", "dense layers per segment", &s.layers),
		count("segments", "joins of the CPU features into the tower", &s.segments),
		count("chains", "independent sparse feature chains on the CPU", &s.chains),
		dim("ids", "ids per chain and segment (real data)", &s.ids),
		dim("vocab", "rows of each chain's embedding table (real data)", &s.vocab),
		dim("dim", "width of each embedding table; a multiple of group", &s.dim),
		dim("group", "the pooled feature is normalised in groups of this many", &s.group),
	}
}

func heteroSizeOf(c Config) (heteroSize, error) {
	s := heteroSize{batch: 64, hidden: 1024, ffn: 4096, classes: 64, layers: 2, segments: 4, chains: 3,
		ids: 1024, vocab: 8192, dim: 64, group: 8}
	switch {
	case c.Real:
		s = heteroSize{batch: 2, hidden: 16, ffn: 32, classes: 4, layers: 1, segments: 2, chains: 2,
			ids: 12, vocab: 10, dim: 8, group: 4}
	case c.Quick:
		s.segments = 2
	}
	if err := applyParams("hetero", s.params(), c); err != nil {
		return s, err
	}
	if s.dim%s.group != 0 {
		return s, fmt.Errorf("scenarios: hetero: dim %d is not a multiple of group %d", s.dim, s.group)
	}
	return s, nil
}

// heteroSize is the shape of the hetero scenario.
type heteroSize struct {
	batch, hidden, ffn int64 // dense tower: activations [batch, hidden], MLP width ffn
	classes            int64 // output head
	layers             int   // dense layers per segment
	segments           int   // joins of the CPU features into the tower
	chains             int   // independent sparse feature chains
	ids, vocab, dim    int64 // per chain and segment: ids looked up in a [vocab, dim] table
	group              int64 // the pooled feature is normalised in groups of this many
}

// buildHetero builds a recommendation-style step: several sparse feature
// chains of dynamic-shape index work, labelled for the CPU, and a dense
// tower left to the device. Each segment, every chain turns a batch of ids
// into a pooled feature:
//
//	u = Unique(ids)                       compute dependency: |u| known after it ran
//	e = Gather(table, u)                  [|u|, dim] embedding rows
//	r = ReduceSum(e, axes 0)              [1, dim] pooled
//	f = f + Reshape(Softmax(Reshape(r, [dim/group, group])), [1, dim])
//
// and the chains' features join the tower once: Concat on the CPU, then on
// the device a MatMul into the hidden width added to the activations, and
// `layers` dense layers (LayerNorm → MatMul → GELU → MatMul → residual Add).
// At the end the device computes the logits and the CPU post-processes them
// (Softmax, ReduceSum over the batch). The CPU and device parts are
// independent except at those joins.
//
// The CPU part is real data at every size (ids, tables: small tensors whose
// values drive Unique), so that its kernels really compute; at benchmark
// size (1 024 ids per lookup into 8 192 × 64 tables, 3 chains, 4 segments)
// they take about 40 µs each on average on a current x86 core, the pooling
// ReduceSum most. The dense tower is virtual (shapes only) and its device
// time modeled: the MLP matmuls take about 20 µs each on the default
// profile, LayerNorm, GELU and Add a few µs. Run on one launch thread, the
// CPU kernels' real work serialises with the device kernels' launches;
// placed apart, it spreads over the host's processors beside them.
func buildHetero(c Config) (*Workload, error) {
	s, err := heteroSizeOf(c)
	if err != nil {
		return nil, err
	}
	d := newData(c)
	// The CPU part's contents are always real.
	cd := &data{real: true, rng: rand.New(rand.NewPCG(c.Seed, 0x5eed))}
	b := subgraph.NewBuilder("hetero")
	inputs := map[string]*kernel.Tensor{}
	cpu := func(out string) string {
		b.Last().Placement = subgraph.OnCPU
		return out
	}

	x := b.Input("x", kernel.Float32, s.batch, s.hidden)
	inputs["x"] = d.float(kernel.Float32, 1, s.batch, s.hidden)
	groups := b.Const("groups", shapeConst(s.dim/s.group, s.group))
	row := b.Const("row", shapeConst(1, s.dim))
	tables := make([]string, s.chains)
	for k := range tables {
		tables[k] = b.Const(fmt.Sprintf("table%d", k), cd.float(kernel.Float32, 1, s.vocab, s.dim))
	}
	wscale := 1 / float32(s.hidden)
	weight := func(name string, shape ...int64) string {
		return b.Const(name, d.float(kernel.Float32, wscale, shape...))
	}
	feat := make([]string, s.chains)
	for seg := range s.segments {
		for k := range feat {
			ids := b.Input(fmt.Sprintf("ids%d.%d", seg, k), kernel.Int64, s.ids)
			inputs[ids] = cd.ints(s.vocab, s.ids)
			u := cpu(b.Op("Unique", ids))
			e := cpu(b.OpAttrs("Gather", kernel.Attrs{"axis": int64(0)}, tables[k], u))
			r := cpu(b.OpAttrs("ReduceSum", kernel.Attrs{"axes": []int64{0}, "keepdims": true}, e))
			m := cpu(b.Op("Reshape", r, groups))
			m = cpu(b.OpAttrs("Softmax", kernel.Attrs{"axis": int64(-1)}, m))
			v := cpu(b.Op("Reshape", m, row))
			if seg == 0 {
				feat[k] = v
			} else {
				feat[k] = cpu(b.Op("Add", feat[k], v))
			}
		}
		j := cpu(b.OpAttrs("Concat", kernel.Attrs{"axis": int64(1)}, feat...))
		p := b.Op("MatMul", j, weight(fmt.Sprintf("s%d.wj", seg), int64(s.chains)*s.dim, s.hidden))
		x = b.Op("Add", x, p)
		for l := range s.layers {
			name := func(n string) string { return fmt.Sprintf("s%d.l%d.%s", seg, l, n) }
			h := b.Op("LayerNorm", x, weight(name("ln.g"), s.hidden), weight(name("ln.b"), s.hidden))
			a := b.Op("GELU", b.Op("MatMul", h, weight(name("w1"), s.hidden, s.ffn)))
			x = b.Op("Add", x, b.Op("MatMul", a, weight(name("w2"), s.ffn, s.hidden)))
		}
	}
	logits := b.Op("MatMul", x, weight("head", s.hidden, s.classes))
	probs := cpu(b.OpAttrs("Softmax", kernel.Attrs{"axis": int64(-1)}, logits))
	score := cpu(b.OpAttrs("ReduceSum", kernel.Attrs{"axes": []int64{0}, "keepdims": false}, probs))
	b.Output(score, x)
	b.Output(feat...)
	return &Workload{Graph: b.Graph(), Inputs: inputs}, nil
}
