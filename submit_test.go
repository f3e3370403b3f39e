package pipert_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/internal/graphtest"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

// carries pairs each graph input with an output of the same dtype and
// shape in outs (a step's outputs), if there is one: what a streaming model
// feeds back.
func carries(g *subgraph.Graph, outs map[string]*kernel.Tensor, in []*kernel.Tensor) map[string]string {
	m := map[string]string{}
	used := map[string]bool{}
	for i, v := range g.Inputs {
		for _, name := range g.Outputs {
			o := outs[name]
			if !used[name] && o.DType == in[i].DType && o.Shape.Equal(in[i].Shape) {
				m[v.Name], used[name] = name, true
				break
			}
		}
	}
	return m
}

// TestSubmittedStepsMatchSequentialRuns runs random graphs as a sequence of
// steps, each step's inputs partly carried from the previous step's outputs
// and partly new (of changing row counts where the graph allows), and
// checks every step of every mode, submitted with overlap, against the same
// sequence of KBK Runs, bit for bit: carried outputs handed on at the end of
// their step, and tensor by tensor (WithCarried).
func TestSubmittedStepsMatchSequentialRuns(t *testing.T) {
	const steps = 5
	ctx := context.Background()
	configs := []struct {
		name string
		opts []pipert.Option
	}{
		{"kbk", []pipert.Option{pipert.WithMode(pipert.KBK)}},
		{"async", []pipert.Option{pipert.WithMode(pipert.Async)}},
		{"pipeline", []pipert.Option{pipert.WithMode(pipert.Pipeline)}},
		{"pipeline/drain", []pipert.Option{pipert.WithMode(pipert.Pipeline), pipert.WithBarrier(pipert.Drain)}},
		{"pipeline/all caches", []pipert.Option{pipert.WithMode(pipert.Pipeline), pipert.WithCaches(pipert.Caches{Kinds: pipert.TilingLocal | pipert.TilingGlobal | pipert.InferReuse | pipert.SetupReuse | pipert.MemoryPlan})}},
		{"replay", []pipert.Option{pipert.WithMode(pipert.Replay)}},
		{"heterogeneous", []pipert.Option{pipert.WithHeterogeneous(nil)}},
	}
	carried := 0
	defer func() {
		if !t.Failed() && carried < 20 {
			t.Errorf("only %d inputs carried over all graphs: the test carries too little", carried)
		}
	}()
	for seed := range uint64(12) {
		rng := rand.New(rand.NewPCG(seed, 7))
		o := graphtest.Options{Nodes: 4 + rng.IntN(8), ValueDeps: seed%3 == 1, DynamicRows: seed%2 == 0, Flip: 0.3}
		g, first := graphtest.Random(rng, o)
		// Every step's fresh inputs, drawn once for all configurations.
		fresh := make([][]*kernel.Tensor, steps)
		fresh[0] = graphtest.Inputs(g, first)
		for s := 1; s < steps; s++ {
			rows := int64(3)
			if o.DynamicRows {
				rows = 1 + int64(rng.IntN(5))
			}
			fresh[s] = graphtest.Refill(rng, g, rows)
		}
		// The reference: KBK Runs in sequence, carrying what fits.
		ref, err := pipert.Compile(g, pipert.WithMode(pipert.KBK), pipert.WithCaches(pipert.Caches{Kinds: pipert.NoCaches}))
		if err != nil {
			t.Fatal(err)
		}
		want := make([]map[string]*kernel.Tensor, steps)
		plan := make([]map[string]string, steps) // input ← output of the step before
		for s := range steps {
			in := map[string]*kernel.Tensor{}
			for i, v := range g.Inputs {
				in[v.Name] = fresh[s][i]
				if src, ok := plan[s][v.Name]; ok {
					in[v.Name] = want[s-1][src]
				}
			}
			res, err := ref.Run(ctx, in)
			if err != nil {
				t.Fatalf("seed %d: reference step %d: %v", seed, s, err)
			}
			want[s] = res.Outputs
			if s+1 < steps {
				plan[s+1] = carries(g, res.Outputs, fresh[s+1])
			}
		}
		for _, p := range plan {
			carried += len(p)
		}
		ref.Close()
		early := []struct {
			name string
			opts []pipert.Option
		}{
			{"pipeline/carried early", []pipert.Option{pipert.WithMode(pipert.Pipeline), pipert.WithCarried(g.Outputs...)}},
			{"kbk/carried early", []pipert.Option{pipert.WithMode(pipert.KBK), pipert.WithCarried(g.Outputs...)}},
			{"replay/carried early", []pipert.Option{pipert.WithMode(pipert.Replay), pipert.WithCarried(g.Outputs...)}},
		}
		for _, c := range append(configs, early...) {
			t.Run(fmt.Sprintf("seed%d/%s", seed, c.name), func(t *testing.T) {
				exe, err := pipert.Compile(g, c.opts...)
				if err != nil {
					t.Fatal(err)
				}
				defer exe.Close()
				ps := make([]*pipert.Pending, steps)
				for s := range steps {
					in := map[string]*kernel.Tensor{}
					var cs []pipert.Carry
					for i, v := range g.Inputs {
						if src, ok := plan[s][v.Name]; ok {
							cs = append(cs, pipert.Carry{From: ps[s-1], Output: src, Input: v.Name})
							continue
						}
						in[v.Name] = fresh[s][i]
					}
					if ps[s], err = exe.Submit(ctx, in, cs...); err != nil {
						t.Fatalf("submit step %d: %v", s, err)
					}
				}
				for s, p := range ps {
					res, err := p.Wait()
					if err != nil {
						t.Fatalf("step %d: %v", s, err)
					}
					for name, w := range want[s] {
						got := res.Outputs[name]
						if got == nil || got.DType != w.DType || !got.Shape.Equal(w.Shape) || string(got.Host) != string(w.Host) {
							t.Fatalf("step %d output %s: %v, want %v", s, name, got, w)
						}
					}
				}
				// A Run after submissions waits for them and still agrees.
				in := map[string]*kernel.Tensor{}
				for i, v := range g.Inputs {
					in[v.Name] = fresh[0][i]
				}
				res, err := exe.Run(ctx, in)
				if err != nil {
					t.Fatal(err)
				}
				for name, w := range want[0] {
					if got := res.Outputs[name]; string(got.Host) != string(w.Host) {
						t.Fatalf("run after submit: output %s differs", name)
					}
				}
			})
		}
	}
}

