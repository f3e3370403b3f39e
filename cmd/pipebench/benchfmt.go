package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"unicode"

	"golang.org/x/perf/benchfmt"
)

// writeBenchfmt writes every repetition of every variant in the Go
// benchmark format, for benchstat: one line per repetition, named
// BenchmarkScenario/mode=…/policy=…[/caches=…][/tiling=…][/overlap=true]-P,
// with ns/op (the makespan) and the units speedup (KBK's makespan in the
// same repetition over this one's: the interleaved pair), efficiency,
// host-ns/kernel and peak-B.
//
// A write that fails is reported; the file is removed only if this run
// created it (writeOutput): an existing file, pipe or device is never
// removed.
func writeBenchfmt(path string, rep *report) error {
	return writeOutput(path, func(f io.Writer) error { return writeBenchfmtTo(f, rep) })
}

// writeBenchfmtTo is writeBenchfmt on a writer.
func writeBenchfmtTo(f io.Writer, rep *report) error {
	w := benchfmt.NewWriter(f)
	cfg := []benchfmt.Config{
		{Key: "goos", Value: []byte(runtime.GOOS), File: true},
		{Key: "goarch", Value: []byte(runtime.GOARCH), File: true},
		{Key: "pkg", Value: []byte("github.com/pipert/pipert/cmd/pipebench"), File: true},
		{Key: "device", Value: []byte(rep.Device), File: true},
	}
	procs := rep.Machine.GOMAXPROCS
	for _, s := range rep.series {
		name := benchName(s) + fmt.Sprintf("-%d", procs)
		for i, smp := range s.reps {
			vals := []benchfmt.Value{{Value: float64(smp.Makespan), Unit: "ns/op"}}
			if s.ref >= 0 && i < len(rep.series[s.ref].reps) && smp.Makespan > 0 {
				vals = append(vals, benchfmt.Value{Value: float64(rep.series[s.ref].reps[i].Makespan) / float64(smp.Makespan), Unit: "speedup"})
			}
			host := smp.Prepare + smp.Infer + smp.Resize + smp.Launch
			vals = append(vals,
				benchfmt.Value{Value: smp.Efficiency(), Unit: "efficiency"},
				benchfmt.Value{Value: float64(host) / float64(max(smp.Kernels, 1)), Unit: "host-ns/kernel"},
				benchfmt.Value{Value: float64(smp.PeakDeviceBytes), Unit: "peak-B"})
			if err := w.Write(&benchfmt.Result{Config: cfg, Name: benchfmt.Name(name), Iters: 1, Values: vals}); err != nil {
				return err
			}
		}
	}
	return nil
}

// benchName names a series as a Go benchmark with sub-benchmark keys.
func benchName(s series) string {
	var b strings.Builder // the writer adds "Benchmark"
	up := true
	for _, r := range s.scenario {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	r := s.res
	fmt.Fprintf(&b, "/mode=%s", r.Mode)
	if r.Barrier != "" {
		fmt.Fprintf(&b, "/policy=%s", r.Barrier)
	}
	if r.Schedule != "" {
		fmt.Fprintf(&b, "/schedule=%s", r.Schedule)
	}
	if r.Caches != "" {
		fmt.Fprintf(&b, "/caches=%s", strings.ReplaceAll(r.Caches, ",", "+"))
	}
	if r.TilingCopy != "" && r.TilingCopy != "with-kernel" {
		fmt.Fprintf(&b, "/tiling=%s", r.TilingCopy)
	}
	if r.Overlap {
		b.WriteString("/overlap=true")
	}
	return b.String()
}
