// Package device is pipert's view of an accelerator: the small interface
// every runtime and op depends on — Device (alloc/free, streams, events, a
// statistics snapshot), Stream (launch, copies, events, synchronisation),
// Event and Buffer — and Sim, a simulated device whose time is modeled, not
// burned. Nothing here knows about kernels: a launch is a Kernel value (a
// name, a cost, a trace flow id), never a callback.
//
// # Time model
//
// Host work is real; device work is modeled. Each Stream keeps a timeline
// anchored to the host's monotonic clock (package internal/clock). A kernel
// launched at host time t starts at max(t + launch latency, the stream's
// busy-until) and ends after its modeled duration: KernelFixed plus the
// roofline of its Cost on the Profile. Copies cost latency + size /
// bandwidth. The device spends no host CPU on that time; a host that waits
// for it (Synchronize, events, device-to-host copies) blocks until the clock
// passes the modeled end, yielding to the goroutines queued on its own
// processor for short waits (internal/clock's yield, which wakes no idle
// processor as runtime.Gosched would) and parking for long ones — never
// with a sub-millisecond time.Sleep, which sleeps about 1 ms on Linux.
//
// # Data
//
// A Buffer may be materialized: backed by host memory holding its real
// contents. The runtime computes a kernel's real results on the host (the
// kernel's Compute) when it launches it, in stream order, so the contents of
// a buffer are those of the last kernel launched before any later one on the
// same stream; the modeled completion time still governs when a host may
// observe results.
//
// # Statistics
//
// Stats and Stream.Stats are snapshots of counters that only grow over the
// device's life (memory in use aside). A runner measures a run by
// subtracting two snapshots (Stats.Sub); nothing ever resets a device, so
// several executables can share one.
//
// Dependency rule: device imports device/alloc, its internal packages,
// internal/clock, internal/spin and internal/hostmem only.
package device

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/pipert/pipert/internal/hostmem"
)

// Errors of the device layer.
var (
	ErrOutOfMemory = errors.New("device: out of memory")
	// ErrHostMemory: host memory for a buffer's contents, or for a tensor,
	// beyond what the machine has available. The allocation is refused
	// before it is made: Go cannot recover from a failed one. A device
	// allocation refused for it wraps ErrOutOfMemory too.
	ErrHostMemory = hostmem.ErrTooLarge
	ErrNotBacked  = errors.New("device: buffer has no host backing")
	// ErrBadCopy: a copy larger than its buffer, or (on a device that
	// tells its buffers, Owner) from or into a buffer that is not
	// allocated memory of the device: another device's, freed, or past
	// the end of its block.
	ErrBadCopy = errors.New("device: bad copy")
	ErrClosed  = errors.New("device: stream closed")
	// ErrLaunchFailed: a kernel launch was refused.
	ErrLaunchFailed = errors.New("device: launch failed")
	// ErrCopyFailed: a copy failed.
	ErrCopyFailed = errors.New("device: copy failed")
	// ErrKernelFault: a kernel faulted on the device; reported at the next
	// synchronisation, and sticky: every call fails until the device is
	// reset.
	ErrKernelFault = errors.New("device: kernel fault")
	// ErrDeviceLost: the device is gone; every call fails until it is
	// reset.
	ErrDeviceLost = errors.New("device: device lost")
	// ErrNoDevice: a wrapper of a device (fault.New, host.Map) was given
	// none, or a Sim was not made by NewSim (a nil or zero one); every
	// call of the wrapper or Sim that can fail fails with it.
	ErrNoDevice = errors.New("device: no device")
)

// Epocher is a device that can be reset (after a sticky fault), which
// frees every buffer: Epoch counts the resets, and a holder of buffers
// that sees it change knows they are gone.
type Epocher interface {
	Epoch() uint64
}

// Cost is a kernel's work, the input of the roofline model.
type Cost struct {
	FLOPs float64 // floating-point (or integer) operations
	Bytes float64 // bytes read and written in device memory
}

