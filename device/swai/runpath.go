package swai

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/alloc"
)

// This file is the card as an executable's run path sees it: the
// device.Device calls (stream copies, Alloc and Free) priced by the SDAA
// runtime's models, in modeled time only, with no thread of the card's
// running:
//
//   - copies (copyModel): host to device and back through MTMC when the
//     host memory is pageable (PageableTime: pinned chunks over several
//     channels, at the calibrated host copy speed), directly when it is
//     pinned (MallocHost; PinnedTime); device to device through the
//     adaptive engine (D2DTable.Choose);
//   - launches: the command ring (Ring, already the Sim's launcher);
//   - allocation (frameworkCache): a framework's caching layer, as
//     PyTorch's in front of cudaMalloc, whose misses call the card's
//     allocator and cost the calling goroutine sdaaMalloc's modeled time
//     (MallocTime, plus FirstTouch for the device's first allocation).

// copyModel is the device.CopyModel of a card. It is safe for concurrent
// use; pageable durations are memoized by size and direction.
type copyModel struct {
	prof Profile
	cal  Calibration
	d2d  D2DTable

	npinned atomic.Int32 // live pinned ranges, so that most copies skip the lock
	mu      sync.Mutex   // guards pinned and memo
	pinned  map[uintptr]int
	memo    map[memoKey]time.Duration
}

type memoKey struct {
	n   int64
	h2d bool
}

// memoLimit bounds the memoized pageable sizes; beyond it they are
// computed every time.
const memoLimit = 4096

func newCopyModel(p Profile, c Calibration, t D2DTable) *copyModel {
	return &copyModel{prof: p, cal: c, d2d: t, pinned: map[uintptr]int{}, memo: map[memoKey]time.Duration{}}
}

// CopyTime implements device.CopyModel.
func (m *copyModel) CopyTime(kind string, host []byte, n int64) time.Duration {
	switch kind {
	case "d2d":
		_, d := m.d2d.Choose(n)
		return d
	case "h2d", "d2h":
		if m.isPinned(host) {
			return m.prof.PinnedTime(n)
		}
		return m.pageable(n, kind == "h2d")
	}
	return 0
}

func (m *copyModel) pageable(n int64, h2d bool) time.Duration {
	k := memoKey{n, h2d}
	m.mu.Lock()
	d, ok := m.memo[k]
	m.mu.Unlock()
	if ok {
		return d
	}
	// The calibration and the path were validated by New.
	d, _ = m.prof.PageableTime(n, Pageable, h2d, m.cal)
	m.mu.Lock()
	if len(m.memo) < memoLimit {
		m.memo[k] = d
	}
	m.mu.Unlock()
	return d
}

// isPinned reports whether b lies in memory MallocHost returned and
// FreeHost has not released.
func (m *copyModel) isPinned(b []byte) bool {
	if len(b) == 0 || m.npinned.Load() == 0 {
		return false
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	m.mu.Lock()
	defer m.mu.Unlock()
	for start, n := range m.pinned {
		if p >= start && p+uintptr(len(b)) <= start+uintptr(n) {
			return true
		}
	}
	return false
}

func (m *copyModel) pin(b []byte) {
	if len(b) == 0 {
		return
	}
	m.mu.Lock()
	m.pinned[uintptr(unsafe.Pointer(unsafe.SliceData(b)))] = len(b)
	m.npinned.Store(int32(len(m.pinned)))
	m.mu.Unlock()
}

func (m *copyModel) unpin(b []byte) bool {
	if len(b) == 0 {
		return true
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	k := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if _, ok := m.pinned[k]; !ok {
		return false
	}
	delete(m.pinned, k)
	m.npinned.Store(int32(len(m.pinned)))
	return true
}

// frameworkCache is a framework's caching allocator in front of the
// card's (the meter): freed blocks stay reserved, in free lists by rounded
// size, and serve later requests of that size; a request no list can serve
// is a miss, which calls the card's allocator. When that is out of memory
// the cache releases every block it holds and tries again, as PyTorch's
// does. Sizes round up to 512 bytes below 1 MiB and to 2 MiB from there
// (PyTorch's small and large pools). Blocks are reused only at their
// rounded size, never split: the run path asks for the same sizes run
// after run.
//
// The Sim calls Alloc and Free under its memory lock, which guards every
// field; Device.alloc also holds heapMu around Alloc, so that it alone
// reads miss and bypass.
type frameworkCache struct {
	inner *meter
	free  map[int64][]uint64 // cached blocks by rounded size
	// owned are the blocks the cache manages, by address: their rounded
	// size, negated while the block is cached (free).
	owned map[uint64]int64
	// bypass makes Alloc call the card's allocator directly (sdaaMalloc
	// through the SDAA API); such blocks are not owned.
	bypass bool
	// miss is set by an Alloc that called the card's allocator, missed the
	// size it asked for.
	miss   bool
	missed int64
}

var _ alloc.Allocator = (*frameworkCache)(nil)

func newFrameworkCache(m *meter) *frameworkCache {
	return &frameworkCache{inner: m, free: map[int64][]uint64{}, owned: map[uint64]int64{}}
}

// roundCached is the size the cache asks the card for.
func roundCached(size int64) int64 {
	const small, large = 512, 2 << 20
	if size < 1<<20 {
		return max(ceilDiv(size, small), 1) * small
	}
	return ceilDiv(size, large) * large
}

func (c *frameworkCache) Alloc(size int64) (uint64, error) {
	c.miss = false
	if c.bypass {
		return c.inner.Alloc(size)
	}
	if size > math.MaxInt64-(2<<20) {
		// Its rounding would overflow: more than any card holds.
		return 0, fmt.Errorf("%w: %d bytes requested", alloc.ErrOutOfMemory, size)
	}
	r := roundCached(size)
	if l := c.free[r]; len(l) > 0 {
		addr := l[len(l)-1]
		c.free[r] = l[:len(l)-1]
		c.owned[addr] = r
		return addr, nil
	}
	addr, err := c.inner.Alloc(r)
	if errors.Is(err, alloc.ErrOutOfMemory) && c.release() {
		addr, err = c.inner.Alloc(r)
	}
	if err != nil {
		return 0, err
	}
	c.owned[addr] = r
	c.miss, c.missed = true, r
	return addr, nil
}

// release frees every cached block and reports whether there was one.
func (c *frameworkCache) release() bool {
	any := false
	for r, l := range c.free {
		for _, addr := range l {
			c.inner.Free(addr)
			delete(c.owned, addr)
			any = true
		}
		c.free[r] = l[:0]
	}
	return any
}

func (c *frameworkCache) Free(addr uint64) error {
	r, ok := c.owned[addr]
	switch {
	case !ok:
		return c.inner.Free(addr)
	case r < 0:
		return fmt.Errorf("%w: %#x", alloc.ErrDoubleFree, addr)
	}
	c.owned[addr] = -r
	c.free[r] = append(c.free[r], addr)
	return nil
}

func (c *frameworkCache) Stats() alloc.Stats { return c.inner.Stats() }

// The interfaces the Sim finds on a card.
var (
	_ device.CopyModel      = (*copyModel)(nil)
	_ device.KernelLauncher = (*Ring)(nil)
)
