package device_test

import (
	"errors"
	"math"
	"testing"

	"github.com/pipert/pipert/device"
)

// TestLaunchRefusesArgumentsNoLinkSends checks that a kernel whose
// arguments are negative, or would take more than a day to cross the
// host-to-device link, fails to launch and leaves the stream as it was.
func TestLaunchRefusesArgumentsNoLinkSends(t *testing.T) {
	d, err := device.NewSim(device.SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := d.NewStream()
	for _, args := range []int64{-1, math.MaxInt64} {
		if err := s.Launch(device.Kernel{Name: "k", Args: args}); !errors.Is(err, device.ErrLaunchFailed) {
			t.Errorf("Args %d: %v, want ErrLaunchFailed", args, err)
		}
	}
	if st := s.Stats(); st.Kernels != 0 || st.LastEnd != 0 {
		t.Fatalf("stream after the refused launches: %+v", st)
	}
	if err := s.Launch(device.Kernel{Name: "k", Args: 4096}); err != nil {
		t.Fatalf("Args 4096: %v", err)
	}
}
