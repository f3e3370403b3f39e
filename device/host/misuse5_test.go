package host_test

import (
	"context"
	"errors"
	"testing"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/host"
)

// TestMappedOfNoDevice: Map of a nil device, and the zero Mapped, answer
// Name, Profile and Stats and fail every call that can fail with
// device.ErrNoDevice, instead of panicking.
func TestMappedOfNoDevice(t *testing.T) {
	ctx := context.Background()
	for name, m := range map[string]*host.Mapped{"Map(nil)": host.Map(nil), "zero": {}} {
		_ = m.Name()
		if m.Profile() != (device.Profile{}) || m.Stats() != (device.Stats{}) {
			t.Errorf("%s: Profile %+v, Stats %+v of no device", name, m.Profile(), m.Stats())
		}
		if _, err := m.Alloc(8, true); !errors.Is(err, device.ErrNoDevice) {
			t.Errorf("%s: Alloc: %v", name, err)
		}
		buf := device.Buffer{Addr: 1, Size: 8}
		if err := m.Free(buf); !errors.Is(err, device.ErrNoDevice) {
			t.Errorf("%s: Free: %v", name, err)
		}
		if m.HostMapped(buf) {
			t.Errorf("%s: a buffer of no device is host-mapped", name)
		}
		s, e := m.NewStream(), m.NewEvent()
		for call, err := range map[string]error{
			"Launch":      s.Launch(device.Kernel{Name: "k"}),
			"CopyH2D":     s.CopyH2D(buf, make([]byte, 8)),
			"CopyD2H":     s.CopyD2H(ctx, make([]byte, 8), buf),
			"CopyD2D":     s.CopyD2D(buf, buf),
			"Synchronize": s.Synchronize(ctx),
			"event Sync":  e.Synchronize(ctx),
		} {
			if !errors.Is(err, device.ErrNoDevice) {
				t.Errorf("%s: %s: %v", name, call, err)
			}
		}
		s.Record(e)
		s.WaitEvent(e)
		_, _, _ = s.Query(), s.Stats(), e.Query()
		m.ReleaseStream(s)
	}
}
