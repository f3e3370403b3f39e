package heterog

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// testGroups returns worker groups on a new manager, released at the end.
func testGroups(tb testing.TB, sizes ...int) []groupSlot {
	tb.Helper()
	m, err := NewManager(nil, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := m.Release(); err != nil {
			tb.Error(err)
		}
	})
	slots := make([]groupSlot, len(sizes))
	for i, n := range sizes {
		// Distinct devices give distinct groups.
		dev := m.Accelerator()
		if i%2 == 1 {
			dev = m.CPU()
		}
		g, err := m.Group(dev, n+i*1000)
		if err != nil {
			tb.Fatal(err)
		}
		slots[i] = groupSlot{g: g, limit: n}
	}
	return slots
}

// randomDAG returns successors of n tasks numbered in a topological order.
func randomDAG(rng *rand.Rand, n int) [][]int {
	succ := make([][]int, n)
	for j := 1; j < n; j++ {
		for range rng.IntN(3) {
			i := rng.IntN(j)
			dup := false
			for _, s := range succ[i] {
				dup = dup || s == j
			}
			if !dup {
				succ[i] = append(succ[i], j)
			}
		}
	}
	return succ
}

func TestSchedulerRunsEveryTaskAfterItsPredecessors(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	slots := testGroups(t, 1, 3)
	for iter := range 100 {
		n := 1 + rng.IntN(40)
		succ := randomDAG(rng, n)
		group := make([]int, n)
		for i := range group {
			group[i] = rng.IntN(len(slots))
		}
		var mu sync.Mutex
		var order []int
		running := make([]atomic.Int32, len(slots))
		var over atomic.Bool
		s := newScheduler(succ, group, slots, func(ctx context.Context, i int) error {
			if running[group[i]].Add(1) > int32(slots[group[i]].limit) {
				over.Store(true)
			}
			for range i % 4 { // vary how long tasks run
				runtime.Gosched()
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			running[group[i]].Add(-1)
			return nil
		})
		for range 2 { // twice: a scheduler is reused run after run
			order = order[:0]
			failed, err := s.run(context.Background())
			if err != nil || failed != -1 {
				t.Fatalf("dag %d: task %d failed: %v", iter, failed, err)
			}
			if len(order) != n || s.ran != n {
				t.Fatalf("dag %d: %d of %d tasks ran (%d counted)", iter, len(order), n, s.ran)
			}
			at := make([]int, n)
			seen := make([]bool, n)
			for k, i := range order {
				if seen[i] {
					t.Fatalf("dag %d: task %d ran twice", iter, i)
				}
				seen[i], at[i] = true, k
			}
			for i, ss := range succ {
				for _, j := range ss {
					if at[j] < at[i] {
						t.Fatalf("dag %d: task %d ran before its predecessor %d", iter, j, i)
					}
				}
			}
		}
		if over.Load() {
			t.Fatalf("dag %d: a group ran more tasks at once than its limit", iter)
		}
	}
}

func TestSchedulerStartsTheLowestReadyTaskFirst(t *testing.T) {
	// Task 0 fans out to 1..8, all on a group of one worker: they must run
	// in number order, whatever order they became ready in.
	succ := [][]int{{8, 3, 5, 1, 7, 2, 6, 4}, nil, nil, nil, nil, nil, nil, nil, nil}
	slots := testGroups(t, 1)
	var order []int
	s := newScheduler(succ, make([]int, len(succ)), slots, func(ctx context.Context, i int) error {
		order = append(order, i) // one worker: no race
		return nil
	})
	if _, err := s.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for k, i := range order {
		if i != k {
			t.Fatalf("order %v", order)
		}
	}
}

func TestSchedulerStopsAtTheFirstError(t *testing.T) {
	// 0 -> 1 -> 2 and an independent 3 that waits for cancellation.
	succ := [][]int{{1}, {2}, nil, nil}
	slots := testGroups(t, 4)
	boom := errors.New("boom")
	var ran [4]atomic.Bool
	s := newScheduler(succ, make([]int, 4), slots, func(ctx context.Context, i int) error {
		ran[i].Store(true)
		switch i {
		case 1:
			return boom
		case 3:
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	})
	failed, err := s.run(context.Background())
	if !errors.Is(err, boom) || failed != 1 {
		t.Fatalf("run: task %d, %v", failed, err)
	}
	if ran[2].Load() {
		t.Fatal("a successor of the failed task ran")
	}
	if !ran[3].Load() {
		t.Fatal("the independent task never started")
	}
	// The scheduler is reusable after a failure.
	s.task = func(context.Context, int) error { return nil }
	if failed, err := s.run(context.Background()); err != nil || failed != -1 || s.ran != 4 {
		t.Fatalf("second run: task %d, %v, %d ran", failed, err, s.ran)
	}
}

func TestSchedulerOfNoTasks(t *testing.T) {
	s := newScheduler(nil, nil, nil, nil)
	if failed, err := s.run(context.Background()); err != nil || failed != -1 {
		t.Fatalf("empty run: %d, %v", failed, err)
	}
}

// BenchmarkSchedulerChain measures the activation overhead of a part: a
// chain of tasks that do nothing, so that every activation is a hand-off
// from the decider to a worker and back, on the critical path.
func BenchmarkSchedulerChain(b *testing.B) {
	const n = 256
	succ := make([][]int, n)
	for i := range n - 1 {
		succ[i] = []int{i + 1}
	}
	slots := testGroups(b, 1)
	s := newScheduler(succ, make([]int, n), slots, func(context.Context, int) error { return nil })
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.run(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N*n), "ns/activation")
}

// BenchmarkSchedulerFan measures activations in bulk: one task fans out to
// many independent ones on a group of two workers.
func BenchmarkSchedulerFan(b *testing.B) {
	const n = 256
	succ := make([][]int, n)
	for i := 1; i < n; i++ {
		succ[0] = append(succ[0], i)
	}
	slots := testGroups(b, 2)
	s := newScheduler(succ, make([]int, n), slots, func(context.Context, int) error { return nil })
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.run(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N*n), "ns/activation")
}
