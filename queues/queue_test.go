package queues

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"

	"github.com/pipert/pipert/internal/hostmem"
)

var errBoom = errors.New("boom")

// task identifies a pushed value: producer p's i-th push.
type task struct {
	p, i int
	_    [2]uint64 // make T larger than a word, as real tasks are
}

// recorder is a handler that appends every task it runs; only the worker
// writes it, and readers look after Wait or Close (which order them after
// the worker's writes).
type recorder struct {
	ran    []task
	failAt task // run this one and fail; zero task never fails (i starts at 1)
	slow   bool // yield a random number of times per task
}

func (r *recorder) handle(v task) error {
	r.ran = append(r.ran, v)
	if r.slow {
		for range rand.IntN(20) {
			runtime.Gosched()
		}
	}
	if v.i != 0 && v == r.failAt {
		return errBoom
	}
	return nil
}

// pushResult is what one producer observed.
type pushResult struct {
	tickets []uint64 // ticket of each accepted push, in push order
	tasks   []task
	errs    []error // errors returned by rejected pushes
}

// produce runs producers goroutines pushing n tasks each (i = 1..n) and
// returns what each observed. Producers stop at their first error.
func produce(q *Queue[task], producers, n int) []pushResult {
	res := make([]pushResult, producers)
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			r := &res[p]
			for i := 1; i <= n; i++ {
				v := task{p: p, i: i}
				t, err := q.PushT(v)
				if err != nil {
					r.errs = append(r.errs, err)
					return
				}
				r.tickets = append(r.tickets, t)
				r.tasks = append(r.tasks, v)
			}
		})
	}
	wg.Wait()
	return res
}

// byTicket is the reference order: the accepted tasks sorted by ticket,
// checking that tickets are exactly 1..total and increase per producer.
func byTicket(t *testing.T, res []pushResult) []task {
	t.Helper()
	total := 0
	for _, r := range res {
		total += len(r.tickets)
	}
	order := make([]task, total)
	seen := make([]bool, total+1)
	for p, r := range res {
		for j, tk := range r.tickets {
			if tk == 0 || tk > uint64(total) || seen[tk] {
				t.Fatalf("producer %d: ticket %d invalid or duplicate (total %d)", p, tk, total)
			}
			if j > 0 && tk <= r.tickets[j-1] {
				t.Fatalf("producer %d: ticket %d after %d", p, tk, r.tickets[j-1])
			}
			seen[tk] = true
			order[tk-1] = r.tasks[j]
		}
	}
	return order
}

func equalTasks(t *testing.T, what string, got, want []task) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d tasks, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: task %d is %+v, want %+v", what, i+1, got[i], want[i])
		}
	}
}

func TestFIFOExactlyOnce(t *testing.T) {
	cases := []struct {
		producers, n, capacity int
		opts                   []Option
	}{
		{4, 100_000, 0, nil},
		{4, 5_000, 1, nil},
		{3, 5_000, 2, []Option{WithSpin(-1)}},
		{2, 5_000, 8, []Option{WithSpin(3)}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("p%d_n%d_cap%d", c.producers, c.n, c.capacity), func(t *testing.T) {
			var r recorder
			q := mustNew(t, "fifo", c.capacity, r.handle, c.opts...)
			res := produce(q, c.producers, c.n)
			if err := q.Close(); err != nil {
				t.Fatal(err)
			}
			want := byTicket(t, res)
			if len(want) != c.producers*c.n {
				t.Fatalf("accepted %d pushes, want %d", len(want), c.producers*c.n)
			}
			equalTasks(t, "handled", r.ran, want)
			s := q.Stats()
			if s.Pushed != uint64(len(want)) || s.Handled != s.Pushed || s.Failed != 0 {
				t.Fatalf("stats %+v after %d tasks", s, len(want))
			}
		})
	}
}

