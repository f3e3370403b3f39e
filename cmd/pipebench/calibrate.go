package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/devtrace"
	"github.com/pipert/pipert/internal/clock"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/scenarios"
	"github.com/pipert/pipert/trace"
	"github.com/pipert/pipert/trace/analysis"

	"golang.org/x/sync/singleflight"
)

// machineCalibration is what the prediction charges for the runtime itself on
// this machine (analysis.Machine's Handoff and Spin), measured once on the
// zerocost scenario, whose kernels have no synthetic host cost: whatever
// async and pipeline take beyond the stage work the flow-shop model
// already counts is their hand-offs and their spinning workers.
type machineCalibration struct {
	procs         int
	handoff, spin int64 // ns
	// step is the runner's own host time per kernel outside the stages
	// (analysis.Machine.Step), ns.
	step int64
	// trace is what recording a kernel's slices, flows and device slice
	// adds to its measured host stages, per kernel (ns): the traced
	// stage costs the analysis reads carry it, the untraced twin the
	// prediction is for does not. It is KBK's; traceAsync and
	// tracePipeline are async's and pipeline's, measured apart since
	// they differ (on 2 cores, in five invocations: 110-130 ns a kernel
	// in KBK, 75-125 in async, 80-120 in pipeline).
	trace, traceAsync, tracePipeline int64
	// queueCap is the capacity of the stage queues of the runs traced.
	queueCap int
}

// calibrationReps is the number of measured repetitions of each mode,
// after calibrationWarmups unmeasured ones. With 7 and 1, the hand-off
// and spinning costs moved by a factor of two between invocations (82 to
// 197 ns, 94 to 229 ns, over four invocations); with 25 and 3, by
// about 10% (44 to 46 ns, 66 to 73 ns, over five).
// (Variables only so that the tests under the race detector, which time
// nothing, can calibrate on fewer: race_on_test.go.)
var (
	calibrationReps    = 25
	calibrationWarmups = 3
)

// calibrate measures the calibration: zerocost at its quick size, kbk,
// async and pipeline (per-tensor), each untraced and traced, repetitions
// interleaved, medians. Each traced twin gives its mode's tracing cost;
// the untraced runs give the rest. KBK gives the runner's step per kernel
// (what KBK's makespan holds beyond its model: the runner's own work
// between the stages, counted per kernel, with the run's upload and
// download); Handoff is then the one that makes the model of async, with
// its single boundary, meet async's makespan, and Spin, with that Handoff,
// the one that makes the model of pipeline meet pipeline's (only when its
// four workers outnumber the cores; otherwise no worker's spinning takes a
// core from another, and Spin is 0), the step charged in both.
func calibrate(ctx context.Context, cfg *config, procs int) (machineCalibration, error) {
	c := machineCalibration{procs: procs, queueCap: cfg.qcap}
	if c.queueCap == 0 {
		c.queueCap = plan.DefaultQueueCapacity
	}
	sc, err := scenarios.Get("zerocost")
	if err != nil {
		return c, err
	}
	w, err := sc.Build(scenarios.Config{Quick: true, Seed: cfg.seed})
	if err != nil {
		return c, err
	}
	// The three modes untraced, then traced to a recorder whose events
	// are dropped at the end, to weigh the tracing in each.
	modes := []pipert.Mode{pipert.KBK, pipert.Async, pipert.Pipeline, pipert.KBK, pipert.Async, pipert.Pipeline}
	rec, err := trace.New(io.Discard, trace.Options{Defer: true})
	if err != nil {
		return c, err
	}
	defer rec.Close()
	exes := make([]executor, len(modes))
	for i, m := range modes {
		var (
			obs device.Observer
			rc  *trace.Recorder
		)
		if i >= 3 {
			obs, rc = devtrace.New(rec, "calibration"), rec
		}
		dev, err := cfg.devices.make(sc.Profile, obs)
		if err != nil {
			return c, err
		}
		if exes[i], err = compileVariant(w.Graph, variant{mode: m, policy: pipert.PerTensor}, dev, sc.Costs, cfg, rc, "calibration"); err != nil {
			return c, fmt.Errorf("calibration: %w", err)
		}
		defer exes[i].close()
	}
	runs := make([][]pipert.Stats, len(modes))
	for rp := -calibrationWarmups; rp < calibrationReps; rp++ {
		for i, e := range exes {
			s, _, err := e.run(ctx, w.InputsOf(0))
			if err != nil {
				return c, fmt.Errorf("machineCalibration, %v: %w", modes[i], err)
			}
			if rp >= 0 {
				runs[i] = append(runs[i], s.Stats)
			}
		}
	}
	var meas [6]int64
	var ks [6][]analysis.Kernel
	for i := range modes {
		meas[i], ks[i] = uniformKernels(runs[i])
	}
	// Tracing's cost: the median over repetitions of the host stages
	// per kernel, traced less untraced.
	traced := func(i int) int64 { return max(stagesPerKernel(runs[i+3])-stagesPerKernel(runs[i]), 0) }
	c.trace, c.traceAsync, c.tracePipeline = traced(0), traced(1), traced(2)
	predict := func(i int, m analysis.Mode, h, s int64) int64 {
		pr, _ := analysis.Predict(ks[i], m, analysis.Machine{Cores: procs, Handoff: h, Spin: s, Step: c.step, QueueCapacity: c.queueCap})
		return pr.Makespan
	}
	n := int64(max(len(ks[0]), 1))
	c.step = max(meas[0]-predict(0, analysis.KBK, 0, 0), 0) / n
	// The smallest value in [0, hi] at which f reaches want (f grows with it).
	solve := func(f func(int64) int64, want, hi int64) int64 {
		if f(0) >= want {
			return 0
		}
		lo := int64(0)
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			if f(mid) >= want {
				hi = mid
			} else {
				lo = mid
			}
		}
		return hi
	}
	n = int64(max(len(ks[1]), 1))
	c.handoff = solve(func(h int64) int64 { return predict(1, analysis.Async, h, 0) }, meas[1], meas[1]/n+1)
	if analysis.NumStages > procs {
		c.spin = solve(func(s int64) int64 { return predict(2, analysis.Pipeline, c.handoff, s) }, meas[2], meas[2]/n+1)
	}
	return c, nil
}

