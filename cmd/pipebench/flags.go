package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/onnx"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/scenarios"
	"github.com/pipert/pipert/trace"
)

// config is the parsed command line.
type config struct {
	scenarios []scenarios.Scenario
	modes     []pipert.Mode
	reps      int
	quick     bool
	jsonPath  string
	benchfmt  string
	quiet     bool
	verbose   bool
	seed      uint64
	policies  []pipert.BarrierPolicy // nil: per-tensor, and drain too where a scenario has barriers
	costs     *pipert.Costs          // nil: each scenario's own
	setCosts  costFlags              // the -prepare … -tiling flags, over each scenario's costs
	real      bool
	devices   *deviceFactory
	qcap      int
	cpuprof   string
	analyze   bool
	hetero    heteroSetting
	tracePath string
	size      int64
	// model is set by -model: the run is on that ONNX file.
	model *modelFlags
	// check makes the run fail when a row's efficiency exceeds 1 by more
	// than checkSlack: the bound would then not be a bound.
	check bool
	// cacheSets are the host-cache sets each variant runs with (nil: none,
	// or the study on scenarios made for it); localSlots and globalSlots
	// the tiling caches' slots (0: ATB's defaults).
	cacheSets               []pipert.CacheKinds
	localSlots, globalSlots int
	// overlap adds, on multi-step scenarios, variants whose steps are
	// submitted to overlap (Executable.Submit).
	overlap bool
	// tilingCopies are the tiling-copy strategies each variant runs with
	// (nil: with-kernel only).
	tilingCopies []pipert.TilingCopy
	tilingBlocks int
	// hostCost, set by a scenario file whose costs are drawn or differ by
	// op, prices each node (costs then holds their means).
	hostCost plan.HostCost
	// profileOps labels each kernel's stages with its op in the CPU
	// profile (-profile-ops).
	profileOps bool
	// simCost meters the accelerator's calls (-sim-cost, simMeter).
	simCost bool
	// noAllocs skips the allocation count of each variant (a sweep's
	// points).
	noAllocs bool
}

