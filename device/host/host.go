package host

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/alloc"
	"github.com/pipert/pipert/device/internal/account"
	"github.com/pipert/pipert/internal/clock"
	"github.com/pipert/pipert/internal/spin"
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
// goroutines (and cores). New makes one: the zero Device is no device,
// whose Alloc and Free fail with device.ErrNoDevice; a nil *Device (New's
// on an error) answers as the zero Device.
type Device struct {
	prof device.Profile
	obs  device.Observer

	mem *account.Memory
	act account.Activity

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
	return &Device{prof: o.Profile, obs: o.Observer, mem: account.NewMemory(o.Allocator)}, nil
}

// Name implements device.Device.
func (d *Device) Name() string {
	if d == nil {
		return ""
	}
	return d.prof.Name
}

// Profile implements device.Device.
func (d *Device) Profile() device.Profile {
	if d == nil {
		return device.Profile{}
	}
	return d.prof
}

// Alloc implements device.Device: an address from the allocator and, when
// materialize is set, zeroed Go memory.
func (d *Device) Alloc(size int64, materialize bool) (device.Buffer, error) {
	if d == nil || d.mem == nil {
		return device.Buffer{}, fmt.Errorf("host: Alloc of a nil or zero Device, not made by New: %w", device.ErrNoDevice)
	}
	addr, n, data, err := d.mem.Alloc(size, materialize)
	if err != nil {
		if errors.Is(err, alloc.ErrOutOfMemory) {
			return device.Buffer{}, fmt.Errorf("host %s: alloc %d bytes: %w: %w", d.prof.Name, size, device.ErrOutOfMemory, err)
		}
		return device.Buffer{}, fmt.Errorf("host %s: alloc %d bytes: %w", d.prof.Name, size, err)
	}
	return device.Buffer{Addr: addr, Size: n, Data: data}, nil
}

// Owns implements device.Owner.
func (d *Device) Owns(b device.Buffer) bool {
	return d != nil && d.mem != nil && d.mem.Check(b.Addr, b.Size) == nil
}

// Free implements device.Device. Host work is synchronous, so the memory is
// free for reuse at once.
func (d *Device) Free(b device.Buffer) error {
	if b.IsZero() {
		return nil
	}
	if d == nil || d.mem == nil {
		return fmt.Errorf("host: Free of a nil or zero Device, not made by New: %w", device.ErrNoDevice)
	}
	if err := d.mem.Free(b.Addr, b.Size, b.Data); err != nil {
		return fmt.Errorf("host %s: %w", d.prof.Name, err)
	}
	return nil
}

// NewStream implements device.Device.
func (d *Device) NewStream() device.Stream {
	if d == nil {
		d = new(Device) // the zero Device's stream: its work fails
	}
	s := &stream{dev: d, id: int(d.nstreams.Add(1) - 1)}
	if o, ok := d.obs.(device.NewStreamObserver); ok {
		o.OnNewStream(s.id)
	}
	return s
}

// ReleaseStream implements device.StreamReleaser: an Observer that is a
// device.StreamObserver is told.
func (d *Device) ReleaseStream(s device.Stream) {
	if ss, ok := s.(*stream); ok && ss.dev == d {
		if o, ok := d.obs.(device.StreamObserver); ok {
			o.OnStreamReleased(ss.id)
		}
	}
}

// NewEvent implements device.Device. Host events are clock events: they may
// be recorded on any host or simulated device's stream and waited for by
// any stream.
func (d *Device) NewEvent() device.Event { return new(device.ClockEvent) }

// Stats implements device.Device. KernelNs is the CPU time of the kernels,
// summed over streams; BusyNs is the union of their intervals.
func (d *Device) Stats() device.Stats {
	if d == nil || d.mem == nil { // a nil or zero Device
		return device.Stats{}
	}
	var c account.Counts
	d.mem.Snapshot(&c)
	d.act.Snapshot(&c)
	return device.Stats{Kernels: c.Kernels, Copies: c.Copies, BusyNs: c.BusyNs, KernelNs: c.KernelNs,
		MemInUse: c.MemInUse, MemPeak: c.MemPeak, Allocs: c.Allocs, Frees: c.Frees, LastEnd: c.LastEnd}
}

// stream is a synchronous in-order queue: its owner does every piece of work
// on the calling goroutine. busy (the end of the last work), after (the
// latest event time later work must wait for) and the counters are written
// by the owner (store-release) and read by anyone (load-acquire).
type stream struct {
	dev     *Device
	id      int
	busy    atomic.Int64
	after   atomic.Int64
	kernels atomic.Int64
	copies  atomic.Int64
	busyNs  atomic.Int64
}

// begin waits for the events the stream was told to wait for and returns
// the start time of the next work.
func (s *stream) begin(ctx context.Context) (int64, error) {
	if t := s.after.Load(); t > clock.Now() {
		if err := clock.WaitUntil(ctx, t); err != nil {
			return 0, err
		}
	}
	return clock.Now(), nil
}

