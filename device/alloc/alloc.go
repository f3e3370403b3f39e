package alloc

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
)

// Errors returned by allocators, wrapped with the request's details.
var (
	ErrOutOfMemory = errors.New("alloc: out of memory")
	ErrDoubleFree  = errors.New("alloc: double free")
	ErrForeign     = errors.New("alloc: address not allocated by this allocator")
	ErrBadSize     = errors.New("alloc: size must be positive")
)

// Allocator manages one device address space. The package's allocators
// made by their constructors have memory; their zero values, and nil
// pointers of them, have none: Alloc fails with ErrOutOfMemory.
type Allocator interface {
	// Alloc reserves at least size bytes and returns the start address.
	// Errors wrap ErrOutOfMemory or ErrBadSize.
	Alloc(size int64) (addr uint64, err error)
	// Free releases the block that starts at addr. Errors wrap ErrDoubleFree
	// or ErrForeign; a failed Free changes nothing.
	Free(addr uint64) error
	// Stats reports usage; it does not allocate.
	Stats() Stats
}

// Stats is an allocator's accounting. Bytes count what callers asked for
// (InUse, Peak) and what the allocator holds for them (Reserved: including
// rounding and cached segments).
type Stats struct {
	Capacity     int64 // size of the address space
	InUse        int64 // bytes requested by live allocations
	Peak         int64 // high-water mark of InUse
	Reserved     int64 // bytes the allocator holds for live blocks and caches
	PeakReserved int64 // high-water mark of Reserved
	Allocs       int64 // successful Alloc calls
	Frees        int64 // successful Free calls
	// Fragmentation is 1 - largest free block / total free bytes (0 when
	// nothing is free); a measure of how scattered free space is.
	Fragmentation float64
}

// Base is the lowest address allocators hand out; 0 is never a valid address.
const Base uint64 = 1 << 20

// Reference is a first-fit allocator over a sorted list of free ranges. It is
// slow (linear in the number of free ranges) and obviously correct; it exists
// to check the fast allocators against. Sizes round up to Align, so only a
// capacity that is a multiple of Align can be allocated in one block.
type Reference struct {
	capacity int64
	free     []span           // sorted by addr, never adjacent (always coalesced)
	live     map[uint64]int64 // addr -> rounded size
	req      map[uint64]int64 // addr -> requested size
	stats    Stats
}

type span struct {
	addr uint64
	size int64
}

// Align is the granularity of Reference allocations.
const Align = 256

// roundUp returns size rounded up to a multiple of align, a power of two,
// and false when that multiple is beyond math.MaxInt64: a size no address
// space holds.
func roundUp(size, align int64) (int64, bool) {
	if size > math.MaxInt64-(align-1) {
		return 0, false
	}
	return (size + align - 1) &^ (align - 1), true
}

// NewReference returns a Reference allocator over capacity bytes. A
// capacity of zero or less gives one without any: every Alloc fails with
// ErrOutOfMemory.
func NewReference(capacity int64) *Reference {
	capacity = max(capacity, 0)
	var free []span
	if capacity > 0 {
		free = []span{{Base, capacity}}
	}
	return &Reference{
		capacity: capacity,
		free:     free,
		live:     make(map[uint64]int64),
		req:      make(map[uint64]int64),
		stats:    Stats{Capacity: capacity},
	}
}

// Alloc implements Allocator.
func (r *Reference) Alloc(size int64) (uint64, error) {
	if r == nil {
		r = new(Reference) // the zero Reference's answer: no memory
	}
	if size <= 0 {
		return 0, fmt.Errorf("%w: %d", ErrBadSize, size)
	}
	if size > r.capacity {
		return 0, fmt.Errorf("%w: %d bytes requested, capacity %d", ErrOutOfMemory, size, r.capacity)
	}
	rs, ok := roundUp(size, Align)
	if !ok {
		return 0, fmt.Errorf("%w: %d bytes requested, %d of %d reserved", ErrOutOfMemory, size, r.stats.Reserved, r.capacity)
	}
	for i, s := range r.free {
		if s.size < rs {
			continue
		}
		addr := s.addr
		if s.size == rs {
			r.free = append(r.free[:i], r.free[i+1:]...)
		} else {
			r.free[i] = span{s.addr + uint64(rs), s.size - rs}
		}
		r.live[addr] = rs
		r.req[addr] = size
		r.stats.Allocs++
		r.stats.InUse += size
		r.stats.Reserved += rs
		r.stats.Peak = max(r.stats.Peak, r.stats.InUse)
		r.stats.PeakReserved = max(r.stats.PeakReserved, r.stats.Reserved)
		return addr, nil
	}
	return 0, fmt.Errorf("%w: %d bytes requested, %d of %d reserved", ErrOutOfMemory, size, r.stats.Reserved, r.capacity)
}

// Free implements Allocator.
func (r *Reference) Free(addr uint64) error {
	if r == nil {
		r = new(Reference)
	}
	rs, ok := r.live[addr]
	if !ok {
		if r.isFree(addr) {
			return fmt.Errorf("%w: %#x", ErrDoubleFree, addr)
		}
		return fmt.Errorf("%w: %#x", ErrForeign, addr)
	}
	delete(r.live, addr)
	r.stats.InUse -= r.req[addr]
	delete(r.req, addr)
	r.stats.Reserved -= rs
	r.stats.Frees++
	// Insert and coalesce with neighbours.
	i := r.search(addr)
	r.free = slices.Insert(r.free, i, span{addr, rs})
	if i+1 < len(r.free) && r.free[i].addr+uint64(r.free[i].size) == r.free[i+1].addr {
		r.free[i].size += r.free[i+1].size
		r.free = append(r.free[:i+1], r.free[i+2:]...)
	}
	if i > 0 && r.free[i-1].addr+uint64(r.free[i-1].size) == r.free[i].addr {
		r.free[i-1].size += r.free[i].size
		r.free = append(r.free[:i], r.free[i+1:]...)
	}
	return nil
}

// isFree reports whether addr lies inside a free range. A freed block's
// address always does, so this tells a double free from a foreign address
// for addresses this allocator handed out before; an address inside a free
// range that was never a block start is reported as a double free too,
// which is the conservative answer.
func (r *Reference) isFree(addr uint64) bool {
	i := r.search(addr + 1) // the first range starting after addr
	return i > 0 && addr < r.free[i-1].addr+uint64(r.free[i-1].size)
}

// search returns the index of the first free range starting at or after addr.
func (r *Reference) search(addr uint64) int {
	i, _ := slices.BinarySearchFunc(r.free, addr, func(s span, a uint64) int { return cmp.Compare(s.addr, a) })
	return i
}

// Stats implements Allocator.
func (r *Reference) Stats() Stats {
	if r == nil {
		return Stats{}
	}
	st := r.stats
	var total, largest int64
	for _, s := range r.free {
		total += s.size
		largest = max(largest, s.size)
	}
	if total > 0 {
		st.Fragmentation = 1 - float64(largest)/float64(total)
	}
	return st
}