// checkSlack is how far above 1.0 -check lets an efficiency go: clock
// reads at interval boundaries, nothing more.
const checkSlack = 0.005

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("pipebench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		scen      = fs.String("scenario", "", "comma-separated scenarios to run (default all: "+strings.Join(scenarios.Names(), ", ")+")")
		modes     = fs.String("mode", "", "comma-separated modes to run (default all: "+modeList()+"); kbk always runs as the reference")
		policies  = fs.String("barrier", "", "comma-separated barrier policies of the queued modes: drain, per-tensor (default per-tensor, and both on scenarios with barriers)")
		check     = fs.Bool("check", false, "exit with status 1 if any row's efficiency exceeds 1.0 by more than 0.5% (the bound must be a bound)")
		reps      = fs.Int("reps", 0, "measured repetitions per scenario and mode, interleaved across modes, 1 to 10000 (default 9, or 5 with -quick)")
		quick     = fs.Bool("quick", false, "CI-sized run: smaller scenarios and fewer repetitions (under 20 s on 2 cores)")
		jsonPath  = fs.String("json", "", "also write the results as JSON to this file")
		quiet     = fs.Bool("q", false, "print nothing on stderr but errors (no progress line, no summary)")
		benchPath = fs.String("benchfmt", "", "also write every repetition in the Go benchmark format to this file, for benchstat (ns/op, speedup, efficiency, host-ns/kernel, peak-B)")
		dev       = fs.String("device", "swai", "simulated device: swai (the SW-AI card), gpu (CUDA-like costs), or a JSON or YAML profile file")
		tracePath = fs.String("trace", "", "write a trace of every run to this file (.pftrace/.perfetto-trace/.pb: Perfetto protobuf; .json: Chrome JSON) and print an analysis; untraced twins measure the tracing overhead")
		qcap      = fs.Int("queue-capacity", 0, "capacity of each stage queue of the queued modes (default 8)")
		analyze   = fs.Bool("analyze", true, "with -trace, read the trace back as it streams, check it and print its analysis (memory follows the kernels in flight, not the trace's length)")
		cpuprof   = fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file (go tool pprof); host time carries the labels pipert.actor, pipert.mode and pipert.stage")
		simCost   = fs.Bool("sim-cost", false, "measure the simulator's own cost: time inside the accelerator's calls (two clock reads a call), without waits and modeled host costs, over makespan × GOMAXPROCS; a line after the table and sim_cpu_fraction per row")
		profOps   = fs.Bool("profile-ops", false, "with -cpuprofile: also label each kernel's host stages with its op (pipert.op), e.g. go tool pprof -tagfocus=pipert.op=MatMul")
		verbose   = fs.Bool("v", false, "log progress and per-repetition details to stderr")
		seed      = fs.Uint64("seed", 1, "seed of the scenarios' data and modeled data-dependent sizes")
		real      = fs.Bool("real", false, "run the scenarios' small real-data variants instead of the benchmark sizes")
		model     = fs.String("model", "", "run this ONNX model file instead of the built-in scenarios")
		inputs    = fs.String("input", "", "with -model: comma-separated input shapes to fix at import, name=D1xD2x… (e.g. x=1x3x96x96); write a comma inside a name as \\,")
		consts    = fs.String("const", "", "with -model: comma-separated scalar inputs to fix to a value at import, name=value (e.g. sr=16000); write a comma inside a name as \\,")
		outputs   = fs.String("outputs", "", "with -model: comma-separated tensors to take as the graph's outputs instead of the model's (graph outputs or any tensor it computes, e.g. the scores before a classifier's ZipMap); only the nodes they need are imported; write a comma inside a name as \\,")
		goldenF   = fs.String("golden", "", "with -model: check every case of this golden JSON file (inputs and reference outputs) in every selected mode; exit 1 on a mismatch")
		tol       = fs.Float64("tol", 1e-4, "with -golden: the largest absolute error accepted")
		rtol      = fs.Float64("rtol", 0, "with -golden: also accept an error up to this fraction of the reference's magnitude (|got − want| ≤ tol + rtol·|want|; e.g. 1e-3 for float16 outputs)")
		size      = fs.Int64("size", 0, "image side of the ocr scenario, a multiple of 32 up to 8192 (default 640, or 96 with -quick or -real)")
		prepare   = fs.Duration("prepare", 0, "synthetic host cost of the prepare stage per kernel (default: the scenario's, 2µs)")
		infer     = fs.Duration("infer", 0, "synthetic host cost of InferShape per kernel (default: the scenario's, 5µs)")
		resize    = fs.Duration("resize", 0, "synthetic host cost of Resize per kernel (default: the scenario's, 6µs)")
		launch    = fs.Duration("launch", 0, "synthetic host cost of Launch per kernel (default: the scenario's, 8µs)")
		tiling    = fs.Duration("tiling", 0, "the part of the Resize cost a tiling cache hit saves (default: the scenario's; at most -resize)")
		caches    = fs.String("cache", "", "host caches of every variant: none, default (local,global,setup), a comma-separated set of local, global, infer, setup, plan, runners, or study (none, each alone, all; the default on decode-steps, none elsewhere)")
		tcopy     = fs.String("tiling-copy", "with-kernel", "how tiling data reaches the device, comma-separated to compare: with-kernel (ATB's default), multi-stream (a copy stream and a ring of -tiling-blocks 3 MB device blocks), whole (each batch's tilings at once before its launches), or all")
		tblocks   = fs.Int("tiling-blocks", 0, "blocks of the multi-stream tiling ring, 1 to 1024 (default 32, ATB's pool)")
		overlap   = fs.Bool("overlap", true, "on scenarios of consecutive steps (decode-steps), also submit each repetition's steps so that each step's host stages overlap the device tail of the one before (rows with \"overlap\": true)")
		local     = fs.Int("cache-local", 0, "slots per node of the local tiling cache, 1 to 1024 (ATB_OPSRUNNER_KERNEL_CACHE_LOCAL_COUNT; default 1)")
		scenFile  = fs.String("scenario-file", "", "run the scenario of this YAML or JSON file (pipebench scenarios -dump NAME prints one to start from); -mode, -barrier, -reps and -seed override the file's")
		global    = fs.Int("cache-global", 0, "slots per op of the global tiling cache, 1 to 1024 (ATB_OPSRUNNER_KERNEL_CACHE_GLOABL_COUNT; default 5)")
	)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: pipebench [flags]\n       pipebench device [flags]   reproduce the SW-AI runtime paper's figures\n       pipebench analyze TRACE    analyse a trace written with -trace\n")
		fmt.Fprintf(stderr, "       pipebench soak [flags]     long runs and load\n")
		fmt.Fprintf(stderr, "       pipebench moe [flags]      the MoE all-to-all ladder on a fabric of simulated devices (moe -h)\n")
		fmt.Fprintf(stderr, "       pipebench scenarios [-dump NAME [-quick]]   list the built-in scenarios, or print one as a scenario file\n")
		fmt.Fprintf(stderr, "       pipebench profiles [-dump swai|gpu]         list the device profiles, or print one as YAML\n")
		fmt.Fprintf(stderr, "       pipebench sweep [flags]    what-if sweeps over scenario and profile fields (sweep -h)\n")
		fmt.Fprintf(stderr, "       pipebench report DIR       an HTML page of DIR/sweep.csv and DIR/run.json\n\n")
		fmt.Fprintf(stderr, "Runs pipert's host-bound scenarios in each execution mode and prints, per scenario and\n")
		fmt.Fprintf(stderr, "mode, the median makespan, device utilisation, the bound no schedule can beat\n")
		fmt.Fprintf(stderr, "(max of device busy time, the busiest stage's host work, total host work / GOMAXPROCS),\n")
		fmt.Fprintf(stderr, "the efficiency bound/makespan (the median of each repetition's own) and the speedup over kbk.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := parseFlagSet(fs, args); err != nil {
		if err == flag.ErrHelp {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	c := &config{reps: *reps, quick: *quick, jsonPath: *jsonPath, benchfmt: *benchPath, quiet: *quiet, verbose: *verbose, seed: *seed, real: *real, tracePath: *tracePath}
	c.qcap, c.cpuprof, c.analyze, c.check, c.size = *qcap, *cpuprof, *analyze, *check, *size
	c.simCost = *simCost
	if c.profileOps = *profOps; c.profileOps && c.cpuprof == "" {
		return nil, fmt.Errorf("%w: -profile-ops goes with -cpuprofile", errUsage)
	}
	if *quiet && *verbose {
		return nil, fmt.Errorf("%w: -q and -v are exclusive (quiet, or verbose)", errUsage)
	}
	flagSet := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { flagSet[f.Name] = true })
	if c.size < 0 || c.size%32 != 0 || flagSet["size"] && c.size == 0 || c.size > 8192 {
		return nil, fmt.Errorf("%w: -size %d: want a positive multiple of 32, at most 8192", errUsage, c.size)
	}
	// A flag that does nothing without another is said so, not ignored
	// silently.
	for _, d := range []struct {
		flag, needs string
		has         bool
	}{{"tol", "-golden", *goldenF != ""}, {"rtol", "-golden", *goldenF != ""}, {"analyze", "-trace", *tracePath != ""}} {
		if flagSet[d.flag] && !d.has && !*quiet {
			fmt.Fprintf(stderr, "pipebench: -%s does nothing without %s\n", d.flag, d.needs)
		}
	}
	if (flagSet["queue-capacity"] || c.qcap != 0) && (c.qcap < 1 || c.qcap > plan.MaxQueueCapacity) {
		return nil, fmt.Errorf("%w: -queue-capacity %d outside [1, %d]", errUsage, c.qcap, plan.MaxQueueCapacity)
	}
	// Output files are checked before anything runs: a run must not end
	// in an error that loses its results, nor write two of them to one
	// file, nor over one of its inputs.
	ins := []outFlag{{"scenario-file", *scenFile}, {"model", *model}, {"golden", *goldenF}}
	if e := pathExt(*dev); e == ".json" || e == ".yaml" || e == ".yml" {
		ins = append(ins, outFlag{"device", *dev})
	}
	outs := []outFlag{{"json", c.jsonPath}, {"benchfmt", c.benchfmt}, {"cpuprofile", c.cpuprof}, {"trace", c.tracePath}}
	if err := checkOutputs(ins, outs...); err != nil {
		return nil, err
	}
	var err error
	if c.devices, err = newDeviceFactory(*dev); err != nil {
		return nil, err
	}
	if c.tracePath != "" {
		if _, err := trace.FormatOf(c.tracePath); err != nil {
			return nil, fmt.Errorf("%w: -trace: %v", errUsage, err)
		}
	}
	if flagSet["reps"] && c.reps < 1 {
		return nil, fmt.Errorf("%w: -reps %d: want at least 1 (leave -reps out for the default, 9 or 5 with -quick)", errUsage, c.reps)
	}
	if c.reps == 0 {
		c.reps = 9
		if c.quick {
			c.reps = 5
		}
	}
	if c.reps < 1 || c.reps > 10000 {
		return nil, fmt.Errorf("%w: -reps %d outside [1, 10000]", errUsage, c.reps)
	}
	// A list flag given must name something: an empty one (-mode ,) is a
	// mistake, not "all", which is the flag left out.
	for _, l := range []struct {
		flag, v string
	}{{"scenario", *scen}, {"mode", *modes}, {"barrier", *policies}, {"tiling-copy", *tcopy}, {"cache", *caches}} {
		if flagSet[l.flag] && len(splitList(l.v)) == 0 {
			return nil, fmt.Errorf("%w: -%s %q names nothing: give at least one, or leave the flag out", errUsage, l.flag, l.v)
		}
		if i := emptyItem(l.v); flagSet[l.flag] && i > 0 {
			return nil, fmt.Errorf("%w: -%s %q: item %d is empty", errUsage, l.flag, l.v, i)
		}
	}
	// Values are checked even where they do nothing (said so above).
	if !(*tol >= 0) || math.IsInf(*tol, 1) {
		return nil, fmt.Errorf("%w: -tol %g: want a finite number ≥ 0", errUsage, *tol)
	}
	if !(*rtol >= 0) || math.IsInf(*rtol, 1) {
		return nil, fmt.Errorf("%w: -rtol %g: want a finite number ≥ 0", errUsage, *rtol)
	}
	names := splitList(*scen)
	if *model == "" && (*inputs != "" || *consts != "" || *goldenF != "" || flagSet["outputs"]) {
		return nil, fmt.Errorf("%w: -input, -const, -outputs and -golden go with -model", errUsage)
	}
	if *model != "" {
		if len(names) > 0 {
			return nil, fmt.Errorf("%w: -model and -scenario are exclusive", errUsage)
		}
		if *goldenF != "" && (*inputs != "" || *consts != "") {
			return nil, fmt.Errorf("%w: -golden takes every input from its cases: -input and -const go without it", errUsage)
		}
		mf := &modelFlags{path: *model, golden: *goldenF, tol: *tol, rtol: *rtol}
		if err := checkInput("-model", *model, 0); err != nil {
			return nil, err
		}
		if *goldenF != "" {
			if err := checkInput("-golden", *goldenF, 0); err != nil {
				return nil, err
			}
		}
		m, err := onnx.ReadFile(*model)
		if err != nil {
			return nil, usageIfMissing("-model", err)
		}
		if mf.shapes, err = parseInputs(*inputs); err != nil {
			return nil, err
		}
		if mf.values, err = parseConsts(*consts, m); err != nil {
			return nil, err
		}
		if flagSet["outputs"] {
			if mf.outputs, err = parseOutputs(*outputs); err != nil {
				return nil, err
			}
		}
		if err := checkModelNames(m, mf); err != nil {
			return nil, err
		}
		if mf.golden != "" {
			g, err := onnx.ReadGolden(mf.golden)
			if err != nil {
				return nil, usageIfMissing("-golden", err)
			}
			// The table runs the first case's shapes.
			mf.shapes = g.Cases[0].InputShapes()
		}
		c.model = mf
		c.scenarios = []scenarios.Scenario{modelScenario(mf)}
	} else if len(names) == 0 && *scenFile == "" {
		names = scenarios.Names()
	}
	for _, n := range names {
		s, err := scenarios.Get(n)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		c.scenarios = append(c.scenarios, s)
	}
	if len(c.scenarios) > 0 && !slices.ContainsFunc(c.scenarios, func(sc scenarios.Scenario) bool { return sc.Profile == nil }) {
		// zerocost alone: its own device runs, not the card; name that.
		c.devices.name = "zero"
	}
	ms := splitList(*modes)
	if len(ms) == 0 {
		c.modes = pipert.Modes()
	} else {
		c.modes = []pipert.Mode{pipert.KBK}
		c.hetero = heteroOff
		for _, n := range ms {
			if n == "hetero" {
				c.hetero = heteroOn
				continue
			}
			m, err := pipert.ParseMode(n)
			if err != nil {
				return nil, fmt.Errorf("%w: unknown mode %q (have %s)", errUsage, n, modeList())
			}
			if m != pipert.KBK {
				c.modes = append(c.modes, m)
			}
		}
	}
	for _, n := range splitList(*policies) {
		p, err := pipert.ParseBarrierPolicy(n)
		if err != nil {
			return nil, fmt.Errorf("%w: unknown barrier policy %q (have drain, per-tensor)", errUsage, n)
		}
		c.policies = append(c.policies, p)
	}
	switch v := strings.TrimSpace(*caches); v {
	case "":
	case "study":
		c.cacheSets = cacheStudy
	default:
		if list := splitList(v); len(list) > 1 {
			for _, alone := range []string{"none", "default", "study"} {
				if slices.Contains(list, alone) {
					return nil, fmt.Errorf("%w: -cache %s: %s cannot be combined with other caches", errUsage, v, alone)
				}
			}
		}
		k, err := plan.ParseCaches(v)
		if err != nil {
			return nil, fmt.Errorf("%w: -cache: %s", errUsage, strings.TrimPrefix(err.Error(), "plan: "))
		}
		c.cacheSets = []pipert.CacheKinds{k}
	}
	c.overlap = *overlap
	tnames := splitList(*tcopy)
	if len(tnames) == 1 && tnames[0] == "all" {
		tnames = []string{"with-kernel", "multi-stream", "whole"}
	} else if slices.Contains(tnames, "all") {
		return nil, fmt.Errorf("%w: -tiling-copy %s: all cannot be combined with other strategies", errUsage, *tcopy)
	}
	for _, n := range tnames {
		tc, err := plan.ParseTilingCopy(n)
		if err != nil {
			return nil, fmt.Errorf("%w: -tiling-copy: %v", errUsage, err)
		}
		c.tilingCopies = append(c.tilingCopies, tc)
	}
	if (flagSet["tiling-blocks"] || *tblocks != 0) && (*tblocks < 1 || *tblocks > plan.MaxCacheSlots) {
		return nil, fmt.Errorf("%w: -tiling-blocks %d outside [1, %d]", errUsage, *tblocks, plan.MaxCacheSlots)
	}
	c.tilingBlocks = *tblocks
	for _, sl := range []struct {
		name string
		v    int
		dst  *int
	}{{"cache-local", *local, &c.localSlots}, {"cache-global", *global, &c.globalSlots}} {
		if flagSet[sl.name] && (sl.v < 1 || sl.v > plan.MaxCacheSlots) {
			return nil, fmt.Errorf("%w: -%s %d outside [1, %d]", errUsage, sl.name, sl.v, plan.MaxCacheSlots)
		}
		*sl.dst = sl.v
	}
	for i, d := range []*time.Duration{prepare, infer, resize, launch, tiling} {
		name := costFlagNames[i]
		if flagSet[name] && (*d < 0 || *d > plan.MaxCost) {
			return nil, fmt.Errorf("%w: -%s %v outside [0, %v]", errUsage, name, *d, plan.MaxCost)
		}
		if flagSet[name] {
			c.setCosts.set[i], c.setCosts.v[i] = true, *d
		}
	}
	if f := c.setCosts; f.set[4] && f.set[2] && f.v[4] > f.v[2] {
		return nil, fmt.Errorf("%w: -tiling %v exceeds -resize %v", errUsage, f.v[4], f.v[2])
	}
	// The cost flags over each scenario's own costs, checked before
	// anything runs.
	for _, sc := range c.scenarios {
		if _, err := c.setCosts.over(sc.Costs); err != nil {
			return nil, fmt.Errorf("%w: scenario %s: %s", errUsage, sc.Name, strings.TrimPrefix(err.Error(), errUsage.Error()+": "))
		}
	}
	if *scenFile != "" {
		sf, err := loadScenarioFile(*scenFile)
		if err != nil {
			return nil, err
		}
		if err := applyScenarioFile(c, sf, flagSet); err != nil {
			return nil, err
		}
		// The files the scenario file names are inputs too.
		if err := checkOutputs(append(ins, sf.inputFiles()...), outs...); err != nil {
			return nil, err
		}
	}
	if !*quiet {
		for _, w := range idleFlags(c, flagSet, *scenFile != "") {
			fmt.Fprintf(stderr, "pipebench: %s\n", w)
		}
	}
	return c, nil
}

