package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/alloc"
	"github.com/pipert/pipert/device/swai"
	"github.com/pipert/pipert/scenarios"
)

// decodeTraceRows records the allocation trace of the decode scenario (its
// constants and three steps, in KBK) and replays it on the multilevel and
// caching allocators, interleaved, reporting the median ns per operation.
// Rows: figure "decode-trace", size_bytes = peak reserved bytes.
func decodeTraceRows(ctx context.Context, quick bool) ([]swai.Row, string, error) {
	sc, err := scenarios.Get("decode")
	if err != nil {
		return nil, "", err
	}
	w, err := sc.Build(scenarios.Config{Quick: quick, Seed: 1})
	if err != nil {
		return nil, "", err
	}
	prof := swai.Default()
	rec := alloc.NewRecording(alloc.NewReference(prof.MemoryBytes))
	dev, err := device.NewSim(device.SimOptions{Profile: prof.Device(), Allocator: rec})
	if err != nil {
		return nil, "", err
	}
	exe, err := pipert.Compile(w.Graph, pipert.WithDevice(dev))
	if err != nil {
		return nil, "", err
	}
	for i := 0; i < 3; i++ {
		if _, err := exe.Run(ctx, w.Inputs); err != nil {
			exe.Close()
			return nil, "", err
		}
	}
	if err := exe.Close(); err != nil {
		return nil, "", err
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
				return nil, "", err
			}
			// Repeated passes on the same allocator are the steady state of
			// repeated decode steps; the first pass warms it and is not
			// counted.
			var st alloc.ReplayStats
			for pass := 0; pass <= tracePasses; pass++ {
				if st, err = alloc.Replay(a, tr); err != nil {
					return nil, "", fmt.Errorf("%s: %w", m.name, err)
				}
				if pass > 0 {
					ns[i] = append(ns[i], st.NsPerOp)
				}
			}
			frag[i], peak[i] = st.Fragmentation, st.PeakReserved
		}
	}
	var rows []swai.Row
	summary := fmt.Sprintf("decode allocation trace: %d ops;", len(tr))
	for i, m := range makers {
		slices.Sort(ns[i])
		rows = append(rows, swai.Row{Figure: "decode-trace", Variant: m.name, SizeBytes: peak[i], LatencyNs: ns[i][len(ns[i])/2]})
		summary += fmt.Sprintf(" %s %.1f ns/op, peak reserved %d MiB, mean fragmentation %.3f;", m.name, rows[i].LatencyNs, peak[i]>>20, frag[i])
	}
	summary += fmt.Sprintf(" caching/multilevel time %.2fx (median of %d steady-state replays, allocators interleaved)", rows[1].LatencyNs/rows[0].LatencyNs, reps*tracePasses)
	return rows, summary, nil
}

// tracePasses is how many timed replays each allocator runs per repetition.
const tracePasses = 10

// runDevice is "pipebench device": the SW-AI runtime paper's figures.
func runDevice(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pipebench device", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		jsonPath = fs.String("json", "", "also write the rows as JSON to this file")
		profile  = fs.String("profile", "", "JSON profile file of the SW-AI card (default: the built-in profile)")
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
				return 2
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
		p, err := swai.LoadProfile(*profile)
		if err != nil {
			fmt.Fprintf(stderr, "pipebench device: %v\n", err)
			return 2
		}
		opts.Profile = p
	}
	// The allocation trace replays first: the figures' large copies leave
	// the caches cold for the short replays.
	var trows []swai.Row
	var summary string
	if traceRows {
		var err error
		if trows, summary, err = decodeTraceRows(ctx, *quick); err != nil {
			fmt.Fprintf(stderr, "pipebench device: decode allocation trace: %v\n", err)
			return 1
		}
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
	rows = append(rows, trows...)
	swai.WriteTable(stdout, rows)
	if f := swai.AllocatorFlatness(rows); f != "" {
		fmt.Fprintln(stdout, f)
	}
	if summary != "" {
		fmt.Fprintln(stdout, summary)
	}
	fmt.Fprintln(stdout)
	swai.WriteClaims(stdout, claims)
	fmt.Fprintln(stdout, swai.ClaimsSummary(claims))
	if *jsonPath != "" {
		if err := writeJSON(*jsonPath, struct {
			Rows       []swai.Row   `json:"rows"`
			Comparison []swai.Claim `json:"comparison"`
		}{rows, claims}); err != nil {
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
