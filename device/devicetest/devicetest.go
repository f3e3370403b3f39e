// Package devicetest checks that an implementation of device.Device behaves
// as package device documents: the conformance suite every device of
// pipert passes (the simulator, the SW-AI and gpu profiles, the host CPU,
// host-mapped memory, and wrappers around any of them), in the manner of
// testing/fstest.TestFS.
//
//	func TestConformance(t *testing.T) {
//		devicetest.Run(t, func(t *testing.T) device.Device {
//			d, err := mydevice.New()
//			if err != nil {
//				t.Fatal(err)
//			}
//			return d
//		})
//	}
//
// Each check runs as a subtest on a device of its own. Checks that need
// the device to model time (a kernel still running after Launch returned)
// skip themselves on devices whose work is synchronous, such as the host
// CPU.
package devicetest

import (
	"bytes"
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/internal/clock"
)

// Run runs every conformance check, each on a new device from open.
func Run(t *testing.T, open func(t *testing.T) device.Device) {
	t.Helper()
	checks := []struct {
		name string
		f    func(t *testing.T, d device.Device)
	}{
		{"Identity", checkIdentity},
		{"Alloc", checkAlloc},
		{"OutOfMemory", checkOutOfMemory},
		{"Free", checkFree},
		{"ForeignFree", func(t *testing.T, d device.Device) { checkForeignFree(t, d, open(t)) }},
		{"BadCost", checkBadCost},
		{"FreedCopy", checkFreedCopy},
		{"Copies", checkCopies},
		{"CopyErrors", checkCopyErrors},
		{"StreamOrder", checkStreamOrder},
		{"Events", checkEvents},
		{"WaitEvent", checkWaitEvent},
		{"SynchronizeCancel", checkSynchronizeCancel},
		{"StatsSnapshots", checkStatsSnapshots},
		{"Concurrent", checkConcurrent},
		{"ReleaseStream", func(t *testing.T, d device.Device) { checkReleaseStream(t, d, open(t)) }},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			d := open(t)
			if d == nil {
				t.Fatal("open returned a nil device")
			}
			c.f(t, d)
		})
	}
}

// checkReleaseStream: a device.StreamReleaser takes back its own stream
// (the work launched on it before still completes) and ignores another
// device's and nil; other devices are not checked.
func checkReleaseStream(t *testing.T, d, other device.Device) {
	r, ok := d.(device.StreamReleaser)
	if !ok {
		t.Skip("not a device.StreamReleaser")
	}
	s := mustStream(t, d)
	if err := s.Launch(device.Kernel{Name: "k", Cost: device.Cost{FLOPs: 1}}); err != nil {
		t.Fatal(err)
	}
	e := mustEvent(t, d)
	s.Record(e)
	r.ReleaseStream(s)
	r.ReleaseStream(s)
	r.ReleaseStream(mustStream(t, other))
	r.ReleaseStream(nil)
	if err := e.Synchronize(wait(t)); err != nil {
		t.Fatalf("work launched before its stream's release: %v", err)
	}
}

func checkIdentity(t *testing.T, d device.Device) {
	if d.Name() == "" {
		t.Error("Name is empty")
	}
	p := d.Profile()
	if err := p.Validate(); err != nil {
		t.Errorf("Profile does not validate: %v", err)
	}
}

// mustStream returns a new stream of d, failing the check on nil.
func mustStream(t *testing.T, d device.Device) device.Stream {
	t.Helper()
	s := d.NewStream()
	if s == nil {
		t.Fatal("NewStream returned nil")
	}
	return s
}

// mustEvent returns a new event of d, failing the check on nil.
func mustEvent(t *testing.T, d device.Device) device.Event {
	t.Helper()
	e := d.NewEvent()
	if e == nil {
		t.Fatal("NewEvent returned nil")
	}
	return e
}

// waitLimit bounds every wait of a check: a device whose work never
// completes fails the check instead of hanging the suite.
const waitLimit = time.Minute

// wait is the context of a check's waits (copies, synchronisations).
func wait(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	t.Cleanup(cancel)
	return ctx
}

