package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/alloc"
	"github.com/pipert/pipert/device/fabric"
	"github.com/pipert/pipert/device/swai"
	"github.com/pipert/pipert/moe"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/scenarios"
)

// decodeTrace records the allocation trace of the decode scenario (its
// constants and three steps, in KBK) and replays it on the multilevel and
// caching allocators, interleaved, reporting the median ns per operation.
func decodeTrace(ctx context.Context, quick bool) (*allocTrace, error) {
	sc, err := scenarios.Get("decode")
	if err != nil {
		return nil, err
	}
	w, err := sc.Build(scenarios.Config{Quick: quick, Seed: 1})
	if err != nil {
		return nil, err
	}
	prof := swai.Default()
	rec := alloc.NewRecording(alloc.NewReference(prof.MemoryBytes))
	dev, err := device.NewSim(device.SimOptions{Profile: prof.Device(), Allocator: rec})
	if err != nil {
		return nil, err
	}
	exe, err := pipert.Compile(w.Graph, pipert.WithDevice(dev))
	if err != nil {
		return nil, err
	}
	for i := 0; i < 3; i++ {
		if _, err := exe.Run(ctx, w.Inputs); err != nil {
			exe.Close()
			return nil, err
		}
	}
	if err := exe.Close(); err != nil {
		return nil, err
	}
	tr := rec.Trace()
	reps := 9
	if quick {
		reps = 5
	}
	makers := []struct {
		name string
		make func() (alloc.Allocator, error)
	}{
		{"multilevel", func() (alloc.Allocator, error) { return alloc.NewMultilevel(prof.MemoryBytes) }},
		{"caching", func() (alloc.Allocator, error) { return alloc.NewCaching(prof.MemoryBytes), nil }},
	}
	ns := make([][]float64, len(makers))
	frag := make([]float64, len(makers))
	peak := make([]int64, len(makers))
	for r := 0; r < reps; r++ {
		for i, m := range makers {
			a, err := m.make()
			if err != nil {
				return nil, err
			}
			// Repeated passes on the same allocator are the steady state of
			// repeated decode steps; the first pass warms it and is not
			// counted.
			var st alloc.ReplayStats
			for pass := 0; pass <= tracePasses; pass++ {
				if st, err = alloc.Replay(a, tr); err != nil {
					return nil, fmt.Errorf("%s: %w", m.name, err)
				}
				if pass > 0 {
					ns[i] = append(ns[i], st.NsPerOp)
				}
			}
			frag[i], peak[i] = st.Fragmentation, st.PeakReserved
		}
	}
	t := &allocTrace{ops: len(tr), replays: reps * tracePasses}
	for i, m := range makers {
		slices.Sort(ns[i])
		t.results = append(t.results, allocResult{name: m.name, nsPerOp: ns[i][len(ns[i])/2], peakReserved: peak[i], fragmentation: frag[i]})
	}
	return t, nil
}

// allocTrace is the decode allocation trace's replay on each allocator.
type allocTrace struct {
	ops     int // operations in the trace
	replays int // timed replays per allocator
	results []allocResult
}

// allocResult is one allocator's replays of the trace: the median time per
// operation, and the peak reserved bytes and mean fragmentation of a pass.
type allocResult struct {
	name          string
	nsPerOp       float64
	peakReserved  int64
	fragmentation float64
}

// rows are t's results as figure rows of -json: figure "decode-trace",
// size_bytes the peak reserved bytes, latency_ns the time per operation.
func (t *allocTrace) rows() []swai.Row {
	var rows []swai.Row
	for _, r := range t.results {
		rows = append(rows, swai.Row{Figure: decodeTraceFigure, Variant: r.name, SizeBytes: r.peakReserved, LatencyNs: r.nsPerOp})
	}
	return rows
}

