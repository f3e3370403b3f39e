package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/scenarios"
)

// soakReport is what pipebench soak writes with -json.
type soakReport struct {
	SchemaVersion int     `json:"schema_version"`
	SchemaMinor   int     `json:"schema_minor"`
	Machine       machine `json:"machine"`
	Scenario      string  `json:"scenario"`
	// Consecutive runs of one executable per mode.
	Modes []soakMode `json:"modes"`
	// The load phase: executables running at once on one shared device.
	Executables int      `json:"executables"`
	LoadModes   []string `json:"load_modes"`
	DurationS   float64  `json:"duration_s"`
	Samples     int      `json:"samples"`
	// Least-squares slopes after the warm-up, per minute, and the last
	// sample's difference from the first one after the warm-up.
	HeapSlopeBytesPerMin   float64         `json:"heap_slope_bytes_per_min"`
	DeviceSlopeBytesPerMin float64         `json:"device_slope_bytes_per_min"`
	GoroutineSlopePerMin   float64         `json:"goroutine_slope_per_min"`
	HeapFinalDeltaBytes    int64           `json:"heap_final_delta_bytes"`
	DeviceFinalDeltaBytes  int64           `json:"device_final_delta_bytes"`
	GoroutineFinalDelta    int64           `json:"goroutine_final_delta"`
	RunsPerSecond          []float64       `json:"runs_per_second"`
	Fairness               float64         `json:"fairness"`
	Cancels                int             `json:"cancels"`
	CancelMedianNs         int64           `json:"cancel_median_ns"`
	CancelMaxNs            int64           `json:"cancel_max_ns"`
	CancelLimitNs          int64           `json:"cancel_limit_ns"`
	Held                   map[string]bool `json:"held"`
	// Incomplete, when set, says why the soak stopped early (an interrupt
	// or a failed run): the report holds the phases it finished, and no
	// verdicts.
	Incomplete string `json:"incomplete,omitempty"`
}

// soakMode is one mode's consecutive runs: latency percentiles after the
// warm-up.
type soakMode struct {
	Mode     string `json:"mode"`
	Runs     int    `json:"runs"`
	MedianNs int64  `json:"median_ns"`
	P999Ns   int64  `json:"p999_ns"`
	MaxNs    int64  `json:"max_ns"`
}

