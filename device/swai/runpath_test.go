package swai

import (
	"context"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/internal/clock"
)

// runCard is a card for run-path tests: the fixed paper calibration, no
// host cost, every piece of work recorded.
func runCard(t *testing.T, p Profile) (*Device, *recorder) {
	t.Helper()
	rec := &recorder{}
	d, err := New(p, WithCalibration(PaperCalibration()), WithObserver(rec), WithoutHostCost())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, rec
}

func (r *recorder) last(t *testing.T) work {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.work) == 0 {
		t.Fatal("no work recorded")
	}
	return r.work[len(r.work)-1]
}

// The run path runs no thread of the card: New and pageable stream copies
// start no goroutine (the SDAA API's pageable Memcpy starts the MTMC
// threads on its first call).
func TestRunPathStartsNoThread(t *testing.T) {
	before := runtime.NumGoroutine()
	d, _ := runCard(t, Default())
	b, err := d.Alloc(64<<20, false)
	if err != nil {
		t.Fatal(err)
	}
	s := d.NewStream()
	if err := s.CopyH2D(b, make([]byte, 64<<20)); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after New and a pageable copy, %d before", n, before)
	}
	if d.copies.single != nil {
		t.Error("the copy threads' staging buffers exist")
	}
}

// withinRel reports whether got is within rel of want.
func withinRel(got, want time.Duration, rel float64) bool {
	return math.Abs(float64(got)-float64(want)) <= rel*float64(want)
}

// Pageable stream copies on the card go through MTMC: their modeled time is
// PageableTime, which for a large copy is the paper's equations 4-5: the
// bytes at min(N_t × S_H2B, S_B2D) after the call's fixed costs.
func TestRunPathPageableMTMC(t *testing.T) {
	p := Default()
	d, rec := runCard(t, p)
	cal := PaperCalibration()
	const n = 64 << 20
	b, _ := d.Alloc(n, false)
	s := d.NewStream()
	for _, h2d := range []bool{true, false} {
		if h2d {
			if err := s.CopyH2D(b, make([]byte, n)); err != nil {
				t.Fatal(err)
			}
		} else {
			b2, _ := d.Alloc(n, true)
			if err := s.CopyD2H(context.Background(), make([]byte, n), b2); err != nil {
				t.Fatal(err)
			}
		}
		w := rec.last(t)
		got := time.Duration(w.end - w.start)
		want, err := p.PageableTime(n, PageableMTMC, h2d, cal)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("h2d %v: stream copy %v, PageableTime %v", h2d, got, want)
		}
		// The pipeline fills and drains: at most the first chunk's host
		// copy and one round of chunks over the channels beyond.
		threads := p.threads(cal, 0)
		rate := min(float64(threads)*cal.HostCopyBandwidth, p.Transfer.Bandwidth)
		formula := p.Transfer.Latency + p.Transfer.PageableSetup + time.Duration(n/rate*1e9)
		chunk := float64(p.mtmcChunk(n))
		fill := time.Duration((chunk/cal.HostCopyBandwidth + float64(p.Transfer.Channels)*chunk/p.Transfer.Bandwidth) * 1e9)
		if got < formula || got > formula+fill {
			t.Errorf("h2d %v: %v, equations 4-5 give %v + at most %v (N_t %d)", h2d, got, formula, fill, threads)
		}
	}
	// The GPU's pageable copies: one thread, one channel, two buffers, as
	// fast as the slower of the thread and the channel.
	g := GPU()
	dg, recg := runCard(t, g)
	bg, _ := dg.Alloc(n, false)
	sg := dg.NewStream()
	if err := sg.CopyH2D(bg, make([]byte, n)); err != nil {
		t.Fatal(err)
	}
	w := recg.last(t)
	got := time.Duration(w.end - w.start)
	rate := min(cal.HostCopyBandwidth, g.Transfer.ChannelBandwidth)
	chunk := float64(g.Transfer.StagingBytes)
	fill := time.Duration((chunk/cal.HostCopyBandwidth + chunk/g.Transfer.ChannelBandwidth) * 1e9)
	if formula := g.Transfer.Latency + g.Transfer.PageableSetup + time.Duration(n/rate*1e9); got < formula || got > formula+fill {
		t.Errorf("gpu pageable h2d %v, double buffering gives %v + at most %v", got, formula, fill)
	}
}

