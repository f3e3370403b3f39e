// Command pipebench runs pipert's built-in host-bound scenarios in each
// execution mode and reports makespan, device utilisation, the physical bound
// and the efficiency against it, and speedups over kernel-by-kernel.
//
// Usage:
//
//	pipebench [flags]
//
// Repetitions are interleaved across modes (A B C A B C …) and medians are
// reported, so that every ratio in one run compares like with like on a
// noisy machine. See -h for the flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"
)

func main() {
	// An interrupt, a termination (timeout, kill) or a hang-up stops the
	// run as Ctrl-C does: what was measured is kept, temporary files go.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// errUsage marks errors that are the caller's: exit code 2.
var errUsage = errors.New("usage")

// run is main without the process: it parses args, runs, and returns the
// exit code (0 ok, 1 failure, 2 usage).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	// The results go to stdout: a run whose results were lost (a full
	// disk, a closed pipe) fails.
	out := &stickyWriter{w: stdout}
	stdout = out
	defer func() {
		if out.err != nil && code == 0 {
			fmt.Fprintf(stderr, "pipebench: writing the results: %v\n", out.err)
			code = 1
		}
	}()
	if len(args) > 0 {
		switch args[0] {
		case "analyze":
			return runAnalyze(ctx, args[1:], stdout, stderr, runtime.GOMAXPROCS(0))
		case "device":
			return runDevice(ctx, args[1:], stdout, stderr)
		case "soak":
			return runSoak(ctx, args[1:], stdout, stderr)
		case "moe":
			return runMoE(ctx, args[1:], stdout, stderr)
		case "scenarios":
			return runScenarios(args[1:], stdout, stderr)
		case "profiles":
			return runProfiles(args[1:], stdout, stderr)
		case "sweep":
			return runSweep(ctx, args[1:], stdout, stderr)
		case "report":
			return runReport(args[1:], stdout, stderr)
		}
	}
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "pipebench: %v\n", err)
		if errors.Is(err, errUsage) {
			return usageFailed(stderr, "pipebench")
		}
		return 1
	}
	level := zerolog.WarnLevel
	if cfg.verbose {
		level = zerolog.DebugLevel
	}
	log := zerolog.New(zerolog.ConsoleWriter{Out: stderr, NoColor: true, TimeFormat: time.TimeOnly}).Level(level).With().Timestamp().Logger()
	if cfg.cpuprof != "" {
		stopProfile, err := startCPUProfile(cfg.cpuprof)
		if err != nil {
			fmt.Fprintf(stderr, "pipebench: -cpuprofile: %v\n", err)
			return 1
		}
		defer func() {
			if err := stopProfile(); err != nil {
				fmt.Fprintf(stderr, "pipebench: -cpuprofile: %v\n", err)
				if code == 0 {
					code = 1
				}
			}
		}()
	}
	goldenOK := true
	if cfg.model != nil && cfg.model.golden != "" {
		if goldenOK, err = checkGolden(ctx, cfg, stdout); err != nil {
			fmt.Fprintf(stderr, "pipebench: %v\n", err)
			return 1
		}
	}
	rep, err := bench(ctx, cfg, log, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "pipebench: %v\n", err)
		if errors.Is(err, errUsage) {
			return usageFailed(stderr, "pipebench")
		}
		if rep != nil {
			writeIncomplete(ctx, cfg, rep, stdout, stderr)
		}
		return 1
	}
	writeTable(stdout, rep)
	if st, err := os.Stat(cfg.tracePath); cfg.tracePath != "" && cfg.analyze && err == nil && !st.Mode().IsRegular() {
		// A pipe or device: the trace went by, it cannot be read back.
		fmt.Fprintf(stderr, "pipebench: trace %s is not a regular file: not analysed (pipebench analyze reads a saved trace)\n", cfg.tracePath)
	} else if cfg.tracePath != "" && cfg.analyze {
		sums, warns, err := analyzeFile(ctx, cfg.tracePath, runtime.GOMAXPROCS(0))
		if err == nil && len(warns) > 0 { // a trace pipert wrote must be sound
			err = errors.New(strings.Join(warns, "; "))
		}
		if err != nil {
			fmt.Fprintf(stderr, "pipebench: trace %s: %v\n", cfg.tracePath, err)
			// The measurement stands: its files are written, without
			// predictions.
			writeResultFiles(cfg, rep, stderr)
			return 1
		}
		writeAnalysis(stdout, sums)
		predictRows(rep, sums, runtime.GOMAXPROCS(0))
		writePredictionCheck(stdout, rep)
	}
	if cfg.tracePath != "" {
		size := ""
		if st, err := os.Stat(cfg.tracePath); err == nil {
			size = fmt.Sprintf(", %.1f MB", float64(st.Size())/1e6)
		}
		fmt.Fprintf(stdout, "trace written to %s (%d traced kernels%s): open it at https://ui.perfetto.dev\n", cfg.tracePath, rep.tracedKernels, size)
	}
	if cfg.benchfmt != "" {
		if err := writeBenchfmt(cfg.benchfmt, rep); err != nil {
			fmt.Fprintf(stderr, "pipebench: %v\n", err)
			return 1
		}
	}
	if cfg.jsonPath != "" {
		if err := writeJSON(cfg.jsonPath, rep); err != nil {
			fmt.Fprintf(stderr, "pipebench: %v\n", err)
			return 1
		}
		log.Info().Str("file", cfg.jsonPath).Msg("wrote JSON results")
	}
	if cfg.check {
		bad := 0
		for _, r := range rep.Results {
			if r.Efficiency > 1+checkSlack {
				bad++
				fmt.Fprintf(stderr, "pipebench: -check: %s %s efficiency %.4f exceeds 1 by more than %.1f%%: the bound is not a bound\n",
					r.Scenario, variantName(r), r.Efficiency, 100*checkSlack)
			}
		}
		if bad > 0 {
			return 1
		}
		fmt.Fprintf(stdout, "check: every row's efficiency is at most %.3f\n", 1+checkSlack)
	}
	if !goldenOK {
		fmt.Fprintf(stderr, "pipebench: the model does not match %s (lines marked MISMATCH above)\n", cfg.model.golden)
		return 1
	}
	return 0
}