// runSoak is pipebench soak: consecutive runs per mode, then executables
// at once on one device, with heap, device memory and goroutines sampled
// after a GC, and cancellations at random points.
func runSoak(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pipebench soak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		quick    = fs.Bool("quick", false, "CI-sized: 1 000 runs per mode, a 20 s load phase sampled every 2 s (under 60 s)")
		scenario = fs.String("scenario", "zerocost", "the scenario whose graph every executable runs (its benchmark size, no synthetic host cost)")
		runs     = fs.Int("runs", 10_000, fmt.Sprintf("consecutive runs per mode, %d to %d", minSoakRuns, maxSoakRuns))
		cancels  = fs.Int("cancels", 20, fmt.Sprintf("runs per mode cancelled at a random point, 1 to %d", maxSoakCancels))
		duration = fs.Duration("duration", 2*time.Minute, fmt.Sprintf("length of the load phase, at most %v", maxSoakDuration))
		every    = fs.Duration("every", 5*time.Second, fmt.Sprintf("sampling period of the load phase, at least %v; -duration/-every samples are taken, %d to %d", minSoakEvery, minSoakSamples, maxSoakSamples))
		execs    = fs.Int("executables", 8, fmt.Sprintf("executables running at once in the load phase, 1 to %d", maxSoakExecutables))
		modeName = fs.String("mode", "pipeline", "mode of the load phase's executables (all the same, so that their throughputs compare), or mixed (modes in turn)")
		jsonPath = fs.String("json", "", "also write the results as JSON to this file")
		check    = fs.Bool("check", false, "exit with status 1 if a target does not hold")
	)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: pipebench soak [flags]\n\nRuns one scenario's graph for long: consecutive runs per mode (latency percentiles), then\nexecutables at once on one shared device, sampling the live heap, device memory and\ngoroutines after a GC; cancels runs at random points. Flags:")
		fs.PrintDefaults()
	}
	if code, ok := parseSub(fs, args, 0, stderr, ""); !ok {
		return code
	}
	set := flagsSet(fs)
	if *quick {
		if !set["runs"] {
			*runs = 1_000
		}
		if !set["duration"] {
			*duration = 20 * time.Second
		}
		if !set["every"] {
			*every = 2 * time.Second
		}
	}
	// Every bound is checked before anything runs (with -quick's values):
	// a soak must not fail after its first phases, nor exhaust memory.
	o := soakOptions{runs: *runs, cancels: *cancels, execs: *execs, duration: *duration, every: *every}
	if err := o.check(); err != nil {
		fmt.Fprintf(stderr, "pipebench: soak: %v\n", err)
		return usageFailed(stderr, "pipebench soak")
	}
	// The output is checked before the soak: it must not end in an error
	// that loses its results.
	if err := checkOutputs(nil, outFlag{"json", *jsonPath}); err != nil {
		fmt.Fprintf(stderr, "pipebench: soak: %v\n", err)
		return usageFailed(stderr, "pipebench soak")
	}
	sc, err := scenarios.Get(*scenario)
	if err != nil {
		fmt.Fprintf(stderr, "pipebench: soak: %v\n", err)
		return usageFailed(stderr, "pipebench soak")
	}
	w, err := sc.Build(scenarios.Config{Quick: *quick, Seed: 1})
	if err != nil {
		fmt.Fprintf(stderr, "pipebench: soak: %v\n", err)
		return 1
	}
	var loadModes []pipert.Mode
	if *modeName == "mixed" {
		loadModes = pipert.Modes()
	} else {
		m, err := pipert.ParseMode(*modeName)
		if err != nil {
			fmt.Fprintf(stderr, "pipebench: soak: -mode: %v\n", err)
			return usageFailed(stderr, "pipebench soak")
		}
		loadModes = []pipert.Mode{m}
	}
	o.modes = loadModes
	rep, err := soak(ctx, w, o, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "pipebench: soak: %v\n", err)
		if rep == nil {
			return 1
		}
		// What finished before the interrupt or failure is kept (the
		// report says so even when no phase finished).
		rep.Incomplete = err.Error()
		if ctx.Err() != nil {
			rep.Incomplete = "interrupted: " + rep.Incomplete
		}
	}
	rep.Scenario = sc.Name
	writeSoak(stdout, rep)
	if *jsonPath != "" {
		if err := writeJSON(*jsonPath, rep); err != nil {
			fmt.Fprintf(stderr, "pipebench: soak: %v\n", err)
			return 1
		}
	}
	if rep.Incomplete != "" {
		fmt.Fprintf(stderr, "pipebench: soak: stopped early: the report holds the %d phases finished before, and no verdicts\n", rep.phases())
		return 1
	}
	if failed := rep.failed(); *check && len(failed) > 0 {
		fmt.Fprintf(stderr, "pipebench: soak: -check: %s\n", strings.Join(failed, "; ")+" does not hold")
		return 1
	}
	return 0
}

// phases counts the phases a report holds: the consecutive runs of each
// mode, the cancellations and the load.
func (r *soakReport) phases() int {
	n := len(r.Modes)
	if r.CancelLimitNs > 0 {
		n++
	}
	if r.Samples > 0 {
		n++
	}
	return n
}

