package host

import (
	"cmp"
	"slices"
	"sync"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/internal/none"
)

// Mapper is implemented by devices and streams whose buffers the host CPU
// can read and write in place. A kernel launched on a stream that is a
// Mapper may compute on the host over operands for which HostMapped is true,
// with no copy.
type Mapper interface {
	HostMapped(b device.Buffer) bool
}

// Mapped is an accelerator whose memory is host-mapped: the CPU addresses it
// directly, as the MT-3000's CPU does the DDR of its DSP clusters. It is the
// wrapped device in every other respect. Its methods are safe for concurrent
// use.
//
// A Mapped of no device (Map of a nil one, or the zero Mapped) fails every
// call that can fail with an error wrapping device.ErrNoDevice; its Name
// is "<nil>", its Profile and Stats are zero. A nil *Mapped answers as
// the zero Mapped.
type Mapped struct {
	device.Device

	mu sync.Mutex
	// live holds the live buffers allocated here, by address, in address
	// order.
	live []device.Buffer
}

// Map returns d with host-mapped memory (no device for a nil d: see
// Mapped).
func Map(d device.Device) *Mapped {
	return &Mapped{Device: d}
}

// inner is the wrapped device, none.Device for none.
func (m *Mapped) inner() device.Device {
	if m == nil || m.Device == nil {
		return none.Device{}
	}
	return m.Device
}

// Name implements device.Device.
func (m *Mapped) Name() string { return m.inner().Name() }

// Profile implements device.Device.
func (m *Mapped) Profile() device.Profile { return m.inner().Profile() }

// Stats implements device.Device.
func (m *Mapped) Stats() device.Stats { return m.inner().Stats() }

// NewEvent implements device.Device.
func (m *Mapped) NewEvent() device.Event { return m.inner().NewEvent() }

// Alloc implements device.Device; the buffer is host-mapped until freed.
func (m *Mapped) Alloc(size int64, materialize bool) (device.Buffer, error) {
	if m == nil {
		m = new(Mapped) // the zero Mapped's answer
	}
	b, err := m.inner().Alloc(size, materialize)
	if err != nil {
		return b, err
	}
	m.mu.Lock()
	i, _ := m.find(b.Addr)
	m.live = slices.Insert(m.live, i, device.Buffer{Addr: b.Addr, Size: b.Size})
	m.mu.Unlock()
	return b, nil
}

// Free implements device.Device. The buffer leaves the live list before
// the wrapped device frees it: once the device may hand its address out
// again (to a concurrent Alloc, of another size), the list holds only the
// new buffer there.
func (m *Mapped) Free(b device.Buffer) error {
	if m == nil {
		m = new(Mapped)
	}
	m.mu.Lock()
	i, ok := m.find(b.Addr)
	if ok {
		m.live = slices.Delete(m.live, i, i+1)
	}
	m.mu.Unlock()
	if err := m.inner().Free(b); err != nil {
		if ok { // not freed: still live
			m.mu.Lock()
			j, _ := m.find(b.Addr)
			m.live = slices.Insert(m.live, j, device.Buffer{Addr: b.Addr, Size: b.Size})
			m.mu.Unlock()
		}
		return err
	}
	return nil
}

// find returns the position of the live buffer at addr, or where one would
// go; m.mu is held.
func (m *Mapped) find(addr uint64) (int, bool) {
	return slices.BinarySearchFunc(m.live, addr, func(b device.Buffer, a uint64) int { return cmp.Compare(b.Addr, a) })
}

// HostMapped implements Mapper: b lies within a live buffer of this
// device — one Alloc returned, or a part of one (a tensor a memory plan
// placed in its arena).
func (m *Mapped) HostMapped(b device.Buffer) bool {
	if m == nil || b.IsZero() {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	i, ok := m.find(b.Addr)
	if !ok {
		if i == 0 {
			return false
		}
		i-- // the live buffer starting before b
	}
	l := m.live[i]
	return b.Addr >= l.Addr && b.Addr-l.Addr <= uint64(l.Size) && uint64(b.Size) <= uint64(l.Size)-(b.Addr-l.Addr)
}

// NewStream implements device.Device. The stream is a Mapper.
func (m *Mapped) NewStream() device.Stream {
	if m == nil {
		m = new(Mapped)
	}
	return &mappedStream{Stream: m.inner().NewStream(), m: m}
}

// ReleaseStream implements device.StreamReleaser: the wrapped device's
// stream is released.
func (m *Mapped) ReleaseStream(s device.Stream) {
	if ms, ok := s.(*mappedStream); ok && ms.m == m {
		device.ReleaseStreams(m.inner(), ms.Stream)
	}
}

// mappedStream is a stream of a Mapped device.
type mappedStream struct {
	device.Stream
	m *Mapped
}

// HostMapped implements Mapper.
func (s *mappedStream) HostMapped(b device.Buffer) bool { return s.m.HostMapped(b) }