func mustAlloc(t *testing.T, d device.Device, size int64, materialize bool) device.Buffer {
	t.Helper()
	b, err := d.Alloc(size, materialize)
	if err != nil {
		t.Fatalf("Alloc(%d, %v): %v", size, materialize, err)
	}
	if b.Size < size || materialize && int64(len(b.Data)) < size {
		t.Fatalf("Alloc(%d, %v) gave a %d-byte buffer with %d bytes of contents", size, materialize, b.Size, len(b.Data))
	}
	return b
}

func checkAlloc(t *testing.T, d device.Device) {
	before := d.Stats()
	sizes := []int64{1, 7, 64, 4096, 1 << 20}
	seen := map[uint64]bool{}
	var bufs []device.Buffer
	var total int64
	for _, n := range sizes {
		for _, mat := range []bool{false, true} {
			b := mustAlloc(t, d, n, mat)
			switch {
			case b.IsZero():
				t.Fatalf("Alloc(%d) gave the zero buffer", n)
			case seen[b.Addr]:
				t.Fatalf("Alloc(%d) gave address %#x twice", n, b.Addr)
			case b.Size < n:
				t.Fatalf("Alloc(%d) gave a %d-byte buffer", n, b.Size)
			case mat && int64(len(b.Data)) < n:
				t.Fatalf("materialized Alloc(%d) has %d bytes of contents", n, len(b.Data))
			case mat && !bytes.Equal(b.Data[:n], make([]byte, n)):
				t.Fatalf("materialized Alloc(%d) is not zeroed", n)
			case !mat && b.Data != nil:
				t.Fatalf("virtual Alloc(%d) has contents", n)
			case mat != b.Materialized():
				t.Fatalf("Alloc(%d, %v): Materialized() = %v", n, mat, b.Materialized())
			}
			seen[b.Addr] = true
			bufs = append(bufs, b)
			total += b.Size
		}
	}
	z := mustAlloc(t, d, 0, false)
	if z.IsZero() || seen[z.Addr] {
		t.Fatalf("Alloc(0) gave %+v: a zero-size tensor needs an address of its own", z)
	}
	bufs = append(bufs, z)
	total += z.Size
	st := d.Stats()
	if got := st.MemInUse - before.MemInUse; got < total {
		t.Errorf("MemInUse grew by %d after allocating %d bytes", got, total)
	}
	if got := st.Allocs - before.Allocs; got != int64(len(bufs)) {
		t.Errorf("Allocs grew by %d after %d allocations", got, len(bufs))
	}
	if st.MemPeak < st.MemInUse {
		t.Errorf("MemPeak %d below MemInUse %d", st.MemPeak, st.MemInUse)
	}
	// Reused memory comes back zeroed.
	for _, b := range bufs {
		if b.Data != nil {
			for i := range b.Data {
				b.Data[i] = 0xa5
			}
		}
		if err := d.Free(b); err != nil {
			t.Fatalf("Free(%#x): %v", b.Addr, err)
		}
	}
	for _, n := range sizes {
		b := mustAlloc(t, d, n, true)
		if !bytes.Equal(b.Data[:n], make([]byte, n)) {
			t.Fatalf("reallocated Alloc(%d) is not zeroed", n)
		}
		if err := d.Free(b); err != nil {
			t.Fatal(err)
		}
	}
	if after := d.Stats(); after.MemInUse != before.MemInUse {
		t.Errorf("MemInUse %d after freeing everything, %d before", after.MemInUse, before.MemInUse)
	}
}

func checkOutOfMemory(t *testing.T, d device.Device) {
	before := d.Stats()
	for _, huge := range []int64{d.Profile().MemoryBytes + 1, math.MaxInt64 - 1, math.MaxInt64} {
		// The largest sizes overflow any rounding up.
		if _, err := d.Alloc(huge, false); !errors.Is(err, device.ErrOutOfMemory) {
			t.Fatalf("Alloc of %d bytes on a %d-byte device: %v, want ErrOutOfMemory", huge, d.Profile().MemoryBytes, err)
		}
	}
	if after := d.Stats(); after.MemInUse != before.MemInUse {
		t.Errorf("a failed Alloc changed MemInUse from %d to %d", before.MemInUse, after.MemInUse)
	}
	if b, err := d.Alloc(-1, true); err == nil {
		t.Fatalf("Alloc of -1 bytes gave %+v, want an error", b)
	}
	if after := d.Stats(); after.MemInUse != before.MemInUse || after.Allocs != before.Allocs {
		t.Errorf("a refused Alloc changed the device's memory: %+v, before %+v", after, before)
	}
	// The device still works.
	b := mustAlloc(t, d, 64, true)
	if err := d.Free(b); err != nil {
		t.Fatal(err)
	}
}

