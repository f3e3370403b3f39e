package moe_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/pipert/pipert/device/fabric"
	"github.com/pipert/pipert/moe"
)

// TestProblemSizesDoNotOverflow checks that a problem whose buffers'
// element counts overflow an int64 product, or whose expert weights or
// router logits alone are too large, is rejected before anything is
// allocated.
func TestProblemSizesDoNotOverflow(t *testing.T) {
	for _, p := range []moe.Problem{
		// 8 × 2^40 × 2 × 2^40 wraps to 0 in int64.
		{Ranks: 8, Experts: 32, TopK: 2, Hidden: 1 << 40, Tokens: 1 << 40},
		{Ranks: 8, Experts: 32, TopK: 2, Hidden: math.MaxInt, Tokens: math.MaxInt},
		// no tokens, but 2^56 expert weights
		{Ranks: 8, Experts: 1 << 28, TopK: 1, Hidden: 1 << 28},
		// 2^50 router logits per rank
		{Ranks: 8, Experts: 1 << 30, TopK: 1, Hidden: 1, Tokens: 1 << 20},
	} {
		if err := p.Check(fabric.Config{Ranks: 8}); !errors.Is(err, moe.ErrProblem) {
			t.Errorf("Check(%+v) = %v, want ErrProblem", p, err)
		}
		if _, err := moe.Generate(p, nil); !errors.Is(err, moe.ErrProblem) {
			t.Errorf("Generate(%+v) = %v, want ErrProblem", p, err)
		}
		if _, err := moe.Routes(p, nil); !errors.Is(err, moe.ErrProblem) {
			t.Errorf("Routes(%+v) = %v, want ErrProblem", p, err)
		}
	}
	if err := moe.Full.Check(fabric.Config{Ranks: 8}); err != nil {
		t.Errorf("Check(Full) = %v", err)
	}
}

// TestRouteRejectsBadCounts checks that the router's counts are checked
// before a graph is built from them.
func TestRouteRejectsBadCounts(t *testing.T) {
	for _, c := range []struct{ n, experts, k int }{
		{2, 4, 5}, {2, 4, -1}, {-2, -4, 1}, {0, 0, 1}, {0, 4, 5},
	} {
		if _, _, err := moe.Route(make([]float32, 8), c.n, c.experts, c.k); !errors.Is(err, moe.ErrProblem) {
			t.Errorf("Route(8 logits, %d, %d, %d) = %v, want ErrProblem", c.n, c.experts, c.k, err)
		}
	}
	if idx, w, err := moe.Route(nil, 0, 4, 2); err != nil || len(idx) != 0 || len(w) != 0 {
		t.Errorf("Route of no tokens = %v, %v, %v", idx, w, err)
	}
}

// TestBadInputsAreErrors checks that Model, Run and Reference refuse what
// Input.Check refuses (an expert index out of range, a nil input, indices
// that do not match the counts) without panicking, and that Model refuses
// costs that are NaN or infinite.
func TestBadInputsAreErrors(t *testing.T) {
	p := moe.Problem{Ranks: 2, Experts: 4, TopK: 2, Hidden: 4, Tokens: 3}
	f := fabric.Config{Ranks: 2}
	bad := map[string]func(in *moe.Input){
		"expert out of range": func(in *moe.Input) { in.Idx[0][0] = 99 },
		"negative expert":     func(in *moe.Input) { in.Idx[1][1] = -1 },
		"short indices":       func(in *moe.Input) { in.Idx[0] = in.Idx[0][:1] },
		"counts of one rank":  func(in *moe.Input) { in.Counts = in.Counts[:1] },
	}
	for name, spoil := range bad {
		in, err := moe.Generate(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		spoil(in)
		if _, err := moe.Model(moe.VReference, in, moe.DefaultCosts(), f, moe.ModelOptions{}); !errors.Is(err, moe.ErrProblem) {
			t.Errorf("%s: Model = %v, want ErrProblem", name, err)
		}
		if _, err := moe.Run(t.Context(), moe.VReference, in, moe.Options{Fabric: f}); !errors.Is(err, moe.ErrProblem) {
			t.Errorf("%s: Run = %v, want ErrProblem", name, err)
		}
		if out := moe.Reference(in); out != nil {
			t.Errorf("%s: Reference gave a result", name)
		}
	}
	if _, err := moe.Model(moe.VReference, nil, moe.DefaultCosts(), f, moe.ModelOptions{}); !errors.Is(err, moe.ErrProblem) {
		t.Errorf("Model of no input = %v, want ErrProblem", err)
	}
	if _, err := moe.Run(t.Context(), moe.VReference, nil, moe.Options{Fabric: f}); !errors.Is(err, moe.ErrProblem) {
		t.Errorf("Run of no input = %v, want ErrProblem", err)
	}
	in, err := moe.Generate(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Negative watchdogs and a failure after a negative number of tokens.
	if _, err := moe.Model(moe.VReference, in, moe.DefaultCosts(), f, moe.ModelOptions{Watchdog: -time.Second}); !errors.Is(err, moe.ErrProblem) {
		t.Errorf("Model with a negative watchdog = %v, want ErrProblem", err)
	}
	for _, o := range []moe.Options{{Fabric: f, Watchdog: -time.Second}, {Fabric: f, Fail: &moe.Failure{Rank: 1, After: -3}}} {
		if _, err := moe.Run(t.Context(), moe.VReference, in, o); !errors.Is(err, moe.ErrProblem) {
			t.Errorf("Run with %+v = %v, want ErrProblem", o, err)
		}
	}
	for _, spoil := range []func(c *moe.Costs){
		func(c *moe.Costs) { c.MemBandwidth = math.NaN() },
		func(c *moe.Costs) { c.MemBandwidth = math.Inf(1) },
		func(c *moe.Costs) { c.LaunchShare = math.NaN() },
	} {
		c := moe.DefaultCosts()
		spoil(&c)
		if _, err := moe.Model(moe.VReference, in, c, f, moe.ModelOptions{}); !errors.Is(err, moe.ErrProblem) {
			t.Errorf("costs %+v: Model = %v, want ErrProblem", c, err)
		}
	}
}
