package heterog_test

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/scenarios"
	"github.com/pipert/pipert/subgraph"
)

// variantRun is one way to run a workload in a benchmark, with the stats of
// its measured repetitions.
type variantRun struct {
	name  string
	exe   *heterog.Executable
	stats []plan.Stats
}

func (v *variantRun) median(f func(*plan.Stats) float64) float64 {
	xs := make([]float64, len(v.stats))
	for i := range v.stats {
		xs[i] = f(&v.stats[i])
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// BenchmarkHetero runs the hetero scenario at benchmark size on one actor
// (Serial: the CPU kernels computed inside the launch stage) and
// concurrently (Concurrent), repetitions interleaved, and reports the
// medians: makespans, the speedup, and each one's efficiency against its
// bound. Run with -benchtime=Nx for N interleaved pairs.
func BenchmarkHetero(b *testing.B) {
	sc, err := scenarios.Get("hetero")
	if err != nil {
		b.Fatal(err)
	}
	w, err := sc.Build(scenarios.Config{Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	mgr := newManager(b, false)
	procs := runtime.GOMAXPROCS(0)
	var runs []*variantRun
	for _, s := range []heterog.Schedule{heterog.Serial, heterog.Concurrent} {
		exe, err := compileWith(w.Graph, opts{Schedule: s, Mode: plan.Pipeline, Costs: sc.Costs, Manager: mgr, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { exe.Close() })
		runs = append(runs, &variantRun{name: s.String(), exe: exe})
	}
	// For reference: one actor, every node a device kernel paying the full
	// host costs, which is how an actor mode alone runs this graph. The CPU
	// part's data is real, so the simulated device computes it at launch on
	// the launch goroutine: the CPU kernels' work stays on that goroutine.
	dev, err := compileWith(w.Graph, opts{Schedule: heterog.Serial, Policy: heterog.Fixed(subgraph.OnDevice),
		Mode: plan.Pipeline, Costs: sc.Costs, Manager: mgr, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { dev.Close() })
	runs = append(runs, &variantRun{name: "one-actor", exe: dev})
	run := func(v *variantRun, keep bool) {
		r, err := v.exe.Run(context.Background(), w.Inputs)
		if err != nil {
			b.Fatal(err)
		}
		if keep {
			v.stats = append(v.stats, r.Stats)
		}
	}
	for _, v := range runs { // warm-up
		run(v, false)
	}
	b.ResetTimer()
	for b.Loop() {
		for _, v := range runs {
			run(v, true)
		}
	}
	b.StopTimer()
	serial, conc := runs[0], runs[1]
	ms := func(s *plan.Stats) float64 { return float64(s.Makespan) / 1e6 }
	eff := func(s *plan.Stats) float64 { return s.Efficiency() }
	b.ReportMetric(runs[2].median(ms), "one-actor-ms")
	b.ReportMetric(serial.median(ms), "serial-ms")
	b.ReportMetric(conc.median(ms), "concurrent-ms")
	b.ReportMetric(serial.median(ms)/conc.median(ms), "speedup")
	b.ReportMetric(serial.median(eff), "serial-eff")
	b.ReportMetric(conc.median(eff), "concurrent-eff")
	b.ReportMetric(conc.median(func(s *plan.Stats) float64 { return float64(s.Bound()) / 1e6 }), "concurrent-bound-ms")
	b.ReportMetric(serial.median(func(s *plan.Stats) float64 { return float64(s.Bound()) / 1e6 }), "serial-bound-ms")
	b.ReportMetric(0, "ns/op")
	// The same work runs in both schedules (equal costs per kernel), so the
	// serial schedule's host work — its CPU kernels run one at a time, not
	// sharing a processor — also measures the concurrent one's, without the
	// inflation that time-slicing adds to wall-clock busy times.
	work := serial.median(func(s *plan.Stats) float64 { return float64(s.HostBusy()) })
	refBound := conc.median(func(s *plan.Stats) float64 {
		return max(float64(s.DeviceBusy), float64(s.Busiest), work/float64(procs))
	})
	b.ReportMetric(refBound/1e6/conc.median(ms), "concurrent-eff-serialwork")
	if testing.Verbose() {
		for _, v := range runs {
			sorted := slices.Clone(v.stats)
			slices.SortFunc(sorted, func(a, b plan.Stats) int { return int(a.Makespan - b.Makespan) })
			s := sorted[len(sorted)/2]
			b.Logf("%s: makespan %v bound %v host %v busiest %v device %v cpu %v transfer %v parts %d (%d cpu) edges %d kernels %d stages %v",
				v.name, s.Makespan, s.Bound(), s.HostBusy(), s.Busiest, s.DeviceBusy, s.CPUBusy, s.Transfer, len(s.Parts), cpuParts(&s), s.CrossEdges, s.Kernels, []time.Duration{s.Prepare, s.Infer, s.Resize, s.Launch})
		}
	}
}

// BenchmarkActivation measures what a part costs end to end: 64
// independent one-kernel CPU parts (ReLU on four elements), so that the
// figure per part is the scheduler's activation plus the part's actor run
// (inputs in, one kernel, outputs out) and nothing modeled. The
// scheduler's own share is BenchmarkSchedulerChain's.
func BenchmarkActivation(b *testing.B) {
	const parts = 64
	bld := subgraph.NewBuilder("fan")
	x := bld.Input("x", kernel.Float32, 4)
	for range parts {
		bld.Output(bld.Op("ReLU", x))
		bld.Last().Placement = subgraph.OnCPU
	}
	mgr := newManager(b, false)
	exe, err := compileWith(bld.Graph(), opts{Manager: mgr})
	if err != nil {
		b.Fatal(err)
	}
	defer exe.Close()
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, 2, 3, 4}, 4)}
	for b.Loop() {
		r, err := exe.Run(context.Background(), in)
		if err != nil {
			b.Fatal(err)
		}
		if len(r.Stats.Parts) != parts {
			b.Fatalf("%d parts", len(r.Stats.Parts))
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N*parts), "ns/part")
}
