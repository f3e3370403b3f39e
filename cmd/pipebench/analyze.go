package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pipert/pipert/trace"
	"github.com/pipert/pipert/trace/analysis"
)

// actorSummary is the analysis of one actor over its runs.
type actorSummary struct {
	name      string
	mode      string
	runs      int
	kernels   int // per run
	measured  int64
	predicted map[string]int64
	// unexplained are the medians of its runs' terms the prediction of
	// its own mode leaves out (unexplainedTerms).
	unexplained terms
	// predictedBound is, per mode, the bound of the predicted run: max of
	// its device time, busiest worker and host work over the cores (plus
	// the measured upload and download, as the prediction).
	predictedBound map[string]int64
	deviceUtil     float64
	bubbles        int   // median over its runs
	idle           int64 // the device's idle time in a run, median over its runs
	// idleBy is the device's idle time by the stage it waited on, summed
	// over the runs: the shares of idle.
	idleBy    map[string]int64
	path      analysis.Path
	latency   int64
	wake      int64 // its workers' wake-up (analysis.Machine.Wake)
	unmatched int
	shared    bool // no device of its own: see streamAnalyzer.sharedDevice
	// parts are its runs as a part of a heterogeneous executable would
	// be, for shareCores (recorded for every actor without a device of
	// its own); sharedPred is the median of their predictions with the
	// other parts of each run sharing the cores (0: none).
	parts      []partRun
	sharedPred int64
	// steps are its runs as a step submitted after others would be, for
	// overlapPrediction (recorded for every actor).
	steps []stepRun
}

// stepRun is what the composition of submitted steps needs of one run:
// its measured start; predicted in its own mode alone, the run's makespan
// (alone) and the time until its host launched its last kernel (host),
// each from the run's start (its inputs' upload included); the device's
// time for its kernels when they follow another step's
// (analysis.Prediction.DeviceSpan); and the time from its last kernel's
// end to the run's (after: the download of its outputs, as measured).
// end and launched are the run's measured end and its last launch's
// (math.MinInt64: none), for the hand-back (overlapPrediction).
type stepRun struct {
	start, alone, host, dev, after int64
	end, launched                  int64
}

// partRun is what the processor-sharing model needs of one run of a part
// of a heterogeneous executable: its measured start, the prediction of its
// own mode alone, and its host work without its barriers' (waits for other
// parts' tensors).
type partRun struct {
	start, alone, cpu int64
}

// partTrack reports whether a track name is "<executable> part N", a
// heterogeneous executable's track of its parts, and returns the
// executable's name.
func partTrack(name string) (string, bool) {
	exe, last, ok := cut(name)
	if !ok || last == "" || strings.Trim(last, "0123456789") != "" || !strings.HasSuffix(exe, " part") {
		return "", false
	}
	return strings.TrimSuffix(exe, " part"), true
}

// shareCores predicts each part of each heterogeneous executable named in
// exes with the cores shared among the parts of its run (analysis.Share):
// run k of every part actor of an executable ("<executable> <part>") is
// one job of the executable's run k, started when it was measured to
// start. It sets each part's sharedPred to the median over its runs.
func shareCores(sums []actorSummary, exes map[string]bool, cores int) {
	for exe := range exes {
		idx, n := partsOf(sums, exe)
		preds := make([][]int64, len(idx))
		for k := 0; k < n; k++ {
			jobs, ends, err := shareRun(sums, idx, k, cores)
			if err != nil {
				return // no cores known: no prediction
			}
			for j := range idx {
				preds[j] = append(preds[j], ends[j]-jobs[j].Start)
			}
		}
		for j, i := range idx {
			sums[i].sharedPred = median(preds[j])
		}
	}
}

// partsOf returns the summaries of the parts of heterogeneous executable
// exe and the runs all of them have.
func partsOf(sums []actorSummary, exe string) (idx []int, runs int) {
	runs = -1
	for i, s := range sums {
		if s.shared && strings.HasPrefix(s.name, exe+" ") && len(s.parts) > 0 {
			idx = append(idx, i)
			if runs < 0 || len(s.parts) < runs {
				runs = len(s.parts)
			}
		}
	}
	return idx, max(runs, 0)
}