// write prints t as a table of its own, each column in one unit named in
// its header (the figures' table names a size per row and scales each
// latency to it, which mixed the units of the trace's rows), then the
// allocators' time ratio.
func (t *allocTrace) write(w io.Writer) {
	fmt.Fprintf(w, "decode allocation trace: %d operations, median of %d steady-state replays, allocators interleaved\n", t.ops, t.replays)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ALLOCATOR\tTIME (ns/op)\tPEAK RESERVED (MiB)\tMEAN FRAGMENTATION")
	for _, r := range t.results {
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%.3f\n", r.name, r.nsPerOp, float64(r.peakReserved)/(1<<20), r.fragmentation)
	}
	tw.Flush()
	if len(t.results) == 2 && t.results[0].nsPerOp > 0 {
		fmt.Fprintf(w, "%s/%s time %.2fx\n", t.results[1].name, t.results[0].name, t.results[1].nsPerOp/t.results[0].nsPerOp)
	}
}

// tracePasses is how many timed replays each allocator runs per repetition.
const tracePasses = 10

// runDevice is "pipebench device": the SW-AI runtime paper's figures.
func runDevice(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pipebench device", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		jsonPath = fs.String("json", "", "also write the rows as JSON to this file")
		profile  = fs.String("profile", "", "profile file of the SW-AI card, .json or .yaml as -device takes (pipebench profiles -dump swai prints one; default: the built-in profile)")
		maxSize  = fs.Int64("max-size", 0, "skip transfer sizes above this many bytes (0: all sizes up to 1 GB, which really copies 1 GB)")
		quick    = fs.Bool("quick", false, "sizes up to 64 MB and fewer repetitions")
		figures  = fs.String("figures", "", "comma-separated figures to run, of "+strings.Join(deviceFigures(), ",")+" (default: all)")
	)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: pipebench device [flags]\n\nReproduces the SDAA runtime paper's figures on the simulated SW-AI card and the GPU\n")
		fmt.Fprintf(stderr, "comparison profile: allocator (real ns per alloc+free), malloc, mallochost, launch, h2d,\n")
		fmt.Fprintf(stderr, "d2h and d2d at 1 KB … 1 GB.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if code, ok := parseSub(fs, args, 0, stderr, ""); !ok {
		return code
	}
	if *maxSize < 0 {
		fmt.Fprintf(stderr, "pipebench device: -max-size %d: want a size in bytes ≥ 0 (0: all sizes)\n", *maxSize)
		return usageFailed(stderr, "pipebench device")
	}
	if err := checkOutputs([]outFlag{{"profile", *profile}}, outFlag{"json", *jsonPath}); err != nil {
		fmt.Fprintf(stderr, "pipebench device: %v\n", err)
		return usageFailed(stderr, "pipebench device")
	}
	opts := swai.FigureOptions{MaxSize: *maxSize}
	traceRows, paperRows := true, true
	if *figures != "" {
		traceRows = false
		for _, f := range strings.Split(*figures, ",") {
			switch f = strings.TrimSpace(f); {
			case f == decodeTraceFigure:
				traceRows = true
			case slices.Contains(swai.FigureNames(), f):
				opts.Figures = append(opts.Figures, f)
			default:
				fmt.Fprintf(stderr, "pipebench device: -figures: unknown figure %q (want some of %s)\n", f, strings.Join(deviceFigures(), ","))
				return usageFailed(stderr, "pipebench device")
			}
		}
		paperRows = len(opts.Figures) > 0
	}
	if *quick {
		opts.Repeat, opts.AllocRepeat = 2, 30
		if opts.MaxSize == 0 {
			opts.MaxSize = 64 << 20
		}
	}
	if *profile != "" {
		// The loader of -device and of scenario files: JSON as
		// swai.LoadProfile reads it, or YAML as profiles -dump writes it,
		// every duration within its bounds.
		p, err := loadProfileFile(*profile)
		if err != nil {
			fmt.Fprintf(stderr, "pipebench device: -profile: %v\n", err)
			return usageFailed(stderr, "pipebench device")
		}
		opts.Profile = p
	}
	// The allocation trace replays first: the figures' large copies leave
	// the caches cold for the short replays.
	var trace *allocTrace
	if traceRows {
		var err error
		if trace, err = decodeTrace(ctx, *quick); err != nil {
			fmt.Fprintf(stderr, "pipebench device: decode allocation trace: %v\n", err)
			return 1
		}
	}
	// The ATB document's tiling-copy ordering is measured on the runtime:
	// before the figures' large copies, like the trace.
	docClaims, err := documentClaims(ctx, opts.Profile, *quick)
	if err != nil {
		fmt.Fprintf(stderr, "pipebench device: claims: %v\n", err)
		return 1
	}
	var rows []swai.Row
	if paperRows {
		var err error
		if rows, err = swai.Figures(ctx, opts); err != nil {
			fmt.Fprintf(stderr, "pipebench device: %v\n", err)
			return 1
		}
	}
	// The paper's claims, graded on the modeled figures at every size
	// (they cost nothing) on the fixed paper calibration.
	claims, err := swai.Claims(swai.ClaimOptions{Profile: opts.Profile})
	if err != nil {
		fmt.Fprintf(stderr, "pipebench device: claims: %v\n", err)
		return 1
	}
	claims = append(claims, docClaims...)
	if len(rows) > 0 {
		swai.WriteTable(stdout, rows)
		if f := swai.AllocatorFlatness(rows); f != "" {
			fmt.Fprintln(stdout, f)
		}
		fmt.Fprintln(stdout)
	}
	if trace != nil {
		trace.write(stdout)
		rows = append(rows, trace.rows()...)
		fmt.Fprintln(stdout)
	}
	swai.WriteClaims(stdout, claims)
	fmt.Fprintln(stdout, swai.ClaimsSummary(claims))
	if *jsonPath != "" {
		if err := writeJSON(*jsonPath, struct {
			SchemaVersion int          `json:"schema_version"`
			SchemaMinor   int          `json:"schema_minor"`
			Rows          []swai.Row   `json:"rows"`
			Comparison    []swai.Claim `json:"comparison"`
		}{1, deviceMinor, rows, claims}); err != nil {
			fmt.Fprintf(stderr, "pipebench device: %v\n", err)
			return 1
		}
	}
	return 0
}

