package alloc

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"
)

func newMultilevel(t testing.TB, capacity int64, opts ...MultilevelOption) *Multilevel {
	t.Helper()
	m, err := NewMultilevel(capacity, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustAlloc(t testing.TB, a interface {
	AllocKind(int64, Kind) (uint64, error)
}, size int64, kind Kind) uint64 {
	t.Helper()
	addr, err := a.AllocKind(size, kind)
	if err != nil {
		t.Fatalf("alloc %d %v: %v", size, kind, err)
	}
	return addr
}

func TestMultilevelOptions(t *testing.T) {
	for _, tc := range []struct {
		capacity int64
		opts     []MultilevelOption
		ok       bool
	}{
		{1 << 30, nil, true},
		{64 << 10, nil, true},
		{0, nil, false},
		{-1, nil, false},
		{100 << 10, nil, false}, // not a multiple of 64 KiB
		{1 << 30, []MultilevelOption{WithPageSize(4 << 10)}, true},
		{1 << 30, []MultilevelOption{WithPageSize(2 << 10)}, false},
		{1 << 30, []MultilevelOption{WithPageSize(96 << 10)}, false},
		{4 << 30, []MultilevelOption{WithPageSize(2 << 30)}, false},
		{1 << 30, []MultilevelOption{WithSegmentSize(32 << 10)}, false}, // below the page size
		{1 << 30, []MultilevelOption{WithSegmentSize(3 << 20)}, false},
		{1 << 30, []MultilevelOption{WithPageSize(2 << 20)}, true}, // segment defaults to the page
		{1 << 30, []MultilevelOption{WithSegmentEntries(-1)}, false},
		{1 << 44, []MultilevelOption{WithPageSize(4 << 10)}, false},          // 2^32 pages
		{1 << 30, []MultilevelOption{nil, WithPageSize(4 << 10), nil}, true}, // nil options are ignored
	} {
		m, err := NewMultilevel(tc.capacity, tc.opts...)
		if (err == nil) != tc.ok {
			t.Errorf("NewMultilevel(%d, %d options) = %v, want ok=%v", tc.capacity, len(tc.opts), err, tc.ok)
		}
		if err == nil && m.Stats().Capacity != tc.capacity {
			t.Errorf("capacity %d reported as %d", tc.capacity, m.Stats().Capacity)
		}
	}
	m := newMultilevel(t, 1<<30)
	if m.PageSize() != DefaultPageSize || m.SegmentTable().Entries != DefaultSegmentEntries {
		t.Errorf("defaults: page %d, %d entries", m.PageSize(), m.SegmentTable().Entries)
	}
}

// TestMultilevelDispatch checks which level serves which request: MPE
// requests below half a page share slab pages, CPE requests below half a
// segment share slab segments, larger requests take whole pages.
func TestMultilevelDispatch(t *testing.T) {
	const page = 64 << 10
	m := newMultilevel(t, 64<<20)
	a1 := mustAlloc(t, m, 1000, MPE)
	a2 := mustAlloc(t, m, 1000, MPE)
	if a2-a1 != 1024 || m.Stats().Reserved != page {
		t.Errorf("two 1000-byte blocks at %#x, %#x, reserved %d: want neighbours in one page", a1, a2, m.Stats().Reserved)
	}
	big := mustAlloc(t, m, page/2, MPE) // the paper's threshold: size >= page/2 goes to the bitmap
	if (big-Base)%page != 0 || m.Stats().Reserved != 2*page {
		t.Errorf("32 KiB block at %#x, reserved %d: want a page of its own", big, m.Stats().Reserved)
	}
	c1 := mustAlloc(t, m, 100<<10, CPE) // below half a 1 MiB segment: a CPE slab
	if m.Stats().Reserved != 2*page+1<<20 {
		t.Errorf("CPE 100 KiB: reserved %d, want a 1 MiB segment more", m.Stats().Reserved)
	}
	c2 := mustAlloc(t, m, 100<<10, CPE)
	if c2-c1 != 112<<10 {
		t.Errorf("CPE 100 KiB blocks at %#x, %#x: want 112 KiB (the size class) apart in one segment", c1, c2)
	}
	c3 := mustAlloc(t, m, 600<<10, CPE) // a page run
	if (c3-Base)%page != 0 || m.Stats().Reserved != 2*page+1<<20+640<<10 {
		t.Errorf("CPE 600 KiB at %#x, reserved %d", c3, m.Stats().Reserved)
	}
	if st := m.SegmentTable(); st.Live != 3 || st.Updates != 3 {
		t.Errorf("segment table %+v: want the three CPE blocks", st)
	}
	for _, a := range []uint64{a1, a2, big, c1, c2, c3} {
		if err := m.Free(a); err != nil {
			t.Fatal(err)
		}
	}
	if st := m.SegmentTable(); st.Live != 0 || st.Updates != 6 {
		t.Errorf("segment table %+v after freeing", st)
	}
	if err := m.check(); err != nil {
		t.Fatal(err)
	}
}

// TestMultilevelErrors checks that every bad call fails with the right
// error and changes nothing.
func TestMultilevelErrors(t *testing.T) {
	m := newMultilevel(t, 16<<20, WithSegmentEntries(2))
	small := mustAlloc(t, m, 100, MPE)
	large := mustAlloc(t, m, 200<<10, MPE)
	cpe := mustAlloc(t, m, 5000, CPE)
	freed := mustAlloc(t, m, 300<<10, MPE)
	freedSmall := mustAlloc(t, m, 100, MPE)
	for _, a := range []uint64{freed, freedSmall} {
		if err := m.Free(a); err != nil {
			t.Fatal(err)
		}
	}
	before := m.Stats()
	for _, tc := range []struct {
		name string
		call func() error
		want error
	}{
		{"zero size", func() error { _, err := m.Alloc(0); return err }, ErrBadSize},
		{"negative size", func() error { _, err := m.Alloc(-5); return err }, ErrBadSize},
		{"bad kind", func() error { _, err := m.AllocKind(10, 0); return err }, ErrBadKind},
		{"bad kind 3", func() error { _, err := m.AllocKind(10, 3); return err }, ErrBadKind},
		{"over capacity", func() error { _, err := m.Alloc(16<<20 + 1); return err }, ErrOutOfMemory},
		{"huge", func() error { _, err := m.Alloc(1 << 62); return err }, ErrOutOfMemory},
		{"no run long enough", func() error { _, err := m.Alloc(16 << 20); return err }, ErrOutOfMemory},
		{"double free large", func() error { return m.Free(freed) }, ErrDoubleFree},
		{"double free small", func() error { return m.Free(freedSmall) }, ErrDoubleFree},
		{"inside large", func() error { return m.Free(large + 64<<10) }, ErrForeign},
		{"inside large page", func() error { return m.Free(large + 8) }, ErrForeign},
		{"last page of large", func() error { return m.Free(large + 3*64<<10) }, ErrForeign},
		{"inside a free run", func() error { return m.Free(freed + 2*64<<10) }, ErrDoubleFree},
		{"inside a CPE slab", func() error { return m.Free(cpe + 7*64<<10) }, ErrForeign},
		{"inside small", func() error { return m.Free(small + 1) }, ErrForeign},
		{"never handed out", func() error { return m.Free(small + 10*256) }, ErrForeign},
		{"below base", func() error { return m.Free(Base - 1) }, ErrForeign},
		{"zero", func() error { return m.Free(0) }, ErrForeign},
		{"past the end", func() error { return m.Free(Base + 16<<20) }, ErrForeign},
		{"free page", func() error { return m.Free(Base + 8<<20) }, ErrDoubleFree},
	} {
		if err := tc.call(); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		if after := m.Stats(); after != before {
			t.Errorf("%s changed stats %+v -> %+v", tc.name, before, after)
		}
	}
	// The segment table has two entries: one is taken, so one more CPE
	// block fits and the next fails, changing nothing.
	c2 := mustAlloc(t, m, 1<<20, CPE)
	before = m.Stats()
	seg := m.SegmentTable()
	if _, err := m.AllocKind(10, CPE); !errors.Is(err, ErrOutOfMemory) {
		t.Errorf("CPE alloc with a full segment table: %v", err)
	}
	if m.Stats() != before || m.SegmentTable() != seg {
		t.Errorf("failed CPE alloc changed state")
	}
	if _, err := m.AllocKind(10, MPE); err != nil {
		t.Errorf("MPE alloc with a full segment table: %v", err)
	}
	for _, a := range []uint64{cpe, c2} {
		if err := m.Free(a); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.check(); err != nil {
		t.Fatal(err)
	}
}

// TestMultilevelSpareSlab checks slab recycling: an emptied slab goes back
// to the bitmap unless it is its class's last one, and the kept spare is
// released when the bitmap runs out.
func TestMultilevelSpareSlab(t *testing.T) {
	const page = 64 << 10
	m := newMultilevel(t, 1<<20)
	for range 10 {
		a := mustAlloc(t, m, 1024, MPE)
		if err := m.Free(a); err != nil {
			t.Fatal(err)
		}
		if r := m.Stats().Reserved; r != page {
			t.Fatalf("reserved %d after alloc+free of 1 KiB, want the spare page", r)
		}
	}
	var addrs []uint64
	for range 65 { // 64 per page: the 65th needs a second slab
		addrs = append(addrs, mustAlloc(t, m, 1024, MPE))
	}
	if r := m.Stats().Reserved; r != 2*page {
		t.Fatalf("reserved %d for 65 KiB objects", r)
	}
	for _, a := range addrs {
		if err := m.Free(a); err != nil {
			t.Fatal(err)
		}
	}
	if r := m.Stats().Reserved; r != page {
		t.Fatalf("reserved %d after freeing all: want one spare page", r)
	}
	full := mustAlloc(t, m, 1<<20, MPE) // releases the spare
	if full != Base || m.Stats().Reserved != 1<<20 {
		t.Fatalf("full allocation at %#x, reserved %d", full, m.Stats().Reserved)
	}
	if err := m.check(); err != nil {
		t.Fatal(err)
	}
}

// TestMultilevelSmallestRun checks the level-1 search against a brute-force
// best fit: whenever the classes probed hold at most probeLimit runs, the
// run chosen must be a shortest sufficient one.
func TestMultilevelSmallestRun(t *testing.T) {
	const page = 64 << 10
	const pages = 256
	m := newMultilevel(t, pages*page)
	r := rand.New(rand.NewPCG(5, 5))
	var live []uint64
	exact := 0
	for op := range 20_000 {
		if len(live) > 0 && r.IntN(2) == 0 {
			i := r.IntN(len(live))
			if err := m.Free(live[i]); err != nil {
				t.Fatal(err)
			}
			live[i] = live[len(live)-1]
			live = live[:len(live)-1]
			continue
		}
		n := 1 + r.IntN(12)
		if r.IntN(20) == 0 {
			n = 1 + r.IntN(pages/2)
		}
		// Brute force over the free runs.
		used := m.allocatedPages()
		best, bestLen := -1, 0
		for p := 0; p < pages; {
			if used[p] {
				p++
				continue
			}
			e := p
			for e < pages && !used[e] {
				e++
			}
			if e-p >= n && (best < 0 || e-p < bestLen) {
				best, bestLen = p, e-p
			}
			p = e
		}
		f := m.class(n)
		above := m.runMask &^ (uint64(2)<<f - 1)
		bounded := m.runCount[f] <= probeLimit &&
			(above == 0 || m.runCount[bits.TrailingZeros64(above)] <= probeLimit)
		addr, err := m.Alloc(int64(n) * page)
		if best < 0 {
			if !errors.Is(err, ErrOutOfMemory) {
				t.Fatalf("op %d: %d pages with no run long enough: %v", op, n, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("op %d: %d pages: %v (a run of %d exists)", op, n, err, bestLen)
		}
		live = append(live, addr)
		p := int((addr - Base) / page)
		used = m.allocatedPages()
		// The run the block came from starts at p (blocks take a run's front).
		if !(p == 0 || used[p-1]) {
			t.Fatalf("op %d: block at page %d is not at the front of a run", op, p)
		}
		got := n
		for q := p + n; q < pages && !used[q]; q++ {
			got++
		}
		if bounded {
			exact++
			if got != bestLen {
				t.Fatalf("op %d: %d pages from a run of %d, shortest sufficient run is %d", op, n, got, bestLen)
			}
		}
		if f < m.top && got >= 2*n && m.class(got) == f {
			t.Fatalf("op %d: run of %d for %d pages from the request's own class", op, got, n)
		}
		if op%1000 == 0 {
			if err := m.check(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if exact < 1000 {
		t.Errorf("only %d allocations were checked for exact best fit", exact)
	}
}

// TestMultilevelNoHeapAllocs proves the steady state allocates nothing on
// the Go heap, on every path: slab, page run, CPE of both levels, and a
// slab created and released each time.
func TestMultilevelNoHeapAllocs(t *testing.T) {
	m := newMultilevel(t, 4<<30)
	keep := []uint64{mustAlloc(t, m, 700, MPE), mustAlloc(t, m, 3<<20, MPE), mustAlloc(t, m, 9000, CPE)}
	for _, tc := range []struct {
		size int64
		kind Kind
	}{
		{1 << 10, MPE}, {16 << 10, MPE}, {32 << 10, MPE}, {256 << 10, MPE}, {4 << 20, MPE},
		{64 << 20, MPE}, {1 << 30, MPE}, {2000, CPE}, {300 << 10, CPE}, {8 << 20, CPE},
	} {
		n := testing.AllocsPerRun(1000, func() {
			addr, err := m.AllocKind(tc.size, tc.kind)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Free(addr); err != nil {
				t.Fatal(err)
			}
		})
		if n != 0 {
			t.Errorf("alloc+free of %d %v: %v heap allocations", tc.size, tc.kind, n)
		}
	}
	// Two slabs of one class: filling the second and emptying it creates and
	// releases a slab per round, from recycled descriptors.
	var objs []uint64
	for range 64 {
		objs = append(objs, mustAlloc(t, m, 1024, MPE))
	}
	n := testing.AllocsPerRun(100, func() {
		var extra [64]uint64
		for i := range extra {
			extra[i] = mustAlloc(t, m, 1024, MPE)
		}
		for _, a := range extra {
			if err := m.Free(a); err != nil {
				t.Fatal(err)
			}
		}
	})
	if n != 0 {
		t.Errorf("slab churn: %v heap allocations", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = m.Stats() }); n != 0 {
		t.Errorf("Stats: %v heap allocations", n)
	}
	for _, a := range append(keep, objs...) {
		if err := m.Free(a); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.check(); err != nil {
		t.Fatal(err)
	}
}

func ExampleMultilevel() {
	m, err := NewMultilevel(1<<30, WithPageSize(64<<10))
	if err != nil {
		panic(err)
	}
	small, _ := m.Alloc(1000)            // level 2: a 1 KiB object in a slab page
	large, _ := m.Alloc(1 << 20)         // level 1: 16 pages from the bitmap
	kernel, _ := m.AllocKind(4<<20, CPE) // compute-core memory: one segment-table entry
	// Slabs gather at the top of the space, blocks at the bottom.
	fmt.Println(small > large, m.SegmentTable().Live)
	st := m.Stats()
	fmt.Printf("in use %d, reserved %d KiB\n", st.InUse, st.Reserved>>10)
	for _, a := range []uint64{small, large, kernel} {
		if err := m.Free(a); err != nil {
			panic(err)
		}
	}
	err = m.Free(large)
	fmt.Println(errors.Is(err, ErrDoubleFree))
	// Output:
	// true 1
	// in use 5243880, reserved 5184 KiB
	// true
}

// TestMultilevelSlabsAtTheBack checks that slabs take the back of a free
// run and blocks its front, so that small objects do not split the space
// that large blocks leave when freed.
func TestMultilevelSlabsAtTheBack(t *testing.T) {
	const page = 64 << 10
	m := newMultilevel(t, 16<<20)
	a := mustAlloc(t, m, 3*page, MPE)
	s := mustAlloc(t, m, 100, MPE)
	c := mustAlloc(t, m, 5000, CPE)
	b := mustAlloc(t, m, 2*page, MPE)
	if a != Base || b != Base+3*page {
		t.Errorf("blocks at %#x and %#x, want the front of the space", a, b)
	}
	if s != Base+16<<20-page {
		t.Errorf("MPE object at %#x, want the last page %#x", s, Base+16<<20-page)
	}
	if c != Base+15<<20-page || c >= s {
		t.Errorf("CPE object at %#x, want the segment below the MPE slab, %#x", c, Base+15<<20-page)
	}
	for _, x := range []uint64{a, b} {
		if err := m.Free(x); err != nil {
			t.Fatal(err)
		}
	}
	if f := m.Stats().Fragmentation; f != 0 {
		t.Errorf("fragmentation %v with the blocks freed, want 0: the slabs split the free space", f)
	}
	if err := m.check(); err != nil {
		t.Fatal(err)
	}
}