func checkFree(t *testing.T, d device.Device) {
	if err := d.Free(device.Buffer{}); err != nil {
		t.Errorf("Free of the zero buffer: %v", err)
	}
	b := mustAlloc(t, d, 128, true)
	if err := d.Free(b); err != nil {
		t.Fatal(err)
	}
	if err := d.Free(b); err == nil {
		t.Error("double Free accepted")
	}
	if err := d.Free(device.Buffer{Addr: 0xdead0000, Size: 8}); err == nil {
		t.Error("Free of an address never allocated accepted")
	}
	// A buffer whose Size changed, or a part of one, is not freed, and
	// the buffer stays allocated.
	b = mustAlloc(t, d, 128, false)
	before := d.Stats()
	for _, bad := range []device.Buffer{{Addr: b.Addr, Size: b.Size / 2}, {Addr: b.Addr, Size: b.Size + 64}, {Addr: b.Addr + 64, Size: 64}} {
		if err := d.Free(bad); err == nil {
			t.Errorf("Free of [%#x, +%d) accepted for the buffer [%#x, +%d)", bad.Addr, bad.Size, b.Addr, b.Size)
		}
	}
	if got := d.Stats(); got.MemInUse != before.MemInUse || got.Frees != before.Frees {
		t.Errorf("refused Frees changed the accounting: in use %d → %d, frees %d → %d", before.MemInUse, got.MemInUse, before.Frees, got.Frees)
	}
	if err := d.Free(b); err != nil {
		t.Errorf("Free of the buffer after refused Frees of parts of it: %v", err)
	}
}

// checkForeignFree: Free of another device's buffer is an error and
// leaves this device's buffers and accounting as they were, even when the
// two devices gave the same sizes in the same order (so that a shared
// address space would give both the same addresses).
func checkForeignFree(t *testing.T, d, other device.Device) {
	if other == nil {
		t.Fatal("open returned a nil device")
	}
	mine := mustAlloc(t, d, 256, true)
	theirs := mustAlloc(t, other, 256, true)
	defer func() {
		for _, c := range []struct {
			d device.Device
			b device.Buffer
		}{{d, mine}, {other, theirs}} {
			if err := c.d.Free(c.b); err != nil {
				t.Errorf("Free of its own buffer after a foreign Free: %v", err)
			}
		}
	}()
	s := mustStream(t, d)
	want := bytes.Repeat([]byte{7}, 256)
	if err := s.CopyH2D(mine, want); err != nil {
		t.Fatal(err)
	}
	if o, ok := d.(device.Owner); ok {
		part := device.Buffer{Addr: mine.Addr + 16, Size: 16}
		if !o.Owns(mine) || !o.Owns(part) || o.Owns(theirs) {
			t.Errorf("Owns: own buffer %v, part of it %v, another device's %v; want true, true, false", o.Owns(mine), o.Owns(part), o.Owns(theirs))
		}
	}
	if _, ok := d.(device.Owner); ok {
		// A device that tells its buffers refuses to copy another's.
		if err := s.CopyH2D(theirs, want); !errors.Is(err, device.ErrBadCopy) {
			t.Errorf("CopyH2D into another device's buffer: %v, want ErrBadCopy", err)
		}
		if err := s.CopyD2H(wait(t), make([]byte, 256), theirs); !errors.Is(err, device.ErrBadCopy) {
			t.Errorf("CopyD2H from another device's buffer: %v, want ErrBadCopy", err)
		}
		if err := s.CopyD2D(mine, theirs); !errors.Is(err, device.ErrBadCopy) {
			t.Errorf("CopyD2D from another device's buffer: %v, want ErrBadCopy", err)
		}
	}
	before := d.Stats()
	if err := d.Free(theirs); err == nil {
		t.Fatalf("Free of another device's buffer %#x accepted (own buffer at %#x)", theirs.Addr, mine.Addr)
	}
	if got := d.Stats(); got.MemInUse != before.MemInUse || got.Frees != before.Frees {
		t.Errorf("a refused foreign Free changed the accounting: in use %d → %d, frees %d → %d", before.MemInUse, got.MemInUse, before.Frees, got.Frees)
	}
	// The own buffer is still allocated: a new one does not overlap it.
	fresh := mustAlloc(t, d, 256, true)
	defer func() {
		if err := d.Free(fresh); err != nil {
			t.Error(err)
		}
	}()
	if fresh.Addr < mine.Addr+uint64(mine.Size) && mine.Addr < fresh.Addr+uint64(fresh.Size) {
		t.Errorf("after a refused foreign Free, Alloc gave [%#x, +%d), overlapping the live buffer [%#x, +%d)", fresh.Addr, fresh.Size, mine.Addr, mine.Size)
	}
	expectContents(t, s, mine, want, "after a refused foreign Free")
}

