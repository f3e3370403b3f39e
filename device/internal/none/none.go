// Package none is the device a wrapper stands on when it was given none
// (package fault's New and package host's Map of a nil device): every call
// that can fail fails with device.ErrNoDevice, the others do nothing.
//
// It imports no pipert package but device.
package none

import (
	"context"
	"fmt"
	"time"

	"github.com/pipert/pipert/device"
)

// Device is no device. Its zero value is ready, and safe for concurrent
// use.
type Device struct{}

var (
	_ device.Device        = Device{}
	_ device.HostAllocator = Device{}
)

// err is the error of a call of no device.
func err(call string) error { return fmt.Errorf("%s: %w", call, device.ErrNoDevice) }

// Name implements device.Device.
func (Device) Name() string { return "<nil>" }

// Profile implements device.Device: the zero Profile.
func (Device) Profile() device.Profile { return device.Profile{} }

// Stats implements device.Device: the zero Stats.
func (Device) Stats() device.Stats { return device.Stats{} }

// Alloc implements device.Device: an error.
func (Device) Alloc(int64, bool) (device.Buffer, error) { return device.Buffer{}, err("alloc") }

// Free implements device.Device: an error but for the zero Buffer.
func (Device) Free(b device.Buffer) error {
	if b.IsZero() {
		return nil
	}
	return err("free")
}

// NewStream implements device.Device.
func (Device) NewStream() device.Stream { return Stream{} }

// NewEvent implements device.Device.
func (Device) NewEvent() device.Event { return Event{} }

// MallocHost implements device.HostAllocator: an error.
func (Device) MallocHost(int64) ([]byte, time.Duration, error) {
	return nil, 0, err("pinned host memory")
}

// FreeHost implements device.HostAllocator: an error.
func (Device) FreeHost([]byte) error { return err("pinned host memory") }

// Stream is the stream of no device: nothing is enqueued, so it is
// always done.
type Stream struct{}

var _ device.Stream = Stream{}

// Launch implements device.Stream: an error.
func (Stream) Launch(device.Kernel) error { return err("launch") }

// CopyH2D implements device.Stream: an error.
func (Stream) CopyH2D(device.Buffer, []byte) error { return err("copy h2d") }

// CopyD2H implements device.Stream: an error.
func (Stream) CopyD2H(context.Context, []byte, device.Buffer) error { return err("copy d2h") }

// CopyD2D implements device.Stream: an error.
func (Stream) CopyD2D(device.Buffer, device.Buffer) error { return err("copy d2d") }

// Record implements device.Stream: nothing.
func (Stream) Record(device.Event) {}

// WaitEvent implements device.Stream: nothing.
func (Stream) WaitEvent(device.Event) {}

// Synchronize implements device.Stream: an error.
func (Stream) Synchronize(context.Context) error { return err("synchronize") }

// Query implements device.Stream: done.
func (Stream) Query() bool { return true }

// Stats implements device.Stream: the zero StreamStats.
func (Stream) Stats() device.StreamStats { return device.StreamStats{} }

// Event is the event of no device, never recorded.
type Event struct{}

var _ device.Event = Event{}

// Synchronize implements device.Event: an error.
func (Event) Synchronize(context.Context) error { return err("synchronize event") }

// Query implements device.Event: done, as an event never recorded.
func (Event) Query() bool { return true }

// At implements device.Event: 0, never recorded.
func (Event) At() int64 { return 0 }