// usageIfMissing makes err a usage error when it says the file a flag
// names is missing or cannot be read as a file (exit 2, as for a missing
// -scenario-file); a file that is there but bad stays a failure.
// textFileMax bounds a scenario file or a device profile: kilobytes are
// what they hold.
const textFileMax = 16 << 20

// checkInput checks that path, an input file of what (a flag, or a field
// of a scenario file), is a regular file of at most max bytes (0: any
// size): a device or a pipe (/dev/zero) would be read without end.
func checkInput(what, path string, max int64) error {
	fi, err := os.Stat(path)
	if err != nil {
		return usageIfMissing(what, err)
	}
	if err := inputProblem(path, fi, max); err != nil {
		return fmt.Errorf("%w: %s %v", errUsage, what, err)
	}
	return nil
}

// inputProblem says what is wrong with the input file path of info fi
// (see checkInput), or nil.
func inputProblem(path string, fi os.FileInfo, max int64) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	if max > 0 && fi.Size() > max {
		return fmt.Errorf("%s has %d bytes: more than the %d such a file can hold", path, fi.Size(), max)
	}
	return nil
}

func usageIfMissing(flag string, err error) error {
	var pe *fs.PathError
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.As(err, &pe) && pe.Err != nil && strings.Contains(pe.Err.Error(), "is a directory") {
		return fmt.Errorf("%w: %s: %w", errUsage, flag, err)
	}
	return err
}