// Pinned memory (MallocHost) goes directly: Latency + ChunkStart + the
// bytes at S_B2D, until FreeHost.
func TestRunPathPinned(t *testing.T) {
	p := Default()
	d, rec := runCard(t, p)
	const n = 64 << 20
	host, _, err := d.MallocHost(n)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := d.Alloc(n, false)
	s := d.NewStream()
	if err := s.CopyH2D(b, host[4096:]); err != nil {
		t.Fatal(err)
	}
	w := rec.last(t)
	got := time.Duration(w.end - w.start)
	if want := p.PinnedTime(n - 4096); got != want {
		t.Errorf("pinned copy %v, PinnedTime %v", got, want)
	}
	formula := p.Transfer.Latency + p.Transfer.ChunkStart + time.Duration(float64(n-4096)/p.Transfer.Bandwidth*1e9)
	if !withinRel(got, formula, 0.001) {
		t.Errorf("pinned copy %v, latency + size / S_B2D = %v", got, formula)
	}
	if err := d.FreeHost(host); err != nil {
		t.Fatal(err)
	}
	if err := d.FreeHost(host); err == nil {
		t.Error("FreeHost twice succeeded")
	}
	if err := s.CopyH2D(b, host); err != nil {
		t.Fatal(err)
	}
	w = rec.last(t)
	if got, want := time.Duration(w.end-w.start), p.PinnedTime(n); got == want {
		t.Errorf("a freed pinned buffer still copies as pinned (%v)", got)
	}
}

// Device-to-device stream copies take the adaptive engine: the smallest of
// equations 6-11 over the card's engines.
func TestRunPathD2D(t *testing.T) {
	p := Default()
	d, rec := runCard(t, p)
	cal := PaperCalibration()
	s := d.NewStream()
	dd := p.D2D
	mpe := cal.HostCopyBandwidth * dd.MPECopyScale
	for _, n := range []int64{1 << 10, 16 << 10, 256 << 10, 4 << 20, 64 << 20} {
		src, _ := d.Alloc(n, false)
		dst, _ := d.Alloc(n, false)
		if err := s.CopyD2D(dst, src); err != nil {
			t.Fatal(err)
		}
		w := rec.last(t)
		got := time.Duration(w.end - w.start)
		S := float64(n)
		eq := []float64{
			S / mpe * 1e9, // T_d-mpe
			float64(dd.CPEStart) + S/dd.CPEBandwidth*1e9,                                           // T_d-cpe
			2*float64(dd.DMAStart) + S/dd.DMARead*1e9 + S/dd.DMAWrite*1e9 + float64(dd.Turnaround), // T_d-dma
			float64(dd.DMAStart) + S/((dd.DMARead+dd.DMAWrite)/2)*1e9,                              // T_d-iommu
		}
		best := math.Inf(1)
		for _, x := range eq {
			best = min(best, x)
		}
		want := dd.Host + time.Duration(math.Round(best))
		if got < want-1 || got > want+1 {
			t.Errorf("%d bytes: d2d %v, equations 6-11 give %v", n, got, want)
		}
	}
}

// Launches go through the serial MPE: a kernel starts no earlier than the
// previous one's end plus O_command + O_start, and a lone empty kernel ends
// KLL after the call (equations 12-14).
func TestRunPathLaunch(t *testing.T) {
	p := Default()
	d, rec := runCard(t, p)
	s := d.NewStream()
	for range 3 {
		if err := s.Launch(device.Kernel{Name: "k", Cost: device.Cost{FLOPs: 1e9}}); err != nil {
			t.Fatal(err)
		}
	}
	rec.mu.Lock()
	ws := append([]work(nil), rec.work...)
	rec.mu.Unlock()
	for i := 1; i < len(ws); i++ {
		if gap := time.Duration(ws[i].start - ws[i-1].end); gap < p.Launch.Command+p.Launch.Start {
			t.Errorf("kernel %d starts %v after kernel %d ends, less than O_command + O_start", i, gap, i-1)
		}
	}
}

// Alloc goes through the caching layer: a miss costs sdaaMalloc's modeled
// time (equation 1), a block freed and asked for again costs nothing; the
// GPU's first allocation also pays the first-touch penalty.
func TestRunPathAllocCache(t *testing.T) {
	// A miss's modeled time is the profile's formula plus the allocator's
	// measured time, which a loaded host (or the race detector) stretches:
	// the measured part may add up to slack; the ratio is of the formulas.
	const slack = 50 * time.Millisecond
	for _, p := range []Profile{Default(), GPU()} {
		d, _ := runCard(t, p)
		b, err := d.Alloc(1000, false)
		if err != nil {
			t.Fatal(err)
		}
		n, first := d.CacheMisses()
		lo := p.MallocTime(roundCached(1000), CPEMemory, 0) + p.Malloc.FirstTouch
		if n != 1 || first < lo || first > lo+slack {
			t.Errorf("%s: first alloc: %d misses, %v modeled, want one of about %v", p.Name, n, first, lo)
		}
		if err := d.Free(b); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Alloc(900, false); err != nil { // the same rounded size
			t.Fatal(err)
		}
		if n2, _ := d.CacheMisses(); n2 != 1 {
			t.Errorf("%s: a freed block of the same size missed (%d misses)", p.Name, n2)
		}
		if _, err := d.Alloc(5000, false); err != nil {
			t.Fatal(err)
		}
		n3, total := d.CacheMisses()
		second := total - first
		lo2 := p.MallocTime(roundCached(5000), CPEMemory, 0)
		if n3 != 2 || second < lo2 || second > lo2+slack {
			t.Errorf("%s: second miss %v, want about %v", p.Name, second, lo2)
		}
		if p.Malloc.FirstTouch > 0 {
			if r := float64(lo) / float64(lo2); r < 9 || r > 11 {
				t.Errorf("%s: first allocation %.1fx a later one, want about 10x", p.Name, r)
			}
		}
	}
}

