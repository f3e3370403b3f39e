package control_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/control"
	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/internal/graphtest"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

// loopGraph is a Loop carrying s (from x), adding x each iteration and
// scanning 2s, for at most M iterations and while sum(s) < limit.
func loopGraph(m int64, limit float32) *subgraph.Graph {
	body := subgraph.NewBuilder("body")
	body.Input("i", kernel.Int64)
	body.Input("c", kernel.Bool)
	s := body.Input("s", kernel.Float32, kernel.Dynamic)
	x := body.Input("x", kernel.Float32, kernel.Dynamic)
	sNext := body.Op("Add", s, x)
	lim := body.Const("limit", kernel.FromFloat32([]float32{limit}))
	cond := body.Op("Less", body.OpAttrs("ReduceSum", kernel.Attrs{"keepdims": false}, sNext), lim)
	two := body.Const("two", kernel.FromFloat32([]float32{2}))
	body.Output(cond, sNext, body.Op("Mul", sNext, two))
	b := subgraph.NewBuilder("loop")
	xin := b.Input("x", kernel.Float32, 3)
	mc := b.Const("M", kernel.FromInt64([]int64{m}))
	noCond := b.Const("nocond", &kernel.Tensor{DType: kernel.Bool, Shape: kernel.Shape{0}, Host: []byte{}})
	outs := b.Node(&subgraph.Node{Name: "loop", Op: "Loop", Inputs: []string{mc, noCond, xin, xin},
		Attrs: kernel.Attrs{control.LoopBody: body.Graph(), control.LoopCarried: int64(1)}}, 2)
	b.Output(outs...)
	return b.Graph()
}

func TestLoopRunsItsBody(t *testing.T) {
	x := kernel.FromFloat32([]float32{1, 2, 3}, 3)
	for _, c := range []struct {
		m     int64
		limit float32
		s     string
		scan  string
		shape kernel.Shape
	}{
		{4, 1000, "[5 10 15]", "[4 8 12 6 12 18 8 16 24 10 20 30]", kernel.Shape{4, 3}},
		{4, 20, "[4 8 12]", "[4 8 12 6 12 18 8 16 24]", kernel.Shape{3, 3}}, // sums 12, 18, 24: the third iteration stops it
		// No iteration, and no LoopScanShapes: an empty stack of
		// elements of the body's shape on the loop's inputs (rank 2
		// here, not [0]).
		{0, 1000, "[1 2 3]", "[]", kernel.Shape{0, 3}},
	} {
		settings := [][]pipert.Option{{pipert.WithHeterogeneous(heterog.Size{Elements: 4096})}}
		for _, m := range pipert.Modes() {
			settings = append(settings, []pipert.Option{pipert.WithMode(m)})
		}
		for i, opts := range settings {
			m := fmt.Sprint("setting ", i)
			exe, err := pipert.Compile(loopGraph(c.m, c.limit), opts...)
			if err != nil {
				t.Fatal(err)
			}
			res, err := exe.Run(context.Background(), map[string]*kernel.Tensor{"x": x})
			exe.Close()
			if err != nil {
				t.Fatalf("M %d limit %g %v: %v", c.m, c.limit, m, err)
			}
			g := loopGraph(c.m, c.limit)
			s, scan := res.Outputs[g.Outputs[0]], res.Outputs[g.Outputs[1]]
			if fmt.Sprint(kernel.Float32s(s.Host)) != c.s || fmt.Sprint(kernel.Float32s(scan.Host)) != c.scan || !scan.Shape.Equal(c.shape) || scan.DType != kernel.Float32 {
				t.Fatalf("M %d limit %g %v: s %v, scan %v %v; want %s, %s %v", c.m, c.limit, m,
					kernel.Float32s(s.Host), scan.Shape, kernel.Float32s(scan.Host), c.s, c.scan, c.shape)
			}
		}
	}
}

func TestLoopRejectsBadBodies(t *testing.T) {
	body := subgraph.NewBuilder("body")
	body.Input("i", kernel.Int64)
	body.Output(body.Input("c", kernel.Bool))
	if _, err := control.NewLoop(kernel.Attrs{control.LoopBody: body.Graph(), control.LoopCarried: int64(2)}, control.Resolver{}); !errors.Is(err, control.ErrLoop) {
		t.Fatalf("a body carrying fewer values than declared: %v", err)
	}
	if _, err := control.NewLoop(kernel.Attrs{}, control.Resolver{}); !errors.Is(err, control.ErrLoop) {
		t.Fatalf("no body: %v", err)
	}
}

