// Package graphtest builds random valid graphs, with real inputs, for tests
// that check a fast path against a simple one: the partitioner's
// properties, every actor mode against kernel-by-kernel execution, and
// heterogeneous runs against the same reference.
//
// A graph mixes three kinds of tensor: static [Rows, Cols] float32 tensors,
// dynamic rank-1 tensors from Unique (their length is known only once
// Unique has run), and [1] tensors reduced from them. Its kernels include
// element-wise ops with broadcasting, matmuls, softmax, compute
// dependencies (Unique and NonZero, whose output shapes depend on the data)
// and, with Options.ValueDeps, value dependencies.
// Inputs hold few distinct values, so Unique finds duplicates and NonZero
// zeros. The same source gives the same graph.
//
// Deadline is a run's context whose deadline passes when the test says,
// for tests that need a run to be inside a given kernel when it does.
package graphtest

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

// Options shape a random graph. Zero fields take the defaults given.
type Options struct {
	Nodes int   // kernel-building steps, each adding one to five nodes; default 10
	Rows  int64 // rows of the static tensors; default 3
	Cols  int64 // columns of the static tensors; default 4
	// Flip is the probability that a step's placement differs from the
	// previous step's: 0 keeps every node on the device, 0.5 places each
	// step independently, small values give long runs of one placement.
	Flip float64
	// ValueDeps adds steps that reshape a tensor by a shape computed from
	// it (Shape, Gather, Reshape): value dependencies, whose outputs have
	// no static shape.
	ValueDeps bool
	// DynamicRows declares the graph inputs' rows dynamic, so that runs
	// may change them (Refill makes inputs of other row counts).
	DynamicRows bool
	// DataRanks adds steps that flatten a tensor by a shape vector whose
	// length a Unique decides at run time, so that the rank of what
	// follows is unknown before a run, work on it on the other side of the
	// placement (with Flip), and reshape it back.
	DataRanks bool
}

