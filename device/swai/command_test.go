package swai

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// refRing is the command path written the slow, obvious way: a command may
// be written once fewer than Slots commands are in the buffer (written but
// not yet parsed), counted one by one.
type refRing struct {
	cpu, write, fetch, parse, work, empty int64
	serial                                bool
	slots, ringSlots                      int
	parsed, fetched                       []int64
	dispatcher                            int64 // serial: when the dispatcher is free
	stages                                [3]int64
}

func (r *refRing) issue(now int64) (ready, start int64) {
	t := now + r.cpu
	// occupied counts earlier commands still holding a slot at time t.
	occupied := func(release []int64, t int64) int {
		n := 0
		for _, x := range release {
			if x > t {
				n++
			}
		}
		return n
	}
	for {
		wait := int64(-1)
		if occupied(r.parsed, t) >= r.slots {
			wait = r.parsed[len(r.parsed)-r.slots]
		}
		if r.ringSlots > 0 && occupied(r.fetched, t) >= r.ringSlots {
			wait = max(wait, r.fetched[len(r.fetched)-r.ringSlots])
		}
		if wait < 0 {
			break
		}
		t = wait
	}
	t += r.write
	if r.serial {
		// One command at a time, held until its (empty) kernel has ended.
		taken := max(t, r.dispatcher)
		r.fetched = append(r.fetched, taken+r.fetch)
		r.parsed = append(r.parsed, taken+r.fetch+r.parse)
		start := taken + r.fetch + r.parse + r.work
		r.dispatcher = start + r.empty
		return t, start
	}
	// Three stages in a row, each taking the next command when free.
	x := t
	for i, d := range []int64{r.fetch, r.parse, r.work} {
		x = max(x, r.stages[i]) + d
		r.stages[i] = x
	}
	r.fetched = append(r.fetched, r.stages[0])
	r.parsed = append(r.parsed, r.stages[1])
	return t, x
}

func TestRingAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 300 {
		p := Default()
		if iter%2 == 1 {
			p = GPU()
			p.Queue.RingSlots = 1 + rng.IntN(5)
			p.Queue.RingFetch = time.Duration(rng.IntN(2000))
		}
		p.Queue.Slots = 1 + rng.IntN(6)
		p.Launch.CPU = time.Duration(rng.IntN(2000))
		p.Launch.CmdTransfer = time.Duration(rng.IntN(2000))
		p.Launch.Command = time.Duration(rng.IntN(5000))
		p.Launch.Start = time.Duration(rng.IntN(500))
		p.Launch.Init = time.Duration(rng.IntN(20000))
		m := []Method{FastLaunch, TraditionalLaunch}[rng.IntN(2)]
		oinit, num := p.launchTerms(m)
		ref := &refRing{
			cpu: int64(p.Launch.CPU), write: int64(p.Launch.CmdTransfer),
			parse: int64(p.Launch.Command), work: int64(oinit) + int64(num)*int64(p.Launch.Start),
			empty: int64(num) * int64(p.Launch.Query), serial: p.Launch.Serial,
			slots: p.Queue.Slots, dispatcher: math.MinInt64,
			stages: [3]int64{math.MinInt64, math.MinInt64, math.MinInt64},
		}
		if p.Queue.Levels == 2 {
			ref.fetch, ref.ringSlots = int64(p.Queue.RingFetch), p.Queue.RingSlots
		}
		r := NewRing(p, m)
		var now int64
		for i := range 40 {
			now += int64(rng.IntN(3000))
			if rng.IntN(4) == 0 {
				now -= int64(rng.IntN(1000)) // a caller whose clock reading is older
			}
			gr, gs := r.Issue(now)
			wr, ws := ref.issue(now)
			if gr != wr || gs != ws {
				t.Fatalf("iter %d launch %d at %d: Issue = (%d, %d), reference (%d, %d)", iter, i, now, gr, gs, wr, ws)
			}
		}
	}
}

