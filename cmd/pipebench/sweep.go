package main

// pipebench sweep: what-if studies. A sweep takes a scenario (a built-in,
// dumped as a file, or a scenario file), varies fields of it — any field of
// the dumped file or of the device profile, addressed by its path — over a
// full factorial of the -vary axes, and measures every point with bench,
// the measurement of a plain run (interleaved repetitions, medians). Each
// point also gets the flow-shop prediction of trace/analysis, from one
// traced KBK run of the point: the same prediction -trace prints.
//
// The results go to DIR/sweep.csv, a point's rows at once as it completes,
// so that an interrupted sweep resumes where it stopped (a point whose
// rows are all there, one per variant, is skipped; one with some of them
// is measured again); the figures go to DIR/*.svg. A sweep measures at
// most maxSweepRuns points × variants.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"gopkg.in/yaml.v3"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/devtrace"
	"github.com/pipert/pipert/device/swai"
	"github.com/pipert/pipert/scenarios"
	"github.com/pipert/pipert/trace"
)

// valueKind is how a swept field's values are read and written.
type valueKind uint8

const (
	kindDuration valueKind = iota + 1 // 5us in the file, ns in the profile's _ns fields
	kindInt
	kindFloat
)

// axis is one -vary: a field and its values.
type axis struct {
	name   string // as the user wrote it: the CSV column
	path   string // in the scenario file: costs.infer, device.overrides.launch.cpu_ns
	kind   valueKind
	log    bool
	values []float64 // durations in ns
}

