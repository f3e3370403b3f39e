package swai

import (
	"math"
	"math/rand/v2"
	"testing"
)

// stepSchedule is the DMA model the slow way: time advances 1 ns at a
// time and every busy channel moves its share of the bus in each step.
func stepSchedule(m dmaModel, jobs []dmaJob) []float64 {
	done := make([]float64, len(jobs))
	queues := make([][]int, m.channels)
	for i, j := range jobs {
		queues[j.ch] = append(queues[j.ch], i)
	}
	pos := make([]int, m.channels)
	from := make([]float64, m.channels)
	left := make([]float64, m.channels)
	load := func(c int, t float64) {
		if pos[c] < len(queues[c]) {
			j := jobs[queues[c][pos[c]]]
			from[c], left[c] = max(j.ready, t)+m.start, float64(j.bytes)
		}
	}
	for c := range queues {
		load(c, 0)
	}
	const h = 1.0
	for t := 0.0; ; t += h {
		busy, pending := 0, false
		for c := range queues {
			if pos[c] < len(queues[c]) {
				pending = true
				if from[c] <= t {
					busy++
				}
			}
		}
		if !pending {
			return done
		}
		if busy == 0 {
			continue
		}
		rate := min(m.chanBW, m.totalBW/float64(busy))
		for c := range queues {
			if pos[c] >= len(queues[c]) || from[c] > t {
				continue
			}
			left[c] -= rate * h
			if left[c] <= 0 {
				end := t + h + left[c]/rate // back to where it ran out
				done[queues[c][pos[c]]] = end
				pos[c]++
				load(c, end)
			}
		}
	}
}

func TestDMAScheduleAgainstStepping(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for iter := range 60 {
		m := dmaModel{
			channels: 1 + rng.IntN(4),
			start:    float64(rng.IntN(300)),
			chanBW:   0.5 + 2*rng.Float64(),
		}
		m.totalBW = m.chanBW * (1 + 3*rng.Float64())
		jobs := make([]dmaJob, 1+rng.IntN(8))
		for i := range jobs {
			jobs[i] = dmaJob{ready: float64(rng.IntN(4000)), bytes: int64(rng.IntN(6000)), ch: rng.IntN(m.channels)}
		}
		want := stepSchedule(m, jobs)
		last := m.schedule(jobs, nil)
		var wantLast float64
		for i, j := range jobs {
			wantLast = max(wantLast, want[i])
			if math.Abs(j.done-want[i]) > 8 {
				t.Fatalf("iter %d: job %d done at %.1f, stepping says %.1f\nmodel %+v jobs %+v", iter, i, j.done, want[i], m, jobs)
			}
		}
		if math.Abs(last-wantLast) > 8 {
			t.Fatalf("iter %d: last %.1f, stepping %.1f", iter, last, wantLast)
		}
	}
}

func TestDMAScheduleExact(t *testing.T) {
	m := dmaModel{channels: 8, start: 100, chanBW: 2, totalBW: 8}
	// One channel: commands in order at the channel's own speed.
	jobs := []dmaJob{{bytes: 1000}, {bytes: 500}, {ready: 5000, bytes: 200}}
	m.schedule(jobs, nil)
	want := []float64{100 + 500, 600 + 100 + 250, 5000 + 100 + 100}
	for i := range jobs {
		if math.Abs(jobs[i].done-want[i]) > 1e-6 {
			t.Errorf("one channel: job %d done %.3f, want %.3f", i, jobs[i].done, want[i])
		}
	}
	// Eight equal commands at once: the bus (8 bytes/ns) is the limit,
	// not the channels (2 each).
	jobs = make([]dmaJob, 8)
	for i := range jobs {
		jobs[i] = dmaJob{bytes: 800, ch: i}
	}
	if last := m.schedule(jobs, nil); math.Abs(last-(100+800*8/8.0)) > 1e-6 {
		t.Errorf("eight channels: last %.3f, want %.3f", last, 100+800.0)
	}
	// Two commands: each channel's own limit (2 < 8/2).
	jobs = jobs[:2]
	if last := m.schedule(jobs, nil); math.Abs(last-(100+400)) > 1e-6 {
		t.Errorf("two channels: last %.3f, want 500", last)
	}
	if m.schedule(nil, nil) != 0 {
		t.Error("no jobs: not 0")
	}
}

