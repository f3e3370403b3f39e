package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rs/zerolog"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/devtrace"
	"github.com/pipert/pipert/device/host"
	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/scenarios"
	"github.com/pipert/pipert/subgraph"
	"github.com/pipert/pipert/trace"
)

// The minor versions of pipebench's JSON documents (schema_version 1):
// each addition of fields bumps one, and README's "The JSON documents"
// says what each minor added.
const (
	reportMinor = 7
	moeMinor    = 1
	soakMinor   = 2
	deviceMinor = 0
)

// report is the JSON document pipebench writes.
type report struct {
	// SchemaVersion is 1; SchemaMinor counts the additions since (README,
	// "The JSON documents"): later minors only add fields.
	SchemaVersion int     `json:"schema_version"`
	SchemaMinor   int     `json:"schema_minor"`
	Machine       machine `json:"machine"`
	Device        string  `json:"device"`
	// Incomplete, when set, says why the run stopped early (an interrupt
	// or an error); Results hold the variants measured before.
	Incomplete string   `json:"incomplete,omitempty"`
	Results    []result `json:"results"`
	// series holds every variant's repetitions, in the results' order, for
	// -benchfmt.
	series []series
	// tracedKernels counts the kernels the traced runs launched.
	tracedKernels int64
	// runTime sums the makespans of every run, warm-ups and traced twins
	// included: the time spent running the scenarios.
	runTime time.Duration
	// platforms names the device of each scenario that runs on a platform
	// of its own (mttorch: an MT-3000 DSP cluster) instead of Device.
	platforms map[string]string
}

// series is one variant's repetitions of a scenario; ref is the index in
// the report's series of the scenario's KBK reference (whose repetition i
// pairs with this one's).
type series struct {
	scenario string
	v        variant
	res      result
	reps     []sample
	ref      int
}

type machine struct {
	GOMAXPROCS int    `json:"gomaxprocs"`
	NumCPU     int    `json:"num_cpu"`
	Go         string `json:"go"`
	// RoundTrip and RoundTripEnd are a cache line's round trip between
	// two cores (roundTrip), measured before the first run and after the
	// last, in ns; each absent when it could not be measured (GOMAXPROCS
	// 1, a machine too loaded, or the probe's two threads kept on one
	// core) and in the documents of other commands.
	RoundTrip    float64 `json:"core_round_trip_ns,omitempty"`
	RoundTripEnd float64 `json:"core_round_trip_end_ns,omitempty"`
}

// probePass and probePasses size each measurement of the cores' round
// trip: the median of nine passes of 4 ms, after one of 16 ms not
// counted (about 60 ms in all).
const probePass, probePasses = 4 * time.Millisecond, 9

// RoundTrips says m's round trips for the table's footer and the report
// page: "" when neither was measured, else "; a cache line between two
// cores and back 251 ns (after the runs 240)", or whichever of the two
// was measured ("… 240 ns after the runs" for the second alone).
func (m machine) RoundTrips() string {
	const line = "; a cache line between two cores and back"
	switch {
	case m.RoundTrip != 0 && m.RoundTripEnd != 0:
		return fmt.Sprintf("%s %.0f ns (after the runs %.0f)", line, m.RoundTrip, m.RoundTripEnd)
	case m.RoundTrip != 0:
		return fmt.Sprintf("%s %.0f ns", line, m.RoundTrip)
	case m.RoundTripEnd != 0:
		return fmt.Sprintf("%s %.0f ns after the runs", line, m.RoundTripEnd)
	}
	return ""
}

// probeTries is how many times probe measures before it gives up: a
// probe whose two threads were kept on one core gives no figure, and the
// next one's threads are new.
const probeTries = 3

// probe fills m's round trip before the runs (end false) or after them.
func (m *machine) probe(end bool) {
	for range probeTries {
		ns, ok := roundTrip(probePass, probePasses)
		if !ok {
			continue
		}
		if end {
			m.RoundTripEnd = math.Round(ns)
		} else {
			m.RoundTrip = math.Round(ns)
		}
		return
	}
}

