// Package fault puts a device.Device in a wrapper that injects faults, as
// pebble's errorfs does for file systems: rules pick device calls by kind,
// kernel name, stream and the n-th matching call or a seeded probability,
// and say what goes wrong there.
//
// The faults follow CUDA's: a call that fails (an allocation out of
// memory, a launch or a copy that fails); an asynchronous kernel fault,
// which the call that caused it does not see — the next synchronisation
// reports it, and from then on every call fails (a sticky error) until
// Reset, the cudaDeviceReset analogue, which also frees every buffer; and a
// lost device, on which every call fails until Reset. Freeing never fails:
// a faulted device still takes its memory back.
//
// Holders of device buffers learn of a Reset from Epoch (device.Epocher):
// the actors of package actor re-upload their constants on their next run.
package fault

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/alloc"
	"github.com/pipert/pipert/device/internal/none"
)

// Kind is a kind of device call.
type Kind uint8

// Call kinds.
const (
	Alloc Kind = iota + 1
	Free
	Launch
	CopyH2D
	CopyD2H
	CopyD2D
	// Sync is a stream's or an event's Synchronize.
	Sync
)

var kindNames = [...]string{Alloc: "alloc", Free: "free", Launch: "launch", CopyH2D: "h2d", CopyD2H: "d2h", CopyD2D: "d2d", Sync: "sync"}

