package main

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/swai"
)

// deviceFactory makes the simulated devices a run uses: one per variant, so
// that their statistics stay apart.
type deviceFactory struct {
	name    string
	profile swai.Profile
	closers []func() error
	// pool, when set, gives the device of every variant without an
	// observer (a sweep's points; it closes it).
	pool *devicePool
}

// devicePool keeps one device of the current profile for a sweep's
// points: making a card allocates its pinned staging buffers and
// allocator tables, milliseconds that would otherwise recur for every
// variant of every point. Every variant of a point, and the traced runs of
// its prediction, share the device: they run one after another, and a
// run's statistics are the device's deltas over the run. Its observer
// forwards to the trace of the moment, none while the variants are
// measured (an atomic load per kernel). Owned by the sweep's goroutine.
type devicePool struct {
	key string
	dev *swai.Device
	fwd *forwardObserver
}

// forwardObserver passes device work to the observer of the moment (none
// between traced runs).
type forwardObserver struct {
	to atomic.Pointer[device.Observer]
}

func (f *forwardObserver) OnWork(w device.Work) {
	if o := f.to.Load(); o != nil {
		(*o).OnWork(w)
	}
}

// OnNewStream implements device.NewStreamObserver for the observer of the
// moment, if it is one: a traced variant's streams are made at its
// Compile, while its observer is set.
func (f *forwardObserver) OnNewStream(id int) {
	if o := f.to.Load(); o != nil {
		if n, ok := (*o).(device.NewStreamObserver); ok {
			n.OnNewStream(id)
		}
	}
}

// OnStreamReleased implements device.StreamObserver for the observer of
// the moment, if it is one.
func (f *forwardObserver) OnStreamReleased(id int) {
	if o := f.to.Load(); o != nil {
		if r, ok := (*o).(device.StreamObserver); ok {
			r.OnStreamReleased(id)
		}
	}
}

// device returns the device of profile p; a new profile closes the
// previous one's.
func (dp *devicePool) device(p swai.Profile) (*swai.Device, error) {
	key := fmt.Sprintf("%#v", p)
	if key == dp.key && dp.dev != nil {
		return dp.dev, nil
	}
	dp.close()
	fwd := &forwardObserver{}
	d, err := swai.New(p, swai.WithCalibration(calibration()), swai.WithObserver(fwd))
	if err != nil {
		return nil, err
	}
	dp.key, dp.dev, dp.fwd = key, d, fwd
	return d, nil
}

// traced returns the device of profile p whose work goes to obs until the
// returned release is called.
func (dp *devicePool) traced(p swai.Profile, obs device.Observer) (*swai.Device, func(), error) {
	d, err := dp.device(p)
	if err != nil {
		return nil, nil, err
	}
	dp.fwd.to.Store(&obs)
	return d, func() { dp.fwd.to.Store(nil) }, nil
}

func (dp *devicePool) close() {
	if dp.dev != nil {
		dp.dev.Close()
	}
	dp.key, dp.dev, dp.fwd = "", nil, nil
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
	if f.pool != nil && obs == nil {
		return f.pool.device(f.profile)
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