// result is one scenario in one variant: medians over the repetitions.
type result struct {
	Scenario string `json:"scenario"`
	// Mode is kbk, async, pipeline or hetero; a hetero row's DeviceMode is
	// its device parts' mode and Schedule concurrent or serial.
	Mode         string    `json:"mode"`
	DeviceMode   string    `json:"device_mode,omitempty"`
	Schedule     string    `json:"schedule,omitempty"`
	Barrier      string    `json:"barrier"`
	Kernels      int       `json:"kernels"`
	Reps         int       `json:"reps"`
	MakespanNs   int64     `json:"makespan_ns"`
	DeviceBusyNs int64     `json:"device_busy_ns"`
	DeviceUtil   float64   `json:"device_util"`
	StageBusyNs  stageBusy `json:"stage_busy_ns"`
	BoundNs      int64     `json:"bound_ns"`
	Efficiency   float64   `json:"efficiency"`
	SpeedupVsKBK float64   `json:"speedup_vs_kbk"`
	PeakBytes    int64     `json:"peak_device_bytes"`
	// OverheadNs is the time per kernel the run took beyond the bound of
	// the modeled work alone (device time and synthetic host costs, spread
	// as the mode's goroutines allow): what the runtime itself adds.
	OverheadNs float64 `json:"overhead_ns_per_kernel"`
	WaitNs     int64   `json:"barrier_wait_ns"`
	// Subgraphs is the number of actors (1 but in hetero mode); CPUBusyNs
	// the time of kernels run on the host CPU device.
	Subgraphs int   `json:"subgraphs"`
	CPUBusyNs int64 `json:"cpu_busy_ns"`
	// HostWorkNs is the run's host work, counted at most GOMAXPROCS
	// goroutines at a time; BusiestNs the busiest goroutine's.
	HostWorkNs int64 `json:"host_work_ns"`
	BusiestNs  int64 `json:"busiest_ns"`
	// SimCPUFraction is the simulator's own cost (time inside the
	// accelerator's calls, see simMeter) over makespan × GOMAXPROCS, with
	// -sim-cost.
	SimCPUFraction *float64 `json:"sim_cpu_fraction,omitempty"`
	// Virtual is the op of a hetero row run as a virtual operator.
	Virtual string `json:"virtual,omitempty"`
	// With -trace: TraceOverhead is the median over the repetitions of
	// traced makespan / untraced makespan − 1, each traced repetition
	// paired with the untraced one run beside it in the same round (just
	// before it in even rounds, just after it in odd ones);
	// TraceOverheadIQR its first and third quartiles; and
	// TraceNsPerKernel the median paired difference per kernel.
	TraceOverhead    *float64    `json:"trace_overhead,omitempty"`
	TraceOverheadIQR *[2]float64 `json:"trace_overhead_iqr,omitempty"`
	TraceNsPerKernel *float64    `json:"trace_ns_per_kernel,omitempty"`
	// PredictedNs is, with -trace, the prediction of MakespanNs from the
	// traced twin (trace/analysis; a hetero row's from its parts sharing
	// the cores; an overlap row's from its steps composed).
	PredictedNs *int64 `json:"predicted_ns,omitempty"`
	// Unexplained is, with PredictedNs of a single actor's row, the
	// largest term its prediction leaves out, measured in the traced
	// twin (unexplainedTerms).
	Unexplained *unexplainedTerm `json:"unexplained,omitempty"`
	// Caches are the host caches on, comma-separated (empty: none);
	// HostNsPerKernel is the host busy time of every stage per kernel;
	// Steps the consecutive runs one repetition holds (the figures above
	// are per repetition, summed over its steps).
	Caches          string  `json:"caches"`
	HostNsPerKernel float64 `json:"host_ns_per_kernel"`
	Steps           int     `json:"steps,omitempty"`
	// SyntheticNsPerKernel is the time the synthetic host costs took per
	// kernel as they burnt (pipert.Stats.Synthetic), and
	// OwnHostNsPerKernel the stages' busy time less it and less the
	// kernels' computation on real data (pipert.Stats.Compute), per
	// kernel (the median of each repetition's): pipert's own host work.
	// Both absent without synthetic costs and for hetero rows, whose
	// stages hold their CPU kernels' computation.
	SyntheticNsPerKernel *float64 `json:"synthetic_ns_per_kernel,omitempty"`
	OwnHostNsPerKernel   *float64 `json:"own_host_ns_per_kernel,omitempty"`
	// Cache counts one repetition's host-cache lookups; Plan describes
	// the memory plan (arena, its lower bound, the sum of what it places).
	Cache *pipert.CacheStats `json:"cache,omitempty"`
	Plan  *pipert.PlanStats  `json:"plan,omitempty"`
	// AllocsPerRun is the Go heap allocations of one steady-state run
	// with caller-owned outputs (Executable.RunInto), the mean of a few;
	// absent for heterogeneous rows.
	AllocsPerRun *float64 `json:"allocs_per_run,omitempty"`
	// Overlap: the steps of a repetition were submitted (Executable.Submit),
	// each step's host stages overlapping the device tail of the one
	// before; the makespan is the repetition's wall time and the bound
	// that of the steps' summed work.
	Overlap bool `json:"overlap,omitempty"`
	// CreateNs is the median time to compile and close the variant's
	// executable, after one to warm up (the runner pool then has its
	// kernels), with -cache study or a set of caches.
	CreateNs int64 `json:"create_ns,omitempty"`
	// Replay counts, in mode replay, one repetition's replays, the
	// kernels they submitted, captures and fallbacks, and the kernels that
	// always run through the stages (dynamic).
	Replay *pipert.ReplayStats `json:"replay,omitempty"`
	// TilingCopy is the tiling-copy strategy; Tiling one repetition's
	// tiling bytes, transfers and ring stalls.
	TilingCopy string              `json:"tiling_copy"`
	Tiling     *pipert.TilingStats `json:"tiling,omitempty"`
}

// variant is one way to run a scenario: an actor mode and barrier policy,
// or (hetero) the graph partitioned by placement into concurrent actors
// whose device parts run in pipeline mode with the policy.
type variant struct {
	mode   pipert.Mode
	policy pipert.BarrierPolicy
	hetero bool
	serial bool // hetero: the heterog.Serial schedule
	// virtual (hetero) is the op run as a virtual operator, placed on the
	// device (scenarios.Scenario.Virtual; "": as labelled, copied).
	virtual string
	// caches are the host caches on (NoCaches: none).
	caches pipert.CacheKinds
	// overlap submits a repetition's consecutive steps (Executable.Submit)
	// so that a step's host stages overlap the device tail of the one
	// before, instead of Running them one after another.
	overlap bool
	// tiling is the tiling-copy strategy (zero: with-kernel).
	tiling pipert.TilingCopy
}

func (v variant) modeName() string {
	if v.hetero {
		return "hetero"
	}
	return v.mode.String()
}

func (v variant) String() string {
	s := v.mode.String()
	if v.mode != pipert.KBK || v.hetero {
		s = v.modeName() + "/" + v.policy.String()
	}
	if v.serial {
		s += "/serial"
	}
	if v.virtual != "" {
		s += "+virtual=" + v.virtual
	}
	if c := cacheName(v.caches); c != "" {
		s += "+" + strings.ReplaceAll(c, ",", "+")
	}
	if v.overlap {
		s += "+overlap"
	}
	if v.tiling != 0 && v.tiling != pipert.WithKernel {
		s += "+tiling=" + v.tiling.String()
	}
	return s
}

// cacheName lists the caches of k, "" for none.
func cacheName(k pipert.CacheKinds) string {
	if !k.Any() {
		return ""
	}
	return k.String()
}