// failed lists the targets that do not hold, in order.
func (r *soakReport) failed() []string {
	var out []string
	for k, held := range r.Held {
		if !held {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// The bounds of pipebench soak's flags. A load phase's executable holds
// its compiled graph, buffers and goroutines (about 5 MB for zerocost),
// so that thousands of them exhaust the memory of a test machine; the
// latencies of a mode's runs are kept (8 bytes each); the samples are
// taken every -every, after a GC with every run paused.
const (
	minSoakRuns        = 10 // the first tenth is the warm-up
	maxSoakRuns        = 1_000_000
	maxSoakCancels     = 100_000
	maxSoakExecutables = 1_000
	maxSoakDuration    = 24 * time.Hour
	minSoakEvery       = 10 * time.Millisecond
	minSoakSamples     = 3 // a slope after the warm-up needs them
	maxSoakSamples     = 100_000
)

// soakOptions are pipebench soak's settings: runs consecutive runs per
// mode, cancels cancelled runs per mode, then execs executables at once
// in modes for duration, sampled every every.
type soakOptions struct {
	runs, cancels, execs int
	duration, every      time.Duration
	modes                []pipert.Mode
}

// check checks o against the flags' bounds: the error, a usage error,
// names the flag and its range.
func (o soakOptions) check() error {
	runs, execs, duration, every := o.runs, o.execs, o.duration, o.every
	switch {
	case runs < minSoakRuns || runs > maxSoakRuns:
		return fmt.Errorf("%w: -runs %d outside [%d, %d]", errUsage, runs, minSoakRuns, maxSoakRuns)
	case o.cancels < 1 || o.cancels > maxSoakCancels:
		return fmt.Errorf("%w: -cancels %d outside [1, %d]", errUsage, o.cancels, maxSoakCancels)
	case execs < 1 || execs > maxSoakExecutables:
		return fmt.Errorf("%w: -executables %d outside [1, %d]", errUsage, execs, maxSoakExecutables)
	case duration <= 0 || duration > maxSoakDuration:
		return fmt.Errorf("%w: -duration %v outside (0, %v]", errUsage, duration, maxSoakDuration)
	case every < minSoakEvery:
		return fmt.Errorf("%w: -every %v: want at least %v", errUsage, every, minSoakEvery)
	}
	switch n := soakSamples(duration, every); {
	case n < minSoakSamples:
		return fmt.Errorf("%w: -duration %v / -every %v = %d samples, want %d to %d: lengthen -duration or shorten -every",
			errUsage, duration, every, n, minSoakSamples, maxSoakSamples)
	case n > maxSoakSamples:
		return fmt.Errorf("%w: -duration %v / -every %v = %d samples, want %d to %d: shorten -duration or lengthen -every",
			errUsage, duration, every, n, minSoakSamples, maxSoakSamples)
	}
	return nil
}

// soakSamples is the number of samples of a load phase: one every
// period, the last at most duration after the start.
func soakSamples(duration, every time.Duration) int64 { return int64(duration / every) }

func soak(ctx context.Context, w *scenarios.Workload, o soakOptions, progress io.Writer) (*soakReport, error) {
	runs, duration, every, execs, modes := o.runs, o.duration, o.every, o.execs, o.modes
	procs := runtime.GOMAXPROCS(0)
	rep := &soakReport{SchemaVersion: 1, SchemaMinor: soakMinor, Machine: machine{GOMAXPROCS: procs, NumCPU: runtime.NumCPU(), Go: runtime.Version()},
		Executables: execs, Held: map[string]bool{}}
	// Consecutive runs, one mode at a time.
	for _, m := range pipert.Modes() {
		fmt.Fprintf(progress, "pipebench: soak: %d consecutive runs in %v\n", runs, m)
		exe, err := pipert.Compile(w.Graph, pipert.WithMode(m))
		if err != nil {
			return rep, err
		}
		lat := make([]int64, 0, runs)
		for i := range runs {
			t0 := time.Now()
			if _, err := exe.Run(ctx, w.InputsOf(i)); err != nil {
				exe.Close()
				return rep, fmt.Errorf("%v run %d: %w", m, i, err)
			}
			if i >= runs/10 { // after the warm-up
				lat = append(lat, int64(time.Since(t0)))
			}
		}
		if err := exe.Close(); err != nil {
			return rep, err
		}
		slices.Sort(lat)
		rep.Modes = append(rep.Modes, soakMode{Mode: m.String(), Runs: runs, MedianNs: lat[len(lat)/2],
			P999Ns: lat[min(len(lat)-1, len(lat)*999/1000)], MaxNs: lat[len(lat)-1]})
	}
	// Cancellations at random points.
	if err := soakCancel(ctx, w, o.cancels, rep); err != nil {
		return rep, err
	}
	// The load phase.
	fmt.Fprintf(progress, "pipebench: soak: %d executables at once for %v, sampled every %v\n", execs, duration, every)
	dev, err := device.NewSim(device.SimOptions{})
	if err != nil {
		return rep, err
	}
	for _, m := range modes {
		rep.LoadModes = append(rep.LoadModes, m.String())
	}
	exes := make([]*pipert.Executable, execs)
	for i := range exes {
		if exes[i], err = pipert.Compile(w.Graph, pipert.WithMode(modes[i%len(modes)]), pipert.WithDevice(dev)); err != nil {
			return rep, err
		}
	}
	defer func() {
		for _, e := range exes {
			e.Close()
		}
	}()
	var (
		pause sync.RWMutex // the sampler stops every run between two of its runs
		stop  = make(chan struct{})
		wg    sync.WaitGroup
		count = make([]int64, execs)
		errs  = make([]error, execs)
	)
	for i, e := range exes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				pause.RLock()
				_, err := e.Run(ctx, w.InputsOf(k))
				if err == nil {
					count[i]++ // read by the sampler, which holds the lock
				}
				pause.RUnlock()
				if err != nil {
					errs[i] = err
					return
				}
			}
		}()
	}
	type sample struct {
		t                     float64 // minutes since the start
		heap, devBytes, goros float64
	}
	var samples []sample
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	start := time.Now()
	var counted []int64
	// Sample k is due k periods after the start, however long the ones
	// before took (a GC of a large heap, runs to wait for): the phase
	// takes exactly soakSamples samples, as checkSoakFlags counted them.
	for k := int64(1); k <= soakSamples(duration, every); k++ {
		select {
		case <-ctx.Done():
		case <-time.After(time.Until(start.Add(time.Duration(k) * every))):
		}
		if ctx.Err() != nil {
			break
		}
		pause.Lock()
		runtime.GC()
		metrics.Read(live)
		s := sample{t: time.Since(start).Minutes(), devBytes: float64(dev.Stats().MemInUse), goros: float64(runtime.NumGoroutine())}
		if live[0].Value.Kind() == metrics.KindUint64 {
			s.heap = float64(live[0].Value.Uint64())
		}
		if len(samples) == 0 {
			counted = slices.Clone(count)
		}
		pause.Unlock()
		samples = append(samples, s)
		fmt.Fprintf(progress, "pipebench: soak: %4.0fs heap %6.1f MiB, device %6.1f MiB, %d goroutines\n",
			s.t*60, s.heap/(1<<20), s.devBytes/(1<<20), int(s.goros))
	}
	close(stop)
	wg.Wait()
	elapsed := time.Since(start)
	for i, err := range errs {
		if err != nil {
			return rep, fmt.Errorf("executable %d: %w", i, err)
		}
	}
	if ctx.Err() != nil {
		return rep, ctx.Err()
	}
	rep.DurationS, rep.Samples = elapsed.Seconds(), len(samples)
	if len(samples) < 3 {
		rep.DurationS, rep.Samples = 0, 0
		return rep, fmt.Errorf("%d samples: lengthen -duration or shorten -every", len(samples))
	}
	// The first fifth is the warm-up.
	warm := samples[len(samples)/5:]
	slope := func(f func(sample) float64) float64 {
		var sx, sy, sxx, sxy float64
		for _, s := range warm {
			x, y := s.t, f(s)
			sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
		}
		n := float64(len(warm))
		d := n*sxx - sx*sx
		if d == 0 {
			return 0
		}
		return (n*sxy - sx*sy) / d
	}
	last, first := warm[len(warm)-1], warm[0]
	rep.HeapSlopeBytesPerMin = slope(func(s sample) float64 { return s.heap })
	rep.DeviceSlopeBytesPerMin = slope(func(s sample) float64 { return s.devBytes })
	rep.GoroutineSlopePerMin = slope(func(s sample) float64 { return s.goros })
	rep.HeapFinalDeltaBytes = int64(last.heap - first.heap)
	rep.DeviceFinalDeltaBytes = int64(last.devBytes - first.devBytes)
	rep.GoroutineFinalDelta = int64(last.goros - first.goros)
	lo, hi := math.Inf(1), 0.0
	measured := elapsed.Seconds() - samples[0].t*60
	for i := range count {
		r := float64(count[i]-counted[i]) / measured
		rep.RunsPerSecond = append(rep.RunsPerSecond, r)
		lo, hi = min(lo, r), max(hi, r)
	}
	if lo > 0 {
		rep.Fairness = hi / lo
	}
	rep.Held["heap slope ≤ 64 KB/min"] = rep.HeapSlopeBytesPerMin <= 64<<10
	rep.Held["heap within 1 MB"] = math.Abs(float64(rep.HeapFinalDeltaBytes)) <= 1<<20
	flat := func(slope float64, delta int64) bool { return math.Abs(slope) < 1e-6 && delta == 0 }
	rep.Held["device bytes flat"] = flat(rep.DeviceSlopeBytesPerMin, rep.DeviceFinalDeltaBytes)
	rep.Held["goroutines flat"] = flat(rep.GoroutineSlopePerMin, rep.GoroutineFinalDelta)
	rep.Held["fairness ≤ 1.5"] = rep.Fairness > 0 && rep.Fairness <= 1.5
	tails := true
	for _, m := range rep.Modes {
		tails = tails && m.P999Ns <= 3*m.MedianNs
	}
	rep.Held["p99.9 ≤ 3 × median"] = tails
	rep.Held["cancellation within its limit"] = rep.CancelMaxNs <= rep.CancelLimitNs
	return rep, nil
}

