package plan

import (
	"errors"
	"strings"
	"testing"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/fault"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
	"github.com/pipert/pipert/trace"
)

// TestCheckRefusesNilPointerSettings: a Device or Registry that is an
// interface holding a nil pointer is an ErrConfig error naming the
// setting, not a nil dereference later.
func TestCheckRefusesNilPointerSettings(t *testing.T) {
	for name, c := range map[string]Config{
		"Device":    {Device: (*device.Sim)(nil)},
		"Registry":  {Registry: (*ops.Registry)(nil)},
		"Placement": {Placement: (*nilPlacer)(nil)},
	} {
		_, err := c.Check()
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s a nil pointer: Check gave %v, want an ErrConfig error naming it", name, err)
		}
	}
}

// nilPlacer is a placement policy of the caller's, given as a nil pointer.
type nilPlacer struct{}

func (*nilPlacer) Place(*subgraph.Checked, Target) ([]subgraph.Placement, error) { return nil, nil }

// panicRegistry is a resolver of the caller's whose Has panics.
type panicRegistry struct{}

func (panicRegistry) Has(op string) bool                                   { panic("registry bug") }
func (panicRegistry) New(op string, a kernel.Attrs) (kernel.Kernel, error) { return nil, nil }

// TestCheckRecoversRegistryPanic: checking Virtual asks the registry; its
// panic is an error matching kernel.ErrPanic.
func TestCheckRecoversRegistryPanic(t *testing.T) {
	c := Config{Registry: panicRegistry{}, Placement: fixedPlacer{}, Virtual: []string{"ReLU"}}
	_, err := c.Check()
	if !errors.Is(err, kernel.ErrPanic) || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "registry bug") {
		t.Errorf("Check gave %v, want an ErrConfig error matching kernel.ErrPanic", err)
	}
}

// panicNameDevice is a device of the caller's whose Name, or Profile,
// panics.
type panicNameDevice struct {
	device.Device
	inProfile bool
}

func (d panicNameDevice) Name() string {
	if d.inProfile {
		return "dev"
	}
	panic("name bug")
}

func (d panicNameDevice) Profile() device.Profile { panic("profile bug") }

// TestCheckRecoversDevicePanic: a panic in the device's Name or Profile is
// an ErrConfig error matching kernel.ErrPanic that names the method.
func TestCheckRecoversDevicePanic(t *testing.T) {
	for method, d := range map[string]panicNameDevice{"Name": {}, "Profile": {inProfile: true}} {
		_, err := Config{Device: d}.Check()
		if !errors.Is(err, kernel.ErrPanic) || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "its "+method+" method") {
			t.Errorf("%s panics: Check gave %v, want an ErrConfig error matching kernel.ErrPanic naming the method", method, err)
		}
	}
}

// TestCheckRefusesNoDevice: a device of nothing (the zero value of a
// device type, a wrapper of a nil device) is an ErrConfig error matching
// device.ErrNoDevice, not one about its zero profile's first field.
func TestCheckRefusesNoDevice(t *testing.T) {
	for name, d := range map[string]device.Device{"zero fault.Device": &fault.Device{}, "fault.New(nil)": fault.New(nil, 1), "zero Profile": zeroProfile{}} {
		_, err := Config{Device: d}.Check()
		if !errors.Is(err, device.ErrNoDevice) || !errors.Is(err, ErrConfig) {
			t.Errorf("%s: Check gave %v, want an ErrConfig error matching device.ErrNoDevice", name, err)
		}
	}
}

// zeroProfile is a device of the caller's with a name and a zero profile.
type zeroProfile struct{ device.Device }

func (zeroProfile) Name() string            { return "z" }
func (zeroProfile) Profile() device.Profile { return device.Profile{} }

// TestCheckRefusesZeroRecorder: a Recorder not made by trace.New or
// trace.Create records nothing: an ErrConfig error naming Trace and
// matching trace.ErrMisuse, not a panic or an untraced run.
func TestCheckRefusesZeroRecorder(t *testing.T) {
	_, err := Config{Trace: &trace.Recorder{}}.Check()
	if !errors.Is(err, ErrConfig) || !errors.Is(err, trace.ErrMisuse) || !strings.Contains(err.Error(), "Trace") {
		t.Errorf("Check gave %v, want an ErrConfig error naming Trace and matching trace.ErrMisuse", err)
	}
}

// fixedPlacer places every node on the device.
type fixedPlacer struct{}

func (fixedPlacer) Place(c *subgraph.Checked, t Target) ([]subgraph.Placement, error) {
	return make([]subgraph.Placement, len(c.Graph.Nodes)), nil
}

// TestCheckRefusesSerialWithoutPlacement: the Serial schedule is one of a
// heterogeneous run; without Placement it is an ErrConfig error naming
// it, as Virtual operators are, not a setting silently ignored.
func TestCheckRefusesSerialWithoutPlacement(t *testing.T) {
	if _, err := (Config{Schedule: Serial}).Check(); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "Schedule") {
		t.Errorf("Serial without Placement: %v, want an ErrConfig error naming Schedule", err)
	}
	if _, err := (Config{Schedule: Serial, Placement: fixedPlacer{}}).Check(); err != nil {
		t.Errorf("Serial with Placement: %v", err)
	}
}