// writeResultFiles writes -benchfmt and -json, saying what fails; it
// returns the files written.
func writeResultFiles(cfg *config, rep *report, stderr io.Writer) []string {
	var files []string
	if cfg.benchfmt != "" {
		if err := writeBenchfmt(cfg.benchfmt, rep); err != nil {
			fmt.Fprintf(stderr, "pipebench: %v\n", err)
		} else {
			files = append(files, cfg.benchfmt)
		}
	}
	if cfg.jsonPath != "" {
		if err := writeJSON(cfg.jsonPath, rep); err != nil {
			fmt.Fprintf(stderr, "pipebench: %v\n", err)
		} else {
			files = append(files, cfg.jsonPath)
		}
	}
	return files
}

// writeIncomplete writes what a run that stopped early measured: the
// table, -benchfmt and -json (marked incomplete) of the variants it
// finished, and says so. The trace holds what was recorded; it is not
// analysed.
func writeIncomplete(ctx context.Context, cfg *config, rep *report, stdout, stderr io.Writer) {
	writeTable(stdout, rep)
	files := writeResultFiles(cfg, rep, stderr)
	if cfg.jsonPath != "" && slices.Contains(files, cfg.jsonPath) {
		files[len(files)-1] += ` ("incomplete" says why)`
	}
	why := "the run failed"
	if ctx.Err() != nil {
		why = "interrupted"
	}
	where := "the table above holds"
	if len(files) > 0 {
		where = "the table above and " + strings.Join(files, " and ") + " hold"
	}
	fmt.Fprintf(stderr, "pipebench: %s: %s the %d rows measured before\n", why, where, len(rep.Results))
}

// stickyWriter is a writer that remembers its first error and writes
// nothing after it.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	if err != nil {
		s.err = err
	}
	return n, err
}

// splitList splits a comma-separated flag value, dropping empty items and
// repeated ones (a scenario, mode or policy named twice runs once).
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// emptyItem returns the position (from 1) of the first empty item of the
// comma-separated list s, 0 when it has none ("kbk,,pipeline" has one).
func emptyItem(s string) int {
	for i, f := range strings.Split(s, ",") {
		if strings.TrimSpace(f) == "" {
			return i + 1
		}
	}
	return 0
}

// startCPUProfile starts the CPU profile of -cpuprofile into path; stop
// ends it and returns the first error of its writes or of closing the
// file (pprof itself drops them).
func startCPUProfile(path string) (stop func() error, err error) {
	o, err := createOutput(path)
	if err != nil {
		return nil, err
	}
	stopw, err := startCPUProfileTo(o)
	if err != nil {
		o.finish(err)
		return nil, err
	}
	return func() error { return o.finish(stopw()) }, nil
}

// startCPUProfileTo starts a CPU profile into w; stop ends it and returns
// the first error of its writes to w.
func startCPUProfileTo(w io.Writer) (stop func() error, err error) {
	ew := &firstErrWriter{w: w}
	if err := pprof.StartCPUProfile(ew); err != nil {
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		return ew.err
	}, nil
}

// firstErrWriter keeps the first error of w's writes.
type firstErrWriter struct {
	w   io.Writer
	err error
}

func (e *firstErrWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	if err != nil {
		e.err = err
	}
	return n, err
}
