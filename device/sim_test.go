package device_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/internal/clock"
)

// recorder is an Observer that keeps every piece of work.
type recorder struct {
	mu   sync.Mutex
	work []work
}

type work struct {
	stream     int
	kind, name string
	start, end int64
}

func (r *recorder) OnWork(w device.Work) {
	r.mu.Lock()
	r.work = append(r.work, work{w.Stream, w.Kind, w.Name, w.Start, w.End})
	r.mu.Unlock()
}

func newSim(t *testing.T, p device.Profile, obs device.Observer) *device.Sim {
	t.Helper()
	d, err := device.NewSim(device.SimOptions{Profile: p, Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func slowProfile() device.Profile {
	p := device.Default()
	p.Name = "slow"
	p.KernelFixed = 200 * time.Microsecond
	return p
}

func TestKernelNeverCompletesBeforeModeledEnd(t *testing.T) {
	rec := &recorder{}
	d := newSim(t, slowProfile(), rec)
	s := d.NewStream()
	before := clock.Now()
	for i := 0; i < 5; i++ {
		if err := s.Launch(device.Kernel{Name: "k", Cost: device.Cost{}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Synchronize(context.Background()); err != nil {
		t.Fatal(err)
	}
	after := clock.Now()
	last := rec.work[len(rec.work)-1]
	if after < last.end {
		t.Fatalf("Synchronize returned at %d, before the last kernel's modeled end %d", after, last.end)
	}
	if min := before + 5*int64(200*time.Microsecond); last.end < min {
		t.Fatalf("5 kernels of 200µs ended %dns after start, want at least 1ms", last.end-before)
	}
	if !s.Query() {
		t.Fatal("Query false after Synchronize")
	}
}

func TestStreamRunsInOrder(t *testing.T) {
	rec := &recorder{}
	d := newSim(t, slowProfile(), rec)
	s := d.NewStream()
	for i := 0; i < 10; i++ {
		if err := s.Launch(device.Kernel{Name: "k", Cost: device.Cost{FLOPs: float64(i) * 1e9}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i < len(rec.work); i++ {
		if rec.work[i].start < rec.work[i-1].end {
			t.Fatalf("kernel %d starts at %d before kernel %d ends at %d", i, rec.work[i].start, i-1, rec.work[i-1].end)
		}
	}
}

func TestEventOrdersTwoStreams(t *testing.T) {
	rec := &recorder{}
	p := slowProfile()
	p.KernelFixed = 50 * time.Millisecond // far above any scheduling hiccup
	d := newSim(t, p, rec)
	a, b := d.NewStream(), d.NewStream()
	for i := 0; i < 3; i++ {
		a.Launch(device.Kernel{Name: "a", Cost: device.Cost{}})
	}
	e := d.NewEvent()
	a.Record(e)
	b.WaitEvent(e)
	b.Launch(device.Kernel{Name: "b", Cost: device.Cost{}})
	var aEnd, bStart int64
	for _, w := range rec.work {
		if w.name == "a" {
			aEnd = max(aEnd, w.end)
		} else {
			bStart = w.start
		}
	}
	if bStart < aEnd {
		t.Fatalf("stream b's kernel starts at %d, before the event's work ends at %d", bStart, aEnd)
	}
	if e.At() != aEnd {
		t.Fatalf("event at %d, want %d", e.At(), aEnd)
	}
	// A stream without the wait is not held back.
	c := d.NewStream()
	c.Launch(device.Kernel{Name: "c", Cost: device.Cost{}})
	if got := rec.work[len(rec.work)-1]; got.start >= aEnd {
		t.Fatalf("independent stream c starts at %d, after stream a's work (%d)", got.start, aEnd)
	}
	if err := e.Synchronize(context.Background()); err != nil {
		t.Fatal(err)
	}
	if clock.Now() < aEnd {
		t.Fatal("event Synchronize returned before the recorded work ended")
	}
}

func TestUnrecordedEventIsComplete(t *testing.T) {
	d := newSim(t, device.Default(), nil)
	e := d.NewEvent()
	if !e.Query() || e.At() != 0 {
		t.Fatal("a never-recorded event must be complete")
	}
	if err := e.Synchronize(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestNilEventIsComplete: a stream waiting for a nil event, like one never
// recorded, waits for nothing; recording one does nothing.
func TestNilEventIsComplete(t *testing.T) {
	d := newSim(t, device.Default(), nil)
	s := d.NewStream()
	s.Record(nil)
	s.WaitEvent(nil)
	if err := s.Synchronize(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestRooflineAndCopyCosts(t *testing.T) {
	p := device.Default()
	compute := p.KernelTime(device.Cost{FLOPs: 1e12})
	if want := p.KernelFixed + 10*time.Millisecond; compute != want {
		t.Fatalf("1 TFLOP kernel: %v, want %v", compute, want)
	}
	mem := p.KernelTime(device.Cost{FLOPs: 1, Bytes: 9e9})
	if want := p.KernelFixed + 10*time.Millisecond; mem != want {
		t.Fatalf("9 GB kernel: %v, want %v", mem, want)
	}
	if got, want := p.H2D.Time(12e6), p.H2D.Latency+time.Millisecond; got != want {
		t.Fatalf("12 MB H2D: %v, want %v", got, want)
	}
}

func TestOutOfMemoryIsAnError(t *testing.T) {
	p := device.Default()
	p.MemoryBytes = 1 << 20
	d := newSim(t, p, nil)
	b, err := d.Alloc(512<<10, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Alloc(768<<10, false); !errors.Is(err, device.ErrOutOfMemory) {
		t.Fatalf("alloc beyond capacity: %v, want ErrOutOfMemory", err)
	}
	if err := d.Free(b); err != nil {
		t.Fatal(err)
	}
	if err := d.Free(b); err == nil {
		t.Fatal("double free succeeded")
	}
	if _, err := d.Alloc(768<<10, false); err != nil {
		t.Fatalf("alloc after free: %v", err)
	}
}

func TestCopiesMoveRealData(t *testing.T) {
	d := newSim(t, device.Default(), nil)
	s := d.NewStream()
	src := []byte("pipert moves bytes")
	a, _ := d.Alloc(int64(len(src)), true)
	b, _ := d.Alloc(int64(len(src)), true)
	if err := s.CopyH2D(a, src); err != nil {
		t.Fatal(err)
	}
	if err := s.CopyD2D(b, a); err != nil {
		t.Fatal(err)
	}
	dst := make([]byte, len(src))
	if err := s.CopyD2H(context.Background(), dst, b); err != nil {
		t.Fatal(err)
	}
	if string(dst) != string(src) {
		t.Fatalf("round trip gave %q", dst)
	}
	if err := s.CopyH2D(a, make([]byte, 100)); !errors.Is(err, device.ErrBadCopy) {
		t.Fatalf("oversized copy: %v", err)
	}
	v, _ := d.Alloc(8, false)
	if err := s.CopyD2H(context.Background(), make([]byte, 8), v); !errors.Is(err, device.ErrNotBacked) {
		t.Fatalf("d2h from virtual buffer: %v", err)
	}
	st := d.Stats()
	if st.MemInUse != int64(2*len(src)+8) || st.MemPeak < st.MemInUse {
		t.Fatalf("memory accounting %+v", st)
	}
}

func TestWaitUntilHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := clock.WaitUntil(ctx, clock.Now()+int64(time.Hour)); !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitUntil on a cancelled context: %v", err)
	}
}

func TestProfileValidation(t *testing.T) {
	p := device.Default()
	p.MemBandwidth = 0
	if _, err := device.NewSim(device.SimOptions{Profile: p}); err == nil {
		t.Fatal("profile without bandwidth accepted")
	}
}

// TestProfileValidateNamesFieldAndRange: a rate below MinRate (the
// simulated device would spend minutes on every kernel), a latency or an
// engine count out of range is refused naming the field and its range;
// the rates at MinRate validate.
func TestProfileValidateNamesFieldAndRange(t *testing.T) {
	for _, c := range []struct {
		edit func(*device.Profile)
		want string
	}{
		{func(p *device.Profile) { p.PeakFLOPS = 1e-9 }, "PeakFLOPS 1e-09 outside [1e+06, +Inf)"},
		{func(p *device.Profile) { p.MemBandwidth = 1e-9 }, "MemBandwidth 1e-09 outside [1e+06, +Inf)"},
		{func(p *device.Profile) { p.H2D.Bandwidth = 1000 }, "H2D.Bandwidth 1000 outside [1e+06, +Inf)"},
		{func(p *device.Profile) { p.D2H.Bandwidth = 0 }, "D2H.Bandwidth 0 outside [1e+06, +Inf)"},
		{func(p *device.Profile) { p.D2D.Bandwidth = math.Inf(1) }, "D2D.Bandwidth +Inf outside [1e+06, +Inf)"},
		{func(p *device.Profile) { p.KernelFixed = time.Minute }, "KernelFixed 1m0s outside [0, 10s]"},
		{func(p *device.Profile) { p.D2D.Latency = -1 }, "D2D.Latency -1ns outside [0, 10s]"},
		{func(p *device.Profile) { p.ReplayNode = time.Hour }, "ReplayNode 1h0m0s outside [0, 10s]"},
		{func(p *device.Profile) { p.CopyEngines = -1 }, "CopyEngines -1 outside [0, 4096]"},
	} {
		p := device.Default()
		c.edit(&p)
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate = %v, want %q", err, c.want)
		}
	}
	p := device.Default()
	p.PeakFLOPS, p.MemBandwidth = device.MinRate, device.MinRate
	p.H2D.Bandwidth, p.D2H.Bandwidth, p.D2D.Bandwidth = device.MinRate, device.MinRate, device.MinRate
	if err := p.Validate(); err != nil {
		t.Errorf("rates at MinRate: %v", err)
	}
}

// fixedLauncher delays every kernel start by a fixed amount.
type fixedLauncher struct{ delay int64 }

func (l fixedLauncher) Issue(now int64) (int64, int64) { return now, now + l.delay }

func TestLauncherSetsEarliestStart(t *testing.T) {
	rec := &recorder{}
	d, err := device.NewSim(device.SimOptions{Observer: rec, Launcher: fixedLauncher{int64(time.Second)}})
	if err != nil {
		t.Fatal(err)
	}
	before := clock.Now()
	d.NewStream().Launch(device.Kernel{Name: "k", Cost: device.Cost{}})
	if rec.work[0].start < before+int64(time.Second) {
		t.Fatal("launcher's earliest start ignored")
	}
}

// TestReplayDispatchesNodeByNode: a replayed sequence's kernel i starts no
// earlier than the submission plus ReplayFixed + (i+1) × ReplayNode and
// no earlier than kernel i-1's end, and not later than both.
func TestReplayDispatchesNodeByNode(t *testing.T) {
	p := device.Default()
	p.ReplayFixed, p.ReplayNode = 10*time.Microsecond, 3*time.Microsecond
	p.KernelFixed = 2 * time.Microsecond // shorter than a node: dispatch-bound
	rec := &recorder{}
	d := newSim(t, p, rec)
	s := d.NewStream()
	ks := make([]device.Kernel, 20)
	for i := range ks {
		ks[i] = device.Kernel{Name: "k"}
		if i%5 == 4 {
			ks[i].Cost.FLOPs = 1e9 // 10 µs: the next ones queue behind it
		}
	}
	r, ok := s.(device.Replayer)
	if !ok {
		t.Fatal("a Sim stream is not a Replayer")
	}
	before := clock.Now()
	if err := r.Replay(ks); err != nil {
		t.Fatal(err)
	}
	after := clock.Now()
	if len(rec.work) != len(ks) {
		t.Fatalf("%d pieces of work for %d kernels", len(rec.work), len(ks))
	}
	var prevEnd int64
	for i, w := range rec.work {
		dispatch := int64(p.ReplayFixed) + int64(i+1)*int64(p.ReplayNode)
		lo := max(before+dispatch, prevEnd)
		hi := max(after+dispatch, prevEnd)
		if w.start < lo || w.start > hi {
			t.Fatalf("kernel %d starts at %d, want in [%d, %d]", i, w.start, lo, hi)
		}
		if want := int64(p.KernelTime(ks[i].Cost)); w.end-w.start != want {
			t.Fatalf("kernel %d lasts %d, want %d", i, w.end-w.start, want)
		}
		prevEnd = w.end
	}
	if st := s.Stats(); st.Kernels != int64(len(ks)) {
		t.Fatalf("stream counts %d kernels", st.Kernels)
	}
	if got := p.ReplayTime(len(ks)); got != p.ReplayFixed+20*p.ReplayNode {
		t.Fatalf("ReplayTime %v", got)
	}
	bad := p
	bad.ReplayNode = -1
	if err := bad.Validate(); err == nil {
		t.Fatal("a negative replay cost validates")
	}
}

// TestLaunchArgsCrossTheLink: a kernel whose launch carries argument bytes
// (tiling data) starts that many bytes over the H2D bandwidth later. Each
// launch reads the clock between before and after, so its start less its
// delay lies within [before, after] of the launch plus the latency: the
// two launches bound the delay whatever the time between the readings.
func TestLaunchArgsCrossTheLink(t *testing.T) {
	p := device.Default()
	// By launch: its start less the clock reading after it, and before it.
	var lo, hi [2]int64
	for i, args := range []int64{0, 120_000} { // 10 µs at 12 GB/s
		rec := &recorder{}
		s := newSim(t, p, rec).NewStream()
		before := clock.Now()
		if err := s.Launch(device.Kernel{Name: "k", Args: args}); err != nil {
			t.Fatal(err)
		}
		after := clock.Now()
		lo[i], hi[i] = rec.work[0].start-after, rec.work[0].start-before
	}
	want := int64(120_000 / p.H2D.Bandwidth * 1e9)
	if min, max := lo[1]-hi[0], hi[1]-lo[0]; want < min-1 || want > max+1 {
		t.Fatalf("120 kB of arguments delay the start by %v to %v, want %v", time.Duration(min), time.Duration(max), time.Duration(want))
	}
}

// TestEnginesBoundConcurrentStreams: kernels of eight streams on a device
// of one compute engine run one after another (their span is the serial
// sum); with two engines, two at a time (half); without a bound, all at
// once. Copies share the copy engines the same way. The kernels are
// checked one by one against the host's launch calls, so a host
// descheduled between two launches (which leaves the engines idle) does
// not fail the test: a kernel starts no earlier than an engine is free,
// and no later than the launch latency after both that engine and its
// launch call.
func TestEnginesBoundConcurrentStreams(t *testing.T) {
	const kernel = 5 * time.Millisecond
	for _, c := range []struct {
		engines int
		want    time.Duration
	}{{1, 8 * kernel}, {2, 4 * kernel}, {0, kernel}} {
		p := device.Default()
		p.KernelFixed = kernel
		p.ComputeEngines, p.CopyEngines = c.engines, c.engines
		rec := &recorder{}
		d := newSim(t, p, rec)
		var called [8]int64 // when each Launch call returned
		for i := range called {
			if err := d.NewStream().Launch(device.Kernel{Name: "k"}); err != nil {
				t.Fatal(err)
			}
			called[i] = clock.Now()
		}
		if len(rec.work) != len(called) {
			t.Fatalf("%d engines: %d kernels recorded, want %d", c.engines, len(rec.work), len(called))
		}
		width := c.engines
		if width == 0 {
			width = len(called)
		}
		free := make([]int64, width) // when each engine frees, as the device ran them
		for i, w := range rec.work {
			e := slices.Index(free, slices.Min(free))
			if ran := time.Duration(w.end - w.start); ran != kernel {
				t.Errorf("%d engines: kernel %d ran %v, want %v", c.engines, i, ran, kernel)
			}
			if w.start < free[e] {
				t.Errorf("%d engines: kernel %d started %v before an engine freed", c.engines, i, time.Duration(free[e]-w.start))
			}
			if ready := max(free[e], called[i]); w.start > ready+int64(p.LaunchLatency) {
				t.Errorf("%d engines: kernel %d started %v after its engine and launch call, more than the launch latency %v", c.engines, i, time.Duration(w.start-ready), p.LaunchLatency)
			}
			free[e] = w.end
		}
		// Copies share the copy engines: they take at least the serial sum
		// (one engine) or half of it (two).
		rec.work = nil
		n := int64(p.H2D.Bandwidth / 1000) // 1 ms of transfer
		b, err := d.Alloc(n, false)
		if err != nil {
			t.Fatal(err)
		}
		for range 8 {
			if err := d.NewStream().CopyH2D(b, make([]byte, n)); err != nil {
				t.Fatal(err)
			}
		}
		first, last := rec.work[0].start, rec.work[0].end
		for _, w := range rec.work {
			first, last = min(first, w.start), max(last, w.end)
		}
		if span, want := time.Duration(last-first), c.want/kernel*time.Millisecond; c.engines > 0 && span < want {
			t.Errorf("%d copy engines: 8 copies of about 1 ms span %v", c.engines, span)
		}
	}
	bad := device.Default()
	bad.ComputeEngines = -1
	if err := bad.Validate(); err == nil {
		t.Error("a negative engine count validates")
	}
	// Every launch and copy scans the engines: 10^9 of them hung the run.
	bad.ComputeEngines, bad.CopyEngines = device.MaxEngines, device.MaxEngines+1
	if err := bad.Validate(); err == nil {
		t.Errorf("%d copy engines validate", bad.CopyEngines)
	}
	bad.CopyEngines = device.MaxEngines
	if err := bad.Validate(); err != nil {
		t.Errorf("%d engines of each kind: %v", device.MaxEngines, err)
	}
}

// TestLargestMemory: a profile of MaxMemoryBytes makes a device that hands
// out all of it, in its own address window; one byte more is refused.
func TestLargestMemory(t *testing.T) {
	p := device.Default()
	p.MemoryBytes = device.MaxMemoryBytes
	d, err := device.NewSim(device.SimOptions{Profile: p})
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.Alloc(device.MaxMemoryBytes, false)
	if err != nil {
		t.Fatalf("Alloc of the whole memory: %v", err)
	}
	other, err := device.NewSim(device.SimOptions{Profile: p})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Owns(b) || other.Owns(b) {
		t.Errorf("Owns of the whole memory: own %v, another device's %v", d.Owns(b), other.Owns(b))
	}
	if err := other.Free(b); err == nil {
		t.Error("another device freed the buffer")
	}
	if err := d.Free(b); err != nil {
		t.Fatal(err)
	}
	p.MemoryBytes++
	if _, err := device.NewSim(device.SimOptions{Profile: p}); err == nil {
		t.Errorf("a profile of %d bytes accepted", p.MemoryBytes)
	}
}

// TestProfileValidateRefusesNonsense: Validate refuses NaN, infinite and
// non-positive rates and latencies or fixed costs outside [0, 10 s], one
// field at a time, and the default profile validates.
func TestProfileValidateRefusesNonsense(t *testing.T) {
	if p := device.Default(); p.Validate() != nil {
		t.Fatalf("the default profile does not validate: %v", p.Validate())
	}
	nan, inf := math.NaN(), math.Inf(1)
	for name, edit := range map[string]func(*device.Profile){
		"PeakFLOPS NaN":        func(p *device.Profile) { p.PeakFLOPS = nan },
		"MemBandwidth +Inf":    func(p *device.Profile) { p.MemBandwidth = inf },
		"H2D bandwidth NaN":    func(p *device.Profile) { p.H2D.Bandwidth = nan },
		"D2D bandwidth +Inf":   func(p *device.Profile) { p.D2D.Bandwidth = inf },
		"LaunchLatency 100 s":  func(p *device.Profile) { p.LaunchLatency = 100 * time.Second },
		"KernelFixed -1":       func(p *device.Profile) { p.KernelFixed = -1 },
		"D2H latency 1 h":      func(p *device.Profile) { p.D2H.Latency = time.Hour },
		"H2D latency negative": func(p *device.Profile) { p.H2D.Latency = -time.Microsecond },
		"ReplayFixed 11 s":     func(p *device.Profile) { p.ReplayFixed = 11 * time.Second },
	} {
		p := device.Default()
		edit(&p)
		if err := p.Validate(); err == nil {
			t.Errorf("%s validates", name)
		}
		if _, err := device.NewSim(device.SimOptions{Profile: p}); err == nil {
			t.Errorf("%s: NewSim accepted it", name)
		}
	}
}
