package main

import (
	"errors"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pipert/pipert"
)

// TestListFlagsRunEachItemOnce: a scenario, mode, barrier policy or
// tiling-copy strategy named twice runs once, not as duplicate rows.
func TestListFlagsRunEachItemOnce(t *testing.T) {
	c, err := parseFlags([]string{"-quick", "-scenario", "zerocost,zerocost", "-mode", "pipeline,pipeline,kbk",
		"-barrier", "drain, drain", "-tiling-copy", "whole,whole"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.scenarios) != 1 || len(c.modes) != 2 || len(c.policies) != 1 || len(c.tilingCopies) != 1 {
		t.Errorf("scenarios %d, modes %v, policies %v, tiling copies %v: want 1, [kbk pipeline], 1, 1",
			len(c.scenarios), c.modes, c.policies, c.tilingCopies)
	}
}

// TestFlagsThatDoNothingAreSaid: -tol without -golden and -analyze
// without -trace are said to do nothing (and -q silences it).
func TestFlagsThatDoNothingAreSaid(t *testing.T) {
	base := []string{"-scenario", "zerocost", "-quick", "-reps", "1", "-mode", "kbk"}
	for flag, want := range map[string]string{"-tol=1e-3": "-tol does nothing without -golden", "-analyze=false": "-analyze does nothing without -trace"} {
		code, _, errb := runArgs(t, append(base, flag)...)
		if code != 0 || !strings.Contains(errb, want) {
			t.Errorf("%s: exit %d, stderr %q; want 0 and %q", flag, code, errb, want)
		}
		if _, _, errb := runArgs(t, append(base, flag, "-q")...); strings.Contains(errb, want) {
			t.Errorf("%s -q: %q printed", flag, want)
		}
	}
}

// TestParseOutputs: -outputs splits on commas, trims spaces, and takes a
// comma or backslash escaped by a backslash as part of a name.
func TestParseOutputs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		err  string
	}{
		{in: "a,b", want: []string{"a", "b"}},
		{in: " a , b ", want: []string{"a", "b"}},
		{in: `{"1": "1_minute_timer"\, "2": "x"}`, want: []string{`{"1": "1_minute_timer", "2": "x"}`}},
		{in: `a\\,b`, want: []string{`a\`, "b"}},
		{in: `a\b`, want: []string{`a\b`}},
		{in: "", err: "names no tensor"},
		{in: "a,", err: "item 2 is empty"},
		{in: "a,a", err: `names "a" twice`},
	} {
		got, err := parseOutputs(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: %v, want an error saying %s", c.in, err, c.err)
		case c.err == "" && (err != nil || !slices.Equal(got, c.want)):
			t.Errorf("%q: %q, %v, want %q", c.in, got, err, c.want)
		}
	}
}

// TestParseInputs: -input names may hold '=' and escaped commas (the
// value starts after the last '='); a name given twice is an error.
func TestParseInputs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want map[string][]int64
		err  string
	}{
		{in: "x=1x3, y = 2", want: map[string][]int64{"x": {1, 3}, "y": {2}}},
		{in: `a\,b=4,c=scalar`, want: map[string][]int64{"a,b": {4}, "c": nil}},
		{in: "k=v=2x2", want: map[string][]int64{"k=v": {2, 2}}},
		{in: "x=1,x=1", err: `"x" given twice`},
		{in: "x", err: "want name=D1xD2"},
		{in: "=3", err: "want name=D1xD2"},
		{in: "x=1xq", err: `dimension "q"`},
	} {
		got, err := parseInputs(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: %v, want an error saying %s", c.in, err, c.err)
		case c.err == "" && (err != nil || !maps.EqualFunc(got, c.want, slices.Equal)):
			t.Errorf("%q: %v, %v, want %v", c.in, got, err, c.want)
		}
	}
}

// TestCostFlagsOverScenario: a cost flag replaces that stage's cost of
// each scenario and leaves the scenario's others (a zero-cost scenario
// stays free but for it); a tiling cost above the resulting Resize cost
// is a usage error.
func TestCostFlagsOverScenario(t *testing.T) {
	cfg, err := parseFlags([]string{"-scenario", "zerocost", "-prepare", "3us"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	got, err := cfg.setCosts.over(pipert.Costs{})
	if err != nil || got != (pipert.Costs{Prepare: 3 * time.Microsecond}) {
		t.Fatalf("-prepare 3us over zero costs: %+v, %v", got, err)
	}
	// Checked against each scenario before anything runs: decode's
	// Resize is 6 µs.
	if _, err := parseFlags([]string{"-scenario", "decode", "-tiling", "7us"}, io.Discard); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "scenario decode: the tiling cost 7µs (-tiling) exceeds the resize cost 6µs (the scenario's)") {
		t.Fatalf("-tiling 7us over decode's 6µs Resize: %v, want a usage error naming both", err)
	}
	if _, err := parseFlags([]string{"-tiling", "7us", "-resize", "6us"}, io.Discard); !errors.Is(err, errUsage) {
		t.Fatalf("-tiling 7us -resize 6us: %v, want a usage error", err)
	}
}

// TestIdleFlagsAreSaid: flags the run would ignore are said to do
// nothing, and flags that act are not.
func TestIdleFlagsAreSaid(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // "" : nothing said
	}{
		{[]string{"-mode", "kbk", "-queue-capacity", "4"}, "-queue-capacity does nothing when only kbk runs"},
		{[]string{"-mode", "kbk", "-barrier", "drain"}, "-barrier does nothing when only kbk runs"},
		{[]string{"-mode", "pipeline", "-queue-capacity", "4"}, ""},
		{[]string{"-tiling-blocks", "8"}, "-tiling-blocks does nothing without -tiling-copy multi-stream"},
		{[]string{"-tiling-blocks", "8", "-tiling-copy", "multi-stream"}, ""},
		{[]string{"-cache", "local", "-cache-global", "3"}, "-cache-global does nothing without its cache"},
		{[]string{"-cache", "local", "-cache-local", "3"}, ""},
		{[]string{"-scenario", "smallops", "-size", "320"}, "-size does nothing without the ocr scenario"},
		{[]string{"-scenario", "ocr", "-size", "320"}, ""},
		{[]string{"-scenario", "zerocost", "-cache-local", "3"}, "-cache-local does nothing without its cache: no -cache"},
		{[]string{"-scenario", "decode-steps", "-cache-local", "3"}, ""},
		{[]string{"-scenario", "smallops", "-overlap=false"}, "-overlap does nothing without a scenario of consecutive steps"},
		{[]string{"-scenario", "decode-steps", "-overlap=false"}, ""},
	} {
		var errb strings.Builder
		if _, err := parseFlags(c.args, &errb); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		switch got := errb.String(); {
		case c.want == "" && strings.Contains(got, "does nothing"):
			t.Errorf("%v: %q said", c.args, got)
		case c.want != "" && !strings.Contains(got, c.want):
			t.Errorf("%v: stderr %q, want %q", c.args, got, c.want)
		}
	}
}
