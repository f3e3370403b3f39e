package device

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pipert/pipert/device/alloc"
	"github.com/pipert/pipert/device/internal/account"
	"github.com/pipert/pipert/internal/clock"
	"github.com/pipert/pipert/internal/spin"
)

// Work is one piece of modeled device work, as an Observer sees it.
type Work struct {
	Stream int    // the stream, numbered from 0 in creation order
	Kind   string // "kernel", "h2d", "d2h" or "d2d"
	Name   string // the kernel's name; the kind for copies
	// Start and End are the modeled interval, on the host's monotonic clock.
	Start, End int64
	// Flow is the kernel's trace flow id (0 for copies and untraced kernels).
	Flow uint64
}

// Observer receives every piece of modeled device work; tracing plugs in
// here. Calls come from the goroutine that enqueued the work, in the
// stream's order, and must not block.
type Observer interface {
	OnWork(w Work)
}

// StreamReleaser is a Device that can be told a stream is done:
// ReleaseStream(s) says s, one of its streams, will take no more work
// (work already launched still runs), as cudaStreamDestroy does. The
// runtime releases the streams of an executable when it closes, so that
// what the device keeps per stream — an Observer's trace track — does not
// grow with every executable a process compiles and closes. A stream of
// another device is ignored.
type StreamReleaser interface {
	ReleaseStream(s Stream)
}

// StreamObserver is an Observer told when a stream is released
// (StreamReleaser): no work of that stream follows.
type StreamObserver interface {
	Observer
	OnStreamReleased(stream int)
}

// NewStreamObserver is an Observer told when the device makes a stream
// (Device.NewStream), before any work on it: an executable makes its
// streams at Compile, so that what the observer keeps per stream (a trace
// track, with its buffer) is ready before the first run rather than made
// by it. Sim and host.Device tell it.
type NewStreamObserver interface {
	Observer
	OnNewStream(stream int)
}

// ReleaseStreams releases each stream of d, when d is a StreamReleaser
// (nil streams are skipped).
func ReleaseStreams(d Device, ss ...Stream) {
	r, ok := d.(StreamReleaser)
	if !ok {
		return
	}
	for _, s := range ss {
		if s != nil {
			r.ReleaseStream(s)
		}
	}
}

// Launcher models the command path from a host launch call to the device:
// command buffers, doorbells, dispatchers. Sim calls Issue for every kernel
// launch, from the launching goroutine; implementations must be safe for
// concurrent use when several streams launch at once.
type Launcher interface {
	// Issue is told the host time of a launch call and returns when the host
	// call may return (hostReady, e.g. after waiting for a free command
	// slot) and the earliest time the kernel can start on the device.
	Issue(now int64) (hostReady, earliestStart int64)
}

// KernelLauncher is a Launcher that is told the kernel: Sim calls
// IssueKernel instead of Issue. It suits a dispatcher that stays with each
// kernel until it has ended (the SW-AI card's MPE, which polls the cores
// for completion before it takes the next command): it is told when the
// stream is free (notBefore), how long the kernel's arguments take to
// cross with the command (args) and the kernel's modeled duration (dur),
// and returns when the host call may return and when the kernel starts.
type KernelLauncher interface {
	Launcher
	IssueKernel(now, notBefore int64, args, dur time.Duration) (hostReady, start int64)
}

// CopyModel gives the modeled duration of a stream's copies in place of the
// profile's links: kind is "h2d", "d2h" or "d2d", host the host side of an
// h2d or d2h copy (nil for d2d; a model may tell pinned memory from
// pageable by it) and n the bytes. Sim calls it from the copying goroutine;
// it must be safe for concurrent use, and should be cheap: it runs on the
// copy's path.
type CopyModel interface {
	CopyTime(kind string, host []byte, n int64) time.Duration
}