// TestLoopScanShapesOfNoIteration: a Loop of no iteration gives its
// empty stacks the element shapes LoopScanShapes sets (none: [0]) rather
// than the body's on the loop's inputs, and refuses a malformed encoding.
func TestLoopScanShapesOfNoIteration(t *testing.T) {
	x := kernel.FromFloat32([]float32{1, 2, 3}, 3)
	for _, c := range []struct {
		enc   []int64
		shape kernel.Shape
	}{
		{[]int64{-1}, kernel.Shape{0}},
		{[]int64{2, 0, 5}, kernel.Shape{0, 0, 5}},
		{[]int64{0}, kernel.Shape{0}},
	} {
		g := loopGraph(0, 1000)
		g.Nodes[0].Attrs[control.LoopScanShapes] = c.enc
		exe, err := pipert.Compile(g)
		if err != nil {
			t.Fatalf("%v: %v", c.enc, err)
		}
		res, err := exe.Run(context.Background(), map[string]*kernel.Tensor{"x": x})
		exe.Close()
		if err != nil {
			t.Fatalf("%v: %v", c.enc, err)
		}
		if scan := res.Outputs[g.Outputs[1]]; !scan.Shape.Equal(c.shape) || scan.DType != kernel.Float32 {
			t.Errorf("%v: scan %v, want float32 %v", c.enc, scan, c.shape)
		}
	}
	for _, enc := range [][]int64{{}, {2, 1}, {1, -3}, {-2}, {-1, 0}, {1, 3, -1}} {
		attrs := kernel.Attrs{}
		for k, v := range loopGraph(0, 1000).Nodes[0].Attrs {
			attrs[k] = v
		}
		attrs[control.LoopScanShapes] = enc
		if _, err := control.NewLoop(attrs, ops.Builtins()); !errors.Is(err, control.ErrLoop) {
			t.Errorf("scan shapes %v: %v, want an error wrapping ErrLoop", enc, err)
		}
	}
}

// TestLoopBodyDrawsOn: a random generator in a Loop's body draws on from
// iteration to iteration and from run to run (the body's kernels are kept
// as a graph's are), the same in every mode.
func TestLoopBodyDrawsOn(t *testing.T) {
	body := subgraph.NewBuilder("body")
	body.Input("i", kernel.Int64)
	body.Input("c", kernel.Bool)
	s := body.Input("s", kernel.Float32, 2)
	r := body.OpAttrs("RandomUniform", kernel.Attrs{"shape": []int64{2}, "seed": 5.0})
	yes := body.Const("yes", &kernel.Tensor{DType: kernel.Bool, Shape: kernel.Shape{}, Host: []byte{1}})
	body.Output(yes, body.Op("Add", s, r), r)
	b := subgraph.NewBuilder("loop")
	x := b.Input("x", kernel.Float32, 2)
	mc := b.Const("M", kernel.FromInt64([]int64{3}))
	noCond := b.Const("nocond", &kernel.Tensor{DType: kernel.Bool, Shape: kernel.Shape{0}, Host: []byte{}})
	outs := b.Node(&subgraph.Node{Name: "loop", Op: "Loop", Inputs: []string{mc, noCond, x},
		Attrs: kernel.Attrs{control.LoopBody: body.Graph(), control.LoopCarried: int64(1)}}, 2)
	b.Output(outs...)
	g := b.Graph()
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{0, 0}, 2)}
	var want []string
	for _, m := range pipert.Modes() {
		exe, err := pipert.Compile(g, pipert.WithMode(m), pipert.WithRegistry(control.Resolver{Base: ops.Builtins()}))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for range 2 {
			res, err := exe.Run(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			draws := kernel.Float32s(res.Outputs[g.Outputs[1]].Host) // 3 iterations × 2
			if fmt.Sprint(draws[0:2]) == fmt.Sprint(draws[2:4]) {
				t.Fatalf("%v: two iterations drew the same numbers: %v", m, draws)
			}
			got = append(got, fmt.Sprint(draws))
		}
		exe.Close()
		if got[0] == got[1] {
			t.Fatalf("%v: two runs drew the same numbers: %v", m, got)
		}
		if want == nil {
			want = got
		} else if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%v: %v, want %v (KBK's)", m, got, want)
		}
	}
}

