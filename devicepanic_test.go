package pipert_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// panicDev is a device of the caller's whose streams panic at the n-th
// call of one kind (counted over the device's life; 0: never).
type panicDev struct {
	*device.Sim
	kind  string
	n     int64
	calls atomic.Int64
}

func (d *panicDev) hit(kind string) {
	if kind == d.kind && d.calls.Add(1) == d.n {
		panic(fmt.Sprintf("device bug at %s %d", kind, d.n))
	}
}

func (d *panicDev) NewStream() device.Stream { return &panicStream{Stream: d.Sim.NewStream(), d: d} }

type panicStream struct {
	device.Stream
	d *panicDev
}

func (s *panicStream) CopyH2D(dst device.Buffer, src []byte) error {
	s.d.hit("h2d")
	return s.Stream.CopyH2D(dst, src)
}

func (s *panicStream) CopyD2H(ctx context.Context, dst []byte, src device.Buffer) error {
	s.d.hit("d2h")
	return s.Stream.CopyD2H(ctx, dst, src)
}

func (s *panicStream) Synchronize(ctx context.Context) error {
	s.d.hit("sync")
	return s.Stream.Synchronize(ctx)
}

// TestDevicePanicIsAnError makes a device's stream panic at each of its
// calls of a compile and three runs — uploads, value staging, output
// downloads, synchronisations, on the calling goroutine and on the stage
// goroutines — in every mode: Compile or Run fails with an error naming
// the panic instead of panicking, the executable stays usable, and Close
// leaves no device memory.
func TestDevicePanicIsAnError(t *testing.T) {
	g, in := faultyGraph()
	for _, m := range pipert.Modes() {
		for _, het := range []bool{false, true} {
			if het && m == pipert.KBK {
				continue
			}
			for _, kind := range []string{"h2d", "d2h", "sync"} {
				// Count the calls of a healthy compile and three runs.
				sim, err := device.NewSim(device.SimOptions{})
				if err != nil {
					t.Fatal(err)
				}
				d := &panicDev{Sim: sim, kind: kind}
				opts := []pipert.Option{pipert.WithMode(m), pipert.WithDevice(d)}
				if het {
					opts = append(opts, pipert.WithHeterogeneous(nil))
				}
				exe, err := pipert.Compile(g, opts...)
				if err != nil {
					t.Fatal(err)
				}
				var want []map[string]*kernel.Tensor
				for range 3 {
					res, err := exe.Run(context.Background(), in)
					if err != nil {
						t.Fatalf("%v het=%v: healthy run: %v", m, het, err)
					}
					want = append(want, res.Outputs)
				}
				exe.Close()
				total := d.calls.Load()
				for n := int64(1); n <= total; n++ {
					name := fmt.Sprintf("%v/het=%v/%s %d of %d", m, het, kind, n, total)
					sim, err := device.NewSim(device.SimOptions{})
					if err != nil {
						t.Fatal(err)
					}
					d := &panicDev{Sim: sim, kind: kind, n: n}
					opts[1] = pipert.WithDevice(d)
					func() {
						defer func() {
							if p := recover(); p != nil {
								t.Errorf("%s: panic escaped: %v", name, p)
							}
						}()
						exe, err := pipert.Compile(g, opts...)
						if err != nil {
							if !strings.Contains(err.Error(), "device bug") || !errors.Is(err, pipert.ErrPanic) {
								t.Errorf("%s: compile: %v", name, err)
							}
							return
						}
						defer func() {
							if err := exe.Close(); err != nil {
								t.Errorf("%s: close: %v", name, err)
							}
							if b := sim.Stats().MemInUse; b != 0 {
								t.Errorf("%s: %d device bytes in use after Close", name, b)
							}
						}()
						failed := false
						for i := range 3 {
							res, err := exe.Run(context.Background(), in)
							if err != nil {
								if !strings.Contains(err.Error(), "device bug") || !errors.Is(err, pipert.ErrPanic) {
									t.Errorf("%s: run %d: %v", name, i, err)
								}
								failed = true
								continue
							}
							if failed { // the run after the failed one
								checkSame(t, name, res.Outputs, want[i])
							}
						}
					}()
				}
			}
		}
	}
}

func checkSame(t *testing.T, name string, got, want map[string]*kernel.Tensor) {
	t.Helper()
	for o, w := range want {
		g := got[o]
		if g == nil || fmt.Sprint(g.Shape) != fmt.Sprint(w.Shape) || string(g.Host) != string(w.Host) {
			t.Errorf("%s: output %q = %v, want %v", name, o, g, w)
		}
	}
}

// shortDev is a device whose materialized buffers, from the nth
// allocation on, have less backing than asked.
type shortDev struct {
	*device.Sim
	n     int64
	calls atomic.Int64
}

func (d *shortDev) Alloc(size int64, materialize bool) (device.Buffer, error) {
	b, err := d.Sim.Alloc(size, materialize)
	if err == nil && size > 0 && b.Data != nil && d.calls.Add(1) >= d.n {
		b.Data = b.Data[:size-1]
	}
	return b, err
}

// TestShortDeviceBufferIsAnError: a device that allocates less backing
// than asked fails Compile or the run with an error wrapping
// device.ErrNotBacked, instead of kernels writing past the buffer; no
// device bytes are left.
func TestShortDeviceBufferIsAnError(t *testing.T) {
	g, in := faultyGraph()
	for _, m := range pipert.Modes() {
		for _, n := range []int64{1, 3, 6} {
			sim, err := device.NewSim(device.SimOptions{})
			if err != nil {
				t.Fatal(err)
			}
			d := &shortDev{Sim: sim, n: n}
			exe, err := pipert.Compile(g, pipert.WithMode(m), pipert.WithDevice(d))
			if err == nil {
				_, err = exe.Run(context.Background(), in)
				if cerr := exe.Close(); cerr != nil {
					t.Fatal(cerr)
				}
			}
			if !errors.Is(err, device.ErrNotBacked) {
				t.Errorf("%v from allocation %d: got %v, want ErrNotBacked", m, n, err)
			}
			if b := sim.Stats().MemInUse; b != 0 {
				t.Errorf("%v from allocation %d: %d device bytes in use", m, n, b)
			}
		}
	}
}