// Launch implements device.Stream. A kernel the runtime computed for real
// (k.Computed set) ran on the host in that interval: it is the kernel's
// interval on the timeline. A kernel with nothing real to compute (virtual
// data) burns, on the calling goroutine, the profile's time for its cost,
// as the CPU would spend it, after any event the stream waits for.
func (s *stream) Launch(k device.Kernel) error {
	if err := s.dev.prof.CheckCost(k.Cost); err != nil {
		return fmt.Errorf("host %s: launch %s: %w", s.dev.prof.Name, k.Name, err)
	}
	// The arguments are in host memory already: only their validity
	// counts, as on every device.
	if _, err := s.dev.prof.ArgsTime(k.Args); err != nil {
		return fmt.Errorf("host %s: launch %s: %w", s.dev.prof.Name, k.Name, err)
	}
	t0, t1 := k.Computed.Start, k.Computed.End
	if t1 > 0 && t1 < t0 {
		return fmt.Errorf("host %s: launch %s: %w: computed from %d to %d, which ends before it starts", s.dev.prof.Name, k.Name, device.ErrLaunchFailed, t0, t1)
	}
	if t1 <= 0 {
		var err error
		if t0, err = s.begin(context.Background()); err != nil {
			return err
		}
		spin.For(s.dev.prof.KernelTime(k.Cost)) // calibrated CPU work, as the computation would be
		t1 = clock.Now()
	}
	s.busy.Store(max(s.busy.Load(), t1))
	s.busyNs.Add(t1 - t0)
	s.kernels.Add(1)
	s.dev.act.Kernel(t0, t1)
	if o := s.dev.obs; o != nil {
		o.OnWork(device.Work{Stream: s.id, Kind: "kernel", Name: k.Name, Start: t0, End: t1, Flow: k.Flow})
	}
	return nil
}

// copied accounts a copy that ran from t0 until now.
func (s *stream) copied(kind string, t0 int64) {
	t1 := clock.Now()
	s.busy.Store(t1)
	s.busyNs.Add(t1 - t0)
	s.copies.Add(1)
	s.dev.act.Copy(t0, t1)
	if o := s.dev.obs; o != nil {
		o.OnWork(device.Work{Stream: s.id, Kind: kind, Name: kind, Start: t0, End: t1})
	}
}

// unusable reports a buffer among bufs (the zero Buffer aside) that is not
// allocated memory of this device (another device's, freed, or past the
// end of its block) as an error wrapping device.ErrBadCopy.
func (d *Device) unusable(op string, bufs ...device.Buffer) error {
	for _, b := range bufs {
		if b.IsZero() {
			continue
		}
		if err := d.mem.Check(b.Addr, b.Size); err != nil {
			return fmt.Errorf("host %s: %s: %w: %w", d.prof.Name, op, device.ErrBadCopy, err)
		}
	}
	return nil
}

// CopyH2D implements device.Stream: a memcpy into dst's backing, if any.
func (s *stream) CopyH2D(dst device.Buffer, src []byte) error {
	if err := s.dev.unusable("h2d", dst); err != nil {
		return err
	}
	if int64(len(src)) > dst.Size {
		return fmt.Errorf("host %s: h2d of %d bytes into %d-byte buffer: %w", s.dev.prof.Name, len(src), dst.Size, device.ErrBadCopy)
	}
	t0, err := s.begin(context.Background())
	if err != nil {
		return err
	}
	copy(dst.Data, src)
	s.copied("h2d", t0)
	return nil
}

// CopyD2H implements device.Stream: a memcpy out of src's backing.
func (s *stream) CopyD2H(ctx context.Context, dst []byte, src device.Buffer) error {
	if err := s.dev.unusable("d2h", src); err != nil {
		return err
	}
	if int64(len(dst)) > src.Size {
		return fmt.Errorf("host %s: d2h of %d bytes from %d-byte buffer: %w", s.dev.prof.Name, len(dst), src.Size, device.ErrBadCopy)
	}
	if len(dst) > 0 && src.Data == nil {
		return fmt.Errorf("host %s: d2h from %#x: %w", s.dev.prof.Name, src.Addr, device.ErrNotBacked)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	t0, err := s.begin(ctx)
	if err != nil {
		return err
	}
	copy(dst, src.Data)
	s.copied("d2h", t0)
	return nil
}

// CopyD2D implements device.Stream.
func (s *stream) CopyD2D(dst, src device.Buffer) error {
	if err := s.dev.unusable("d2d", dst, src); err != nil {
		return err
	}
	if src.Size > dst.Size {
		return fmt.Errorf("host %s: d2d of %d bytes into %d-byte buffer: %w", s.dev.prof.Name, src.Size, dst.Size, device.ErrBadCopy)
	}
	t0, err := s.begin(context.Background())
	if err != nil {
		return err
	}
	copy(dst.Data, src.Data)
	s.copied("d2d", t0)
	return nil
}

// Record implements device.Stream: e completes when the work enqueued so far
// is done, which for a host stream is when the last work finished (or the
// event it waits for fires). Only clock events (device.ClockEvent, what
// host and simulated devices make) can be recorded; others are left as
// they are.
func (s *stream) Record(e device.Event) {
	if m, ok := e.(interface{ Mark(int64) }); ok {
		m.Mark(s.busyUntil())
	}
}

// WaitEvent implements device.Stream: later work starts no earlier than the
// event's time. Any device's event will do: times share the host's clock.
// A nil event, like one never recorded, is complete.
func (s *stream) WaitEvent(e device.Event) {
	if e == nil {
		return
	}
	if t := e.At(); t > s.after.Load() {
		s.after.Store(t)
	}
}

// Synchronize implements device.Stream.
func (s *stream) Synchronize(ctx context.Context) error {
	return clock.WaitUntil(ctx, s.busyUntil())
}

func (s *stream) busyUntil() int64 { return max(s.busy.Load(), s.after.Load()) }

// Query implements device.Stream.
func (s *stream) Query() bool { return clock.Now() >= s.busyUntil() }

// Stats implements device.Stream.
func (s *stream) Stats() device.StreamStats {
	return device.StreamStats{Kernels: s.kernels.Load(), Copies: s.copies.Load(), BusyNs: s.busyNs.Load(), LastEnd: s.busy.Load()}
}