// Kernel is one kernel launch as a device sees it: what to call it, how much
// work it is, and how to find it in a trace.
type Kernel struct {
	Name string
	Cost Cost
	// Flow is the kernel's trace flow id (0: not traced); device tracers end
	// the kernel's flow on its device slice.
	Flow uint64
	// Args is the bytes of arguments the launch command carries (a
	// kernel's tiling data, sent with it): they cross the host-to-device
	// link with the command, delaying the kernel's earliest start by
	// Args / H2D.Bandwidth. Negative arguments, or ones that take more
	// than a day to send, fail the launch (ErrLaunchFailed).
	Args int64
	// Computed is the host interval, on the clock of package
	// internal/clock, in which the runtime computed the kernel's real
	// results just before the launch (zero when it computed nothing). A
	// device whose kernels run on the host CPU takes it as the kernel's
	// interval; a simulated accelerator ignores it.
	Computed Interval
}

// Interval is a span of time in nanoseconds on the host's monotonic clock.
type Interval struct{ Start, End int64 }

// Buffer is a block of device memory. It is a value, like a device pointer in
// CUDA, so that allocation does not allocate on the host heap. Data is the
// block's contents when the buffer is materialized and nil otherwise. The zero
// Buffer is "no buffer".
type Buffer struct {
	Addr uint64
	Size int64
	Data []byte
}

// IsZero reports whether b is the zero Buffer.
func (b Buffer) IsZero() bool { return b.Addr == 0 }

// Materialized reports whether b has host-visible contents.
func (b Buffer) Materialized() bool { return b.Data != nil }

// Device is an accelerator (or the host CPU seen as one). Its methods are safe
// for concurrent use. They return in bounded time: the methods without a
// context (Alloc, Free, a Stream's Launch, copies, Record and WaitEvent)
// enqueue or fail, and those with one return when it ends. A runtime
// cannot take back a call that blocks: pipert's single-actor modes wait
// for it, past their run's context (a heterogeneous run abandons the part
// that made it).
type Device interface {
	// Name identifies the device in errors and traces.
	Name() string
	// Profile returns the cost model of the device.
	Profile() Profile
	// Alloc reserves size bytes of device memory; materialize gives the
	// buffer host-visible contents (zeroed). Errors wrap ErrOutOfMemory.
	Alloc(size int64, materialize bool) (Buffer, error)
	// Free releases b. Freeing is stream-ordered: work already launched that
	// uses b is unaffected. Freeing a buffer that is not one of the
	// device's live ones (another device's, a part of one, freed) is an
	// error wrapping alloc.ErrDoubleFree or alloc.ErrForeign.
	Free(b Buffer) error
	// NewStream creates an in-order queue of device work.
	NewStream() Stream
	// NewEvent creates an unrecorded event.
	NewEvent() Event
	// Stats returns a snapshot of the device's accounting since it was made.
	Stats() Stats
}

// Owner is implemented by devices that tell their own buffers from other
// devices' and from freed ones: Owns reports whether b lies in one block
// this device allocated and has not freed. The simulator and the host CPU
// device implement it; the runtime uses it, when a device does, to refuse
// another device's or a freed buffer (Executable.UseWorkspace).
type Owner interface {
	Owns(b Buffer) bool
}

// Stream is an in-order queue of device work. Launch, the copies, Record and
// WaitEvent are called by one goroutine at a time (the stream's owner);
// Synchronize, Query and Stats may be called from any goroutine.
type Stream interface {
	// Launch enqueues the modeled work of kernel k.
	Launch(k Kernel) error
	// CopyH2D enqueues a host-to-device copy; src is read at once.
	CopyH2D(dst Buffer, src []byte) error
	// CopyD2H copies src to dst after all earlier work on the stream and
	// waits for the modeled copy to end, like a synchronous cudaMemcpy.
	CopyD2H(ctx context.Context, dst []byte, src Buffer) error
	// CopyD2D enqueues a device-to-device copy.
	CopyD2D(dst, src Buffer) error
	// Record marks e complete when all work enqueued so far is done.
	Record(e Event)
	// WaitEvent makes later work on this stream wait for e.
	WaitEvent(e Event)
	// Synchronize waits until all enqueued work is done, or ctx is done.
	Synchronize(ctx context.Context) error
	// Query reports whether all enqueued work is done.
	Query() bool
	// Stats returns a snapshot of the stream's accounting since it was made.
	Stats() StreamStats
}

