package swai

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/alloc"
	"github.com/pipert/pipert/internal/clock"
	"github.com/pipert/pipert/internal/hostmem"
)

// ErrClosed is returned by the calls of a closed Device.
var ErrClosed = errors.New("swai: device closed")

// Option configures New.
type Option func(*options)

type options struct {
	cal        *Calibration
	obs        device.Observer
	noHostCost bool
}

// WithCalibration makes the device use c instead of measuring the host
// (Calibrate) at start-up: for reproducible models and fast tests.
func WithCalibration(c Calibration) Option { return func(o *options) { o.cal = &c } }

// WithObserver passes o to the simulated device (see device.Observer).
func WithObserver(obs device.Observer) Option { return func(o *options) { o.obs = obs } }

// WithoutHostCost makes calls return as soon as their real work is done:
// launches do not spend O_cpu + O_cmd-tran (they still wait for a full
// command buffer), and Malloc, MallocHost and the Memcpy calls do not wait
// for their modeled duration. The modeled durations, returned and used on
// the device timeline, are unchanged. Use it when the caller already
// accounts for the runtime's host cost.
func WithoutHostCost() Option { return func(o *options) { o.noHostCost = true } }

// Device is the simulated SW-AI card (or, with the GPU profile, its CUDA-like
// comparison). It is a device.Device: the embedded *device.Sim provides
// streams, events and the kernel timeline, with kernel launches going
// through the card's command queue (Ring). On top it offers the SDAA
// runtime's calls with their modeled costs: Malloc, MallocHost, MemcpyH2D,
// MemcpyD2H and MemcpyD2D.
//
// Host cost: unless WithoutHostCost, every call returns when the modeled
// call would (the caller's goroutine waits with device.WaitUntil), so host
// code pays the runtime's costs in real time, as it would on the card.
//
// The run path (the device.Device calls an executable makes) is priced by
// the same models in modeled time only, with no thread of the card
// running (runpath.go): stream copies go through MTMC when the host memory
// is pageable and directly when MallocHost returned it, device-to-device
// copies through the adaptive engine, launches through the command ring,
// and Alloc through a framework's caching layer whose misses call the
// card's allocator and cost the caller sdaaMalloc's modeled time.
//
// The Memcpy calls are synchronous, like sdaaMemcpy, and not ordered with
// the streams: synchronize the streams first when they share buffers. Their
// pageable paths really copy, on the MTMC copy threads, which start with
// the first such copy.
//
// The methods are safe for concurrent use; pageable Memcpy calls run one at
// a time. Allocate through Device, not through the embedded Sim, whose
// allocator Device instruments. Close stops the copy threads. New makes
// one: the zero Device is no card, and its calls fail with
// device.ErrNoDevice; a nil *Device (New's on an error) answers as the
// zero Device.
type Device struct {
	*device.Sim
	prof     Profile
	cal      Calibration
	ring     *Ring
	d2d      D2DTable
	threads  int
	hostCost bool

	heapMu sync.Mutex // held around every allocation: see meter
	heap   *meter
	cache  *frameworkCache
	// Guarded by heapMu: whether the device has allocated yet (the first
	// allocation pays FirstTouch), and the caching layer's misses and
	// their modeled sdaaMalloc time.
	touched  bool
	misses   int64
	missTime time.Duration

	model *copyModel

	copies *copier
	closed atomic.Bool
}

// New returns a card of profile p: it validates p, calibrates the host
// (unless WithCalibration), and builds the allocator, the command queue and
// the D2D table. It starts no thread. Nil options are ignored.
func New(p Profile, opts ...Option) (*Device, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	p.D2D.Engines = slices.Clone(p.D2D.Engines)
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	var cal Calibration
	if o.cal != nil {
		if err := o.cal.validate(); err != nil {
			return nil, err
		}
		cal = *o.cal
	} else {
		cal = Calibrate()
	}
	a, err := newAllocator(p.Allocator, p.MemoryBytes, p.segmentEntries())
	if err != nil {
		return nil, err
	}
	heap := &meter{a: a, kind: CPEMemory}
	cache := newFrameworkCache(heap)
	ring := NewRing(p, p.Launch.Method)
	ring.hostCost = !o.noHostCost
	d2d := NewD2DTable(p, cal)
	model := newCopyModel(p, cal, d2d)
	sim, err := device.NewSim(device.SimOptions{Profile: p.Device(), Allocator: cache, Observer: o.obs, Launcher: ring, Copies: model})
	if err != nil {
		return nil, fmt.Errorf("swai: profile %q: %w", p.Name, err)
	}
	threads := 0
	if p.Transfer.MTMC {
		threads = p.Threads(cal)
	}
	return &Device{
		Sim:      sim,
		prof:     p,
		cal:      cal,
		ring:     ring,
		d2d:      d2d,
		threads:  threads,
		hostCost: !o.noHostCost,
		heap:     heap,
		cache:    cache,
		model:    model,
		copies:   newCopier(p, threads),
	}, nil
}

