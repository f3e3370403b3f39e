package scenarios

import (
	"fmt"

	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

func init() {
	register(Scenario{
		Name:        "decode",
		Description: "small-batch transformer decode step: attention with a KV cache and a GELU MLP per layer, float16",
		Costs:       DefaultCosts(),
		Build:       func(c Config) (*Workload, error) { return buildDecode(c, false) },
		Params:      decodeParamsAt,
	})
}

// decodeSize is a decoder-only transformer's shape.
type decodeSize struct {
	batch, hidden, heads, ffn, kv, vocab int64
	layers                               int
	dt                                   kernel.DType
}

// sizeOf is the model size of c: at benchmark size a 2 048-wide model (16
// heads of 128, MLP 8 192, 512 cached positions, batch 4, vocabulary
// 32 000) — the size where small-batch decode is host-bound: each kernel
// runs for microseconds on the device while the host spends tens of
// microseconds issuing it.
func sizeOf(c Config) decodeSize {
	s := decodeSize{batch: 4, hidden: 2048, heads: 16, ffn: 8192, kv: 512, vocab: 32000, layers: 12, dt: kernel.Float16}
	switch {
	case c.Real:
		s = decodeSize{batch: 2, hidden: 16, heads: 2, ffn: 32, kv: 4, vocab: 24, layers: 2, dt: kernel.Float32}
	case c.Quick:
		s.layers = 6
	}
	return s
}

// params binds s's fields to their parameter names.
func (s *decodeSize) params() []sizeParam {
	return []sizeParam{
		dim("batch", "sequences decoded at once (rows of every activation)", &s.batch),
		dim("hidden", "model width; a multiple of heads", &s.hidden),
		dim("heads", "attention heads, each of hidden/heads", &s.heads),
		dim("ffn", "width of the MLP's up projection", &s.ffn),
		dim("kv", "cached positions each token attends over (at the first step with steps)", &s.kv),
		dim("vocab", "vocabulary of the LM head", &s.vocab),
		count("layers", "transformer layers, 17 kernels each", &s.layers),
	}
}

// decodeSizeOf is sizeOf(c) with c.Params applied and checked.
func decodeSizeOf(name string, c Config) (decodeSize, error) {
	s := sizeOf(c)
	if err := applyParams(name, s.params(), c); err != nil {
		return s, err
	}
	if s.hidden%s.heads != 0 {
		return s, fmt.Errorf("scenarios: %s: hidden %d is not a multiple of heads %d", name, s.hidden, s.heads)
	}
	return s, nil
}

func decodeParamsAt(c Config) ([]Param, error) {
	s, err := decodeSizeOf("decode", c)
	return listParams(s.params()), err
}

// buildDecode builds one decode step (one new token per sequence). The KV
// caches stay resident on the device as constants, like the weights; with
// steps they are graph inputs of dynamic length instead, and run i of the
// workload attends over kv + i cached positions (decode-steps).
func buildDecode(c Config, steps bool) (*Workload, error) {
	name := "decode"
	if steps {
		name = "decode-steps"
	}
	s, err := decodeSizeOf(name, c)
	if err != nil {
		return nil, err
	}
	d := newData(c)
	hd := s.hidden / s.heads
	b := subgraph.NewBuilder(name)
	x := b.Input("x", s.dt, s.batch, s.hidden)
	x0 := d.float(s.dt, 1, s.batch, s.hidden)
	wscale := float32(1) / float32(s.hidden)
	headsShape := b.Const("heads_shape", shapeConst(s.batch, s.heads, 1, hd))
	flatShape := b.Const("flat_shape", shapeConst(s.batch, s.hidden))
	var caches [][2]string // names of each layer's K and V cache inputs
	h := x
	for l := 0; l < s.layers; l++ {
		p := func(name string) string { return fmt.Sprintf("l%d.%s", l, name) }
		weight := func(name string, shape ...int64) string {
			return b.Const(p(name), d.float(s.dt, wscale, shape...))
		}
		// K is kept transposed for the score matmul.
		var kc, vc string
		if steps {
			kc = b.Input(p("k_cache"), s.dt, s.batch, s.heads, hd, kernel.Dynamic)
			vc = b.Input(p("v_cache"), s.dt, s.batch, s.heads, kernel.Dynamic, hd)
			caches = append(caches, [2]string{kc, vc})
		} else {
			kc = b.Const(p("k_cache"), d.float(s.dt, 1, s.batch, s.heads, hd, s.kv))
			vc = b.Const(p("v_cache"), d.float(s.dt, 1, s.batch, s.heads, s.kv, hd))
		}
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
		up := b.Op("MatMul", n2, weight("w_up", s.hidden, s.ffn))
		up = b.Op("GELU", up)
		dn := b.Op("MatMul", up, weight("w_down", s.ffn, s.hidden))
		h = b.Op("Add", h, dn)
		b.Output(kn, vn)
	}
	h = b.Op("LayerNorm", h, b.Const("lnf.g", d.float(s.dt, 1, s.hidden)), b.Const("lnf.b", d.float(s.dt, 1, s.hidden)))
	logits := b.Op("MatMul", h, b.Const("lm_head", d.float(s.dt, wscale, s.hidden, s.vocab)))
	b.Output(b.Op("LogSoftmax", logits))
	w := &Workload{Graph: b.Graph(), Inputs: map[string]*kernel.Tensor{"x": x0}}
	if steps {
		w.Step = func(i int) map[string]*kernel.Tensor {
			n := s.kv + int64(i)
			in := map[string]*kernel.Tensor{"x": x0}
			for l, c := range caches {
				in[c[0]] = d.kvTensor(s.dt, l, 0, s.batch, s.heads, hd, n)
				in[c[1]] = d.kvTensor(s.dt, l, 1, s.batch, s.heads, n, hd)
			}
			return in
		}
		w.Inputs = w.Step(0)
	}
	return w, nil
}