// TestLoopBodyDrawsByRun: a random op in a Loop's body draws, in the
// n-th run, the same numbers whether or not earlier runs failed before
// the Loop (the body's kernels take the run's number, kernel.Args.Run),
// in every mode.
func TestLoopBodyDrawsByRun(t *testing.T) {
	body := subgraph.NewBuilder("body")
	body.Input("i", kernel.Int64)
	c := body.Input("c", kernel.Bool)
	s := body.Input("s", kernel.Float32, 4)
	r := body.OpAttrs("RandomUniform", kernel.Attrs{"shape": []int64{4}, "seed": 7.0})
	body.Output(body.Op("Identity", c), body.Op("Add", s, r))
	b := subgraph.NewBuilder("loop")
	x := b.Input("x", kernel.Float32, 4)
	shape := b.Input("shape", kernel.Int64, 1)
	s0 := b.Op("Reshape", x, shape) // fails, before the Loop, on a bad shape
	mc := b.Const("M", kernel.FromInt64([]int64{2}))
	noCond := b.Const("nocond", &kernel.Tensor{DType: kernel.Bool, Shape: kernel.Shape{0}, Host: []byte{}})
	outs := b.Node(&subgraph.Node{Name: "loop", Op: "Loop", Inputs: []string{mc, noCond, s0},
		Attrs: kernel.Attrs{control.LoopBody: body.Graph(), control.LoopCarried: int64(1)}}, 1)
	b.Output(outs...)
	g := b.Graph()
	in := func(n int64) map[string]*kernel.Tensor {
		return map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, 2, 3, 4}, 4), "shape": kernel.FromInt64([]int64{n}, 1)}
	}
	settings := everySetting(heterog.Size{Elements: 4096})
	for m, opts := range settings {
		third := func(second int64) string {
			exe, err := pipert.Compile(g, append(opts, pipert.WithRegistry(control.Resolver{Base: ops.Builtins()}))...)
			if err != nil {
				t.Fatal(err)
			}
			defer exe.Close()
			var last string
			for i, n := range []int64{4, second, 4} {
				res, err := exe.Run(context.Background(), in(n))
				if (err != nil) != (n != 4) {
					t.Fatalf("%v: run %d: %v", m, i+1, err)
				}
				if err == nil {
					last = fmt.Sprint(kernel.Float32s(res.Outputs[outs[0]].Host))
				}
			}
			return last
		}
		if good, afterFailure := third(4), third(5); good != afterFailure {
			t.Errorf("%v: the third run drew %s after a good run, %s after a failed one", m, good, afterFailure)
		}
	}
}

// stepKernel is Add that passes its run's deadline (the current one of
// deadline) each time it computes.
type stepKernel struct {
	kernel.Kernel
	deadline *atomic.Pointer[graphtest.Deadline]
}

func (k stepKernel) Compute(a *kernel.Args) error {
	k.deadline.Load().Pass()
	return k.Kernel.Compute(a)
}

