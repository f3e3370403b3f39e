package pipert_test

import (
	"context"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

// stepChain is a static chain of n Adds of x; node cpu (if ≥ 0) is placed
// on the CPU.
func stepChain(n, cpu int) *subgraph.Graph {
	b := subgraph.NewBuilder("chain")
	x := b.Input("x", kernel.Float32, 2, 3)
	h := x
	for i := range n {
		h = b.Op("Add", h, x)
		if i == cpu {
			b.Last().Placement = subgraph.OnCPU
		}
	}
	b.Output(h)
	return b.Graph()
}

// TestHeterogeneousStatsCountReplaysTilingAndPlans: a heterogeneous run
// reports its parts' replays, tiling copies and memory plans. With every
// node on the device (one part) the counts are the plain executable's
// (ring stalls, which depend on timing, aside);
// with a node on the CPU they are there still.
func TestHeterogeneousStatsCountReplaysTilingAndPlans(t *testing.T) {
	in := map[string]*kernel.Tensor{"x": kernel.New(kernel.Float32, 2, 3)}
	last := func(g *subgraph.Graph, opts ...pipert.Option) pipert.Stats {
		t.Helper()
		e, err := pipert.Compile(g, opts...)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		var st pipert.Stats
		for range 5 {
			res, err := e.Run(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			st = res.Stats
		}
		return st
	}
	for _, mode := range []pipert.Mode{pipert.Pipeline, pipert.Replay} {
		opts := []pipert.Option{pipert.WithMode(mode), pipert.WithTilingCopy(pipert.MultiStream, 4),
			pipert.WithCaches(pipert.Caches{Kinds: pipert.MemoryPlan | pipert.TilingLocal})}
		plain := last(stepChain(12, -1), opts...)
		one := last(stepChain(12, -1), append(opts, pipert.WithHeterogeneous(nil))...)
		if one.Replay.Replays != plain.Replay.Replays || one.Replay.Kernels != plain.Replay.Kernels ||
			one.Tiling.Bytes != plain.Tiling.Bytes || one.Tiling.Copies != plain.Tiling.Copies || one.Plan.Tensors != plain.Plan.Tensors {
			t.Errorf("%v: one device part: replay %+v, tiling %+v, plan %+v; plain %+v, %+v, %+v",
				mode, one.Replay, one.Tiling, one.Plan, plain.Replay, plain.Tiling, plain.Plan)
		}
		split := last(stepChain(12, 5), append(opts, pipert.WithHeterogeneous(nil))...)
		if split.Plan.Tensors == 0 || mode == pipert.Pipeline && split.Tiling.Copies == 0 || mode == pipert.Replay && split.Replay.Replays == 0 {
			t.Errorf("%v: a node on the CPU: replay %+v, tiling %+v, plan %+v", mode, split.Replay, split.Tiling, split.Plan)
		}
		if split.Bound() > split.Makespan {
			t.Errorf("%v: bound %v above the makespan %v", mode, split.Bound(), split.Makespan)
		}
	}
}
