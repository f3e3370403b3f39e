package actor_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
)

// TestProfileOpsAllocatesNothingPerKernel: labelling each kernel's stages
// with its op (Config.ProfileOps) adds no Go allocation per kernel: a run
// of 1000 kernels allocates as much as one of 100, and as much as without
// the labels.
func TestProfileOpsAllocatesNothingPerKernel(t *testing.T) {
	chain := func(n int) *subgraph.Graph {
		b := subgraph.NewBuilder(fmt.Sprintf("chain%d", n))
		h := b.Input("x", kernel.Float32, 8, 8)
		w := b.Const("w", kernel.New(kernel.Float32, 8, 8))
		for i := range n {
			if i%2 == 0 {
				h = b.Op("MatMul", h, w)
			} else {
				h = b.Op("GELU", h)
			}
		}
		b.Output(h)
		return b.Graph()
	}
	all := plan.Caches{Kinds: plan.TilingLocal | plan.TilingGlobal | plan.InferReuse | plan.SetupReuse | plan.MemoryPlan}
	for _, m := range []plan.Mode{plan.KBK, plan.Pipeline} {
		allocs := map[[2]int]float64{}
		for _, on := range []int{0, 1} {
			for _, n := range []int{100, 1000} {
				a, _, done := newActor(t, chain(n), plan.Config{Mode: m, Caches: all, ProfileOps: on == 1}, ops.Builtins())
				in := []*kernel.Tensor{kernel.New(kernel.Float32, 8, 8)}
				ctx := context.Background()
				for range 2 {
					if _, _, err := a.Run(ctx, in); err != nil {
						t.Fatal(err)
					}
				}
				allocs[[2]int{on, n}] = testing.AllocsPerRun(5, func() {
					if _, _, err := a.Run(ctx, in); err != nil {
						t.Fatal(err)
					}
				})
				done()
			}
		}
		if on100, on1000, off1000 := allocs[[2]int{1, 100}], allocs[[2]int{1, 1000}], allocs[[2]int{0, 1000}]; on100 != on1000 || on1000 != off1000 {
			t.Errorf("%v: with op labels %v and %v Go allocations a run for 100 and 1000 kernels, %v without", m, on100, on1000, off1000)
		}
	}
}