// The cache gives back what it holds when the card runs out, and catches
// a double free.
func TestRunPathAllocCacheReleases(t *testing.T) {
	p := Default()
	p.MemoryBytes = 64 << 20
	d, _ := runCard(t, p)
	b, err := d.Alloc(40<<20, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Free(b); err != nil {
		t.Fatal(err)
	}
	if err := d.Free(b); err == nil {
		t.Error("double free accepted")
	}
	if _, err := d.Alloc(48<<20, false); err != nil {
		t.Fatalf("the cached 40 MiB block was not released for 48 MiB: %v", err)
	}
}

// Engines on the card: eight streams' kernels on one compute engine run
// one after another, on two engines two at a time behind the GPU's
// pipelined front end; the card's serial MPE starts one kernel at a time
// whatever the engines, so there they stay serial. The model is checked
// kernel by kernel against the host's launch calls, so a host that is
// descheduled between launches (and leaves the card idle) does not fail
// it: a kernel starts no earlier than an engine it may use is free, and no
// later than its launch terms after both that engine and its launch call.
// With a host that keeps up, the span is the serial sum (or half of it).
func TestRunPathEngines(t *testing.T) {
	const kernel = time.Millisecond
	for _, c := range []struct {
		p       Profile
		engines int
		width   int // kernels that may run at once
	}{
		{GPU(), 1, 1}, {GPU(), 2, 2},
		{Default(), 1, 1}, {Default(), 2, 1},
	} {
		p := c.p
		p.ComputeEngines = c.engines
		p.PeakFLOPS = 1e9
		cost := device.Cost{FLOPs: 1e9 * kernel.Seconds()}
		d, rec := runCard(t, p)
		var called [8]int64 // when each Launch call returned
		for i := range called {
			if err := d.NewStream().Launch(device.Kernel{Name: "k", Cost: cost}); err != nil {
				t.Fatal(err)
			}
			called[i] = clock.Now()
		}
		rec.mu.Lock()
		work := slices.Clone(rec.work)
		rec.mu.Unlock()
		if len(work) != len(called) {
			t.Fatalf("%s, %d engines: %d kernels recorded, want %d", p.Name, c.engines, len(work), len(called))
		}
		over := int64(p.KLO(FastLaunch))
		dp := p.Device()
		exec := dp.KernelTime(cost)
		free := make([]int64, c.width) // when each slot frees, as the card ran them
		for i, w := range work {
			e := slices.Index(free, slices.Min(free))
			if ran := time.Duration(w.end - w.start); ran != exec {
				t.Errorf("%s, %d engines: kernel %d ran %v, want %v", p.Name, c.engines, i, ran, exec)
			}
			if w.start < free[e] {
				t.Errorf("%s, %d engines: kernel %d started %v before a slot of %d freed", p.Name, c.engines, i, time.Duration(free[e]-w.start), c.width)
			}
			if late := w.start - (max(free[e], called[i]) + over); late > 0 {
				t.Errorf("%s, %d engines: kernel %d started %v after its slot and launch call, more than the launch terms %v", p.Name, c.engines, i, time.Duration(w.start-max(free[e], called[i])), time.Duration(over))
			}
			free[e] = w.end
		}
	}
}

// Bad input is an error naming the field.
func TestBadInputNamesTheField(t *testing.T) {
	p := Default()
	p.ComputeEngines = -1
	p.Transfer.Bandwidth = -1
	p.Transfer.MinChunkBytes = p.Transfer.StagingBytes + 1
	err := p.Validate()
	for _, f := range []string{"compute_engines", "transfer.bandwidth", "transfer.min_chunk_bytes"} {
		if err == nil || !strings.Contains(err.Error(), f) {
			t.Errorf("error %v does not name %s", err, f)
		}
	}
	if _, err := Figures(context.Background(), FigureOptions{Figures: []string{"fig99"}}); err == nil || !strings.Contains(err.Error(), `"fig99"`) {
		t.Errorf("unknown figure: %v", err)
	}
	if _, err := p.PageableTime(1, Pinned, true, PaperCalibration()); err == nil {
		t.Error("PageableTime of the pinned path")
	}
}