// variants lists the runs of a scenario: kbk first, then each queued mode
// with each policy (per-tensor only, unless the scenario has barriers or
// policies were chosen explicitly).
func variants(cfg *config, sc scenarios.Scenario) []variant {
	out := []variant{{mode: pipert.KBK}}
	policies := cfg.policies
	if policies == nil {
		policies = []pipert.BarrierPolicy{pipert.PerTensor}
		if sc.Barriers {
			policies = []pipert.BarrierPolicy{pipert.Drain, pipert.PerTensor}
		}
	}
	for _, m := range cfg.modes {
		if m == pipert.KBK {
			continue
		}
		for _, p := range policies {
			out = append(out, variant{mode: m, policy: p})
		}
	}
	if cfg.hetero == heteroOn || cfg.hetero == heteroAuto && sc.Hetero {
		for _, p := range policies {
			out = append(out, variant{mode: pipert.Pipeline, policy: p, hetero: true})
		}
		out = append(out, variant{mode: pipert.Pipeline, policy: pipert.PerTensor, hetero: true, serial: true})
		out = append(out, virtualVariants(sc)...)
	}
	sets := cfg.cacheSets
	if sets == nil {
		sets = []pipert.CacheKinds{pipert.NoCaches}
		if sc.CacheStudy {
			sets = cacheStudy
		}
	}
	// Each variant with each set of caches; the first row stays KBK
	// without caches, the reference.
	var all []variant
	for _, v := range out {
		for _, k := range sets {
			v.caches = k
			all = append(all, v)
		}
	}
	if all[0].caches != pipert.NoCaches {
		all = append([]variant{{mode: pipert.KBK, caches: pipert.NoCaches}}, all...)
	}
	// Each variant (hetero aside) with each tiling-copy strategy.
	if tcs := cfg.tilingCopies; len(tcs) > 1 || len(tcs) == 1 && tcs[0] != pipert.WithKernel {
		var each []variant
		for _, v := range all {
			for _, tc := range tcs {
				if v.hetero && tc != tcs[0] {
					continue
				}
				v.tiling = tc
				each = append(each, v)
			}
		}
		all = each
	}
	// Consecutive steps also submitted with overlap, without caches and
	// with the last set (all of them in a study).
	if sc.Steps > 1 && cfg.overlap {
		for _, v := range all {
			if !v.hetero && (v.caches == sets[0] || v.caches == sets[len(sets)-1]) {
				v.overlap = true
				all = append(all, v)
			}
		}
	}
	return all
}

// cacheStudy are the cache sets of -cache study: none, each alone, and
// all together.
var cacheStudy = []pipert.CacheKinds{pipert.NoCaches, pipert.TilingLocal, pipert.TilingGlobal, pipert.InferReuse, pipert.SetupReuse,
	pipert.MemoryPlan, pipert.Runners, pipert.TilingLocal | pipert.TilingGlobal | pipert.InferReuse | pipert.SetupReuse | pipert.MemoryPlan | pipert.Runners}

// sample is one repetition's statistics, whichever executor ran it: one
// run's, or the sums over the consecutive runs of a repetition (bound
// then the sum of each run's bound: the runs do not overlap).
type sample struct {
	pipert.Stats
	bound time.Duration
	simNs int64 // the simulator's own cost (simMeter) over the repetition
}

func (s sample) Bound() time.Duration { return s.bound }

func (s sample) Efficiency() float64 {
	if s.Makespan <= 0 {
		return 0
	}
	return float64(s.bound) / float64(s.Makespan)
}

// add sums run st into s.
func (s *sample) add(st pipert.Stats) {
	b := st.Bound()
	if s.Kernels == 0 && s.Makespan == 0 {
		s.Stats, s.bound = st, b
		return
	}
	s.bound += b
	s.Kernels += st.Kernels
	s.Makespan += st.Makespan
	s.Prepare += st.Prepare
	s.Infer += st.Infer
	s.Resize += st.Resize
	s.Launch += st.Launch
	s.Synthetic += st.Synthetic
	s.Compute += st.Compute
	s.Wait += st.Wait
	s.Busiest += st.Busiest
	s.HostWork += st.HostWork
	s.DeviceBusy += st.DeviceBusy
	s.DeviceWork += st.DeviceWork
	s.CPUBusy += st.CPUBusy
	s.Transfer += st.Transfer
	s.PeakDeviceBytes = max(s.PeakDeviceBytes, st.PeakDeviceBytes)
	s.Cache.Add(st.Cache)
	s.Replay.Add(st.Replay)
	s.Tiling.Add(st.Tiling)
	f := s.Plan.Fallbacks
	s.Plan = st.Plan // the plan after the last run, the runs' fallbacks
	s.Plan.Fallbacks += f
}

// executor runs a compiled scenario: a pipert.Executable or a
// heterog.Executable.
type executor interface {
	run(ctx context.Context, in map[string]*kernel.Tensor) (sample, map[string]*kernel.Tensor, error)
	close() error
}

type actorExec struct{ e *pipert.Executable }

func (a actorExec) run(ctx context.Context, in map[string]*kernel.Tensor) (sample, map[string]*kernel.Tensor, error) {
	res, err := a.e.Run(ctx, in)
	if err != nil {
		return sample{}, nil, err
	}
	return sample{Stats: res.Stats, bound: res.Stats.Bound()}, res.Outputs, nil
}

func (a actorExec) close() error { return a.e.Close() }

// overlapped runs steps consecutive steps of w from step *step on,
// submitted so that each overlaps the device tail of the one before;
// w.Feedback outputs are carried from step to step, and the last step's
// inputs for the next repetition are returned as Run's loop keeps them
// (in, nil when there is no feedback). The sample sums the steps' figures
// but for the makespan, the wall time of them all, the device's busy time
// over it, and the bound, that of the summed work.
func (a actorExec) overlapped(ctx context.Context, w *scenarios.Workload, steps int, step *int, in map[string]*kernel.Tensor) (sample, map[string]*kernel.Tensor, error) {
	var (
		rs   sample
		prev *pipert.Pending
		last map[string]*kernel.Tensor
	)
	wait := func(p *pipert.Pending) error {
		res, err := p.Wait()
		if err != nil {
			return err
		}
		rs.add(res.Stats)
		last = res.Outputs
		return nil
	}
	d0 := a.e.Device().Stats()
	start := time.Now()
	for range steps {
		inputs := w.InputsOf(*step)
		if in != nil {
			inputs = in // fed back: the last step's inputs, its carried ones replaced
		}
		var carries []pipert.Carry
		if prev != nil && len(w.Feedback) > 0 {
			inputs = maps.Clone(in)
			for input, output := range w.Feedback {
				delete(inputs, input)
				carries = append(carries, pipert.Carry{From: prev, Output: output, Input: input})
			}
		}
		if len(w.Feedback) > 0 {
			in = inputs
		}
		p, err := a.e.Submit(ctx, inputs, carries...)
		if err != nil {
			return rs, nil, err
		}
		if prev != nil {
			if err := wait(prev); err != nil {
				return rs, nil, err
			}
		}
		prev = p
		*step++
	}
	if err := wait(prev); err != nil {
		return rs, nil, err
	}
	rs.Makespan = time.Since(start)
	// The steps' own device figures overlap in time: the device's busy
	// time over the whole sequence instead.
	rs.DeviceBusy = time.Duration(a.e.Device().Stats().Sub(d0).BusyNs)
	rs.bound = rs.Stats.Bound()
	var next map[string]*kernel.Tensor
	if len(w.Feedback) > 0 {
		next = maps.Clone(in)
		for input, output := range w.Feedback {
			next[input] = last[output]
		}
	}
	return rs, next, nil
}

