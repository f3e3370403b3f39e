package plan

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pipert/pipert/kernel"
)

func TestPlansOfModes(t *testing.T) {
	for _, c := range []struct {
		m       Mode
		workers int
		s       string
	}{{KBK, 1, "kbk/per-tensor 0000"}, {Async, 2, "async/per-tensor 0001"}, {Pipeline, 4, "pipeline/per-tensor 0123"}} {
		p, err := PlanOf(c.m, PerTensor)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("%v: %v", c.m, err)
		}
		if p.Workers() != c.workers || p.String() != c.s {
			t.Errorf("%v: %d workers, %q", c.m, p.Workers(), p.String())
		}
	}
	bad := []Plan{
		{Barrier: Drain, Worker: [5]uint8{0, 1, 1, 1, 1}},
		{Barrier: Drain, Worker: [5]uint8{0, 0, 2, 2, 2}},
		{Barrier: Drain, Worker: [5]uint8{0, 0, 1, 0, 1}},
		{Worker: [5]uint8{0, 0, 0, 0, 0}},
	}
	for _, p := range bad {
		if err := p.Validate(); err == nil {
			t.Errorf("plan %v validates", p.Worker)
		}
	}
	if _, err := PlanOf(0, Drain); err == nil {
		t.Error("PlanOf(0) accepted")
	}
	if _, err := PlanOf(KBK, 3); err == nil {
		t.Error("PlanOf with policy 3 accepted")
	}
}

func TestParse(t *testing.T) {
	for _, m := range Modes() {
		if got, err := ParseMode(m.String()); err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m, got, err)
		}
	}
	for _, p := range []BarrierPolicy{Drain, PerTensor} {
		if got, err := ParseBarrierPolicy(p.String()); err != nil || got != p {
			t.Errorf("ParseBarrierPolicy(%q) = %v, %v", p, got, err)
		}
	}
	if _, err := ParseMode("hetero"); !errors.Is(err, ErrConfig) {
		t.Errorf("ParseMode(hetero): %v, want ErrConfig", err)
	}
	if _, err := ParseBarrierPolicy("x"); !errors.Is(err, ErrConfig) {
		t.Errorf("ParseBarrierPolicy(x): %v, want ErrConfig", err)
	}
}

func TestCheckDefaultsAndRanges(t *testing.T) {
	c, err := Config{}.Check()
	if err != nil {
		t.Fatal(err)
	}
	if c.Mode != KBK || c.Barrier != PerTensor || c.QueueCapacity != DefaultQueueCapacity || c.Device == nil || c.Registry == nil || c.Schedule != Concurrent || !c.Checked() {
		t.Fatalf("defaults %+v", c)
	}
	for _, q := range []int{1, 3, MaxQueueCapacity} {
		if c, err := (Config{QueueCapacity: q}).Check(); err != nil || c.QueueCapacity != q {
			t.Errorf("capacity %d: %v, %d", q, err, c.QueueCapacity)
		}
	}
	for _, bad := range []Config{
		{QueueCapacity: -1}, {QueueCapacity: MaxQueueCapacity + 1}, {Mode: 9}, {Barrier: 7},
		{Costs: Costs{Resize: -time.Microsecond}}, {Schedule: 5}, {Virtual: []string{"Add"}},
	} {
		if _, err := bad.Check(); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v, want ErrConfig", bad, err)
		}
	}
	neg := Config{HostCost: func(n Node) Costs { return Costs{Launch: -1} }}
	neg, _ = neg.Check()
	if _, err := neg.CostOf(Node{Name: "n"}); !errors.Is(err, ErrConfig) {
		t.Errorf("negative HostCost: %v", err)
	}
	def := Config{Costs: Costs{Prepare: 1, Infer: 2, Resize: 3, Launch: 4}}
	if cs, _ := def.CostOf(Node{OnCPU: true}); cs != (Costs{Prepare: 1, Infer: 2}) {
		t.Errorf("CPU node costs %v", cs)
	}
	if cs, _ := def.CostOf(Node{}); cs != def.Costs || cs.Total() != 10 || cs.Of(kernel.StageResize) != 3 {
		t.Errorf("device node costs %v", cs)
	}
}

// hostWorkNaive integrates min(active, procs) over unit steps.
func hostWorkNaive(procs int, lists [][]Span) int64 {
	var end int64
	for _, l := range lists {
		for _, s := range l {
			end = max(end, s.End)
		}
	}
	var total int64
	for t := int64(0); t < end; t++ {
		active := 0
		for _, l := range lists {
			for _, s := range l {
				if s.Start <= t && t < s.End {
					active++
				}
			}
		}
		total += int64(min(active, procs))
	}
	return total
}

func TestHostWorkAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		procs := 1 + r.IntN(4)
		lists := make([][]Span, r.IntN(6))
		for i := range lists {
			var t0 int64
			for range r.IntN(8) {
				t0 += int64(r.IntN(5))
				d := int64(r.IntN(6))
				lists[i] = append(lists[i], Span{t0, t0 + d})
				t0 += d
			}
		}
		if got, want := HostWork(procs, lists...), hostWorkNaive(procs, lists); int64(got) != want {
			t.Fatalf("procs %d, %v: HostWork %d, want %d", procs, lists, got, want)
		}
	}
}

// TestHostWorkOfBrokenLists: lists that break HostWork's precondition
// (inverted spans, spans out of order or overlapping) give a figure
// between 0 and procs times the time from the earliest instant any span
// names to the latest; an inverted span alone gives 0.
func TestHostWorkOfBrokenLists(t *testing.T) {
	if got := HostWork(1, []Span{{Start: 10, End: 5}}); got != 0 {
		t.Errorf("an inverted span: %v, want 0", got)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		procs := 1 + r.IntN(4)
		lists := make([][]Span, 1+r.IntN(5))
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for i := range lists {
			for range 1 + r.IntN(6) {
				a, b := int64(r.IntN(40)), int64(r.IntN(40))
				lists[i] = append(lists[i], Span{a, b})
				lo, hi = min(lo, a, b), max(hi, a, b)
			}
		}
		if got := int64(HostWork(procs, lists...)); got < 0 || got > int64(procs)*(hi-lo) {
			t.Fatalf("procs %d, %v: HostWork %d, want it in [0, %d]", procs, lists, got, int64(procs)*(hi-lo))
		}
	}
}

func TestBoundNeverExceedsMakespan(t *testing.T) {
	s := Stats{Makespan: 100, Busiest: 80, HostWork: 150, Procs: 2, DeviceWork: 90}
	if s.Bound() != 90 || s.Efficiency() != 0.9 {
		t.Fatalf("bound %v efficiency %v", s.Bound(), s.Efficiency())
	}
}