// TestEndlessLoopStopsAtTheDeadline: a Loop with no trip limit whose body
// never makes its condition false runs until the run's context ends, then
// Run returns the context's error naming the Loop, in every mode, and the
// executable then runs a loop that ends. The deadline passes once the body
// has run (with a timer, a host descheduled before the Loop began saw it
// pass first, and the run ended before the Loop).
func TestEndlessLoopStopsAtTheDeadline(t *testing.T) {
	var deadline atomic.Pointer[graphtest.Deadline]
	deadline.Store(new(graphtest.Deadline))
	reg := ops.NewRegistry()
	if err := reg.Register("Step", func(a kernel.Attrs) (kernel.Kernel, error) {
		k, err := ops.Builtins().New("Add", a)
		return stepKernel{k, &deadline}, err
	}); err != nil {
		t.Fatal(err)
	}
	body := subgraph.NewBuilder("forever")
	body.Input("i", kernel.Int64)
	c := body.Input("c", kernel.Bool)
	s := body.Input("s", kernel.Float32, 1)
	body.Output(body.Op("Identity", c), body.Op("Step", s, body.Const("one", kernel.FromFloat32([]float32{1}, 1))))
	b := subgraph.NewBuilder("endless")
	m := b.Input("M", kernel.Int64, kernel.Dynamic) // empty: no trip limit
	x := b.Input("x", kernel.Float32, 1)
	cond := b.Const("cond", &kernel.Tensor{DType: kernel.Bool, Shape: kernel.Shape{1}, Host: []byte{1}})
	outs := b.Node(&subgraph.Node{Name: "loop", Op: "Loop", Inputs: []string{m, cond, x},
		Attrs: kernel.Attrs{control.LoopBody: body.Graph(), control.LoopCarried: int64(1)}}, 1)
	b.Output(outs...)
	g := b.Graph()
	endless := map[string]*kernel.Tensor{"M": kernel.FromInt64([]int64{}, 0), "x": kernel.FromFloat32([]float32{0}, 1)}
	settings := everySetting(heterog.Size{Elements: 4096})
	for name, opts := range settings {
		exe, err := pipert.Compile(g, append(opts, pipert.WithRegistry(control.Resolver{Base: reg}))...)
		if err != nil {
			t.Fatal(err)
		}
		ctx := new(graphtest.Deadline)
		deadline.Store(ctx)
		_, err = exe.Run(ctx, endless)
		if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, control.ErrLoop) || !strings.Contains(err.Error(), `"loop"`) {
			t.Errorf("%s: endless loop: %v, want the deadline's error naming the Loop", name, err)
		}
		res, err := exe.Run(context.Background(), map[string]*kernel.Tensor{"M": kernel.FromInt64([]int64{3}, 1), "x": kernel.FromFloat32([]float32{0}, 1)})
		if err != nil {
			t.Errorf("%s: run after the deadline: %v", name, err)
		} else if got := kernel.Float32s(res.Outputs[outs[0]].Host); !slices.Equal(got, []float32{3}) {
			t.Errorf("%s: three iterations gave %v, want [3]", name, got)
		}
		if err := exe.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLoopScanOutputsBeyondHostMemory: a Loop whose scan outputs outgrow
// the host's memory (here a memory check that refuses more than 4 KiB,
// looked at every 1 KiB) fails the run with an error naming the Loop and
// wrapping the check's, rather than ending the process out of memory; the
// executable then runs a small loop.
func TestLoopScanOutputsBeyondHostMemory(t *testing.T) {
	errFull := errors.New("no more memory")
	defer control.SetScanCheck(func(n int64) error {
		if n > 4096 {
			return errFull
		}
		return nil
	}, 1024)()
	body := subgraph.NewBuilder("grow")
	body.Input("i", kernel.Int64)
	c := body.Input("c", kernel.Bool)
	s := body.Input("s", kernel.Float32, 16)
	next := body.Op("Add", s, body.Const("one", kernel.FromFloat32(make([]float32, 16), 16)))
	body.Output(body.Op("Identity", c), next, body.Op("Identity", next))
	b := subgraph.NewBuilder("scans")
	m := b.Input("M", kernel.Int64, kernel.Dynamic) // empty: no trip limit
	x := b.Input("x", kernel.Float32, 16)
	cond := b.Const("cond", &kernel.Tensor{DType: kernel.Bool, Shape: kernel.Shape{1}, Host: []byte{1}})
	outs := b.Node(&subgraph.Node{Name: "loop", Op: "Loop", Inputs: []string{m, cond, x},
		Attrs: kernel.Attrs{control.LoopBody: body.Graph(), control.LoopCarried: int64(1)}}, 2)
	b.Output(outs...)
	exe, err := pipert.Compile(b.Graph(), pipert.WithRegistry(control.Resolver{Base: ops.Builtins()}))
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	x16 := kernel.FromFloat32(make([]float32, 16), 16)
	_, err = exe.Run(context.Background(), map[string]*kernel.Tensor{"M": kernel.FromInt64([]int64{}, 0), "x": x16})
	if !errors.Is(err, errFull) || !errors.Is(err, control.ErrLoop) || !strings.Contains(err.Error(), "scan outputs hold") {
		t.Fatalf("unbounded loop: %v, want the memory check's error naming the Loop", err)
	}
	res, err := exe.Run(context.Background(), map[string]*kernel.Tensor{"M": kernel.FromInt64([]int64{3}, 1), "x": x16})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Outputs[outs[1]].Shape; !got.Equal(kernel.Shape{3, 16}) {
		t.Fatalf("three iterations stacked %v, want [3 16]", got)
	}
}