// SimOptions configure a simulated device. The zero value is valid: the
// Default profile, the Reference allocator, no observer, and a launch path
// of fixed Profile.LaunchLatency.
type SimOptions struct {
	Profile   Profile         // zero Name means Default()
	Allocator alloc.Allocator // nil means alloc.NewReference(Profile.MemoryBytes)
	Observer  Observer
	Launcher  Launcher // nil means start = launch time + Profile.LaunchLatency
	// Copies, when set, gives every copy's modeled duration; nil means
	// the Profile's H2D, D2H and D2D links.
	Copies CopyModel
}

// Sim is a simulated device (see the package doc for its time model),
// made by NewSim. A nil or zero Sim is no device: its calls that can fail
// fail with ErrNoDevice.
type Sim struct {
	prof Profile
	obs  Observer
	lch  Launcher
	klch KernelLauncher // lch, when it is one
	cpm  CopyModel
	who  string // "device <profile name>", in errors

	mem *account.Memory
	act account.Activity

	nstreams atomic.Int32
	// compute and copy are the engines streams share (nil: no bound).
	compute, copy *engines
}

// engines are a device's engines of one kind: when each is busy until.
type engines struct {
	mu   sync.Mutex
	free []int64
}

func newEngines(n int) *engines {
	if n <= 0 {
		return nil
	}
	return &engines{free: make([]int64, n)}
}

// take books the engine free first for work of duration dur that may
// start at earliest, and returns its start.
func (e *engines) take(earliest int64, dur time.Duration) int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	best := 0
	for i, f := range e.free {
		if f < e.free[best] {
			best = i
		}
	}
	start := max(earliest, e.free[best])
	e.free[best] = start + int64(dur)
	return start
}

// NewSim returns a simulated device.
func NewSim(o SimOptions) (*Sim, error) {
	if o.Profile.Name == "" {
		o.Profile = Default()
	}
	if err := o.Profile.Validate(); err != nil {
		return nil, err
	}
	if o.Allocator == nil {
		o.Allocator = alloc.NewReference(o.Profile.MemoryBytes)
	}
	d := &Sim{prof: o.Profile, obs: o.Observer, lch: o.Launcher, cpm: o.Copies, who: "device " + o.Profile.Name, mem: account.NewMemory(o.Allocator),
		compute: newEngines(o.Profile.ComputeEngines), copy: newEngines(o.Profile.CopyEngines)}
	d.klch, _ = o.Launcher.(KernelLauncher)
	return d, nil
}

// made reports whether d was made by NewSim. A nil or zero Sim is no
// device: its calls that can fail fail with ErrNoDevice (its streams'
// too), the others do nothing.
func (d *Sim) made() bool { return d != nil && d.mem != nil }

// noDevice is the error of call on a Sim NewSim did not make.
func noDevice(call string) error { return fmt.Errorf("device: %s: %w", call, ErrNoDevice) }

// Name implements Device.
func (d *Sim) Name() string {
	if d == nil {
		return "<nil>"
	}
	return d.prof.Name
}

// Profile implements Device.
func (d *Sim) Profile() Profile {
	if d == nil {
		return Profile{}
	}
	return d.prof
}

// Alloc implements Device.
func (d *Sim) Alloc(size int64, materialize bool) (Buffer, error) {
	if !d.made() {
		return Buffer{}, noDevice("alloc")
	}
	return allocIn(d.mem, d.who, size, materialize)
}

// Free implements Device. Freeing is stream-ordered: work already launched
// keeps the contents it computed on.
func (d *Sim) Free(b Buffer) error {
	if !d.made() {
		if b.IsZero() {
			return nil
		}
		return noDevice("free")
	}
	return freeIn(d.mem, d.who, b)
}

// Owns implements Owner.
func (d *Sim) Owns(b Buffer) bool { return d.made() && d.mem.Check(b.Addr, b.Size) == nil }

// NewStream implements Device.
func (d *Sim) NewStream() Stream {
	if !d.made() {
		return &simStream{dev: d}
	}
	s := &simStream{dev: d, id: int(d.nstreams.Add(1) - 1)}
	if o, ok := d.obs.(NewStreamObserver); ok {
		o.OnNewStream(s.id)
	}
	return s
}