func (k Kind) String() string {
	if k >= Alloc && k <= Sync {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Effect is what goes wrong at a call a rule picks.
type Effect uint8

// Effects.
const (
	// Fail makes the call fail: an Alloc with device.ErrOutOfMemory, a
	// Launch with device.ErrLaunchFailed, a copy with device.ErrCopyFailed,
	// a Sync with device.ErrKernelFault (and the device is faulted, as
	// after Async). A Free never fails: a Fail rule on it never fires.
	Fail Effect = iota + 1
	// Async lets the call succeed and faults the device: the next Sync
	// (or device-to-host copy) fails with device.ErrKernelFault, and every
	// call after it too, until Reset.
	Async
	// Lost loses the device: this call and every later one fail with
	// device.ErrDeviceLost until Reset.
	Lost
)

// ErrBadRule: a Rule out of range (a Kind or an Effect that is none of
// the package's, a Prob outside [0, 1], a negative Nth or Stream, an Op
// on a call that is not a Launch).
var ErrBadRule = errors.New("fault: bad rule")

// Rule picks device calls and says what goes wrong at them.
type Rule struct {
	Kind Kind
	// Op, for Launch, is the kernel's name ("" any).
	Op string
	// Stream is the stream's number in creation order, from 1 (0 any);
	// Alloc and Free have none and match any. An event's Synchronize is
	// that of the stream that last recorded the event (none, and so
	// matched only by Stream 0, before one did).
	Stream int
	// Nth fires the rule at the n-th call it matches (from 1), once; with
	// Nth 0 each matching call fires with probability Prob.
	Nth  int64
	Prob float64
	// Effect is what goes wrong (zero: Fail).
	Effect Effect
}

type ruleState struct {
	Rule
	seen int64
}

// check returns an error wrapping ErrBadRule if r is out of range.
func (r Rule) check() error {
	var what string
	switch {
	case r.Kind < Alloc || r.Kind > Sync:
		what = fmt.Sprintf("kind %v", r.Kind)
	case r.Effect > Lost:
		what = fmt.Sprintf("effect %d", r.Effect)
	case !(r.Prob >= 0 && r.Prob <= 1):
		what = fmt.Sprintf("probability %v", r.Prob)
	case r.Nth < 0:
		what = fmt.Sprintf("call number %d", r.Nth)
	case r.Stream < 0:
		what = fmt.Sprintf("stream %d", r.Stream)
	case r.Op != "" && r.Kind != Launch:
		what = fmt.Sprintf("op %q on a %v", r.Op, r.Kind)
	default:
		return nil
	}
	return fmt.Errorf("%w: %s", ErrBadRule, what)
}

// Device is a device with faults injected by rules. It is safe for
// concurrent use, as the device it wraps.
//
// A Device of no device (New of a nil one, or the zero Device) fails every
// call that can fail with an error wrapping device.ErrNoDevice (a Free, as
// the buffer is not one of its own); its Name is "<nil>", its Profile and
// Stats are zero. A nil *Device answers as the zero Device, but for
// SetRules, an error wrapping device.ErrNoDevice. A Device given a rule out of range fails every call but
// Free with an error wrapping ErrBadRule until SetRules gives it valid
// rules.
type Device struct {
	inner device.Device

	mu       sync.Mutex
	rules    []ruleState
	badRules error // the rules given were out of range
	rng      *rand.Rand
	pending  bool  // an asynchronous fault not reported yet
	sticky   error // every call fails with it until Reset
	live     map[uint64]device.Buffer
	epoch    uint64
	streams  int
	injected int64
	calls    [Sync + 1]int64 // by kind
}

var _ device.Device = (*Device)(nil)
var _ device.Epocher = (*Device)(nil)
var _ device.HostAllocator = (*Device)(nil)

// New wraps inner with rules; seed drives the probabilistic ones. A nil
// inner device or a rule out of range is no error here but one of every
// call of the Device (see Device).
func New(inner device.Device, seed uint64, rules ...Rule) *Device {
	// A nil inner is kept: dev stands none.Device in for it, as for the
	// zero Device.
	d := &Device{inner: inner, rng: newRand(seed), live: map[uint64]device.Buffer{}}
	d.SetRules(rules...)
	return d
}

// newRand is the source of the probabilistic rules of a Device of seed.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x6a09e667f3bcc909)) }

// orZero is d, or for a nil d a zero Device, whose answers a nil *Device
// gives (see Device).
func (d *Device) orZero() *Device {
	if d == nil {
		return new(Device)
	}
	return d
}

// dev is the device d wraps: none.Device for a nil one (New's or the zero
// Device's) and for a nil d.
func (d *Device) dev() device.Device {
	if d == nil || d.inner == nil {
		return none.Device{}
	}
	return d.inner
}

// SetRules replaces the rules; their call counts start from zero. A rule
// out of range is an error wrapping ErrBadRule, naming the rule, and every
// call of d but Free fails with it until valid rules are set.
func (d *Device) SetRules(rules ...Rule) error {
	if d == nil {
		return fmt.Errorf("fault: SetRules of a nil Device: %w", device.ErrNoDevice)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.rng == nil { // the zero Device: as New's with seed 0
		d.rng = newRand(0)
	}
	d.rules, d.badRules = d.rules[:0], nil
	for i, r := range rules {
		if err := r.check(); err != nil {
			d.rules = d.rules[:0]
			d.badRules = fmt.Errorf("device %s: rule %d: %w", d.dev().Name(), i, err)
			return d.badRules
		}
		if r.Effect == 0 {
			r.Effect = Fail
		}
		d.rules = append(d.rules, ruleState{Rule: r})
	}
	return nil
}

// Injected is the number of faults injected so far.
func (d *Device) Injected() int64 {
	d = d.orZero()
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.injected
}

// Calls is the number of calls of kind k made so far.
func (d *Device) Calls(k Kind) int64 {
	d = d.orZero()
	d.mu.Lock()
	defer d.mu.Unlock()
	if k < Alloc || k > Sync {
		return 0
	}
	return d.calls[k]
}

// Faulted reports the sticky error the device fails every call with (nil
// when healthy). An asynchronous kernel fault is sticky only once it is
// reported, by the next Sync or device-to-host copy, as CUDA reports one at
// its next synchronizing call: until then Faulted is nil, and a caller
// that recovers a device after a failed run resets it whatever Faulted
// says.
func (d *Device) Faulted() error {
	d = d.orZero()
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sticky
}

// Epoch implements device.Epocher: it counts the Resets.
func (d *Device) Epoch() uint64 {
	d = d.orZero()
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.epoch
}

// Reset clears every fault and frees every buffer allocated through d (the
// rules stay). Buffers held from before are gone: their holders must
// notice the new Epoch. As cudaDeviceReset, it is for a device no work is
// running on: a run in flight across a Reset fails, and its kernels may
// read memory a later allocation reuses (a data race of the caller's);
// reset between runs.
func (d *Device) Reset() error {
	d = d.orZero()
	d.mu.Lock()
	live := d.live
	d.live = map[uint64]device.Buffer{}
	d.pending, d.sticky = false, nil
	d.epoch++
	d.mu.Unlock()
	var errs []error
	for _, b := range live {
		errs = append(errs, d.dev().Free(b))
	}
	return errors.Join(errs...)
}

// check decides what a call of kind k (on stream, running op) meets: nil,
// or the error it fails with.
func (d *Device) check(k Kind, stream int, op string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls[k]++
	if d.badRules != nil {
		return d.badRules
	}
	if d.sticky != nil {
		return d.sticky
	}
	if d.pending && (k == Sync || k == CopyD2H) {
		d.pending = false
		d.sticky = fmt.Errorf("device %s: an earlier kernel faulted: %w", d.dev().Name(), device.ErrKernelFault)
		return d.sticky
	}
	for i := range d.rules {
		r := &d.rules[i]
		if r.Kind != k || r.Op != "" && r.Op != op || r.Stream != 0 && k != Alloc && r.Stream != stream {
			continue
		}
		r.seen++
		fire := r.Nth > 0 && r.seen == r.Nth || r.Nth == 0 && r.Prob > 0 && d.rng.Float64() < r.Prob
		if !fire {
			continue
		}
		d.injected++
		switch r.Effect {
		case Lost:
			d.sticky = fmt.Errorf("device %s: %w (at %v)", d.dev().Name(), device.ErrDeviceLost, k)
			return d.sticky
		case Async:
			d.pending = true
			return nil
		}
		switch k {
		case Alloc:
			return fmt.Errorf("device %s: injected: %w", d.dev().Name(), device.ErrOutOfMemory)
		case Launch:
			return fmt.Errorf("device %s: injected: launch of %s: %w", d.dev().Name(), op, device.ErrLaunchFailed)
		case CopyH2D, CopyD2H, CopyD2D:
			return fmt.Errorf("device %s: injected: %v: %w", d.dev().Name(), k, device.ErrCopyFailed)
		case Sync:
			d.sticky = fmt.Errorf("device %s: a kernel faulted: %w", d.dev().Name(), device.ErrKernelFault)
			return d.sticky
		}
	}
	return nil
}

// Name implements device.Device.
func (d *Device) Name() string { return d.dev().Name() }

// Profile implements device.Device.
func (d *Device) Profile() device.Profile { return d.dev().Profile() }

// Stats implements device.Device.
func (d *Device) Stats() device.Stats { return d.dev().Stats() }

// Alloc implements device.Device.
func (d *Device) Alloc(size int64, materialize bool) (device.Buffer, error) {
	d = d.orZero()
	if err := d.check(Alloc, 0, ""); err != nil {
		return device.Buffer{}, err
	}
	b, err := d.dev().Alloc(size, materialize)
	if err != nil {
		return b, err
	}
	d.mu.Lock()
	d.live[b.Addr] = b
	d.mu.Unlock()
	return b, nil
}

// Owns implements device.Owner: the wrapped device's answer, or true when
// it cannot tell.
func (d *Device) Owns(b device.Buffer) bool {
	o, ok := d.dev().(device.Owner)
	return !ok || o.Owns(b)
}

// Free implements device.Device. It never fails for a fault; a buffer
// Reset already freed is not freed again.
func (d *Device) Free(b device.Buffer) error {
	d = d.orZero()
	if b.IsZero() {
		return nil
	}
	d.mu.Lock()
	live, ok := d.live[b.Addr]
	delete(d.live, b.Addr) // so that a concurrent Reset does not free it too
	epoch := d.epoch
	d.check0(Free)
	d.mu.Unlock()
	if !ok {
		return fmt.Errorf("device %s: free %#x: not allocated (since the last Reset): %w", d.dev().Name(), b.Addr, alloc.ErrForeign)
	}
	if err := d.dev().Free(b); err != nil {
		// Refused (a part of the buffer, say): the buffer is still
		// allocated, to be freed, unless a Reset freed it meanwhile.
		d.mu.Lock()
		if d.epoch == epoch {
			d.live[b.Addr] = live
		}
		d.mu.Unlock()
		return err
	}
	return nil
}

// check0 is check for a Free, which never fails: an Async or Lost rule
// that fires faults the device for the calls after it, a Fail rule does
// not fire. d.mu held.
func (d *Device) check0(k Kind) {
	d.calls[k]++
	if d.sticky != nil {
		return
	}
	for i := range d.rules {
		r := &d.rules[i]
		if r.Kind != k || r.Effect == Fail {
			continue
		}
		r.seen++
		if r.Nth > 0 && r.seen == r.Nth || r.Nth == 0 && r.Prob > 0 && d.rng.Float64() < r.Prob {
			d.injected++
			if r.Effect == Lost {
				d.sticky = fmt.Errorf("device %s: %w (at %v)", d.dev().Name(), device.ErrDeviceLost, k)
			} else {
				d.pending = true
			}
		}
	}
}

// NewStream implements device.Device.
func (d *Device) NewStream() device.Stream {
	d = d.orZero()
	d.mu.Lock()
	d.streams++
	n := d.streams
	d.mu.Unlock()
	s := &stream{d: d, inner: d.dev().NewStream(), n: n}
	if _, ok := s.inner.(device.Replayer); ok {
		return &replayStream{s}
	}
	return s
}

// ReleaseStream implements device.StreamReleaser: it releases the inner
// device's stream.
func (d *Device) ReleaseStream(s device.Stream) {
	switch fs := s.(type) {
	case *stream:
		device.ReleaseStreams(d.dev(), fs.inner)
	case *replayStream:
		device.ReleaseStreams(d.dev(), fs.inner)
	}
}

// MallocHost forwards the inner device's pinned host memory
// (device.HostAllocator); no rule applies to it. An inner device without
// it: an error wrapping errors.ErrUnsupported.
func (d *Device) MallocHost(size int64) ([]byte, time.Duration, error) {
	ha, ok := d.dev().(device.HostAllocator)
	if !ok {
		return nil, 0, fmt.Errorf("fault: device %s: pinned host memory: %w", d.dev().Name(), errors.ErrUnsupported)
	}
	return ha.MallocHost(size)
}

// FreeHost forwards to the inner device (see MallocHost).
func (d *Device) FreeHost(b []byte) error {
	ha, ok := d.dev().(device.HostAllocator)
	if !ok {
		return fmt.Errorf("fault: device %s: pinned host memory: %w", d.dev().Name(), errors.ErrUnsupported)
	}
	return ha.FreeHost(b)
}

// NewEvent implements device.Device.
func (d *Device) NewEvent() device.Event {
	d = d.orZero()
	return &event{d: d, inner: d.dev().NewEvent()}
}

// stream is a stream of a faulty device.
type stream struct {
	d     *Device
	inner device.Stream
	n     int
}

func (s *stream) Launch(k device.Kernel) error {
	if err := s.d.check(Launch, s.n, k.Name); err != nil {
		return err
	}
	return s.inner.Launch(k)
}

func (s *stream) CopyH2D(dst device.Buffer, src []byte) error {
	if err := s.d.check(CopyH2D, s.n, ""); err != nil {
		return err
	}
	return s.inner.CopyH2D(dst, src)
}

func (s *stream) CopyD2H(ctx context.Context, dst []byte, src device.Buffer) error {
	if err := s.d.check(CopyD2H, s.n, ""); err != nil {
		return err
	}
	return s.inner.CopyD2H(ctx, dst, src)
}

func (s *stream) CopyD2D(dst, src device.Buffer) error {
	if err := s.d.check(CopyD2D, s.n, ""); err != nil {
		return err
	}
	return s.inner.CopyD2D(dst, src)
}

func (s *stream) Record(e device.Event) {
	if fe, ok := e.(*event); ok {
		fe.stream.Store(int64(s.n))
	}
	s.inner.Record(unwrap(e))
}
func (s *stream) WaitEvent(e device.Event) { s.inner.WaitEvent(unwrap(e)) }

func (s *stream) Synchronize(ctx context.Context) error {
	if err := s.d.check(Sync, s.n, ""); err != nil {
		return err
	}
	return s.inner.Synchronize(ctx)
}

func (s *stream) Query() bool               { return s.inner.Query() }
func (s *stream) Stats() device.StreamStats { return s.inner.Stats() }

// unwrap is the wrapped device's event behind e (e itself if it is
// another device's).
func unwrap(e device.Event) device.Event {
	if w, ok := e.(*event); ok {
		return w.inner
	}
	return e
}

// replayStream is a stream whose inner stream replays: each kernel of a
// replay meets the Launch rules.
type replayStream struct{ *stream }

func (s *replayStream) Replay(ks []device.Kernel) error {
	for i := range ks {
		if err := s.d.check(Launch, s.n, ks[i].Name); err != nil {
			return &device.ReplayError{Kernel: i, Err: err}
		}
	}
	return s.inner.(device.Replayer).Replay(ks)
}

// event is an event of a faulty device: its Synchronize is a Sync.
type event struct {
	d      *Device
	inner  device.Event
	stream atomic.Int64 // the number of the stream that last recorded it (0: none)
}

func (e *event) Synchronize(ctx context.Context) error {
	if err := e.d.check(Sync, int(e.stream.Load()), ""); err != nil {
		return err
	}
	return e.inner.Synchronize(ctx)
}

func (e *event) Query() bool { return e.inner.Query() }
func (e *event) At() int64   { return e.inner.At() }