// errNoCard is the error of SDAA call op on a nil or zero Device.
func errNoCard(op string) error {
	return fmt.Errorf("swai: %s of a nil or zero Device, not made by New: %w", op, device.ErrNoDevice)
}

// card reports whether d is a card New made (not nil, not the zero Device).
func (d *Device) card() bool { return d != nil && d.model != nil }

// sim is d's simulator: nil for a nil or zero Device, whose device.Device
// calls then answer as a nil *device.Sim's (no device). A nil *Device
// cannot reach the embedded Sim's methods through promotion, so Device
// declares each.
func (d *Device) sim() *device.Sim {
	if d == nil {
		return nil
	}
	return d.Sim
}

// Name implements device.Device.
func (d *Device) Name() string { return d.sim().Name() }

// Profile implements device.Device: the card's device profile.
func (d *Device) Profile() device.Profile { return d.sim().Profile() }

// Free implements device.Device.
func (d *Device) Free(b device.Buffer) error { return d.sim().Free(b) }

// Owns implements device.Owner.
func (d *Device) Owns(b device.Buffer) bool { return d.sim().Owns(b) }

// NewStream implements device.Device.
func (d *Device) NewStream() device.Stream { return d.sim().NewStream() }

// ReleaseStream implements device.StreamReleaser.
func (d *Device) ReleaseStream(s device.Stream) { d.sim().ReleaseStream(s) }

// NewEvent implements device.Device.
func (d *Device) NewEvent() device.Event { return d.sim().NewEvent() }

// Stats implements device.Device.
func (d *Device) Stats() device.Stats { return d.sim().Stats() }

// Close stops the copy threads. Later calls of the SDAA API return
// ErrClosed; closing twice is a no-op.
func (d *Device) Close() error {
	if d == nil || d.closed.Swap(true) || d.copies == nil { // nil, closed, or the zero Device
		return nil
	}
	d.copies.close()
	return nil
}

// Config returns the card's profile.
func (d *Device) Config() Profile {
	if d == nil {
		return Profile{}
	}
	p := d.prof
	p.D2D.Engines = slices.Clone(p.D2D.Engines)
	return p
}

// Calibration returns what the card measured on the host at start-up.
func (d *Device) Calibration() Calibration {
	if d == nil {
		return Calibration{}
	}
	return d.cal
}

// Threads is N_t, the number of MTMC copy threads (0 without MTMC).
func (d *Device) Threads() int {
	if d == nil {
		return 0
	}
	return d.threads
}

// Queue is the command queue kernel launches go through.
func (d *Device) Queue() *Ring {
	if d == nil {
		return nil
	}
	return d.ring
}

// D2D returns the card's engine table for device-to-device copies.
func (d *Device) D2D() D2DTable {
	if d == nil {
		return D2DTable{}
	}
	return d.d2d
}

// ChooseD2D returns the engine the adaptive algorithm uses for a copy of
// size bytes and its modeled duration.
func (d *Device) ChooseD2D(size int64) (Engine, time.Duration) { return d.D2D().Choose(size) }

// Alloc implements device.Device: an allocation of CPE memory through the
// framework's caching layer. A block of the same rounded size freed
// earlier costs nothing; a miss calls the card's allocator and costs the
// caller sdaaMalloc's modeled time (MallocTime of the rounded size with the
// allocator's measured time, plus FirstTouch on the device's first
// allocation), spent as host work unless WithoutHostCost.
func (d *Device) Alloc(size int64, materialize bool) (device.Buffer, error) {
	if !d.card() {
		return device.Buffer{}, errNoCard("Alloc")
	}
	b, t, err := d.alloc(size, CPEMemory, materialize, false)
	if err == nil && t > 0 && d.hostCost {
		device.SpendHost(t)
	}
	return b, err
}

// CacheMisses reports how many Alloc calls missed the caching layer and
// their modeled sdaaMalloc time in all.
func (d *Device) CacheMisses() (n int64, modeled time.Duration) {
	if d == nil {
		return 0, 0
	}
	d.heapMu.Lock()
	defer d.heapMu.Unlock()
	return d.misses, d.missTime
}

