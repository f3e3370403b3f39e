package pipert_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

// holdKernel is ReLU whose Compute, once armed, waits for release.
type holdKernel struct {
	kernel.Kernel
	armed   *atomic.Bool
	entered chan struct{}
	release chan struct{}
}

func (k *holdKernel) Compute(a *kernel.Args) error {
	if k.armed.CompareAndSwap(true, false) {
		close(k.entered)
		<-k.release
	}
	return k.Kernel.Compute(a)
}

// TestQueuedCallHonoursItsContext: a Run, RunInto or Submit queued behind
// a run of the same executable that does not end returns when its own
// context ends, with an error wrapping the context's, in every mode; the
// executable then runs normally.
func TestQueuedCallHonoursItsContext(t *testing.T) {
	for _, m := range everyMode() {
		name, opts := m.name, m.opts
		armed := new(atomic.Bool)
		hk := &holdKernel{armed: armed}
		r := ops.NewRegistry()
		if err := r.Register("Hold", func(kernel.Attrs) (kernel.Kernel, error) {
			relu, err := ops.Builtins().New("ReLU", nil)
			hk.Kernel = relu
			return hk, err
		}); err != nil {
			t.Fatal(err)
		}
		b := subgraph.NewBuilder("hold")
		x := b.Input("x", kernel.Float32, 4)
		b.Node(&subgraph.Node{Name: "hold", Op: "Hold", Inputs: []string{x}, Placement: subgraph.OnCPU}, 1)
		y := b.Op("Neg", b.Last().Outputs[0])
		b.Output(y)
		exe, err := pipert.Compile(b.Graph(), append([]pipert.Option{pipert.WithRegistry(r)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -2, 3, -4}, 4)}
		hk.entered, hk.release = make(chan struct{}), make(chan struct{})
		armed.Store(true)
		first := make(chan error, 1)
		go func() {
			_, err := exe.Run(context.Background(), in)
			first <- err
		}()
		<-hk.entered // the first run holds the executable
		// Should a queued call not give up, the held run ends after a
		// while, so that the test fails rather than hangs.
		var once sync.Once
		free := func() { once.Do(func() { close(hk.release) }) }
		safety := time.AfterFunc(5*time.Second, free)
		calls := map[string]func(ctx context.Context) error{
			"Run": func(ctx context.Context) error { _, err := exe.Run(ctx, in); return err },
			"RunInto": func(ctx context.Context) error {
				_, err := exe.RunInto(ctx, in, map[string]*kernel.Tensor{y: kernel.New(kernel.Float32, 4)})
				return err
			},
			"Submit": func(ctx context.Context) error {
				p, err := exe.Submit(ctx, in)
				if err == nil {
					_, err = p.Wait()
				}
				return err
			},
		}
		for call, f := range calls {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			err := f(ctx)
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s: %s queued behind a held run: %v, want DeadlineExceeded", name, call, err)
			}
		}
		safety.Stop()
		free()
		if err := <-first; err != nil {
			t.Errorf("%s: the held run: %v", name, err)
		}
		res, err := exe.Run(context.Background(), in)
		if err != nil {
			t.Fatalf("%s: run after: %v", name, err)
		}
		if got := kernel.Float32s(res.Outputs[y].Host); got[0] != -1 || got[1] != 0 {
			t.Errorf("%s: run after: %v", name, got)
		}
		exe.Close()
	}
}