// soakCancel cancels n runs of every mode at random points and measures
// the time from the cancel to Run's return; the limit is 10 ms plus one
// kernel's modeled time (the run's mean kernel and the launch latency).
func soakCancel(ctx context.Context, w *scenarios.Workload, n int, rep *soakReport) error {
	rng := rand.New(rand.NewPCG(1, 2))
	var (
		delays []int64
		limit  int64 // the largest mode's limit; set in rep once every mode ran
	)
	for _, m := range pipert.Modes() {
		exe, err := pipert.Compile(w.Graph, pipert.WithMode(m))
		if err != nil {
			return err
		}
		res, err := exe.Run(ctx, w.InputsOf(0))
		if err != nil {
			exe.Close()
			return err
		}
		span := res.Stats.Makespan
		// One kernel's modeled time: the run's mean, plus the launch path.
		kernel := res.Stats.DeviceWork/time.Duration(max(res.Stats.Kernels, 1)) + exe.Device().Profile().LaunchLatency
		limit = max(limit, int64(10*time.Millisecond+kernel))
		for range n {
			cctx, cancel := context.WithCancel(ctx)
			at := time.Duration(rng.Int64N(int64(span) + 1))
			var cancelled time.Time
			timer := time.AfterFunc(at, func() { cancelled = time.Now(); cancel() })
			_, err := exe.Run(cctx, w.InputsOf(0))
			done := time.Now()
			if !timer.Stop() && errors.Is(err, context.Canceled) {
				delays = append(delays, int64(done.Sub(cancelled)))
			} else if err != nil && !errors.Is(err, context.Canceled) {
				cancel()
				exe.Close()
				return fmt.Errorf("%v: a cancelled run: %w", m, err)
			}
			cancel()
		}
		if err := exe.Close(); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err // cancelled runs of the soak's own context measured nothing
	}
	rep.Cancels, rep.CancelLimitNs = n, limit
	if len(delays) > 0 {
		slices.Sort(delays)
		rep.CancelMedianNs, rep.CancelMaxNs = delays[len(delays)/2], delays[len(delays)-1]
	}
	return nil
}

