package pipert_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

// poolTestCalls counts the calls of the runner pool's test.
var poolTestCalls atomic.Int64

// TestRunnerPoolReusesKernelsOfClosedExecutables: with the runner pool, an
// executable compiled after another was closed takes that one's kernels
// instead of building them; two open at once never share one; without the
// pool every executable builds its own. Results are the same throughout.
func TestRunnerPoolReusesKernelsOfClosedExecutables(t *testing.T) {
	built := new(atomic.Int64)
	// The pool is the process's: an attribute of this call's own keeps
	// the kernels of an earlier call (go test -count) out of it.
	call := poolTestCalls.Add(1)
	reg := ops.NewRegistry()
	if err := reg.Register("Counted", func(a kernel.Attrs) (kernel.Kernel, error) {
		built.Add(1)
		return ops.Builtins().New("ReLU", nil)
	}); err != nil {
		t.Fatal(err)
	}
	b := subgraph.NewBuilder("counted")
	h := b.Input("x", kernel.Float32, 2)
	for i := range 3 {
		b.Node(&subgraph.Node{Name: "c" + string(rune('0'+i)), Op: "Counted", Inputs: []string{h}, Attrs: kernel.Attrs{"n": i % 2, "call": call}}, 1)
		h = b.Last().Outputs[0]
	}
	b.Output(h)
	g := b.Graph()
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -1}, 2)}
	compile := func(kinds pipert.CacheKinds) *pipert.Executable {
		t.Helper()
		exe, err := pipert.Compile(g, pipert.WithRegistry(reg), pipert.WithCaches(pipert.Caches{Kinds: kinds, RunnerSlots: 4}))
		if err != nil {
			t.Fatal(err)
		}
		res, err := exe.Run(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		if got := kernel.Float32s(res.Outputs[g.Outputs[0]].Host); got[0] != 1 || got[1] != 0 {
			t.Fatalf("relu gave %v", got)
		}
		return exe
	}
	for range 5 {
		compile(pipert.DefaultCaches).Close()
	}
	if n := built.Load(); n != 15 {
		t.Fatalf("without the pool, 5 executables built %d kernels, want 15", n)
	}
	built.Store(0)
	for range 5 {
		compile(pipert.DefaultCaches | pipert.Runners).Close()
	}
	if n := built.Load(); n != 3 {
		t.Fatalf("with the pool, 5 executables in turn built %d kernels, want 3", n)
	}
	// Open at once, two executables cannot share: the second builds.
	built.Store(0)
	a := compile(pipert.DefaultCaches | pipert.Runners)
	c := compile(pipert.DefaultCaches | pipert.Runners)
	if n := built.Load(); n != 3 {
		t.Fatalf("two open executables built %d kernels, want 3 (the second's)", n)
	}
	a.Close()
	c.Close()
}
