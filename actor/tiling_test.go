package actor_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/internal/graphtest"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/plan"
)

// TestTilingCopiesMatchKBK: random graphs with value and compute
// dependencies, whose rows change between runs, give KBK's outputs in
// every mode under every tiling-copy strategy, with a ring of one block
// (every copy after the first waits for the kernel before) and of 32;
// the counts say the tilings went: one transfer per kernel with a tiling
// (WithKernel, MultiStream), one per batch at most (Whole).
func TestTilingCopiesMatchKBK(t *testing.T) {
	modes := []plan.Config{
		{Mode: plan.KBK},
		{Mode: plan.Async, Barrier: plan.Drain},
		{Mode: plan.Pipeline},
		{Mode: plan.Pipeline, Barrier: plan.Drain, QueueCapacity: 1},
		{Mode: plan.Replay},
	}
	n := 12
	if testing.Short() {
		n = 4
	}
	rng := rand.New(rand.NewPCG(31, 9))
	var stalls int
	for i := 0; i < n; i++ {
		g, _ := graphtest.Random(rng, graphtest.Options{Nodes: 3 + rng.IntN(16), Cols: 1 + rng.Int64N(4), ValueDeps: i%2 == 0, DynamicRows: true})
		steps := make([][]*kernel.Tensor, 5)
		for s := range steps {
			steps[s] = graphtest.Refill(rng, g, 1+int64(s%2)*rng.Int64N(4))
		}
		want := kbkRuns(t, g, steps)
		for _, m := range modes {
			for _, how := range []plan.TilingCopy{plan.WithKernel, plan.MultiStream, plan.Whole} {
				for _, blocks := range []int{1, 32} {
					cfg := m
					cfg.TilingCopy, cfg.TilingBlocks = how, blocks
					a, _, done := newActor(t, g, cfg, ops.Builtins())
					for s, in := range steps {
						got, st, err := a.Run(context.Background(), in)
						if err == nil {
							err = sameOutputs(want[s], got)
						}
						if err != nil {
							t.Fatalf("graph %d step %d, %s, %v, %d blocks: %v", i, s, name(cfg), how, blocks, err)
						}
						ts := st.Tiling
						launched := a.Kernels() - st.Replay.Kernels
						switch {
						case ts.Bytes < 0 || ts.Copies < 0 || ts.Stalls < 0:
						case how != plan.Whole && ts.Copies > launched:
						case how == plan.Whole && ts.Copies > launched:
						case ts.Copies > 0 && ts.Bytes == 0:
						case how != plan.MultiStream && ts.Stalls != 0:
						case st.Replay.Kernels == 0 && ts.Copies == 0:
						default:
							stalls += ts.Stalls
							continue
						}
						t.Fatalf("graph %d step %d, %s, %v, %d blocks: tiling stats %+v for %d launched kernels", i, s, name(cfg), how, blocks, ts, launched)
					}
					done()
				}
			}
		}
	}
	if stalls == 0 {
		t.Error("no copy ever waited for a block of a one-block ring")
	}
}