// shareRun predicts run k of the parts idx with the cores shared
// (analysis.Share): each part's job and its predicted end.
func shareRun(sums []actorSummary, idx []int, k, cores int) ([]analysis.Job, []int64, error) {
	jobs := make([]analysis.Job, len(idx))
	for j, i := range idx {
		p := sums[i].parts[k]
		jobs[j] = analysis.Job{Start: p.start, Alone: p.alone}
		if p.alone > 0 {
			jobs[j].Demand = float64(p.cpu) / float64(p.alone)
		}
	}
	ends, err := analysis.Share(jobs, cores)
	return jobs, ends, err
}

// heteroPrediction predicts a run of heterogeneous executable exe: from
// its first part's measured start to the latest predicted end of its
// parts, the cores shared (the median over the runs; 0: none). The
// parts' starts are those measured, and the time before the first part
// and after the last (inputs in, outputs out) is not in the trace.
func heteroPrediction(sums []actorSummary, exe string, cores int) int64 {
	idx, n := partsOf(sums, exe)
	var spans []int64
	for k := 0; k < n; k++ {
		jobs, ends, err := shareRun(sums, idx, k, cores)
		if err != nil || len(jobs) == 0 {
			return 0
		}
		first, last := jobs[0].Start, ends[0]
		for j := range jobs {
			first, last = min(first, jobs[j].Start), max(last, ends[j])
		}
		spans = append(spans, last-first)
	}
	return median(spans)
}

// overlapLane is the suffix of the trace name of the second lane of an
// executable whose steps are submitted (pipert.Executable.Submit).
const overlapLane = " (lane 2)"

// overlapPrediction predicts a repetition of submitted steps of executable
// exe (its runs on both lanes, in order of start, steps to a repetition):
// Executable.Submit returns once a step's host launched its last kernel,
// and the next Submit starts then, but no sooner than the step before
// the last ended (pipebench waits for it, and its lane is needed again).
// The device runs the steps in order: a step's kernels end no sooner than
// alone, nor than its device span (analysis.Prediction.DeviceSpan) after
// the step before's kernels ended; then its outputs come back (as long as
// they took in the trace). Each step's own figures are its prediction
// alone (stepRun); the first step starts at its measured start. Between
// a step's last launch and the next Submit's start the runtime hands the
// submitter back its goroutine (waking it, on this kind of machine, when
// it parked): the model charges the median of that time as measured in
// the trace, over the steps whose next Submit waited for their host (its
// lane was free by then). The median over the repetitions; 0 when the
// runs do not make whole repetitions.
func overlapPrediction(sums []actorSummary, exe string, steps int) int64 {
	var runs []stepRun
	for _, s := range sums {
		if s.name == exe || s.name == exe+overlapLane {
			runs = append(runs, s.steps...)
		}
	}
	if steps < 1 || len(runs) == 0 || len(runs)%steps != 0 {
		return 0
	}
	slices.SortFunc(runs, func(a, b stepRun) int { return cmp.Compare(a.start, b.start) })
	var back []int64
	for rep := range slices.Chunk(runs, steps) {
		for j := 1; j < len(rep); j++ {
			prev := rep[j-1]
			if prev.launched == math.MinInt64 || j >= 2 && rep[j-2].end > prev.launched || rep[j].start < prev.launched {
				continue // no launch, or the lane held the next Submit back
			}
			back = append(back, rep[j].start-prev.launched)
		}
	}
	handback := median(back)
	var spans []int64
	for rep := range slices.Chunk(runs, steps) {
		spans = append(spans, composeSteps(rep, handback))
	}
	return median(spans)
}

