package swai

import (
	"time"

	"github.com/pipert/pipert/device/alloc"
)

// MallocTime is the modeled duration of a device allocation of size bytes
// of kind, equation 1: t_host + t_malloc + t_update, where measured is the
// allocator's real time (t_malloc) and t_update is equation 3 (one
// segment-table entry, for CPE memory only) or, when Malloc.PageBytes > 0,
// equation 2 (Update per page).
func (p Profile) MallocTime(size int64, kind Kind, measured time.Duration) time.Duration {
	m := p.Malloc
	t := m.Host + measured
	switch {
	case m.PageBytes > 0:
		t += time.Duration(ceilDiv(max(size, 1), m.PageBytes)) * m.Update
	case kind == CPEMemory:
		t += m.Update
	}
	return t
}

// MallocHostTime is the modeled duration of allocating size bytes of pinned
// host memory: PinFixed plus PinPage per host page. On the SW-AI card this
// is algorithm 1: vmalloc, then per page a mapping into the user's space
// and an entry in the host IOMMU's remapping table; nothing is sent to the
// card. On the GPU each page also goes into the GPU's page table.
func (p Profile) MallocHostTime(size int64) time.Duration {
	m := p.Malloc
	return m.PinFixed + time.Duration(ceilDiv(max(size, 1), m.HostPageBytes))*m.PinPage
}

// meter is the device's allocator as device.Sim sees it: it places each
// block by the kind Malloc chose and times the real allocation. kind and
// elapsed are guarded by Device.heapMu, which every Device allocation holds
// around its call into the Sim; the Sim serialises Alloc and Free on the
// inner allocator with its own lock.
type meter struct {
	a       kindAllocator
	kind    Kind
	elapsed time.Duration
}

var _ alloc.Allocator = (*meter)(nil)

func (m *meter) Alloc(size int64) (uint64, error) {
	t0 := time.Now()
	addr, err := m.a.AllocKind(size, m.kind)
	m.elapsed = time.Since(t0)
	return addr, err
}

func (m *meter) Free(addr uint64) error { return m.a.Free(addr) }

func (m *meter) Stats() alloc.Stats { return m.a.Stats() }