// TestSubmitMisuse: every wrong use of Submit and Carry is a clear error,
// and a failed step fails the steps carried from it without hanging.
func TestSubmitMisuse(t *testing.T) {
	ctx := context.Background()
	exe, err := pipert.Compile(graph())
	if err != nil {
		t.Fatal(err)
	}
	other, err := pipert.Compile(graph())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	x := kernel.FromFloat32([]float32{1, -1}, 2)
	in := map[string]*kernel.Tensor{"x": x}
	p0, err := exe.Submit(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	q, err := other.Submit(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in   map[string]*kernel.Tensor
		cs   []pipert.Carry
		want string
		is   error
	}{
		{nil, nil, `missing input "x"`, pipert.ErrBadInput},
		{map[string]*kernel.Tensor{"x": x, "y": x}, nil, `unknown input "y"`, pipert.ErrBadInput},
		{nil, []pipert.Carry{{Output: "relu_0:0", Input: "x"}}, "no step to carry from", pipert.ErrInvalid},
		{nil, []pipert.Carry{{From: &pipert.Pending{}, Output: "relu_0:0", Input: "x"}}, "not made by Submit", pipert.ErrInvalid},
		{nil, []pipert.Carry{{From: q, Output: "relu_0:0", Input: "x"}}, "another executable's", pipert.ErrBadInput},
		{nil, []pipert.Carry{{From: p0, Output: "nope", Input: "x"}}, `unknown output "nope"`, pipert.ErrBadInput},
		{nil, []pipert.Carry{{From: p0, Output: "relu_0:0", Input: "y"}}, `unknown input "y"`, pipert.ErrBadInput},
		{in, []pipert.Carry{{From: p0, Output: "relu_0:0", Input: "x"}}, "both given and carried", pipert.ErrBadInput},
		{nil, []pipert.Carry{{From: p0, Output: "relu_0:0", Input: "x"}, {From: p0, Output: "relu_0:0", Input: "x"}}, "carried twice", pipert.ErrBadInput},
	} {
		if _, err := exe.Submit(ctx, c.in, c.cs...); err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, c.is) {
			t.Errorf("Submit(%v, %v): %v, want %q wrapping %v", c.in, c.cs, err, c.want, c.is)
		}
	}
	//lint:ignore SA1012 a nil context is the misuse tested
	if _, err := exe.Submit(nil, in); err == nil { //nolint:staticcheck
		t.Error("nil context accepted")
	}
	// A wrong input is refused at once.
	if _, err := exe.Submit(ctx, map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, 2, 3}, 3)}); !errors.Is(err, pipert.ErrBadInput) {
		t.Fatalf("bad input: %v, want ErrBadInput", err)
	}
	// A step that fails fails the step carried from it.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	bad, err := exe.Submit(cancelled, in)
	if err == nil {
		_, err = bad.Wait()
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled step: %v", err)
	}
	next, err := exe.Submit(ctx, nil, pipert.Carry{From: bad, Output: "relu_0:0", Input: "x"})
	if err == nil {
		_, err = next.Wait()
	}
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "its step failed") {
		t.Fatalf("carried from a failed step: %v, want its step's error", err)
	}
	// Waiting twice gives the same result; Close waits for steps in flight.
	r1, err1 := p0.Wait()
	r2, err2 := p0.Wait()
	if err1 != nil || r1 != r2 || err2 != nil {
		t.Fatalf("second Wait: %v %v", err1, err2)
	}
	if got := kernel.Float32s(r1.Outputs["relu_0:0"].Host); got[0] != 1 || got[1] != 0 {
		t.Fatalf("relu gave %v", got)
	}
	p, err := exe.Submit(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := exe.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Wait(); err != nil {
		t.Fatalf("step submitted before Close: %v", err)
	}
	if _, err := exe.Submit(ctx, in); !errors.Is(err, pipert.ErrClosed) {
		t.Fatalf("Submit after Close: %v", err)
	}
	// A cancelled context ends a step with its error.
	exe2, err := pipert.Compile(graph(), pipert.WithMode(pipert.Pipeline))
	if err != nil {
		t.Fatal(err)
	}
	defer exe2.Close()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	p, err = exe2.Submit(cctx, in)
	if err == nil {
		_, err = p.Wait()
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled step: %v", err)
	}
}