// expectContents checks that buffer b holds want, read back on s.
func expectContents(t *testing.T, s device.Stream, b device.Buffer, want []byte, when string) {
	t.Helper()
	got := make([]byte, len(want))
	if err := s.CopyD2H(wait(t), got, b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("a live buffer's contents changed %s", when)
	}
}

// checkFreedCopy: a device that tells its buffers (device.Owner) does not
// own a freed buffer, and refuses, with ErrBadCopy, a copy into or out of
// a buffer after its Free, or reaching past the end of a live buffer; the
// buffers it holds keep their contents.
func checkFreedCopy(t *testing.T, d device.Device) {
	o, ok := d.(device.Owner)
	if !ok {
		return
	}
	s := mustStream(t, d)
	keep := mustAlloc(t, d, 256, true)
	defer func() {
		if err := d.Free(keep); err != nil {
			t.Error(err)
		}
	}()
	want := bytes.Repeat([]byte{5}, 256)
	if err := s.CopyH2D(keep, want); err != nil {
		t.Fatal(err)
	}
	freed := mustAlloc(t, d, 256, true)
	if err := d.Free(freed); err != nil {
		t.Fatal(err)
	}
	past := device.Buffer{Addr: keep.Addr + 128, Size: keep.Size, Data: keep.Data}
	if o.Owns(freed) || o.Owns(past) {
		t.Errorf("Owns of a freed buffer %v, of a range past a live block's end %v; want false, false", o.Owns(freed), o.Owns(past))
	}
	for _, b := range []device.Buffer{freed, {Addr: freed.Addr + 16, Size: 16}, past} {
		if err := s.CopyH2D(b, make([]byte, 16)); !errors.Is(err, device.ErrBadCopy) {
			t.Errorf("CopyH2D into [%#x, +%d) (freed or past its block): %v, want ErrBadCopy", b.Addr, b.Size, err)
		}
		if err := s.CopyD2H(wait(t), make([]byte, 16), b); !errors.Is(err, device.ErrBadCopy) {
			t.Errorf("CopyD2H from [%#x, +%d) (freed or past its block): %v, want ErrBadCopy", b.Addr, b.Size, err)
		}
		if err := s.CopyD2D(keep, b); !errors.Is(err, device.ErrBadCopy) {
			t.Errorf("CopyD2D from [%#x, +%d) (freed or past its block): %v, want ErrBadCopy", b.Addr, b.Size, err)
		}
		if err := s.CopyD2D(b, device.Buffer{Addr: keep.Addr, Size: 16, Data: keep.Data[:16]}); !errors.Is(err, device.ErrBadCopy) {
			t.Errorf("CopyD2D into [%#x, +%d) (freed or past its block): %v, want ErrBadCopy", b.Addr, b.Size, err)
		}
	}
	expectContents(t, s, keep, want, "after refused copies")
}