// Event marks a point in a stream. An event never recorded is complete.
type Event interface {
	// Synchronize waits until the recorded work is done, or ctx is done.
	Synchronize(ctx context.Context) error
	// Query reports whether the recorded work is done.
	Query() bool
	// At is the modeled completion time of the recorded work on the host's
	// monotonic clock (0 if never recorded): a stream of another device
	// waiting for the event reads it.
	At() int64
}

// Stats is a snapshot of a device's accounting. Every field but MemInUse
// only grows over the device's life; Sub gives the figures of a period.
type Stats struct {
	Kernels  int64 // kernels launched
	Copies   int64 // copies enqueued
	BusyNs   int64 // modeled time the device had work (union over streams)
	KernelNs int64 // modeled kernel time, summed
	MemInUse int64 // bytes allocated now
	MemPeak  int64 // high-water mark of MemInUse since the device was made
	Allocs   int64 // Alloc calls
	Frees    int64 // Free calls
	// LastEnd is the modeled end of the latest work enqueued (clock time).
	LastEnd int64
}

// Sub returns the figures of the period from snapshot prev to s: counts
// and times are differences; MemInUse, MemPeak and LastEnd are s's.
func (s Stats) Sub(prev Stats) Stats {
	return Stats{
		Kernels: s.Kernels - prev.Kernels, Copies: s.Copies - prev.Copies,
		BusyNs: s.BusyNs - prev.BusyNs, KernelNs: s.KernelNs - prev.KernelNs,
		MemInUse: s.MemInUse, MemPeak: s.MemPeak,
		Allocs: s.Allocs - prev.Allocs, Frees: s.Frees - prev.Frees,
		LastEnd: s.LastEnd,
	}
}

// StreamStats is a snapshot of one stream's accounting: its work is in
// order, so BusyNs is the sum of the work's modeled durations.
type StreamStats struct {
	Kernels, Copies int64
	BusyNs          int64
	// LastEnd is the modeled end of the stream's last work (clock time).
	LastEnd int64
}

// Sub returns the figures of the period from snapshot prev to s.
func (s StreamStats) Sub(prev StreamStats) StreamStats {
	return StreamStats{Kernels: s.Kernels - prev.Kernels, Copies: s.Copies - prev.Copies,
		BusyNs: s.BusyNs - prev.BusyNs, LastEnd: s.LastEnd}
}

// Link models one kind of copy: latency plus size over bandwidth.
type Link struct {
	Latency   time.Duration
	Bandwidth float64 // bytes per second
}

// Time returns the modeled duration of moving n bytes over l.
func (l Link) Time(n int64) time.Duration {
	d := l.Latency
	if l.Bandwidth > 0 {
		d += time.Duration(float64(n) / l.Bandwidth * 1e9)
	}
	return d
}

// Profile is the cost model of a simulated device. Every field is documented
// with the source of its default in Default.
type Profile struct {
	Name          string
	MemoryBytes   int64         // device memory capacity
	LaunchLatency time.Duration // host launch call to earliest device start
	KernelFixed   time.Duration // fixed device time of every kernel
	PeakFLOPS     float64       // operations per second
	MemBandwidth  float64       // device memory bytes per second
	H2D, D2H, D2D Link
	// ComputeEngines and CopyEngines bound how many kernels, and how many
	// copies, run at once across the device's streams (0: no bound, each
	// stream runs as if it had the device to itself). A kernel or copy
	// starts when its stream and an engine are both free.
	ComputeEngines, CopyEngines int
	// ReplayFixed and ReplayNode model the replay of a captured kernel
	// sequence as one submission (Replayer): kernel i of the sequence
	// starts no earlier than ReplayFixed + (i+1) × ReplayNode after the
	// submission, in place of each kernel's LaunchLatency.
	ReplayFixed, ReplayNode time.Duration
}

