package pipert_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/actor"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
)

// stuckDevice is a device whose streams never finish synchronising: a
// caller's device that stopped answering. Synchronize returns only when
// its context ends.
type stuckDevice struct{ device.Device }

func (d stuckDevice) NewStream() device.Stream { return stuckStream{d.Device.NewStream()} }

type stuckStream struct{ device.Stream }

func (stuckStream) Synchronize(ctx context.Context) error {
	<-ctx.Done()
	return ctx.Err()
}

// TestCompileContext: with a device that never finishes the constants'
// upload, CompileContext returns when its context ends, with an error
// wrapping the context's, having freed what it uploaded, for one actor
// and for heterogeneous parts; a context already ended compiles nothing in
// any mode; a nil context is ErrInvalid.
func TestCompileContext(t *testing.T) {
	b := subgraph.NewBuilder("consts")
	x := b.Input("x", kernel.Float32, 4, 4)
	w := b.Const("w", kernel.FromFloat32(make([]float32, 16), 4, 4))
	b.Output(b.Op("ReLU", b.Op("MatMul", x, w)))
	g := b.Graph()
	for _, c := range []struct {
		name string
		opts []pipert.Option
	}{
		{"pipeline", []pipert.Option{pipert.WithMode(pipert.Pipeline)}},
		{"kbk", []pipert.Option{pipert.WithMode(pipert.KBK)}},
		{"heterogeneous", []pipert.Option{pipert.WithHeterogeneous(heterog.Size{Elements: 1})}},
	} {
		sim, err := device.NewSim(device.SimOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		exe, err := pipert.CompileContext(ctx, g, append(c.opts, pipert.WithDevice(stuckDevice{sim}))...)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || exe != nil {
			t.Errorf("%s: %v, want an error wrapping context.DeadlineExceeded", c.name, err)
		}
		if n := sim.Stats().MemInUse; n != 0 {
			t.Errorf("%s: %d device bytes left in use", c.name, n)
		}
	}
	// A context already ended compiles nothing, whatever the mode and
	// device (a device that uploads without waiting never looked at it).
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for _, mode := range []pipert.Mode{pipert.KBK, pipert.Async, pipert.Pipeline, pipert.Replay} {
		exe, err := pipert.CompileContext(ended, g, pipert.WithMode(mode))
		if !errors.Is(err, context.Canceled) || exe != nil {
			t.Errorf("%v with an ended context: %v, want an error wrapping context.Canceled", mode, err)
		}
	}
	if _, err := pipert.CompileContext(ended, g, pipert.WithHeterogeneous(heterog.Size{Elements: 1})); !errors.Is(err, context.Canceled) {
		t.Errorf("heterogeneous with an ended context: %v, want an error wrapping context.Canceled", err)
	}
	//lint:ignore SA1012 a nil context is the misuse under test
	if _, err := pipert.CompileContext(nil, g); !errors.Is(err, pipert.ErrInvalid) {
		t.Errorf("nil context: %v, want ErrInvalid", err)
	}
	c, err := subgraph.Validate(g, ops.Builtins())
	if err != nil {
		t.Fatal(err)
	}
	//lint:ignore SA1012 a nil context is the misuse under test
	if _, err := actor.NewContext(nil, c, plan.Config{}, actor.Options{}); err == nil {
		t.Error("actor.NewContext with a nil context: no error")
	}
	//lint:ignore SA1012 a nil context is the misuse under test
	if _, err := heterog.CompileContext(nil, g, plan.Config{}, nil); err == nil {
		t.Error("heterog.CompileContext with a nil context: no error")
	}
}

// TestCompileContextEndsCreationCosts: kernels' creation costs
// (Costs.Create, burnt while Compile builds them) stop once the
// compilation's context ends, and the compilation fails with its error,
// in every mode and heterogeneous; after the compilation the executable
// runs.
func TestCompileContextEndsCreationCosts(t *testing.T) {
	g := stepChain(6, 2)
	for _, het := range []bool{false, true} {
		for _, mode := range []pipert.Mode{pipert.KBK, pipert.Pipeline, pipert.Replay} {
			opts := []pipert.Option{pipert.WithMode(mode), pipert.WithCosts(plan.Costs{Create: 10 * time.Second})}
			if het {
				opts = append(opts, pipert.WithHeterogeneous(nil))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			start := time.Now()
			e, err := pipert.CompileContext(ctx, g, opts...)
			cancel()
			if e != nil {
				e.Close()
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%v heterogeneous %v: %v, want the deadline's error", mode, het, err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("%v heterogeneous %v: compiled for %v past a 50 ms deadline", mode, het, d)
			}
		}
	}
	// A cost that fits: the executable runs after its compilation.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e, err := pipert.CompileContext(ctx, g, pipert.WithCosts(plan.Costs{Create: time.Microsecond}))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Run(context.Background(), map[string]*kernel.Tensor{"x": kernel.New(kernel.Float32, 2, 3)}); err != nil {
		t.Fatal(err)
	}
}
