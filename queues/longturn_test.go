package queues

import (
	"testing"
)

// TestLongTurnYieldsToStalledNext: a first stage whose every task ends a
// long turn yields after pushing into a second stage that made no progress
// and has two tasks waiting (the second stage's handler is held on its
// first task), so its handler sees Yielded from the third task on; every
// task still flows through in order. Without more goroutines than
// processors, LongTurn does nothing.
func TestLongTurnYieldsToStalledNext(t *testing.T) {
	gate := make(chan struct{})
	var p *Pipeline[int]
	var yielded []bool
	var got []int
	first := func(v int) error {
		q := p.stages[0]
		yielded = append(yielded, q.Yielded())
		q.LongTurn()
		return nil
	}
	second := func(v int) error {
		if v == 0 {
			<-gate
		}
		got = append(got, v)
		return nil
	}
	p, err := NewPipeline([]string{"first", "second"}, []func(int) error{first, second}, 8)
	if err != nil {
		t.Fatal(err)
	}
	p.stages[0].crowded = true // as with fewer processors than stages
	const n = 5
	for i := range n {
		if err := p.Push(i); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.WaitStage(1); err != nil {
		t.Fatal(err)
	}
	close(gate)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	for i := 2; i < n; i++ {
		if !yielded[i] {
			t.Errorf("task %d: Yielded false after a push into a stalled stage; all: %v", i, yielded)
		}
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("second stage got %v, want 0…%d in order", got, n-1)
		}
	}
	if len(got) != n {
		t.Fatalf("second stage got %v, want %d tasks", got, n)
	}

	// Not crowded: LongTurn is a no-op.
	var long []bool
	var q *Pipeline[int]
	q, err = NewPipeline([]string{"a", "b"}, []func(int) error{func(int) error {
		s := q.stages[0]
		s.LongTurn()
		long = append(long, s.long)
		return nil
	}, func(int) error { return nil }}, 8)
	if err != nil {
		t.Fatal(err)
	}
	q.stages[0].crowded = false
	if err := q.Push(1); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	if len(long) != 1 || long[0] {
		t.Errorf("LongTurn on a stage that is not crowded: long %v", long)
	}
}
