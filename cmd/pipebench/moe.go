package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/pipert/pipert/device/fabric"
	"github.com/pipert/pipert/moe"
	"github.com/pipert/pipert/trace"
)

// moeRow is one variant of the moe scenario.
type moeRow struct {
	Scenario string `json:"scenario"` // "moe"
	Variant  string `json:"variant"`
	Routing  string `json:"routing"`
	// Exact: the real-data run equals the single-device reference bit for
	// bit; WallNs is that run's wall time (ranks on goroutines, 2 cores).
	Exact  bool  `json:"exact"`
	WallNs int64 `json:"wall_ns"`
	// MakespanNs is the modeled makespan at the run's size;
	// ModeledFullUs at the full size (256 experts, top-8, hidden 7168,
	// 256 tokens per rank, 8 ranks); PaperUs the document's figure.
	MakespanNs    int64   `json:"makespan_ns"`
	ModeledFullUs float64 `json:"modeled_full_us"`
	PaperUs       float64 `json:"paper_us,omitempty"`
	// RatioPrev is this rung's full-size makespan over the previous
	// rung's (p2p-rank stands aside: fused-path rungs compare with the
	// rung before it).
	RatioPrev float64 `json:"ratio_prev,omitempty"`
	// Per rank at full size: device busy (max and mean), the busiest
	// link's utilization, flag wait summed over ranks and lanes.
	DeviceBusyMaxUs  float64 `json:"device_busy_max_us"`
	DeviceBusyMeanUs float64 `json:"device_busy_mean_us"`
	HostBusyMaxUs    float64 `json:"host_busy_max_us"`
	LinkUtilization  float64 `json:"link_utilization"`
	FlagWaitUs       float64 `json:"flag_wait_us"`
}

type moeReport struct {
	SchemaVersion int          `json:"schema_version"`
	SchemaMinor   int          `json:"schema_minor"`
	GOMAXPROCS    int          `json:"gomaxprocs"`
	Problem       moe.Problem  `json:"problem"`
	Full          moe.Problem  `json:"full"`
	Topology      string       `json:"topology"`
	Rows          []moeRow     `json:"rows"`
	Ratios        []moeRatio   `json:"ratios"`
	HostBound     moeHostBound `json:"host_bound"`
	// Profile is the document's per-rank kernel times at full size beside
	// ours (the fastest and slowest rank of each).
	Profile []moePhase `json:"profile,omitempty"`
}

// moePhase is one column of the document's per-rank profile beside ours.
type moePhase struct {
	Variant string  `json:"variant"`
	Phase   string  `json:"phase"`
	OursLo  float64 `json:"ours_lo_us"`
	OursHi  float64 `json:"ours_hi_us"`
	PaperLo float64 `json:"paper_lo_us"`
	PaperHi float64 `json:"paper_hi_us"`
}

// moeRatio is one of the document's rung ratios beside ours.
type moeRatio struct {
	Name   string  `json:"name"`
	Ours   float64 `json:"ours"`
	Paper  float64 `json:"paper"`
	Within bool    `json:"within_25pct"`
}

// moeHostBound is fused+pipeline against fused at the run's size, where the
// host bounds the kernels.
type moeHostBound struct {
	FusedNs    int64   `json:"fused_ns"`
	PipelineNs int64   `json:"pipeline_ns"`
	Speedup    float64 `json:"speedup"`
}