// decodeTraceFigure names the decode allocation trace rows in -figures.
const decodeTraceFigure = "decode-trace"

// deviceFigures lists what -figures accepts: the paper's figures and the
// decode allocation trace.
func deviceFigures() []string { return append(swai.FigureNames(), decodeTraceFigure) }

// Figures of the claims graded here rather than in device/swai, which
// imports neither pipert's runtime nor package moe.
const (
	figATB = "atb" // the ATB document's tiling-copy strategies (issue 9)
	figMoE = "moe" // the all-to-all MoE document's ladder (issue 14)
)

// documentClaims grades the claims of the ATB and MoE documents: the
// tiling-copy ordering, measured on pipert's runtime, and the MoE rung
// ratios, modeled.
func documentClaims(ctx context.Context, prof swai.Profile, quick bool) ([]swai.Claim, error) {
	t, err := tilingClaims(ctx, prof, quick)
	if err != nil {
		return nil, fmt.Errorf("tiling copy: %w", err)
	}
	m, err := moeClaimsOnce()
	if err != nil {
		return nil, fmt.Errorf("moe: %w", err)
	}
	return append(t, m...), nil
}

// tilingReps is the measured repetitions of each tiling-copy strategy: a
// multiple of 3, so that each strategy runs as often in each place of the
// rotated order.
func tilingReps(quick bool) int {
	if quick {
		return 21
	}
	return 39
}

