package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAnalyzeWarnsDamagedTraces: a trace whose slices cannot be tied to
// kernels (its flow events removed), one whose KBK actor lost its runner
// track's name (only its device track is left), one at absurd times and
// two whose slices end before they begin are analysed as far as possible
// with a warning naming what is missing or wrong (the last two, whose
// time contradicts itself, exit 1), no prediction of zero kernels is
// printed as a figure, and no figure is negative.
func TestAnalyzeWarnsDamagedTraces(t *testing.T) {
	good := idleRunsTrace()
	dir := t.TempDir()
	flows := regexp.MustCompile(`,\{"ph":"[stf]",[^}]*\}`)
	huge := regexp.MustCompile(`"ts":(\d+)`)
	for _, c := range []struct {
		name, body string
		code       int
		warn       []string
		out        []string
	}{
		{"noflow.json", flows.ReplaceAllString(good, ""), 0,
			[]string{`actor "x": 3 of 3 runs have no slice tied to a kernel`},
			[]string{"x kbk 3 0 7µs - - - - - - -"}},
		{"norunnername.json", strings.Replace(good, `{"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"x runner"}},`, "", 1), 1,
			[]string{`3 device slices on "x" belong to no actor's kernel`}, nil},
		{"hugets.json", huge.ReplaceAllString(good, `"ts":${1}e16`), 0,
			[]string{"events at absurd times"}, nil},
		{"negdur.json", strings.Replace(good, `"dur":1,"name":"Add prepare"`, `"dur":-3,"name":"Add prepare"`, 1), 1,
			[]string{"1 slices ending before they begin", "(a damaged trace)"}, nil},
		{"endfirst.json", strings.Replace(good, `{"ph":"E","pid":1,"tid":1,"ts":7}`, `{"ph":"E","pid":1,"tid":1,"ts":-20}`, 1), 1,
			[]string{"slices ending before they begin", "timestamps going backwards"}, nil},
	} {
		if c.name == "norunnername.json" {
			// Another actor, intact, so that the trace is not merely empty.
			c.body = strings.Replace(c.body, `{"ph":"M","pid":1,"tid":3,`, `{"ph":"M","pid":1,"tid":9,"name":"thread_name","args":{"name":"y runner"}},{"ph":"M","pid":1,"tid":3,`, 1)
		}
		if c.body == good {
			t.Fatalf("%s: the trace was not altered", c.name)
		}
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runArgs(t, "analyze", p)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d\n%s%s", c.name, code, c.code, stdout, stderr)
		}
		for _, w := range c.warn {
			if !strings.Contains(stderr, "warning: ") || !strings.Contains(stderr, w) {
				t.Errorf("%s: no warning %q:\n%s", c.name, w, stderr)
			}
		}
		fields := strings.Join(strings.Fields(stdout), " ")
		for _, o := range c.out {
			if !strings.Contains(fields, o) {
				t.Errorf("%s: no %q in\n%s", c.name, o, stdout)
			}
		}
		if regexp.MustCompile(`\s-\d`).MatchString(stdout) {
			t.Errorf("%s: a negative figure:\n%s", c.name, stdout)
		}
		if strings.Contains(stdout, "0.00") && c.name == "noflow.json" {
			t.Errorf("%s: a figure of zero kernels:\n%s", c.name, stdout)
		}
	}
}

// TestPredictionCheckLabelsRows: the rows of one mode and barrier that
// differ by schedule, virtual operator or overlap (mttorch's hetero rows)
// keep their distinguishing labels in the prediction check, as in the
// results table.
func TestPredictionCheckLabelsRows(t *testing.T) {
	p := int64(1000)
	rep := &report{}
	for _, r := range []result{
		{Mode: "hetero", Schedule: "concurrent"},
		{Mode: "hetero", Schedule: "serial"},
		{Mode: "hetero", Schedule: "concurrent", Virtual: "Gather"},
		{Mode: "hetero", Schedule: "concurrent", Virtual: "ArgMax"},
		{Mode: "pipeline", Overlap: true},
	} {
		r.Scenario, r.Barrier, r.MakespanNs, r.PredictedNs = "mttorch", "per-tensor", 1000, &p
		rep.Results = append(rep.Results, r)
	}
	var b strings.Builder
	writePredictionCheck(&b, rep)
	for _, want := range []string{"hetero  per-tensor", "hetero (serial)  per-tensor", "hetero (virtual Gather)  per-tensor",
		"hetero (virtual ArgMax)  per-tensor", "pipeline (overlap)  per-tensor"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no row %q in\n%s", want, b.String())
		}
	}
}
