package host

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/alloc"
)

// Default is the profile of the host CPU. Only kernels on virtual data use
// its roofline (they burn the time it gives); real kernels take the time
// they take.
//
//   - MemoryBytes 64 GiB: host memory, for accounting.
//   - LaunchLatency 0: a host kernel starts when it is called.
//   - KernelFixed 300 ns: call, operand checks and tiling decode of a
//     built-in op on a few elements.
//   - PeakFLOPS 2 GFLOP/s: scalar Go loops, one core (Add on 16 K float32
//     elements takes about 6 µs, 2.7 GFLOP/s; Softmax about a third of that).
//   - MemBandwidth 8 GB/s: one core streaming through memory.
//   - H2D, D2H, D2D: memcpy at 8 GB/s, no latency.
func Default() device.Profile {
	mem := device.Link{Bandwidth: 8e9}
	return device.Profile{
		Name:         "cpu",
		MemoryBytes:  64 << 30,
		KernelFixed:  300 * time.Nanosecond,
		PeakFLOPS:    2e9,
		MemBandwidth: 8e9,
		H2D:          mem,
		D2H:          mem,
		D2D:          mem,
	}
}

// Options configure a host Device. The zero value is valid: the Default
// profile, the Reference allocator over its memory, no observer.
type Options struct {
	Profile   device.Profile  // zero Name means Default()
	Allocator alloc.Allocator // nil means alloc.NewReference(Profile.MemoryBytes)
	Observer  device.Observer // sees every kernel and copy with its real interval
}

// Device is the host CPU as a device.Device. Its methods are safe for
// concurrent use; several streams may run kernels at once on different
// goroutines (and cores).
type Device struct {
	prof device.Profile
	obs  device.Observer

	mem *device.Memory
	act device.Activity

	nstreams atomic.Int32
}

// New returns a host device.
func New(o Options) (*Device, error) {
	if o.Profile.Name == "" {
		o.Profile = Default()
	}
	if err := o.Profile.Validate(); err != nil {
		return nil, fmt.Errorf("host: %w", err)
	}
	if o.Allocator == nil {
		o.Allocator = alloc.NewReference(o.Profile.MemoryBytes)
	}
	return &Device{prof: o.Profile, obs: o.Observer, mem: device.NewMemory("host "+o.Profile.Name, o.Allocator)}, nil
}

// Name implements device.Device.
func (d *Device) Name() string { return d.prof.Name }

// Profile implements device.Device.
func (d *Device) Profile() device.Profile { return d.prof }

// Alloc implements device.Device: an address from the allocator and, when
// materialize is set, zeroed Go memory.
func (d *Device) Alloc(size int64, materialize bool) (device.Buffer, error) {
	return d.mem.Alloc(size, materialize)
}

// Free implements device.Device. Host work is synchronous, so the memory is
// free for reuse at once.
func (d *Device) Free(b device.Buffer) error { return d.mem.Free(b) }

// NewStream implements device.Device.
func (d *Device) NewStream() device.Stream {
	return &stream{dev: d, id: int(d.nstreams.Add(1) - 1)}
}

// NewEvent implements device.Device. Host events may be recorded on any host
// device's stream and waited for by any stream on the device.Now clock.
func (d *Device) NewEvent() device.Event { return &event{} }

// Stats implements device.Device. KernelNs is the CPU time of the kernels,
// summed over streams; BusyNs is the union of their intervals.
func (d *Device) Stats() device.Stats { return device.Combine(d.mem, &d.act) }

// ResetStats implements device.Device.
func (d *Device) ResetStats() { device.Reset(d.mem, &d.act) }

// realer is implemented by kernel launch arguments: Real reports whether
// the kernel computes on real contents.
type realer interface{ Real() bool }

// isVirtual reports whether fn has nothing real to compute.
func isVirtual(fn device.Func) bool {
	if fn == nil {
		return true
	}
	r, ok := fn.(realer)
	return ok && !r.Real()
}

// burnUntil busy-waits until device.Now() >= t without yielding, as the
// computation it stands for would.
func burnUntil(t int64) {
	for device.Now() < t {
	}
}

// stream is a synchronous in-order queue: its owner runs every piece of work
// on the calling goroutine. busy (the end of the last work) and after (the
// latest event time later work must wait for) are written by the owner
// (store-release) and read by anyone (load-acquire).
type stream struct {
	dev   *Device
	id    int
	busy  atomic.Int64
	after atomic.Int64
}

// begin waits for the events the stream was told to wait for and returns
// the start time of the next work.
func (s *stream) begin() (int64, error) {
	if t := s.after.Load(); t > device.Now() {
		if err := device.WaitUntil(context.Background(), t); err != nil {
			return 0, err
		}
	}
	return device.Now(), nil
}