// idleFlags says which flags set (in set) do nothing in the run c
// describes, so that none is ignored silently.
func idleFlags(c *config, set map[string]bool, scenarioFile bool) []string {
	var out []string
	say := func(flag, why string) {
		if set[flag] {
			out = append(out, fmt.Sprintf("-%s does nothing %s", flag, why))
		}
	}
	if !slices.ContainsFunc(c.modes, func(m pipert.Mode) bool { return m != pipert.KBK }) && c.hetero == heteroOff {
		say("queue-capacity", "when only kbk runs (it has no stage queues)")
		say("barrier", "when only kbk runs (it has no barriers between stages)")
	}
	if !slices.Contains(c.tilingCopies, pipert.MultiStream) {
		say("tiling-blocks", "without -tiling-copy multi-stream")
	}
	if c.cacheSets == nil && !slices.ContainsFunc(c.scenarios, func(sc scenarios.Scenario) bool { return sc.CacheStudy }) {
		// The default caches: none but on decode-steps.
		say("cache-local", "without its cache: no -cache, and the scenarios run without caches by default")
		say("cache-global", "without its cache: no -cache, and the scenarios run without caches by default")
	}
	if c.model == nil && !slices.ContainsFunc(c.scenarios, func(sc scenarios.Scenario) bool { return sc.Steps > 1 }) {
		say("overlap", "without a scenario of consecutive steps (decode-steps)")
	}
	if c.cacheSets != nil {
		for _, cs := range []struct {
			flag string
			kind pipert.CacheKinds
		}{{"cache-local", pipert.TilingLocal}, {"cache-global", pipert.TilingGlobal}} {
			if !slices.ContainsFunc(c.cacheSets, func(k pipert.CacheKinds) bool { return k.Has(cs.kind) }) {
				say(cs.flag, "without its cache in -cache")
			}
		}
	}
	if c.model != nil || !slices.ContainsFunc(c.scenarios, func(sc scenarios.Scenario) bool { return sc.Name == "ocr" }) {
		say("size", "without the ocr scenario")
	}
	if scenarioFile {
		say("quick", "with -scenario-file (the file sets the sizes)")
	}
	if c.model == nil && !scenarioFile && len(c.scenarios) > 0 && !slices.ContainsFunc(c.scenarios, func(sc scenarios.Scenario) bool { return sc.Profile == nil }) {
		say("device", "with the zerocost scenario (it runs on its own device, which takes no time)")
	}
	return out
}

