package actor_test

import (
	"runtime"
	"testing"

	"github.com/pipert/pipert/actor"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/plan"
)

// TestRunnerPoolGoesWithItsRegistry: the runner pool of a registry the
// program dropped is dropped too, with the kernels it kept, after a
// garbage collection.
func TestRunnerPoolGoesWithItsRegistry(t *testing.T) {
	before := actor.RunnerPools()
	func() {
		reg := ops.NewRegistry()
		c, err := plan.Config{Registry: reg, Caches: plan.Caches{Kinds: plan.Runners}}.Check()
		if err != nil {
			t.Fatal(err)
		}
		r := actor.NewRunners(c)
		if _, err := r.New("ReLU", kernel.Attrs{}); err != nil {
			t.Fatal(err)
		}
		r.Release()
		if n := actor.RunnerPools(); n != before+1 {
			t.Fatalf("%d runner pools with the registry's, want %d", n, before+1)
		}
	}()
	// Cleanups run on their own goroutine after the collection that
	// finds the registry unreachable.
	for i := 0; i < 100 && actor.RunnerPools() > before; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	if n := actor.RunnerPools(); n != before {
		t.Errorf("%d runner pools after the registry was dropped, want %d", n, before)
	}
}