// text formats v as the CSV and the scenario file hold it.
func (a *axis) text(v float64) string {
	switch a.kind {
	case kindDuration:
		return fmtDuration(time.Duration(math.Round(v)))
	case kindInt:
		return strconv.FormatInt(int64(math.Round(v)), 10)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// yamlText is v as the scenario file holds it at the axis' path.
func (a *axis) yamlText(v float64) string {
	if a.kind == kindDuration && strings.HasPrefix(a.path, "device.overrides.") {
		return strconv.FormatInt(int64(math.Round(v)), 10) // a profile's _ns field
	}
	return a.text(v)
}

// parseValue reads one value of the axis.
func (a *axis) parseValue(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if a.kind == kindDuration {
		d, err := parseDuration(s)
		return float64(d), err
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if a.kind == kindInt && v != math.Trunc(v) {
		return 0, fmt.Errorf("%q is not a whole number", s)
	}
	return v, nil
}

// parseSpec reads FROM..TO/N (N points evenly spaced), FROM..TO/logN
// (evenly spaced on a log scale) or V1,V2,… into a.values.
func (a *axis) parseSpec(spec string) error {
	if from, rest, ok := strings.Cut(spec, ".."); ok {
		to, n, ok := strings.Cut(rest, "/")
		if !ok {
			return fmt.Errorf("range %q: want FROM..TO/N or FROM..TO/logN", spec)
		}
		if strings.HasPrefix(n, "log") {
			a.log, n = true, strings.TrimPrefix(n, "log")
		}
		count, err := strconv.Atoi(n)
		if err != nil || count < 1 || count > 1000 {
			return fmt.Errorf("range %q: %q points: want 1 to 1000", spec, n)
		}
		lo, err := a.parseValue(from)
		if err != nil {
			return err
		}
		hi, err := a.parseValue(to)
		if err != nil {
			return err
		}
		if hi < lo || count > 1 && hi == lo {
			return fmt.Errorf("range %q is empty: want FROM < TO", spec)
		}
		if a.log && lo <= 0 {
			return fmt.Errorf("range %q: a log range starts above 0", spec)
		}
		for i := range count {
			f := 0.0
			if count > 1 {
				f = float64(i) / float64(count-1)
			}
			v := lo + f*(hi-lo)
			if a.log {
				v = lo * math.Pow(hi/lo, f)
			}
			if a.kind != kindFloat {
				v = math.Round(v)
			}
			a.values = append(a.values, v)
		}
	} else {
		for i, s := range strings.Split(spec, ",") {
			if strings.TrimSpace(s) == "" && strings.TrimSpace(spec) != "" {
				return fmt.Errorf("value %d of %q is empty", i+1, spec)
			}
			if strings.TrimSpace(s) == "" {
				continue // no value at all: said below
			}
			v, err := a.parseValue(s)
			if err != nil {
				return err
			}
			a.values = append(a.values, v)
		}
	}
	var uniq []float64 // a value listed twice is one point
	for _, v := range a.values {
		if !slices.Contains(uniq, v) {
			uniq = append(uniq, v)
		}
	}
	a.values = uniq
	if len(a.values) == 0 {
		return fmt.Errorf("%q gives no value", spec)
	}
	for _, v := range a.values {
		if v < 0 {
			return fmt.Errorf("%s = %s is negative", a.name, a.text(v))
		}
	}
	return nil
}

// sweepFields lists the fields a sweep can vary: the leaves of the
// scenario file (costs, params, device.scale, reps…) and, with profile, of
// the device profile (device.launch.cpu_ns…), each with its kind and its
// path in the file. A scenario on a platform of its own takes no profile.
func sweepFields(doc *yaml.Node, profile bool) map[string]axis {
	out := map[string]axis{}
	annotate(doc, "", func(path string, k, v *yaml.Node) {
		if v.Kind != yaml.ScalarNode {
			return
		}
		switch {
		case strings.HasPrefix(path, "costs."):
			out[path] = axis{path: path, kind: kindDuration}
		case strings.HasPrefix(path, "graph.params."), path == "reps", path == "seed":
			out[path] = axis{path: path, kind: kindInt}
		case path == "device.scale":
			out[path] = axis{path: path, kind: kindFloat}
		}
	})
	if !profile {
		return out
	}
	paths := map[string]string{}
	jsonPaths(reflect.TypeFor[swai.Profile](), "", "", paths)
	for jp, gp := range paths {
		t := reflect.TypeFor[swai.Profile]()
		var f reflect.StructField
		for _, name := range strings.Split(gp, ".") {
			f, _ = t.FieldByName(name)
			t = f.Type
		}
		var kind valueKind
		switch {
		case t == durationType:
			kind = kindDuration
		case t.Kind() == reflect.Int || t.Kind() == reflect.Int64:
			kind = kindInt
		case t.Kind() == reflect.Float64:
			kind = kindFloat
		default:
			continue
		}
		out["device."+jp] = axis{path: "device.overrides." + jp, kind: kind}
	}
	return out
}

// resolveAxis finds the field name addresses: a path of sweepFields, or
// the last element of exactly one of them (infer: costs.infer; layers:
// graph.params.layers), the shortest winning (infer: costs.infer over
// costs.by_op.MatMul.infer).
func resolveAxis(fields map[string]axis, name string) (axis, error) {
	if a, ok := fields[name]; ok {
		a.name = name
		return a, nil
	}
	var match []string
	for p := range fields {
		if strings.HasSuffix(p, "."+name) {
			match = append(match, p)
		}
	}
	slices.SortFunc(match, func(x, y string) int {
		if c := strings.Count(x, ".") - strings.Count(y, "."); c != 0 {
			return c
		}
		return strings.Compare(x, y)
	})
	if len(match) == 1 || len(match) > 1 && strings.Count(match[0], ".") < strings.Count(match[1], ".") {
		a := fields[match[0]]
		a.name = name
		return a, nil
	}
	if len(match) > 1 {
		return axis{}, fmt.Errorf("%q is ambiguous: %s", name, strings.Join(match, ", "))
	}
	var some []string
	profile := false
	for p, a := range fields {
		profile = profile || strings.HasPrefix(a.path, "device.overrides.")
		if !strings.HasPrefix(p, "device.") || strings.Count(p, ".") == 1 || p == "device.scale" {
			some = append(some, p)
		}
	}
	slices.Sort(some)
	if !profile {
		return axis{}, fmt.Errorf("no parameter %q (have %s)", name, strings.Join(some, ", "))
	}
	return axis{}, fmt.Errorf("no parameter %q (have %s, and device.FIELD for every field of pipebench profiles -dump swai)", name, strings.Join(some, ", "))
}

// sweepFlags are the sweep's command line.
type sweepFlags struct {
	scenario, file string
	quick          bool
	axes           []axis
	modes          string
	barriers       string
	reps           int
	dir            string
	quiet          bool
	// sf is the scenario, parsed and checked once: every point is derived
	// from it.
	sf *scenarioFile
	// base is the scenario file's text (a built-in's dump): what its
	// points vary.
	base []byte
	// variants are the rows of each point, by sweepResult.variant: one per
	// variant bench runs, in its order.
	variants []string
}

// maxSweepRuns bounds a sweep: its points (the product of the -vary axes'
// values) times the variants measured at each (modes × barriers…), each
// a row of sweep.csv. Each axis alone takes at most 1000 values.
const maxSweepRuns = 100_000

type varyFlag []string

func (v *varyFlag) String() string     { return strings.Join(*v, " ") }
func (v *varyFlag) Set(s string) error { *v = append(*v, s); return nil }

// sweepResult is one row of sweep.csv.
type sweepResult struct {
	point      []string // the axes' values, as text
	mode       string
	barrier    string
	makespan   int64
	speedup    float64
	efficiency float64
	predicted  int64   // 0: no prediction for the mode (replay, hetero)
	predEff    float64 // the predicted run's bound over its makespan
	bound      int64
	device     int64
	hostBound  int64 // max(busiest goroutine, host work / GOMAXPROCS)
}

var sweepColumns = []string{"mode", "barrier", "makespan_ns", "speedup_vs_kbk", "efficiency", "predicted_ns", "predicted_efficiency", "bound_ns", "device_busy_ns", "host_bound_ns"}

func runSweep(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	sw, err := parseSweep(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "pipebench sweep: %v\n", err)
		if errors.Is(err, errUsage) {
			return usageFailed(stderr, "pipebench sweep")
		}
		return 1
	}
	if err := sweep(ctx, sw, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "pipebench sweep: %v\n", err)
		if errors.Is(err, errUsage) {
			return usageFailed(stderr, "pipebench sweep")
		}
		return 1
	}
	return 0
}

func parseSweep(args []string, stderr io.Writer) (*sweepFlags, error) {
	fs := flag.NewFlagSet("pipebench sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sw := &sweepFlags{}
	var vary varyFlag
	fs.StringVar(&sw.scenario, "scenario", "", "the built-in scenario to sweep (pipebench scenarios lists them)")
	fs.StringVar(&sw.file, "scenario-file", "", "the scenario file to sweep instead of a built-in")
	fs.BoolVar(&sw.quick, "quick", false, "with -scenario: the built-in at its -quick size and repetitions")
	fs.Var(&vary, "vary", fmt.Sprintf("PATH=FROM..TO/N, PATH=FROM..TO/logN or PATH=V1,V2,…: a field of the dumped scenario (costs.infer, or infer for short; graph.params.layers; device.scale) or profile (device.launch.cpu_ns); repeat for a full factorial (N at most 1000; points × variants at most %d)", maxSweepRuns))
	fs.StringVar(&sw.modes, "mode", "", "comma-separated modes (default the scenario's); kbk always runs, the reference")
	fs.StringVar(&sw.barriers, "barrier", "", "comma-separated barrier policies (default the scenario's)")
	fs.IntVar(&sw.reps, "reps", 0, "measured repetitions per point and mode, at least 1 (default the scenario's)")
	fs.StringVar(&sw.dir, "o", "sweep", "directory of sweep.csv and the figures; a sweep.csv there is resumed by the same sweep (sweep.settings), refused otherwise")
	fs.BoolVar(&sw.quiet, "q", false, "print nothing on stderr but errors")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: pipebench sweep (-scenario NAME [-quick] | -scenario-file FILE) -vary PATH=SPEC… [flags]\n\n")
		fmt.Fprintf(stderr, "Measures the scenario at every point of the full factorial of the -vary axes in each mode,\n")
		fmt.Fprintf(stderr, "writes DIR/sweep.csv (a row per point, mode and policy) and plots speedup over kbk and\n")
		fmt.Fprintf(stderr, "efficiency against each varied field (DIR/speedup_*.svg, DIR/efficiency_*.svg).\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := parseFlagSet(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	var base []byte
	switch {
	case (sw.scenario == "") == (sw.file == ""):
		return nil, fmt.Errorf("%w: name the scenario: -scenario NAME or -scenario-file FILE", errUsage)
	case sw.file != "":
		if sw.quick {
			return nil, fmt.Errorf("%w: -quick goes with -scenario: a file sets its own size", errUsage)
		}
		var err error
		if base, err = os.ReadFile(sw.file); err != nil {
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
	default:
		sf, err := builtinFile(sw.scenario, sw.quick)
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		if err := dumpScenario(&b, sf, sw.quick); err != nil {
			return nil, err
		}
		base = b.Bytes()
	}
	name := sw.file
	if name == "" {
		// Lines are those of the built-in's dump: no file of that name.
		name = "scenario " + sw.scenario + " (pipebench scenarios -dump " + sw.scenario + ")"
	}
	var err error
	if sw.sf, err = parseScenarioFile(name, base); err != nil {
		return nil, err
	}
	sw.base = base
	if len(vary) == 0 {
		return nil, fmt.Errorf("%w: nothing to sweep: give at least one -vary PATH=SPEC", errUsage)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(base, &doc); err != nil {
		return nil, err
	}
	fields := sweepFields(&doc, !sw.sf.onPlatform())
	if sw.file != "" {
		// A field the file leaves out is still the scenario's: its value
		// is what pipebench runs without it (a cost, the scale, reps, a
		// built-in's size parameter), and a point can set it.
		var all yaml.Node
		if err := all.Encode(sw.sf); err != nil {
			return nil, err
		}
		for p, a := range sweepFields(&all, !sw.sf.onPlatform()) {
			if _, ok := fields[p]; !ok {
				fields[p] = a
			}
		}
		if sc := sw.sf.base; sc != nil && sc.Params != nil {
			ps, _ := sc.Params(scenarios.Config{})
			for _, p := range ps {
				if _, ok := fields["graph.params."+p.Name]; !ok {
					fields["graph.params."+p.Name] = axis{path: "graph.params." + p.Name, kind: kindInt}
				}
			}
		}
	}
	seen := map[string]bool{}
	for _, v := range vary {
		name, spec, ok := strings.Cut(v, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("%w: -vary %q: want PATH=SPEC", errUsage, v)
		}
		a, err := resolveAxis(fields, strings.TrimSpace(name))
		if err != nil {
			return nil, fmt.Errorf("%w: -vary %s: %v", errUsage, name, err)
		}
		if seen[a.path] {
			return nil, fmt.Errorf("%w: -vary %s: the field is varied twice", errUsage, name)
		}
		seen[a.path] = true
		if err := a.parseSpec(spec); err != nil {
			return nil, fmt.Errorf("%w: -vary %s: %v", errUsage, name, err)
		}
		sw.axes = append(sw.axes, a)
	}
	repsGiven := false
	fs.Visit(func(f *flag.Flag) { repsGiven = repsGiven || f.Name == "reps" })
	if sw.reps < 0 || repsGiven && sw.reps < 1 {
		return nil, fmt.Errorf("%w: -reps %d: want at least 1", errUsage, sw.reps)
	}
	// Every point must load: check the corners of the factorial now, so
	// that a bad value fails before anything runs.
	var first *config
	for _, idx := range [][]int{make([]int, len(sw.axes)), lastIndex(sw.axes)} {
		cfg, _, err := sw.pointConfig(sw.point(idx))
		if err != nil {
			return nil, err
		}
		if first == nil {
			first = cfg
		}
	}
	// The rows of a point: one per variant, named as the CSV names them
	// (each variant summarised as bench summarises it, of an empty
	// sample: only its names are used). The varied fields change no
	// variant: every point has these rows.
	for _, v := range variants(first, first.scenarios[0]) {
		r := sweepRow(nil, summarize("", v, []sample{{}}, 1, pipert.Costs{}), &prediction{}, 1)
		sw.variants = append(sw.variants, r.variant())
	}
	if err := sw.checkSize(); err != nil {
		return nil, err
	}
	return sw, nil
}

// checkSize refuses a sweep of more than maxSweepRuns points × variants,
// naming the count.
func (sw *sweepFlags) checkSize() error {
	points := 1.0 // a float: 1000 values on each of 7 axes overflow an int64
	var dims []string
	for _, a := range sw.axes {
		points *= float64(len(a.values))
		dims = append(dims, strconv.Itoa(len(a.values)))
	}
	if runs := points * float64(len(sw.variants)); runs > maxSweepRuns {
		return fmt.Errorf("%w: -vary: %s = %.0f points × %d variants = %.0f rows to measure, more than the %d a sweep takes: vary fewer values or fewer modes",
			errUsage, strings.Join(dims, " × "), points, len(sw.variants), runs, maxSweepRuns)
	}
	return nil
}

func lastIndex(axes []axis) []int {
	out := make([]int, len(axes))
	for i, a := range axes {
		out[i] = len(a.values) - 1
	}
	return out
}

// point returns the values at index idx of each axis.
func (sw *sweepFlags) point(idx []int) []float64 {
	out := make([]float64, len(idx))
	for i, j := range idx {
		out[i] = sw.axes[i].values[j]
	}
	return out
}

// pointConfig is the run of one point: the scenario with the point's
// values, as -scenario-file loads the file with them written into it (the
// file is not written nor parsed again: see scenarioFile.derive), the
// sweep's flags over it.
func (sw *sweepFlags) pointConfig(vals []float64) (*config, *scenarioFile, error) {
	var paths, texts []string
	for i, a := range sw.axes {
		paths, texts = append(paths, a.path), append(texts, a.yamlText(vals[i]))
	}
	sf, err := sw.sf.derive(paths, texts)
	if err != nil {
		return nil, nil, fmt.Errorf("at %s: %w", pointKey(sw.axes, vals), err)
	}
	args := []string{"-q"}
	set := map[string]bool{}
	for _, f := range []struct{ name, v string }{{"mode", sw.modes}, {"barrier", sw.barriers}} {
		if f.v != "" {
			args, set[f.name] = append(args, "-"+f.name, f.v), true
		}
	}
	if sw.reps > 0 {
		args, set["reps"] = append(args, "-reps", strconv.Itoa(sw.reps)), true
	}
	if sw.quick {
		args = append(args, "-quick")
	}
	cfg, err := parseFlags(args, io.Discard)
	if err != nil {
		return nil, nil, err
	}
	if err := applyScenarioFile(cfg, sf, set); err != nil {
		return nil, nil, err
	}
	return cfg, sf, nil
}

// sweep runs every point not yet in DIR/sweep.csv, then plots them all.
func sweep(ctx context.Context, sw *sweepFlags, stdout, stderr io.Writer) error {
	start := time.Now()
	if err := os.MkdirAll(sw.dir, 0o755); err != nil {
		return fmt.Errorf("%w: -o %s: %v", errUsage, sw.dir, err)
	}
	csvPath := filepath.Join(sw.dir, "sweep.csv")
	header := []string{}
	for _, a := range sw.axes {
		header = append(header, a.name)
	}
	header = append(header, sweepColumns...)
	had, err := readSweepCSV(csvPath, header, sw.axes)
	if err != nil {
		return err
	}
	settings, err := sw.settings()
	if err != nil {
		return err
	}
	if err := checkSweepSettings(sw.dir, settings, len(had.rows) > 0); err != nil {
		return err
	}
	prog := newProgress(stderr, sw.quiet)
	// Only now, the sweep being the same, may its file change: a point of
	// this sweep with some of its rows is measured again (its rows
	// dropped, so that they do not stand beside the new ones), and a last
	// line cut short is dropped.
	done, redo := had.resume(sw.variants, sw.inGrid)
	if had.cut || len(redo) > 0 {
		for _, p := range slices.Sorted(maps.Keys(redo)) {
			prog.note("sweep: %s: the point %s %s: measuring it again", csvPath, p, redo[p])
		}
		if err := had.rewrite(csvPath, redo); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(csvPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	if st, _ := f.Stat(); st.Size() == 0 {
		if _, err := f.WriteString(csvLine(header)); err != nil {
			return err
		}
	}
	total := 1
	for _, a := range sw.axes {
		total *= len(a.values)
	}
	// runTime sums every run's makespan (warm-ups and the traced runs of
	// the predictions included); the rest of the wall time is bookkeeping:
	// loading the points, compiling, devices, trace analysis, CSV, plots.
	var benchRun, predRun, benchTime, predTime, plotTime time.Duration
	pool := &devicePool{}
	defer pool.close()
	var workloads workloadCache
	// The points run with the device's fields varying slowest, so that
	// consecutive points share a profile and its devices.
	order := make([]int, len(sw.axes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		da, db := strings.HasPrefix(sw.axes[a].path, "device."), strings.HasPrefix(sw.axes[b].path, "device.")
		switch {
		case da && !db:
			return -1
		case db && !da:
			return 1
		}
		return 0
	})
	ran, skipped := 0, 0
	idx := make([]int, len(sw.axes))
	for n := range total {
		// idx counts in mixed radix, the last of order fastest.
		rem := n
		for k := len(order) - 1; k >= 0; k-- {
			i := order[k]
			idx[i] = rem % len(sw.axes[i].values)
			rem /= len(sw.axes[i].values)
		}
		vals := sw.point(idx)
		key := pointKey(sw.axes, vals)
		if done[key] {
			skipped++
			continue
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("interrupted after %d of %d points (%s keeps them: run the same sweep again to resume): %w", ran+skipped, total, csvPath, err)
		}
		cfg, sf, err := sw.pointConfig(vals)
		if err != nil {
			return err
		}
		workloads.share(&cfg.scenarios[0], sf.Graph.Params)
		cfg.noAllocs = true
		cfg.devices.pool = pool
		t0 := time.Now()
		rep, err := bench(ctx, cfg, zerolog.Nop(), io.Discard)
		benchTime += time.Since(t0)
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("interrupted after %d of %d points (%s keeps them: run the same sweep again to resume): %w", ran+skipped, total, csvPath, ctx.Err())
			}
			return fmt.Errorf("at %s: %w", key, err)
		}
		benchRun += rep.runTime
		t0 = time.Now()
		pred, pr, err := predictPoint(ctx, cfg)
		predTime += time.Since(t0)
		predRun += pr
		if err != nil {
			return fmt.Errorf("at %s: prediction: %w", key, err)
		}
		var text []string
		for i, a := range sw.axes {
			text = append(text, a.text(vals[i]))
		}
		var b strings.Builder
		for _, r := range rep.Results {
			b.WriteString(csvLine(sweepRow(text, r, pred, rep.Machine.GOMAXPROCS).record()))
		}
		if _, err := f.WriteString(b.String()); err != nil { // one write per point: a point is all there or absent
			return err
		}
		ran++
		prog.step("sweep", key, ran+skipped-1, total)
	}
	prog.clear()
	rows, err := readSweepRows(csvPath, len(sw.axes))
	if err != nil {
		return err
	}
	t0 := time.Now()
	figs, err := plotSweep(sw.dir, sw.axes, rows)
	if err != nil {
		return err
	}
	plotTime = time.Since(t0)
	wall := time.Since(start)
	fmt.Fprintf(stdout, "sweep: %d points (%d run, %d resumed from %s) × %d variants; figures %s\n",
		total, ran, skipped, csvPath, len(sw.variants), strings.Join(figs, ", "))
	if ran > 0 {
		runTime := benchRun + predRun
		book := wall - runTime
		ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
		fmt.Fprintf(stdout, "sweep time %v on %d cores: runs %v (every run's makespan, warm-ups and prediction runs included), bookkeeping %v = %.1f%% of the run time\n",
			ms(wall), runtime.GOMAXPROCS(0), ms(runTime), ms(book), 100*float64(book)/float64(max(runTime, 1)))
		fmt.Fprintf(stdout, "bookkeeping: compiling and devices %v, trace and prediction %v, plots %v, loading points and CSV %v\n",
			ms(benchTime-benchRun), ms(predTime-predRun), ms(plotTime),
			ms(wall-benchTime-predTime-plotTime))
	}
	return nil
}

func sweepRow(point []string, r result, pred *prediction, procs int) sweepResult {
	s := sweepResult{point: point, mode: variantMode(r), barrier: r.Barrier, makespan: r.MakespanNs, speedup: r.SpeedupVsKBK,
		efficiency: r.Efficiency, bound: r.BoundNs, device: r.DeviceBusyNs,
		hostBound: max(r.BusiestNs, r.HostWorkNs/int64(max(procs, 1)))}
	if r.Caches == "" && !r.Overlap && r.Schedule == "" {
		s.predicted, s.predEff = pred.makespan[r.Mode], pred.efficiency[r.Mode]
	}
	return s
}

// variantMode names a result's variant beyond its barrier: the mode, its
// caches, tiling copy and overlap when they are not the defaults.
func variantMode(r result) string {
	m := r.Mode
	if r.Schedule == "serial" {
		m += "+serial"
	}
	if r.Caches != "" {
		m += "+" + strings.ReplaceAll(r.Caches, ",", "+")
	}
	if r.TilingCopy != "" && r.TilingCopy != "with-kernel" {
		m += "+tiling=" + r.TilingCopy
	}
	if r.Overlap {
		m += "+overlap"
	}
	return m
}

func (s sweepResult) record() []string {
	pred, predEff := "", ""
	if s.predicted > 0 {
		pred, predEff = strconv.FormatInt(s.predicted, 10), strconv.FormatFloat(s.predEff, 'f', 4, 64)
	}
	barrier := s.barrier
	if barrier == "" {
		barrier = "-"
	}
	return append(slices.Clone(s.point), s.mode, barrier, strconv.FormatInt(s.makespan, 10),
		strconv.FormatFloat(s.speedup, 'f', 4, 64), strconv.FormatFloat(s.efficiency, 'f', 4, 64), pred, predEff,
		strconv.FormatInt(s.bound, 10), strconv.FormatInt(s.device, 10), strconv.FormatInt(s.hostBound, 10))
}

func csvLine(rec []string) string {
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Write(rec)
	w.Flush()
	return b.String()
}

func pointKey(axes []axis, vals []float64) string {
	var parts []string
	for i, a := range axes {
		parts = append(parts, a.name+"="+a.text(vals[i]))
	}
	return strings.Join(parts, " ")
}

// sweepSettingsFile, in a sweep's directory, records the settings its rows
// were measured with, so that a sweep resumes only the same sweep.
const sweepSettingsFile = "sweep.settings"

// sweepSetting is one line of sweep.settings: "key: value".
type sweepSetting struct{ key, value string }

// settings are what determines the sweep's rows besides the points' own
// values: the scenario's text (a built-in's dump, which holds its graph,
// costs, device, modes, barriers, reps and seed, at its -quick size or
// not) and what it reads beside it (the ONNX model, the device profile as
// resolved), the flags laid over it, the varied fields and the host's
// GOMAXPROCS (the runs' cores, and the host bound's). The scenario's name
// is recorded but not compared: the same text is the same scenario.
func (sw *sweepFlags) settings() ([]sweepSetting, error) {
	sum := func(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }
	name := "-scenario " + sw.scenario
	if sw.quick {
		name += " -quick"
	}
	if sw.file != "" {
		name = "-scenario-file " + sw.file
	}
	prof, err := json.Marshal(struct {
		Profile swai.Profile
		Zero    *device.Profile
	}{sw.sf.profile, sw.sf.zeroProfile})
	if err != nil {
		return nil, err
	}
	model := "-"
	if g := sw.sf.graph; g != nil && g.mf != nil {
		b, err := os.ReadFile(g.mf.path)
		if err != nil {
			return nil, err
		}
		model = sum(b)
	}
	orDefault := func(v string) string {
		if v == "" {
			return "(the scenario's)"
		}
		return v
	}
	reps := "(the scenario's)"
	if sw.reps > 0 {
		reps = strconv.Itoa(sw.reps)
	}
	var vary []string
	for _, a := range sw.axes {
		vary = append(vary, a.name+"="+a.path)
	}
	return []sweepSetting{
		{"scenario", name},
		{"scenario sha256", sum(sw.base)},
		{"model sha256", model},
		{"device sha256", sum(prof)},
		{"mode", orDefault(sw.modes)},
		{"barrier", orDefault(sw.barriers)},
		{"reps", reps},
		{"quick", strconv.FormatBool(sw.quick)},
		{"vary", strings.Join(vary, " ")},
		{"gomaxprocs", strconv.Itoa(runtime.GOMAXPROCS(0))},
	}, nil
}

// checkSweepSettings compares the settings with those dir's rows were
// measured with (resumed: it has rows), and records them when it has none.
// A directory of rows without settings (written by an older pipebench)
// cannot be checked and is refused.
func checkSweepSettings(dir string, settings []sweepSetting, resumed bool) error {
	path := filepath.Join(dir, sweepSettingsFile)
	csvPath := filepath.Join(dir, "sweep.csv")
	if !resumed {
		var b strings.Builder
		b.WriteString("# pipebench sweep: the settings the rows of sweep.csv were measured with; a sweep resumes\n# only with the same (the scenario's name aside)\n")
		for _, s := range settings {
			fmt.Fprintf(&b, "%s: %s\n", s.key, s.value)
		}
		return os.WriteFile(path, []byte(b.String()), 0o644)
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w: %s holds rows but %s has no %s (written by an older pipebench): the settings they were measured with are unknown, so they cannot be resumed; give another -o, or remove %s to measure them again",
			errUsage, csvPath, dir, sweepSettingsFile, dir)
	}
	if err != nil {
		return err
	}
	had := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ": "); ok && !strings.HasPrefix(line, "#") {
			had[k] = v
		}
	}
	var diff []string
	for _, s := range settings {
		if s.key == "scenario" {
			continue
		}
		if v, ok := had[s.key]; !ok || v != s.value {
			what := fmt.Sprintf("%s was %s, now %s", s.key, orMissing(v, ok), s.value)
			if strings.HasSuffix(s.key, " sha256") {
				what = strings.TrimSuffix(s.key, " sha256") + " differs"
				if s.key == "scenario sha256" {
					what = fmt.Sprintf("the scenario differs (it was %s, now %s)", orMissing(had["scenario"], true), settings[0].value)
				}
			}
			diff = append(diff, what)
		}
	}
	if len(diff) > 0 {
		return fmt.Errorf("%w: %s was measured with other settings than this sweep's (%s): its rows would stand for this sweep's; give another -o, or remove %s to measure again",
			errUsage, csvPath, strings.Join(diff, "; "), dir)
	}
	return nil
}

func orMissing(v string, ok bool) string {
	if !ok || v == "" {
		return "(none recorded)"
	}
	return v
}

// sweepCSV is what a sweep's CSV holds: its rows, each with its point, its
// variant and its place in the file.
type sweepCSV struct {
	data []byte // the file, but for a last line cut short
	cut  bool   // such a line was left out of data
	rows []sweepCSVRow
}

// sweepCSVRow is one row of a sweep's CSV.
type sweepCSVRow struct {
	point      string // pointKey of its values
	values     []string
	variant    string // sweepResult.variant
	start, end int64  // its bytes in data
}

// readSweepCSV reads the rows path already holds; a missing file holds
// none. A file of other columns is a usage error (another sweep's); a
// row that is not well-formed (a field count, a value of an axis or of a
// measurement that does not parse) is an error naming the file, its line
// and its column, before anything runs. A last line cut short by an
// interruption is left out (sweepCSV.cut), not an error; the file is not
// changed (sweepCSV.rewrite does it).
func readSweepCSV(path string, header []string, axes []axis) (*sweepCSV, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &sweepCSV{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := &sweepCSV{data: data}
	if i := bytes.LastIndexByte(data, '\n'); i+1 != len(data) {
		out.data, out.cut = data[:i+1], true
	}
	if len(out.data) == 0 {
		return out, nil
	}
	r := csv.NewReader(bytes.NewReader(out.data))
	r.FieldsPerRecord = len(header)
	got, err := r.Read()
	if err != nil && !errors.Is(err, csv.ErrFieldCount) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !slices.Equal(got, header) {
		return nil, fmt.Errorf("%w: %s has the columns %s, not this sweep's %s: give another -o", errUsage, path,
			strings.Join(got, ","), strings.Join(header, ","))
	}
	for {
		start := r.InputOffset()
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		for i, a := range axes {
			if _, err := a.parseValue(rec[i]); err != nil {
				line, _ := r.FieldPos(i)
				return nil, fmt.Errorf("%s: line %d, column %d (%s): %v", path, line, i+1, a.name, err)
			}
		}
		s, err := parseSweepRecord(rec, len(axes), r.FieldPos)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var key []string
		for i, a := range axes {
			key = append(key, a.name+"="+rec[i])
		}
		out.rows = append(out.rows, sweepCSVRow{point: strings.Join(key, " "), values: s.point, variant: s.variant(),
			start: start, end: r.InputOffset()})
	}
	return out, nil
}

// resume returns the points the file holds whole, a row for each of
// variants (no more, no fewer), and, by point, what each point of the
// sweep (inGrid) holding only some of them lacks: those are measured
// again.
func (c *sweepCSV) resume(variants []string, inGrid func(values []string) bool) (done map[string]bool, redo map[string]string) {
	byPoint := map[string][]string{}
	values := map[string][]string{}
	for _, r := range c.rows {
		byPoint[r.point] = append(byPoint[r.point], r.variant)
		values[r.point] = r.values
	}
	want := slices.Sorted(slices.Values(variants))
	done, redo = map[string]bool{}, map[string]string{}
	for p, got := range byPoint {
		slices.Sort(got)
		if slices.Equal(got, want) {
			done[p] = true
			continue
		}
		if !inGrid(values[p]) {
			continue // another sweep's point, of other values: kept as it is
		}
		var missing []string
		for _, v := range want {
			if i := slices.Index(got, v); i >= 0 {
				got = slices.Delete(got, i, i+1)
			} else {
				missing = append(missing, v)
			}
		}
		redo[p] = "lacks the rows of " + strings.Join(missing, ", ")
		if len(missing) == 0 {
			redo[p] = fmt.Sprintf("has %d rows for its %d variants", len(byPoint[p]), len(want))
		}
	}
	return done, redo
}

// rewrite writes c's file again without the rows of the points of redo
// (measured again: they must not stand beside the new rows) and without a
// last line cut short. The file is replaced whole (a new file renamed
// over it), so that an interruption leaves one or the other.
func (c *sweepCSV) rewrite(path string, redo map[string]string) error {
	var b bytes.Buffer
	at := int64(0)
	for _, r := range c.rows {
		if _, ok := redo[r.point]; ok {
			b.Write(c.data[at:r.start])
			at = r.end
		}
	}
	b.Write(c.data[at:])
	tmp, err := os.CreateTemp(filepath.Dir(path), ".sweep-*.csv")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(b.Bytes())
	if err := errors.Join(werr, tmp.Chmod(0o644), tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// inGrid reports whether values (an axis' value each, as the CSV holds
// them) are a point of the sweep.
func (sw *sweepFlags) inGrid(values []string) bool {
	if len(values) != len(sw.axes) {
		return false
	}
	for i, a := range sw.axes {
		if !slices.ContainsFunc(a.values, func(v float64) bool { return a.text(v) == values[i] }) {
			return false
		}
	}
	return true
}

// variant names the row's variant as its mode and barrier columns do:
// mode, or mode/barrier.
func (s sweepResult) variant() string {
	if s.barrier == "" {
		return s.mode
	}
	return s.mode + "/" + s.barrier
}

// parseSweepRecord reads a row of a sweep CSV of nAxes axes; an error
// names the line and the column of the bad field (pos is the reader's
// FieldPos).
func parseSweepRecord(rec []string, nAxes int, pos func(field int) (line, column int)) (sweepResult, error) {
	line, _ := pos(0)
	if len(rec) != nAxes+len(sweepColumns) {
		return sweepResult{}, fmt.Errorf("line %d has %d fields, want %d", line, len(rec), nAxes+len(sweepColumns))
	}
	m := rec[nAxes:]
	s := sweepResult{point: rec[:nAxes], mode: m[0], barrier: m[1]}
	if m[1] == "-" {
		s.barrier = ""
	}
	bad := func(j int, format string, a ...any) error {
		line, _ := pos(nAxes + j)
		return fmt.Errorf("line %d, column %d (%s): %s", line, nAxes+j+1, sweepColumns[j], fmt.Sprintf(format, a...))
	}
	// predicted_ns and predicted_efficiency are empty where the mode has
	// no prediction (replay, hetero); every other field is there.
	optional := func(j int) bool {
		return sweepColumns[j] == "predicted_ns" || sweepColumns[j] == "predicted_efficiency"
	}
	for j := range m {
		if m[j] == "" && !optional(j) {
			return sweepResult{}, bad(j, "empty")
		}
	}
	var err error
	pi := func(j int) int64 {
		if m[j] == "" || err != nil {
			return 0
		}
		v, perr := strconv.ParseInt(m[j], 10, 64)
		if perr != nil {
			err = bad(j, "%q is not an integer", m[j])
		}
		return v
	}
	pf := func(j int) float64 {
		if m[j] == "" || err != nil {
			return 0
		}
		v, perr := strconv.ParseFloat(m[j], 64)
		if perr != nil {
			err = bad(j, "%q is not a number", m[j])
		}
		return v
	}
	s.makespan, s.speedup, s.efficiency, s.predicted, s.predEff = pi(2), pf(3), pf(4), pi(5), pf(6)
	s.bound, s.device, s.hostBound = pi(7), pi(8), pi(9)
	if err != nil {
		return sweepResult{}, err
	}
	return s, nil
}

// readSweepRows reads every row of a sweep CSV of nAxes axes.
func readSweepRows(path string, nAxes int) ([]sweepResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	r.FieldsPerRecord = -1 // parseSweepRecord counts them, naming the line
	if _, err := r.Read(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []sweepResult
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		s, err := parseSweepRecord(rec, nAxes, r.FieldPos)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, s)
	}
}

// workloadCache keeps the workload last built: a sweep's points that vary
// neither a graph parameter nor the seed share their graph and inputs, and
// a point's prediction uses its bench's. A workload is only read by the
// runs: bench runs every variant of a point on one.
type workloadCache struct {
	key string
	w   *scenarios.Workload
}

// share makes sc build through the cache; params are the point's graph
// parameters, which sc's Build puts in the config it is given.
func (c *workloadCache) share(sc *scenarios.Scenario, params map[string]int64) {
	build := sc.Build
	sc.Build = func(cfg scenarios.Config) (*scenarios.Workload, error) {
		key := fmt.Sprint(cfg, params) // maps print sorted
		if c.w != nil && key == c.key {
			return c.w, nil
		}
		w, err := build(cfg)
		if err != nil {
			return nil, err
		}
		c.key, c.w = key, w
		return w, nil
	}
}

// prediction is a point's flow-shop prediction, by mode: the makespan,
// and the predicted run's bound over it.
type prediction struct {
	makespan   map[string]int64
	efficiency map[string]float64
}

// predictPoint runs KBK twice on the point, a warm-up and one traced run,
// and returns the flow-shop prediction of trace/analysis of the traced
// run for each mode it models (kbk, async, pipeline), as pipebench -trace
// prints.
func predictPoint(ctx context.Context, cfg *config) (pred *prediction, runTime time.Duration, err error) {
	sc := cfg.scenarios[0]
	w, err := sc.Build(scenarios.Config{Real: cfg.real, Quick: cfg.quick, Seed: cfg.seed, Size: cfg.size})
	if err != nil {
		return nil, 0, err
	}
	costs := sc.Costs
	if cfg.costs != nil {
		costs = *cfg.costs
	}
	// The traced run fits one chunk a track (the busiest, the runner's,
	// takes about 12 events of 24 bytes a kernel): smaller chunks than the
	// default 1 MiB (each allocated and cleared), no compression, and the
	// trace kept in memory.
	chunk := 16 << 10
	for chunk < 1<<20 && chunk < 512*len(w.Graph.Nodes) {
		chunk *= 2
	}
	var buf bytes.Buffer
	rec, err := trace.New(&buf, trace.Options{Format: trace.Perfetto, ChunkBytes: chunk, NoCompression: true})
	if err != nil {
		return nil, 0, err
	}
	defer rec.Close()
	name := sc.Name + " kbk"
	var dev device.Device
	if pool := cfg.devices.pool; pool != nil && sc.Profile == nil {
		d, release, err := pool.traced(cfg.devices.profile, devtrace.New(rec, name))
		if err != nil {
			return nil, 0, err
		}
		defer release()
		dev = d
	} else {
		if dev, err = cfg.devices.make(sc.Profile, devtrace.New(rec, name)); err != nil {
			return nil, 0, err
		}
		defer cfg.devices.close()
	}
	exe, err := compileVariant(w.Graph, variant{mode: pipert.KBK}, dev, costs, cfg, rec, name)
	if err != nil {
		return nil, 0, err
	}
	for i := range 2 {
		rec.SetEnabled(i == 1) // the warm-up is not traced
		s, _, err := exe.run(ctx, w.InputsOf(i))
		if err != nil {
			exe.close()
			return nil, 0, err
		}
		runTime += s.Makespan
	}
	if err := errors.Join(exe.close(), rec.Close()); err != nil {
		return nil, 0, err
	}
	p, err := trace.Parse(buf.Bytes())
	if err != nil {
		return nil, 0, err
	}
	sums, err := analyzeTrace(p, runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, 0, err
	}
	if len(sums) == 0 {
		return nil, 0, errors.New("the trace holds no actor")
	}
	steps := int64(max(sc.Steps, 1)) // a repetition's consecutive runs
	pred = &prediction{makespan: map[string]int64{}, efficiency: map[string]float64{}}
	for m, v := range sums[0].predicted {
		pred.makespan[m] = v * steps
		if v > 0 {
			pred.efficiency[m] = float64(sums[0].predictedBound[m]) / float64(v)
		}
	}
	return pred, runTime, nil
}
