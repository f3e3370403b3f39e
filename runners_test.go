package pipert_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
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

// TestRunnerPoolKeepsRegistriesApart: two registries build op "Scaled"
// with different factories; with the runner pool, an executable of the
// second compiled after one of the first was closed gets the second's
// kernel, not the first's from the pool.
func TestRunnerPoolKeepsRegistriesApart(t *testing.T) {
	call := poolTestCalls.Add(1)
	scaled := func(f float32) *ops.Registry {
		reg := ops.NewRegistry()
		if err := reg.Register("Scaled", func(a kernel.Attrs) (kernel.Kernel, error) {
			return &scaleKernel{f: f}, nil
		}); err != nil {
			t.Fatal(err)
		}
		return reg
	}
	b := subgraph.NewBuilder("scaled")
	x := b.Input("x", kernel.Float32, 2)
	b.Node(&subgraph.Node{Name: "s", Op: "Scaled", Inputs: []string{x}, Attrs: kernel.Attrs{"call": call}}, 1)
	b.Output(b.Last().Outputs[0])
	g := b.Graph()
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, 2}, 2)}
	cs := pipert.WithCaches(pipert.Caches{Kinds: pipert.DefaultCaches | pipert.Runners})
	for _, f := range []float32{10, -1, 10} {
		exe, err := pipert.Compile(g, pipert.WithRegistry(scaled(f)), cs)
		if err != nil {
			t.Fatal(err)
		}
		res, err := exe.Run(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		if got := kernel.Float32s(res.Outputs[g.Outputs[0]].Host); got[0] != f || got[1] != 2*f {
			t.Errorf("the registry scaling by %v gave %v", f, got)
		}
		if err := exe.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// scaleKernel multiplies its float32 input by f, a value its factory
// captured.
type scaleKernel struct{ f float32 }

func (k *scaleKernel) Op() string             { return "Scaled" }
func (k *scaleKernel) Arity() (int, int, int) { return 1, 1, 1 }
func (k *scaleKernel) Deps() kernel.Deps      { return kernel.Deps{} }
func (k *scaleKernel) InferShape(in, out []*kernel.Tensor) error {
	out[0].DType, out[0].Shape = in[0].DType, append(out[0].Shape[:0], in[0].Shape...)
	return nil
}
func (k *scaleKernel) Resize(in, out []*kernel.Tensor, t *kernel.Tiling) error { return nil }
func (k *scaleKernel) Cost(in, out []*kernel.Tensor) device.Cost               { return device.Cost{} }
func (k *scaleKernel) Compute(a *kernel.Args) error {
	if !a.Real() {
		return nil
	}
	x, y := kernel.Float32s(a.In[0].Data()), kernel.Float32s(a.Out[0].Data())
	for i := range y {
		y[i] = x[i] * k.f
	}
	return nil
}