// errNilProfile is the error of CheckCost and Validate of a nil *Profile.
var errNilProfile = errors.New("device: a nil profile")

// ReplayTime is the launch cost of replaying n captured kernels:
// ReplayFixed + n × ReplayNode.
func (p *Profile) ReplayTime(n int) time.Duration {
	if p == nil {
		return 0
	}
	return p.ReplayFixed + time.Duration(n)*p.ReplayNode
}

// HostAllocator is a Device that allocates pinned host memory: copies
// from or to memory MallocHost returned take its pinned path, without the
// staging a pageable copy needs (the SW-AI card's sdaaMallocHost).
// MallocHost returns the memory and the call's modeled duration; FreeHost
// releases memory MallocHost returned. A runtime that keeps a host buffer
// for asynchronous copies (ATB's host ring of tiling data) allocates it
// here. A wrapper that cannot forward the calls returns an error wrapping
// errors.ErrUnsupported, and the caller stages in pageable memory.
type HostAllocator interface {
	MallocHost(size int64) ([]byte, time.Duration, error)
	FreeHost(b []byte) error
}

// Replayer is a Stream that can submit a captured sequence of kernels at
// once, as a CUDA graph launch or a batch through a command buffer does.
// Replay enqueues the modeled work of ks in order; the launch path costs
// the device Profile.ReplayTime(len(ks)) in all, node by node, instead of
// a launch per kernel. Like Launch, it is called by the stream's owner.
// An error that belongs to one kernel of ks is a *ReplayError naming it,
// so that the caller can report that kernel's node.
type Replayer interface {
	Replay(ks []Kernel) error
}

// ReplayError is a Replayer's error for one kernel of a replay: Kernel is
// its index in the kernels Replay was given, Err what its launch met.
type ReplayError struct {
	Kernel int
	Err    error
}

func (e *ReplayError) Error() string {
	switch {
	case e == nil:
		return "<nil>"
	case e.Err == nil:
		return fmt.Sprintf("device: replay of kernel %d failed", e.Kernel)
	}
	return e.Err.Error()
}

