package pipert_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
)

func reluGraph() *subgraph.Graph {
	b := subgraph.NewBuilder("relu")
	b.Output(b.Op("ReLU", b.Input("x", kernel.Float32, kernel.Dynamic, 2)))
	return b.Graph()
}

// TestMisuseIsAnError: every misuse of the facade is an error, in every
// mode, and never a panic or a hang.
func TestMisuseIsAnError(t *testing.T) {
	if _, err := pipert.Compile(nil); !errors.Is(err, pipert.ErrInvalid) {
		t.Errorf("nil graph: %v, want ErrInvalid", err)
	}
	if _, err := pipert.Compile(&subgraph.Graph{Name: "dangling", Nodes: []*subgraph.Node{{Name: "n", Op: "ReLU", Inputs: []string{"nowhere"}, Outputs: []string{"y"}}}, Outputs: []string{"y"}}); err == nil {
		t.Error("graph reading an undefined tensor compiled")
	}
	if _, err := pipert.Compile(&subgraph.Graph{Name: "unknown", Inputs: []subgraph.Value{{Name: "x", DType: kernel.Float32, Shape: kernel.Shape{2}}},
		Nodes: []*subgraph.Node{{Name: "n", Op: "NoSuchOp", Inputs: []string{"x"}, Outputs: []string{"y"}}}, Outputs: []string{"y"}}); !errors.Is(err, pipert.ErrUnknownOp) {
		t.Errorf("unknown op: %v, want ErrUnknownOp", err)
	}
	for name, o := range map[string]pipert.Option{
		"mode 9":             pipert.WithMode(9),
		"barrier 7":          pipert.WithBarrier(7),
		"capacity 0 - 1":     pipert.WithQueueCapacity(-1),
		"capacity 1<<20+1":   pipert.WithQueueCapacity(plan.MaxQueueCapacity + 1),
		"negative cost":      pipert.WithCosts(pipert.Costs{Launch: -1}),
		"huge cost":          pipert.WithCosts(pipert.Costs{Prepare: 1 << 62}),
		"huge create cost":   pipert.WithCosts(pipert.Costs{Create: plan.MaxCost + 1}),
		"panicking HostCost": pipert.WithHostCost(func(plan.Node) pipert.Costs { panic("boom") }),
	} {
		if _, err := pipert.Compile(reluGraph(), o); !errors.Is(err, pipert.ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
	// Virtual operators need a host-mapped device; the default, SW-AI, is not.
	if _, err := pipert.Compile(reluGraph(), pipert.WithConfig(pipert.Config{Virtual: []string{"ReLU"}}), pipert.WithHeterogeneous(nil)); !errors.Is(err, pipert.ErrConfig) {
		t.Errorf("virtual operators on a device that is not host-mapped: %v, want ErrConfig", err)
	}
	good := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{-1, 2, -3, 4}, 2, 2)}
	for _, m := range everyMode() {
		exe, err := pipert.Compile(reluGraph(), append([]pipert.Option{nil, pipert.WithQueueCapacity(1)}, m.opts...)...)
		if err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
		bad := map[string]map[string]*kernel.Tensor{
			"nil map":       nil,
			"nil tensor":    {"x": nil},
			"unknown input": {"x": good["x"], "y": good["x"]},
			"wrong dtype":   {"x": kernel.New(kernel.Int64, 2, 2)},
			"wrong rank":    {"x": kernel.New(kernel.Float32, 4)},
			"wrong dim":     {"x": kernel.New(kernel.Float32, 2, 3)},
			"short data":    {"x": {DType: kernel.Float32, Shape: kernel.Shape{2, 2}, Host: make([]byte, 3)}},
			"negative dim":  {"x": {DType: kernel.Float32, Shape: kernel.Shape{-2, 2}}},
		}
		for what, in := range bad {
			if _, err := exe.Run(context.Background(), in); err == nil {
				t.Errorf("%s: %s accepted", m.name, what)
			}
		}
		//lint:ignore SA1012 a nil context is the misuse under test
		if _, err := exe.Run(nil, good); err == nil { //nolint:staticcheck
			t.Errorf("%s: nil context accepted", m.name)
		}
		cancelled, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := exe.Run(cancelled, good); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: run on a cancelled context: %v", m.name, err)
		}
		// Concurrent runs are serialised and all correct.
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := exe.Run(context.Background(), good)
				if err != nil {
					t.Errorf("%s: concurrent run: %v", m.name, err)
					return
				}
				if got := kernel.Float32s(res.Outputs["relu_0:0"].Host); got[0] != 0 || got[1] != 2 || got[3] != 4 {
					t.Errorf("%s: concurrent run gave %v", m.name, got)
				}
			}()
		}
		wg.Wait()
		if err := exe.Close(); err != nil {
			t.Fatal(err)
		}
		if err := exe.Close(); err != nil {
			t.Errorf("%s: second Close: %v", m.name, err)
		}
		if _, err := exe.Run(context.Background(), good); !errors.Is(err, pipert.ErrClosed) {
			t.Errorf("%s: run after Close: %v", m.name, err)
		}
	}
}

