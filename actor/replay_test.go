package actor_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/actor"
	"github.com/pipert/pipert/internal/graphtest"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/plan"
)

// TestReplayMatchesKBK: random graphs run in mode Replay over a sequence
// of inputs whose rows sometimes change give, run after run, KBK's
// outputs bit for bit; a partial graph is replayed once captured, and each
// shape change falls back to the pipeline (and is captured again); in a
// graph with kernels that read values or have data-dependent shapes, only
// the partial sequences between them are replayed.
func TestReplayMatchesKBK(t *testing.T) {
	n := 30
	if testing.Short() {
		n = 8
	}
	rng := rand.New(rand.NewPCG(21, 4))
	replayed, replayedKernels := 0, 0
	defer func() {
		if !t.Failed() && (replayed < 4 || replayedKernels < 100) {
			t.Errorf("only %d graphs wholly replayed, %d kernels replayed in all: the test replays too little", replayed, replayedKernels)
		}
	}()
	for i := 0; i < n; i++ {
		valueDeps := i%4 == 3
		g, _ := graphtest.Random(rng, graphtest.Options{Nodes: 3 + rng.IntN(20), Cols: 1 + rng.Int64N(4), ValueDeps: valueDeps, DynamicRows: true})
		steps := make([][]*kernel.Tensor, 9)
		rows := make([]int64, len(steps))
		rows[0] = 1 + rng.Int64N(4)
		for s := range steps {
			if s > 0 {
				rows[s] = rows[s-1]
				if s == 5 { // one shape change, then the same shape again
					rows[s] = rows[s-1]%4 + 1
				}
			}
			steps[s] = graphtest.Refill(rng, g, rows[s])
		}
		want := kbkRuns(t, g, steps)
		for _, cs := range []plan.Caches{{Kinds: plan.NoCaches}, {}} {
			a, _, done := newActor(t, g, plan.Config{Mode: plan.Replay, Caches: cs}, ops.Builtins())
			var total plan.ReplayStats
			partial, segs := false, 0 // partial: some kernels are dynamic
			for s, in := range steps {
				got, st, err := a.Run(context.Background(), in)
				if err == nil {
					err = sameOutputs(want[s], got)
				}
				if err != nil {
					t.Fatalf("graph %d step %d, caches %v: %v", i, s, cs.Kinds, err)
				}
				r := st.Replay
				if s == 0 {
					partial = r.Dynamic > 0
					segs = r.Fallbacks
				}
				if r.Replays+r.Fallbacks != segs || r.Dynamic != st.Replay.Dynamic {
					t.Fatalf("graph %d step %d: replay stats %+v, %d sequences", i, s, r, segs)
				}
				if partial && (r.Reason == "" && r.Fallbacks > 0) {
					t.Fatalf("graph %d step %d: no reason: %+v", i, s, r)
				}
				if !partial {
					// Run 0 sizes the plan, run 1 is captured, run 2 on
					// replays; the shape change at 5 falls back and is
					// captured, 6 on replay again.
					want := s >= 2 && s != 5
					if (r.Replays == 1) != want || want && r.Kernels != a.Kernels() {
						t.Fatalf("graph %d step %d (rows %v): replay stats %+v", i, s, rows, r)
					}
					if s == 5 && r.Reason != "input dtypes or shapes differ from the capture's" {
						t.Fatalf("graph %d: shape change: %+v", i, r)
					}
				}
				replayedKernels += r.Kernels
				total.Add(r)
			}
			if !partial && total.Captures != 2 {
				t.Fatalf("graph %d: %d captures, want 2", i, total.Captures)
			}
			// A virtual run after a real capture replays on shapes alone.
			if !partial {
				replayed++
				virt := make([]*kernel.Tensor, len(steps[8]))
				for j, in := range steps[8] {
					virt[j] = kernel.Virtual(in.DType, in.Shape...)
				}
				got, st, err := a.Run(context.Background(), virt)
				if err != nil || st.Replay.Replays != 1 {
					t.Fatalf("graph %d: virtual replay: %v %+v", i, err, st.Replay)
				}
				for j, o := range got {
					// Outputs computed from constants alone stay real.
					if !o.Shape.Equal(want[8][j].Shape) || !o.IsVirtual() && string(o.Host) != string(want[8][j].Host) {
						t.Fatalf("graph %d: virtual replay output %d: %v", i, j, o)
					}
				}
				// And a real run after it still replays exactly.
				got, _, err = a.Run(context.Background(), steps[8])
				if err == nil {
					err = sameOutputs(want[8], got)
				}
				if err != nil {
					t.Fatalf("graph %d: real after virtual: %v", i, err)
				}
			}
			done()
		}
	}
}

// TestReplayedSequenceIsOneTask: in a graph with kernels that read values,
// a captured sequence predicted to replay goes to the stage goroutines as
// two tasks, its first kernel and the rest, instead of one a kernel: each
// task is a hand-over on every stage boundary, and one a kernel held the
// host to about the device's replay rate.
func TestReplayedSequenceIsOneTask(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	checked := 0
	for i := 0; i < 40 && checked < 3; i++ {
		g, _ := graphtest.Random(rng, graphtest.Options{Nodes: 8 + rng.IntN(16), Cols: 1 + rng.Int64N(4), ValueDeps: true})
		in := graphtest.Refill(rng, g, 2)
		want := kbkRuns(t, g, [][]*kernel.Tensor{in})[0]
		a, _, done := newActor(t, g, plan.Config{Mode: plan.Replay}, ops.Builtins())
		for run := 0; run < 4; run++ {
			before := actor.StageTasks(a)
			got, st, err := a.Run(context.Background(), in)
			if err == nil {
				err = sameOutputs(want, got)
			}
			if err != nil {
				t.Fatalf("graph %d run %d: %v", i, run, err)
			}
			tasks, long := actor.ReplayTasks(a)
			if run < 3 || st.Replay.Dynamic == 0 || st.Replay.Replays == 0 || !long {
				continue // sized, captured, then replayed from run 2 on
			}
			if n := actor.StageTasks(a) - before; n != uint64(tasks) {
				t.Errorf("graph %d run %d: %d tasks to the stage goroutines, want %d (%d kernels, replay %+v)", i, run, n, tasks, a.Kernels(), st.Replay)
			}
			checked++
		}
		done()
	}
	if checked == 0 {
		t.Fatal("no graph with a replayed sequence of two kernels or more next to dynamic kernels: the test checks nothing")
	}
}