// composeSteps is the makespan of consecutive submitted steps, each next
// Submit starting handback after its host is done (see overlapPrediction).
func composeSteps(rep []stepRun, handback int64) int64 {
	start := rep[0].start
	at := start                 // the next Submit's earliest start
	end, before := start, start // the last step's end, and the one's before it
	kernels := start            // the last step's kernels' end
	for _, r := range rep {
		s := max(at, before)
		kernels = max(s+r.alone-r.after, kernels+r.dev)
		at, before, end = s+r.host+handback, end, kernels+r.after
	}
	return end - start
}

var stageOf = map[string]analysis.Stage{
	"prepare": analysis.Prepare, "infer": analysis.Infer, "resize": analysis.Resize, "launch": analysis.Launch,
}

// cut splits "a b c" into "a b" and "c".
// planMode parses a plan.Plan's String ("pipeline/per-tensor 0123": the
// mode, the barrier policy, the goroutine of each stage).
func planMode(s string) (analysis.Mode, bool) {
	modeBarrier, workers, ok := strings.Cut(s, " ")
	mode, barrier, _ := strings.Cut(modeBarrier, "/")
	if !ok || mode == "" || len(workers) != analysis.NumStages {
		return analysis.Mode{}, false
	}
	m := analysis.Mode{Name: mode, Drain: barrier == "drain"}
	for i, c := range workers {
		if c < '0' || c > '9' {
			return analysis.Mode{}, false
		}
		m.Worker[i] = int(c - '0')
	}
	return m, true
}

func cut(s string) (string, string, bool) {
	i := strings.LastIndexByte(s, ' ')
	if i < 0 {
		return "", "", false
	}
	return s[:i], s[i+1:], true
}