// allocsPerRun measures the heap allocations of a steady-state RunInto on
// in, with output tensors made from one Run's outputs.
func (a actorExec) allocsPerRun(ctx context.Context, in map[string]*kernel.Tensor) (float64, error) {
	res, err := a.e.Run(ctx, in)
	if err != nil {
		return 0, err
	}
	outs := make(map[string]*kernel.Tensor, len(res.Outputs))
	for name, t := range res.Outputs {
		outs[name] = &kernel.Tensor{DType: t.DType, Shape: t.Shape.Clone(), Host: make([]byte, len(t.Host))}
	}
	if _, err := a.e.RunInto(ctx, in, outs); err != nil {
		return 0, err
	}
	const runs = 5
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for range runs {
		if _, err := a.e.RunInto(ctx, in, outs); err != nil {
			return 0, err
		}
	}
	runtime.ReadMemStats(&m1)
	return float64(m1.Mallocs-m0.Mallocs) / runs, nil
}

type heteroExec struct {
	e *heterog.Executable
	m *heterog.Manager
}

func (h heteroExec) run(ctx context.Context, in map[string]*kernel.Tensor) (sample, map[string]*kernel.Tensor, error) {
	res, err := h.e.Run(ctx, in)
	if err != nil {
		return sample{}, nil, err
	}
	return sample{Stats: res.Stats, bound: res.Stats.Bound()}, res.Outputs, nil
}

func (h heteroExec) close() error { return errors.Join(h.e.Close(), h.m.Release()) }

type stageBusy struct {
	Prepare int64 `json:"prepare"`
	Infer   int64 `json:"infer"`
	Resize  int64 `json:"resize"`
	Launch  int64 `json:"launch"`
}

