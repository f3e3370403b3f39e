// Package account is the bookkeeping every device implementation of pipert
// shares: the memory of a device (an allocator over its address space, host
// backings for materialized buffers, bytes in use and their high-water mark)
// and its activity (kernel and copy counts, and the union of busy intervals
// over its streams). Counters are cumulative over the device's life; callers
// take snapshots and subtract them, nothing is ever reset.
//
// It imports no pipert package but device/alloc and internal/hostmem, so
// that package device and the devices beside it can all use it.
package account

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/pipert/pipert/device/alloc"
	"github.com/pipert/pipert/internal/hostmem"
)

// Memory is the memory of a device: an allocator over its address space,
// host backings for materialized buffers (reused by size class), and the
// accounting of bytes in use. It is safe for concurrent use.
//
// Each Memory hands out addresses in a window of its own: the allocator's
// address plus base, a multiple of windowSize distinct among the Memories
// of the process (up to maxWindows of them). A buffer of another device
// falls outside the window, so that Free refuses it instead of freeing
// this device's block at the same allocator address.
type Memory struct {
	base          uint64     // the window; set once by NewMemory
	mu            sync.Mutex // guards everything below
	alloc         alloc.Allocator
	live          []block      // the live blocks, by address
	pool          [64][][]byte // free backings by size class (power of two)
	inUse, peak   int64
	nAlloc, nFree int64
}

// block is a live block of a Memory: its address and reserved size.
type block struct {
	addr uint64
	size int64
}

// find returns the index of the last live block at or below addr, or -1.
// Called with m.mu held.
func (m *Memory) find(addr uint64) int {
	i, found := slices.BinarySearchFunc(m.live, addr, func(b block, a uint64) int { return cmp.Compare(b.addr, a) })
	if found {
		return i
	}
	return i - 1
}

// The address windows: 16 TiB each, far beyond any modeled device's
// memory, and 2^19 - 1 of them before they are reused (the window of the
// Memory made 2^19 - 1 Memories earlier).
const (
	windowBits = 44
	windowSize = uint64(1) << windowBits
	maxWindows = 1<<(64-windowBits-1) - 1
)

// windows numbers the Memories of the process.
var windows atomic.Uint64

// NewMemory manages the address space of a.
func NewMemory(a alloc.Allocator) *Memory {
	return &Memory{alloc: a, base: (windows.Add(1)%maxWindows + 1) << windowBits}
}

// Owns reports whether [addr, addr+size) lies in the window of m.
func (m *Memory) Owns(addr uint64, size int64) bool {
	return addr >= m.base && addr-m.base < windowSize && size >= 0 && uint64(size) <= windowSize-(addr-m.base)
}

// Check returns nil if [addr, addr+size) lies in one block of m that is
// allocated now, and otherwise an error wrapping ErrForeign (outside m's
// window: another device's memory) or ErrNotLive (a freed block, or past
// the end of its block).
func (m *Memory) Check(addr uint64, size int64) error {
	if size < 0 || !m.Owns(addr, size) {
		return fmt.Errorf("[%#x, +%d): %w", addr, size, ErrForeign)
	}
	m.mu.Lock()
	i := m.find(addr)
	live := i >= 0 && addr-m.live[i].addr+uint64(size) <= uint64(m.live[i].size)
	m.mu.Unlock()
	if !live {
		return fmt.Errorf("[%#x, +%d): %w", addr, size, ErrNotLive)
	}
	return nil
}

// ErrWrongSize is the error of Free of a live block with another size
// than Alloc reserved: a part of a buffer, or one whose Size was changed.
// It wraps alloc.ErrForeign, as an allocator's Free of an address inside
// a block does.
var ErrWrongSize = fmt.Errorf("size is not the block's: %w", alloc.ErrForeign)

// ErrForeign is the error of Free or Check of an address outside the
// device's window: a buffer of another device. It wraps
// alloc.ErrForeign, so that a caller tells it from outside.
var ErrForeign = fmt.Errorf("not an address of this device: %w", alloc.ErrForeign)

// ErrNotLive is the error of Check of a range in no allocated block: a
// buffer used after its Free, or past the end of its block.
var ErrNotLive = errors.New("not in an allocated block (freed?)")

// Alloc reserves size bytes (at least one, so that a zero-size tensor still
// has an address of its own) and returns the address, the size reserved and,
// when materialize is set, zeroed host memory of that size. An error is the
// allocator's (wrapping alloc.ErrOutOfMemory when the space is exhausted),
// or alloc.ErrBadSize for a negative size.
func (m *Memory) Alloc(size int64, materialize bool) (addr uint64, reserved int64, data []byte, err error) {
	if size < 0 {
		return 0, 0, nil, fmt.Errorf("%w: %d", alloc.ErrBadSize, size)
	}
	if size == 0 {
		size = 1
	}
	if materialize {
		if err := hostmem.Check(size); err != nil {
			return 0, 0, nil, fmt.Errorf("%w: host backing: %w", alloc.ErrOutOfMemory, err)
		}
	}
	m.mu.Lock()
	addr, err = m.alloc.Alloc(size)
	if err != nil {
		m.mu.Unlock()
		return 0, 0, nil, err
	}
	if addr >= windowSize {
		_ = m.alloc.Free(addr) // the block was just allocated
		m.mu.Unlock()
		return 0, 0, nil, fmt.Errorf("allocator address %#x beyond the %d-bit window of a device", addr, windowBits)
	}
	addr += m.base
	i := m.find(addr) + 1 // the allocator never hands out a live address
	m.live = slices.Insert(m.live, i, block{addr, size})
	m.inUse += size
	m.peak = max(m.peak, m.inUse)
	m.nAlloc++
	var reused []byte
	if materialize {
		reused = m.reuse(size)
	}
	m.mu.Unlock()
	if materialize {
		// Zeroing or making the backing, a page fault a 4 KiB page, is
		// the caller's own work: done under the lock, it made the other
		// goroutines allocating on the device (a heterogeneous run's
		// parts) wait, and park.
		data = backing(reused, size)
	}
	return addr, size, data, nil
}