func median(v []int64) int64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func writeAnalysis(w io.Writer, sums []actorSummary) {
	fmt.Fprintf(w, "\ntrace analysis (medians over runs, device util over all of them; predictions: the flow-shop model of\ntrace/analysis over the measured per-kernel stage costs, plus the run's measured upload and download time)\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "actor\tmode\truns\tkernels\tmeasured\tpredicted kbk\tasync\tpipeline\tpred/meas\tdevice util\tbubbles/run\tidle/run\t\n")
	shared, lane := false, false
	for _, s := range sums {
		own := s.predicted[s.mode]
		if s.sharedPred > 0 {
			own = s.sharedPred
		}
		ratio := 0.0
		if s.measured > 0 {
			ratio = float64(own) / float64(s.measured)
		}
		name := s.name
		switch {
		case s.shared && s.sharedPred == 0 && strings.HasSuffix(name, overlapLane):
			name, lane = name+" +", true
		case s.shared:
			name, shared = name+" *", true
		}
		if s.kernels == 0 {
			// No slice tied to a kernel (a graph of no kernels, or see
			// the warning): only the makespan is known, and a
			// prediction of no kernels is none.
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%v\t-\t-\t-\t-\t-\t-\t-\t\n", name, s.mode, s.runs, s.kernels, us(s.measured))
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%v\t%v\t%v\t%v\t%.2f\t%.2f\t%d\t%v\t\n", name, s.mode, s.runs, s.kernels,
			us(s.measured), us(s.predicted["kbk"]), us(s.predicted["async"]), us(s.predicted["pipeline"]), ratio,
			s.deviceUtil, s.bubbles, us(s.idle))
	}
	tw.Flush()
	if shared {
		fmt.Fprintf(w, "* shares its devices and the host cores with the other actors of its run (a part of a heterogeneous run):\n"+
			"  device util counts its own kernels; the predictions per mode assume the cores are its own, and\n"+
			"  pred/meas is of its own mode with the cores shared among the parts of each run as they were\n"+
			"  measured to start (processor sharing, trace/analysis.Share)\n")
	}
	if lane {
		fmt.Fprintf(w, "+ the second lane of submitted steps (Executable.Submit): it shares the device with the first, and\n"+
			"  its runs overlap the first lane's and wait for their device work, so a run alone is predicted\n"+
			"  shorter than measured; the overlap row's predicted_ns composes the steps of both lanes (whose\n"+
			"  launch latencies and device rates are those of the steps run one after another, when traced)\n")
	}
	for _, s := range sums {
		total := s.path.Total()
		if total == 0 {
			continue
		}
		fmt.Fprintf(w, "%s: critical path", s.name)
		for i, st := range []string{"prepare", "infer", "resize", "launch"} {
			fmt.Fprintf(w, " %s %.0f%%", st, 100*float64(s.path.Stage[i])/float64(total))
		}
		fmt.Fprintf(w, " device %.0f%% latency %.0f%%", 100*float64(s.path.Device)/float64(total), 100*float64(s.path.Latency)/float64(total))
		for _, part := range []struct {
			name string
			ns   int64
		}{{"hand-off", s.path.Handoff}, {"step", s.path.Step}, {"barrier", s.path.Barrier}} {
			if part.ns > 0 {
				fmt.Fprintf(w, " %s %.0f%%", part.name, 100*float64(part.ns)/float64(total))
			}
		}
		if s.idle > 0 {
			fmt.Fprintf(w, "; device idle %v a run, waiting on", us(s.idle))
			keys := make([]string, 0, len(s.idleBy))
			all := int64(0)
			for k, v := range s.idleBy {
				keys = append(keys, k)
				all += v
			}
			sort.Slice(keys, func(i, j int) bool { // by share, ties by name: the same order every time
				if a, b := s.idleBy[keys[i]], s.idleBy[keys[j]]; a != b {
					return a > b
				}
				return keys[i] < keys[j]
			})
			for _, k := range keys {
				fmt.Fprintf(w, " %s %.0f%%", k, 100*float64(s.idleBy[k])/float64(max(all, 1)))
			}
		}
		if s.wake > 0 {
			fmt.Fprintf(w, "; idle workers wake in %v", time.Duration(s.wake).Round(10*time.Nanosecond))
		}
		if s.unmatched > 0 {
			fmt.Fprintf(w, " (%d kernels without a device slice)", s.unmatched)
		}
		fmt.Fprintln(w)
	}
}

func us(ns int64) time.Duration { return time.Duration(ns).Round(time.Microsecond) }

// runAnalyze is "pipebench analyze TRACE".
func runAnalyze(ctx context.Context, args []string, stdout, stderr io.Writer, cores int) int {
	fs := flag.NewFlagSet("pipebench analyze", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: pipebench analyze TRACE\n\nAnalyses TRACE, a .pftrace or .json file written with pipebench -trace (or pipebench moe -trace).\n")
	}
	if code, ok := parseSub(fs, args, 1, stderr, "want one trace: pipebench analyze TRACE"); !ok {
		return code
	}
	path := fs.Arg(0)
	// A trace that is not there, or not a file, is the caller's mistake;
	// one that cannot be read through is the run's failure.
	if _, err := os.Stat(path); err != nil {
		fmt.Fprintf(stderr, "pipebench: analyze: trace: %v\n", err)
		return usageFailed(stderr, fs.Name())
	}
	sums, warns, err := analyzeFile(ctx, path, cores)
	if err != nil {
		fmt.Fprintf(stderr, "pipebench: analyze: %v\n", err)
		if errors.Is(err, errNotRegular) {
			return usageFailed(stderr, fs.Name())
		}
		return 1
	}
	for _, w := range warns {
		fmt.Fprintf(stderr, "pipebench: analyze: warning: %s\n", w)
	}
	if len(sums) == 0 {
		// A pipebench moe trace: modeled devices on a fabric, no actors.
		if p, err := trace.ReadFile(path); err == nil {
			if runs := fabricRuns(p); len(runs) > 0 {
				writeFabricRuns(stdout, runs)
				return 0
			}
		}
		fmt.Fprintf(stderr, "pipebench: analyze: %s holds no runs of pipert actors and no fabric runs of pipebench moe\n", path)
		return 1
	}
	writeAnalysis(stdout, sums)
	if len(warns) > 0 && strings.HasSuffix(warns[0], partialTrace) {
		// Numbers from part of a trace: a script must not take them for
		// the whole.
		fmt.Fprintf(stderr, "pipebench: analyze: %s could not be read to its end: the table covers the part before\n", path)
		return 1
	}
	if slices.ContainsFunc(warns, func(w string) bool { return strings.HasSuffix(w, damagedTrace) }) {
		fmt.Fprintf(stderr, "pipebench: analyze: %s contradicts itself (see the warnings): the table's figures are not to be trusted\n", path)
		return 1
	}
	return 0
}

// predictRows gives each row the prediction of its untraced makespan:
// a single actor's row its traced twin's prediction of its own mode, times
// the runs of a repetition; a heterogeneous row that of its parts sharing
// the cores (heteroPrediction); an overlap row that of its steps submitted
// one after another (overlapPrediction).
func predictRows(rep *report, sums []actorSummary, cores int) {
	by := map[string]actorSummary{}
	for _, s := range sums {
		by[s.name] = s
	}
	for i := range rep.series {
		ser := rep.series[i]
		if i >= len(rep.Results) {
			continue
		}
		if ser.v.overlap {
			if p := overlapPrediction(sums, ser.scenario+" "+ser.v.String(), max(rep.Results[i].Steps, 1)); p > 0 {
				rep.Results[i].PredictedNs = &p
			}
			continue
		}
		if ser.v.hetero {
			if p := heteroPrediction(sums, ser.scenario+" "+ser.v.String(), cores) * int64(max(rep.Results[i].Steps, 1)); p > 0 {
				rep.Results[i].PredictedNs = &p
			}
			continue
		}
		s, ok := by[ser.scenario+" "+ser.v.String()]
		if !ok || s.predicted[s.mode] == 0 {
			continue
		}
		p := s.predicted[s.mode] * int64(max(rep.Results[i].Steps, 1))
		rep.Results[i].PredictedNs = &p
		if name, v, ok := s.unexplained.largest(); ok {
			v *= int64(max(rep.Results[i].Steps, 1))
			rep.Results[i].Unexplained = &unexplainedTerm{Term: name, Ns: v}
		}
	}
}

// rowMode labels a result's mode as the results table does: with its
// schedule when serial, overlap and virtual operator, which tell apart the
// rows of one mode and barrier (mttorch's hetero rows).
func rowMode(r result) string {
	mode := r.Mode
	if r.Schedule == "serial" {
		mode += " (serial)"
	}
	if r.Overlap {
		mode += " (overlap)"
	}
	if r.Virtual != "" {
		mode += " (virtual " + r.Virtual + ")"
	}
	return mode
}

// writePredictionCheck compares each row's prediction with its untraced
// makespan.
func writePredictionCheck(w io.Writer, rep *report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "\nprediction vs untraced twin (medians)\n")
	fmt.Fprintf(tw, "scenario\tmode\tbarrier\tcaches\tpredicted\tmeasured\terror\tlargest unexplained term\t\n")
	for _, r := range rep.Results {
		if r.PredictedNs == nil || r.MakespanNs <= 0 {
			continue
		}
		caches := r.Caches
		if caches == "" {
			caches = "-"
		}
		mode := rowMode(r)
		term := "-"
		if r.Unexplained != nil {
			term = r.Unexplained.String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%v\t%v\t%+.1f%%\t%s\t\n", r.Scenario, mode, r.Barrier, caches, us(*r.PredictedNs), us(r.MakespanNs),
			100*(float64(*r.PredictedNs)/float64(r.MakespanNs)-1), term)
	}
	tw.Flush()
	fmt.Fprintf(w, "largest unexplained term: of the traced twin's runs, summed over a repetition's kernels (not all on\n"+
		"  the critical path): host gaps (operations ready but not begun, and time inside one outside its stages,\n"+
		"  beyond the model's waits for a core), device starts (beyond launch end + latency, signed) or barriers\n"+
		"  (beyond the model's barrier waits and costs)\n")
}
