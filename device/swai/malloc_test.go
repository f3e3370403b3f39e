package swai

import (
	"errors"
	"testing"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/alloc"
)

func TestMallocTime(t *testing.T) {
	p, g := Default(), GPU()
	const measured = 123 * time.Nanosecond
	// Equation 3: one segment-table entry, CPE memory only.
	if got, want := p.MallocTime(1<<30, CPEMemory, measured), p.Malloc.Host+measured+p.Malloc.Update; got != want {
		t.Errorf("swai cpe: %v, want %v", got, want)
	}
	if got, want := p.MallocTime(1<<30, MPEMemory, measured), p.Malloc.Host+measured; got != want {
		t.Errorf("swai mpe: %v, want %v", got, want)
	}
	// Equation 2: per page.
	if got, want := g.MallocTime(5<<20, CPEMemory, measured), g.Malloc.Host+measured+3*g.Malloc.Update; got != want {
		t.Errorf("gpu 5 MiB: %v, want %v", got, want)
	}
	if got, want := g.MallocTime(0, CPEMemory, 0), g.Malloc.Host+g.Malloc.Update; got != want {
		t.Errorf("gpu 0 bytes: %v, want %v", got, want)
	}
	// Figure 9: sdaaMalloc is flat at about 10 µs; cudaMalloc of large
	// blocks is about 120 times slower.
	for _, s := range PaperSizes() {
		if d := p.MallocTime(s, CPEMemory, 0); d < 9500*time.Nanosecond || d > 10500*time.Nanosecond {
			t.Errorf("sdaaMalloc(%d) = %v, want about 10 µs", s, d)
		}
	}
	if r := float64(g.MallocTime(1<<30, CPEMemory, 0)) / float64(p.MallocTime(1<<30, CPEMemory, 0)); r < 108 || r > 132 {
		t.Errorf("cudaMalloc / sdaaMalloc at 1 GiB = %.1f, want 120 ±10%%", r)
	}
}

func TestMallocHostTime(t *testing.T) {
	p, g := Default(), GPU()
	if got, want := p.MallocHostTime(3*4096+1), p.Malloc.PinFixed+4*p.Malloc.PinPage; got != want {
		t.Errorf("4 pages: %v, want %v", got, want)
	}
	// Figure 9: about 3 times faster than cudaHostAlloc for large blocks,
	// comparable (within 2 times) up to 256 KB.
	if r := float64(g.MallocHostTime(1<<30)) / float64(p.MallocHostTime(1<<30)); r < 2.7 || r > 3.3 {
		t.Errorf("cudaHostAlloc / sdaaMallocHost at 1 GiB = %.2f, want about 3", r)
	}
	for _, s := range []int64{1 << 10, 16 << 10, 256 << 10} {
		if r := float64(g.MallocHostTime(s)) / float64(p.MallocHostTime(s)); r < 0.5 || r > 2 {
			t.Errorf("cudaHostAlloc / sdaaMallocHost at %d = %.2f, want within 2 times", s, r)
		}
	}
}

func TestDeviceMalloc(t *testing.T) {
	d := newTestDevice(t, Default())
	p := d.Config()
	b, dur, err := d.Malloc(1000, MPEMemory, true)
	if err != nil {
		t.Fatal(err)
	}
	if b.IsZero() || b.Size != 1000 || len(b.Data) != 1000 {
		t.Fatalf("buffer %+v", b)
	}
	if dur < p.Malloc.Host {
		t.Errorf("modeled %v below t_host %v", dur, p.Malloc.Host)
	}
	if _, dur2, err := d.Malloc(1000, CPEMemory, false); err != nil || dur2 < p.Malloc.Host+p.Malloc.Update {
		t.Errorf("cpe malloc: %v, %v", dur2, err)
	}
	if st := d.Stats(); st.Allocs != 2 || st.MemInUse != 2000 {
		t.Errorf("stats %+v", st)
	}
	if err := d.Free(b); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.Malloc(-1, CPEMemory, false); !errors.Is(err, alloc.ErrBadSize) {
		t.Errorf("negative size: %v", err)
	}
	if _, _, err := d.Malloc(10, Kind(0), false); err == nil {
		t.Error("zero kind accepted")
	}
	if _, _, err := d.Malloc(64<<30, CPEMemory, false); !errors.Is(err, device.ErrOutOfMemory) {
		t.Errorf("too large: %v", err)
	}
	h, hd, err := d.MallocHost(10000)
	if err != nil || len(h) != 10000 || hd != p.MallocHostTime(10000) {
		t.Errorf("MallocHost: %d bytes, %v, %v", len(h), hd, err)
	}
	if _, _, err := d.MallocHost(-1); err == nil {
		t.Error("negative host size accepted")
	}
}

func TestMeasurePairs(t *testing.T) {
	a, err := newAllocator(AllocReference, 1<<20, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := measurePairs([]kindAllocator{a}, []int64{4096}, 10); err != nil || len(d) != 1 || d[0] <= 0 {
		t.Errorf("measurePairs = %v, %v", d, err)
	}
	if _, err := measurePairs([]kindAllocator{a}, []int64{2 << 20}, 10); !errors.Is(err, alloc.ErrOutOfMemory) {
		t.Errorf("oversized measure: %v", err)
	}
	if st := a.Stats(); st.Allocs < 10 || st.Allocs != st.Frees || st.InUse != 0 {
		t.Errorf("stats after measuring: %+v", st)
	}
	if _, err := newAllocator("buddy", 1<<20, 0); err == nil {
		t.Error("unknown allocator accepted")
	}
}

func TestDeviceAllocators(t *testing.T) {
	d := newTestDevice(t, Default())
	if _, ok := d.heap.a.(*alloc.Multilevel); !ok {
		t.Errorf("swai allocator is %T, want *alloc.Multilevel", d.heap.a)
	}
	g := newTestDevice(t, GPU())
	if a, ok := g.heap.a.(anyKind); !ok {
		t.Errorf("gpu allocator is %T", g.heap.a)
	} else if _, ok := a.Allocator.(*alloc.Caching); !ok {
		t.Errorf("gpu allocator wraps %T, want *alloc.Caching", a.Allocator)
	}
	p := Default()
	p.MemoryBytes = 1<<20 + 1 // not a whole number of pages
	if _, err := New(p, WithCalibration(testCal)); err == nil {
		t.Error("multi-level allocator over a partial page accepted")
	}
}

// Malloc's kind reaches the multi-level allocator: CPE blocks take
// segment-table entries, MPE blocks do not.
func TestMallocKindReachesTheAllocator(t *testing.T) {
	p := Default()
	p.SegmentEntries = 2
	d := newTestDevice(t, p)
	var cpe []device.Buffer
	for range 2 {
		b, _, err := d.Malloc(4096, CPEMemory, false)
		if err != nil {
			t.Fatal(err)
		}
		cpe = append(cpe, b)
	}
	if _, _, err := d.Malloc(4096, CPEMemory, false); !errors.Is(err, device.ErrOutOfMemory) {
		t.Errorf("third CPE block with two segment entries: %v", err)
	}
	if _, err := d.Alloc(4096, false); !errors.Is(err, device.ErrOutOfMemory) {
		t.Errorf("Alloc (CPE memory) with the segment table full: %v", err)
	}
	for range 10 {
		if _, _, err := d.Malloc(4096, MPEMemory, false); err != nil {
			t.Fatalf("MPE block with the segment table full: %v", err)
		}
	}
	if err := d.Free(cpe[0]); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.Malloc(4096, CPEMemory, false); err != nil {
		t.Errorf("CPE block after a free: %v", err)
	}
}