func TestWithCarriedRejectsUnknownOutputs(t *testing.T) {
	_, err := pipert.Compile(graph(), pipert.WithCarried("nope"))
	if !errors.Is(err, pipert.ErrConfig) || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("unknown carried output: %v", err)
	}
}

// guarded is ReLU that counts calls made while another call on the same
// kernel is in progress: the Kernel contract promises one goroutine at a
// time.
type guarded struct {
	kernel.Kernel
	busy    atomic.Bool
	overlap *atomic.Int64
}

func (g *guarded) enter() func() {
	if !g.busy.CompareAndSwap(false, true) {
		g.overlap.Add(1)
		return func() {}
	}
	for range 200 { // widen the window another goroutine could enter
		runtime.Gosched()
	}
	return func() { g.busy.Store(false) }
}

func (g *guarded) InferShape(in, out []*kernel.Tensor) error {
	defer g.enter()()
	return g.Kernel.InferShape(in, out)
}

func (g *guarded) Resize(in, out []*kernel.Tensor, t *kernel.Tiling) error {
	defer g.enter()()
	return g.Kernel.Resize(in, out, t)
}

func (g *guarded) Compute(a *kernel.Args) error {
	defer g.enter()()
	return g.Kernel.Compute(a)
}

// TestSubmitLanesNeverShareAKernel: overlapped steps run on two actors
// that share the executable's kernels; neither may call a kernel while the
// other is in it. It holds because Submit returns once its step's kernels
// are all launched (the next step's host stages overlap this step's device
// tail and downloads, which call no kernel): this test keeps it so.
func TestSubmitLanesNeverShareAKernel(t *testing.T) {
	overlap := new(atomic.Int64)
	reg := ops.NewRegistry()
	if err := reg.Register("Guarded", func(a kernel.Attrs) (kernel.Kernel, error) {
		k, err := ops.Builtins().New("ReLU", nil)
		return &guarded{Kernel: k, overlap: overlap}, err
	}); err != nil {
		t.Fatal(err)
	}
	b := subgraph.NewBuilder("guarded")
	h := b.Input("x", kernel.Float32, 2)
	for range 6 {
		h = b.Op("Guarded", h)
	}
	b.Output(h)
	for _, mode := range []pipert.Mode{pipert.KBK, pipert.Pipeline} {
		exe, err := pipert.Compile(b.Graph(), pipert.WithRegistry(reg), pipert.WithMode(mode),
			pipert.WithCaches(pipert.Caches{Kinds: pipert.NoCaches}))
		if err != nil {
			t.Fatal(err)
		}
		in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -1}, 2)}
		var pend []*pipert.Pending
		for range 40 {
			p, err := exe.Submit(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			pend = append(pend, p)
		}
		for _, p := range pend {
			if _, err := p.Wait(); err != nil {
				t.Fatal(err)
			}
		}
		exe.Close()
		if n := overlap.Load(); n != 0 {
			t.Fatalf("%v: %d calls entered a kernel another goroutine was in", mode, n)
		}
	}
}