func TestSplit(t *testing.T) {
	for _, c := range []struct{ size, n int64 }{{10, 3}, {9, 3}, {0, 2}, {1, 4}, {1 << 20, 8}} {
		var sum, prev int64
		split(c.size, int(c.n), func(i int, off, l int64) {
			if off != sum || (i > 0 && l > prev) || l < c.size/c.n || l > c.size/c.n+1 {
				t.Errorf("split(%d, %d): piece %d at %d of %d", c.size, c.n, i, off, l)
			}
			sum += l
			prev = l
		})
		if sum != c.size {
			t.Errorf("split(%d, %d) covers %d", c.size, c.n, sum)
		}
	}
}

// refStaged is a one-thread, one-channel pageable copy written as the
// recurrences of double buffering.
func refStaged(s staged, m dmaModel) float64 {
	n := len(s.end)
	h := make([]float64, n) // host copy ends
	d := make([]float64, n) // DMA ends
	at := func(x []float64, i int) float64 {
		if i < 0 {
			return 0
		}
		return x[i]
	}
	var last float64
	for k := range n {
		bytes := float64(min(s.chunk, s.size-int64(k)*s.chunk))
		dma := m.start + bytes/min(m.chanBW, m.totalBW)
		if s.h2d {
			h[k] = max(max(at(h, k-1), at(d, k-s.nbuf))+float64(s.dur[k]), float64(s.end[k]))
			d[k] = max(h[k], at(d, k-1)) + dma
			last = d[k]
		} else {
			d[k] = max(at(h, k-s.nbuf), at(d, k-1)) + dma
			h[k] = max(max(at(h, k-1), d[k])+float64(s.dur[k]), float64(s.end[k]))
			last = h[k]
		}
	}
	return last
}

func TestStagedAgainstDoubleBuffering(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for iter := range 500 {
		m := dmaModel{channels: 1, start: float64(rng.IntN(500)), chanBW: 0.5 + 3*rng.Float64(), totalBW: 10}
		s := staged{h2d: iter%2 == 0, chunk: 1 + rng.Int64N(5000), channels: 1, stride: 1, nbuf: 1 + rng.IntN(3)}
		n := 1 + rng.IntN(12)
		s.size = int64(n-1)*s.chunk + 1 + rng.Int64N(s.chunk)
		s.end, s.dur = make([]int64, n), make([]int64, n)
		var real int64
		for k := range n {
			s.dur[k] = rng.Int64N(3000)
			real += s.dur[k] + rng.Int64N(100)
			s.end[k] = real
		}
		got, want := s.makespan(m), refStaged(s, m)
		if math.Abs(got-want) > 1e-6*max(1, want) {
			t.Fatalf("iter %d (%+v): makespan %.3f, double buffering says %.3f", iter, s, got, want)
		}
	}
}

// With an instant host, MTMC is the DMA engine alone when there are
// buffers for every channel, and is held back by the buffers otherwise.
func TestStagedBuffersLimitChannels(t *testing.T) {
	m := dmaModel{channels: 8, start: 100, chanBW: 2, totalBW: 8}
	const chunk = 800
	for _, h2d := range []bool{true, false} {
		s := staged{h2d: h2d, size: 8 * chunk, chunk: chunk, channels: 8, stride: 1, nbuf: 9,
			end: make([]int64, 8), dur: make([]int64, 8)}
		if got, want := s.makespan(m), 100+8*chunk/8.0; math.Abs(got-want) > 1e-6 {
			t.Errorf("h2d %v, 9 buffers: %.1f, want %.1f", h2d, got, want)
		}
		// Two buffers: two commands at a time, each at its channel's
		// 2 bytes/ns, four rounds.
		s.nbuf = 2
		if got, want := s.makespan(m), 4*(100+chunk/2.0); math.Abs(got-want) > 1e-6 {
			t.Errorf("h2d %v, 2 buffers: %.1f, want %.1f", h2d, got, want)
		}
	}
}

func TestMTMCBuffers(t *testing.T) {
	p := Default() // 8 channels, 2 buffers per thread
	for _, c := range []struct{ threads, want int }{{1, 9}, {2, 5}, {3, 4}, {8, 2}, {0, 9}} {
		if got := p.mtmcBuffers(c.threads); got != c.want {
			t.Errorf("mtmcBuffers(%d) = %d, want %d", c.threads, got, c.want)
		}
	}
	c := newCopier(p, 2)
	defer c.close()
	if c.single != nil {
		t.Error("a new copier has its buffers before its first copy")
	}
	c.mu.Lock()
	c.start()
	c.mu.Unlock()
	if len(c.workers) != 2 || len(c.workers[0].staging) != 5 || len(c.single) != 2 {
		t.Errorf("copier: %d workers with %d buffers, %d single buffers", len(c.workers), len(c.workers[0].staging), len(c.single))
	}
}