// A full command buffer makes the host wait for the dispatcher to read the
// oldest command.
func TestRingBackPressure(t *testing.T) {
	p := Default()
	p.Queue.Slots = 4
	// The traditional launch keeps the dispatcher busy for O_init per kernel.
	r := NewRing(p, TraditionalLaunch)
	cpu, write, parse := int64(p.Launch.CPU), int64(p.Launch.CmdTransfer), int64(p.Launch.Command)
	busy := int64(p.Launch.Init) + 32*int64(p.Launch.Start)
	var host int64
	var parsed []int64
	for i := range 10 {
		ready, start := r.Issue(host)
		switch {
		case i < 4:
			// Free slots: the call costs O_cpu + O_cmd-tran only.
			if ready != host+cpu+write {
				t.Fatalf("launch %d: ready %d, want %d (no wait)", i, ready, host+cpu+write)
			}
		case i == 4:
			// Command 0 was parsed at once and left the buffer.
			if ready != host+cpu+write {
				t.Fatalf("launch %d: ready %d, want %d (slot of command 0 free)", i, ready, host+cpu+write)
			}
		default:
			// Full: the host waits for command i-4 to be parsed, which
			// happens only after the dispatcher finished command i-5.
			if want := parsed[i-4] + write; ready != want || parsed[i-4] <= host+cpu {
				t.Fatalf("launch %d: ready %d, want %d (waited for command %d)", i, ready, want, i-4)
			}
		}
		parsed = append(parsed, start-busy)
		if i > 0 && start-busy-parse < parsed[i-1]+busy {
			t.Fatalf("launch %d: dispatcher took it at %d before it was free at %d", i, start-busy-parse, parsed[i-1]+busy)
		}
		host = ready
	}
	if r.Waits() != 5 {
		t.Errorf("Waits = %d, want 5", r.Waits())
	}

	// Without host cost the call returns at once, or when the slot frees.
	r = NewRing(p, TraditionalLaunch)
	r.hostCost = false
	host = 0
	for i := range 6 {
		ready, _ := r.Issue(host)
		if i < 4 && ready != host {
			t.Fatalf("launch %d without host cost: ready %d, want %d", i, ready, host)
		}
		if i >= 4 && ready <= host {
			t.Fatalf("launch %d without host cost: did not wait for a slot", i)
		}
		host = ready
	}
}

func TestRingTwoLevelPointerRing(t *testing.T) {
	p := GPU()
	p.Queue.RingSlots = 2
	p.Queue.Slots = 100
	p.Queue.RingFetch = 10 * time.Microsecond // a slow fetch fills the pointer ring first
	r := NewRing(p, FastLaunch)
	var host int64
	for range 5 {
		ready, _ := r.Issue(host)
		host = ready
	}
	if r.Waits() == 0 {
		t.Error("a slow ring fetch with 2 ring entries never made the host wait")
	}
}

func TestRingConcurrent(t *testing.T) {
	r := NewRing(Default(), FastLaunch)
	var wg sync.WaitGroup
	starts := make([][]int64, 4)
	for g := range starts {
		wg.Go(func() {
			for i := range 500 {
				_, s := r.Issue(int64(i * 100))
				starts[g] = append(starts[g], s)
			}
		})
	}
	wg.Wait()
	if r.n != 2000 {
		t.Fatalf("issued %d, want 2000", r.n)
	}
	for g := range starts {
		for i := 1; i < len(starts[g]); i++ {
			if starts[g][i] <= starts[g][i-1] {
				t.Fatalf("goroutine %d: start %d not after %d: the dispatcher is not in order", g, starts[g][i], starts[g][i-1])
			}
		}
	}
}

func TestRingIssueAllocatesNothing(t *testing.T) {
	r := NewRing(GPU(), FastLaunch)
	var now int64
	if n := testing.AllocsPerRun(1000, func() { now += 500; r.Issue(now) }); n != 0 {
		t.Errorf("Issue allocates %v times per call", n)
	}
}
