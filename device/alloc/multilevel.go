package alloc

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// Kind is the kind of device memory a block lives in. The SW-AI card's
// management core (MPE) addresses memory through pages; its compute cores
// (CPE) address it through a small table of segments, one entry per block.
type Kind uint8

// Memory kinds.
const (
	MPE Kind = 1 + iota // management-core memory: paged
	CPE                 // compute-core memory: segmented
)

func (k Kind) String() string {
	switch k {
	case MPE:
		return "MPE"
	case CPE:
		return "CPE"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// ErrBadKind is returned for a Kind other than MPE or CPE.
var ErrBadKind = errors.New("alloc: unknown memory kind")

// MultilevelOptions configure a Multilevel allocator. Zero fields take the
// defaults below.
type MultilevelOptions struct {
	// PageSize is the level-1 granule: large blocks are whole pages and an
	// MPE slab is one page. A power of two in [4 KiB, 1 GiB]; default 64 KiB.
	PageSize int64
	// SegmentSize is the CPE unit: a CPE slab is one segment. A power of
	// two, at least PageSize, at most 1 GiB; default 1 MiB.
	SegmentSize int64
	// SegmentEntries is the number of entries in the CPE segment table,
	// hence the most CPE blocks live at once; default 4096.
	SegmentEntries int
}

// MultilevelOption sets a field of MultilevelOptions.
type MultilevelOption func(*MultilevelOptions)

// WithPageSize sets MultilevelOptions.PageSize.
func WithPageSize(n int64) MultilevelOption { return func(o *MultilevelOptions) { o.PageSize = n } }

// WithSegmentSize sets MultilevelOptions.SegmentSize.
func WithSegmentSize(n int64) MultilevelOption {
	return func(o *MultilevelOptions) { o.SegmentSize = n }
}

// WithSegmentEntries sets MultilevelOptions.SegmentEntries.
func WithSegmentEntries(n int) MultilevelOption {
	return func(o *MultilevelOptions) { o.SegmentEntries = n }
}

// Defaults for MultilevelOptions.
const (
	DefaultPageSize       = 64 << 10
	DefaultSegmentSize    = 1 << 20
	DefaultSegmentEntries = 4096
)

func (o *MultilevelOptions) validate(capacity int64) error {
	if o.PageSize == 0 {
		o.PageSize = DefaultPageSize
	}
	if o.SegmentSize == 0 {
		o.SegmentSize = max(DefaultSegmentSize, o.PageSize)
	}
	if o.SegmentEntries == 0 {
		o.SegmentEntries = DefaultSegmentEntries
	}
	pow2 := func(n int64) bool { return n > 0 && n&(n-1) == 0 }
	switch {
	case !pow2(o.PageSize) || o.PageSize < 4<<10 || o.PageSize > 1<<30:
		return fmt.Errorf("alloc: multilevel: page size %d is not a power of two in [4 KiB, 1 GiB]", o.PageSize)
	case !pow2(o.SegmentSize) || o.SegmentSize < o.PageSize || o.SegmentSize > 1<<30:
		return fmt.Errorf("alloc: multilevel: segment size %d is not a power of two in [page size %d, 1 GiB]", o.SegmentSize, o.PageSize)
	case o.SegmentEntries < 0 || o.SegmentEntries > math.MaxInt32:
		return fmt.Errorf("alloc: multilevel: %d segment-table entries", o.SegmentEntries)
	case capacity <= 0 || capacity%o.PageSize != 0:
		return fmt.Errorf("alloc: multilevel: capacity %d is not a positive multiple of the page size %d", capacity, o.PageSize)
	case capacity/o.PageSize > math.MaxInt32:
		return fmt.Errorf("alloc: multilevel: capacity %d is more than 2^31 pages of %d bytes", capacity, o.PageSize)
	}
	return nil
}

// Multilevel is the segment/page multi-level allocator of the SW-AI runtime
// (SDAA, algorithm 2): page bitmaps for large requests and size-class free
// lists carved from pages for small ones, for two kinds of memory that share
// one address space.
//
// # Dispatch
//
// A request of size bytes and kind k goes to level 2 if size < unit(k)/2 and
// to level 1 otherwise, where unit(MPE) is the page and unit(CPE) the
// segment (the paper's MPE_PAGE_SIZE/2 and CPE_SEG_SIZE/2). Every successful
// CPE allocation then writes one entry of the segment table (base, size),
// and its free clears it: the table has a fixed number of entries, and a CPE
// request finding it full fails with ErrOutOfMemory.
//
// # Level 1: pages
//
// Allocated units of pages (blocks and slabs) are marked by their edges:
// bit p of edges is set iff page p is the first or the last page of one.
// Marking a unit therefore costs two bits whatever its length, and the
// pages on either side of a unit tell at once whether they are free: the
// page before it is free iff its bit is clear, for it is the last page of
// either a unit or a free run, and likewise the page after it. A block
// takes a run of whole pages, wasting less than a page.
//
// Free pages form maximal runs, indexed by class: the class of a run of l
// pages is ⌊log2 l⌋, except that every run of at least 2^top pages, where
// 2^top is the largest power of two not above half the pages, is in the
// top class. runs[c] is a bitmap (see bitmap for the cache-line layout and
// the word-at-a-time search) with the last page of every free run of class
// c, and runMask has bit c set iff class c is non-empty. A free run's
// length is kept in meta at its first page, and its first page in runStart
// at its last.
//
// Two choices keep the pair of a large block cheap. Runs are indexed by
// their last page, so a run whose front is taken by a block, or grows back
// when that block is freed, stays where it is in its class bitmap: only a
// change of class moves it. And the top class is wide, so the single run
// of a fresh or nearly empty allocator keeps its class across allocations
// of up to half the space, instead of leaving it on every allocation and
// coming back on every free. The top class holds fewer than four runs, so
// it is always searched whole.
//
// Search for n pages (the first-fit / next-fit hybrid). Let f = class(n).
//
//  1. Class f holds runs of length [2^f, 2^(f+1)) (the top class: at
//     least 2^f), some of which may be shorter than n. It is probed
//     next-fit: from a roving per-class cursor, examining up to probeLimit
//     runs (wrapping once), keeping the shortest that fits, stopping early
//     at an exact fit; the cursor then stays there. Next fit because the runs rejected as too short are the ones a
//     first-fit scan would re-walk on every request of this class.
//  2. Otherwise the lowest non-empty class above f (TrailingZeros of
//     runMask) holds only runs that fit. It is probed first-fit: from the
//     lowest address, up to probeLimit runs, shortest wins (ties to the
//     lower address). First fit because nothing there can be rejected, and
//     filling low addresses first keeps the top of the space one long run
//     for huge requests. lowest[c] caches the class's lowest run, so the
//     common case, one run in the class, involves no search: a run's last
//     page only moves over pages where no other run ends (a block freed
//     just after it), so the cache stays right until that run leaves the
//     class.
//
// The chosen run is the shortest of those examined, so it is the smallest
// sufficient run whenever the classes probed hold at most probeLimit runs;
// when found in class f below the top it is also less than twice the
// request. A block takes the front of the run and a slab its back; the
// rest stays a free run. Small objects thus gather at the top of the space
// and large blocks at the bottom, and a freed block is not cut off from the
// free pages beyond it by a slab carved next to it (on the decode
// scenario's allocation trace this takes the mean fragmentation from 0.014
// to 0.005). Every step is a constant number of bitmap searches, so the cost
// does not depend on how many blocks are live, and marking a block costs
// two bits, so it does not depend on its size either.
//
// Rejected: a linear first-fit scan of a bitmap of allocated pages (cost
// grows with the address space and the fragmentation), and exact best fit
// (needs all runs of a class ordered by length; the bound above is kept at
// O(1)).
//
// Free clears the block's edges and merges with the free runs on either
// side: the right one starts at the first page after the block, the left
// one ends just before it, where runStart gives its start. Neither needs a
// search. When both exist the right run absorbs the block and the left
// run, keeping its place in the class bitmaps. A class that loses its last
// run is cleared without emptiness tests (bitmap.clearOnly).
//
// # Level 2: slabs
//
// A slab is one unit (a page for MPE, a segment for CPE) cut into objects
// of one size class (256 B steps up to 1 KiB, then four classes per power
// of two, ≤ 25% rounding waste). Each object has a one-word header, hdr:
// while free it is the index of the next free object (the free list lives
// in the freed memory, as in the paper), while live it holds the request
// size and the segment-table entry. A live bitmap per slab tells a double
// free from a live object. Objects never handed out are taken by a bump
// index, so a new slab costs O(1) plus clearing its live bitmap.
//
// Slabs with a free object form a doubly linked partial list per (kind,
// class). A slab that empties returns its pages to level 1, where they
// merge with their free neighbours — unless it is the only slab on its
// partial list: that one is kept as a spare, so alloc/free of one small
// block does not create and destroy a slab every time. Spares are released
// when level 1 runs out of pages, before the allocation fails.
//
// # Metadata
//
// meta holds one pageMeta per page: for the first page of a block its
// length and slack, for every page of a slab the slab's index, for the first
// page of a free run the run's length; zero elsewhere. A positive n is a
// block's iff the page's edge bit is set. Free checks an address against
// all of this, so a foreign or interior address or a double free is an
// error, never damage. Telling an address inside a free run from one
// inside a block takes a search of every non-empty class, on the error
// path only.
//
// The steady state allocates nothing on the Go heap: all structures are
// sized at construction except the slab descriptors, which are recycled.
//
// NewMultilevel makes one. The zero Multilevel has no memory: its
// allocations fail with ErrOutOfMemory and its frees with ErrForeign; a
// nil *Multilevel (NewMultilevel's on an error) answers as the zero one.
// The bookkeeping costs 16 bytes per page plus one bit per page for the
// edges and for every run class: about 9.5 MiB for 32 GiB of 64 KiB pages.
type Multilevel struct {
	capacity  int64
	pageSize  int64
	pageShift uint
	pages     int

	// Level 1.
	edges    []uint64 // bit p set iff page p is the first or last page of an allocated unit
	runs     []bitmap // by class (see class): last pages of free runs
	runCount []int
	runMask  uint64
	top      int     // the top class
	cursor   []int   // next-fit cursor per class
	lowest   []int32 // per class: the lowest run's last page, or -1 if not known
	meta     []pageMeta
	runStart []int32 // at the last page of each free run: its first page
	nfree    int     // free pages

	// Level 2, indexed by Kind (index 0 unused).
	small     [3]int64   // requests below this go to slabs
	unitPages [3]int     // pages per slab
	partial   [3][]int32 // per class: head of the list of slabs with a free object
	spare     [3][]int32 // per class: the empty slab kept, or -1
	classOf   []uint8    // by (size-1)>>8
	classSize []uint32
	slabs     []slab
	freeSlabs [3][]int32 // recycled slab descriptors

	seg   segTable
	stats Stats
}

// pageMeta is the per-page metadata; see Multilevel.
type pageMeta struct {
	n     int32  // block start: pages; slab page: -(slab+1); free-run start: run length
	slack uint32 // block start: pages*PageSize - requested size
	seg   int32  // block start: segment-table entry + 1, 0 for MPE
}

// probeLimit bounds the runs examined per class in one search.
const probeLimit = 8

// granule is the size-class step and the smallest object.
const granule = 256

// NewMultilevel returns a Multilevel allocator over capacity bytes, which
// must be a multiple of the page size. Nil options are ignored.
func NewMultilevel(capacity int64, opts ...MultilevelOption) (*Multilevel, error) {
	var o MultilevelOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if err := o.validate(capacity); err != nil {
		return nil, err
	}
	pages := int(capacity / o.PageSize)
	nclass := bits.Len(uint(pages))
	m := &Multilevel{
		capacity:  capacity,
		pageSize:  o.PageSize,
		pageShift: uint(bits.TrailingZeros64(uint64(o.PageSize))),
		pages:     pages,
		edges:     make([]uint64, (pages+63)/64),
		runs:      make([]bitmap, nclass),
		top:       max(nclass-2, 0),
		runCount:  make([]int, nclass),
		cursor:    make([]int, nclass),
		lowest:    make([]int32, nclass),
		meta:      make([]pageMeta, pages),
		runStart:  make([]int32, pages),
		nfree:     pages,
		seg:       newSegTable(o.SegmentEntries),
		stats:     Stats{Capacity: capacity},
	}
	for c := range m.runs {
		m.runs[c] = newBitmap(pages)
		m.lowest[c] = -1
	}
	m.addRun(0, pages)

	m.small[MPE], m.unitPages[MPE] = o.PageSize/2, 1
	m.small[CPE], m.unitPages[CPE] = o.SegmentSize/2, int(o.SegmentSize/o.PageSize)
	maxSmall := max(m.small[MPE], m.small[CPE])
	m.classSize = sizeClasses(maxSmall)
	m.classOf = make([]uint8, maxSmall/granule)
	c := 0
	for i := range m.classOf {
		for int64(m.classSize[c]) < int64(i+1)*granule {
			c++
		}
		m.classOf[i] = uint8(c)
	}
	for _, k := range []Kind{MPE, CPE} {
		m.partial[k] = make([]int32, len(m.classSize))
		m.spare[k] = make([]int32, len(m.classSize))
		for c := range m.classSize {
			m.partial[k][c], m.spare[k][c] = -1, -1
		}
	}
	return m, nil
}

// sizeClasses returns the object sizes up to limit (a power of two >= 1 KiB):
// 256 B steps to 1 KiB, then four per power of two.
func sizeClasses(limit int64) []uint32 {
	var cs []uint32
	for s := int64(granule); s <= 1024; s += granule {
		cs = append(cs, uint32(s))
	}
	for base := int64(1024); base < limit; base *= 2 {
		for j := int64(1); j <= 4; j++ {
			cs = append(cs, uint32(base+base*j/4))
		}
	}
	return cs
}

// PageSize returns the level-1 page size.
func (m *Multilevel) PageSize() int64 {
	if m == nil {
		return 0
	}
	return m.pageSize
}

// Alloc implements Allocator; it allocates MPE memory.
func (m *Multilevel) Alloc(size int64) (uint64, error) { return m.AllocKind(size, MPE) }

// AllocKind reserves at least size bytes of the given kind. Errors wrap
// ErrBadSize, ErrBadKind or ErrOutOfMemory (also when the segment table is
// full); a failed call leaves every block as it was, though it may have
// released cached empty slabs.
func (m *Multilevel) AllocKind(size int64, kind Kind) (uint64, error) {
	if m == nil {
		m = new(Multilevel) // the zero Multilevel's answer
	}
	if size <= 0 {
		return 0, fmt.Errorf("%w: %d", ErrBadSize, size)
	}
	if kind != MPE && kind != CPE {
		return 0, fmt.Errorf("%w: %d", ErrBadKind, uint8(kind))
	}
	var seg int32 // entry + 1, 0 for MPE
	if kind == CPE {
		if len(m.seg.free) == 0 {
			return 0, fmt.Errorf("%w: %d bytes of CPE memory: segment table full (%d entries)",
				ErrOutOfMemory, size, len(m.seg.entries))
		}
		seg = m.seg.free[len(m.seg.free)-1] + 1
	}
	var addr uint64
	ok := false
	if size < m.small[kind] {
		addr, ok = m.allocSmall(size, kind, seg)
	} else if size <= m.capacity {
		addr, ok = m.allocLarge(size, seg)
	}
	if !ok {
		return 0, fmt.Errorf("%w: %d bytes of %v memory, %d of %d bytes reserved",
			ErrOutOfMemory, size, kind, m.stats.Reserved, m.capacity)
	}
	if seg != 0 {
		m.seg.put(addr, size)
	}
	m.stats.Allocs++
	m.stats.InUse += size
	m.stats.Peak = max(m.stats.Peak, m.stats.InUse)
	return addr, nil
}

// Free implements Allocator.
func (m *Multilevel) Free(addr uint64) error {
	if m == nil {
		m = new(Multilevel)
	}
	if addr < Base || addr-Base >= uint64(m.capacity) {
		return fmt.Errorf("%w: %#x is outside [%#x, %#x)", ErrForeign, addr, Base, Base+uint64(m.capacity))
	}
	off := addr - Base
	p := int(off >> m.pageShift)
	md := m.meta[p]
	var size int64
	var seg int32
	switch {
	case md.n < 0:
		var err error
		if size, seg, err = m.freeSmall(int32(-md.n-1), addr); err != nil {
			return err
		}
	case md.n > 0 && m.edge(p) && off&uint64(m.pageSize-1) == 0:
		size, seg = int64(md.n)<<m.pageShift-int64(md.slack), md.seg
		m.meta[p] = pageMeta{}
		m.releasePages(p, int(md.n))
	case m.inFreeRun(p):
		return fmt.Errorf("%w: %#x is in a free page", ErrDoubleFree, addr)
	default:
		return fmt.Errorf("%w: %#x is inside a block", ErrForeign, addr)
	}
	if seg != 0 {
		m.seg.remove(seg - 1)
	}
	m.stats.Frees++
	m.stats.InUse -= size
	return nil
}

// Stats implements Allocator. Fragmentation is measured over level-1 pages:
// free objects inside slabs count as reserved. It costs a scan of the runs
// in the highest non-empty class.
func (m *Multilevel) Stats() Stats {
	if m == nil {
		return Stats{}
	}
	st := m.stats
	if m.nfree > 0 {
		h := 63 - bits.LeadingZeros64(m.runMask)
		largest := 0
		for e := m.runs[h].next(0); e >= 0; e = m.runs[h].next(e + 1) {
			largest = max(largest, e+1-int(m.runStart[e]))
		}
		st.Fragmentation = 1 - float64(largest)/float64(m.nfree)
	}
	return st
}

// SegmentTableStats describe the CPE segment table.
type SegmentTableStats struct {
	Entries int   // size of the table
	Live    int   // entries describing live CPE blocks
	Updates int64 // entries written (set or cleared) so far
}

// SegmentTable reports the CPE segment table's state.
func (m *Multilevel) SegmentTable() SegmentTableStats {
	if m == nil {
		return SegmentTableStats{}
	}
	return SegmentTableStats{
		Entries: len(m.seg.entries),
		Live:    len(m.seg.entries) - len(m.seg.free),
		Updates: m.seg.updates,
	}
}

func (m *Multilevel) addrOf(page int) uint64 { return Base + uint64(page)<<m.pageShift }

// allocLarge serves a level-1 request.
func (m *Multilevel) allocLarge(size int64, seg int32) (uint64, bool) {
	n := int((size + m.pageSize - 1) >> m.pageShift)
	p := m.takePages(n, false)
	if p < 0 {
		return 0, false
	}
	m.meta[p] = pageMeta{n: int32(n), slack: uint32(int64(n)<<m.pageShift - size), seg: seg}
	return m.addrOf(p), true
}

// takePages allocates a run of n pages, the front of a free run or with
// back its back, and returns its first page, or -1.
// When no run is long enough it releases the spare slabs and tries again.
func (m *Multilevel) takePages(n int, back bool) int {
	if n > m.nfree {
		if !m.releaseSpares() || n > m.nfree {
			return -1
		}
	}
	s := m.findRun(n)
	if s < 0 {
		if !m.releaseSpares() {
			return -1
		}
		if s = m.findRun(n); s < 0 {
			return -1
		}
	}
	l := int(m.meta[s].n)
	if back && l > n {
		// The back of the run: its front keeps its place, the class
		// bitmap moves the run's end.
		m.growRun(s, s, l, l-n)
		s += l - n
	} else {
		m.shrinkRun(s, l, n)
	}
	m.markUnit(s, n)
	m.nfree -= n
	m.stats.Reserved += int64(n) << m.pageShift
	m.stats.PeakReserved = max(m.stats.PeakReserved, m.stats.Reserved)
	return s
}

// releasePages returns pages [p, p+n) to level 1, merging with the free runs
// on either side. meta of the block's pages must already be zero.
func (m *Multilevel) releasePages(p, n int) {
	m.unmarkUnit(p, n)
	m.nfree += n
	m.stats.Reserved -= int64(n) << m.pageShift
	switch left, right := p > 0 && !m.edge(p-1), p+n < m.pages && !m.edge(p+n); {
	case left && right: // the right run absorbs the block and the left run
		ls := int(m.runStart[p-1])
		rl := int(m.meta[p+n].n)
		m.removeRun(ls, p-ls)
		m.meta[p+n].n = 0
		m.growRun(p+n, ls, rl, p+n+rl-ls)
	case left:
		ls := int(m.runStart[p-1])
		m.growRun(ls, ls, p-ls, p+n-ls)
	case right:
		rl := int(m.meta[p+n].n)
		m.meta[p+n].n = 0
		m.growRun(p+n, p, rl, n+rl)
	default:
		m.addRun(p, n)
	}
}

// edge reports whether page p is the first or last page of an allocated
// unit.
func (m *Multilevel) edge(p int) bool { return m.edges[p>>6]&(1<<(p&63)) != 0 }

// markUnit marks pages [p, p+n) as an allocated unit.
func (m *Multilevel) markUnit(p, n int) {
	m.edges[p>>6] |= 1 << (p & 63)
	e := p + n - 1
	m.edges[e>>6] |= 1 << (e & 63)
}

// unmarkUnit clears the marks of the allocated unit [p, p+n).
func (m *Multilevel) unmarkUnit(p, n int) {
	m.edges[p>>6] &^= 1 << (p & 63)
	e := p + n - 1
	m.edges[e>>6] &^= 1 << (e & 63)
}

// inFreeRun reports whether page p lies in a free run. The run holding p,
// if any, has the nearest run end at or after p, since runs are disjoint;
// finding it searches every non-empty class, so only error paths ask.
func (m *Multilevel) inFreeRun(p int) bool {
	nearest := -1
	for mask := m.runMask; mask != 0; mask &= mask - 1 {
		if e := m.runs[bits.TrailingZeros64(mask)].next(p); e >= 0 && (nearest < 0 || e < nearest) {
			nearest = e
		}
	}
	return nearest >= 0 && int(m.runStart[nearest]) <= p
}

// class returns the class of a free run of l pages: ⌊log2 l⌋, except that
// every run of at least 2^top pages is in the top class.
func (m *Multilevel) class(l int) int { return min(bits.Len(uint(l))-1, m.top) }

// findRun returns the start of a free run of at least n pages chosen by the
// hybrid search described at Multilevel, or -1 if there is none.
func (m *Multilevel) findRun(n int) int {
	f := m.class(n)
	if m.runCount[f] > 0 {
		b := &m.runs[f]
		e := b.next(m.cursor[f])
		if e < 0 {
			e = b.next(0)
		}
		best, stop := m.probe(f, e, n)
		if best >= 0 {
			m.cursor[f] = best
			return int(m.runStart[best])
		}
		m.cursor[f] = stop
	}
	above := m.runMask &^ (uint64(2)<<f - 1)
	if above == 0 {
		return -1
	}
	c := bits.TrailingZeros64(above)
	e := int(m.lowest[c])
	if e >= 0 && m.runCount[c] == 1 {
		return int(m.runStart[e]) // the class's one run, long enough as every run above f is
	}
	if e < 0 {
		e = m.runs[c].next(0)
		m.lowest[c] = int32(e)
	}
	if best, _ := m.probe(c, e, n); best >= 0 {
		return int(m.runStart[best])
	}
	return -1
}

// probe examines up to probeLimit runs of class c in address order from the
// run ending at page e, wrapping around once, and returns the last page of
// the shortest run of at least n pages (or -1) and the page after the last
// run examined.
func (m *Multilevel) probe(c, e, n int) (best, stop int) {
	b := &m.runs[c]
	best, bestLen := -1, 0
	for k := range min(probeLimit, m.runCount[c]) {
		if k > 0 {
			if e = b.next(e); e < 0 {
				e = b.next(0)
			}
		}
		if l := e + 1 - int(m.runStart[e]); l >= n && (best < 0 || l < bestLen) {
			best, bestLen = e, l
			if l == n {
				return best, e + 1
			}
		}
		e++
	}
	return best, e
}

func (m *Multilevel) addRun(s, l int) {
	c, e := m.class(l), s+l-1
	m.runs[c].set(e)
	if lo := m.lowest[c]; m.runCount[c] == 0 || lo >= 0 && int32(e) < lo {
		m.lowest[c] = int32(e)
	}
	m.runCount[c]++
	m.runMask |= 1 << c
	m.meta[s].n = int32(l)
	m.runStart[e] = int32(s)
}

// shrinkRun takes the first n pages off the free run of l pages at s.
func (m *Multilevel) shrinkRun(s, l, n int) {
	if l == n {
		m.removeRun(s, l)
		return
	}
	m.growRun(s, s+n, l, l-n)
}

// growRun replaces the free run of l pages at s by one of nl pages at ns.
// The class bitmaps index runs by their last page, so a run that loses or
// gains pages at its front (a block taken, a block freed just before it)
// stays where it is in them.
func (m *Multilevel) growRun(s, ns, l, nl int) {
	c, nc := m.class(l), m.class(nl)
	if c != nc {
		m.removeRun(s, l)
		m.addRun(ns, nl)
		return
	}
	if e, ne := s+l-1, ns+nl-1; e != ne {
		// A run's end moves only over pages that were its own (a slab
		// taken from its back) or a freed block's (merged after it), where
		// no other run of any class ends: the lowest run of the class
		// stays the lowest.
		m.runs[c].move(e, ne)
		if m.lowest[c] == int32(e) {
			m.lowest[c] = int32(ne)
		}
	}
	m.meta[ns].n = int32(nl)
	m.runStart[ns+nl-1] = int32(ns)
}

func (m *Multilevel) removeRun(s, l int) {
	c, e := m.class(l), s+l-1
	if m.lowest[c] == int32(e) {
		m.lowest[c] = -1
	}
	if m.runCount[c]--; m.runCount[c] > 0 {
		m.runs[c].clear(e)
		return
	}
	m.runs[c].clearOnly(e)
	m.runMask &^= 1 << c
}

// segTable is the CPE segment table: a fixed array of (base, size) entries
// and a stack of the unused ones.
type segTable struct {
	entries []segEntry
	free    []int32
	updates int64
}

type segEntry struct {
	base uint64
	size int64
}

func newSegTable(n int) segTable {
	t := segTable{entries: make([]segEntry, n), free: make([]int32, n)}
	for i := range t.free {
		t.free[i] = int32(n - 1 - i) // entry 0 on top
	}
	return t
}

// put fills the entry on top of the free stack.
func (t *segTable) put(base uint64, size int64) {
	i := t.free[len(t.free)-1]
	t.free = t.free[:len(t.free)-1]
	t.entries[i] = segEntry{base, size}
	t.updates++
}

func (t *segTable) remove(i int32) {
	t.entries[i] = segEntry{}
	t.free = append(t.free, i)
	t.updates++
}