// bench runs every scenario in every variant, repetitions interleaved. With
// a trace, every variant also runs untraced, interleaved with the traced
// runs, and the results come from the untraced twins; the traced medians
// give the tracing overhead.
//
// When a run fails or is interrupted after some variants were measured,
// bench returns the error and the report of those, marked Incomplete.
func bench(ctx context.Context, cfg *config, log zerolog.Logger, stderr io.Writer) (out *report, err error) {
	progress := newProgress(stderr, cfg.quiet)
	nvariants := 0
	for _, sc := range cfg.scenarios {
		progress.total += len(variants(cfg, sc)) * (cfg.reps + 1)
	}
	procs := runtime.GOMAXPROCS(0)
	rep := &report{SchemaVersion: 1, SchemaMinor: reportMinor, Machine: machine{GOMAXPROCS: procs, NumCPU: runtime.NumCPU(), Go: runtime.Version()}, Device: cfg.devices.name}
	rep.Machine.probe(false)
	defer cfg.devices.close()
	defer func() {
		if err != nil && len(rep.Results) > 0 {
			progress.clear()
			rep.Incomplete = err.Error()
			if ctx.Err() != nil {
				rep.Incomplete = "interrupted: " + rep.Incomplete
			}
			out = rep
		}
	}()
	var rec *trace.Recorder
	var traced *tracedFile
	if cfg.tracePath != "" {
		var err error
		// Encoding waits for Close, so that it does not take the cores
		// the traced runs measure; the raw events spill beside the trace.
		if rec, traced, err = createTrace(cfg.tracePath, trace.Options{Defer: true, SpillDir: filepath.Dir(cfg.tracePath)}); err != nil {
			return nil, err
		}
		defer rec.Close()
		if err := recordMachine(ctx, cfg, rec, procs); err != nil {
			return nil, err
		}
	}
	// The executables of the scenario being measured; each scenario's
	// are closed when its rows are done, so that a run of many scenarios
	// holds one scenario's memory, trace tracks and device streams at a
	// time, not all of them until the end.
	var live []executor
	closeLive := func() {
		for _, e := range live {
			e.close()
		}
		live = live[:0]
	}
	defer closeLive()
	for _, sc := range cfg.scenarios {
		vs := variants(cfg, sc)
		nvariants += len(vs)
		w, err := sc.Build(scenarios.Config{Real: cfg.real, Quick: cfg.quick, Seed: cfg.seed, Size: cfg.size})
		if err != nil {
			return nil, err
		}
		if ifs := countOp(w.Graph, "If"); ifs > 0 {
			progress.note("%s: %d runtime If nodes remain after folding", sc.Name, ifs)
		}
		costs := sc.Costs
		if cfg.costs != nil {
			costs = *cfg.costs
		}
		if costs, err = cfg.setCosts.over(costs); err != nil {
			return nil, fmt.Errorf("%s: %w", sc.Name, err)
		}
		type runner struct {
			v      variant
			traced bool
			exe    executor
			stats  []sample
			in     map[string]*kernel.Tensor // this step's inputs
			step   int                       // consecutive runs so far
			meter  *simMeter
		}
		var runners []*runner
		for _, v := range vs {
			for _, traced := range []bool{false, true} {
				if traced && rec == nil {
					continue
				}
				r := &runner{v: v, traced: traced}
				name := sc.Name + " " + v.String()
				var (
					obs device.Observer
					rc  *trace.Recorder
				)
				if traced {
					obs, rc = devtrace.New(rec, name), rec
				}
				dev, err := cfg.devices.makeFor(sc, obs)
				if err != nil {
					return nil, err
				}
				if sc.Platform != nil || sc.Profile != nil && rep.Device != "zero" {
					if rep.platforms == nil {
						rep.platforms = map[string]string{}
					}
					rep.platforms[sc.Name] = dev.Name()
					if sc.Profile != nil {
						rep.platforms[sc.Name] = "zero" // its own device, not the card
					}
				}
				if cfg.simCost {
					dev, r.meter = meter(dev)
				}
				if r.exe, err = compileVariant(w.Graph, v, dev, costs, cfg, rc, name); err != nil {
					return nil, fmt.Errorf("scenario %s, %v: %w", sc.Name, v, err)
				}
				live = append(live, r.exe)
				runners = append(runners, r)
			}
		}
		// One warm-up repetition each (two in mode replay: the first run
		// sizes the memory plan, the second is captured), then
		// interleaved measured repetitions, each of sc.Steps consecutive
		// runs. The warm-ups are not traced: the analysis takes the
		// measured repetitions only (a replay's capture is slow).
		steps := max(sc.Steps, 1)
		for rp := -2; rp < cfg.reps; rp++ {
			for _, r := range twinOrder(runners, rp, rec != nil) {
				if rp == -2 && r.v.mode != pipert.Replay {
					continue
				}
				if r.traced {
					rec.SetEnabled(rp >= 0)
				}
				var rs sample
				sim0 := r.meter.load()
				if r.v.overlap {
					var err error
					if rs, r.in, err = r.exe.(actorExec).overlapped(ctx, w, steps, &r.step, r.in); err != nil {
						return nil, fmt.Errorf("scenario %s, %v, step %d: %w", sc.Name, r.v, r.step, err)
					}
				}
				for range steps {
					if r.v.overlap {
						break
					}
					in := w.InputsOf(r.step)
					if r.in != nil {
						in = r.in
					}
					res, outs, err := r.exe.run(ctx, in)
					if err != nil {
						return nil, fmt.Errorf("scenario %s, %v, step %d: %w", sc.Name, r.v, r.step, err)
					}
					r.step++
					if len(w.Feedback) > 0 {
						// Streaming: this step's output is the next step's input.
						next := maps.Clone(in)
						for input, output := range w.Feedback {
							if o := outs[output]; o != nil {
								next[input] = o
							}
						}
						r.in = next
					}
					rs.add(res.Stats)
				}
				rs.simNs = r.meter.load() - sim0
				rep.runTime += rs.Makespan
				log.Debug().Str("scenario", sc.Name).Stringer("variant", r.v).Bool("traced", r.traced).Int("rep", rp).
					Dur("makespan", rs.Makespan).Dur("device_busy", rs.DeviceBusy).Msg("run")
				if !r.traced {
					progress.step(sc.Name, r.v.String(), max(rp, 0), cfg.reps)
				} else if rp >= 0 {
					rep.tracedKernels += int64(rs.Kernels)
				}
				if rp >= 0 {
					r.stats = append(r.stats, rs)
				}
			}
		}
		var kbkMakespan int64
		refSeries := -1
		for i, r := range runners {
			if r.traced {
				continue
			}
			res := summarize(sc.Name, r.v, r.stats, procs, costs)
			if r.meter != nil {
				res.SimCPUFraction = simFraction(r.stats, procs)
			}
			if steps > 1 {
				res.Steps = steps
			}
			if r.v.mode == pipert.KBK && !r.v.hetero && kbkMakespan == 0 {
				kbkMakespan = res.MakespanNs
			}
			if kbkMakespan > 0 {
				res.SpeedupVsKBK = float64(kbkMakespan) / float64(res.MakespanNs)
			}
			if res.Mode == "kbk" && res.Caches == "" && !r.v.overlap && r.v.tiling <= pipert.WithKernel && refSeries < 0 {
				refSeries = len(rep.series)
			}
			if _, ok := r.exe.(actorExec); ok && (sc.CacheStudy || cfg.cacheSets != nil) && !r.v.overlap && !r.traced {
				dev, err := cfg.devices.makeFor(sc, nil)
				if err != nil {
					return nil, err
				}
				if res.CreateNs, err = createTime(w.Graph, r.v, dev, costs, cfg); err != nil {
					return nil, fmt.Errorf("scenario %s, %v: creation: %w", sc.Name, r.v, err)
				}
			}
			if ae, ok := r.exe.(actorExec); ok && len(w.Feedback) == 0 && !r.v.overlap && !cfg.noAllocs {
				a, err := ae.allocsPerRun(ctx, w.InputsOf(r.step))
				if err != nil {
					return nil, fmt.Errorf("scenario %s, %v: allocations: %w", sc.Name, r.v, err)
				}
				res.AllocsPerRun = &a
			}
			if rec != nil {
				o, iqr, ns := pairedOverhead(r.stats, runners[i+1].stats)
				res.TraceOverhead, res.TraceOverheadIQR, res.TraceNsPerKernel = &o, &iqr, &ns
			}
			// Its series goes with its row, once the row is whole: a
			// run stopped before writes neither (-benchfmt and -json
			// hold the same variants).
			rep.Results = append(rep.Results, res)
			rep.series = append(rep.series, series{scenario: sc.Name, v: r.v, reps: r.stats, ref: refSeries, res: res})
		}
		closeLive()
	}
	rep.Machine.probe(true)
	if err := traced.finish(rec.Close()); err != nil {
		return nil, fmt.Errorf("trace %s: %w", cfg.tracePath, err)
	}
	progress.finish(len(cfg.scenarios), nvariants)
	return rep, nil
}

// pairedOverhead compares each traced repetition with the untraced one
// run just before it (the same round of the interleaving): the median of
// traced / untraced − 1, its quartiles, and the median difference per
// kernel in nanoseconds.
func pairedOverhead(untraced, traced []sample) (med float64, iqr [2]float64, nsPerKernel float64) {
	n := min(len(untraced), len(traced))
	if n == 0 {
		return 0, iqr, 0
	}
	ratio, diff := make([]float64, n), make([]float64, n)
	for k := range n {
		u, t := untraced[k], traced[k]
		ratio[k] = float64(t.Makespan)/float64(u.Makespan) - 1
		diff[k] = float64(t.Makespan-u.Makespan) / float64(max(u.Kernels, 1))
	}
	return quantile(ratio, 0.5), [2]float64{quantile(ratio, 0.25), quantile(ratio, 0.75)}, quantile(diff, 0.5)
}

// quantile is the q-quantile of v by linear interpolation between the
// closest ranks (v is sorted in place).
func quantile(v []float64, q float64) float64 {
	slices.Sort(v)
	pos := q * float64(len(v)-1)
	i := int(pos)
	if i+1 >= len(v) {
		return v[len(v)-1]
	}
	return v[i] + (pos-float64(i))*(v[i+1]-v[i])
}

// countOp counts the nodes of g running op.
func countOp(g *subgraph.Graph, op string) int {
	n := 0
	for _, nd := range g.Nodes {
		if nd.Op == op {
			n++
		}
	}
	return n
}