// ReleaseStream implements StreamReleaser: an Observer that is a
// StreamObserver is told.
func (d *Sim) ReleaseStream(s Stream) {
	if !d.made() {
		return
	}
	if ss, ok := s.(*simStream); ok && ss.dev == d {
		if o, ok := d.obs.(StreamObserver); ok {
			o.OnStreamReleased(ss.id)
		}
	}
}

// NewEvent implements Device.
func (d *Sim) NewEvent() Event { return new(ClockEvent) }

// Stats implements Device.
func (d *Sim) Stats() Stats {
	if !d.made() {
		return Stats{}
	}
	return snapshot(d.mem, &d.act)
}

// allocIn allocates from m for a device named name (in errors).
func allocIn(m *account.Memory, name string, size int64, materialize bool) (Buffer, error) {
	addr, n, data, err := m.Alloc(size, materialize)
	if err != nil {
		if errors.Is(err, alloc.ErrOutOfMemory) {
			return Buffer{}, fmt.Errorf("%s: alloc %d bytes: %w: %w", name, size, ErrOutOfMemory, err)
		}
		return Buffer{}, fmt.Errorf("%s: alloc %d bytes: %w", name, size, err)
	}
	return Buffer{Addr: addr, Size: n, Data: data}, nil
}

// freeIn frees b in m; the zero Buffer is a no-op.
func freeIn(m *account.Memory, name string, b Buffer) error {
	if b.IsZero() {
		return nil
	}
	if err := m.Free(b.Addr, b.Size, b.Data); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

func snapshot(m *account.Memory, a *account.Activity) Stats {
	var c account.Counts
	m.Snapshot(&c)
	a.Snapshot(&c)
	return Stats{Kernels: c.Kernels, Copies: c.Copies, BusyNs: c.BusyNs, KernelNs: c.KernelNs,
		MemInUse: c.MemInUse, MemPeak: c.MemPeak, Allocs: c.Allocs, Frees: c.Frees, LastEnd: c.LastEnd}
}

// hostWorkLimit is the longest launch-path delay hostWork spends as CPU
// work; longer ones (a full command ring) are waits.
const hostWorkLimit = 50 * time.Microsecond

// SpendHost holds the calling goroutine for d, the modeled host work of a
// runtime call (an allocation that misses its cache, say): calibrated CPU
// work without yielding up to 50 µs, as the real call would spend it, and
// a wait like clock.WaitUntil beyond.
func SpendHost(d time.Duration) {
	if d > 0 {
		hostWork(clock.Now() + int64(d))
	}
}

// hostWork holds the launching goroutine until about t. A short delay is
// the host's own work in the launch call (building and writing the
// command), so it is spent as calibrated CPU work without yielding, as the
// real call would; a long one is a wait for the device (a full command
// ring) and yields like clock.WaitUntil.
func hostWork(t int64) {
	d := time.Duration(t - clock.Now())
	switch {
	case d <= 0:
	case d <= hostWorkLimit:
		spin.For(d)
	default:
		clock.WaitUntil(context.Background(), t)
	}
}

// simStream is an in-order timeline. busy and the counters are written only
// by the owner goroutine (store-release) and read by anyone (load-acquire).
type simStream struct {
	dev     *Sim
	id      int
	busy    atomic.Int64
	kernels atomic.Int64
	copies  atomic.Int64
	busyNs  atomic.Int64
}

// enqueue places work of duration dur that may start at earliest on the
// timeline, on an engine of eng when the device bounds them, and returns
// its modeled start and end.
func (s *simStream) enqueue(earliest int64, dur time.Duration, eng *engines) (start, end int64) {
	start = max(earliest, s.busy.Load())
	if eng != nil {
		start = eng.take(start, dur)
	}
	end = start + int64(dur)
	s.busy.Store(end)
	s.busyNs.Add(end - start)
	return start, end
}

func (s *simStream) Launch(k Kernel) error {
	if !s.dev.made() {
		return noDevice("launch")
	}
	p := &s.dev.prof
	dur, err := p.launchTime(k.Cost)
	if err != nil {
		return fmt.Errorf("%s: launch %s: %w", s.dev.who, k.Name, err)
	}
	now := clock.Now()
	earliest := now + int64(p.LaunchLatency)
	args, err := p.ArgsTime(k.Args)
	if err != nil {
		return fmt.Errorf("%s: launch %s: %w", s.dev.who, k.Name, err)
	}
	if kl := s.dev.klch; kl != nil {
		var ready int64
		ready, earliest = kl.IssueKernel(now, s.busy.Load(), args, dur)
		if ready > now {
			hostWork(ready)
		}
	} else {
		if l := s.dev.lch; l != nil {
			var ready int64
			ready, earliest = l.Issue(now)
			if ready > now {
				hostWork(ready)
			}
		}
		earliest += int64(args)
	}
	start, end := s.enqueue(earliest, dur, s.dev.compute)
	s.kernels.Add(1)
	s.dev.act.Kernel(start, end)
	if o := s.dev.obs; o != nil {
		o.OnWork(Work{Stream: s.id, Kind: "kernel", Name: k.Name, Start: start, End: end, Flow: k.Flow})
	}
	return nil
}

// Replay implements Replayer: kernel i starts no earlier than the
// submission plus Profile.ReplayFixed + (i+1) × ReplayNode. The host call
// costs nothing beyond its own instructions: the launch path is the
// device's.
func (s *simStream) Replay(ks []Kernel) error {
	if !s.dev.made() {
		return noDevice("replay")
	}
	for i := range ks {
		if err := s.dev.prof.CheckCost(ks[i].Cost); err != nil {
			return &ReplayError{Kernel: i, Err: fmt.Errorf("%s: replay of %s (kernel %d of %d): %w", s.dev.who, ks[i].Name, i, len(ks), err)}
		}
	}
	p := &s.dev.prof
	now := clock.Now()
	t := now + int64(p.ReplayFixed)
	for i := range ks {
		k := &ks[i]
		t += int64(p.ReplayNode)
		start, end := s.enqueue(t, p.KernelTime(k.Cost), s.dev.compute)
		s.kernels.Add(1)
		s.dev.act.Kernel(start, end)
		if o := s.dev.obs; o != nil {
			o.OnWork(Work{Stream: s.id, Kind: "kernel", Name: k.Name, Start: start, End: end, Flow: k.Flow})
		}
	}
	return nil
}

func (s *simStream) copyWork(kind string, l Link, host []byte, n int64) int64 {
	dur := l.Time(n)
	if m := s.dev.cpm; m != nil {
		dur = m.CopyTime(kind, host, n)
	}
	start, end := s.enqueue(clock.Now(), dur, s.dev.copy)
	s.copies.Add(1)
	s.dev.act.Copy(start, end)
	if o := s.dev.obs; o != nil {
		o.OnWork(Work{Stream: s.id, Kind: kind, Name: kind, Start: start, End: end})
	}
	return end
}

// unusable reports a buffer among bufs (the zero Buffer aside) that is not
// allocated memory of this device (another device's, freed, or past the
// end of its block) as an error wrapping ErrBadCopy.
func (d *Sim) unusable(op string, bufs ...Buffer) error {
	if !d.made() {
		return noDevice(op)
	}
	for _, b := range bufs {
		if b.IsZero() {
			continue
		}
		if err := d.mem.Check(b.Addr, b.Size); err != nil {
			return fmt.Errorf("device %s: %s: %w: %w", d.prof.Name, op, ErrBadCopy, err)
		}
	}
	return nil
}

func (s *simStream) CopyH2D(dst Buffer, src []byte) error {
	if err := s.dev.unusable("h2d", dst); err != nil {
		return err
	}
	if int64(len(src)) > dst.Size {
		return fmt.Errorf("device %s: h2d of %d bytes into %d-byte buffer: %w", s.dev.prof.Name, len(src), dst.Size, ErrBadCopy)
	}
	if dst.Data != nil {
		copy(dst.Data, src)
	}
	s.copyWork("h2d", s.dev.prof.H2D, src, int64(len(src)))
	return nil
}

func (s *simStream) CopyD2H(ctx context.Context, dst []byte, src Buffer) error {
	if err := s.dev.unusable("d2h", src); err != nil {
		return err
	}
	if int64(len(dst)) > src.Size {
		return fmt.Errorf("device %s: d2h of %d bytes from %d-byte buffer: %w", s.dev.prof.Name, len(dst), src.Size, ErrBadCopy)
	}
	if len(dst) > 0 && src.Data == nil {
		return fmt.Errorf("device %s: d2h from %#x: %w", s.dev.prof.Name, src.Addr, ErrNotBacked)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	copy(dst, src.Data)
	end := s.copyWork("d2h", s.dev.prof.D2H, dst, int64(len(dst)))
	return clock.WaitUntil(ctx, end)
}

func (s *simStream) CopyD2D(dst, src Buffer) error {
	if err := s.dev.unusable("d2d", dst, src); err != nil {
		return err
	}
	if src.Size > dst.Size {
		return fmt.Errorf("device %s: d2d of %d bytes into %d-byte buffer: %w", s.dev.prof.Name, src.Size, dst.Size, ErrBadCopy)
	}
	if dst.Data != nil && src.Data != nil {
		copy(dst.Data, src.Data)
	}
	s.copyWork("d2d", s.dev.prof.D2D, nil, src.Size)
	return nil
}

func (s *simStream) Record(e Event) { markEvent(e, s.busy.Load()) }

// WaitEvent implements Stream. A nil event, like one never recorded, is
// complete.
func (s *simStream) WaitEvent(e Event) {
	if e == nil {
		return
	}
	if t := e.At(); t > s.busy.Load() {
		s.busy.Store(t)
	}
}

func (s *simStream) Synchronize(ctx context.Context) error {
	return clock.WaitUntil(ctx, s.busy.Load())
}

func (s *simStream) Query() bool { return clock.Now() >= s.busy.Load() }

func (s *simStream) Stats() StreamStats {
	return StreamStats{Kernels: s.kernels.Load(), Copies: s.copies.Load(), BusyNs: s.busyNs.Load(), LastEnd: s.busy.Load()}
}

// ClockEvent is an Event whose completion is a time on the host's monotonic
// clock: the events of Sim and of the host CPU device, which may be recorded
// by a stream of either and waited for by any stream. The zero value is an
// event never recorded, and so is a nil *ClockEvent (which Mark leaves so).
type ClockEvent struct {
	// at is the modeled completion time; 0 means never recorded. Written by
	// the recording stream's owner (store-release), read by anyone
	// (load-acquire).
	at atomic.Int64
}

// Mark records the event as completing at clock time t (at least 1).
func (e *ClockEvent) Mark(t int64) {
	if e != nil {
		e.at.Store(max(t, 1))
	}
}

// Synchronize implements Event.
func (e *ClockEvent) Synchronize(ctx context.Context) error { return clock.WaitUntil(ctx, e.At()) }

// Query implements Event.
func (e *ClockEvent) Query() bool { return clock.Now() >= e.At() }

// At implements Event.
func (e *ClockEvent) At() int64 {
	if e == nil {
		return 0
	}
	return e.at.Load()
}

// marker is an event a stream can record: its completion is a clock time.
type marker interface{ Mark(t int64) }

// markEvent records e as completing at t. Events that are not clock events
// (another implementation's) cannot be recorded by a simulated stream and
// are left as they are.
func markEvent(e Event, t int64) {
	if m, ok := e.(marker); ok {
		m.Mark(t)
	}
}