func runMoE(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pipebench moe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		quick     = fs.Bool("quick", false, "a small run size (8 ranks, 32 experts, top-4, hidden 64, 24 tokens): seconds")
		ranks     = fs.Int("ranks", 8, "ranks (devices), at most the fabric's -fabric-ranks")
		fabRanks  = fs.Int("fabric-ranks", 8, "devices of the fabric")
		experts   = fs.Int("experts", 64, "experts in all (a multiple of -ranks)")
		topk      = fs.Int("topk", 8, "experts per token (at most -experts)")
		hidden    = fs.Int("hidden", 256, "elements per token at the run's size")
		tokens    = fs.Int("tokens", 64, "tokens per rank at the run's size (the symmetric buffers' worst case)")
		routing   = fs.String("routing", "uniform", "router logits: uniform, skewed (rank 0's experts favoured) or zipf")
		variants  = fs.String("variants", "all", "variants to run: all or a comma-separated list of "+fmt.Sprint(moe.Variants()))
		topology  = fs.String("topology", "xgmi", "fabric: xgmi (a link per pair) or pcie (a port per device)")
		seed      = fs.Uint64("seed", 1, "routing and data seed")
		watchdog  = fs.Duration("watchdog", fabric.DefaultWatchdog, "modeled bound on one flag wait")
		jsonPath  = fs.String("json", "", "also write the rows as JSON to this file")
		tracePath = fs.String("trace", "", "write the run-size model of every variant as a trace (.pftrace Perfetto, .json Chrome): a track group per device with its stream and per-block lanes, link tracks, flag set→wait flows")
	)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: pipebench moe [flags]\n\nThe all-to-all document's MoE ladder on a fabric of simulated devices: each variant runs\non real data at the run's size (checked bit for bit against a single-device reference)\nand is modeled at that size and at full size (deterministic, independent of the wall clock).\nExample: pipebench moe -quick -routing skewed -json moe.json\nFlags:")
		fs.PrintDefaults()
	}
	if code, ok := parseSub(fs, args, 0, stderr, ""); !ok {
		return code
	}
	usage := func(format string, a ...any) int {
		// The moe package's errors name it already.
		fmt.Fprintf(stderr, "pipebench: moe: %s\n", strings.TrimPrefix(fmt.Sprintf(format, a...), "moe: "))
		return usageFailed(stderr, "pipebench moe")
	}
	set := flagsSet(fs)
	if *quick {
		for name, v := range map[string]*int{"experts": experts, "topk": topk, "hidden": hidden, "tokens": tokens} {
			if !set[name] {
				*v = map[string]int{"experts": 32, "topk": 4, "hidden": 64, "tokens": 24}[name]
			}
		}
	}
	rt, err := moe.ParseRouting(*routing)
	if err != nil {
		return usage("-routing: %v", err)
	}
	if i := emptyItem(*variants); i > 0 {
		return usage("-variants %q: item %d is empty (all variants: leave the flag out, or all)", *variants, i)
	}
	vs, err := moe.ParseVariants(*variants)
	if err != nil {
		return usage("-variants: %v", err)
	}
	fab := fabric.Config{Ranks: *fabRanks}
	switch *topology {
	case "xgmi":
	case "pcie":
		fab.Topology = fabric.PCIe
	default:
		return usage("-topology %q, want xgmi or pcie", *topology)
	}
	if *fabRanks < 1 || *fabRanks > fabric.MaxRanks {
		return usage("-fabric-ranks %d outside [1, %d]", *fabRanks, fabric.MaxRanks)
	}
	// Each size flag's lower bound, named; moe.Problem.Check below checks
	// how they go together (-ranks and -experts, -topk and -experts) and
	// that the buffers they size fit.
	for _, f := range []struct {
		name string
		v    int
		want string
	}{
		{"ranks", *ranks, fmt.Sprintf("1 to -fabric-ranks (%d)", *fabRanks)},
		{"experts", *experts, fmt.Sprintf("a positive multiple of -ranks (%d)", *ranks)},
		{"topk", *topk, fmt.Sprintf("1 to -experts (%d)", *experts)},
		{"hidden", *hidden, "at least 1"},
		{"tokens", *tokens, "at least 1 (a rank of no token has nothing to dispatch)"},
	} {
		if f.v < 1 {
			return usage("-%s %d: want %s", f.name, f.v, f.want)
		}
	}
	if *ranks > *fabRanks {
		return usage("-ranks %d: want 1 to -fabric-ranks (%d)", *ranks, *fabRanks)
	}
	if *watchdog <= 0 {
		return usage("-watchdog %v must be positive", *watchdog)
	}
	p := moe.Problem{Ranks: *ranks, Experts: *experts, TopK: *topk, Hidden: *hidden, Tokens: *tokens, Routing: rt, Seed: *seed}
	if err := p.Check(fab); err != nil {
		return usage("%v", err)
	}
	if *tracePath != "" {
		if _, err := trace.FormatOf(*tracePath); err != nil {
			return usage("-trace: %v", err)
		}
	}
	if err := checkOutputs(nil, outFlag{"json", *jsonPath}, outFlag{"trace", *tracePath}); err != nil {
		return usage("%v", err)
	}
	full := moe.Full
	full.Routing, full.Seed = rt, *seed
	if full.Ranks > fab.Ranks || full.Ranks != p.Ranks {
		full.Ranks = p.Ranks
		full.Experts = full.Experts / p.Ranks * p.Ranks
		if full.Experts == 0 {
			full.Experts = p.Ranks
		}
	}
	if err := full.Check(fab); err != nil {
		return usage("full size: %v", err)
	}

	in, err := moe.Generate(p, nil)
	if err != nil {
		fmt.Fprintf(stderr, "pipebench: %v\n", err) // "moe: …"
		return 1
	}
	fullIn, err := moe.Routes(full, nil)
	if err != nil {
		fmt.Fprintf(stderr, "pipebench: moe: full size: %v\n", err)
		return 1
	}
	want := moe.Reference(in)
	costs := moe.DefaultCosts()
	var rec *trace.Recorder
	var traced *tracedFile
	if *tracePath != "" {
		if rec, traced, err = createTrace(*tracePath, trace.Options{}); err != nil {
			fmt.Fprintf(stderr, "pipebench: moe: %v\n", err)
			return 1
		}
	}
	rep := moeReport{SchemaVersion: 1, SchemaMinor: moeMinor, GOMAXPROCS: runtime.GOMAXPROCS(0), Problem: p, Full: full, Topology: *topology}
	fullSize := map[moe.Variant]time.Duration{}
	runSize := map[moe.Variant]time.Duration{}
	exactAll := true
	for _, v := range vs {
		start := time.Now()
		got, err := moe.Run(ctx, v, in, moe.Options{Fabric: fab})
		wall := time.Since(start)
		if err != nil {
			fmt.Fprintf(stderr, "pipebench: moe: %s: %v\n", v, err)
			return 1
		}
		exact := sameBits(got, want)
		exactAll = exactAll && exact
		mres, err := moe.Model(v, in, costs, fab, moe.ModelOptions{Trace: rec != nil, Watchdog: *watchdog})
		if err != nil {
			fmt.Fprintf(stderr, "pipebench: moe: %s: model: %v\n", v, err)
			return 1
		}
		if rec != nil {
			writeModelTrace(rec, v.String(), mres)
		}
		profiled := v == moe.VP2PToken || v == moe.VFused
		fres, err := moe.Model(v, fullIn, costs, fab, moe.ModelOptions{Watchdog: *watchdog, Trace: profiled})
		if err != nil {
			fmt.Fprintf(stderr, "pipebench: moe: %s: full-size model: %v\n", v, err)
			return 1
		}
		for _, ph := range moe.Profile {
			if ph.Variant != v {
				continue
			}
			if lo, hi, ok := moe.PhaseRange(fres, ph); ok {
				rep.Profile = append(rep.Profile, moePhase{Variant: v.String(), Phase: ph.Name, OursLo: lo, OursHi: hi, PaperLo: ph.PaperLo, PaperHi: ph.PaperHi})
			}
		}
		fres.Spans, fres.Flows = nil, nil
		runSize[v], fullSize[v] = mres.Makespan, fres.Makespan
		row := moeRow{Scenario: "moe", Variant: v.String(), Routing: rt.String(), Exact: exact, WallNs: wall.Nanoseconds(),
			MakespanNs: mres.Makespan.Nanoseconds(), ModeledFullUs: micros(fres.Makespan), PaperUs: moe.PaperMicros[v],
			LinkUtilization: fres.LinkUtilization, FlagWaitUs: micros(fres.FlagWait())}
		var sum time.Duration
		for _, r := range fres.Ranks {
			row.DeviceBusyMaxUs = math.Max(row.DeviceBusyMaxUs, micros(r.DeviceBusy))
			row.HostBusyMaxUs = math.Max(row.HostBusyMaxUs, micros(r.HostBusy))
			sum += r.DeviceBusy
		}
		row.DeviceBusyMeanUs = micros(sum) / float64(len(fres.Ranks))
		if prev, ok := previousRung(v, fullSize); ok {
			row.RatioPrev = float64(fres.Makespan) / float64(prev)
		}
		rep.Rows = append(rep.Rows, row)
	}
	if rec != nil {
		if err := traced.finish(rec.Close()); err != nil {
			fmt.Fprintf(stderr, "pipebench: moe: trace: %v\n", err)
			return 1
		}
	}
	rep.Ratios = moeRatios(fullSize)
	if f, ok := runSize[moe.VFused]; ok {
		if pl, ok := runSize[moe.VFusedPipeline]; ok && pl > 0 {
			rep.HostBound = moeHostBound{FusedNs: f.Nanoseconds(), PipelineNs: pl.Nanoseconds(), Speedup: float64(f) / float64(pl)}
		}
	}
	printMoE(stdout, rep)
	if *jsonPath != "" {
		if err := writeJSON(*jsonPath, rep); err != nil {
			fmt.Fprintf(stderr, "pipebench: moe: %v\n", err)
			return 1
		}
	}
	if !exactAll {
		fmt.Fprintln(stderr, "pipebench: moe: a variant's result differs from the reference")
		return 1
	}
	return 0
}

