package plan_test

import (
	"errors"
	"testing"

	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/plan"
)

// TestPlanErrorsAreErrConfig: PlanOf of an invalid mode or barrier
// policy and Validate of a plan the engine cannot run are ErrConfig
// errors, as Check's are.
func TestPlanErrorsAreErrConfig(t *testing.T) {
	for _, c := range []struct {
		m plan.Mode
		b plan.BarrierPolicy
	}{{0, plan.Drain}, {99, plan.Drain}, {plan.KBK, 0}, {plan.Pipeline, 99}} {
		if _, err := plan.PlanOf(c.m, c.b); !errors.Is(err, plan.ErrConfig) {
			t.Errorf("PlanOf(%d, %d) = %v, want ErrConfig", c.m, c.b, err)
		}
	}
	good, err := plan.PlanOf(plan.Pipeline, plan.Drain)
	if err != nil {
		t.Fatal(err)
	}
	bad := []plan.Plan{good, good, good}
	bad[0].Worker[kernel.StagePrepare] = 1
	bad[1].Worker[kernel.StageLaunch] = 7
	bad[2].Barrier = 0
	for _, p := range bad {
		if err := p.Validate(); !errors.Is(err, plan.ErrConfig) {
			t.Errorf("Validate(%v) = %v, want ErrConfig", p, err)
		}
	}
}

// TestNilConfig: CostOf of a nil Config is an ErrConfig error naming the
// node, and a nil Config is not Checked.
func TestNilConfig(t *testing.T) {
	var c *plan.Config
	if _, err := c.CostOf(plan.Node{Name: "n"}); !errors.Is(err, plan.ErrConfig) {
		t.Errorf("CostOf of a nil Config: %v, want ErrConfig", err)
	}
	if c.Checked() {
		t.Error("a nil Config is Checked")
	}
}