// TestAgainstReference checks random configurations, with and without a
// failing task, against the sequential reference: the worker runs the tasks
// in ticket order up to and including the first failure and none after it.
func TestAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for c := range 150 {
		producers := 1 + rng.IntN(4)
		n := 1 + rng.IntN(300)
		capacity := []int{1, 2, 4, 16, 0}[rng.IntN(5)]
		spin := []int{-1, 1, 0}[rng.IntN(3)]
		var r recorder
		fails := rng.IntN(2) == 0
		if fails {
			r.failAt = task{p: rng.IntN(producers), i: 1 + rng.IntN(n)}
		}
		r.slow = rng.IntN(4) == 0
		name := fmt.Sprintf("case%d", c)
		q := mustNew(t, name, capacity, r.handle, WithSpin(spin))
		res := produce(q, producers, n)
		waitErr := q.Wait()
		order := byTicket(t, res)

		// Reference: ticket of the failing task, 0 if none ran.
		bad := 0
		for i, v := range order {
			if fails && v == r.failAt {
				bad = i + 1
				break
			}
		}
		want := order
		if bad != 0 {
			want = order[:bad]
		}
		equalTasks(t, name, r.ran, want)

		if bad == 0 {
			if waitErr != nil {
				t.Fatalf("%s: Wait = %v, want nil", name, waitErr)
			}
			for p, pr := range res {
				if len(pr.errs) != 0 {
					t.Fatalf("%s: producer %d got %v without a failure", name, p, pr.errs)
				}
			}
		} else {
			if !errors.Is(waitErr, errBoom) || !strings.Contains(waitErr.Error(), fmt.Sprintf("%s: task %d:", name, bad)) {
				t.Fatalf("%s: Wait = %v, want boom at task %d", name, waitErr, bad)
			}
			for p, pr := range res {
				for _, err := range pr.errs {
					if err != waitErr {
						t.Fatalf("%s: producer %d got %v, want the sticky %v", name, p, err, waitErr)
					}
				}
			}
			if err := q.Push(task{}); err != waitErr {
				t.Fatalf("%s: Push after failure = %v, want %v", name, err, waitErr)
			}
			if ok, err := q.TryPush(task{}); ok || err != waitErr {
				t.Fatalf("%s: TryPush after failure = %v, %v", name, ok, err)
			}
		}
		for i := 0; i < 20 && len(order) > 0; i++ {
			tk := 1 + uint64(rng.IntN(len(order)))
			err := q.WaitTicket(tk)
			if wantErr := bad != 0 && tk >= uint64(bad); (err != nil) != wantErr || (wantErr && err != waitErr) {
				t.Fatalf("%s: WaitTicket(%d) = %v with failure at %d", name, tk, err, bad)
			}
		}
		s := q.Stats()
		wantFailed := uint64(0)
		if bad != 0 {
			wantFailed = uint64(len(order) - bad + 1)
		}
		if s.Pushed != uint64(len(order)) || s.Handled != s.Pushed || s.Failed != wantFailed {
			t.Fatalf("%s: stats %+v, want %d pushed, %d failed", name, s, len(order), wantFailed)
		}
		if err := q.Close(); err != waitErr {
			t.Fatalf("%s: Close = %v, want %v", name, err, waitErr)
		}
	}
}

// gate is a handler that reports each task it starts and then blocks until
// released, so tests can hold the worker inside a handler.
type gate struct {
	started chan int
	release chan struct{}
	ran     []int
}

func newGate() *gate { return &gate{started: make(chan int, 1024), release: make(chan struct{})} }

func (g *gate) handle(v int) error {
	g.started <- v
	<-g.release
	g.ran = append(g.ran, v)
	return nil
}

