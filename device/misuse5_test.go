package device_test

import (
	"context"
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

// TestSimNotMadeByNewSim: a nil or zero Sim is no device: it answers Name,
// Profile, Stats and Owns, and fails every call that can fail, its
// streams' included, with ErrNoDevice, instead of panicking.
func TestSimNotMadeByNewSim(t *testing.T) {
	ctx := context.Background()
	for name, d := range map[string]*device.Sim{"nil": nil, "zero": {}} {
		_ = d.Name()
		if d.Profile() != (device.Profile{}) || d.Stats() != (device.Stats{}) {
			t.Errorf("%s Sim: Profile %+v, Stats %+v", name, d.Profile(), d.Stats())
		}
		buf := device.Buffer{Addr: 1, Size: 8}
		if d.Owns(buf) {
			t.Errorf("%s Sim owns a buffer", name)
		}
		_, aerr := d.Alloc(8, true)
		s := d.NewStream()
		defer d.ReleaseStream(s)
		for call, err := range map[string]error{
			"Alloc":   aerr,
			"Free":    d.Free(buf),
			"Launch":  s.Launch(device.Kernel{Name: "k"}),
			"Replay":  s.(device.Replayer).Replay([]device.Kernel{{Name: "k"}}),
			"CopyH2D": s.CopyH2D(buf, make([]byte, 8)),
			"CopyD2H": s.CopyD2H(ctx, make([]byte, 8), buf),
			"CopyD2D": s.CopyD2D(buf, buf),
		} {
			if !errors.Is(err, device.ErrNoDevice) {
				t.Errorf("%s Sim: %s: %v, want ErrNoDevice", name, call, err)
			}
		}
		if err := d.Free(device.Buffer{}); err != nil {
			t.Errorf("%s Sim: Free of the zero Buffer: %v", name, err)
		}
	}
}

// TestReplayErrorWithoutCause: a nil *ReplayError prints "<nil>", and one
// without an Err names its kernel; neither panics.
func TestReplayErrorWithoutCause(t *testing.T) {
	var nilErr *device.ReplayError
	if nilErr.Error() != "<nil>" || nilErr.Unwrap() != nil {
		t.Errorf("nil ReplayError: %q", nilErr.Error())
	}
	e := &device.ReplayError{Kernel: 3}
	if e.Error() != "device: replay of kernel 3 failed" || e.Unwrap() != nil {
		t.Errorf("ReplayError without Err: %q", e.Error())
	}
}
