package devicetest_test

import (
	"testing"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/devicetest"
	"github.com/pipert/pipert/device/fault"
	"github.com/pipert/pipert/device/host"
	"github.com/pipert/pipert/device/swai"
)

func TestSim(t *testing.T) {
	devicetest.Run(t, func(t *testing.T) device.Device {
		d, err := device.NewSim(device.SimOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return d
	})
}

func TestHost(t *testing.T) {
	devicetest.Run(t, func(t *testing.T) device.Device {
		d, err := host.New(host.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return d
	})
}

func TestHostMapped(t *testing.T) {
	devicetest.Run(t, func(t *testing.T) device.Device {
		d, err := device.NewSim(device.SimOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return host.Map(d)
	})
}

func TestSWAI(t *testing.T) {
	for _, p := range []swai.Profile{swai.Default(), swai.GPU()} {
		t.Run(p.Name, func(t *testing.T) {
			devicetest.Run(t, func(t *testing.T) device.Device {
				d, err := swai.New(p, swai.WithCalibration(swai.Calibration{HostCopyBandwidth: 8e9}))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { d.Close() })
				return d
			})
		})
	}
}

// TestFaultWrapperWithoutRules: the fault wrapper with no rule is a
// conforming device.
func TestFaultWrapperWithoutRules(t *testing.T) {
	devicetest.Run(t, func(t *testing.T) device.Device {
		d, err := device.NewSim(device.SimOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return fault.New(d, 1)
	})
}
