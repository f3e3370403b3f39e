package moe_test

import (
	"testing"

	"github.com/pipert/pipert/moe"
)

// TestExpertsPerRankOfNoRanks: a problem of no ranks holds no experts per
// rank; ExpertsPerRank does not divide by zero.
func TestExpertsPerRankOfNoRanks(t *testing.T) {
	for _, p := range []moe.Problem{{}, {Ranks: -2, Experts: 4}} {
		if n := p.ExpertsPerRank(); n != 0 {
			t.Errorf("%+v: ExpertsPerRank = %d, want 0", p, n)
		}
	}
}