// checkBadCost: a kernel whose cost no device can model (negative,
// infinite or NaN, or finite but taking more than a day) is refused with
// ErrLaunchFailed, by Launch and by Replay (a ReplayError naming the
// kernel), as are arguments a launch cannot carry, and the stream stays
// usable.
func checkBadCost(t *testing.T, d device.Device) {
	s := mustStream(t, d)
	for _, c := range []device.Cost{{FLOPs: math.NaN()}, {Bytes: -1}, {FLOPs: math.Inf(1)}, {FLOPs: -1e15, Bytes: -1e12}, {FLOPs: 1e40}, {Bytes: 1e40}} {
		if err := s.Launch(device.Kernel{Name: "bad", Cost: c}); !errors.Is(err, device.ErrLaunchFailed) {
			t.Errorf("Launch of cost %+v: %v, want ErrLaunchFailed", c, err)
		}
		if r, ok := s.(device.Replayer); ok {
			err := r.Replay([]device.Kernel{{Name: "good", Cost: kernelCost(d.Profile(), time.Microsecond)}, {Name: "bad", Cost: c}})
			var re *device.ReplayError
			if !errors.Is(err, device.ErrLaunchFailed) || !errors.As(err, &re) || re.Kernel != 1 {
				t.Errorf("Replay with a second kernel of cost %+v: %v, want ErrLaunchFailed in a ReplayError naming kernel 1", c, err)
			}
		}
	}
	// Arguments a launch cannot carry: negative, or (over a link of a
	// known bandwidth) taking more than a day to send.
	bad := []int64{-1}
	if d.Profile().H2D.Bandwidth > 0 {
		bad = append(bad, math.MaxInt64)
	}
	for _, n := range bad {
		if err := s.Launch(device.Kernel{Name: "bad", Cost: kernelCost(d.Profile(), time.Microsecond), Args: n}); !errors.Is(err, device.ErrLaunchFailed) {
			t.Errorf("Launch with %d bytes of arguments: %v, want ErrLaunchFailed", n, err)
		}
	}
	if err := s.Launch(device.Kernel{Name: "good", Cost: kernelCost(d.Profile(), time.Microsecond)}); err != nil {
		t.Fatalf("Launch after refused ones: %v", err)
	}
	if err := s.Synchronize(wait(t)); err != nil {
		t.Fatalf("Synchronize after refused launches: %v", err)
	}
}

func checkCopies(t *testing.T, d device.Device) {
	s := mustStream(t, d)
	const n = 1000
	src := make([]byte, n)
	for i := range src {
		src[i] = byte(i*7 + 3)
	}
	a := mustAlloc(t, d, n, true)
	b := mustAlloc(t, d, n, true)
	defer d.Free(a)
	defer d.Free(b)
	if err := s.CopyH2D(a, src); err != nil {
		t.Fatal(err)
	}
	if err := s.CopyD2D(b, a); err != nil {
		t.Fatal(err)
	}
	dst := make([]byte, n)
	if err := s.CopyD2H(wait(t), dst, b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dst, src) {
		t.Fatal("H2D, D2D, D2H round trip changed the bytes")
	}
	if err := s.Synchronize(wait(t)); err != nil || !s.Query() {
		t.Fatalf("Synchronize: %v, Query %v", err, s.Query())
	}
	if ss := s.Stats(); ss.Copies != 3 {
		t.Errorf("stream counted %d copies, want 3", ss.Copies)
	}
	// Copies into virtual buffers are modeled and do not fail.
	v := mustAlloc(t, d, n, false)
	defer d.Free(v)
	if err := s.CopyH2D(v, src); err != nil {
		t.Errorf("H2D into a virtual buffer: %v", err)
	}
}

