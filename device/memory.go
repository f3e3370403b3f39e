package device

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/pipert/pipert/device/alloc"
)

// Memory is the memory of a Device implementation: an allocator over the
// device's address space, host backings for materialized buffers (reused by
// size class), and the memory accounting of Stats. It is safe for
// concurrent use. Sim and the host CPU device share it.
type Memory struct {
	name string // error prefix, "device swai"

	mu            sync.Mutex // guards everything below
	alloc         alloc.Allocator
	pool          [64][][]byte // free backings by size class (power of two)
	inUse, peak   int64
	nAlloc, nFree int64
}

// NewMemory manages the address space of a; name prefixes its errors.
func NewMemory(name string, a alloc.Allocator) *Memory {
	return &Memory{name: name, alloc: a}
}

// Alloc implements Device.Alloc.
func (m *Memory) Alloc(size int64, materialize bool) (Buffer, error) {
	if size <= 0 {
		// Zero-size tensors still get a distinct address so that they can be
		// freed like any other; one byte is reserved.
		size = 1
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	addr, err := m.alloc.Alloc(size)
	if err != nil {
		return Buffer{}, fmt.Errorf("%s: alloc %d bytes: %w: %w", m.name, size, ErrOutOfMemory, err)
	}
	m.inUse += size
	m.peak = max(m.peak, m.inUse)
	m.nAlloc++
	var data []byte
	if materialize {
		data = m.backing(size)
	}
	return Buffer{Addr: addr, Size: size, Data: data}, nil
}

// backing returns zeroed host memory for a materialized buffer, reusing
// released backings of the same size class. Called with m.mu held.
func (m *Memory) backing(size int64) []byte {
	c := sizeClass(size)
	if n := len(m.pool[c]); n > 0 {
		b := m.pool[c][n-1][:size]
		m.pool[c] = m.pool[c][:n-1]
		clear(b)
		return b
	}
	return make([]byte, size, int64(1)<<c)
}

func sizeClass(size int64) int {
	c := 0
	for int64(1)<<c < size {
		c++
	}
	return c
}

// Free implements Device.Free.
func (m *Memory) Free(b Buffer) error {
	if b.IsZero() {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.alloc.Free(b.Addr); err != nil {
		return fmt.Errorf("%s: free %#x: %w", m.name, b.Addr, err)
	}
	m.inUse -= b.Size
	m.nFree++
	if b.Data != nil {
		if c := sizeClass(int64(cap(b.Data))); int64(1)<<c == int64(cap(b.Data)) {
			m.pool[c] = append(m.pool[c], b.Data[:0])
		}
	}
	return nil
}

// Activity is the work accounting of a Device implementation: kernel and
// copy counts and the union of busy intervals over its streams. It is safe
// for concurrent use; the zero value is ready.
type Activity struct {
	kernels  atomic.Int64
	copies   atomic.Int64
	kernelNs atomic.Int64

	mu         sync.Mutex // guards the busy union
	busyNs     int64
	lastEnd    int64
	firstStart int64
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
	a.mu.Lock()
	if a.lastEnd == 0 && a.busyNs == 0 {
		a.firstStart = start
	}
	if s := max(start, a.lastEnd); end > s {
		a.busyNs += end - s
	}
	a.lastEnd = max(a.lastEnd, end)
	a.mu.Unlock()
}

// Combine returns the Stats of a device accounted by m and a.
func Combine(m *Memory, a *Activity) Stats {
	m.mu.Lock()
	st := Stats{MemInUse: m.inUse, MemPeak: m.peak, Allocs: m.nAlloc, Frees: m.nFree}
	m.mu.Unlock()
	a.mu.Lock()
	st.BusyNs, st.FirstStart, st.LastEnd = a.busyNs, a.firstStart, a.lastEnd
	a.mu.Unlock()
	st.Kernels = a.kernels.Load()
	st.Copies = a.copies.Load()
	st.KernelNs = a.kernelNs.Load()
	return st
}

// Reset starts a new accounting period of m and a: peak memory restarts at
// the memory in use, counts and busy time at zero.
func Reset(m *Memory, a *Activity) {
	m.mu.Lock()
	m.peak = m.inUse
	m.nAlloc, m.nFree = 0, 0
	m.mu.Unlock()
	a.mu.Lock()
	a.busyNs, a.lastEnd, a.firstStart = 0, 0, 0
	a.mu.Unlock()
	a.kernels.Store(0)
	a.copies.Store(0)
	a.kernelNs.Store(0)
}