// Random returns a random graph drawn from rng and the values of its inputs
// by name.
func Random(rng *rand.Rand, o Options) (*subgraph.Graph, map[string]*kernel.Tensor) {
	if o.Nodes <= 0 {
		o.Nodes = 10
	}
	if o.Rows <= 0 {
		o.Rows = 3
	}
	if o.Cols <= 0 {
		o.Cols = 4
	}
	r, c := o.Rows, o.Cols
	b := subgraph.NewBuilder(fmt.Sprintf("random%dx%dx%d", o.Nodes, r, c))
	rnd := func(shape ...int64) *kernel.Tensor {
		t := kernel.New(kernel.Float32, shape...)
		v := kernel.Float32s(t.Host)
		for i := range v {
			v[i] = float32(rng.IntN(7)-3) / 2
		}
		return t
	}
	in := map[string]*kernel.Tensor{"x": rnd(r, c), "y": rnd(r, c)}
	dr := r
	if o.DynamicRows {
		dr = kernel.Dynamic
	}
	pool := map[byte][]string{
		'a': {b.Input("x", kernel.Float32, dr, c), b.Input("y", kernel.Float32, dr, c)},
		's': {b.Const("half", kernel.FromFloat32([]float32{0.5}, 1))},
	}
	w := b.Const("w", rnd(c, c))
	pick := func(kind byte) string {
		p := pool[kind]
		// Favour recent tensors, so that chains form.
		return p[len(p)-1-min(int(rng.ExpFloat64()*3), len(p)-1)]
	}
	place := subgraph.OnDevice
	other := -1 // a node of the step placed on the other side
	for step := range o.Nodes {
		if rng.Float64() < o.Flip {
			place = subgraph.OnDevice + subgraph.OnCPU - place
		}
		first := len(b.Graph().Nodes)
		var out string
		var kind byte = 'a'
		switch k := rng.IntN(15); {
		case k == 0:
			out = b.Op("Add", pick('a'), pick('a'))
		case k == 1:
			out = b.Op("Mul", pick('a'), pick('s'))
		case k == 2:
			out = b.Op("Sub", pick('a'), pick('a'))
		case k == 3:
			out = b.Op("ReLU", pick('a'))
		case k == 4:
			out = b.Op("MatMul", pick('a'), w)
		case k == 5:
			out = b.Op("Add", pick('a'), pick('s'))
		case k == 6:
			out, kind = b.Op("Unique", pick('a')), 'd'
		case k == 7 && len(pool['d']) > 0:
			out, kind = b.Op("GELU", pick('d')), 'd'
		case k == 8 && len(pool['d']) > 0:
			out, kind = b.OpAttrs("ReduceSum", kernel.Attrs{"axes": []int64{0}, "keepdims": true}, pick('d')), 's'
		case k == 9:
			out, kind = b.Op("Mul", pick('s'), pick('s')), 's'
		case k == 10:
			out = b.OpAttrs("Softmax", kernel.Attrs{"axis": int64(-1)}, pick('a'))
		case k == 11 && o.ValueDeps: // value dependency: to [Cols, Rows] by a computed shape, and back
			x := pick('a')
			s := b.Op("Shape", x)
			perm := b.OpAttrs("Gather", kernel.Attrs{"axis": int64(0)}, s,
				b.Const(fmt.Sprintf("perm%d", step), kernel.FromInt64([]int64{1, 0}, 2)))
			out = b.Op("Reshape", b.Op("ReLU", b.Op("Reshape", x, perm)), s)
		case k == 12: // compute dependency: the count of non-zeros, broadcast back
			nz := b.OpAttrs("Cast", kernel.Attrs{"to": "float32"}, b.Op("NonZero", b.Op("ReLU", pick('a'))))
			out = b.Op("Mul", pick('a'), b.OpAttrs("ReduceSum", kernel.Attrs{"keepdims": false}, nz))
		case k == 13 && o.DataRanks:
			x := pick('a')
			shape := b.Op("Shape", x)
			n := b.Op("Unique", b.Op("Reshape", b.OpAttrs("ReduceProd", kernel.Attrs{"keepdims": false}, shape),
				b.Const(fmt.Sprintf("one%d", step), kernel.FromInt64([]int64{1}, 1))))
			flat := b.Op("ReLU", b.Op("Reshape", x, n))
			other = len(b.Graph().Nodes) - 1
			out = b.Op("Reshape", flat, shape)
		default:
			out = b.Op("GELU", pick('a'))
		}
		for _, n := range b.Graph().Nodes[first:] {
			n.Placement = place
		}
		if other >= 0 && o.Flip > 0 {
			// The work on the flattened tensor, of a rank known only at
			// run time, on the other side.
			b.Graph().Nodes[other].Placement = subgraph.OnDevice + subgraph.OnCPU - place
		}
		other = -1
		pool[kind] = append(pool[kind], out)
	}
	// Outputs: the last tensor of each kind, two random static ones, and
	// sometimes a graph input.
	outs := map[string]bool{}
	for _, k := range []byte{'a', 'd', 's'} {
		if p := pool[k]; len(p) > 0 {
			outs[p[len(p)-1]] = true
		}
	}
	outs[pick('a')] = true
	outs[pick('a')] = true
	if rng.IntN(4) == 0 {
		outs["x"] = true
	}
	names := make([]string, 0, len(outs))
	for name := range outs {
		names = append(names, name)
	}
	slices.Sort(names)
	b.Output(names...)
	return b.Graph(), in
}

// Inputs returns the values of g's inputs in g's order, taken from byName.
func Inputs(g *subgraph.Graph, byName map[string]*kernel.Tensor) []*kernel.Tensor {
	out := make([]*kernel.Tensor, len(g.Inputs))
	for i, v := range g.Inputs {
		out[i] = byName[v.Name]
	}
	return out
}

// Refill returns new values of g's inputs, in g's order, drawn from rng
// as Random draws them: each dynamic dimension of a declared input shape
// becomes rows.
func Refill(rng *rand.Rand, g *subgraph.Graph, rows int64) []*kernel.Tensor {
	out := make([]*kernel.Tensor, len(g.Inputs))
	for i, v := range g.Inputs {
		shape := v.Shape.Clone()
		for j, d := range shape {
			if d == kernel.Dynamic {
				shape[j] = rows
			}
		}
		t := kernel.New(v.DType, shape...)
		f := kernel.Float32s(t.Host)
		for k := range f {
			f[k] = float32(rng.IntN(7)-3) / 2
		}
		out[i] = t
	}
	return out
}
