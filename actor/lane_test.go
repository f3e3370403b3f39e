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

// TestLaneRunsTheProgram: a lane made of an actor, in every mode, gives
// KBK's outputs run after run, alternating with the actor it was made of,
// and goes on giving them once that actor is closed (the lane's constants
// and state are its own); closing both leaks no device memory.
func TestLaneRunsTheProgram(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for i := 0; i < 6; i++ {
		g, _ := graphtest.Random(rng, graphtest.Options{Nodes: 3 + rng.IntN(20), Cols: 1 + rng.Int64N(4), ValueDeps: i%2 == 1, DynamicRows: true})
		steps := make([][]*kernel.Tensor, 4)
		for s := range steps {
			steps[s] = graphtest.Refill(rng, g, 1+rng.Int64N(4))
		}
		want := kbkRuns(t, g, steps)
		for _, mode := range []plan.Mode{plan.KBK, plan.Async, plan.Pipeline, plan.Replay} {
			a, _, done := newActor(t, g, plan.Config{Mode: mode}, ops.Builtins())
			lane, err := a.Lane(context.Background(), "lane", nil)
			if err != nil {
				t.Fatalf("graph %d, %v: lane: %v", i, mode, err)
			}
			if lane.Kernels() != a.Kernels() || lane.Mode() != mode {
				t.Fatalf("graph %d, %v: lane has %d kernels in mode %v, want %d in %v", i, mode, lane.Kernels(), lane.Mode(), a.Kernels(), mode)
			}
			for s, in := range steps {
				runner := a
				if s%2 == 1 {
					runner = lane
				}
				got, _, err := runner.Run(context.Background(), in)
				if err == nil {
					err = sameOutputs(want[s], got)
				}
				if err != nil {
					t.Fatalf("graph %d, %v, step %d: %v", i, mode, s, err)
				}
			}
			if err := a.Close(); err != nil { // the lane runs on
				t.Fatalf("graph %d, %v: close: %v", i, mode, err)
			}
			for s, in := range steps {
				got, _, err := lane.Run(context.Background(), in)
				if err == nil {
					err = sameOutputs(want[s], got)
				}
				if err != nil {
					t.Fatalf("graph %d, %v, step %d after the actor closed: %v", i, mode, s, err)
				}
			}
			if err := lane.Close(); err != nil {
				t.Fatalf("graph %d, %v: close lane: %v", i, mode, err)
			}
			done() // a closed again (a no-op), then no device memory left
		}
	}
}