// summarize takes the median of every statistic over the repetitions.
func summarize(scenario string, v variant, runs []sample, procs int, costs pipert.Costs) result {
	med := func(f func(sample) time.Duration) int64 {
		v := make([]int64, len(runs))
		for i, s := range runs {
			v[i] = int64(f(s))
		}
		slices.Sort(v)
		if n := len(v); n%2 == 1 {
			return v[n/2]
		} else {
			return (v[n/2-1] + v[n/2]) / 2
		}
	}
	r := result{
		Scenario: scenario, Mode: v.modeName(), Kernels: runs[0].Kernels, Reps: len(runs),
		Subgraphs:    max(len(runs[0].Parts), 1),
		MakespanNs:   med(func(s sample) time.Duration { return s.Makespan }),
		DeviceBusyNs: med(func(s sample) time.Duration { return s.DeviceBusy }),
		StageBusyNs: stageBusy{
			Prepare: med(func(s sample) time.Duration { return s.Prepare }),
			Infer:   med(func(s sample) time.Duration { return s.Infer }),
			Resize:  med(func(s sample) time.Duration { return s.Resize }),
			Launch:  med(func(s sample) time.Duration { return s.Launch }),
		},
		BoundNs:    med(func(s sample) time.Duration { return s.Bound() }),
		CPUBusyNs:  med(func(s sample) time.Duration { return s.CPUBusy }),
		HostWorkNs: med(func(s sample) time.Duration { return s.HostWork }),
		BusiestNs:  med(func(s sample) time.Duration { return s.Busiest }),
		PeakBytes:  med(func(s sample) time.Duration { return time.Duration(s.PeakDeviceBytes) }),
		WaitNs:     med(func(s sample) time.Duration { return s.Wait }),
		Caches:     cacheName(v.caches),
		Overlap:    v.overlap,
		TilingCopy: pipert.WithKernel.String(),
	}
	if v.tiling != 0 {
		r.TilingCopy = v.tiling.String()
	}
	if ts := runs[len(runs)/2].Tiling; ts.Copies > 0 {
		r.Tiling = &ts
	}
	r.HostNsPerKernel = float64(r.StageBusyNs.Prepare+r.StageBusyNs.Infer+r.StageBusyNs.Resize+r.StageBusyNs.Launch) / float64(max(r.Kernels, 1))
	if syn := med(func(s sample) time.Duration { return s.Synthetic }); syn > 0 && !v.hetero && r.Kernels > 0 {
		// A hetero row's stages hold its CPU kernels' computation too.
		n := float64(r.Kernels)
		ns := float64(syn) / n
		own := medFloat(runs, func(s sample) float64 { return float64(s.HostBusy()-s.Synthetic-s.Compute) / n })
		r.SyntheticNsPerKernel, r.OwnHostNsPerKernel = &ns, &own
	}
	if v.caches.Any() {
		c := runs[len(runs)/2].Cache
		r.Cache = &c
	}
	if p := runs[len(runs)-1].Plan; p.ArenaBytes > 0 {
		r.Plan = &p
	}
	if v.mode == pipert.Replay {
		rp := runs[len(runs)/2].Replay
		r.Replay = &rp
	}
	if v.mode != pipert.KBK || v.hetero {
		r.Barrier = v.policy.String()
	}
	if v.hetero {
		r.DeviceMode, r.Schedule, r.Virtual = v.mode.String(), "concurrent", v.virtual
		if v.serial {
			r.Schedule = "serial"
		}
	}
	// A graph of no kernels (its outputs are inputs or constants) has no
	// overhead per kernel: 0, and the table prints -.
	if lost := r.MakespanNs - int64(modeledBound(time.Duration(r.DeviceBusyNs), costs, r.Kernels, procs)); lost > 0 && r.Kernels > 0 {
		r.OverheadNs = float64(lost) / float64(r.Kernels)
	}
	if r.MakespanNs > 0 {
		r.DeviceUtil = float64(r.DeviceBusyNs) / float64(r.MakespanNs)
		// The median of each run's own efficiency: a ratio of medians
		// could pair one run's bound with another's makespan.
		r.Efficiency = medFloat(runs, func(s sample) float64 { return s.Efficiency() })
	}
	return r
}

func medFloat(runs []sample, f func(sample) float64) float64 {
	v := make([]float64, len(runs))
	for i, s := range runs {
		v[i] = f(s)
	}
	slices.Sort(v)
	if n := len(v); n%2 == 1 {
		return v[n/2]
	} else {
		return (v[n/2-1] + v[n/2]) / 2
	}
}

// modeledBound is the bound of the modeled work alone: the device's busy time
// and the synthetic host costs, without anything the runtime adds.
func modeledBound(device time.Duration, c pipert.Costs, kernels, procs int) time.Duration {
	n := time.Duration(kernels)
	return max(device, c.Prepare*n, c.Infer*n, c.Resize*n, c.Launch*n, c.Total()*n/time.Duration(procs))
}