// moeRungs are the document's rung ratios, each a rung's makespan over the
// one it improves on (pipebench moe and pipebench device's claims).
var moeRungs = [][2]moe.Variant{{moe.VP2PToken, moe.VSorted}, {moe.VFused, moe.VP2PToken}, {moe.VVarlen, moe.VFused}}

// moeRatios are the rung ratios of the makespans in got whose two rungs
// both ran, beside the document's (its leaderboard times, moe.PaperMicros).
func moeRatios(got map[moe.Variant]time.Duration) []moeRatio {
	var out []moeRatio
	for _, q := range moeRungs {
		a, okA := got[q[0]]
		b, okB := got[q[1]]
		if okA && okB && b > 0 {
			ours, paper := float64(a)/float64(b), moe.PaperMicros[q[0]]/moe.PaperMicros[q[1]]
			out = append(out, moeRatio{Name: q[0].String() + "/" + q[1].String(), Ours: ours, Paper: paper, Within: math.Abs(ours/paper-1) <= 0.25})
		}
	}
	return out
}

// previousRung is the full-size makespan of the rung before v on the
// fused path: p2p-rank stands aside (the document's per-rank version was
// slower than its sorted PyTorch one), so p2p-token follows sorted.
func previousRung(v moe.Variant, got map[moe.Variant]time.Duration) (time.Duration, bool) {
	order := []moe.Variant{moe.VReference, moe.VSorted, moe.VP2PToken, moe.VFused, moe.VFusedPipeline, moe.VVarlen}
	if v == moe.VP2PRank {
		d, ok := got[moe.VSorted]
		return d, ok
	}
	i := slices.Index(order, v)
	if i <= 0 {
		return 0, false
	}
	d, ok := got[order[i-1]]
	return d, ok
}

