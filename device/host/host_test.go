package host_test

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/host"
	"github.com/pipert/pipert/internal/clock"
)

// recorder is an Observer that keeps every piece of work.
type recorder struct {
	mu   sync.Mutex
	work []device.Work
}

func (r *recorder) OnWork(w device.Work) {
	r.mu.Lock()
	r.work = append(r.work, w)
	r.mu.Unlock()
}

func (r *recorder) all() []device.Work {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]device.Work(nil), r.work...)
}

func newHost(t *testing.T, o host.Options) *host.Device {
	t.Helper()
	d, err := host.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// compute runs work on this goroutine and returns the kernel the runtime
// would launch for it: computed in the interval the work took.
func compute(name string, cost device.Cost, work func()) device.Kernel {
	t0 := clock.Now()
	if work != nil {
		work()
	}
	return device.Kernel{Name: name, Cost: cost, Flow: 7, Computed: device.Interval{Start: t0, End: clock.Now()}}
}

func TestComputedKernelTakesItsRealInterval(t *testing.T) {
	rec := &recorder{}
	d := newHost(t, host.Options{Observer: rec})
	s := d.NewStream()
	var sum float64
	k := compute("Sum", device.Cost{FLOPs: 1e12}, func() {
		for i := range 200000 {
			sum += float64(i)
		}
	})
	if err := s.Launch(k); err != nil {
		t.Fatal(err)
	}
	w := rec.all()
	if len(w) != 1 || w[0].Kind != "kernel" || w[0].Name != "Sum" || w[0].Flow != 7 {
		t.Fatalf("observed %+v", w)
	}
	if w[0].Start != k.Computed.Start || w[0].End != k.Computed.End {
		t.Fatalf("interval [%d, %d], computed [%d, %d]", w[0].Start, w[0].End, k.Computed.Start, k.Computed.End)
	}
	if ss := s.Stats(); ss.LastEnd != w[0].End || ss.Kernels != 1 || ss.BusyNs != w[0].End-w[0].Start {
		t.Fatalf("stream stats %+v, want the kernel's end %d", ss, w[0].End)
	}
	if !s.Query() {
		t.Fatal("synchronous stream not idle after Launch")
	}
	st := d.Stats()
	if st.Kernels != 1 || st.KernelNs != w[0].End-w[0].Start || st.BusyNs != st.KernelNs {
		t.Fatalf("stats %+v, work %+v", st, w[0])
	}
	// A computed kernel is not charged its modeled cost: 1e12 FLOPs would
	// be 500 s on the default profile.
	if st.KernelNs > int64(10*time.Second) {
		t.Fatalf("real kernel charged %v", time.Duration(st.KernelNs))
	}
}

// TestVirtualKernelBurnsCPU checks that a kernel with nothing computed
// burns CPU work on the calling goroutine (the profile's time for its
// cost, as calibrated work) and is accounted with the interval it took.
func TestVirtualKernelBurnsCPU(t *testing.T) {
	p := host.Default()
	p.KernelFixed = 300 * time.Microsecond
	rec := &recorder{}
	d := newHost(t, host.Options{Profile: p, Observer: rec})
	s := d.NewStream()
	cost := device.Cost{FLOPs: 2e5} // 100 µs at 2 GFLOP/s
	for range 2 {
		if err := s.Launch(device.Kernel{Name: "Virtual", Cost: cost}); err != nil {
			t.Fatal(err)
		}
	}
	var sum int64
	for _, w := range rec.all() {
		if w.End <= w.Start {
			t.Fatalf("virtual kernel interval [%d, %d]", w.Start, w.End)
		}
		sum += w.End - w.Start
	}
	if st := d.Stats(); st.Kernels != 2 || st.KernelNs != sum {
		t.Fatalf("stats %+v, intervals sum to %d", st, sum)
	}
}

func TestEventsRecordTheEndOfTheWork(t *testing.T) {
	d := newHost(t, host.Options{})
	s := d.NewStream()
	e := d.NewEvent()
	if !e.Query() || e.At() != 0 {
		t.Fatal("unrecorded event is not complete")
	}
	k := compute("K", device.Cost{}, nil)
	if err := s.Launch(k); err != nil {
		t.Fatal(err)
	}
	s.Record(e)
	if e.At() != k.Computed.End || e.At() != s.Stats().LastEnd {
		t.Fatalf("event at %d, kernel ended at %d, stream stats %+v", e.At(), k.Computed.End, s.Stats())
	}
	if err := e.Synchronize(context.Background()); err != nil || !e.Query() {
		t.Fatalf("event not complete after its work: %v", err)
	}
}

func TestHostStreamWaitsForASimulatedEvent(t *testing.T) {
	prof := device.Default()
	prof.KernelFixed = 2 * time.Millisecond
	sim, err := device.NewSim(device.SimOptions{Profile: prof})
	if err != nil {
		t.Fatal(err)
	}
	ss := sim.NewStream()
	if err := ss.Launch(device.Kernel{Name: "Slow", Cost: device.Cost{}}); err != nil {
		t.Fatal(err)
	}
	se := sim.NewEvent()
	ss.Record(se)

	d := newHost(t, host.Options{})
	hs := d.NewStream()
	hs.WaitEvent(se)
	// Idle is wrong only if the event had not yet completed when Query
	// returned: a goroutine descheduled past the event's time may see the
	// stream idle.
	idle := hs.Query()
	if at := clock.Now(); idle && at < se.At() {
		t.Fatalf("host stream idle %v before the simulated event it waits for", time.Duration(se.At()-at))
	}
	if err := hs.Launch(device.Kernel{Name: "After"}); err != nil { // virtual: starts after the event
		t.Fatal(err)
	}
	if last := hs.Stats().LastEnd; last < se.At() {
		t.Fatalf("host kernel ended at %d, before the device event at %d", last, se.At())
	}
	// And the other way round: a simulated stream waits for a host event.
	he := d.NewEvent()
	hs.Record(he)
	ss2 := sim.NewStream()
	ss2.WaitEvent(he)
	if err := ss2.Launch(device.Kernel{Name: "Later"}); err != nil {
		t.Fatal(err)
	}
	if ss2.Stats().LastEnd <= he.At() {
		t.Fatalf("sim kernel ended at %d, host event at %d", ss2.Stats().LastEnd, he.At())
	}
}

func TestStreamsRecordEachOthersEvents(t *testing.T) {
	sim, err := device.NewSim(device.SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := newHost(t, host.Options{})
	hs := d.NewStream()
	if err := hs.Launch(compute("K", device.Cost{}, nil)); err != nil {
		t.Fatal(err)
	}
	e := sim.NewEvent()
	hs.Record(e)
	if e.At() == 0 || e.At() != hs.Stats().LastEnd {
		t.Fatalf("host stream recorded a simulated event at %d, stream ended at %d", e.At(), hs.Stats().LastEnd)
	}
}

func TestMemoryAccounting(t *testing.T) {
	d := newHost(t, host.Options{})
	a, err := d.Alloc(1000, true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.Alloc(24, false)
	if err != nil {
		t.Fatal(err)
	}
	z, err := d.Alloc(0, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Data) != 1000 || b.Data != nil || a.Addr == b.Addr || z.IsZero() {
		t.Fatalf("buffers %v %v %v", a.Addr, b.Addr, z.Addr)
	}
	if st := d.Stats(); st.MemInUse != 1025 || st.MemPeak != 1025 || st.Allocs != 3 {
		t.Fatalf("stats %+v", st)
	}
	for i := range a.Data {
		a.Data[i] = 0xff
	}
	for _, x := range []device.Buffer{a, b, z} {
		if err := d.Free(x); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Free(a); err == nil {
		t.Fatal("double free accepted")
	}
	if err := d.Free(device.Buffer{}); err != nil {
		t.Fatalf("free of the zero buffer: %v", err)
	}
	if st := d.Stats(); st.MemInUse != 0 || st.MemPeak != 1025 || st.Allocs != 3 || st.Frees != 3 {
		t.Fatalf("stats after the frees %+v", st)
	}
	// A reused backing comes back zeroed.
	c, err := d.Alloc(1000, true)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(c.Data, make([]byte, 1000)) {
		t.Fatal("reused backing not zeroed")
	}
	small := host.Default()
	small.MemoryBytes = 4096
	tiny := newHost(t, host.Options{Profile: small})
	if _, err := tiny.Alloc(8192, false); !errors.Is(err, device.ErrOutOfMemory) {
		t.Fatalf("oversized alloc: %v", err)
	}
}

func TestCopies(t *testing.T) {
	d := newHost(t, host.Options{})
	s := d.NewStream()
	buf, err := d.Alloc(8, true)
	if err != nil {
		t.Fatal(err)
	}
	src := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	if err := s.CopyH2D(buf, src); err != nil {
		t.Fatal(err)
	}
	other, err := d.Alloc(8, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CopyD2D(other, buf); err != nil {
		t.Fatal(err)
	}
	dst := make([]byte, 8)
	if err := s.CopyD2H(context.Background(), dst, other); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dst, src) {
		t.Fatalf("round trip gave %v", dst)
	}
	if st := d.Stats(); st.Copies != 3 {
		t.Fatalf("%d copies counted, want 3", st.Copies)
	}
	if err := s.CopyH2D(buf, make([]byte, 9)); !errors.Is(err, device.ErrBadCopy) {
		t.Fatalf("oversized h2d: %v", err)
	}
	virt, err := d.Alloc(8, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CopyD2H(context.Background(), dst, virt); !errors.Is(err, device.ErrNotBacked) {
		t.Fatalf("d2h from a virtual buffer: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.CopyD2H(ctx, dst, buf); !errors.Is(err, context.Canceled) {
		t.Fatalf("d2h with a cancelled context: %v", err)
	}
}

func TestConcurrentStreams(t *testing.T) {
	d := newHost(t, host.Options{})
	const streams, kernels = 4, 50
	var wg sync.WaitGroup
	for range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := d.NewStream()
			for range kernels {
				b, err := d.Alloc(64, true)
				if err != nil {
					t.Error(err)
					return
				}
				if err := s.Launch(compute("K", device.Cost{}, nil)); err != nil {
					t.Error(err)
				}
				if err := d.Free(b); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	st := d.Stats()
	if st.Kernels != streams*kernels || st.MemInUse != 0 || st.BusyNs > st.KernelNs {
		t.Fatalf("stats %+v", st)
	}
}

func TestMappedMarksItsLiveBuffers(t *testing.T) {
	sim, err := device.NewSim(device.SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := host.Map(sim)
	b, err := m.Alloc(64, true)
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := sim.Alloc(64, true)
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewStream()
	mp, ok := s.(host.Mapper)
	if !ok {
		t.Fatal("stream of a mapped device is not a Mapper")
	}
	if !m.HostMapped(b) || !mp.HostMapped(b) {
		t.Fatal("live buffer not host-mapped")
	}
	if m.HostMapped(foreign) || m.HostMapped(device.Buffer{}) {
		t.Fatal("buffer of another allocation path reported host-mapped")
	}
	// The wrapped device's streams and events still work together.
	e := m.NewEvent()
	if err := s.Launch(device.Kernel{Name: "K", Cost: device.Cost{}}); err != nil {
		t.Fatal(err)
	}
	s.Record(e)
	if err := e.Synchronize(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := m.Free(b); err != nil {
		t.Fatal(err)
	}
	if m.HostMapped(b) {
		t.Fatal("freed buffer still host-mapped")
	}
	if err := m.Free(b); err == nil {
		t.Fatal("double free accepted")
	}
	if _, ok := device.Device(m).(host.Mapper); !ok {
		t.Fatal("Mapped is not a Mapper")
	}
}

// TestMappedMarksPartsOfItsLiveBuffers: a part of a live buffer (a tensor
// a memory plan placed in its arena) is host-mapped; a range that runs
// past the buffer, or lies in a freed one, is not.
func TestMappedMarksPartsOfItsLiveBuffers(t *testing.T) {
	sim, err := device.NewSim(device.SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := host.Map(sim)
	var bufs []device.Buffer
	for _, size := range []int64{256, 64, 1024} {
		b, err := m.Alloc(size, true)
		if err != nil {
			t.Fatal(err)
		}
		bufs = append(bufs, b)
	}
	for _, b := range bufs {
		for _, part := range []device.Buffer{
			{Addr: b.Addr, Size: b.Size},
			{Addr: b.Addr + 16, Size: 16},
			{Addr: b.Addr + uint64(b.Size) - 8, Size: 8},
		} {
			if !m.HostMapped(part) {
				t.Errorf("part [%d, +%d) of live buffer [%d, +%d) not host-mapped", part.Addr, part.Size, b.Addr, b.Size)
			}
		}
		if past := (device.Buffer{Addr: b.Addr + 8, Size: b.Size}); m.HostMapped(past) {
			t.Errorf("range [%d, +%d) past live buffer [%d, +%d) host-mapped", past.Addr, past.Size, b.Addr, b.Size)
		}
	}
	if err := m.Free(bufs[0]); err != nil {
		t.Fatal(err)
	}
	if part := (device.Buffer{Addr: bufs[0].Addr + 16, Size: 16}); m.HostMapped(part) {
		t.Error("part of a freed buffer host-mapped")
	}
	for _, b := range bufs[1:] {
		if err := m.Free(b); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNilEventIsComplete: a host stream waiting for a nil event, like one
// never recorded, waits for nothing; recording one does nothing.
func TestNilEventIsComplete(t *testing.T) {
	d, err := host.New(host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := d.NewStream()
	s.Record(nil)
	s.WaitEvent(nil)
	if err := s.Synchronize(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestCopyD2HStopsWithItsContext checks that a device-to-host copy waiting
// for an event of a long simulated kernel returns its context's error
// when the context ends, not after the kernel.
func TestCopyD2HStopsWithItsContext(t *testing.T) {
	sim, err := device.NewSim(device.SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ss := sim.NewStream()
	if err := ss.Launch(device.Kernel{Name: "Hour", Cost: device.Cost{FLOPs: 3600 * sim.Profile().PeakFLOPS}}); err != nil {
		t.Fatal(err)
	}
	se := sim.NewEvent()
	ss.Record(se)
	d := newHost(t, host.Options{})
	hs := d.NewStream()
	hs.WaitEvent(se)
	b, err := d.Alloc(8, true)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go cancel()
	if err := hs.CopyD2H(ctx, make([]byte, 8), b); !errors.Is(err, context.Canceled) {
		t.Fatalf("CopyD2H behind an hour's kernel, context cancelled: %v, want context.Canceled", err)
	}
}

// TestLaunchRefusesAReversedInterval checks that a kernel computed over an
// interval that ends before it starts is refused, and counts nothing.
func TestLaunchRefusesAReversedInterval(t *testing.T) {
	d := newHost(t, host.Options{})
	s := d.NewStream()
	err := s.Launch(device.Kernel{Name: "Back", Computed: device.Interval{Start: 1000, End: 10}})
	if !errors.Is(err, device.ErrLaunchFailed) {
		t.Fatalf("Launch of a reversed interval: %v, want ErrLaunchFailed", err)
	}
	if st := s.Stats(); st.Kernels != 0 || st.BusyNs != 0 {
		t.Fatalf("stream stats after the refused launch: %+v", st)
	}
}

// reuseDev hands out a freed address again at once, whatever the size,
// and calls onFree (once) right after a free: what a concurrent Alloc on
// another goroutine may do between the wrapped device's Free and the
// Mapped wrapper's own bookkeeping.
type reuseDev struct {
	device.Device
	free   []uint64
	next   uint64
	onFree func()
}

func (d *reuseDev) Alloc(size int64, _ bool) (device.Buffer, error) {
	addr := d.next
	if n := len(d.free); n > 0 {
		addr, d.free = d.free[n-1], d.free[:n-1]
	} else {
		d.next += 1 << 20
	}
	return device.Buffer{Addr: addr, Size: size}, nil
}

func (d *reuseDev) Free(b device.Buffer) error {
	d.free = append(d.free, b.Addr)
	if f := d.onFree; f != nil {
		d.onFree = nil
		f()
	}
	return nil
}

// TestMappedAddressReusedDuringFree: a buffer allocated at the address of
// one being freed, before the free returned, is host-mapped afterwards,
// whatever its size (the wrapper once dropped the new buffer and kept the
// freed one's smaller extent: a virtual operator then failed with
// ErrNotHostMapped, now and then, under load).
func TestMappedAddressReusedDuringFree(t *testing.T) {
	sim, err := device.NewSim(device.SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := &reuseDev{Device: sim, next: 4096}
	m := host.Map(d)
	small, err := m.Alloc(64, false)
	if err != nil {
		t.Fatal(err)
	}
	var big device.Buffer
	d.onFree = func() { big, err = m.Alloc(256, false) }
	if err := m.Free(small); err != nil {
		t.Fatal(err)
	}
	if err != nil || big.Addr != small.Addr {
		t.Fatalf("the test's device did not reuse the address: %v, %v", big, err)
	}
	if !m.HostMapped(big) {
		t.Fatalf("buffer %v allocated while %v was freed is not host-mapped", big, small)
	}
	if err := m.Free(big); err != nil {
		t.Fatal(err)
	}
	if m.HostMapped(big) || m.HostMapped(small) {
		t.Fatal("a freed buffer is still host-mapped")
	}
}