// tilingClaims grades the ATB document's ordering of its tiling-copy
// strategies, makespan(with-kernel) ≤ makespan(multi-stream) ≤
// makespan(whole), on the decode scenario (its -quick size with quick) in
// pipeline mode, each strategy compiled as pipebench -scenario decode
// -mode pipeline -tiling-copy all compiles it (compileVariant) on a card
// of profile prof of its own.
//
// The makespans are measured wall time, not a modeled figure: the
// strategies differ in how the host stages overlap (Whole sets up a
// batch, then copies it, then launches it; MultiStream copies on the
// Resize goroutine and the kernel waits for the copy stream), and
// device.Sim's timelines follow the host's clock, so the device model
// alone does not order them. After a warm-up run each, the three run in
// turn, the order rotated every repetition; each metric is a ratio of
// medians, and its interval the 2.5th and 97.5th percentiles of that ratio
// over resamples of the repetitions (medianRatio). Each "≤" of the
// ordering is graded ≤ 1 + noise, the noise being how far the ratio lies
// above its interval's lower end: it holds unless the interval lies
// wholly above 1, that is unless the faster strategy of the claim is
// slower beyond the run's noise. (Multi-stream's 105 tiling copies, of
// 89 bytes from the pinned host block, take 5.5 µs each on its one copy
// stream; from pageable memory, 15.5 µs, they held it near whole's
// makespan.)
func tilingClaims(ctx context.Context, prof swai.Profile, quick bool) ([]swai.Claim, error) {
	sc, err := scenarios.Get("decode")
	if err != nil {
		return nil, err
	}
	w, err := sc.Build(scenarios.Config{Quick: quick, Seed: 1})
	if err != nil {
		return nil, err
	}
	if prof.Name == "" {
		prof = swai.Default()
	}
	devs := newProfileFactory(prof.Name, prof)
	defer devs.close()
	strategies := []pipert.TilingCopy{pipert.WithKernel, pipert.MultiStream, pipert.Whole}
	cfg := &config{seed: 1}
	exes := make([]executor, len(strategies))
	for i, tc := range strategies {
		dev, err := devs.makeFor(sc, nil)
		if err != nil {
			return nil, err
		}
		if exes[i], err = compileVariant(w.Graph, variant{mode: pipert.Pipeline, policy: pipert.PerTensor, tiling: tc}, dev, sc.Costs, cfg, nil, ""); err != nil {
			return nil, err
		}
		defer exes[i].close()
	}
	reps := tilingReps(quick)
	makespans := make([][]int64, len(strategies))
	var kernels, stalls int
	for r := -1; r < reps; r++ {
		for j := range strategies {
			i := (r + 1 + j) % len(strategies)
			s, _, err := exes[i].run(ctx, w.InputsOf(0))
			if err != nil {
				return nil, fmt.Errorf("%v: %w", strategies[i], err)
			}
			if r < 0 {
				continue
			}
			makespans[i] = append(makespans[i], s.Makespan.Nanoseconds())
			kernels = s.Kernels
			if strategies[i] == pipert.MultiStream {
				stalls += s.Tiling.Stalls
			}
		}
	}
	wkMS, wkMSLo, wkMSHi := medianRatio(makespans[0], makespans[1])
	msWh, msWhLo, msWhHi := medianRatio(makespans[1], makespans[2])
	size := ""
	if quick {
		size = " -quick"
	}
	c := sc.Costs
	params := fmt.Sprintf("decode%s (%d kernels), pipeline/per-tensor, host costs %v/%v/%v/%v, %s card, ring %d×3 MB (%d stalls), GOMAXPROCS %d; median makespans %.3f/%.3f/%.3f ms",
		size, kernels, c.Prepare, c.Infer, c.Resize, c.Launch, prof.Name, plan.DefaultTilingBlocks, stalls, runtime.GOMAXPROCS(0),
		millis(median(makespans[0])), millis(median(makespans[1])), millis(median(makespans[2])))
	return []swai.Claim{
		swai.NewClaim(figATB, fmt.Sprintf("tiling copy, decode in pipeline mode: with-kernel no slower than multi-stream, within noise (with-kernel over multi-stream; medians of %d interleaved runs, wall time; noise: the ratio above its 95%% interval's lower end)", reps),
			swai.AtMost, 1, max(wkMS-wkMSLo, 0), wkMS, "x", fmt.Sprintf("%s; 95%% interval %.3f–%.3f", params, wkMSLo, wkMSHi)),
		swai.NewClaim(figATB, "tiling copy, decode in pipeline mode: multi-stream no slower than whole, within noise (multi-stream over whole; the same runs and noise)",
			swai.AtMost, 1, max(msWh-msWhLo, 0), msWh, "x", fmt.Sprintf("%s; 95%% interval %.3f–%.3f", params, msWhLo, msWhHi)),
	}, nil
}