func TestTryPushFull(t *testing.T) {
	g := newGate()
	q := mustNew(t, "full", 3, g.handle) // a ring of 4, at most 3 in flight
	if err := q.Push(1); err != nil {
		t.Fatal(err)
	}
	<-g.started // the worker runs task 1: it is still in flight
	for v := 2; v <= 3; v++ {
		if ok, err := q.TryPush(v); !ok || err != nil {
			t.Fatalf("TryPush(%d) = %v, %v; want accepted", v, ok, err)
		}
	}
	if ok, err := q.TryPush(4); ok || err != nil {
		t.Fatalf("TryPush with 3 tasks in flight = %v, %v; want false, nil", ok, err)
	}
	if n := q.Len(); n != 3 {
		t.Fatalf("Len = %d, want 3", n)
	}
	close(g.release)
	if err := q.Wait(); err != nil {
		t.Fatal(err)
	}
	if ok, err := q.TryPush(4); !ok || err != nil {
		t.Fatalf("TryPush after draining = %v, %v", ok, err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	if want := []int{1, 2, 3, 4}; fmt.Sprint(g.ran) != fmt.Sprint(want) {
		t.Fatalf("ran %v, want %v", g.ran, want)
	}
	if ok, err := q.TryPush(7); ok || !errors.Is(err, ErrClosed) {
		t.Fatalf("TryPush after Close = %v, %v", ok, err)
	}
	if q.Len() != 0 {
		t.Fatalf("Len after Close = %d", q.Len())
	}
}

// TestWaitCoversEarlierPushes has goroutines push and then Wait, each
// checking that all its own tasks were handled when Wait returned.
func TestWaitCoversEarlierPushes(t *testing.T) {
	const producers, rounds, per = 4, 200, 20
	done := make([]atomic.Bool, producers*rounds*per)
	q := mustNew(t, "wait", 8, func(i int) error {
		done[i].Store(true)
		return nil
	})
	defer q.Close()
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for r := range rounds {
				base := (p*rounds + r) * per
				for i := range per {
					if err := q.Push(base + i); err != nil {
						t.Error(err)
						return
					}
				}
				if err := q.Wait(); err != nil {
					t.Error(err)
					return
				}
				for i := range per {
					if !done[base+i].Load() {
						t.Errorf("task %d pushed before Wait not handled", base+i)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

func TestWaitTicket(t *testing.T) {
	const n = 20_000
	done := make([]atomic.Bool, n+1)
	q := mustNew(t, "ticket", 16, func(i int) error {
		done[i].Store(true)
		for range i % 7 {
			runtime.Gosched()
		}
		return nil
	}, WithSpin(2))
	defer q.Close()
	if err := q.WaitTicket(0); err != nil {
		t.Fatalf("WaitTicket(0) = %v", err)
	}
	if err := q.WaitTicket(1); !errors.Is(err, ErrTicket) {
		t.Fatalf("WaitTicket of an unissued ticket = %v, want ErrTicket", err)
	}
	tickets := make(chan [2]uint64, 64)
	var wg sync.WaitGroup
	for range 3 { // waiters for specific earlier tasks
		wg.Go(func() {
			for tv := range tickets {
				if err := q.WaitTicket(tv[0]); err != nil {
					t.Error(err)
					continue
				}
				if !done[tv[1]].Load() {
					t.Errorf("WaitTicket(%d) returned before task %d ran", tv[0], tv[1])
				}
			}
		})
	}
	for i := 1; i <= n; i++ {
		tk, err := q.PushT(i)
		if err != nil {
			t.Fatal(err)
		}
		if tk != uint64(i) {
			t.Fatalf("single producer: ticket %d for push %d", tk, i)
		}
		if i%50 == 0 {
			tickets <- [2]uint64{tk, uint64(i)}
		}
	}
	close(tickets)
	wg.Wait()
}

func TestStickyError(t *testing.T) {
	var ran []int
	q := mustNew(t, "sticky", 4, func(v int) error {
		ran = append(ran, v)
		if v == 5 || v == 7 {
			return fmt.Errorf("task value %d: %w", v, errBoom)
		}
		return nil
	})
	var tickets []uint64
	for v := 1; v <= 5; v++ {
		tk, err := q.PushT(v)
		if err != nil {
			t.Fatal(err)
		}
		tickets = append(tickets, tk)
	}
	// The failure may land while we push; later pushes must then return it.
	var pushErr error
	for v := 6; v <= 10 && pushErr == nil; v++ {
		pushErr = q.Push(v)
	}
	err := q.Wait()
	if !errors.Is(err, errBoom) || !strings.Contains(err.Error(), "queues: sticky: task 5: task value 5") {
		t.Fatalf("Wait = %v, want the first failure (task 5)", err)
	}
	if pushErr != nil && pushErr != err {
		t.Fatalf("Push after the failure = %v, want %v", pushErr, err)
	}
	if fmt.Sprint(ran) != "[1 2 3 4 5]" {
		t.Fatalf("ran %v, want [1 2 3 4 5]: nothing after the failure runs", ran)
	}
	if err2 := q.Push(11); err2 != err {
		t.Fatalf("Push = %v, want sticky %v", err2, err)
	}
	if err := q.WaitTicket(tickets[3]); err != nil {
		t.Fatalf("WaitTicket of a task before the failure = %v", err)
	}
	if err2 := q.WaitTicket(tickets[4]); err2 != err {
		t.Fatalf("WaitTicket of the failed task = %v", err2)
	}
	if err2 := q.Close(); err2 != err {
		t.Fatalf("Close = %v, want %v", err2, err)
	}
}

func TestCloseDrainsAndLeavesNoGoroutine(t *testing.T) {
	var ran []int
	q := mustNew(t, "close", 64, func(v int) error { ran = append(ran, v); return nil })
	for v := range 1000 {
		if err := q.Push(v); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for range 3 { // concurrent and repeated Close
		wg.Go(func() {
			if err := q.Close(); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	if len(ran) != 1000 {
		t.Fatalf("Close handled %d of 1000 tasks", len(ran))
	}
	if err := q.Push(1); !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "close") {
		t.Fatalf("Push after Close = %v", err)
	}
	if err := q.Wait(); err != nil {
		t.Fatalf("Wait after Close = %v", err)
	}
	goleak.VerifyNone(t)
}

// TestCloseReleasesBlockedProducer parks a producer on a full ring, closes
// the queue, and checks the producer returns ErrClosed once the ring drains.
func TestCloseReleasesBlockedProducer(t *testing.T) {
	g := newGate()
	q := mustNew(t, "blocked", 3, g.handle, WithSpin(-1)) // task 1 running, 2 and 3 queued
	if err := q.Push(1); err != nil {
		t.Fatal(err)
	}
	<-g.started
	for v := 2; v <= 3; v++ { // fill the queue
		if err := q.Push(v); err != nil {
			t.Fatal(err)
		}
	}
	pushed := make(chan error)
	go func() { pushed <- q.Push(4) }()
	for q.Stats().PushParks == 0 {
		runtime.Gosched()
	}
	closed := make(chan error)
	go func() { closed <- q.Close() }()
	for {
		if _, err := q.TryPush(5); errors.Is(err, ErrClosed) {
			break
		}
		runtime.Gosched()
	}
	close(g.release)
	if err := <-pushed; !errors.Is(err, ErrClosed) {
		t.Fatalf("blocked Push = %v, want ErrClosed", err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(g.ran) != "[1 2 3]" {
		t.Fatalf("ran %v, want [1 2 3]", g.ran)
	}
}

// TestParkStress runs producers, waiters and a slow worker over a ring of 2
// with parking forced or allowed, checking order and exactly-once handling.
func TestParkStress(t *testing.T) {
	for _, spin := range []int{-1, 1, 0} {
		t.Run(fmt.Sprintf("spin%d", spin), func(t *testing.T) {
			r := recorder{slow: true}
			q := mustNew(t, "park", 2, r.handle, WithSpin(spin))
			const producers, n = 3, 1500
			res := make([]pushResult, producers)
			var wg sync.WaitGroup
			for p := range producers {
				wg.Go(func() {
					for i := 1; i <= n; i++ {
						v := task{p: p, i: i}
						tk, err := q.PushT(v)
						if err != nil {
							t.Error(err)
							return
						}
						res[p].tickets = append(res[p].tickets, tk)
						res[p].tasks = append(res[p].tasks, v)
						switch i % 97 {
						case 0:
							if err := q.WaitTicket(tk); err != nil {
								t.Error(err)
							}
						case 50:
							if err := q.Wait(); err != nil {
								t.Error(err)
							}
						}
					}
				})
			}
			wg.Wait()
			if err := q.Close(); err != nil {
				t.Fatal(err)
			}
			equalTasks(t, "handled", r.ran, byTicket(t, res))
		})
	}
}

func TestPushAllocatesNothing(t *testing.T) {
	type big struct {
		a   [6]uint64
		ptr *int
	}
	var x int
	q := mustNew(t, "allocs", 64, func(v big) error { *v.ptr += int(v.a[0]); return nil })
	defer q.Close()
	v := big{ptr: &x}
	v.a[0] = 1
	if n := testing.AllocsPerRun(2000, func() {
		if err := q.Push(v); err != nil {
			t.Fatal(err)
		}
		if _, err := q.TryPush(v); err != nil {
			t.Fatal(err)
		}
		if err := q.Wait(); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("Push+TryPush+Wait allocate %v times per run", n)
	}
	// Enough pushes to wrap the ring many times, through parked waits.
	if n := testing.AllocsPerRun(50, func() {
		for range 200 {
			if _, err := q.PushT(v); err != nil {
				t.Fatal(err)
			}
		}
		if err := q.Wait(); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("bursts of pushes allocate %v times per run", n)
	}
}

func TestInvalidArguments(t *testing.T) {
	if _, err := New[int]("x", 1, nil); err == nil {
		t.Error("nil handler accepted")
	}
	for _, c := range []int{-1, MaxCapacity + 1} {
		if _, err := New("x", c, func(int) error { return nil }); !errors.Is(err, ErrCapacity) {
			t.Errorf("capacity %d: %v, want ErrCapacity", c, err)
		}
		if _, err := NewPipeline(nil, []func(int) error{func(int) error { return nil }}, c); !errors.Is(err, ErrCapacity) {
			t.Errorf("pipeline capacity %d: %v, want ErrCapacity", c, err)
		}
	}
	// Rings the host has not the memory for (a petabyte here) are refused
	// before they are made: Go would end the process.
	type big [1 << 20]byte
	if _, err := New("x", MaxCapacity, func(big) error { return nil }); !errors.Is(err, ErrCapacity) || !errors.Is(err, hostmem.ErrTooLarge) {
		t.Errorf("a ring of %d tasks of 1 MiB: %v, want ErrCapacity and hostmem.ErrTooLarge", MaxCapacity, err)
	}
	if _, err := NewPipeline(nil, []func(big) error{func(big) error { return nil }}, MaxCapacity); !errors.Is(err, ErrCapacity) || !errors.Is(err, hostmem.ErrTooLarge) {
		t.Errorf("a pipeline of rings of %d tasks of 1 MiB: %v, want ErrCapacity and hostmem.ErrTooLarge", MaxCapacity, err)
	}
	// Nil options are ignored.
	q, err := New("x", 1, func(int) error { return nil }, nil, WithSpin(1), nil)
	if err != nil {
		t.Fatalf("nil options: %v, want them ignored", err)
	}
	q.Close()
	p, err := NewPipeline(nil, []func(int) error{func(int) error { return nil }}, 1, nil)
	if err != nil {
		t.Fatalf("pipeline of nil options: %v, want them ignored", err)
	}
	p.Close()
	if _, err := NewPipeline[int](nil, nil, 1); err == nil {
		t.Error("pipeline of no stages accepted")
	}
	if _, err := NewPipeline(nil, []func(int) error{func(int) error { return nil }, nil}, 1); err == nil {
		t.Error("pipeline with a nil handler accepted")
	}
	for _, c := range []struct{ in, want int }{{1, 2}, {2, 2}, {3, 4}, {4, 4}, {1000, 1024}} {
		if got := ringSize(c.in); got != uint64(c.want) {
			t.Errorf("ringSize(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}

// TestCapacityIsExact holds the worker on its first task and fills the
// queue with TryPush: exactly capacity tasks are in flight at most, for
// every capacity, whatever the ring's power-of-two size.
func TestCapacityIsExact(t *testing.T) {
	for capacity := 1; capacity <= 9; capacity++ {
		g := newGate()
		q := mustNew(t, "exact", capacity, g.handle)
		accepted := 0
		if err := q.Push(0); err != nil {
			t.Fatal(err)
		}
		accepted++
		<-g.started
		for v := 1; v < 20; v++ {
			ok, err := q.TryPush(v)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			accepted++
		}
		if accepted != capacity {
			t.Errorf("capacity %d: %d tasks accepted in flight", capacity, accepted)
		}
		close(g.release)
		if err := q.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHandlerPanicIsATaskError checks that a panicking handler does not
// kill the worker: the panic becomes the queue's sticky error.
func TestHandlerPanicIsATaskError(t *testing.T) {
	q := mustNew(t, "panic", 4, func(v int) error {
		if v == 2 {
			panic("handler bug")
		}
		return nil
	})
	for v := range 4 {
		q.Push(v)
	}
	if err := q.Wait(); !errors.Is(err, ErrPanic) || !strings.Contains(err.Error(), "handler bug") {
		t.Fatalf("Wait after a panicking handler: %v", err)
	}
	if err := q.Close(); !errors.Is(err, ErrPanic) {
		t.Fatalf("Close: %v", err)
	}
}

// TestHandlerGoexitIsATaskError: a handler that calls runtime.Goexit (as
// testing's FailNow does) ends the worker's goroutine; its task fails as a
// panic would, a new worker handles the tasks after it, and neither Wait
// nor Close hangs.
func TestHandlerGoexitIsATaskError(t *testing.T) {
	var handled atomic.Int64
	q := mustNew(t, "goexit", 4, func(v int) error {
		if v == 2 {
			runtime.Goexit()
		}
		handled.Add(1)
		return nil
	})
	for v := range 8 {
		if err := q.Push(v); err != nil && !errors.Is(err, ErrPanic) {
			t.Fatalf("Push %d: %v", v, err)
		}
	}
	if err := q.Wait(); !errors.Is(err, ErrPanic) || !strings.Contains(err.Error(), "Goexit") {
		t.Fatalf("Wait after a handler's Goexit: %v", err)
	}
	if n := handled.Load(); n != 2 {
		t.Errorf("%d tasks handled, want the 2 before the failed one (the rest discarded)", n)
	}
	if err := q.Close(); !errors.Is(err, ErrPanic) {
		t.Fatalf("Close: %v", err)
	}
}

func mustNew[T any](tb testing.TB, name string, capacity int, h func(T) error, opts ...Option) *Queue[T] {
	tb.Helper()
	q, err := New(name, capacity, h, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return q
}

func mustPipeline[T any](tb testing.TB, names []string, hs []func(T) error, capacity int, opts ...Option) *Pipeline[T] {
	tb.Helper()
	p, err := NewPipeline(names, hs, capacity, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// TestYielded checks what a handler learns from Yielded: true for the task
// the worker awaited, false for tasks it found on the ring when the
// handler's previous call returned.
func TestYielded(t *testing.T) {
	g := newGate()
	var q *Queue[int]
	var seen []bool
	q = mustNew(t, "yielded", 3, func(v int) error {
		seen = append(seen, q.Yielded())
		return g.handle(v)
	})
	if err := q.Push(1); err != nil {
		t.Fatal(err)
	}
	<-g.started
	for v := 2; v <= 3; v++ {
		if ok, err := q.TryPush(v); !ok || err != nil {
			t.Fatalf("TryPush(%d) = %v, %v", v, ok, err)
		}
	}
	close(g.release)
	if err := q.Wait(); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	if want := []bool{true, false, false}; fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Fatalf("Yielded by task: %v, want %v", seen, want)
	}
}

// TestPushYield checks that PushYield reports a push that parked on a full
// ring, and no yield for a push into a ring with room whose worker is busy.
func TestPushYield(t *testing.T) {
	g := newGate()
	q := mustNew(t, "pushyield", 2, g.handle, WithSpin(-1))
	if err := q.Push(1); err != nil {
		t.Fatal(err)
	}
	<-g.started // the worker runs task 1: it does not park
	if y, err := q.PushYield(2); y || err != nil {
		t.Fatalf("PushYield into a ring with room = %v, %v; want false, nil", y, err)
	}
	done := make(chan bool)
	go func() {
		y, err := q.PushYield(3) // two in flight: parks
		if err != nil {
			t.Error(err)
		}
		done <- y
	}()
	for q.Stats().PushParks == 0 {
		runtime.Gosched()
	}
	close(g.release)
	if !<-done {
		t.Fatal("PushYield that parked on a full ring reported no yield")
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
}