func micros(d time.Duration) float64 { return float64(d) / 1e3 }

func sameBits(a, b [][]float32) bool {
	if len(a) != len(b) {
		return false
	}
	for r := range a {
		if len(a[r]) != len(b[r]) {
			return false
		}
		for i := range a[r] {
			if math.Float32bits(a[r][i]) != math.Float32bits(b[r][i]) {
				return false
			}
		}
	}
	return true
}

func printMoE(w io.Writer, rep moeReport) {
	p, f := rep.Problem, rep.Full
	fmt.Fprintf(w, "moe: %d ranks (%s), routing %s; run size %d experts, top-%d, hidden %d, %d tokens/rank; full size %d experts, top-%d, hidden %d, %d tokens/rank\n",
		p.Ranks, rep.Topology, p.Routing, p.Experts, p.TopK, p.Hidden, p.Tokens, f.Experts, f.TopK, f.Hidden, f.Tokens)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "variant\texact\twall ms\tmodel µs (run)\tmodel µs (full)\t× prev\tpaper µs\tbusy max µs\thost max µs\tlink util\tflag wait µs\t")
	for _, r := range rep.Rows {
		prev, paper := "", ""
		if r.RatioPrev > 0 {
			prev = fmt.Sprintf("%.3g", r.RatioPrev)
		}
		if r.PaperUs > 0 {
			paper = fmt.Sprintf("%.0f", r.PaperUs)
		}
		fmt.Fprintf(tw, "%s\t%v\t%.1f\t%.1f\t%.1f\t%s\t%s\t%.1f\t%.1f\t%.2f\t%.0f\t\n", r.Variant, r.Exact, float64(r.WallNs)/1e6,
			float64(r.MakespanNs)/1e3, r.ModeledFullUs, prev, paper, r.DeviceBusyMaxUs, r.HostBusyMaxUs, r.LinkUtilization, r.FlagWaitUs)
	}
	tw.Flush()
	for _, q := range rep.Ratios {
		fmt.Fprintf(w, "  %-17s ours %.2f, document %.2f (%s)\n", q.Name, q.Ours, q.Paper, map[bool]string{true: "within 25%", false: "outside 25%"}[q.Within])
	}
	if rep.HostBound.Speedup > 0 {
		fmt.Fprintf(w, "  host-bound (run size): fused+pipeline %.1f µs vs fused %.1f µs: %.2f×\n",
			float64(rep.HostBound.PipelineNs)/1e3, float64(rep.HostBound.FusedNs)/1e3, rep.HostBound.Speedup)
	}
	fmt.Fprintln(w, "  document's per-rank totals at full size (CUDA events): v6 757–828 µs; v7 combine grid 256: 647–687 µs, grid 304: 467–513 µs")
	if len(rep.Profile) > 0 {
		fmt.Fprintf(w, "  per-rank kernel times at full size, routing %s (fastest–slowest rank, µs):\n", p.Routing)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "  \tvariant\tphase\tours\tdocument\tours/document\t")
		for _, ph := range rep.Profile {
			fmt.Fprintf(tw, "  \t%s\t%s\t%.1f–%.1f\t%.1f–%.1f\t%.2f\t\n", ph.Variant, ph.Phase, ph.OursLo, ph.OursHi, ph.PaperLo, ph.PaperHi,
				(ph.OursLo+ph.OursHi)/(ph.PaperLo+ph.PaperHi))
		}
		tw.Flush()
	}
}

