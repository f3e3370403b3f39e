package host

import (
	"sync"

	"github.com/pipert/pipert/device"
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
type Mapped struct {
	device.Device

	mu   sync.Mutex
	live map[uint64]struct{} // addresses of the live buffers allocated here
}

// Map returns d with host-mapped memory.
func Map(d device.Device) *Mapped {
	return &Mapped{Device: d, live: make(map[uint64]struct{})}
}

// Alloc implements device.Device; the buffer is host-mapped until freed.
func (m *Mapped) Alloc(size int64, materialize bool) (device.Buffer, error) {
	b, err := m.Device.Alloc(size, materialize)
	if err != nil {
		return b, err
	}
	m.mu.Lock()
	m.live[b.Addr] = struct{}{}
	m.mu.Unlock()
	return b, nil
}

// Free implements device.Device.
func (m *Mapped) Free(b device.Buffer) error {
	if err := m.Device.Free(b); err != nil {
		return err
	}
	m.mu.Lock()
	delete(m.live, b.Addr)
	m.mu.Unlock()
	return nil
}

// HostMapped implements Mapper: b is a live buffer of this device.
func (m *Mapped) HostMapped(b device.Buffer) bool {
	if b.IsZero() {
		return false
	}
	m.mu.Lock()
	_, ok := m.live[b.Addr]
	m.mu.Unlock()
	return ok
}

// NewStream implements device.Device. The stream is a Mapper.
func (m *Mapped) NewStream() device.Stream {
	return &mappedStream{Stream: m.Device.NewStream(), m: m}
}

// mappedStream is a stream of a Mapped device.
type mappedStream struct {
	device.Stream
	m *Mapped
}

// HostMapped implements Mapper.
func (s *mappedStream) HostMapped(b device.Buffer) bool { return s.m.HostMapped(b) }
