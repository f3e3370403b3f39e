package actor

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/pipert/pipert/device"
)

// Memory accounts the device memory of one executable, however many actors
// it has: bytes in use and their high-water mark. Actors allocate and free
// through it; a heterogeneous executable gives every actor on one device
// the same Memory, so that its peak is the executable's. It is safe for
// concurrent use; the zero value is ready, and a nil *Memory accounts
// nothing (its queries answer 0).
type Memory struct {
	inUse, peak atomic.Int64
}

// alloc allocates on dev and accounts the bytes.
func (m *Memory) alloc(dev device.Device, size int64, materialize bool) (device.Buffer, error) {
	b, err := dev.Alloc(size, materialize)
	if err != nil {
		return b, err
	}
	if b.Size < size || (b.Data != nil || materialize) && int64(len(b.Data)) < size {
		// A device of the caller's that answers with less than asked (a
		// materialized buffer without host backing among them): its
		// kernels would read and write past the buffer.
		ferr := freeOn(dev, b)
		return device.Buffer{}, errors.Join(fmt.Errorf("actor: device %s: alloc of %d bytes returned a buffer of %d (%d backed): %w",
			dev.Name(), size, b.Size, len(b.Data), device.ErrNotBacked), ferr)
	}
	m.add(b.Size)
	return b, nil
}

// add accounts n more bytes in use (fewer when negative).
func (m *Memory) add(n int64) {
	u := m.inUse.Add(n)
	for p := m.peak.Load(); u > p && !m.peak.CompareAndSwap(p, u); p = m.peak.Load() {
	}
}

// free frees b on dev and accounts it.
func (m *Memory) free(dev device.Device, b device.Buffer) error {
	if b.IsZero() {
		return nil
	}
	if err := freeOn(dev, b); err != nil {
		return err
	}
	m.add(-b.Size)
	return nil
}

// freeOn frees b on dev. A panic of the device's code is the error, as a
// failed free is: a caller freeing many buffers goes on with the others
// and keeps its bookkeeping.
func freeOn(dev device.Device, b device.Buffer) (err error) {
	defer devicePanic(&err)
	if err := dev.Free(b); err != nil {
		return fmt.Errorf("actor: free of [%#x, +%d): %w", b.Addr, b.Size, err)
	}
	return nil
}

// forget accounts b as gone without freeing it (its device was reset).
func (m *Memory) forget(b device.Buffer) {
	if !b.IsZero() {
		m.inUse.Add(-b.Size)
	}
}

// InUse is the bytes allocated now.
func (m *Memory) InUse() int64 {
	if m == nil {
		return 0
	}
	return m.inUse.Load()
}

// Peak is the high-water mark of InUse since the last ResetPeak.
func (m *Memory) Peak() int64 {
	if m == nil {
		return 0
	}
	return m.peak.Load()
}

// ResetPeak restarts the high-water mark at the bytes in use now; a run
// calls it when it starts.
func (m *Memory) ResetPeak() {
	if m != nil {
		m.peak.Store(m.inUse.Load())
	}
}