// Launch implements device.Stream: fn runs now, on the caller's goroutine,
// and its real duration is the kernel's interval. A virtual kernel burns the
// profile's time for cost instead. Launch yields the processor before it
// returns, so that goroutines computing on the host share the processors
// kernel by kernel.
func (s *stream) Launch(name string, cost device.Cost, fn device.Func) error {
	t0, err := s.begin()
	if err != nil {
		return err
	}
	if fn != nil {
		if err := fn.Run(); err != nil {
			return err
		}
	}
	if isVirtual(fn) {
		burnUntil(t0 + int64(s.dev.prof.KernelTime(cost)))
	}
	t1 := device.Now()
	s.busy.Store(t1)
	s.dev.act.Kernel(t0, t1)
	if o := s.dev.obs; o != nil {
		o.OnWork(device.Work{Stream: s.id, Kind: "kernel", Name: name, Start: t0, End: t1, Fn: fn})
	}
	// Yield the processor, as the end of an OS time slice would: Go does
	// not preempt a computing goroutine for 10 ms, so without this a few
	// long CPU actors hold every processor while other actors' goroutines,
	// ready to run, wait.
	runtime.Gosched()
	return nil
}

// copied accounts a copy that ran from t0 until now.
func (s *stream) copied(kind string, t0 int64) {
	t1 := device.Now()
	s.busy.Store(t1)
	s.dev.act.Copy(t0, t1)
	if o := s.dev.obs; o != nil {
		o.OnWork(device.Work{Stream: s.id, Kind: kind, Name: kind, Start: t0, End: t1})
	}
}

// CopyH2D implements device.Stream: a memcpy into dst's backing, if any.
func (s *stream) CopyH2D(dst device.Buffer, src []byte) error {
	if int64(len(src)) > dst.Size {
		return fmt.Errorf("host %s: h2d of %d bytes into %d-byte buffer: %w", s.dev.prof.Name, len(src), dst.Size, device.ErrBadCopy)
	}
	t0, err := s.begin()
	if err != nil {
		return err
	}
	copy(dst.Data, src)
	s.copied("h2d", t0)
	return nil
}

// CopyD2H implements device.Stream: a memcpy out of src's backing.
func (s *stream) CopyD2H(ctx context.Context, dst []byte, src device.Buffer) error {
	if int64(len(dst)) > src.Size {
		return fmt.Errorf("host %s: d2h of %d bytes from %d-byte buffer: %w", s.dev.prof.Name, len(dst), src.Size, device.ErrBadCopy)
	}
	if len(dst) > 0 && src.Data == nil {
		return fmt.Errorf("host %s: d2h from %#x: %w", s.dev.prof.Name, src.Addr, device.ErrNotBacked)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	t0, err := s.begin()
	if err != nil {
		return err
	}
	copy(dst, src.Data)
	s.copied("d2h", t0)
	return nil
}

// CopyD2D implements device.Stream.
func (s *stream) CopyD2D(dst, src device.Buffer) error {
	if src.Size > dst.Size {
		return fmt.Errorf("host %s: d2d of %d bytes into %d-byte buffer: %w", s.dev.prof.Name, src.Size, dst.Size, device.ErrBadCopy)
	}
	t0, err := s.begin()
	if err != nil {
		return err
	}
	copy(dst.Data, src.Data)
	s.copied("d2d", t0)
	return nil
}

// Record implements device.Stream: e completes when the work enqueued so far
// is done, which for a host stream is when the last work finished (or the
// event it waits for fires). e must come from a host device's NewEvent;
// anything else is a programmer error and panics.
func (s *stream) Record(e device.Event) {
	ev, ok := e.(*event)
	if !ok {
		panic(fmt.Sprintf("host: Record of a %T, not a host event", e))
	}
	ev.at.Store(max(s.BusyUntil(), 1))
}

// WaitEvent implements device.Stream: later work starts no earlier than the
// event's time. Any device's event will do: times share the device.Now
// clock.
func (s *stream) WaitEvent(e device.Event) {
	if t := e.At(); t > s.after.Load() {
		s.after.Store(t)
	}
}

// Synchronize implements device.Stream.
func (s *stream) Synchronize(ctx context.Context) error {
	return device.WaitUntil(ctx, s.BusyUntil())
}

// BusyUntil implements device.Stream.
func (s *stream) BusyUntil() int64 { return max(s.busy.Load(), s.after.Load()) }

// Query implements device.Stream.
func (s *stream) Query() bool { return device.Now() >= s.BusyUntil() }

// event holds the time at which the recorded work finished; 0 means never
// recorded. Written by the recording stream's owner (store-release), read
// by anyone (load-acquire).
type event struct{ at atomic.Int64 }

func (e *event) Synchronize(ctx context.Context) error { return device.WaitUntil(ctx, e.at.Load()) }
func (e *event) Query() bool                           { return device.Now() >= e.at.Load() }
func (e *event) At() int64                             { return e.at.Load() }