// moeFlows numbers the flag flows of modeled traces.
var moeFlows atomic.Uint64

// writeModelTrace writes a modeled run: per rank a group with the stream
// (kernels) and one track per block lane (lanes, flag waits nested in
// them), a track of flag sets; the links in a group of their own; a flow
// from each flag's set to each wait it ended.
func writeModelTrace(rec *trace.Recorder, variant string, res fabric.Result) {
	type ev struct {
		start, dur int64
		name       string
		flowBegin  uint64
		flowEnd    uint64
	}
	tracks := map[string][]ev{}
	group := map[string]string{}
	key := func(g, t string) string { group[g+"/"+t] = g; return g + "/" + t }
	for _, s := range res.Spans {
		switch {
		case s.Rank < 0:
			k := key(variant+" fabric", fmt.Sprintf("link %s", s.Name))
			tracks[k] = append(tracks[k], ev{start: s.Start, dur: s.End - s.Start, name: "transfer"})
		case s.Lane < 0:
			k := key(fmt.Sprintf("%s device %d", variant, s.Rank), "stream")
			tracks[k] = append(tracks[k], ev{start: s.Start, dur: s.End - s.Start, name: s.Name})
		default:
			k := key(fmt.Sprintf("%s device %d", variant, s.Rank), fmt.Sprintf("block %03d", s.Lane))
			tracks[k] = append(tracks[k], ev{start: s.Start, dur: s.End - s.Start, name: s.Name})
		}
	}
	for _, f := range res.Flows {
		id := moeFlows.Add(1)
		sk := key(fmt.Sprintf("%s device %d", variant, f.Set.Rank), "flag sets")
		tracks[sk] = append(tracks[sk], ev{start: f.SetAt, name: f.Flag, flowBegin: id})
		wk := key(fmt.Sprintf("%s device %d", variant, f.Waiter.Rank), fmt.Sprintf("block %03d", f.Waiter.Lane))
		until := max(f.SetAt, f.WaitFrom)
		tracks[wk] = append(tracks[wk], ev{start: f.WaitFrom, dur: until - f.WaitFrom, name: "wait " + f.Flag},
			ev{start: until, name: "acquire", flowEnd: id})
	}
	keys := make([]string, 0, len(tracks))
	for k := range tracks {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	groups := map[string]trace.Group{}
	for _, k := range keys {
		g, ok := groups[group[k]]
		if !ok {
			g = rec.Group(group[k])
			groups[group[k]] = g
		}
		t := rec.Track(k[len(group[k])+1:], trace.SliceTrack, g)
		evs := tracks[k]
		// by start; an enclosing slice (longer) before what it encloses
		slices.SortStableFunc(evs, func(a, b ev) int {
			if a.start != b.start {
				return int(a.start - b.start)
			}
			return int(b.dur - a.dur)
		})
		for _, e := range evs {
			t.Slice(e.start, e.dur, rec.Intern(e.name))
			if e.flowBegin != 0 {
				t.FlowBegin(e.flowBegin)
			}
			if e.flowEnd != 0 {
				t.FlowEnd(e.flowEnd)
			}
		}
		t.Flush()
	}
}
