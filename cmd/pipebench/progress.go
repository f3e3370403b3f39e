package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progress reports a long run on stderr: on a terminal, one line rewritten
// in place (scenario, variant, repetition, ETA); piped, nothing but the
// final summary; with -q, nothing at all.
type progress struct {
	w           io.Writer
	tty, quiet  bool
	start, last time.Time
	done, total int // repetitions of every variant
	drawn       bool
}

func newProgress(w io.Writer, quiet bool) *progress {
	p := &progress{w: w, quiet: quiet, start: time.Now()}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

// step counts one repetition of one variant and redraws the line at most
// ten times a second.
func (p *progress) step(scenario, variant string, rep, reps int) {
	p.done++
	if p.quiet || !p.tty || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	eta := "?"
	if p.done > 0 && p.total > p.done {
		el := time.Since(p.start)
		eta = (el * time.Duration(p.total-p.done) / time.Duration(p.done)).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "\r\033[Kpipebench: %s %s rep %d/%d, ETA %s", scenario, variant, rep+1, reps, eta)
	p.drawn = true
}

// note prints a line of its own (on a terminal, or piped unless -q).
func (p *progress) note(format string, args ...any) {
	if p.quiet {
		return
	}
	p.clear()
	fmt.Fprintf(p.w, "pipebench: "+format+"\n", args...)
}

func (p *progress) clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}

// finish prints the summary line.
func (p *progress) finish(scenarios, variants int) {
	p.clear()
	if !p.quiet {
		fmt.Fprintf(p.w, "pipebench: %d scenarios, %d variants, %d repetitions (warm-ups included) in %v\n", scenarios, variants, p.done, time.Since(p.start).Round(100*time.Millisecond))
	}
}
