package main

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pipert/pipert/trace"
)

// shiftParsed returns a copy of p with every event moved by d ns.
func shiftParsed(p *trace.Parsed, d int64) *trace.Parsed {
	q := *p
	q.Events = append([]trace.Event(nil), p.Events...)
	for i := range q.Events {
		q.Events[i].TS += d
	}
	return &q
}

// TestAnalysisShiftInvariant: moving every timestamp of a trace by the same
// amount (here 2 s back, to negative times) changes no figure of the
// analysis: only the runs' absolute starts move. The analysis once took
// the zero value as a time floor (the last device end before the first
// kernel, the end of a run's kernel stream, a stage's last end), so traces
// at negative times were predicted differently.
func TestAnalysisShiftInvariant(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dyn.json")
	if code, _, stderr := runArgs(t, "-real", "-reps", "1", "-scenario", "dynshape", "-mode", "kbk,async,pipeline", "-analyze=false", "-trace", path, "-q"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	p, err := trace.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const d = -2_000_000_000
	want, err := analyzeTrace(p, 2)
	if err != nil || len(want) == 0 {
		t.Fatalf("analysis: %v, %d actors", err, len(want))
	}
	for _, shift := range []int64{d, -d / 2} {
		got, err := analyzeTrace(shiftParsed(p, shift), 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("shift %d: %d actors, want %d", shift, len(got), len(want))
		}
		for i := range got {
			for j := range got[i].parts {
				got[i].parts[j].start -= shift
			}
			for j := range got[i].steps {
				st := &got[i].steps[j]
				st.start -= shift
				st.end -= shift
				if st.launched != math.MinInt64 {
					st.launched -= shift
				}
			}
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("shift %d: actor %s:\n shifted %+v\n original %+v", shift, want[i].name, got[i], want[i])
			}
		}
		var a, b bytes.Buffer
		writeAnalysis(&a, got)
		writeAnalysis(&b, want)
		if a.String() != b.String() {
			t.Errorf("shift %d: analysis\n%s\nwant\n%s", shift, a.String(), b.String())
		}
	}
}

// idleRunsTrace is a KBK actor's three runs of one kernel each: prepare
// 0–1 and launch 1–2 µs after the run's start, the device 1 µs from X+1,
// the run ending 1 µs after: X+1 of device idle (from the prepare's start)
// in a run of X+3 (X = 4, 4, 90).
func idleRunsTrace() string {
	var b bytes.Buffer
	b.WriteString(`[
{"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"x runner"}},
{"ph":"M","pid":1,"tid":3,"name":"thread_name","args":{"name":"x stream 0"}},
{"ph":"M","pid":1,"tid":4,"name":"thread_name","args":{"name":"pipebench machine"}},
{"ph":"i","pid":1,"tid":4,"ts":0,"name":"gomaxprocs 2"},
{"ph":"i","pid":1,"tid":4,"ts":0,"name":"calibration handoff=0 spin=0 trace=0"},
{"ph":"i","pid":1,"tid":1,"ts":0,"name":"plan kbk/per-tensor 0000"}`)
	at := 0
	var dev strings.Builder
	for i, x := range []int{4, 4, 90} {
		fmt.Fprintf(&b, `,
{"ph":"B","pid":1,"tid":1,"ts":%d,"name":"run"},
{"ph":"X","pid":1,"tid":1,"ts":%[1]d,"dur":1,"name":"Add prepare"},{"ph":"s","pid":1,"tid":1,"ts":%[1]d,"id":%[2]d},
{"ph":"X","pid":1,"tid":1,"ts":%d,"dur":1,"name":"Add launch"},{"ph":"t","pid":1,"tid":1,"ts":%[3]d,"id":%[2]d},
{"ph":"E","pid":1,"tid":1,"ts":%[4]d}`, at, i+1, at+1, at+x+3)
		fmt.Fprintf(&dev, `,
{"ph":"X","pid":1,"tid":3,"ts":%d,"dur":1,"name":"Add"},{"ph":"f","pid":1,"tid":3,"ts":%[1]d,"id":%d}`, at+x+1, i+1)
		at += x + 10
	}
	b.WriteString(dev.String())
	b.WriteString("\n]")
	return b.String()
}

// TestAnalysisIdleIsMedian: the device's idle time a run and its bubbles
// are medians over the runs, as the header says, and so within the median
// run's span: one long run (91 µs idle) does not lift them (the mean, 34
// µs, exceeded the measured 7 µs).
func TestAnalysisIdleIsMedian(t *testing.T) {
	s := analyzeOne(t, idleRunsTrace())
	if s.runs != 3 || s.measured != 7000 {
		t.Fatalf("summary %+v: want 3 runs, 7 µs measured", s)
	}
	if s.idle != 5000 || s.bubbles != 1 {
		t.Errorf("idle %d ns in %d bubbles a run, want the median 5000 in 1", s.idle, s.bubbles)
	}
	if s.idle > s.measured {
		t.Errorf("idle %d a run exceeds the measured %d", s.idle, s.measured)
	}
	var out bytes.Buffer
	writeAnalysis(&out, []actorSummary{s})
	if !strings.Contains(out.String(), "waiting on runner 100%") {
		t.Errorf("analysis:\n%s", out.String())
	}
}
