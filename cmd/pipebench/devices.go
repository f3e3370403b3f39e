package main

import (
	"fmt"
	"sync"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/swai"
)

// deviceFactory makes the simulated devices a run uses: one per variant, so
// that their statistics stay apart.
type deviceFactory struct {
	name    string
	profile swai.Profile
	closers []func() error
}

// newDeviceFactory resolves -device: "swai" (the default), "gpu", or the
// path of a JSON profile file (see device/swai.LoadProfile).
func newDeviceFactory(spec string) (*deviceFactory, error) {
	f := &deviceFactory{name: spec}
	switch spec {
	case "", "swai":
		f.name, f.profile = "swai", swai.Default()
	case "gpu":
		f.profile = swai.GPU()
	default:
		if e := pathExt(spec); e != ".json" && e != ".yaml" && e != ".yml" {
			return nil, fmt.Errorf("%w: -device %q: want swai, gpu or a .json or .yaml profile file", errUsage, spec)
		}
		p, err := loadProfileFile(spec)
		if err != nil {
			return nil, fmt.Errorf("%w: -device: %v", errUsage, err)
		}
		f.profile = p
	}
	return f, nil
}

// newProfileFactory makes devices of profile p, named name.
func newProfileFactory(name string, p swai.Profile) *deviceFactory {
	return &deviceFactory{name: name, profile: p}
}

// calibration is the host's, measured once per process: every device of
// every run shares it.
var calibration = sync.OnceValue(swai.Calibrate)

// make returns a new device; override, when set, replaces the card with a
// plain simulated device of that profile (the zerocost scenario).
func (f *deviceFactory) make(override *device.Profile, obs device.Observer) (device.Device, error) {
	if override != nil {
		return device.NewSim(device.SimOptions{Profile: *override, Observer: obs})
	}
	d, err := swai.New(f.profile, swai.WithCalibration(calibration()), swai.WithObserver(obs))
	if err != nil {
		return nil, err
	}
	f.closers = append(f.closers, d.Close)
	return d, nil
}

func (f *deviceFactory) close() {
	for _, c := range f.closers {
		c()
	}
	f.closers = nil
}
