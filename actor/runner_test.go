package actor

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

// stepGraph is x → ReLU → Shape → Reshape(relu, shape) → Unique → ReLU:
// a value dependency (Reshape reads Shape's output) and a compute
// dependency (Unique's output size).
func stepGraph(t *testing.T) (*program, *subgraph.Checked) {
	t.Helper()
	b := subgraph.NewBuilder("steps")
	x := b.Input("x", kernel.Float32, kernel.Dynamic, 2)
	r := b.Op("ReLU", x)
	s := b.Op("Shape", r)
	rs := b.Op("Reshape", r, s)
	u := b.Op("Unique", rs)
	b.Output(b.Op("ReLU", u))
	return lower(t, b.Graph())
}

// TestRunnerStepByStep drives the KernelRunner by hand, as the engine does
// on one goroutine, and checks what each step reports.
func TestRunnerStepByStep(t *testing.T) {
	p, _ := stepGraph(t)
	dev, err := device.NewSim(device.SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mem := new(Memory)
	r := newRunner(p, dev, mem, 1)
	if err := r.uploadConsts(context.Background()); err != nil {
		t.Fatal(err)
	}
	in := kernel.FromFloat32([]float32{3, -1, 2, 3, -5, 2}, 3, 2)
	if err := r.Begin([]*kernel.Tensor{in}, 0); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ops := make([]string, len(p.nodes))
	for pos := range p.nodes {
		ops[pos] = p.nodes[pos].op()
	}
	if !slices.Equal(ops, []string{"ReLU", "Shape", "Reshape", "Unique", "ReLU"}) {
		t.Fatalf("execution order %v", ops)
	}
	// The script: for each node, what Needs must report before InferShape.
	want := [][]Need{
		nil,
		nil,
		{{Producer: 1, Input: 1}}, // Reshape reads Shape's output
		nil,
		{{Producer: 3, Input: -1}}, // the consumer resolves Unique's size
	}
	for pos := range p.nodes {
		r.Prepare(pos)
		needs := r.Needs(pos, nil)
		if !slices.Equal(needs, want[pos]) {
			t.Fatalf("node %d (%s): needs %v, want %v", pos, ops[pos], needs, want[pos])
		}
		for _, n := range needs {
			if err := r.stream.Synchronize(ctx); err != nil {
				t.Fatal(err)
			}
			if n.Input < 0 {
				if err := r.Resolve(n.Producer); err != nil {
					t.Fatal(err)
				}
			} else if err := r.Stage(ctx, pos, n.Input, r.stream); err != nil {
				t.Fatal(err)
			}
		}
		if len(needs) > 0 {
			if again := r.Needs(pos, nil); len(again) != 0 {
				t.Fatalf("node %d: still needs %v after the waits", pos, again)
			}
		}
		for _, step := range []func(int) error{r.Infer, r.Resize, r.Launch} {
			if err := step(pos); err != nil {
				t.Fatalf("node %d (%s): %v", pos, ops[pos], err)
			}
		}
	}
	outs, err := r.Outputs(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := kernel.Float32s(outs[0].Host); !slices.Equal(got, []float32{0, 2, 3}) {
		t.Fatalf("unique of relu gave %v (shape %v)", got, outs[0].Shape)
	}
	if err := r.End(); err != nil {
		t.Fatal(err)
	}
	if mem.InUse() != 0 || dev.Stats().MemInUse != 0 {
		t.Fatalf("%d bytes accounted, %d on the device after End", mem.InUse(), dev.Stats().MemInUse)
	}
}

// panicky is ReLU panicking in the stage named.
type panicky struct {
	kernel.Kernel
	stage kernel.Stage
}

func (k *panicky) Resize(in, out []*kernel.Tensor, t *kernel.Tiling) error {
	if k.stage == kernel.StageResize {
		panic("resize")
	}
	return k.Kernel.Resize(in, out, t)
}

// TestRunnerRecoversAndEndFrees: a step whose kernel panics half way
// returns an error naming node, op and stage with the panic's value and
// stack, and End frees what the run allocated.
func TestRunnerRecoversAndEndFrees(t *testing.T) {
	p, _ := stepGraph(t)
	relu, _ := ops.Builtins().New("ReLU", nil)
	p.nodes[4].k = &panicky{Kernel: relu, stage: kernel.StageResize}
	dev, _ := device.NewSim(device.SimOptions{})
	mem := new(Memory)
	r := newRunner(p, dev, mem, 1)
	if err := r.Begin([]*kernel.Tensor{kernel.FromFloat32([]float32{1, 2}, 1, 2)}, 0); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var failed error
	for pos := 0; pos < len(p.nodes) && failed == nil; pos++ {
		for _, n := range r.Needs(pos, nil) {
			r.stream.Synchronize(ctx)
			if n.Input < 0 {
				failed = r.Resolve(n.Producer)
			} else {
				failed = r.Stage(ctx, pos, n.Input, r.stream)
			}
		}
		for _, step := range []func(int) error{r.Infer, r.Resize, r.Launch} {
			if failed == nil {
				failed = step(pos)
			}
		}
	}
	var ke *kernel.Error
	var pe *PanicError
	if !errors.As(failed, &ke) || !errors.As(failed, &pe) {
		t.Fatalf("error %v is not a kernel.Error caused by a PanicError", failed)
	}
	if ke.Node != p.nodes[4].name || ke.Stage != kernel.StageResize || pe.Value != "resize" || len(pe.Stack) == 0 {
		t.Fatalf("error names %q %v, panic %v", ke.Node, ke.Stage, pe.Value)
	}
	if mem.InUse() == 0 {
		t.Fatal("nothing allocated before the failure")
	}
	if err := r.End(); err != nil {
		t.Fatal(err)
	}
	if mem.InUse() != 0 || dev.Stats().MemInUse != 0 {
		t.Fatalf("%d bytes accounted, %d on the device after End", mem.InUse(), dev.Stats().MemInUse)
	}
}

// TestNilPanicError: a nil *PanicError prints "<nil>" and still matches
// kernel.ErrPanic; neither panics.
func TestNilPanicError(t *testing.T) {
	var e *PanicError
	if e.Error() != "<nil>" || !e.Is(kernel.ErrPanic) {
		t.Errorf("nil PanicError: %q", e.Error())
	}
}
