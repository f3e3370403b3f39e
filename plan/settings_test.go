package plan

import (
	"errors"
	"strings"
	"testing"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
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
