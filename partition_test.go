package pipert_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/internal/graphtest"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

// sameResults reports the first output of got that is not want's, bit
// for bit.
func sameResults(want, got *pipert.Result) error {
	for name, w := range want.Outputs {
		g := got.Outputs[name]
		if g == nil || g.DType != w.DType || !g.Shape.Equal(w.Shape) || string(g.Host) != string(w.Host) {
			return fmt.Errorf("output %s: %v, want %v", name, g, w)
		}
	}
	return nil
}

// runOnce compiles g with opts, runs it once on in and closes it.
func runOnce(t *testing.T, g *subgraph.Graph, in map[string]*kernel.Tensor, opts ...pipert.Option) *pipert.Result {
	t.Helper()
	exe, err := pipert.Compile(g, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	res, err := exe.Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestPartitionOfAnUnknownRank keeps a graph the partitioner used to
// refuse: a Reshape by a shape Unique computes from the data (its rank is
// known only at run time) feeds a kernel on the CPU.
func TestPartitionOfAnUnknownRank(t *testing.T) {
	b := subgraph.NewBuilder("rank")
	x := b.Input("x", kernel.Float32, 4, 4)
	ids := b.Input("ids", kernel.Int64, 6)
	r := b.Op("Reshape", b.Op("ReLU", x), b.Op("Unique", ids))
	b.Op("Neg", r)
	b.Last().Placement = subgraph.OnCPU
	b.Output(b.Last().Outputs[0])
	g := b.Graph()
	in := map[string]*kernel.Tensor{
		"x":   kernel.FromFloat32([]float32{1, -2, 3, -4, 5, -6, 7, -8, 9, 10, 11, 12, -13, 14, 15, 16}, 4, 4),
		"ids": kernel.FromInt64([]int64{2, 8, 2, 8, 8, 2}, 6),
	}
	want := runOnce(t, g, in)
	got := runOnce(t, g, in, pipert.WithHeterogeneous(nil))
	if err := sameResults(want, got); err != nil {
		t.Fatal(err)
	}
	if !got.Outputs[g.Outputs[0]].Shape.Equal(kernel.Shape{2, 8}) || len(got.Stats.Parts) < 2 {
		t.Fatalf("output %v over %d parts", got.Outputs[g.Outputs[0]], len(got.Stats.Parts))
	}
}

// TestPartitionOfARankThatDependsOnADimension: Squeeze without axes of a
// tensor with a dynamic dimension, on the CPU, feeding the device (a ReLU,
// or a Softmax over the last axis, which the squeezed rank must have): the
// squeezed rank depends on the dimension's value, and every run gives
// KBK's outputs, under both barrier policies, whether the dimension is 1
// or not.
func TestPartitionOfARankThatDependsOnADimension(t *testing.T) {
	graph := func(op string, attrs kernel.Attrs) *subgraph.Graph {
		b := subgraph.NewBuilder("squeeze")
		sq := b.Op("Squeeze", b.Input("x", kernel.Float32, kernel.Dynamic, 1))
		b.Last().Placement = subgraph.OnCPU
		b.Output(b.OpAttrs(op, attrs, sq))
		return b.Graph()
	}
	x3, x1 := kernel.FromFloat32([]float32{-1, 2, 3}, 3, 1), kernel.FromFloat32([]float32{-1}, 1, 1)
	for _, c := range []struct {
		g  *subgraph.Graph
		xs []*kernel.Tensor
	}{
		{graph("ReLU", nil), []*kernel.Tensor{x3, x1}},
		{graph("Softmax", kernel.Attrs{"axis": int64(-1)}), []*kernel.Tensor{x3}},
	} {
		for _, x := range c.xs {
			in := map[string]*kernel.Tensor{"x": x}
			want := runOnce(t, c.g, in)
			for _, p := range []pipert.BarrierPolicy{pipert.Drain, pipert.PerTensor} {
				got := runOnce(t, c.g, in, pipert.WithHeterogeneous(nil), pipert.WithBarrier(p))
				if err := sameResults(want, got); err != nil {
					t.Errorf("%s, x %v, %v: %v", c.g.Nodes[1].Op, x.Shape, p, err)
				}
			}
		}
	}
}

// TestPartitionAcceptsEveryValidGraph: random graphs with placements
// flipping, value dependencies, compute dependencies and ranks known only
// at run time crossing parts, whose rows change between runs, compile
// heterogeneously and give KBK's outputs run after run.
func TestPartitionAcceptsEveryValidGraph(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 60
	}
	ctx := context.Background()
	for seed := range uint64(n) {
		rng := rand.New(rand.NewPCG(seed, 41))
		o := graphtest.Options{Nodes: 3 + rng.IntN(14), ValueDeps: seed%2 == 0, DataRanks: true, DynamicRows: seed%3 == 0, Flip: 0.2 + 0.3*rng.Float64()}
		g, first := graphtest.Random(rng, o)
		ref, err := pipert.Compile(g, pipert.WithCaches(pipert.Caches{Kinds: pipert.NoCaches}))
		if err != nil {
			t.Fatalf("seed %d: kbk: %v", seed, err)
		}
		het, err := pipert.Compile(g, pipert.WithHeterogeneous(nil))
		if err != nil {
			t.Fatalf("seed %d: partition refused a valid graph: %v", seed, err)
		}
		for step := range 3 {
			in := first
			if step > 0 && o.DynamicRows {
				in = map[string]*kernel.Tensor{}
				for i, v := range graphtest.Refill(rng, g, 1+rng.Int64N(4)) {
					in[g.Inputs[i].Name] = v
				}
			}
			want, err := ref.Run(ctx, in)
			if err != nil {
				t.Fatalf("seed %d step %d: kbk: %v", seed, step, err)
			}
			got, err := het.Run(ctx, in)
			if err == nil {
				err = sameResults(want, got)
			}
			if err != nil {
				t.Fatalf("seed %d step %d: heterogeneous: %v", seed, step, err)
			}
		}
		ref.Close()
		het.Close()
	}
}

// TestAnyShapeInputCrossesParts: a graph input of any shape takes any
// dtype and rank in heterogeneous runs too, when what it feeds crosses
// from a CPU part to a device part (the cut was typed from its
// placeholder, float32 of rank 1), under both barrier policies.
func TestAnyShapeInputCrossesParts(t *testing.T) {
	b := subgraph.NewBuilder("g")
	x := b.Input("x", kernel.Float32, kernel.Dynamic)
	id := b.Op("Identity", x)
	b.Last().Placement = subgraph.OnCPU
	y := b.Op("Identity", id)
	b.Output(y)
	g := b.Graph()
	g.Inputs[0].AnyShape = true
	ins := []*kernel.Tensor{
		kernel.FromFloat32([]float32{1, 2}, 2),
		kernel.FromInt64([]int64{1, 2, 3, 4}, 2, 2),
		kernel.FromFloat32([]float32{7}),
		kernel.New(kernel.Bool, 3),
	}
	for _, bp := range []pipert.BarrierPolicy{pipert.PerTensor, pipert.Drain} {
		exe, err := pipert.Compile(g, pipert.WithHeterogeneous(nil), pipert.WithBarrier(bp))
		if err != nil {
			t.Fatalf("%v: %v", bp, err)
		}
		for _, in := range ins {
			r, err := exe.Run(context.Background(), map[string]*kernel.Tensor{"x": in})
			if err != nil {
				t.Errorf("%v: input %v %v: %v", bp, in.DType, in.Shape, err)
				continue
			}
			if o := r.Outputs[y]; o.DType != in.DType || !slices.Equal(o.Shape, in.Shape) || !slices.Equal(o.Host, in.Host) {
				t.Errorf("%v: input %v gave %v", bp, in, o)
			}
		}
		exe.Close()
	}
}
