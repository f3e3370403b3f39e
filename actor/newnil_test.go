package actor_test

import (
	"testing"

	"github.com/pipert/pipert/actor"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
)

// TestNewRefusesNoGraph checks that New refuses a nil or zero
// subgraph.Checked with an error instead of panicking.
func TestNewRefusesNoGraph(t *testing.T) {
	for _, c := range []*subgraph.Checked{nil, {}} {
		if a, err := actor.New(c, plan.Config{}, actor.Options{}); err == nil {
			a.Close()
			t.Errorf("New(%v) succeeded", c)
		}
	}
}