// millis is ns in milliseconds.
func millis(ns int64) float64 { return float64(ns) / 1e6 }

// medianRatio is median(a) / median(b) of paired repetitions, and the
// 2.5th and 97.5th percentiles of that ratio over 1000 bootstrap resamples
// of the repetitions (pairs drawn with replacement, a fixed seed: the
// interval depends on the data alone).
func medianRatio(a, b []int64) (ratio, lo, hi float64) {
	ratio = float64(median(slices.Clone(a))) / float64(median(slices.Clone(b)))
	const resamples = 1000
	rng := rand.New(rand.NewPCG(1, 2))
	ra, rb := make([]int64, len(a)), make([]int64, len(b))
	rs := make([]float64, resamples)
	for k := range rs {
		for i := range ra {
			j := rng.IntN(len(a))
			ra[i], rb[i] = a[j], b[j]
		}
		rs[k] = float64(median(ra)) / float64(median(rb))
	}
	slices.Sort(rs)
	return ratio, rs[resamples*25/1000], rs[resamples*975/1000-1]
}

// moeClaimsOnce is moeClaims, computed once per process (half a second of
// modeling, the same every time).
var moeClaimsOnce = sync.OnceValues(moeClaims)

// moeClaims grades the MoE document's rung ratios (moeRungs) on the
// modeled makespans at full size (moe.Full, uniform routing as the
// document's competition draws its experts, seed 1 as pipebench moe's
// default) with moe.DefaultCosts on the default fabric: deterministic,
// independent of the host.
func moeClaims() ([]swai.Claim, error) {
	full := moe.Full
	full.Routing, full.Seed = moe.Uniform, 1
	in, err := moe.Routes(full, nil)
	if err != nil {
		return nil, err
	}
	costs, fab := moe.DefaultCosts(), fabric.Config{}
	got := map[moe.Variant]time.Duration{}
	for _, q := range moeRungs {
		for _, v := range q {
			if _, ok := got[v]; ok {
				continue
			}
			res, err := moe.Model(v, in, costs, fab, moe.ModelOptions{})
			if err != nil {
				return nil, fmt.Errorf("%v: %w", v, err)
			}
			got[v] = res.Makespan
		}
	}
	params := fmt.Sprintf("moe.DefaultCosts (CUs %d, MemBandwidth %g, KernelIssue %v, EagerOp %v, Alloc %v, FlagPoll %v), xGMI %d ranks at %g B/s; %d experts, top-%d, hidden %d, %d tokens/rank",
		costs.CUs, costs.MemBandwidth, costs.KernelIssue, costs.EagerOp, costs.Alloc, costs.FlagPoll, fabric.DefaultRanks, fabric.DefaultBandwidth, full.Experts, full.TopK, full.Hidden, full.Tokens)
	var out []swai.Claim
	for i, r := range moeRatios(got) {
		a, b := moeRungs[i][0], moeRungs[i][1]
		out = append(out, swai.NewClaim(figMoE,
			fmt.Sprintf("%s over %s (document: %g/%g µs; modeled makespans at full size, %.0f/%.0f µs, uniform routing)", a, b, moe.PaperMicros[a], moe.PaperMicros[b], micros(got[a]), micros(got[b])),
			swai.About, r.Paper, 0, r.Ours, "x", params))
	}
	return out, nil
}
