package queues

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// stageLog records, per stage, the tasks its handler ran and checks that each
// task reaches a stage only after the previous stage finished with it.
type stageLog struct {
	t       *testing.T
	reached []atomic.Int32 // by task index: last stage that ran it
	ran     [3][]int       // each written only by its stage's worker
	failAt  [3]int         // task index whose handler fails in each stage, 0 for none
}

func newStageLog(t *testing.T, n int) *stageLog {
	return &stageLog{t: t, reached: make([]atomic.Int32, n+1)}
}

func (l *stageLog) handlers() []func(int) error {
	hs := make([]func(int) error, 3)
	for s := range hs {
		hs[s] = func(v int) error {
			if got := l.reached[v].Load(); got != int32(s) {
				l.t.Errorf("stage %d got task %d after stage %d", s+1, v, got)
			}
			l.reached[v].Store(int32(s + 1))
			l.ran[s] = append(l.ran[s], v)
			if v == l.failAt[s] {
				return fmt.Errorf("stage %d: %w", s+1, errBoom)
			}
			return nil
		}
	}
	return hs
}

func seq(from, to int) []int {
	var out []int
	for v := from; v <= to; v++ {
		out = append(out, v)
	}
	return out
}

func TestPipelineOrder(t *testing.T) {
	const n = 20_000
	l := newStageLog(t, n)
	p := mustPipeline(t, []string{}, l.handlers(), 16)
	for v := 1; v <= n; v++ {
		tk, err := p.PushT(v)
		if err != nil {
			t.Fatal(err)
		}
		if v%1000 == 0 {
			if err := p.WaitTicket(Launch, tk); err != nil {
				t.Fatal(err)
			}
			if l.reached[v].Load() != 3 {
				t.Fatalf("WaitTicket(Launch, %d) returned before task %d launched", tk, v)
			}
		}
	}
	if err := p.WaitStage(Resize); err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	for s := range 3 {
		if fmt.Sprint(l.ran[s]) != fmt.Sprint(seq(1, n)) {
			t.Fatalf("stage %d ran tasks out of order or not exactly once", s+1)
		}
	}
	for i, st := range p.Stats() {
		if st.Pushed != n || st.Handled != n {
			t.Fatalf("stage %d stats %+v", i+1, st)
		}
		if p.Len(Stage(i+1)) != 0 {
			t.Fatalf("stage %d not empty after Wait", i+1)
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestPipelineManyProducers checks that every stage handles the tasks in the
// order the Infer stage linearized them, each exactly once.
func TestPipelineManyProducers(t *testing.T) {
	const producers, n = 4, 5000
	var ran [3][]task
	hs := make([]func(task) error, 3)
	for s := range hs {
		hs[s] = func(v task) error { ran[s] = append(ran[s], v); return nil }
	}
	p := mustPipeline(t, []string{"a", "b", "c"}, hs, 8, WithSpin(4))
	res := make([]pushResult, producers)
	var wg sync.WaitGroup
	for i := range producers {
		wg.Go(func() {
			for j := 1; j <= n; j++ {
				v := task{p: i, i: j}
				tk, err := p.PushT(v)
				if err != nil {
					t.Error(err)
					return
				}
				res[i].tickets = append(res[i].tickets, tk)
				res[i].tasks = append(res[i].tasks, v)
			}
		})
	}
	wg.Wait()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	want := byTicket(t, res)
	for s := range 3 {
		equalTasks(t, fmt.Sprintf("stage %d", s+1), ran[s], want)
	}
}

func TestPipelineErrorInMiddleStage(t *testing.T) {
	const n, bad = 3000, 1234
	l := newStageLog(t, n)
	l.failAt[1] = bad
	p := mustPipeline(t, []string{}, l.handlers(), 32)
	var tickets []uint64
	var pushErr error
	for v := 1; v <= n; v++ {
		tk, err := p.PushT(v)
		if err != nil {
			pushErr = err
			break
		}
		tickets = append(tickets, tk)
	}
	err := p.Wait()
	if !errors.Is(err, errBoom) || !strings.Contains(err.Error(), fmt.Sprintf("queues: resize: task %d: stage 2", bad)) {
		t.Fatalf("Wait = %v, want the resize failure at task %d", err, bad)
	}
	if pushErr != nil && pushErr != err {
		t.Fatalf("Push after the failure = %v, want %v", pushErr, err)
	}
	if err2 := p.Push(n + 1); err2 != err {
		t.Fatalf("Push = %v, want sticky %v", err2, err)
	}
	// Infer may run past the failure before it shows. Resize runs exactly up
	// to it. Launch runs a prefix of the tasks before it: once the error is
	// recorded, the tasks still queued in any stage are discarded.
	if infer := l.ran[0]; len(infer) < bad || fmt.Sprint(infer) != fmt.Sprint(seq(1, len(infer))) {
		t.Fatalf("infer ran %d tasks, want an in-order prefix of at least %d", len(infer), bad)
	}
	if fmt.Sprint(l.ran[1]) != fmt.Sprint(seq(1, bad)) {
		t.Fatalf("resize ran %d tasks, want 1..%d", len(l.ran[1]), bad)
	}
	launched := len(l.ran[2])
	if launched >= bad || fmt.Sprint(l.ran[2]) != fmt.Sprint(seq(1, launched)) {
		t.Fatalf("launch ran %d tasks, want an in-order prefix of 1..%d", launched, bad-1)
	}
	for _, tk := range tickets {
		got := p.WaitTicket(Launch, tk)
		if want := tk > uint64(launched); (got != nil) != want || (want && got != err) {
			t.Fatalf("WaitTicket(Launch, %d) = %v; %d tasks launched", tk, got, launched)
		}
	}
	if got := p.WaitTicket(Resize, bad-1); got != nil {
		t.Fatalf("WaitTicket(Resize, %d) = %v: resize ran it", bad-1, got)
	}
	if got := p.WaitTicket(Infer, bad); got != nil {
		t.Fatalf("WaitTicket(Infer, %d) = %v: infer ran it", bad, got)
	}
	if err2 := p.Close(); err2 != err {
		t.Fatalf("Close = %v, want %v", err2, err)
	}
}

func TestPipelineInvalidStage(t *testing.T) {
	p := mustPipeline(t, []string{}, []func(int) error{
		func(int) error { return nil }, func(int) error { return nil }, func(int) error { return nil },
	}, 0)
	defer p.Close()
	if err := p.WaitStage(0); err == nil {
		t.Error("WaitStage(0) = nil")
	}
	if err := p.WaitTicket(4, 1); err == nil {
		t.Error("WaitTicket(4, 1) = nil")
	}
	if p.Len(0) != 0 {
		t.Error("Len(0) != 0")
	}
	if p.Queue(0) != nil || p.Queue(Launch).Name() != "launch" {
		t.Errorf("Queue: %v, %v", p.Queue(0), p.Queue(Launch))
	}
	if p.Err() != nil {
		t.Errorf("Err = %v", p.Err())
	}
	if Stage(0).String() != "stage 0" || Launch.String() != "launch" {
		t.Errorf("String: %v, %v", Stage(0), Launch)
	}
}

func TestPipelineCloseDrains(t *testing.T) {
	const n = 5000
	l := newStageLog(t, n)
	p := mustPipeline(t, []string{}, l.handlers(), 4, WithSpin(-1))
	for v := 1; v <= n; v++ {
		if ok, err := p.TryPush(v); err != nil {
			t.Fatal(err)
		} else if !ok {
			if err := p.Push(v); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	for s := range 3 {
		if len(l.ran[s]) != n {
			t.Fatalf("stage %d ran %d of %d tasks before Close returned", s+1, len(l.ran[s]), n)
		}
	}
	if err := p.Push(1); !errors.Is(err, ErrClosed) {
		t.Fatalf("Push after Close = %v", err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
}

func TestPipelineAllocatesNothing(t *testing.T) {
	var sum atomic.Int64
	h := func(v int) error { sum.Add(int64(v)); return nil }
	p := mustPipeline(t, []string{}, []func(int) error{h, h, h}, 64)
	defer p.Close()
	if n := testing.AllocsPerRun(500, func() {
		for v := range 10 {
			if err := p.Push(v); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.Wait(); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("Push+Wait through the pipeline allocate %v times per run", n)
	}
}

// TestPipelineDrainBelowFromInfer has the Infer handler wait for the stages
// below it, the baseline value-dependency barrier, and checks that every
// earlier task was launched when the waits return.
func TestPipelineDrainBelowFromInfer(t *testing.T) {
	const n = 3000
	var launched atomic.Int64
	var p *Pipeline[int]
	ready := make(chan struct{})
	infer := func(v int) error {
		if v%100 != 0 {
			return nil
		}
		<-ready
		if err := p.Queue(Resize).Wait(); err != nil {
			return err
		}
		if err := p.Queue(Launch).Wait(); err != nil {
			return err
		}
		if got := launched.Load(); got != int64(v-1) {
			return fmt.Errorf("task %d: %d tasks launched after draining, want %d", v, got, v-1)
		}
		return nil
	}
	nop := func(int) error { return nil }
	launch := func(int) error { launched.Add(1); return nil }
	p = mustPipeline(t, []string{}, []func(int) error{infer, nop, launch}, 8)
	close(ready)
	for v := 1; v <= n; v++ {
		if err := p.Push(v); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if launched.Load() != n {
		t.Fatalf("launched %d of %d", launched.Load(), n)
	}
}
