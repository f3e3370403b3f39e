package pipert_test

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/control"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

// filter is a compute-dependent kernel of the caller's: it keeps its
// input's positive elements, at most as many as the input has, and its
// OutputShapes answers *answer when that is set.
type filter struct {
	answer *atomic.Pointer[[]kernel.Shape]
	kept   int64
	exit   *atomic.Bool // OutputShapes calls runtime.Goexit while set
}

func (*filter) Op() string             { return "Filter" }
func (*filter) Arity() (int, int, int) { return 1, 1, 1 }
func (*filter) Deps() kernel.Deps      { return kernel.Deps{Compute: true} }
func (*filter) InferShape(in, out []*kernel.Tensor) error {
	out[0].DType, out[0].Shape = kernel.Float32, kernel.Shape{in[0].Shape.NumElements()}
	return nil
}
func (*filter) Resize(in, out []*kernel.Tensor, t *kernel.Tiling) error {
	t.Data, t.Workspace = t.Data[:0], 0
	return nil
}
func (*filter) Cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{FLOPs: 1, Bytes: float64(in[0].Bytes())}
}
func (f *filter) Compute(a *kernel.Args) error {
	f.kept = 0
	y := kernel.Float32s(a.Out[0].Data())
	for _, v := range kernel.Float32s(a.In[0].Data()) {
		if v > 0 {
			y[f.kept] = v
			f.kept++
		}
	}
	return nil
}
func (f *filter) OutputShapes(a *kernel.Args) ([]kernel.Shape, error) {
	if f.exit != nil && f.exit.Load() {
		runtime.Goexit()
	}
	if s := f.answer.Load(); s != nil {
		return *s, nil
	}
	return []kernel.Shape{{f.kept}}, nil
}

// TestBadOutputShapesBecomeErrors: a compute-dependent kernel whose
// OutputShapes answers a shape larger than its bound, one of another rank
// than InferShape's, one whose byte count wraps int64 to zero or to a
// negative number, a negative dimension or the wrong number of shapes
// makes Run fail, in every mode (the kernel on the device or, in a
// heterogeneous run, on the CPU) and in control.Eval, with an error
// matching kernel.ErrBadAnswer naming the node, op and stage; the same
// executable then runs correctly.
func TestBadOutputShapesBecomeErrors(t *testing.T) {
	answer := new(atomic.Pointer[[]kernel.Shape])
	reg := ops.NewRegistry()
	if err := reg.Register("Filter", func(kernel.Attrs) (kernel.Kernel, error) { return &filter{answer: answer}, nil }); err != nil {
		t.Fatal(err)
	}
	graph := func(p subgraph.Placement) *subgraph.Graph {
		b := subgraph.NewBuilder("filter")
		f := b.Op("Filter", b.Input("x", kernel.Float32, 4))
		b.Last().Placement = p
		b.Output(b.Op("Add", f, f))
		return b.Graph()
	}
	g := graph(subgraph.OnDevice)
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{-1, 2, 3, -4}, 4)}
	bad := map[string][]kernel.Shape{
		"beyond the bound":         {{100}},
		"another rank":             {{1, 1}},
		"bytes wrapping to zero":   {{1 << 62}},
		"bytes wrapping negative":  {{1 << 61}},
		"a negative dimension":     {{-2}},
		"two shapes for an output": {{1}, {1}},
	}
	isFilterErr := func(err error) bool {
		var ke *kernel.Error
		return errors.As(err, &ke) && ke.Node == "filter_0" && ke.Op == "Filter" && ke.Stage == kernel.StageLaunch && errors.Is(err, kernel.ErrBadAnswer)
	}
	modes := append(everyMode(), modeCase{"hetero/filter on the CPU", []pipert.Option{pipert.WithHeterogeneous(nil)}})
	for _, m := range modes {
		g := g
		if m.name == "hetero/filter on the CPU" {
			g = graph(subgraph.OnCPU)
		}
		exe, err := pipert.Compile(g, append(m.opts, pipert.WithRegistry(reg))...)
		if err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
		for name, shapes := range bad {
			answer.Store(&shapes)
			if _, err := exe.Run(context.Background(), in); !isFilterErr(err) {
				t.Errorf("%s: OutputShapes %s: %v, want an ErrBadAnswer naming node filter_0, op Filter, stage launch", m.name, name, err)
			}
			answer.Store(nil)
			res, err := exe.Run(context.Background(), in)
			if err != nil {
				t.Fatalf("%s: run after %s: %v", m.name, name, err)
			}
			if y := res.Outputs["add_0:0"]; !slices.Equal(kernel.Float32s(y.Host), []float32{4, 6}) {
				t.Errorf("%s: run after %s gave %v", m.name, name, y)
			}
		}
		if err := exe.Close(); err != nil {
			t.Errorf("%s: Close: %v", m.name, err)
		}
	}
	for name, shapes := range bad {
		answer.Store(&shapes)
		if _, _, err := control.Eval(g, []*kernel.Tensor{in["x"]}, reg); !isFilterErr(err) {
			t.Errorf("control.Eval: OutputShapes %s: %v, want an ErrBadAnswer naming node filter_0, op Filter, stage launch", name, err)
		}
	}
}

// TestGoexitInOutputShapes: a runtime.Goexit in OutputShapes, called while
// a consumer's InferShape waits for the shapes on a stage goroutine of
// pipert's, fails the run with an error naming the producer's node and
// its launch, not the consumer waiting; the next run is correct.
func TestGoexitInOutputShapes(t *testing.T) {
	exit := new(atomic.Bool)
	reg := ops.NewRegistry()
	if err := reg.Register("Filter", func(kernel.Attrs) (kernel.Kernel, error) {
		return &filter{answer: new(atomic.Pointer[[]kernel.Shape]), exit: exit}, nil
	}); err != nil {
		t.Fatal(err)
	}
	b := subgraph.NewBuilder("filter")
	f := b.Op("Filter", b.Input("x", kernel.Float32, 4))
	b.Output(b.Op("Add", f, f))
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{-1, 2, 3, -4}, 4)}
	exe, err := pipert.Compile(b.Graph(), pipert.WithMode(pipert.Pipeline), pipert.WithRegistry(reg))
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	exit.Store(true)
	_, err = exe.Run(context.Background(), in)
	exit.Store(false)
	var ke *kernel.Error
	if !errors.Is(err, kernel.ErrGoexit) || !errors.As(err, &ke) || ke.Node != "filter_0" || ke.Stage != kernel.StageLaunch {
		t.Fatalf("Goexit in OutputShapes: %v, want an error matching ErrGoexit naming node filter_0, stage launch", err)
	}
	res, err := exe.Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if y := res.Outputs["add_0:0"]; !slices.Equal(kernel.Float32s(y.Host), []float32{4, 6}) {
		t.Errorf("run after the Goexit gave %v", y)
	}
}
