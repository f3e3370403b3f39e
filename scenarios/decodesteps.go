package scenarios

import (
	"fmt"
	"time"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

func init() {
	register(Scenario{
		Name: "decode-steps",
		Description: "consecutive decode steps, the KV length growing by one a step: per layer the 4 attention kernels " +
			"change shape every step, the other 13 do not (the host caches' case)",
		Costs:      StepCosts(),
		Steps:      8,
		CacheStudy: true,
		Build:      buildDecodeSteps,
	})
}

// StepCosts are decode-steps' synthetic host costs per kernel, each stage
// with what a host cache saves of it: prepare 2 µs, all of it Setup
// (SetupReuse); InferShape 5 µs (InferReuse); Resize 6 µs, of which 5 µs
// compute the tiling (a tiling cache hit); Launch 8 µs, of which 3 µs
// allocate (a memory plan).
func StepCosts() pipert.Costs {
	return pipert.Costs{
		Prepare: 2 * time.Microsecond,
		Infer:   5 * time.Microsecond,
		Resize:  6 * time.Microsecond,
		Tiling:  5 * time.Microsecond,
		Launch:  8 * time.Microsecond,
		Alloc:   3 * time.Microsecond,
	}
}

// buildDecodeSteps builds the decode step of buildDecode with the KV
// caches as inputs of dynamic length: step i attends over kv0 + i cached
// positions.
func buildDecodeSteps(c Config) (*Workload, error) {
	s := decodeSize{batch: 4, hidden: 2048, heads: 16, ffn: 8192, kv: 512, vocab: 32000, layers: 12, dt: kernel.Float16}
	switch {
	case c.Real:
		s = decodeSize{batch: 2, hidden: 16, heads: 2, ffn: 32, kv: 4, vocab: 24, layers: 2, dt: kernel.Float32}
	case c.Quick:
		s.layers = 6
	}
	d := newData(c)
	hd := s.hidden / s.heads
	b := subgraph.NewBuilder("decode-steps")
	x := b.Input("x", s.dt, s.batch, s.hidden)
	x0 := d.float(s.dt, 1, s.batch, s.hidden)
	wscale := float32(1) / float32(s.hidden)
	headsShape := b.Const("heads_shape", shapeConst(s.batch, s.heads, 1, hd))
	flatShape := b.Const("flat_shape", shapeConst(s.batch, s.hidden))
	type kv struct{ k, v string }
	caches := make([]kv, s.layers)
	h := x
	for l := 0; l < s.layers; l++ {
		p := func(name string) string { return fmt.Sprintf("l%d.%s", l, name) }
		weight := func(name string, shape ...int64) string {
			return b.Const(p(name), d.float(s.dt, wscale, shape...))
		}
		// K is kept transposed for the score matmul.
		kc := b.Input(p("k_cache"), s.dt, s.batch, s.heads, hd, kernel.Dynamic)
		vc := b.Input(p("v_cache"), s.dt, s.batch, s.heads, kernel.Dynamic, hd)
		caches[l] = kv{kc, vc}
		n := b.Op("LayerNorm", h, weight("ln1.g", s.hidden), weight("ln1.b", s.hidden))
		q := b.Op("MatMul", n, weight("wq", s.hidden, s.hidden))
		q = b.Op("Reshape", q, headsShape)
		kn := b.Op("MatMul", n, weight("wk", s.hidden, s.hidden)) // new K, V rows
		vn := b.Op("MatMul", n, weight("wv", s.hidden, s.hidden))
		sc := b.Op("BatchMatMul", q, kc)
		sc = b.Op("Mul", sc, b.Const(p("inv_sqrt_d"), d.float(s.dt, 0.1, 1)))
		pr := b.Op("Softmax", sc)
		at := b.Op("BatchMatMul", pr, vc)
		at = b.Op("Reshape", at, flatShape)
		o := b.Op("MatMul", at, weight("wo", s.hidden, s.hidden))
		h = b.Op("Add", h, o)
		n2 := b.Op("LayerNorm", h, weight("ln2.g", s.hidden), weight("ln2.b", s.hidden))
		up := b.Op("GELU", b.Op("MatMul", n2, weight("w_up", s.hidden, s.ffn)))
		h = b.Op("Add", h, b.Op("MatMul", up, weight("w_down", s.ffn, s.hidden)))
		b.Output(kn, vn)
	}
	h = b.Op("LayerNorm", h, b.Const("lnf.g", d.float(s.dt, 1, s.hidden)), b.Const("lnf.b", d.float(s.dt, 1, s.hidden)))
	b.Output(b.Op("LogSoftmax", b.Op("MatMul", h, b.Const("lm_head", d.float(s.dt, wscale, s.hidden, s.vocab)))))
	// The KV caches of the longest sequence a run reaches are made once
	// (on demand); step i reads the first kv0 + i positions of each.
	step := func(i int) map[string]*kernel.Tensor {
		n := s.kv + int64(i)
		in := map[string]*kernel.Tensor{"x": x0}
		for l, c := range caches {
			in[c.k] = d.kvTensor(s.dt, l, 0, s.batch, s.heads, hd, n)
			in[c.v] = d.kvTensor(s.dt, l, 1, s.batch, s.heads, n, hd)
		}
		return in
	}
	return &Workload{Graph: b.Graph(), Inputs: step(0), Step: step}, nil
}

// kvTensor is a KV cache of layer l (which 0: K, 1: V): virtual, or real
// values drawn from the layer's own stream, so that the same step gets the
// same values whichever run asks.
func (d *data) kvTensor(dt kernel.DType, l, which int, shape ...int64) *kernel.Tensor {
	if !d.real {
		return kernel.Virtual(dt, shape...)
	}
	sub := newData(Config{Real: true, Seed: uint64(l*2+which) + 1})
	return sub.float(dt, 1, shape...)
}
