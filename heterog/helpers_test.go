package heterog_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/heterog/heterogtest"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

// newManager is heterogtest.Manager.
func newManager(tb testing.TB, mapped bool) *heterog.Manager { return heterogtest.Manager(tb, mapped) }

// reference is heterogtest.Reference.
func reference(tb testing.TB, g *subgraph.Graph, in map[string]*kernel.Tensor) map[string]*kernel.Tensor {
	return heterogtest.Reference(tb, g, in)
}

// sameOutputs reports the first difference between two output sets.
func sameOutputs(want, got map[string]*kernel.Tensor) error {
	if len(want) != len(got) {
		return fmt.Errorf("%d outputs, want %d", len(got), len(want))
	}
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		w, g := want[n], got[n]
		if g == nil {
			return fmt.Errorf("output %q missing", n)
		}
		if g.DType != w.DType || !g.Shape.Equal(w.Shape) {
			return fmt.Errorf("output %q: %v, want %v", n, g, w)
		}
		if !bytes.Equal(g.Host, w.Host) {
			return fmt.Errorf("output %q: contents differ", n)
		}
	}
	return nil
}

// alternating is a chain of n ReLUs whose placement alternates between the
// CPU and the device, so that every node is a part of its own.
func alternating(n int) *subgraph.Graph {
	b := subgraph.NewBuilder("alternating")
	x := b.Input("x", kernel.Float32, 4)
	for i := range n {
		x = b.Op("ReLU", x)
		if i%2 == 0 {
			b.Last().Placement = subgraph.OnCPU
		}
	}
	b.Output(x)
	return b.Graph()
}

// randomGraph builds a random graph of real-data kernels over static [3,4]
// float32 tensors (a), dynamic rank-1 tensors from Unique (d) and [1]
// tensors (s), with random labels, and its inputs.
func randomGraph(rng *rand.Rand, n int) (*subgraph.Graph, map[string]*kernel.Tensor) {
	b := subgraph.NewBuilder(fmt.Sprintf("random%d", n))
	rnd := func(shape ...int64) *kernel.Tensor {
		t := kernel.New(kernel.Float32, shape...)
		for i := range kernel.Float32s(t.Host) {
			// Few distinct values, so that Unique finds duplicates.
			kernel.Float32s(t.Host)[i] = float32(rng.IntN(7)-3) / 2
		}
		return t
	}
	in := map[string]*kernel.Tensor{"x": rnd(3, 4), "y": rnd(3, 4)}
	pool := map[byte][]string{
		'a': {b.Input("x", kernel.Float32, 3, 4), b.Input("y", kernel.Float32, 3, 4)},
		's': {b.Const("half", kernel.FromFloat32([]float32{0.5}, 1))},
	}
	w := b.Const("w", rnd(4, 4))
	pick := func(kind byte) string {
		p := pool[kind]
		return p[len(p)-1-min(int(rng.ExpFloat64()*3), len(p)-1)]
	}
	for range n {
		var out string
		var kind byte = 'a'
		switch r := rng.IntN(10); {
		case r == 0:
			out = b.Op("Add", pick('a'), pick('a'))
		case r == 1:
			out = b.Op("Mul", pick('a'), pick('s'))
		case r == 2:
			out = b.Op("Sub", pick('a'), pick('a'))
		case r == 3:
			out = b.Op("ReLU", pick('a'))
		case r == 4:
			out = b.Op("MatMul", pick('a'), w)
		case r == 5:
			out, kind = b.Op("Unique", pick('a')), 'd'
		case r == 6 && len(pool['d']) > 0:
			out, kind = b.Op("GELU", pick('d')), 'd'
		case r == 7 && len(pool['d']) > 0:
			out, kind = b.OpAttrs("ReduceSum", kernel.Attrs{"axes": []int64{0}, "keepdims": true}, pick('d')), 's'
		case r == 8:
			out = b.OpAttrs("Softmax", kernel.Attrs{"axis": int64(-1)}, pick('a'))
		default:
			out = b.Op("GELU", pick('a'))
		}
		if rng.IntN(2) == 0 {
			b.Last().Placement = subgraph.OnCPU
		}
		pool[kind] = append(pool[kind], out)
	}
	outs := map[string]bool{}
	for _, k := range []byte{'a', 'd', 's'} {
		if p := pool[k]; len(p) > 0 {
			outs[p[len(p)-1]] = true
		}
	}
	outs[pick('a')] = true
	if rng.IntN(5) == 0 {
		outs["y"] = true
	}
	names := make([]string, 0, len(outs))
	for o := range outs {
		names = append(names, o)
	}
	slices.Sort(names)
	b.Output(names...)
	return b.Graph(), in
}