// Unwrap returns Err.
func (e *ReplayError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// KernelTime is the modeled duration of a kernel of cost c: KernelFixed plus
// the roofline max(FLOPs / PeakFLOPS, Bytes / MemBandwidth). A cost Check
// refuses counts as nothing beyond KernelFixed; the roofline is at most
// maxKernelSeconds.
func (p *Profile) KernelTime(c Cost) time.Duration {
	if p == nil {
		return 0
	}
	t := p.roofline(c)
	if c.Check() != nil || !(t > 0) {
		t = 0
	}
	return p.KernelFixed + time.Duration(min(t, maxKernelSeconds)*1e9)
}

// roofline is the seconds c takes on p: max(FLOPs / PeakFLOPS, Bytes /
// MemBandwidth), a rate of 0 counting nothing.
func (p *Profile) roofline(c Cost) float64 {
	var t float64
	if p.PeakFLOPS > 0 {
		t = c.FLOPs / p.PeakFLOPS
	}
	if p.MemBandwidth > 0 {
		t = max(t, c.Bytes/p.MemBandwidth)
	}
	return t
}

// maxKernelSeconds bounds a modeled kernel's roofline time, a day: far
// beyond any kernel, far below time.Duration's range.
const maxKernelSeconds = 86400

// CheckCost reports, as an error wrapping ErrLaunchFailed, a cost Check
// refuses or one whose roofline on p is beyond a day (10^30 operations,
// say: a kernel's bad answer, which would hold the stream busy for as
// long, a cancelled run's successors waiting on it). Devices refuse to
// launch such a kernel.
func (p *Profile) CheckCost(c Cost) error {
	if p == nil {
		return errNilProfile
	}
	_, err := p.launchTime(c)
	return err
}

// launchTime is CheckCost and, for a cost it accepts, KernelTime, with
// one roofline.
func (p *Profile) launchTime(c Cost) (time.Duration, error) {
	if err := c.Check(); err != nil {
		return 0, err
	}
	t := p.roofline(c)
	if t > maxKernelSeconds {
		return 0, fmt.Errorf("%w: cost of %g operations and %g bytes takes more than a day on %s", ErrLaunchFailed, c.FLOPs, c.Bytes, p.Name)
	}
	if !(t > 0) {
		t = 0
	}
	return p.KernelFixed + time.Duration(t*1e9), nil
}

// Check reports a cost no device can model — a negative, infinite or NaN
// count of operations or bytes, a kernel's bad answer — as an error
// wrapping ErrLaunchFailed. Devices refuse to launch such a kernel.
func (c Cost) Check() error {
	if !(c.FLOPs >= 0 && c.Bytes >= 0) || math.IsInf(c.FLOPs, 1) || math.IsInf(c.Bytes, 1) {
		return fmt.Errorf("%w: cost of %g operations and %g bytes", ErrLaunchFailed, c.FLOPs, c.Bytes)
	}
	return nil
}

// ArgsTime is the time n bytes of a launch's arguments (Kernel.Args) take
// to cross the host-to-device link, n / H2D.Bandwidth (0 without a
// bandwidth). Negative arguments, or ones that take more than a day to
// send, are an error wrapping ErrLaunchFailed.
func (p *Profile) ArgsTime(n int64) (time.Duration, error) {
	if n < 0 {
		return 0, fmt.Errorf("%w: %d bytes of arguments", ErrLaunchFailed, n)
	}
	if n == 0 || !(p.H2D.Bandwidth > 0) {
		return 0, nil
	}
	secs := float64(n) / p.H2D.Bandwidth
	if secs > maxKernelSeconds {
		return 0, fmt.Errorf("%w: %d bytes of arguments take more than a day to send", ErrLaunchFailed, n)
	}
	return time.Duration(secs * 1e9), nil
}

// MaxMemoryBytes is the largest device memory a Profile models, 8 TiB:
// each device hands out addresses in a window of its own, 16 TiB wide.
const MaxMemoryBytes = 1 << 43

// MaxProfileDuration bounds a Profile's latencies and fixed costs: beyond
// it, a modeled call is a mistake (a run of such calls would last days).
const MaxProfileDuration = 10 * time.Second

// MinRate bounds a Profile's rates from below (PeakFLOPS in operations,
// MemBandwidth and the links' Bandwidth in bytes, per second): a thousandth
// of the slowest processor or link modeled. The simulated device spends its
// modeled time for real, and below it a kernel of a million operations or
// bytes takes more than a second, so that a run of them seems to hang.
const MinRate = 1e6

// rate reports whether v is a rate a Profile models: finite and at least
// MinRate.
func rate(v float64) bool { return v >= MinRate && !math.IsInf(v, 1) }

// inRange reports whether d is in [0, MaxProfileDuration].
func inRange(d time.Duration) bool { return d >= 0 && d <= MaxProfileDuration }

// Validate reports the first field that makes p unusable, naming it and
// the range it must be in: MemoryBytes in [1, MaxMemoryBytes], the rates
// in [MinRate, +Inf), the latencies and fixed costs in [0,
// MaxProfileDuration], the engine counts in [0, MaxEngines].
func (p *Profile) Validate() error {
	if p == nil {
		return errNilProfile
	}
	if p.MemoryBytes <= 0 || p.MemoryBytes > MaxMemoryBytes {
		return fmt.Errorf("device: profile %q: MemoryBytes %d outside [1, %d]", p.Name, p.MemoryBytes, int64(MaxMemoryBytes))
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"PeakFLOPS", p.PeakFLOPS}, {"MemBandwidth", p.MemBandwidth},
		{"H2D.Bandwidth", p.H2D.Bandwidth}, {"D2H.Bandwidth", p.D2H.Bandwidth}, {"D2D.Bandwidth", p.D2D.Bandwidth},
	} {
		if !rate(f.v) {
			return fmt.Errorf("device: profile %q: %s %g outside [%g, +Inf)", p.Name, f.name, f.v, float64(MinRate))
		}
	}
	for _, f := range []struct {
		name string
		v    time.Duration
	}{
		{"LaunchLatency", p.LaunchLatency}, {"KernelFixed", p.KernelFixed},
		{"H2D.Latency", p.H2D.Latency}, {"D2H.Latency", p.D2H.Latency}, {"D2D.Latency", p.D2D.Latency},
		{"ReplayFixed", p.ReplayFixed}, {"ReplayNode", p.ReplayNode},
	} {
		if !inRange(f.v) {
			return fmt.Errorf("device: profile %q: %s %v outside [0, %v]", p.Name, f.name, f.v, MaxProfileDuration)
		}
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"ComputeEngines", p.ComputeEngines}, {"CopyEngines", p.CopyEngines}} {
		if f.v < 0 || f.v > MaxEngines {
			return fmt.Errorf("device: profile %q: %s %d outside [0, %d]", p.Name, f.name, f.v, MaxEngines)
		}
	}
	return nil
}