// costFlags are the synthetic host costs set on the command line, by
// stage (prepare, infer, resize, launch, tiling); where one is not set,
// the scenario's own stays.
type costFlags struct {
	set [5]bool
	v   [5]time.Duration
}

var costFlagNames = [5]string{"prepare", "infer", "resize", "launch", "tiling"}

// over returns cs with the costs set in f in place of its own.
func (f costFlags) over(cs pipert.Costs) (pipert.Costs, error) {
	for i, dst := range []*time.Duration{&cs.Prepare, &cs.Infer, &cs.Resize, &cs.Launch, &cs.Tiling} {
		if f.set[i] {
			*dst = f.v[i]
		}
	}
	src := func(i int) string {
		if f.set[i] {
			return "-" + costFlagNames[i]
		}
		return "the scenario's"
	}
	if cs.Tiling > cs.Resize {
		return cs, fmt.Errorf("%w: the tiling cost %v (%s) exceeds the resize cost %v (%s)", errUsage, cs.Tiling, src(4), cs.Resize, src(2))
	}
	if cs.Alloc > cs.Launch {
		return cs, fmt.Errorf("%w: the scenario's allocation cost %v (the part of launch a memory plan saves) exceeds the launch cost %v (%s)", errUsage, cs.Alloc, cs.Launch, src(3))
	}
	return cs, nil
}