// TestLongCostEndsWithItsRun: a synthetic host cost of MaxCost stops
// burning once the run's context ends, in every mode: Run returns the
// context's error long before one cost would have been burnt. (The
// deadline only ends the run: no result depends on when.)
func TestLongCostEndsWithItsRun(t *testing.T) {
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{-1, 2, -3, 4}, 2, 2)}
	modes := []pipert.Option{pipert.WithMode(pipert.KBK), pipert.WithMode(pipert.Async), pipert.WithMode(pipert.Pipeline),
		pipert.WithMode(pipert.Replay), pipert.WithHeterogeneous(nil)}
	for i, m := range modes {
		exe, err := pipert.Compile(reluGraph(), m, pipert.WithCosts(pipert.Costs{Infer: plan.MaxCost}))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond) // ends while the run burns
		t0 := time.Now()
		_, err = exe.Run(ctx, in)
		cancel()
		if took := time.Since(t0); !errors.Is(err, context.DeadlineExceeded) || took >= plan.MaxCost/2 {
			t.Errorf("option %d: Run returned %v after %v, want context.DeadlineExceeded well before %v", i, err, took, plan.MaxCost)
		}
		exe.Close()
	}
}

// TestGraphChangedAfterCompile: an executable keeps its own copy of the
// graph: changing the caller's graph after Compile (an op, an attribute,
// a tensor attribute's contents, an edge, a node's name and output, an
// output, an input's shape, a constant passed to the outputs) changes none
// of its runs, in every mode.
func TestGraphChangedAfterCompile(t *testing.T) {
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{-1, 2, -3, 4}, 4)}
	for _, o := range []pipert.Option{pipert.WithMode(pipert.KBK), pipert.WithMode(pipert.Async), pipert.WithMode(pipert.Pipeline), pipert.WithMode(pipert.Replay), pipert.WithHeterogeneous(nil)} {
		b := subgraph.NewBuilder("g")
		x := b.Input("x", kernel.Float32, 4)
		fill := kernel.FromFloat32([]float32{7}, 1)
		w := kernel.FromFloat32([]float32{1, 2, 3, 4}, 4)
		sevens := b.OpAttrs("ConstantOfShape", kernel.Attrs{"value": fill}, b.Const("shape", kernel.FromInt64([]int64{4}, 1)))
		a := b.Op("Add", b.Op("ReLU", x), sevens)
		y := b.OpAttrs("Softmax", kernel.Attrs{"axis": int64(0)}, a)
		b.Output(y, a, b.Const("w", w))
		g := b.Graph()
		exe, err := pipert.Compile(g, o)
		if err != nil {
			t.Fatal(err)
		}
		before, err := exe.Run(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		relu, add, softmax := g.Nodes[1], g.Nodes[2], g.Nodes[3]
		relu.Op = "Neg"
		// Nodes without attributes: their names and lists too.
		relu.Name, relu.Inputs[0], relu.Outputs[0] = "renamed", sevens, "elsewhere"
		add.Inputs[0], add.Inputs[1] = sevens, sevens
		softmax.Attrs["axis"] = int64(5)
		softmax.Inputs[0] = "x"
		g.Outputs[0] = "x"
		g.Inputs[0].Shape[0] = 7
		copy(fill.Host, kernel.FromFloat32([]float32{-1}, 1).Host)
		copy(w.Host, kernel.FromFloat32([]float32{9, 9, 9, 9}, 4).Host)
		after, err := exe.Run(context.Background(), in)
		if err != nil {
			t.Fatalf("after changing the graph: %v", err)
		}
		for _, name := range []string{y, a, "w"} {
			if string(after.Outputs[name].Host) != string(before.Outputs[name].Host) {
				t.Errorf("%s changed with the caller's graph: %v, then %v", name, kernel.Float32s(before.Outputs[name].Host), kernel.Float32s(after.Outputs[name].Host))
			}
		}
		exe.Close()
	}
}