// reuse takes a released backing of size's class large enough for size
// from the pool, or returns nil. Called with m.mu held.
func (m *Memory) reuse(size int64) []byte {
	c := sizeClass(size)
	if n := len(m.pool[c]); n > 0 && int64(cap(m.pool[c][n-1])) >= size {
		b := m.pool[c][n-1][:size]
		m.pool[c][n-1] = nil
		m.pool[c] = m.pool[c][:n-1]
		return b
	}
	return nil
}

// backing returns zeroed host memory of size bytes for a materialized
// buffer: reused (from reuse, which gave it to the caller alone) zeroed,
// or made.
func backing(reused []byte, size int64) []byte {
	if reused != nil {
		clear(reused)
		return reused
	}
	if size > exactFrom {
		return make([]byte, size) // a power of two could double it
	}
	return make([]byte, size, int64(1)<<sizeClass(size))
}

// exactFrom is the size above which a backing is made to its exact size,
// not rounded up to its class: the host memory a run needs stays what its
// buffers need (a 17 GiB buffer would reserve 32 GiB).
const exactFrom = 64 << 20

func sizeClass(size int64) int {
	c := 0
	for int64(1)<<c < size {
		c++
	}
	return c
}

// Free releases the block at addr of the given reserved size, which must
// be the size Alloc reserved; data, its backing if any, is kept for reuse.
func (m *Memory) Free(addr uint64, size int64, data []byte) error {
	if !m.Owns(addr, 0) {
		return fmt.Errorf("free %#x: %w", addr, ErrForeign)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	i := m.find(addr)
	if i >= 0 && m.live[i].addr == addr && m.live[i].size != size {
		return fmt.Errorf("free %#x: %w: %d bytes, allocated %d", addr, ErrWrongSize, size, m.live[i].size)
	}
	if err := m.alloc.Free(addr - m.base); err != nil {
		return fmt.Errorf("free %#x: %w", addr, err)
	}
	if i >= 0 && m.live[i].addr == addr {
		m.live = slices.Delete(m.live, i, i+1)
	}
	m.inUse -= size
	m.nFree++
	if data != nil {
		if c := sizeClass(int64(cap(data))); int64(1)<<c == int64(cap(data)) || int64(cap(data)) > exactFrom {
			m.pool[c] = append(m.pool[c], data[:0])
		}
	}
	return nil
}

// Counts are a snapshot of a device's cumulative accounting.
type Counts struct {
	Kernels, Copies     int64
	BusyNs, KernelNs    int64
	MemInUse, MemPeak   int64
	Allocs, Frees       int64
	FirstStart, LastEnd int64
}

// Snapshot reads the memory counters into c.
func (m *Memory) Snapshot(c *Counts) {
	m.mu.Lock()
	c.MemInUse, c.MemPeak, c.Allocs, c.Frees = m.inUse, m.peak, m.nAlloc, m.nFree
	m.mu.Unlock()
}

// Activity is the work accounting of a device: kernel and copy counts and
// the union of busy intervals over its streams. It is safe for concurrent
// use and takes no lock (every launch of every stream reports to it); the
// zero value is ready.
//
// Invariant: lastEnd only grows, and busyNs grows by the part of each
// reported interval beyond the lastEnd it replaced (a compare-and-swap
// decides which report extends the union, so no instant is counted
// twice). firstStart is the start of the first interval that moved
// lastEnd from 0. A snapshot taken while work is being reported may see
// lastEnd moved before busyNs grew; between reports it is exact.
type Activity struct {
	kernels  atomic.Int64
	copies   atomic.Int64
	kernelNs atomic.Int64

	busyNs     atomic.Int64
	lastEnd    atomic.Int64
	firstStart atomic.Int64
}

// Kernel accounts a kernel busy from start to end.
func (a *Activity) Kernel(start, end int64) {
	a.kernels.Add(1)
	a.kernelNs.Add(end - start)
	a.busy(start, end)
}

// Copy accounts a copy busy from start to end.
func (a *Activity) Copy(start, end int64) {
	a.copies.Add(1)
	a.busy(start, end)
}

// busy adds [start, end) to the busy union. The union is exact when work is
// reported in order of start time (always true for one stream); an interval
// reported after a later-starting one counts only beyond the latest end
// seen, so no instant is counted twice.
func (a *Activity) busy(start, end int64) {
	for {
		last := a.lastEnd.Load()
		if end <= last {
			return // nothing beyond the union
		}
		if a.lastEnd.CompareAndSwap(last, end) {
			if last == 0 {
				a.firstStart.Store(start)
			}
			a.busyNs.Add(end - max(start, last))
			return
		}
	}
}

// Snapshot reads the activity counters into c.
func (a *Activity) Snapshot(c *Counts) {
	c.BusyNs, c.FirstStart, c.LastEnd = a.busyNs.Load(), a.firstStart.Load(), a.lastEnd.Load()
	c.Kernels = a.kernels.Load()
	c.Copies = a.copies.Load()
	c.KernelNs = a.kernelNs.Load()
}