func modeList() string {
	var n []string
	for _, m := range pipert.Modes() {
		n = append(n, m.String())
	}
	return strings.Join(append(n, "hetero (on scenarios with CPU-placed nodes)"), ", ")
}

// heteroSetting says whether the hetero mode runs: on scenarios that place
// nodes on the CPU (auto, the default), on every scenario, or on none.
type heteroSetting uint8

const (
	heteroAuto heteroSetting = iota
	heteroOn
	heteroOff
)

// outFlag is a file flag and its path (empty: not given).
type outFlag struct{ flag, path string }

// checkOutputs checks, before anything runs, the output files of a
// command: none may name the same file as another or as one of inputs (by
// cleaned absolute path, or by identity for files that exist), and each
// must be writable. Every error is a usage error naming the flags.
func checkOutputs(inputs []outFlag, outs ...outFlag) error {
	type seen struct {
		outFlag
		abs   string
		fi    os.FileInfo
		isOut bool
	}
	var all []seen
	add := func(o outFlag, isOut bool) error {
		if o.path == "" {
			return nil
		}
		abs, err := filepath.Abs(o.path)
		if err != nil {
			return fmt.Errorf("%w: -%s: %v", errUsage, o.flag, err)
		}
		fi, _ := os.Stat(abs)
		for _, s := range all {
			if isOut || s.isOut {
				if s.abs == abs || (fi != nil && s.fi != nil && os.SameFile(fi, s.fi)) {
					if !s.isOut {
						return fmt.Errorf("%w: -%s %s would write over the file of -%s", errUsage, o.flag, o.path, s.flag)
					}
					return fmt.Errorf("%w: -%s and -%s both write %s: give each output its own file", errUsage, s.flag, o.flag, o.path)
				}
			}
		}
		all = append(all, seen{o, abs, fi, isOut})
		return nil
	}
	for _, in := range inputs {
		if err := add(in, false); err != nil {
			return err
		}
	}
	for _, o := range outs {
		if err := add(o, true); err != nil {
			return err
		}
	}
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		if err := writable(o.path); err != nil {
			return fmt.Errorf("%w: -%s: %v", errUsage, o.flag, err)
		}
	}
	return nil
}

