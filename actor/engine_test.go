package actor_test

import (
	"context"
	"testing"

	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/scenarios"
)

// TestKBKWorkIsOneInterval checks that the clock reading ending a kernel's
// launch starts the next kernel's prepare when nothing waits in between:
// a KBK run with no barrier is one host work interval, every stage's busy
// time is inside it, and every run starts afresh.
func TestKBKWorkIsOneInterval(t *testing.T) {
	sc, _ := scenarios.Get("smallops")
	w, err := sc.Build(scenarios.Config{Real: true, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	a, _, done := newActor(t, w.Graph, plan.Config{Mode: plan.KBK}, ops.Builtins())
	defer done()
	var end int64
	for r := 0; r < 3; r++ {
		_, st, err := a.Run(context.Background(), ordered(w.Graph, w.Inputs))
		if err != nil {
			t.Fatal(err)
		}
		spans := a.Spans()
		if len(spans) != 1 || len(spans[0]) != 1 {
			t.Fatalf("run %d: spans %v, want one interval on one goroutine", r, spans)
		}
		s := spans[0][0]
		if s.Start <= end {
			t.Fatalf("run %d: work starts at %d, before the previous run's end %d", r, s.Start, end)
		}
		end = s.End
		busy := st.Prepare + st.Infer + st.Resize + st.Launch
		if got := s.End - s.Start; int64(busy) != got || st.Busiest != busy {
			t.Fatalf("run %d: stages busy %v, busiest %v, interval %d ns: want all equal", r, busy, st.Busiest, got)
		}
	}
}