// alloc allocates through the Sim with the meter set to kind, through the
// caching layer unless direct, and returns the modeled duration of the
// call to the card's allocator (0 for a cache hit).
func (d *Device) alloc(size int64, kind Kind, materialize, direct bool) (device.Buffer, time.Duration, error) {
	d.heapMu.Lock()
	defer d.heapMu.Unlock()
	d.heap.kind = kind
	d.cache.bypass = direct
	b, err := d.Sim.Alloc(size, materialize)
	el, miss, missed := d.heap.elapsed, d.cache.miss, d.cache.missed
	d.heap.kind, d.cache.bypass, d.cache.miss = CPEMemory, false, false
	if err != nil || !direct && !miss {
		return b, 0, err
	}
	if direct {
		missed = size
	}
	t := d.prof.MallocTime(missed, kind, el)
	if !d.touched {
		d.touched = true
		t += d.prof.Malloc.FirstTouch
	}
	if !direct {
		d.misses++
		d.missTime += t
	}
	return b, t, nil
}

// Malloc is sdaaMalloc: it allocates size bytes of device memory of kind
// (materialized: with host-visible contents) with the card's allocator and
// returns the block and the call's modeled duration, MallocTime with the
// allocator's measured time. Free the block with Free.
func (d *Device) Malloc(size int64, kind Kind, materialize bool) (device.Buffer, time.Duration, error) {
	if !d.card() {
		return device.Buffer{}, 0, errNoCard("Malloc")
	}
	start := clock.Now()
	if d.closed.Load() {
		return device.Buffer{}, 0, ErrClosed
	}
	if !validKind(kind) {
		return device.Buffer{}, 0, fmt.Errorf("swai %s: malloc %d bytes: invalid memory kind %d", d.prof.Name, size, int(kind))
	}
	if size < 0 {
		return device.Buffer{}, 0, fmt.Errorf("swai %s: malloc %d bytes: %w", d.prof.Name, size, alloc.ErrBadSize)
	}
	b, t, err := d.alloc(size, kind, materialize, true)
	if err != nil {
		return device.Buffer{}, 0, err
	}
	return b, t, d.wait(context.Background(), start, t)
}

// MallocHost is sdaaMallocHost: it returns size bytes of pinned host memory
// (for Pinned copies) and the call's modeled duration, MallocHostTime.
// Nothing goes to the card. Stream copies from or to it take the pinned
// path until FreeHost releases it (it stays reachable until then). A
// negative size, or one beyond device.MaxMemoryBytes, is an
// alloc.ErrBadSize error; one beyond the host's available memory is a
// device.ErrHostMemory error.
func (d *Device) MallocHost(size int64) ([]byte, time.Duration, error) {
	if !d.card() {
		return nil, 0, errNoCard("MallocHost")
	}
	start := clock.Now()
	if d.closed.Load() {
		return nil, 0, ErrClosed
	}
	if size < 0 || size > device.MaxMemoryBytes {
		return nil, 0, fmt.Errorf("swai %s: malloc host %d bytes: %w", d.prof.Name, size, alloc.ErrBadSize)
	}
	b, err := hostmem.Make(size)
	if err != nil {
		return nil, 0, fmt.Errorf("swai %s: malloc host: %w", d.prof.Name, err)
	}
	d.model.pin(b)
	t := d.prof.MallocHostTime(size)
	return b, t, d.wait(context.Background(), start, t)
}

// FreeHost is sdaaFreeHost: b, which MallocHost returned, is pageable
// memory again for the card's copies.
func (d *Device) FreeHost(b []byte) error {
	if !d.card() {
		return errNoCard("FreeHost")
	}
	if !d.model.unpin(b) {
		return fmt.Errorf("swai %s: free host: %d bytes at %p were not returned by MallocHost", d.prof.Name, len(b), unsafe.SliceData(b))
	}
	return nil
}

