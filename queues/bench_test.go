package queues

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// BenchmarkQueueHop is the cost per task of one producer feeding one worker
// that does nothing: ns/op is ns per task.
func BenchmarkQueueHop(b *testing.B) {
	q := mustNew(b, "hop", 0, func(int) error { return nil })
	defer q.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := q.Push(i); err != nil {
			b.Fatal(err)
		}
	}
	if err := q.Wait(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkChanHop is BenchmarkQueueHop over a buffered channel of the same
// capacity, the reference a Queue has to beat.
func BenchmarkChanHop(b *testing.B) {
	ch := make(chan int, DefaultCapacity)
	done := make(chan struct{})
	go func() {
		for range ch {
		}
		close(done)
	}()
	b.ResetTimer()
	for i := range b.N {
		ch <- i
	}
	close(ch)
	<-done
}

// BenchmarkPipelineHop is the cost per task through the three stages with
// no work: ns/op is ns per task (all three hops).
func BenchmarkPipelineHop(b *testing.B) {
	nop := func(int) error { return nil }
	p := mustPipeline(b, []string{}, []func(int) error{nop, nop, nop}, 0)
	defer p.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := p.Push(i); err != nil {
			b.Fatal(err)
		}
	}
	if err := p.Wait(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkPipelineLatency pushes one task at a time and waits until the
// Launch stage has run it: ns/op is the round trip through three otherwise
// idle stages, the price a barrier pays for one task.
func BenchmarkPipelineLatency(b *testing.B) {
	nop := func(int) error { return nil }
	p := mustPipeline(b, []string{}, []func(int) error{nop, nop, nop}, 0)
	defer p.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		t, err := p.PushT(i)
		if err != nil {
			b.Fatal(err)
		}
		if err := p.WaitTicket(Launch, t); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	var parks uint64
	for _, st := range p.Stats() {
		parks += st.WorkerParks + st.WaitParks
	}
	b.ReportMetric(float64(parks)/float64(b.N), "parks/task")
}

// BenchmarkPipelineWork gives every stage the same busy work per task and
// reports efficiency: the bound — max(work of one stage, work of the three
// stages / GOMAXPROCS) per task — over the measured time per task. The work
// is a calibrated loop (CPU time, not wall-clock time, so a descheduled
// stage does not finish its work for free). work/cpu is the share of the
// process's CPU time spent in that work, the rest being queue overhead,
// spinning and scheduling; unlike efficiency it does not depend on other
// load on the machine. other-cores is the CPU other processes used during
// the run, in cores: efficiency is only meaningful when it is near 0, and
// efficiency-avail recomputes the bound on the cores that were left.
func BenchmarkPipelineWork(b *testing.B) {
	for _, work := range []time.Duration{time.Microsecond, 2 * time.Microsecond, 5 * time.Microsecond} {
		for _, capacity := range []int{4, DefaultCapacity} {
			b.Run(fmt.Sprintf("work=%v/cap=%d", work, capacity), func(b *testing.B) {
				iters := burnIters(work)
				stage := func() func(int) error {
					var sink uint64 // written only by the stage's worker
					return func(int) error { sink = burn(sink, iters); return nil }
				}
				p := mustPipeline(b, []string{}, []func(int) error{stage(), stage(), stage()}, capacity)
				defer p.Close()
				b.ResetTimer()
				cpu0, cpuOK := processCPU()
				all0, allOK := machineCPU()
				start := time.Now()
				for i := range b.N {
					if err := p.Push(i); err != nil {
						b.Fatal(err)
					}
				}
				if err := p.Wait(); err != nil {
					b.Fatal(err)
				}
				elapsed := time.Since(start)
				cpu1, _ := processCPU()
				all1, _ := machineCPU()
				perTask := float64(elapsed.Nanoseconds()) / float64(b.N)
				w := float64(work.Nanoseconds())
				bound := max(w, 3*w/float64(runtime.GOMAXPROCS(0)))
				b.ReportMetric(bound/perTask, "efficiency")
				b.ReportMetric(perTask-bound, "overhead-ns/task")
				var parks uint64
				for _, st := range p.Stats() {
					parks += st.WorkerParks + st.PushParks
				}
				b.ReportMetric(float64(parks)/float64(b.N), "parks/task")
				if cpuOK {
					// Share of the CPU the process used that went to the work
					// itself: independent of other load on the machine.
					used := cpu1 - cpu0
					b.ReportMetric(3*w*float64(b.N)/float64(used.Nanoseconds()), "work/cpu")
					if allOK {
						// Cores other processes took meanwhile: efficiency is
						// only meaningful when this is near 0.
						others := max(0, all1-all0-used)
						b.ReportMetric(float64(others)/float64(elapsed), "other-cores")
						// The bound again, on the cores left to this process.
						if avail := float64(runtime.GOMAXPROCS(0)) - float64(others)/float64(elapsed); avail > 0.5 {
							b.ReportMetric(max(w, 3*w/avail)/perTask, "efficiency-avail")
						}
					}
				}
			})
		}
	}
}

var (
	burnOnce  sync.Once
	burnPerNs float64 // iterations of burn per nanosecond
)

// burn spins for n iterations of a dependent integer chain from seed and
// returns its end, which the caller keeps so the loop is not optimized away.
func burn(seed uint64, n int) uint64 {
	x := seed | 1
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// burnIters returns the number of burn iterations that take d, calibrated
// once as the fastest of several runs (the least disturbed by other load).
func burnIters(d time.Duration) int {
	burnOnce.Do(func() {
		const n = 500_000
		best := time.Duration(1 << 62)
		var sink uint64
		for range 21 {
			t0 := time.Now()
			sink = burn(sink, n)
			best = min(best, time.Since(t0))
		}
		if sink == 0 {
			panic("burn: impossible zero") // keeps sink alive
		}
		burnPerNs = n / float64(best.Nanoseconds())
	})
	return int(burnPerNs * float64(d.Nanoseconds()))
}