// writable reports why path cannot be written, if it cannot: a directory,
// or a file that cannot be opened for writing (its directory missing, no
// permission). It leaves everything as it found it: an existing file is
// opened without truncating it, and one it creates to try is removed; a
// pipe or a device is not opened (that could block), its writes are checked
// when they happen.
func writable(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("%s is a directory", path)
	case err == nil && !fi.Mode().IsRegular():
		return nil
	case err == nil:
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		return f.Close()
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(path) // this call created it, empty
}

// outFile is an output file being written. created says this run created
// it: only then does a failed write remove it. A file that was there
// (someone's file, a pipe, a device) is written in place and never removed
// or replaced.
type outFile struct {
	*os.File
	path    string
	created bool
}

// createOutput opens path for writing: a new regular file, or the existing
// file, truncated if it is a regular one.
func createOutput(path string) (*outFile, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err == nil {
		return &outFile{File: f, path: path, created: true}, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	flags := os.O_WRONLY
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		flags |= os.O_TRUNC
	}
	if f, err = os.OpenFile(path, flags, 0); err != nil {
		return nil, err
	}
	return &outFile{File: f, path: path}, nil
}

// finish closes o after its writes, werr the first of their errors, and
// returns werr or the close's error. On an error it removes the file if
// this run created it and the path still names that regular file.
func (o *outFile) finish(werr error) error {
	ofi, serr := o.File.Stat()
	err := o.File.Close()
	if werr != nil {
		err = werr
	}
	if err != nil && o.created && serr == nil {
		if fi, lerr := os.Lstat(o.path); lerr == nil && fi.Mode().IsRegular() && os.SameFile(ofi, fi) {
			os.Remove(o.path) // nothing written half
		}
	}
	return err
}