// TestCarryOfAnotherDTypeIsBadInput: a step carrying an output into an
// input of another dtype fails, when it runs, with an error matching
// ErrBadInput, in every mode; the executable stays usable.
func TestCarryOfAnotherDTypeIsBadInput(t *testing.T) {
	b := subgraph.NewBuilder("carry")
	x := b.Input("x", kernel.Float32, 2, 4)
	b.Output(b.Op("ReLU", x))
	b.Output(b.OpAttrs("Cast", kernel.Attrs{"to": "int64"}, x))
	g := b.Graph()
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32(make([]float32, 8), 2, 4)}
	for _, m := range everyMode() {
		exe, err := pipert.Compile(g, append(m.opts, pipert.WithCarried(g.Outputs[1]))...)
		if err != nil {
			t.Fatal(err)
		}
		p, err := exe.Submit(context.Background(), in)
		if err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
		q, err := exe.Submit(context.Background(), nil, pipert.Carry{From: p, Output: g.Outputs[1], Input: "x"})
		if err == nil {
			_, err = q.Wait()
		}
		if !errors.Is(err, pipert.ErrBadInput) {
			t.Errorf("%s: carry of an int64 output into a float32 input: %v, want ErrBadInput", m.name, err)
		}
		if _, err := exe.Run(context.Background(), in); err != nil {
			t.Errorf("%s: run after: %v", m.name, err)
		}
		exe.Close()
	}
}

