package main

import (
	"slices"
	"testing"
	"time"
)

// TestTwinOrder: without twins every round runs in the runners' order;
// with them, each variant's twins swap places in every other round, and
// the variants keep their order.
func TestTwinOrder(t *testing.T) {
	rs := []string{"a", "a'", "b", "b'", "c", "c'"}
	for rp := -2; rp < 4; rp++ {
		if got := twinOrder(rs, rp, false); !slices.Equal(got, rs) {
			t.Errorf("round %d without twins: %v", rp, got)
		}
		want := rs
		if rp%2 != 0 {
			want = []string{"a'", "a", "b'", "b", "c'", "c"}
		}
		if got := twinOrder(rs, rp, true); !slices.Equal(got, want) {
			t.Errorf("round %d with twins: %v, want %v", rp, got, want)
		}
	}
	if !slices.Equal(rs, []string{"a", "a'", "b", "b'", "c", "c'"}) {
		t.Errorf("twinOrder changed its argument: %v", rs)
	}
}

// TestPairedOverhead: the overhead is the median of the pairs' ratios, not
// the ratio of the medians, and the per-kernel figure the median of the
// pairs' differences.
func TestPairedOverhead(t *testing.T) {
	mk := func(ms ...int) []sample {
		var out []sample
		for _, m := range ms {
			var s sample
			s.Makespan, s.Kernels = time.Duration(m)*time.Millisecond, 1000
			out = append(out, s)
		}
		return out
	}
	// Pairs: 100→101 (+1%), 200→204 (+2%), 100→110 (+10%), 400→404 (+1%),
	// 100→103 (+3%). Ratios sorted: 1, 1, 2, 3, 10 (%).
	med, iqr, ns := pairedOverhead(mk(100, 200, 100, 400, 100), mk(101, 204, 110, 404, 103))
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	if !near(med, 0.02) || !near(iqr[0], 0.01) || !near(iqr[1], 0.03) {
		t.Errorf("overhead %v [%v, %v], want 0.02 [0.01, 0.03]", med, iqr[0], iqr[1])
	}
	// Differences per kernel: 1, 4, 10, 4, 3 ms / 1000 → median 4 µs.
	if !near(ns, 4000) {
		t.Errorf("per kernel %v ns, want 4000", ns)
	}
	if med, _, ns := pairedOverhead(nil, mk(1)); med != 0 || ns != 0 {
		t.Errorf("no pairs: %v, %v", med, ns)
	}
}