// stagesPerKernel is the median over runs of the host stages' time per
// kernel, ns.
func stagesPerKernel(runs []pipert.Stats) int64 {
	if len(runs) == 0 {
		return 0
	}
	v := make([]float64, len(runs))
	for i, s := range runs {
		v[i] = float64(s.Prepare+s.Infer+s.Resize+s.Launch) / float64(max(s.Kernels, 1))
	}
	return int64(quantile(v, 0.5))
}

// uniformKernels turns the median repetition of a mode (by makespan) into
// its makespan and as many kernels as it ran, each with its mean stage and
// device costs.
func uniformKernels(runs []pipert.Stats) (int64, []analysis.Kernel) {
	slices.SortFunc(runs, func(a, b pipert.Stats) int { return int(a.Makespan - b.Makespan) })
	s := runs[len(runs)/2]
	n := time.Duration(max(s.Kernels, 1))
	k := analysis.Kernel{
		Prepare: int64(s.Prepare / n), Infer: int64(s.Infer / n), Resize: int64(s.Resize / n), Launch: int64(s.Launch / n),
		Device: int64(s.DeviceBusy / n),
	}
	ks := make([]analysis.Kernel, s.Kernels)
	for i := range ks {
		ks[i] = k
	}
	return int64(s.Makespan), ks
}

// record writes the machine and the calibration on the trace's machine
// track (see traceMeta), flushed at once so that they come first.
func (c machineCalibration) record(rec *trace.Recorder) {
	t := rec.Track(machineTrack, trace.SliceTrack, trace.Host)
	now := clock.Now()
	t.Instant(now, rec.Intern(fmt.Sprintf("gomaxprocs %d", c.procs)))
	t.Instant(now, rec.Intern(fmt.Sprintf("calibration handoff=%d spin=%d trace=%d step=%d", c.handoff, c.spin, c.trace, c.step)))
	t.Instant(now, rec.Intern(fmt.Sprintf("calibration trace async=%d pipeline=%d", c.traceAsync, c.tracePipeline)))
	t.Instant(now, rec.Intern(fmt.Sprintf("queue capacity %d", c.queueCap)))
	t.Flush()
}

// recordMachine calibrates, once a process for the same device, queue
// capacity, cores and seed, and records the result in the trace.
func recordMachine(ctx context.Context, cfg *config, rec *trace.Recorder, procs int) error {
	key := fmt.Sprintf("%s %+v %d %d %d", cfg.devices.name, cfg.devices.profile, cfg.qcap, procs, cfg.seed)
	calibrations.Lock()
	c, ok := calibrations.done[key]
	calibrations.Unlock()
	if !ok {
		v, err, _ := calibrations.group.Do(key, func() (any, error) { return calibrate(ctx, cfg, procs) })
		if err != nil {
			return err
		}
		c = v.(machineCalibration)
		calibrations.Lock()
		calibrations.done[key] = c
		calibrations.Unlock()
	}
	c.record(rec)
	return nil
}

// calibrations keeps the calibrations a process measured: the machine is
// measured once however many traced runs a process makes (a sweep's
// points, a test binary's commands).
var calibrations = struct {
	sync.Mutex
	done  map[string]machineCalibration
	group singleflight.Group
}{done: map[string]machineCalibration{}}