// TestWorkspaceCallsWaitForSubmittedSteps: WorkspaceSize and UseWorkspace,
// which plan with the executable's kernels, called while steps are
// submitted, wait for them (the race detector saw both plan at once), and
// every step's outputs stay KBK's.
func TestWorkspaceCallsWaitForSubmittedSteps(t *testing.T) {
	b := subgraph.NewBuilder("ws")
	x := b.Input("x", kernel.Float32, 64)
	y := x
	for i := range 8 {
		y = b.Op("Max", b.Op("Add", y, x), b.Const(fmt.Sprintf("c%d", i), kernel.FromFloat32([]float32{float32(i)}, 1)))
	}
	b.Output(y)
	g := b.Graph()
	in := map[string]*kernel.Tensor{"x": kernel.New(kernel.Float32, 64)}
	for i := range kernel.Float32s(in["x"].Host) {
		kernel.Float32s(in["x"].Host)[i] = float32(i%7) - 3
	}
	ref, err := pipert.Compile(g)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ref.Run(context.Background(), in)
	ref.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []pipert.Mode{pipert.KBK, pipert.Pipeline} {
		exe, err := pipert.Compile(g, pipert.WithMode(m), pipert.WithCaches(pipert.Caches{Kinds: pipert.MemoryPlan}))
		if err != nil {
			t.Fatal(err)
		}
		var bufs []device.Buffer
		done := make(chan struct{})
		go func() { // plans and hands over workspaces while steps run
			defer close(done)
			for range 20 {
				n, err := exe.WorkspaceSize()
				if err != nil {
					t.Error(err)
					return
				}
				buf, err := exe.Device().Alloc(max(n, 1), true)
				if err != nil {
					t.Error(err)
					return
				}
				bufs = append(bufs, buf)
				if err := exe.UseWorkspace(buf); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		var steps []*pipert.Pending
		for range 40 {
			p, err := exe.Submit(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			steps = append(steps, p)
		}
		<-done
		for i, p := range steps {
			res, err := p.Wait()
			if err != nil {
				t.Fatalf("%v: step %d: %v", m, i, err)
			}
			for name, w := range want.Outputs {
				if got := res.Outputs[name]; string(got.Host) != string(w.Host) {
					t.Fatalf("%v: step %d: output %s differs from KBK's", m, i, name)
				}
			}
		}
		exe.Close()
		for _, buf := range bufs {
			if err := exe.Device().Free(buf); err != nil {
				t.Error(err)
			}
		}
	}
}

// tailDev is a device whose device-to-host copies, while stuck is set,
// wait for their context to end: steps whose device tail never ends.
type tailDev struct {
	*device.Sim
	stuck atomic.Bool
}

func (d *tailDev) NewStream() device.Stream { return &tailStream{Stream: d.Sim.NewStream(), d: d} }

type tailStream struct {
	device.Stream
	d *tailDev
}

func (s *tailStream) CopyD2H(ctx context.Context, dst []byte, src device.Buffer) error {
	if s.d.stuck.Load() {
		<-ctx.Done()
		return ctx.Err()
	}
	return s.Stream.CopyD2H(ctx, dst, src)
}

// TestThirdSubmitGivesUpWithItsContext: in every mode, a third Submit,
// which waits for the first step's device tail, returns an error wrapping
// its context's when that context ends, though the steps before it never
// end; once they do, the executable runs correctly.
func TestThirdSubmitGivesUpWithItsContext(t *testing.T) {
	// No value to stage: the only device-to-host copies are the outputs'.
	b := subgraph.NewBuilder("tail")
	x := b.Input("x", kernel.Float32, 8)
	b.Output(b.Op("Add", b.Op("ReLU", x), x))
	g := b.Graph()
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -2, 3, -4, 5, -6, 7, -8}, 8)}
	for _, m := range pipert.Modes() {
		sim, err := device.NewSim(device.SimOptions{})
		if err != nil {
			t.Fatal(err)
		}
		d := &tailDev{Sim: sim}
		exe, err := pipert.Compile(g, pipert.WithMode(m), pipert.WithDevice(d))
		if err != nil {
			t.Fatal(err)
		}
		want, err := exe.Run(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		d.stuck.Store(true)
		bg, cancelBG := context.WithCancel(context.Background())
		for range 2 {
			if _, err := exe.Submit(bg, in); err != nil {
				t.Fatalf("%v: %v", m, err)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		got := make(chan error, 1)
		go func() {
			_, err := exe.Submit(ctx, in)
			got <- err
		}()
		cancel()
		select {
		case err := <-got:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%v: third Submit: %v, want context.Canceled", m, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%v: a third Submit whose context ended has not returned", m)
		}
		cancelBG()
		d.stuck.Store(false)
		res, err := exe.Run(context.Background(), in)
		if err != nil {
			t.Fatalf("%v: run after: %v", m, err)
		}
		checkSame(t, m.String(), res.Outputs, want.Outputs)
		exe.Close()
	}
}
