package pipert_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
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
// allocation on, have less backing than asked (none at all with none).
type shortDev struct {
	*device.Sim
	n     int64
	none  bool
	calls atomic.Int64
}

func (d *shortDev) Alloc(size int64, materialize bool) (device.Buffer, error) {
	b, err := d.Sim.Alloc(size, materialize)
	if err == nil && size > 0 && b.Data != nil && d.calls.Add(1) >= d.n {
		if d.none {
			b.Data = nil
		} else {
			b.Data = b.Data[:size-1]
		}
	}
	return b, err
}

// TestShortDeviceBufferIsAnError: a device that allocates less backing
// than asked (or none, for a materialized buffer) fails Compile or the run with an error wrapping
// device.ErrNotBacked, instead of kernels writing past the buffer; no
// device bytes are left.
func TestShortDeviceBufferIsAnError(t *testing.T) {
	g, in := faultyGraph()
	for _, m := range pipert.Modes() {
		for _, c := range []struct {
			n    int64
			none bool
		}{{1, false}, {3, false}, {6, false}, {1, true}, {3, true}, {6, true}} {
			n := c.n
			sim, err := device.NewSim(device.SimOptions{})
			if err != nil {
				t.Fatal(err)
			}
			d := &shortDev{Sim: sim, n: n, none: c.none}
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

// methodDev is a device of the caller's whose methods, its streams' and
// its events' panic at the n-th call of one method (counted over the
// device's life; 0: never); calls counts every method's calls.
type methodDev struct {
	*device.Sim
	method string
	n      int64
	calls  map[string]*atomic.Int64
}

// deviceMethods are the methods methodDev can make panic.
var deviceMethods = []string{"Profile", "Alloc", "Free", "NewStream", "NewEvent", "Stats",
	"Launch", "CopyD2D", "Record", "WaitEvent", "Query", "Stream.Stats", "Replay",
	"Event.Synchronize", "Event.Query"}

func newMethodDev(t *testing.T, method string, n int64) *methodDev {
	t.Helper()
	sim, err := device.NewSim(device.SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := &methodDev{Sim: sim, method: method, n: n, calls: map[string]*atomic.Int64{}}
	for _, m := range deviceMethods {
		d.calls[m] = new(atomic.Int64)
	}
	return d
}

func (d *methodDev) hit(method string) {
	if c := d.calls[method].Add(1); method == d.method && c == d.n {
		panic(fmt.Sprintf("device bug at %s %d", method, d.n))
	}
}

func (d *methodDev) Profile() device.Profile { d.hit("Profile"); return d.Sim.Profile() }
func (d *methodDev) Alloc(size int64, materialize bool) (device.Buffer, error) {
	d.hit("Alloc")
	return d.Sim.Alloc(size, materialize)
}
func (d *methodDev) Free(b device.Buffer) error { d.hit("Free"); return d.Sim.Free(b) }
func (d *methodDev) NewStream() device.Stream {
	d.hit("NewStream")
	return &methodStream{Stream: d.Sim.NewStream(), d: d}
}
func (d *methodDev) NewEvent() device.Event {
	d.hit("NewEvent")
	return &methodEvent{Event: d.Sim.NewEvent(), d: d}
}
func (d *methodDev) Stats() device.Stats { d.hit("Stats"); return d.Sim.Stats() }

type methodStream struct {
	device.Stream
	d *methodDev
}

// simEvent is the simulator's event under e.
func simEvent(e device.Event) device.Event {
	if m, ok := e.(*methodEvent); ok {
		return m.Event
	}
	return e
}

func (s *methodStream) Launch(k device.Kernel) error { s.d.hit("Launch"); return s.Stream.Launch(k) }
func (s *methodStream) CopyD2D(dst, src device.Buffer) error {
	s.d.hit("CopyD2D")
	return s.Stream.CopyD2D(dst, src)
}
func (s *methodStream) Record(e device.Event) { s.d.hit("Record"); s.Stream.Record(simEvent(e)) }
func (s *methodStream) WaitEvent(e device.Event) {
	s.d.hit("WaitEvent")
	s.Stream.WaitEvent(simEvent(e))
}
func (s *methodStream) Query() bool               { s.d.hit("Query"); return s.Stream.Query() }
func (s *methodStream) Stats() device.StreamStats { s.d.hit("Stream.Stats"); return s.Stream.Stats() }
func (s *methodStream) Replay(ks []device.Kernel) error {
	s.d.hit("Replay")
	return s.Stream.(device.Replayer).Replay(ks)
}

type methodEvent struct {
	device.Event
	d *methodDev
}

func (e *methodEvent) Synchronize(ctx context.Context) error {
	e.d.hit("Event.Synchronize")
	return e.Event.Synchronize(ctx)
}
func (e *methodEvent) Query() bool { e.d.hit("Event.Query"); return e.Event.Query() }

// TestDeviceMethodPanicIsAnError makes each method of a device of the
// caller's, of its streams and of its events panic at some of its calls
// of a compile, three runs and Close, in every mode, with each tiling
// copy, and heterogeneously: no panic escapes, no run waits for what the
// panicking call did not do, the error matches ErrPanic, and the run
// after a failed one is correct.
func TestDeviceMethodPanicIsAnError(t *testing.T) {
	g, in := faultyGraph()
	type variant struct {
		name string
		opts []pipert.Option
	}
	var variants []variant
	for _, m := range pipert.Modes() {
		variants = append(variants, variant{m.String(), []pipert.Option{pipert.WithMode(m)}})
	}
	variants = append(variants,
		variant{"multi-stream", []pipert.Option{pipert.WithMode(pipert.Pipeline), pipert.WithTilingCopy(pipert.MultiStream, 2)}},
		variant{"whole, drain", []pipert.Option{pipert.WithMode(pipert.Pipeline), pipert.WithTilingCopy(pipert.Whole, 0), pipert.WithBarrier(pipert.Drain)}},
		variant{"replay, memory plan", []pipert.Option{pipert.WithMode(pipert.Replay), pipert.WithCaches(pipert.Caches{Kinds: pipert.DefaultCaches | pipert.MemoryPlan})}},
		variant{"hetero", []pipert.Option{pipert.WithHeterogeneous(nil)}},
	)
	for _, v := range variants {
		healthy := newMethodDev(t, "", 0)
		exe, err := pipert.Compile(g, append(v.opts, pipert.WithDevice(healthy))...)
		if err != nil {
			t.Fatal(err)
		}
		var want []map[string]*kernel.Tensor
		for range 3 {
			res, err := exe.Run(context.Background(), in)
			if err != nil {
				t.Fatalf("%s: healthy run: %v", v.name, err)
			}
			want = append(want, res.Outputs)
		}
		if err := exe.Close(); err != nil {
			t.Fatal(err)
		}
		for _, method := range deviceMethods {
			total := healthy.calls[method].Load()
			for n := int64(1); n <= total; n += max(1, total/5) {
				name := fmt.Sprintf("%s: %s %d of %d", v.name, method, n, total)
				d := newMethodDev(t, method, n)
				func() {
					defer func() {
						if p := recover(); p != nil {
							t.Errorf("%s: panic escaped: %v", name, p)
						}
					}()
					exe, err := pipert.Compile(g, append(v.opts, pipert.WithDevice(d))...)
					if err != nil {
						if !errors.Is(err, pipert.ErrPanic) {
							t.Errorf("%s: compile: %v", name, err)
						}
						return
					}
					failed := false
					for i := range 3 {
						res, err := exe.Run(context.Background(), in)
						if err != nil {
							if !errors.Is(err, pipert.ErrPanic) {
								t.Errorf("%s: run %d: %v", name, i, err)
							}
							failed = true
							continue
						}
						if failed {
							checkSame(t, name, res.Outputs, want[i])
						}
					}
					if err := exe.Close(); err != nil && !errors.Is(err, pipert.ErrPanic) {
						t.Errorf("%s: close: %v", name, err)
					}
				}()
			}
		}
	}
}

// TestPublishingDevicePanicIsAnError: with outputs handed over tensor by
// tensor (Submit with a carried output, in every mode), a device whose
// copies or synchronisations panic at each of their calls fails the step
// with an error matching ErrPanic, on the goroutine that publishes, and
// never crashes the process; the next step is correct.
func TestPublishingDevicePanicIsAnError(t *testing.T) {
	g, in := faultyGraph()
	carried := pipert.WithCarried(g.Outputs[0])
	for _, m := range pipert.Modes() {
		for _, kind := range []string{"d2h", "sync"} {
			sim, err := device.NewSim(device.SimOptions{})
			if err != nil {
				t.Fatal(err)
			}
			d := &panicDev{Sim: sim, kind: kind}
			exe, err := pipert.Compile(g, pipert.WithMode(m), pipert.WithDevice(d), carried)
			if err != nil {
				t.Fatal(err)
			}
			step := func(exe *pipert.Executable) (*pipert.Result, error) {
				p, err := exe.Submit(context.Background(), in)
				if err != nil {
					return nil, err
				}
				return p.Wait()
			}
			want, err := step(exe)
			if err != nil {
				t.Fatalf("%v: healthy step: %v", m, err)
			}
			exe.Close()
			total := d.calls.Load()
			for n := int64(1); n <= total; n++ {
				name := fmt.Sprintf("%v/%s %d of %d", m, kind, n, total)
				sim, err := device.NewSim(device.SimOptions{})
				if err != nil {
					t.Fatal(err)
				}
				exe, err := pipert.Compile(g, pipert.WithMode(m), pipert.WithDevice(&panicDev{Sim: sim, kind: kind, n: n}), carried)
				if err != nil {
					if !errors.Is(err, pipert.ErrPanic) {
						t.Errorf("%s: compile: %v", name, err)
					}
					continue
				}
				failed := false
				for range 2 {
					res, err := step(exe)
					if err != nil {
						if !errors.Is(err, pipert.ErrPanic) {
							t.Errorf("%s: %v, want ErrPanic", name, err)
						}
						failed = true
						continue
					}
					if failed {
						checkSame(t, name, res.Outputs, want.Outputs)
					}
				}
				if err := exe.Close(); err != nil {
					t.Errorf("%s: close: %v", name, err)
				}
			}
		}
	}
}

// nilDev is a device whose NewStream or NewEvent (kind) answers nil from
// its n-th call on.
type nilDev struct {
	*device.Sim
	kind  string
	n     int64
	calls atomic.Int64
}

func (d *nilDev) NewStream() device.Stream {
	if d.kind == "stream" && d.calls.Add(1) >= d.n {
		return nil
	}
	return d.Sim.NewStream()
}

func (d *nilDev) NewEvent() device.Event {
	if d.kind == "event" && d.calls.Add(1) >= d.n {
		return nil
	}
	return d.Sim.NewEvent()
}

// TestNilStreamOrEventIsAnError: a device that answers NewStream or
// NewEvent with nil fails Compile or Run with an error naming the call
// (matching ErrPanic: the device broke its contract), in every mode,
// instead of a nil dereference deeper in.
func TestNilStreamOrEventIsAnError(t *testing.T) {
	g, in := faultyGraph()
	for _, m := range pipert.Modes() {
		for _, kind := range []string{"stream", "event"} {
			for n := int64(1); n <= 4; n++ {
				sim, err := device.NewSim(device.SimOptions{})
				if err != nil {
					t.Fatal(err)
				}
				d := &nilDev{Sim: sim, kind: kind, n: n}
				name := fmt.Sprintf("%v/%s from call %d", m, kind, n)
				want := "NewStream returned nil"
				if kind == "event" {
					want = "NewEvent returned nil"
				}
				exe, err := pipert.Compile(g, pipert.WithMode(m), pipert.WithDevice(d))
				if err == nil {
					_, err = exe.Run(context.Background(), in)
					exe.Close()
				}
				if err != nil && (!errors.Is(err, pipert.ErrPanic) || !strings.Contains(err.Error(), want)) {
					t.Errorf("%s: %v, want ErrPanic naming %q", name, err, want)
				}
			}
		}
	}
}

// TestLateStreamPanicIsAnError: the streams an executable makes after
// Compile — a Submit chain's lanes and upload streams, a heterogeneous
// part's upload stream when a CPU part feeds it — come from the caller's
// device too. Its NewStream panicking at each of those calls fails that
// chain or run with an error matching ErrPanic, and the chains or runs
// after it on the healthy device are correct (the stream is made again).
func TestLateStreamPanicIsAnError(t *testing.T) {
	b := subgraph.NewBuilder("late")
	s := b.Input("s", kernel.Float32, 8)
	x := b.Input("x", kernel.Float32, 8)
	sum := b.Op("Add", s, x)
	b.Output(b.Op("ReLU", b.Op("Add", b.Op("Neg", sum), x)))
	g := b.Graph()
	out := g.Outputs[0]
	ones := func() *kernel.Tensor { return kernel.FromFloat32([]float32{1, -2, 3, -4, 5, -6, 7, -8}, 8) }
	chain := func(exe *pipert.Executable) (*pipert.Result, error) {
		var p *pipert.Pending
		for i := range 4 {
			in := map[string]*kernel.Tensor{"x": ones()}
			var c []pipert.Carry
			if i == 0 {
				in["s"] = ones()
			} else {
				c = append(c, pipert.Carry{From: p, Output: out, Input: "s"})
			}
			var err error
			if p, err = exe.Submit(context.Background(), in, c...); err != nil {
				return nil, err
			}
		}
		return p.Wait()
	}
	run := func(exe *pipert.Executable) (*pipert.Result, error) {
		return exe.Run(context.Background(), map[string]*kernel.Tensor{"s": ones(), "x": ones()})
	}
	type variant struct {
		name string
		opts []pipert.Option
		step func(*pipert.Executable) (*pipert.Result, error)
	}
	var variants []variant
	for _, m := range pipert.Modes() {
		variants = append(variants, variant{m.String() + " chain", []pipert.Option{pipert.WithMode(m), pipert.WithCarried(out)}, chain})
	}
	variants = append(variants, variant{"hetero, a CPU part first", []pipert.Option{pipert.WithHeterogeneous(firstNodeOnCPU{})}, run})
	for _, v := range variants {
		healthy := newMethodDev(t, "", 0)
		exe, err := pipert.Compile(g, append(slices.Clone(v.opts), pipert.WithDevice(healthy))...)
		if err != nil {
			t.Fatal(err)
		}
		want, err := v.step(exe)
		if err != nil {
			t.Fatalf("%s: healthy: %v", v.name, err)
		}
		exe.Close()
		total := healthy.calls["NewStream"].Load()
		for n := int64(1); n <= total; n++ {
			name := fmt.Sprintf("%s: NewStream %d of %d", v.name, n, total)
			exe, err := pipert.Compile(g, append(slices.Clone(v.opts), pipert.WithDevice(newMethodDev(t, "NewStream", n)))...)
			if err != nil {
				if !errors.Is(err, pipert.ErrPanic) {
					t.Errorf("%s: compile: %v", name, err)
				}
				continue
			}
			// The panic fires once, in the first step or a later one (which
			// call makes the n-th stream varies); the step after the one
			// that failed runs on a healthy device.
			failed := false
			for i := range 3 {
				res, err := v.step(exe)
				if err != nil {
					if failed || !errors.Is(err, pipert.ErrPanic) {
						t.Errorf("%s: step %d: %v", name, i, err)
					}
					failed = true
					continue
				}
				checkSame(t, name, res.Outputs, want.Outputs)
			}
			exe.Close()
		}
	}
}

// firstNodeOnCPU places a graph's first node on the CPU, the others on the
// device.
type firstNodeOnCPU struct{}

func (firstNodeOnCPU) Place(c *subgraph.Checked, _ plan.Target) ([]subgraph.Placement, error) {
	p := make([]subgraph.Placement, len(c.Graph.Nodes))
	for i := range p {
		p[i] = subgraph.OnDevice
	}
	p[0] = subgraph.OnCPU
	return p, nil
}

// backwardsDev is a device of the caller's whose busy-time counter goes
// back by 1 ms at every look.
type backwardsDev struct {
	*device.Sim
	n atomic.Int64
}

func (d *backwardsDev) Stats() device.Stats {
	s := d.Sim.Stats()
	s.BusyNs -= d.n.Add(1) * 1_000_000
	return s
}

// TestBackwardsDeviceStatsAreNotNegative: whatever a device's counters
// do, a run's DeviceBusy, DeviceWork and CPUBusy are never negative, in
// every mode and heterogeneously.
func TestBackwardsDeviceStatsAreNotNegative(t *testing.T) {
	g, in := faultyGraph()
	variants := [][]pipert.Option{{pipert.WithHeterogeneous(nil)}, {pipert.WithHeterogeneous(firstNodeOnCPU{})}}
	for _, m := range pipert.Modes() {
		variants = append(variants, []pipert.Option{pipert.WithMode(m)})
	}
	for i, opts := range variants {
		sim, err := device.NewSim(device.SimOptions{})
		if err != nil {
			t.Fatal(err)
		}
		exe, err := pipert.Compile(g, append(opts, pipert.WithDevice(&backwardsDev{Sim: sim}))...)
		if err != nil {
			t.Fatal(err)
		}
		res, err := exe.Run(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		exe.Close()
		if st := res.Stats; st.DeviceBusy < 0 || st.DeviceWork < 0 || st.CPUBusy < 0 {
			t.Errorf("variant %d: DeviceBusy %v, DeviceWork %v, CPUBusy %v", i, st.DeviceBusy, st.DeviceWork, st.CPUBusy)
		}
	}
}