// MemcpyH2D is sdaaMemcpy from host to device: it copies src into the start
// of dst (really, when dst is materialized) by path and returns the modeled
// duration. Pageable paths really copy src through the staging buffers. Like
// every copy call, it returns ctx's error at once, copying nothing, when ctx
// is already done.
func (d *Device) MemcpyH2D(ctx context.Context, dst device.Buffer, src []byte, path Path) (time.Duration, error) {
	if !d.card() {
		return 0, errNoCard("MemcpyH2D")
	}
	start := clock.Now()
	if d.closed.Load() {
		return 0, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := d.foreign("h2d", dst); err != nil {
		return 0, err
	}
	if int64(len(src)) > dst.Size {
		return 0, fmt.Errorf("swai %s: h2d of %d bytes into %d-byte buffer: %w", d.prof.Name, len(src), dst.Size, device.ErrBadCopy)
	}
	var dev []byte
	if dst.Data != nil {
		dev = dst.Data[:len(src)]
	}
	t, err := d.transfer(path, true, src, dev)
	if err != nil {
		return 0, fmt.Errorf("swai %s: h2d of %d bytes: %w", d.prof.Name, len(src), err)
	}
	return t, d.wait(ctx, start, t)
}

// MemcpyD2H is sdaaMemcpy from device to host: it copies the start of src
// into dst by path and returns the modeled duration. src must be
// materialized unless dst is empty.
func (d *Device) MemcpyD2H(ctx context.Context, dst []byte, src device.Buffer, path Path) (time.Duration, error) {
	if !d.card() {
		return 0, errNoCard("MemcpyD2H")
	}
	start := clock.Now()
	if d.closed.Load() {
		return 0, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := d.foreign("d2h", src); err != nil {
		return 0, err
	}
	if int64(len(dst)) > src.Size {
		return 0, fmt.Errorf("swai %s: d2h of %d bytes from %d-byte buffer: %w", d.prof.Name, len(dst), src.Size, device.ErrBadCopy)
	}
	if len(dst) > 0 && src.Data == nil {
		return 0, fmt.Errorf("swai %s: d2h from %#x: %w", d.prof.Name, src.Addr, device.ErrNotBacked)
	}
	t, err := d.transfer(path, false, dst, src.Data[:len(dst)])
	if err != nil {
		return 0, fmt.Errorf("swai %s: d2h of %d bytes: %w", d.prof.Name, len(dst), err)
	}
	return t, d.wait(ctx, start, t)
}

// MemcpyD2D is sdaaMemcpy within the card: it copies src into the start of
// dst (really, when both are materialized) with the engine the adaptive
// algorithm chooses, and returns that engine and the modeled duration.
func (d *Device) MemcpyD2D(ctx context.Context, dst, src device.Buffer) (Engine, time.Duration, error) {
	if !d.card() {
		return 0, 0, errNoCard("MemcpyD2D")
	}
	start := clock.Now()
	if d.closed.Load() {
		return 0, 0, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	if err := d.foreign("d2d", dst, src); err != nil {
		return 0, 0, err
	}
	if src.Size > dst.Size {
		return 0, 0, fmt.Errorf("swai %s: d2d of %d bytes into %d-byte buffer: %w", d.prof.Name, src.Size, dst.Size, device.ErrBadCopy)
	}
	if dst.Data != nil && src.Data != nil {
		copy(dst.Data, src.Data)
	}
	e, t := d.d2d.Choose(src.Size)
	return e, t, d.wait(ctx, start, t)
}

// foreign reports a buffer among bufs (the zero Buffer aside) that is not
// allocated memory of the card (another device's, freed, or past the end
// of its block) as an error wrapping device.ErrBadCopy, as the stream
// copies do.
func (d *Device) foreign(op string, bufs ...device.Buffer) error {
	for _, b := range bufs {
		if !b.IsZero() && !d.Owns(b) {
			return fmt.Errorf("swai %s: %s: %w: [%#x, +%d) is not allocated memory of the card", d.prof.Name, op, device.ErrBadCopy, b.Addr, b.Size)
		}
	}
	return nil
}

// transfer moves bytes between host and dev (nil when the device buffer is
// virtual) by path and returns the modeled duration.
func (d *Device) transfer(path Path, h2d bool, host, dev []byte) (time.Duration, error) {
	switch path {
	case Pinned:
		if dev != nil {
			if h2d {
				copy(dev, host)
			} else {
				copy(host, dev)
			}
		}
		return d.prof.PinnedTime(int64(len(host))), nil
	case Pageable:
		return d.copies.pageable(d.prof.Transfer.MTMC, h2d, host, dev)
	case PageableMTMC:
		return d.copies.pageable(true, h2d, host, dev)
	case PageableSingle:
		return d.copies.pageable(false, h2d, host, dev)
	}
	return 0, fmt.Errorf("invalid copy path %d", int(path))
}

// wait blocks until the modeled call that began at start has ended, unless
// the device does not charge host cost.
func (d *Device) wait(ctx context.Context, start int64, t time.Duration) error {
	if !d.hostCost {
		return nil
	}
	return clock.WaitUntil(ctx, start+int64(t))
}