// TestConfigListsAreTheExecutables: the lists of the Config an executable
// returns, or of one given to WithConfig, are not the executable's own:
// changing them after Compile changes nothing its steps carry.
func TestConfigListsAreTheExecutables(t *testing.T) {
	b := subgraph.NewBuilder("carry")
	x, past := b.Input("x", kernel.Float32, 2), b.Input("past", kernel.Float32, 2)
	b.Node(&subgraph.Node{Name: "add", Op: "Add", Inputs: []string{x, past}, Outputs: []string{"present"}}, 1)
	b.Output("present")
	g := b.Graph()
	mine := pipert.Config{Mode: pipert.Pipeline, Carried: []string{"present"}}
	exe, err := pipert.Compile(g, pipert.WithConfig(mine))
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	mine.Carried[0] = "x"
	exe.Config().Carried[0] = "past"
	if c := exe.Config().Carried; len(c) != 1 || c[0] != "present" {
		t.Errorf("Config().Carried = %v after the caller changed its copies", c)
	}
	ones := func() *kernel.Tensor { return kernel.FromFloat32([]float32{1, 1}, 2) }
	p0, err := exe.Submit(context.Background(), map[string]*kernel.Tensor{"x": ones(), "past": ones()})
	if err != nil {
		t.Fatal(err)
	}
	p1, err := exe.Submit(context.Background(), map[string]*kernel.Tensor{"x": ones()}, pipert.Carry{From: p0, Output: "present", Input: "past"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p1.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if got := kernel.Float32s(res.Outputs["present"].Host); got[0] != 3 || got[1] != 3 {
		t.Errorf("the carried step gave %v, want [3 3]", got)
	}
}

// badProfileDev is a simulator whose Profile answers an invalid profile.
type badProfileDev struct{ *device.Sim }

func (d badProfileDev) Profile() device.Profile {
	p := d.Sim.Profile()
	p.PeakFLOPS = math.NaN()
	return p
}

// namelessDev is a simulator without a name.
type namelessDev struct{ *device.Sim }

func (namelessDev) Name() string { return "" }

// TestInvalidDeviceProfileIsAConfigError: a device of the caller's whose
// Profile does not validate, or whose Name is empty, fails Compile with
// ErrConfig, in every mode.
func TestInvalidDeviceProfileIsAConfigError(t *testing.T) {
	for _, m := range everyMode() {
		sim, err := device.NewSim(device.SimOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pipert.Compile(reluGraph(), append(m.opts, pipert.WithDevice(badProfileDev{sim}))...); !errors.Is(err, pipert.ErrConfig) || !strings.Contains(err.Error(), "PeakFLOPS") {
			t.Errorf("%s: %v, want ErrConfig naming PeakFLOPS", m.name, err)
		}
		if _, err := pipert.Compile(reluGraph(), append(m.opts, pipert.WithDevice(namelessDev{sim}))...); !errors.Is(err, pipert.ErrConfig) || !strings.Contains(err.Error(), "Name") {
			t.Errorf("%s: a device without a name: %v, want ErrConfig", m.name, err)
		}
	}
}

// TestRunIntoShortChangesNothing: when one of RunInto's outputs cannot
// hold its output, the run fails with ErrShortOutput and no output
// tensor changes, in every mode.
func TestRunIntoShortChangesNothing(t *testing.T) {
	b := subgraph.NewBuilder("two")
	x := b.Input("x", kernel.Float32, 4)
	first, second := b.Op("ReLU", x), b.Op("Neg", x)
	b.Output(first, second)
	g := b.Graph()
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{-1, 2, -3, 4}, 4)}
	for _, m := range everyMode() {
		name, opts := m.name, m.opts
		exe, err := pipert.Compile(g, opts...)
		if err != nil {
			t.Fatal(err)
		}
		fits := kernel.FromFloat32([]float32{9, 9, 9, 9}, 4)
		short := kernel.FromFloat32([]float32{9, 9}, 2)
		outs := map[string]*kernel.Tensor{first: fits, second: short}
		if _, err := exe.RunInto(context.Background(), in, outs); !errors.Is(err, pipert.ErrShortOutput) {
			t.Errorf("%s: %v, want ErrShortOutput", name, err)
		}
		if got := kernel.Float32s(fits.Host); !slices.Equal(got, []float32{9, 9, 9, 9}) || !fits.Shape.Equal(kernel.Shape{4}) {
			t.Errorf("%s: the output that fits became %v %v", name, fits.Shape, got)
		}
		if got := kernel.Float32s(short.Host); !slices.Equal(got, []float32{9, 9}) || !short.Shape.Equal(kernel.Shape{2}) {
			t.Errorf("%s: the short output became %v %v", name, short.Shape, got)
		}
		exe.Close()
	}
}

// TestRunIntoSharedShapes: RunInto writes each output's shape into its
// Shape slice, so two outputs sharing one, or an output sharing an input's,
// are ErrBadOutput and change nothing, in every mode.
func TestRunIntoSharedShapes(t *testing.T) {
	b := subgraph.NewBuilder("two")
	x := b.Input("x", kernel.Float32, 2, 3)
	first, second := b.Op("ReLU", x), b.Op("Transpose", x)
	b.Output(first, second)
	g := b.Graph()
	for _, m := range everyMode() {
		name, opts := m.name, m.opts
		exe, err := pipert.Compile(g, opts...)
		if err != nil {
			t.Fatal(err)
		}
		xv := kernel.FromFloat32([]float32{1, -2, 3, -4, 5, -6}, 2, 3)
		in := map[string]*kernel.Tensor{"x": xv}
		shared := make(kernel.Shape, 2, 4)
		one, two := kernel.New(kernel.Float32, 2, 3), kernel.New(kernel.Float32, 3, 2)
		one.Shape, two.Shape = shared, shared[:2]
		if _, err := exe.RunInto(context.Background(), in, map[string]*kernel.Tensor{first: one, second: two}); !errors.Is(err, pipert.ErrBadOutput) {
			t.Errorf("%s: outputs sharing a Shape slice: %v, want ErrBadOutput", name, err)
		}
		two = kernel.New(kernel.Float32, 3, 2)
		two.Shape = xv.Shape[:0]
		if _, err := exe.RunInto(context.Background(), in, map[string]*kernel.Tensor{first: kernel.New(kernel.Float32, 2, 3), second: two}); !errors.Is(err, pipert.ErrBadOutput) {
			t.Errorf("%s: an output sharing the input's Shape slice: %v, want ErrBadOutput", name, err)
		}
		if !xv.Shape.Equal(kernel.Shape{2, 3}) {
			t.Errorf("%s: the input's shape became %v", name, xv.Shape)
		}
		// Separate slices: both shapes right.
		one, two = kernel.New(kernel.Float32, 2, 3), kernel.New(kernel.Float32, 3, 2)
		if _, err := exe.RunInto(context.Background(), in, map[string]*kernel.Tensor{first: one, second: two}); err != nil {
			t.Errorf("%s: %v", name, err)
		} else if !one.Shape.Equal(kernel.Shape{2, 3}) || !two.Shape.Equal(kernel.Shape{3, 2}) {
			t.Errorf("%s: shapes %v and %v, want [2 3] and [3 2]", name, one.Shape, two.Shape)
		}
		exe.Close()
	}
}

// TestEndedContextFailsEveryKind: a run given a context already ended
// fails with its error whatever the executable, a heterogeneous one with
// no kernel among them; and a failed RunInto reports the run's Stats.
func TestEndedContextFailsEveryKind(t *testing.T) {
	b := subgraph.NewBuilder("none")
	x := b.Input("x", kernel.Float32, 4)
	b.Output(x)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, 2, 3, 4}, 4)}
	for _, m := range everyMode() {
		name, opts := m.name, m.opts
		exe, err := pipert.Compile(b.Graph(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := exe.Run(ctx, in); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: Run with an ended context: %v, want Canceled", name, err)
		}
		if _, err := exe.RunInto(ctx, in, map[string]*kernel.Tensor{x: kernel.New(kernel.Float32, 4)}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: RunInto with an ended context: %v, want Canceled", name, err)
		}
		exe.Close()
	}
	// A heterogeneous RunInto that fails after it started reports the
	// run's Stats, as the other executables do.
	g := subgraph.NewBuilder("short")
	gx := g.Input("x", kernel.Float32, 4)
	g.Output(g.Op("ReLU", gx))
	exe, err := pipert.Compile(g.Graph(), pipert.WithHeterogeneous(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	out := g.Graph().Outputs[0]
	st, err := exe.RunInto(context.Background(), in, map[string]*kernel.Tensor{out: kernel.New(kernel.Float32, 1)})
	if !errors.Is(err, pipert.ErrShortOutput) || !st.Heterogeneous || st.Kernels != 1 {
		t.Errorf("short heterogeneous RunInto: %v, Stats %+v; want ErrShortOutput and the run's Stats", err, st)
	}
}

// failKernel is ReLU whose Compute fails.
type failKernel struct{ kernel.Kernel }

func (failKernel) Compute(*kernel.Args) error { return errors.New("no") }

// TestFailedRunIntoReportsStats: a RunInto that fails in a kernel reports
// the Stats of the run, heterogeneous or not.
func TestFailedRunIntoReportsStats(t *testing.T) {
	r := ops.NewRegistry()
	if err := r.Register("Fail", func(kernel.Attrs) (kernel.Kernel, error) {
		k, err := ops.Builtins().New("ReLU", nil)
		return failKernel{k}, err
	}); err != nil {
		t.Fatal(err)
	}
	b := subgraph.NewBuilder("fail")
	x := b.Input("x", kernel.Float32, 4)
	b.Node(&subgraph.Node{Name: "fail", Op: "Fail", Inputs: []string{b.Op("Neg", x)}, Placement: subgraph.OnCPU}, 1)
	y := b.Last().Outputs[0]
	b.Output(y)
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, 2, 3, 4}, 4)}
	for _, het := range []bool{false, true} {
		opts := []pipert.Option{pipert.WithRegistry(r)}
		if het {
			opts = append(opts, pipert.WithHeterogeneous(nil))
		}
		exe, err := pipert.Compile(b.Graph(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		st, err := exe.RunInto(context.Background(), in, map[string]*kernel.Tensor{y: kernel.New(kernel.Float32, 4)})
		if err == nil || st.Heterogeneous != het || !st.Mode.Valid() || st.Makespan <= 0 {
			t.Errorf("heterogeneous %v: %v, Stats %+v; want the error and the run's Stats", het, err, st)
		}
		exe.Close()
	}
}

// TestHostCostFailingWhilePricingPlacement: a host-cost hook that panics
// or gives an invalid cost once, when a placement policy prices a node on
// the CPU (heterog.Cost asks both placements), fails Compile with an error
// matching ErrPanic or ErrConfig, not a placement on zero costs.
func TestHostCostFailingWhilePricingPlacement(t *testing.T) {
	for name, c := range map[string]struct {
		bad  func() pipert.Costs
		want error
	}{
		"panics":   {func() pipert.Costs { panic("a host-cost hook's bug") }, pipert.ErrPanic},
		"negative": {func() pipert.Costs { return pipert.Costs{Launch: -time.Microsecond} }, pipert.ErrConfig},
	} {
		var once sync.Once
		hook := func(n plan.Node) pipert.Costs {
			bad := false
			if n.OnCPU {
				once.Do(func() { bad = true })
			}
			if bad {
				return c.bad()
			}
			return pipert.Costs{}
		}
		b := subgraph.NewBuilder("static")
		x := b.Input("x", kernel.Float32, 64) // static shapes: heterog.Cost prices the nodes
		b.Output(b.Op("ReLU", b.Op("Add", x, x)))
		_, err := pipert.Compile(b.Graph(), pipert.WithHeterogeneous(heterog.Cost{}), pipert.WithHostCost(hook))
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
}

// TestCompileGraphHoldingItself: Compile of a graph that an attribute of
// its own node holds (directly, or as an If's branch) is an error
// matching subgraph.ErrCycle, not a stack overflow.
func TestCompileGraphHoldingItself(t *testing.T) {
	g := &subgraph.Graph{Name: "g", Inputs: []subgraph.Value{{Name: "x", DType: kernel.Float32, Shape: kernel.Shape{2}}}, Outputs: []string{"y"}}
	g.Nodes = []*subgraph.Node{{Name: "n", Op: "ReLU", Inputs: []string{"x"}, Outputs: []string{"y"}, Attrs: kernel.Attrs{"oops": g}}}
	b := &subgraph.Graph{Name: "b", Inputs: g.Inputs, Outputs: []string{"y"}}
	b.Nodes = []*subgraph.Node{{Name: "if", Op: "If", Inputs: []string{"c", "x"}, Outputs: []string{"y"}, Attrs: kernel.Attrs{"then_branch": b, "else_branch": b}}}
	b.Inputs = append(b.Inputs, subgraph.Value{Name: "c", DType: kernel.Bool, Shape: kernel.Shape{}})
	for _, h := range []*subgraph.Graph{g, b} {
		for _, het := range []bool{false, true} {
			var opts []pipert.Option
			if het {
				opts = append(opts, pipert.WithHeterogeneous(nil))
			}
			e, err := pipert.Compile(h, opts...)
			if e != nil {
				e.Close()
			}
			if !errors.Is(err, subgraph.ErrCycle) {
				t.Errorf("%s heterogeneous %v: %v, want ErrCycle", h.Name, het, err)
			}
		}
	}
}