func checkCopyErrors(t *testing.T, d device.Device) {
	s := mustStream(t, d)
	a := mustAlloc(t, d, 8, true)
	v := mustAlloc(t, d, 8, false)
	defer d.Free(a)
	defer d.Free(v)
	if err := s.CopyH2D(a, make([]byte, a.Size+1)); !errors.Is(err, device.ErrBadCopy) {
		t.Errorf("oversized H2D: %v, want ErrBadCopy", err)
	}
	if err := s.CopyD2H(wait(t), make([]byte, a.Size+1), a); !errors.Is(err, device.ErrBadCopy) {
		t.Errorf("oversized D2H: %v, want ErrBadCopy", err)
	}
	big := mustAlloc(t, d, a.Size*4, true)
	defer d.Free(big)
	if err := s.CopyD2D(a, big); !errors.Is(err, device.ErrBadCopy) {
		t.Errorf("oversized D2D: %v, want ErrBadCopy", err)
	}
	if err := s.CopyD2H(wait(t), make([]byte, 8), v); !errors.Is(err, device.ErrNotBacked) {
		t.Errorf("D2H from a virtual buffer: %v, want ErrNotBacked", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.CopyD2H(ctx, make([]byte, 8), a); !errors.Is(err, context.Canceled) {
		t.Errorf("D2H with a cancelled context: %v, want context.Canceled", err)
	}
}

// kernelCost is the cost of a kernel the device models as taking about d.
func kernelCost(p device.Profile, d time.Duration) device.Cost {
	return device.Cost{FLOPs: d.Seconds() * p.PeakFLOPS}
}

func checkStreamOrder(t *testing.T, d device.Device) {
	s := mustStream(t, d)
	before, sb := d.Stats(), s.Stats()
	last := sb.LastEnd
	cost := kernelCost(d.Profile(), 20*time.Microsecond)
	for i := range 20 {
		if err := s.Launch(device.Kernel{Name: "k", Cost: cost, Flow: uint64(i + 1)}); err != nil {
			t.Fatal(err)
		}
		st := s.Stats()
		if st.LastEnd < last {
			t.Fatalf("kernel %d ends at %d, before the previous one at %d", i, st.LastEnd, last)
		}
		last = st.LastEnd
	}
	if err := s.Synchronize(wait(t)); err != nil {
		t.Fatal(err)
	}
	if !s.Query() {
		t.Fatal("Query false after Synchronize")
	}
	st := s.Stats().Sub(sb)
	if st.Kernels != 20 {
		t.Errorf("stream counted %d kernels, want 20", st.Kernels)
	}
	if st.BusyNs <= 0 {
		t.Errorf("stream busy %d ns after 20 kernels", st.BusyNs)
	}
	ds := d.Stats().Sub(before)
	if ds.Kernels != 20 {
		t.Errorf("device counted %d kernels, want 20", ds.Kernels)
	}
	if ds.BusyNs < st.BusyNs {
		t.Errorf("device busy %d ns, less than its one stream's %d", ds.BusyNs, st.BusyNs)
	}
}

func checkEvents(t *testing.T, d device.Device) {
	e := mustEvent(t, d)
	if !e.Query() {
		t.Error("an event never recorded is not complete")
	}
	if err := e.Synchronize(wait(t)); err != nil {
		t.Errorf("Synchronize of an event never recorded: %v", err)
	}
	s := mustStream(t, d)
	if err := s.Launch(device.Kernel{Name: "k", Cost: kernelCost(d.Profile(), 2*time.Millisecond)}); err != nil {
		t.Fatal(err)
	}
	s.Record(e)
	if e.At() < s.Stats().LastEnd {
		t.Errorf("event recorded at %d, before the work it follows ends at %d", e.At(), s.Stats().LastEnd)
	}
	if err := e.Synchronize(wait(t)); err != nil {
		t.Fatal(err)
	}
	if !e.Query() || !s.Query() {
		t.Error("event or stream not complete after the event's Synchronize")
	}
}

func checkWaitEvent(t *testing.T, d device.Device) {
	a, b := mustStream(t, d), mustStream(t, d)
	if err := a.Launch(device.Kernel{Name: "first", Cost: kernelCost(d.Profile(), 3*time.Millisecond)}); err != nil {
		t.Fatal(err)
	}
	e := mustEvent(t, d)
	a.Record(e)
	b.WaitEvent(e)
	if err := b.Launch(device.Kernel{Name: "second"}); err != nil {
		t.Fatal(err)
	}
	if end := b.Stats().LastEnd; end < e.At() {
		t.Errorf("kernel after WaitEvent ends at %d, before the event at %d", end, e.At())
	}
	if err := b.Synchronize(wait(t)); err != nil {
		t.Fatal(err)
	}
	if !e.Query() {
		t.Error("stream that waited for an event finished before it")
	}
}

// checkSynchronizeCancel: a stream's and an event's Synchronize with an
// ended context return its error while the work they wait for runs. Each
// wait is judged by the clock read when it was called against the end of
// that work, so that a device whose work is synchronous, or a goroutine
// descheduled past the kernel's end, may find the work done and return
// nil.
func checkSynchronizeCancel(t *testing.T, d device.Device) {
	s := mustStream(t, d)
	if err := s.Launch(device.Kernel{Name: "long", Cost: kernelCost(d.Profile(), 50*time.Millisecond)}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	end, called := s.Stats().LastEnd, clock.Now()
	cancelledWait(t, "Synchronize", s.Synchronize(ctx), called, end)
	e := mustEvent(t, d)
	s.Record(e)
	called = clock.Now()
	cancelledWait(t, "event Synchronize", e.Synchronize(ctx), called, e.At())
	if err := s.Synchronize(wait(t)); err != nil {
		t.Fatal(err)
	}
}

// cancelledWait checks err, what a wait with an ended context called at
// clock reading called returned for work that ends at end: the context's
// error, or nil if the work had ended before the call.
func cancelledWait(t *testing.T, what string, err error, called, end int64) {
	t.Helper()
	if errors.Is(err, context.Canceled) || err == nil && called >= end {
		return
	}
	t.Errorf("%s with a cancelled context, called %v before the work ends: %v, want context.Canceled", what, time.Duration(end-called), err)
}

func checkStatsSnapshots(t *testing.T, d device.Device) {
	s := mustStream(t, d)
	prev := d.Stats()
	for i := range 10 {
		b := mustAlloc(t, d, 256, i%2 == 0)
		if err := s.CopyH2D(b, make([]byte, 256)); err != nil {
			t.Fatal(err)
		}
		if err := s.Launch(device.Kernel{Name: "k"}); err != nil {
			t.Fatal(err)
		}
		if err := d.Free(b); err != nil {
			t.Fatal(err)
		}
		st := d.Stats()
		for _, c := range []struct {
			name      string
			now, then int64
		}{
			{"Kernels", st.Kernels, prev.Kernels}, {"Copies", st.Copies, prev.Copies},
			{"BusyNs", st.BusyNs, prev.BusyNs}, {"KernelNs", st.KernelNs, prev.KernelNs},
			{"Allocs", st.Allocs, prev.Allocs}, {"Frees", st.Frees, prev.Frees},
			{"MemPeak", st.MemPeak, prev.MemPeak},
		} {
			if c.now < c.then {
				t.Fatalf("Stats.%s went down from %d to %d", c.name, c.then, c.now)
			}
		}
		delta := st.Sub(prev)
		if delta.Kernels != 1 || delta.Copies != 1 || delta.Allocs != 1 || delta.Frees != 1 {
			t.Fatalf("one round's delta %+v, want one kernel, copy, alloc and free", delta)
		}
		prev = st
	}
}

func checkConcurrent(t *testing.T, d device.Device) {
	before := d.Stats()
	const workers, rounds = 4, 25
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, e := d.NewStream(), d.NewEvent()
			if s == nil || e == nil {
				t.Errorf("NewStream %v, NewEvent %v: want both non-nil", s, e)
				return
			}
			src := []byte{byte(w), 1, 2, 3, 4, 5, 6, 7}
			for range rounds {
				b, err := d.Alloc(8, true)
				if err != nil {
					t.Error(err)
					return
				}
				if err := s.CopyH2D(b, src); err != nil {
					t.Error(err)
				}
				if err := s.Launch(device.Kernel{Name: "k"}); err != nil {
					t.Error(err)
				}
				s.Record(e)
				dst := make([]byte, 8)
				if err := s.CopyD2H(wait(t), dst, b); err != nil {
					t.Error(err)
				} else if !bytes.Equal(dst, src) {
					t.Errorf("worker %d read %v back, wrote %v", w, dst, src)
				}
				if err := d.Free(b); err != nil {
					t.Error(err)
				}
			}
			if err := s.Synchronize(wait(t)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	st := d.Stats().Sub(before)
	if st.Kernels != workers*rounds || st.Allocs != workers*rounds || st.Frees != workers*rounds {
		t.Errorf("after %d concurrent rounds: %+v", workers*rounds, st)
	}
	if st.MemInUse != before.MemInUse {
		t.Errorf("MemInUse %d after every buffer was freed, %d before", st.MemInUse, before.MemInUse)
	}
}