func writeTable(w io.Writer, rep *report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "scenario\tmode\tbarrier\tcaches\ttiling copy\tkernels\tmakespan\tper kernel\thost/kernel\town/kernel\tdevice util\tbound\tefficiency\tspeedup vs kbk\toverhead/kernel\tpeak MiB\t\n")
	for _, r := range rep.Results {
		policy := r.Barrier
		if policy == "" {
			policy = "-"
		}
		mode := rowMode(r)
		caches := r.Caches
		if caches == "" {
			caches = "-"
		}
		// A run of no kernel (a graph folded whole) has no per-kernel figure.
		perKernel, host, own, over := "-", "-", "-", "-"
		if r.Kernels > 0 {
			perKernel = (time.Duration(r.MakespanNs) / time.Duration(r.Kernels)).Round(10 * time.Nanosecond).String()
			host = time.Duration(r.HostNsPerKernel).Round(10 * time.Nanosecond).String()
			over = time.Duration(r.OverheadNs).Round(10 * time.Nanosecond).String()
		}
		if r.OwnHostNsPerKernel != nil {
			own = time.Duration(*r.OwnHostNsPerKernel).Round(10 * time.Nanosecond).String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%v\t%s\t%s\t%s\t%.2f\t%v\t%.2f\t%.2f\t%s\t%.1f\t\n",
			r.Scenario, mode, policy, caches, r.TilingCopy, r.Kernels,
			time.Duration(r.MakespanNs).Round(time.Microsecond), perKernel, host, own,
			r.DeviceUtil, time.Duration(r.BoundNs).Round(time.Microsecond), r.Efficiency, r.SpeedupVsKBK,
			over, float64(r.PeakBytes)/(1<<20))
	}
	tw.Flush()
	dev := rep.Device
	for _, sc := range slices.Sorted(maps.Keys(rep.platforms)) {
		dev += fmt.Sprintf(" (%s: %s)", sc, rep.platforms[sc])
	}
	fmt.Fprintf(w, "device %s; GOMAXPROCS=%d NumCPU=%d %s%s; medians of %d interleaved repetitions\n",
		dev, rep.Machine.GOMAXPROCS, rep.Machine.NumCPU, rep.Machine.Go, rep.Machine.RoundTrips(), repsOf(rep))
	fmt.Fprintf(w, "bound = max(device work, busiest goroutine, host work / GOMAXPROCS); overhead/kernel = (makespan - bound of the modeled work alone) / kernels\n")
	fmt.Fprintf(w, "own/kernel = host/kernel - the synthetic host costs as they burnt (timed around each burn) - the kernels' computation on real data, per kernel: pipert's own host work\n")
	writeSimCost(w, rep)
	for _, r := range rep.Results {
		if r.Mode != "hetero" || r.Schedule != "concurrent" || r.Virtual != "" {
			continue
		}
		for _, p := range rep.Results {
			if p.Scenario != r.Scenario {
				continue
			}
			if p.Mode == "pipeline" && p.Barrier == r.Barrier {
				fmt.Fprintf(w, "hetero vs pipeline on one actor, %s %s: %.2fx (%d subgraphs, CPU kernels %v a run)\n",
					r.Scenario, r.Barrier, float64(p.MakespanNs)/float64(r.MakespanNs), r.Subgraphs, time.Duration(r.CPUBusyNs).Round(time.Microsecond))
			}
			if p.Mode == "hetero" && p.Schedule == "serial" {
				// Serial runs under one barrier policy: name both.
				fmt.Fprintf(w, "hetero vs heterog.Serial (same parts, one launch thread), %s %s vs serial %s: %.2fx\n",
					r.Scenario, r.Barrier, p.Barrier, float64(p.MakespanNs)/float64(r.MakespanNs))
			}
		}
	}
	writeVirtual(w, rep)
	writeCacheStudy(w, rep)
	writeTilingCopies(w, rep)
	for _, r := range rep.Results {
		if r.TraceOverhead != nil {
			perKernel := "" // a graph of no kernels has no cost a kernel
			if r.Kernels > 0 {
				perKernel = fmt.Sprintf(", %+.0f ns a kernel", *r.TraceNsPerKernel)
			}
			fmt.Fprintf(w, "tracing overhead %s %s: %+.1f%% of makespan [quartiles %+.1f%%, %+.1f%%]%s (median of %d repetitions, each traced one paired with its untraced twin, run before it and after it in turn)\n",
				r.Scenario, traceLabel(r), 100**r.TraceOverhead, 100*r.TraceOverheadIQR[0], 100*r.TraceOverheadIQR[1], perKernel, r.Reps)
		}
	}
}

// twinOrder is the order of round rp's runs. Without twins it is
// runners'. With twins (runners holds each variant untraced, then traced),
// the twins swap places in every other round: whichever of a pair runs
// second pays for what the first leaves behind (about 0.4% of the
// makespan of smallops in KBK, measured with two untraced twins), and the
// swap cancels that from the paired overhead.
func twinOrder[T any](runners []T, rp int, twins bool) []T {
	if !twins || rp%2 == 0 {
		return runners
	}
	out := make([]T, len(runners))
	for i := range runners {
		out[i] = runners[i^1]
	}
	return out
}

// traceLabel names r's variant in full, as its table row does: its mode
// and barrier, and, where they differ from the defaults, a heterogeneous
// row's device mode and schedule, its caches, tiling copy and overlap.
func traceLabel(r result) string {
	l := variantName(r)
	if r.DeviceMode != "" {
		l += " (" + r.DeviceMode + " parts"
		if r.Schedule == "serial" {
			l += ", heterog.Serial"
		}
		l += ")"
	}
	if r.Caches != "" && r.Caches != "none" && r.Caches != "-" {
		l += " caches " + r.Caches
	}
	if r.TilingCopy != "" && r.TilingCopy != "with-kernel" {
		l += " tiling " + r.TilingCopy
	}
	if r.Overlap {
		l += " overlapped"
	}
	return l
}

func variantName(r result) string {
	if r.Barrier == "" {
		return r.Mode
	}
	return r.Mode + "/" + r.Barrier
}

func repsOf(rep *report) int {
	if len(rep.Results) == 0 {
		return 0
	}
	return rep.Results[0].Reps
}

// writeJSON writes v, indented, to path, as writeOutput does: a write
// that fails removes the file only if this run created it.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeOutput(path, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err // an *fs.PathError: it names the path
	})
}

// compileVariant builds the executor of one variant on dev.
func compileVariant(g *subgraph.Graph, v variant, dev device.Device, costs pipert.Costs, cfg *config, rec *trace.Recorder, name string) (executor, error) {
	c := pipert.Config{Mode: v.mode, Barrier: v.policy, Costs: costs, Seed: cfg.seed, QueueCapacity: cfg.qcap,
		Device: dev, Trace: rec, TraceName: name, HostCost: cfg.hostCost,
		Caches:     pipert.Caches{Kinds: v.caches, LocalSlots: cfg.localSlots, GlobalSlots: cfg.globalSlots},
		TilingCopy: v.tiling, TilingBlocks: cfg.tilingBlocks, ProfileOps: cfg.profileOps}
	if !v.hetero {
		e, err := pipert.Compile(g, pipert.WithConfig(c))
		if err != nil {
			return nil, err
		}
		return actorExec{e}, nil
	}
	var cpu *host.Device // nil: the manager opens an untraced one
	var cpuObs device.Observer
	if rec != nil {
		cpuObs = devtrace.New(rec, name+" cpu")
		if platformOf(dev) == nil {
			var err error
			if cpu, err = host.New(host.Options{Observer: cpuObs}); err != nil {
				return nil, err
			}
		}
	}
	m, err := platformManager(dev, cpu, cpuObs)
	if err != nil {
		return nil, err
	}
	c.Placement = heterog.Labels()
	if v.virtual != "" {
		c.Placement, c.Virtual = virtualPlacement{v.virtual}, []string{v.virtual}
	}
	if v.serial {
		c.Schedule = heterog.Serial
	}
	e, err := heterog.Compile(g, c, m)
	if err != nil {
		m.Release()
		return nil, err
	}
	return heteroExec{e, m}, nil
}