// MaxEngines is the most compute or copy engines a Profile models: every
// launch and copy scans them, and far fewer than this make the bound
// vanish already.
const MaxEngines = 4096

// Default is the profile of the simulated SW-AI accelerator card used when
// none is given.
//
//   - MemoryBytes 32 GiB: a typical accelerator card's device memory.
//   - LaunchLatency 2.3 µs: the SDAA fast kernel launch (seed
//     sdaa-swai-runtime, section 4.5: 2.3 µs against 883.6 µs traditional).
//   - KernelFixed 1 µs: start and completion query of the core array.
//   - PeakFLOPS 100 TFLOP/s, MemBandwidth 900 GB/s: "intelligent computing
//     power comparable to the mainstream GPU" (the paper compares a V100:
//     125 TFLOP/s tensor, 900 GB/s HBM2).
//   - H2D/D2H 12 GB/s after 5 µs, D2D 400 GB/s after 3 µs: PCIe 3.0 x16 pinned
//     transfers and on-card copies at the magnitudes of the paper's figure 12.
//   - ReplayFixed 0.8 µs, ReplayNode 1.2 µs: a captured sequence replayed
//     through the single-level command buffer, its commands already
//     resident: the runtime rings one doorbell (O_cpu + O_cmd-tran = 0.5 +
//     0.3 µs of the 2.3 µs fast launch, section 4.5, split as package swai
//     does) and the dispatcher parses and starts each kernel (O_command +
//     O_start = 1.0 + 0.2 µs).
func Default() Profile {
	return Profile{
		Name:          "swai",
		MemoryBytes:   32 << 30,
		LaunchLatency: 2300 * time.Nanosecond,
		KernelFixed:   1 * time.Microsecond,
		PeakFLOPS:     100e12,
		MemBandwidth:  900e9,
		H2D:           Link{Latency: 5 * time.Microsecond, Bandwidth: 12e9},
		D2H:           Link{Latency: 5 * time.Microsecond, Bandwidth: 12e9},
		D2D:           Link{Latency: 3 * time.Microsecond, Bandwidth: 400e9},
		ReplayFixed:   800 * time.Nanosecond,
		ReplayNode:    1200 * time.Nanosecond,
	}
}