// tracedFile is a trace file trace.Create made, noted so that a trace
// whose writing fails is removed only if this run created the file (as
// outFile.finish does).
type tracedFile struct {
	path string
	fi   fs.FileInfo // the file created; nil: it was there before
}

// createTrace is trace.Create, noting whether the file is new.
func createTrace(path string, opts trace.Options) (*trace.Recorder, *tracedFile, error) {
	_, before := os.Lstat(path)
	rec, err := trace.Create(path, opts)
	if err != nil {
		return nil, nil, err
	}
	t := &tracedFile{path: path}
	if errors.Is(before, fs.ErrNotExist) {
		t.fi, _ = os.Lstat(path)
	}
	return rec, t, nil
}

// finish returns err, the recorder's Close's; on an error it removes the
// file if this run created it and the path still names that regular
// file. A nil t (no trace) returns err.
func (t *tracedFile) finish(err error) error {
	if err != nil && t != nil && t.fi != nil && t.fi.Mode().IsRegular() {
		if fi, lerr := os.Lstat(t.path); lerr == nil && fi.Mode().IsRegular() && os.SameFile(t.fi, fi) {
			os.Remove(t.path) // nothing written half
		}
	}
	return err
}

// writeOutput writes path with write, as createOutput and finish do.
func writeOutput(path string, write func(io.Writer) error) error {
	o, err := createOutput(path)
	if err != nil {
		return err
	}
	return o.finish(write(o))
}
