package device_test

import (
	"errors"
	"testing"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/alloc"
)

// TestFreeOfNoBufferOfTheDevice: Free of an address outside the device,
// of a part of a buffer and of a freed buffer are errors matching the
// allocator's sentinels, so that a caller tells them apart.
func TestFreeOfNoBufferOfTheDevice(t *testing.T) {
	d, err := device.NewSim(device.SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.Alloc(1024, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		b    device.Buffer
	}{
		{"another device's", device.Buffer{Addr: 12345, Size: 8}},
		{"a part", device.Buffer{Addr: b.Addr, Size: 8}},
	} {
		if err := d.Free(c.b); !errors.Is(err, alloc.ErrForeign) {
			t.Errorf("Free of %s buffer = %v, want alloc.ErrForeign", c.name, err)
		}
	}
	if err := d.Free(b); err != nil {
		t.Fatal(err)
	}
	if err := d.Free(b); !errors.Is(err, alloc.ErrDoubleFree) && !errors.Is(err, alloc.ErrForeign) {
		t.Errorf("second Free = %v, want alloc.ErrDoubleFree or ErrForeign", err)
	}
}
