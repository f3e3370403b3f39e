package pipert_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

// runNumber outputs its kernel.Args.Run; it fails on an input of 2.
type runNumber struct{}

func (runNumber) Op() string                     { return "RunNumber" }
func (runNumber) Arity() (minIn, maxIn, out int) { return 1, 1, 1 }
func (runNumber) Deps() kernel.Deps              { return kernel.Deps{} }
func (runNumber) InferShape(in, out []*kernel.Tensor) error {
	out[0].DType, out[0].Shape = kernel.Int64, kernel.Shape{1}
	return nil
}
func (runNumber) Resize(in, out []*kernel.Tensor, t *kernel.Tiling) error {
	t.Data, t.Workspace = t.Data[:0], 0
	return nil
}
func (runNumber) Cost(in, out []*kernel.Tensor) device.Cost { return device.Cost{Bytes: 8} }
func (runNumber) Compute(a *kernel.Args) error {
	if kernel.Float32s(a.In[0].Data())[0] == 2 {
		return errors.New("refuses 2")
	}
	kernel.Int64s(a.Out[0].Data())[0] = int64(a.Run)
	return nil
}

// TestRunNumbersInEveryMode: every Run, RunInto and Submit given valid
// inputs is numbered once it has its turn, failed or not — its kernels
// failing, its context ended before it started — in every mode, so the
// n-th call's kernels see the same kernel.Args.Run however the executable
// runs them.
func TestRunNumbersInEveryMode(t *testing.T) {
	reg := ops.NewRegistry()
	if err := reg.Register("RunNumber", func(kernel.Attrs) (kernel.Kernel, error) { return runNumber{}, nil }); err != nil {
		t.Fatal(err)
	}
	b := subgraph.NewBuilder("numbers")
	x := b.Input("x", kernel.Float32, 1)
	n := b.Op("Neg", x)
	b.Last().Placement = subgraph.OnCPU
	y := b.Op("RunNumber", b.Op("Neg", n))
	b.Output(y)
	g := b.Graph()
	good := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1}, 1)}
	bad := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{2}, 1)}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	bg := context.Background()
	number := func(res *pipert.Result, err error) string {
		if err != nil {
			return "failed"
		}
		return fmt.Sprint(kernel.Int64s(res.Outputs[y].Host)[0])
	}
	submit := func(e *pipert.Executable, ctx context.Context) string {
		p, err := e.Submit(ctx, good)
		if err != nil {
			return "failed"
		}
		return number(p.Wait())
	}
	runInto := func(e *pipert.Executable, ctx context.Context) string {
		out := map[string]*kernel.Tensor{y: kernel.New(kernel.Int64, 1)}
		if _, err := e.RunInto(ctx, good, out); err != nil {
			return "failed"
		}
		return fmt.Sprint(kernel.Int64s(out[y].Host)[0])
	}
	want := []string{"1", "failed", "3", "failed", "5", "6", "failed", "8", "failed", "10", "failed", "12"}
	for _, m := range everyMode() {
		exe, err := pipert.Compile(g, append(slices.Clone(m.opts), pipert.WithRegistry(reg))...)
		if err != nil {
			t.Fatal(err)
		}
		got := []string{
			number(exe.Run(bg, good)),
			number(exe.Run(bg, bad)),
			number(exe.Run(bg, good)),
			number(exe.Run(ended, good)),
			number(exe.Run(bg, good)),
			submit(exe, bg),
			submit(exe, ended),
			submit(exe, bg),
			runInto(exe, ended),
			runInto(exe, bg),
			submit(exe, ended),
			number(exe.Run(bg, good)),
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: calls numbered %v, want %v", m.name, got, want)
		}
		if _, err := exe.Run(bg, map[string]*kernel.Tensor{"nope": good["x"]}); err == nil {
			t.Fatalf("%s: an unknown input ran", m.name)
		}
		if got := number(exe.Run(bg, good)); got != "13" {
			t.Errorf("%s: the call after a refused one numbered %s, want 13 (refused calls are not numbered)", m.name, got)
		}
		if err := exe.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// blocker blocks in Compute until released, ignoring its context.
type blocker struct {
	entered chan struct{}
	release chan struct{}
	armed   *atomic.Bool
}

func (blocker) Op() string                     { return "Blocker" }
func (blocker) Arity() (minIn, maxIn, out int) { return 1, 1, 1 }
func (blocker) Deps() kernel.Deps              { return kernel.Deps{} }
func (blocker) InferShape(in, out []*kernel.Tensor) error {
	out[0].DType, out[0].Shape = in[0].DType, in[0].Shape.Clone()
	return nil
}
func (blocker) Resize(in, out []*kernel.Tensor, t *kernel.Tiling) error {
	t.Data, t.Workspace = t.Data[:0], 0
	return nil
}
func (blocker) Cost(in, out []*kernel.Tensor) device.Cost { return device.Cost{Bytes: 8} }
func (k blocker) Compute(a *kernel.Args) error {
	if k.armed.Load() {
		k.entered <- struct{}{}
		<-k.release
	}
	copy(a.Out[0].Data(), a.In[0].Data())
	return nil
}

// TestSubmitAfterCloseBegan: once Close has begun (waiting for a run in
// flight), Submit fails with ErrClosed at once, as Run does, instead of
// waiting for the run's turn.
func TestSubmitAfterCloseBegan(t *testing.T) {
	k := blocker{entered: make(chan struct{}, 1), release: make(chan struct{}), armed: new(atomic.Bool)}
	reg := ops.NewRegistry()
	if err := reg.Register("Blocker", func(kernel.Attrs) (kernel.Kernel, error) { return k, nil }); err != nil {
		t.Fatal(err)
	}
	b := subgraph.NewBuilder("blocked")
	b.Output(b.Op("Blocker", b.Input("x", kernel.Float32, 1)))
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1}, 1)}
	for _, m := range everyMode() {
		exe, err := pipert.Compile(b.Graph(), append(slices.Clone(m.opts), pipert.WithRegistry(reg))...)
		if err != nil {
			t.Fatal(err)
		}
		k.armed.Store(true)
		ran := make(chan error, 1)
		go func() {
			_, err := exe.Run(context.Background(), in)
			ran <- err
		}()
		<-k.entered
		closed := make(chan error, 1)
		go func() { closed <- exe.Close() }()
		// Close has begun once a Run is refused as closed (a Run that is
		// not fails at once on its ended context).
		ended, cancel := context.WithCancel(context.Background())
		cancel()
		for {
			if _, err := exe.Run(ended, in); errors.Is(err, pipert.ErrClosed) {
				break
			}
			time.Sleep(time.Millisecond)
		}
		submitted := make(chan error, 1)
		go func() {
			_, err := exe.Submit(context.Background(), in)
			submitted <- err
		}()
		waited := false
		select {
		case err := <-submitted:
			if !errors.Is(err, pipert.ErrClosed) {
				t.Errorf("%s: Submit after Close began: %v, want ErrClosed", m.name, err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("%s: Submit after Close began waits for the run in flight", m.name)
			waited = true
		}
		k.armed.Store(false)
		close(k.release)
		k.release = make(chan struct{})
		if err := <-ran; err != nil {
			t.Errorf("%s: the run in flight: %v", m.name, err)
		}
		if err := <-closed; err != nil {
			t.Fatal(err)
		}
		if waited {
			<-submitted
		}
	}
}

// slowProfile is a simulated device whose Profile takes 150 ms while
// armed: a device of the caller's slow to answer, which keeps a part of a
// cancelled heterogeneous run running past the run's return.
type slowProfile struct {
	*device.Sim
	armed atomic.Bool
}

func (d *slowProfile) Profile() device.Profile {
	if d.armed.Load() {
		time.Sleep(150 * time.Millisecond)
	}
	return d.Sim.Profile()
}

// TestHeteroPartsOfACancelledRun: a cancelled heterogeneous run returns
// while a part that does not look at the cancellation still runs. The
// next Run waits for that part before it resets the per-run state the
// part reads (-race finds the two otherwise), and gives the right
// outputs; Close after such a run returns with the device memory freed.
func TestHeteroPartsOfACancelledRun(t *testing.T) {
	sim, err := device.NewSim(device.SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dev := &slowProfile{Sim: sim}
	b := subgraph.NewBuilder("orphans")
	x := b.Input("x", kernel.Float32, 4)
	n := b.Op("Neg", b.Op("Mul", x, b.Const("w", kernel.FromFloat32([]float32{1, 2, 3, 4}, 4))))
	c := b.Op("Identity", x)
	b.Last().Placement = subgraph.OnCPU
	y := b.Op("Add", n, c)
	b.Output(y)
	exe, err := pipert.Compile(b.Graph(), pipert.WithHeterogeneous(nil), pipert.WithBarrier(pipert.Drain), pipert.WithDevice(dev))
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, 2, 3, 4}, 4)}
	want := []float32{0, -2, -6, -12}
	cancelled := func() {
		dev.armed.Store(true)
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		defer cancel()
		if _, err := exe.Run(ctx, in); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("cancelled run: %v", err)
		}
		dev.armed.Store(false)
	}
	for range 2 {
		cancelled()
		res, err := exe.Run(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		if got := kernel.Float32s(res.Outputs[y].Host); !slices.Equal(got, want) {
			t.Fatalf("the run after a cancelled one gave %v, want %v", got, want)
		}
	}
	cancelled()
	if err := exe.Close(); err != nil {
		t.Fatal(err)
	}
	if n := dev.Stats().MemInUse; n != 0 {
		t.Errorf("%d device bytes in use when Close returned", n)
	}
}