// writeCacheStudy attributes the gain of the host caches, for each
// scenario and mode run with several cache sets: each set against the
// same mode without caches and against KBK without caches, and the host
// time per kernel against the mode's without caches.
func writeCacheStudy(w io.Writer, rep *report) {
	type key struct{ scenario, mode, barrier, tiling string }
	base := map[key]result{}
	kbk := map[string]result{}
	for _, r := range rep.Results {
		if r.Caches != "" || r.Schedule != "" || r.Overlap {
			continue
		}
		base[key{r.Scenario, r.Mode, r.Barrier, r.TilingCopy}] = r
		if r.Mode == "kbk" {
			if _, ok := kbk[r.Scenario]; !ok {
				kbk[r.Scenario] = r
			}
		}
	}
	for _, r := range rep.Results {
		b, ok := base[key{r.Scenario, r.Mode, r.Barrier, r.TilingCopy}]
		if r.Caches == "" || r.Schedule != "" || r.Overlap || !ok {
			continue
		}
		k := kbk[r.Scenario]
		fmt.Fprintf(w, "caches %s %s: %s: %.2fx %s without caches, %.2fx kbk; host/kernel %v -> %v (%.2f)\n",
			r.Scenario, variantName(r), r.Caches, float64(b.MakespanNs)/float64(r.MakespanNs), variantName(b),
			float64(k.MakespanNs)/float64(r.MakespanNs),
			time.Duration(b.HostNsPerKernel).Round(10*time.Nanosecond), time.Duration(r.HostNsPerKernel).Round(10*time.Nanosecond),
			r.HostNsPerKernel/max(b.HostNsPerKernel, 1))
	}
	// The runner pool: creation with it against the same variant's with
	// none of the caches.
	for _, r := range rep.Results {
		b, ok := base[key{r.Scenario, r.Mode, r.Barrier, r.TilingCopy}]
		if !ok || r.CreateNs == 0 || b.CreateNs == 0 || !strings.Contains(r.Caches, "runners") || r.Overlap {
			continue
		}
		fmt.Fprintf(w, "runner pool %s %s, %s: compile and close %v, %v without caches (%.2fx)\n",
			r.Scenario, variantName(r), r.Caches, time.Duration(r.CreateNs).Round(time.Microsecond),
			time.Duration(b.CreateNs).Round(time.Microsecond), float64(b.CreateNs)/float64(r.CreateNs))
	}
	// Overlapped steps against the same variant's sequential steps.
	type vkey struct{ scenario, mode, barrier, caches, tiling string }
	seq := map[vkey]result{}
	for _, r := range rep.Results {
		if !r.Overlap && r.Schedule == "" {
			seq[vkey{r.Scenario, r.Mode, r.Barrier, r.Caches, r.TilingCopy}] = r
		}
	}
	for _, r := range rep.Results {
		s, ok := seq[vkey{r.Scenario, r.Mode, r.Barrier, r.Caches, r.TilingCopy}]
		if !r.Overlap || !ok {
			continue
		}
		caches := r.Caches
		if caches == "" {
			caches = "no caches"
		}
		fmt.Fprintf(w, "overlapped steps %s %s, %s: %.2fx sequential steps (%d steps a repetition; efficiency %.2f against %.2f)\n",
			r.Scenario, variantName(r), caches, float64(s.MakespanNs)/float64(r.MakespanNs), r.Steps, r.Efficiency, s.Efficiency)
	}
}

// writeTilingCopies compares the tiling-copy strategies of each scenario
// and variant run with more than one: their makespans, the multi-stream
// ring's stalls, and whether they order as ATB's document argues,
// with-kernel ≤ multi-stream ≤ whole.
func writeTilingCopies(w io.Writer, rep *report) {
	type key struct{ scenario, mode, barrier, caches string }
	by := map[key]map[string]result{}
	var order []key
	for _, r := range rep.Results {
		if r.Overlap || r.Schedule != "" {
			continue
		}
		k := key{r.Scenario, r.Mode, r.Barrier, r.Caches}
		if by[k] == nil {
			by[k] = map[string]result{}
			order = append(order, k)
		}
		by[k][r.TilingCopy] = r
	}
	for _, k := range order {
		m := by[k]
		wk, ok1 := m["with-kernel"]
		ms, ok2 := m["multi-stream"]
		wh, ok3 := m["whole"]
		if !ok1 || !ok2 || !ok3 {
			continue
		}
		var stalls int
		if ms.Tiling != nil {
			stalls = ms.Tiling.Stalls
		}
		verdict := "holds"
		if !(wk.MakespanNs <= ms.MakespanNs && ms.MakespanNs <= wh.MakespanNs) {
			verdict = "does not hold"
		}
		fmt.Fprintf(w, "tiling copy %s %s: with-kernel %v, multi-stream %v (%d ring stalls), whole %v: with-kernel <= multi-stream <= whole %s\n",
			k.scenario, variantName(wk), time.Duration(wk.MakespanNs).Round(time.Microsecond), time.Duration(ms.MakespanNs).Round(time.Microsecond),
			stalls, time.Duration(wh.MakespanNs).Round(time.Microsecond), verdict)
	}
}

// createTime is the median of five compilations and closings of v's
// executable on dev, after one to warm up.
func createTime(g *subgraph.Graph, v variant, dev device.Device, costs pipert.Costs, cfg *config) (int64, error) {
	ts := make([]int64, 0, 5)
	for i := range 6 {
		t0 := time.Now()
		exe, err := compileVariant(g, v, dev, costs, cfg, nil, "")
		if err != nil {
			return 0, err
		}
		if err := exe.close(); err != nil {
			return 0, err
		}
		if i > 0 {
			ts = append(ts, int64(time.Since(t0)))
		}
	}
	slices.Sort(ts)
	return ts[len(ts)/2], nil
}