func writeSoak(out io.Writer, rep *soakReport) {
	fmt.Fprintf(out, "soak %s: GOMAXPROCS=%d NumCPU=%d %s\n", rep.Scenario, rep.Machine.GOMAXPROCS, rep.Machine.NumCPU, rep.Machine.Go)
	for _, m := range rep.Modes {
		fmt.Fprintf(out, "  %-8s %6d consecutive runs: median %v, p99.9 %v (%.2fx), max %v (%.2fx)\n", m.Mode, m.Runs,
			time.Duration(m.MedianNs).Round(time.Microsecond), time.Duration(m.P999Ns).Round(time.Microsecond),
			float64(m.P999Ns)/float64(m.MedianNs), time.Duration(m.MaxNs).Round(time.Microsecond), float64(m.MaxNs)/float64(m.MedianNs))
	}
	if rep.CancelLimitNs > 0 {
		fmt.Fprintf(out, "  cancellation (%d runs a mode): median %v, max %v after the cancel (limit %v)\n", rep.Cancels, time.Duration(rep.CancelMedianNs).Round(time.Microsecond),
			time.Duration(rep.CancelMaxNs).Round(time.Microsecond), time.Duration(rep.CancelLimitNs))
	}
	if rep.Samples > 0 {
		fmt.Fprintf(out, "  load: %d executables (%v) on one device for %.0f s, %d samples after a GC\n", rep.Executables, rep.LoadModes, rep.DurationS, rep.Samples)
		fmt.Fprintf(out, "  heap slope %.0f B/min (final %+d B); device slope %.0f B/min (final %+d B); goroutine slope %.2f/min (final %+d)\n",
			rep.HeapSlopeBytesPerMin, rep.HeapFinalDeltaBytes, rep.DeviceSlopeBytesPerMin, rep.DeviceFinalDeltaBytes, rep.GoroutineSlopePerMin, rep.GoroutineFinalDelta)
		fmt.Fprintf(out, "  runs/s per executable %.0f; fairness (max/min) %.2f\n", rep.RunsPerSecond, rep.Fairness)
	}
	if rep.Incomplete != "" {
		fmt.Fprintf(out, "  incomplete: %s\n", rep.Incomplete)
	}
	keys := make([]string, 0, len(rep.Held))
	for k := range rep.Held {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		verdict := "holds"
		if !rep.Held[k] {
			verdict = "does not hold"
		}
		fmt.Fprintf(out, "  %s: %s\n", k, verdict)
	}
}
