package main

import (
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sweepRowsOf reads a sweep's CSV rows.
func sweepRowsOf(t *testing.T, dir string, axes int) []sweepResult {
	t.Helper()
	rows, err := readSweepRows(filepath.Join(dir, "sweep.csv"), axes)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestSweepPointAgreesWithRun checks the wiring of a sweep: a point is the
// run of the scenario file with the point's values written into it. With
// deterministic costs the device's modeled work is deterministic, so the
// point's device busy time per mode equals the single run's, and doubling
// device.scale doubles it.
func TestSweepPointAgreesWithRun(t *testing.T) {
	dir := t.TempDir()
	code, out, errb := runArgs(t, "sweep", "-scenario", "decode", "-quick", "-vary", "infer=10us", "-vary", "device.scale=1,2",
		"-mode", "kbk,pipeline", "-reps", "1", "-o", dir, "-q")
	if code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, errb)
	}
	if !strings.Contains(out, "bookkeeping") || !strings.Contains(out, "speedup_infer.svg") {
		t.Errorf("sweep summary:\n%s", out)
	}
	rows := sweepRowsOf(t, dir, 2)
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 2 points × 2 modes", len(rows))
	}
	// The single run: the dumped file with the point's values.
	file := strings.Replace(string(dumped(t, "decode", true)), "infer: 5us", "infer: 10us", 1)
	file = strings.Replace(file, "scale: 1 ", "scale: 2 ", 1)
	path := filepath.Join(dir, "point.yaml")
	os.WriteFile(path, []byte(file), 0o644)
	jsonPath := filepath.Join(dir, "run.json")
	if code, _, errb := runArgs(t, "-scenario-file", path, "-mode", "kbk,pipeline", "-reps", "1", "-q", "-json", jsonPath); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errb)
	}
	var rep report
	b, _ := os.ReadFile(jsonPath)
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	busy := map[string]int64{}
	for _, r := range rep.Results {
		busy[r.Mode] = r.DeviceBusyNs
	}
	byScale := map[string]map[string]sweepResult{}
	for _, r := range rows {
		if r.point[0] != "10us" {
			t.Errorf("infer column %q, want 10us", r.point[0])
		}
		if byScale[r.point[1]] == nil {
			byScale[r.point[1]] = map[string]sweepResult{}
		}
		byScale[r.point[1]][r.mode] = r
		if r.predicted <= 0 || r.predEff <= 0 || r.predEff > 1 {
			t.Errorf("%s at scale %s: prediction %d, efficiency %g", r.mode, r.point[1], r.predicted, r.predEff)
		}
	}
	for _, mode := range []string{"kbk", "pipeline"} {
		p2, p1 := byScale["2"][mode], byScale["1"][mode]
		if p2.device != busy[mode] || busy[mode] == 0 {
			t.Errorf("%s: the sweep point's device busy time %d, the single run's %d", mode, p2.device, busy[mode])
		}
		if d := p2.device - 2*p1.device; d < -int64(len(rows))*105 || d > int64(len(rows))*105 {
			t.Errorf("%s: device busy %d at scale 2, %d at scale 1: want twice", mode, p2.device, p1.device)
		}
	}
	// The figures are SVG documents.
	for _, f := range []string{"speedup_infer.svg", "efficiency_infer.svg", "speedup_device.scale.svg", "efficiency_device.scale.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			XMLName xml.Name
		}
		if err := xml.Unmarshal(b, &doc); err != nil || doc.XMLName.Local != "svg" {
			t.Errorf("%s: not an SVG document: %v", f, err)
		}
	}
}

// TestSweepResumes interrupts a sweep's CSV (a missing point and a line
// cut short) and checks the next run measures only what is missing.
func TestSweepResumes(t *testing.T) {
	args, csvPath, b, lines := twoPointSweep(t)
	dir := filepath.Dir(csvPath)
	if len(lines) != 3 {
		t.Fatalf("%d lines, want a header and 2 rows:\n%s", len(lines), b)
	}
	// Keep the first point whole and half of the second's line.
	cut := lines[0] + lines[1] + lines[2][:len(lines[2])/2]
	os.WriteFile(csvPath, []byte(cut), 0o644)
	code, out, errb := runArgs(t, args...)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errb)
	}
	if !strings.Contains(out, "1 run, 1 resumed") {
		t.Errorf("resume: %s", out)
	}
	rows := sweepRowsOf(t, dir, 1)
	if len(rows) != 2 || rows[0].point[0] != "1" || rows[1].point[0] != "2" {
		t.Errorf("rows after resuming: %+v", rows)
	}
	for _, r := range rows {
		if n, _ := strconv.Atoi(r.point[0]); r.makespan <= 0 || n == 0 {
			t.Errorf("row %+v", r)
		}
	}
	// Another sweep into the same directory is refused.
	if code, _, errb := runArgs(t, "sweep", "-scenario", "decode", "-quick", "-vary", "infer=1us", "-o", dir, "-q"); code != 2 || !strings.Contains(errb, "columns") {
		t.Errorf("other columns: exit %d: %s", code, errb)
	}
}

// TestSweepErrors checks that bad sweeps fail with exit status 2 before
// anything runs, naming the flag or the field.
func TestSweepErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-vary", "nosuch=1,2"}, `-vary nosuch: no parameter "nosuch"`},
		{[]string{"-vary", "device.launch.nosuch_ns=1,2"}, `no parameter "device.launch.nosuch_ns"`},
		{[]string{"-vary", "infer=5us..1us/3"}, "is empty"},
		{[]string{"-vary", "infer=1us,,2us"}, "value 2 of \"1us,,2us\" is empty"},
		{[]string{"-vary", "infer=0..100h/2"}, "scenario decode (pipebench scenarios -dump decode):26: costs.infer: cost 100h0m0s outside"},
		{[]string{"-vary", "infer=1us..5us/0"}, "want 1 to 1000"},
		{[]string{"-vary", "device.scale=0..4/log3"}, "log range starts above 0"},
		{[]string{"-vary", "infer="}, "gives no value"},
		{[]string{"-vary", "infer=fast"}, "not a duration"},
		{[]string{"-vary", "layers=0,2"}, "graph.params.layers: 0 outside"},
		{[]string{"-vary", "device.transfer.bandwidth=0,1"}, "device.overrides.transfer.bandwidth: must be in [1e+06, +Inf), got 0"},
		{[]string{"-vary", "infer=1us", "-vary", "costs.infer=2us"}, "varied twice"},
		{[]string{}, "nothing to sweep"},
		{[]string{"-vary", "infer=1us", "-reps", "0"}, "-reps 0: want at least 1"},
		{[]string{"-vary", "layers=1,2.5"}, `"2.5" is not a whole number`},
		{[]string{"-vary", "device.scale=900000"}, `the scaled profile: swai: profile "swai": launch.init_ns: 779220000000 ns (12m59.22s) outside [0, 10s]`},
	} {
		args := append([]string{"sweep", "-scenario", "decode", "-quick", "-o", dir, "-q"}, c.args...)
		code, out, errb := runArgs(t, args...)
		if code != 2 || !strings.Contains(errb, c.want) || out != "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errb, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "sweep.csv")); err == nil {
		t.Error("a failed sweep wrote sweep.csv")
	}
}

// TestSweepPlatformScenarioListsItsFields: a scenario on a platform of
// its own (mttorch), built-in or in a file, takes no device profile:
// sweep lists no device field for it and refuses one as a field it does
// not have, before any point is loaded.
func TestSweepPlatformScenarioListsItsFields(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mt.yaml")
	if err := os.WriteFile(file, dumped(t, "mttorch", true), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, src := range [][]string{{"-scenario", "mttorch", "-quick"}, {"-scenario-file", file}} {
		for _, field := range []string{"nosuch", "device.launch.cpu_ns", "peak_flops", "device.scale"} {
			args := append(append([]string{"sweep"}, src...), "-o", dir, "-q", "-vary", field+"=1,2")
			code, out, errb := runArgs(t, args...)
			want := "-vary " + field + `: no parameter "` + field + `" (have costs.alloc,`
			_, have, _ := strings.Cut(errb, "(have ")
			if code != 2 || out != "" || !strings.Contains(errb, want) || strings.Contains(have, "device") {
				t.Errorf("%v: exit %d, stderr %q; want 2 and %q listing no device field", args, code, errb, want)
			}
		}
	}
}

// TestAxisValues checks the ranges of -vary.
func TestAxisValues(t *testing.T) {
	for spec, want := range map[string]string{
		"0us..20us/5":  "0s 5us 10us 15us 20us",
		"0.25..4/log5": "0.25 0.5 1 2 4",
		"1us,3us,1us":  "1us 3us",
		"2us..2us/1":   "2us",
	} {
		a := axis{name: "x", kind: kindDuration}
		if strings.Contains(spec, "log") {
			a.kind = kindFloat
		}
		if err := a.parseSpec(spec); err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		var got []string
		for _, v := range a.values {
			got = append(got, a.text(v))
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("%s: %s, want %s", spec, g, want)
		}
	}
}

// TestSweepPlotsOneLogValue plots a log axis of a single value (-vary
// device.scale=0.5..4/log1), which gonum's log scale cannot show: its
// range widens by ±1, below 0.
func TestSweepPlotsOneLogValue(t *testing.T) {
	a := axis{name: "device.scale", path: "device.scale", kind: kindFloat}
	if err := a.parseSpec("0.5..4/log1"); err != nil || !a.log {
		t.Fatalf("%v, log %v", err, a.log)
	}
	rows := []sweepResult{
		{point: []string{"0.5"}, mode: "kbk", makespan: 100, speedup: 1, efficiency: 0.9, device: 50, hostBound: 90},
		{point: []string{"0.5"}, mode: "pipeline", barrier: "per-tensor", makespan: 80, speedup: 1.25, efficiency: 0.8, device: 50, hostBound: 60},
	}
	files, err := plotSweep(t.TempDir(), []axis{a}, rows)
	if err != nil || len(files) != 2 {
		t.Fatalf("%v: %v", files, err)
	}
}

// TestSweepPlotsKBKAlone: a sweep of kbk alone along a log axis draws
// its efficiency figure and no speedup figure (there is no other mode to
// speed up; gonum's log scale panicked on the empty plot's range).
func TestSweepPlotsKBKAlone(t *testing.T) {
	a := axis{name: "infer", path: "infer", kind: kindFloat}
	if err := a.parseSpec("1..20/log3"); err != nil || !a.log {
		t.Fatalf("%v, log %v", err, a.log)
	}
	var rows []sweepResult
	for _, v := range a.values {
		rows = append(rows, sweepResult{point: []string{a.text(v)}, mode: "kbk", makespan: 100, speedup: 1, efficiency: 0.9, device: 50, hostBound: 90})
	}
	dir := t.TempDir()
	files, err := plotSweep(dir, []axis{a}, rows)
	if err != nil || !slices.Equal(files, []string{"efficiency_infer.svg"}) {
		t.Fatalf("figures %v: %v", files, err)
	}
}

// TestSweepResumesOnlyTheSameSweep: a sweep.csv is resumed only by a sweep
// of the same settings (the scenario's text, the modes, barriers, reps and
// -quick); another, even of the same varied columns, is refused with the
// settings that differ, and so is a directory without the settings file
// (an older pipebench's), rather than taking its rows for its own.
func TestSweepResumesOnlyTheSameSweep(t *testing.T) {
	dir := t.TempDir()
	args := func(extra ...string) []string {
		return append([]string{"sweep", "-quick", "-reps", "1", "-vary", "infer=0us", "-o", dir, "-q"}, extra...)
	}
	if code, _, errb := runArgs(t, args("-scenario", "decode", "-mode", "kbk,pipeline")...); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "sweep.csv"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{args("-scenario", "smallops", "-mode", "kbk,pipeline"), "the scenario differs"},
		{args("-scenario", "decode", "-mode", "kbk,async"), "mode was kbk,pipeline, now kbk,async"},
		{args("-scenario", "decode", "-mode", "kbk,pipeline", "-barrier", "drain"), "barrier"},
		{append(args("-scenario", "decode", "-mode", "kbk,pipeline"), "-reps", "2"), "reps was 1, now 2"},
		{[]string{"sweep", "-scenario", "decode", "-reps", "1", "-mode", "kbk,pipeline", "-vary", "infer=0us", "-o", dir, "-q"}, "the scenario differs"},
	} {
		code, out, errb := runArgs(t, c.args...)
		if code != 2 || !strings.Contains(errb, "measured with other settings") || !strings.Contains(errb, c.want) || !strings.Contains(errb, "another -o") {
			t.Errorf("%q: exit %d, want 2 naming %q\n%s%s", c.args, code, c.want, out, errb)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "sweep.csv")); string(after) != string(before) {
		t.Errorf("a refused sweep changed sweep.csv:\n%s\nwas\n%s", after, before)
	}
	// The same sweep resumes.
	code, out, errb := runArgs(t, args("-scenario", "decode", "-mode", "kbk,pipeline")...)
	if code != 0 || !strings.Contains(out, "0 run, 1 resumed") {
		t.Errorf("same sweep: exit %d\n%s%s", code, out, errb)
	}
	// A directory of an older pipebench, without sweep.settings.
	os.Remove(filepath.Join(dir, sweepSettingsFile))
	code, out, errb = runArgs(t, args("-scenario", "decode", "-mode", "kbk,pipeline")...)
	if code != 2 || !strings.Contains(errb, "older pipebench") || !strings.Contains(errb, "another -o") {
		t.Errorf("no settings file: exit %d\n%s%s", code, out, errb)
	}
}

// TestSweepTooLarge: each axis takes at most 1000 values, and the whole
// sweep at most maxSweepRuns points × variants: a larger one is refused
// (exit 2, naming the count) before anything runs.
func TestSweepTooLarge(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-vary", "infer=1us..2us/1000", "-vary", "resize=1us..2us/1000", "-vary", "launch=1us..2us/1000"},
			"1000 × 1000 × 1000 = 1000000000 points × 4 variants = 4000000000 rows to measure, more than the 100000"},
		{[]string{"-vary", "infer=1us..2us/1000", "-vary", "resize=1us..2us/200", "-mode", "kbk"},
			"1000 × 200 = 200000 points × 1 variants = 200000 rows"},
		{[]string{"-vary", "infer=1us..2us/1000", "-vary", "resize=1us..2us/50", "-mode", "kbk,pipeline,async"},
			"50000 points × 3 variants = 150000 rows"},
		{[]string{"-vary", "infer=1us..2us/1000", "-vary", "resize=1us..2us/1000", "-vary", "launch=1us..2us/1000",
			"-vary", "prepare=1us..2us/1000", "-vary", "tiling=1us..2us/1000", "-vary", "alloc=1us..2us/1000", "-vary", "create=1us..2us/1000"},
			"= 1000000000000000000000 points"},
	} {
		dir := t.TempDir()
		args := append([]string{"sweep", "-scenario", "decode", "-quick", "-o", dir, "-q"}, c.args...)
		code, out, errb := runCancelled(t, args...)
		if code != 2 || !strings.Contains(errb, c.want) || out != "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errb, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "sweep.csv")); err == nil {
			t.Errorf("%v: a refused sweep wrote sweep.csv", c.args)
		}
	}
	// The bound itself is a sweep.
	sw, err := parseSweep([]string{"-scenario", "decode", "-quick", "-mode", "kbk", "-vary", "infer=1us..2us/1000", "-vary", "resize=1us..2us/100"}, io.Discard)
	if err != nil || len(sw.variants) != 1 {
		t.Errorf("100000 points × 1 variant: %v", err)
	}
}

// TestSweepResumesPartialPoint: a point counts as done only when its CSV
// rows are one per variant; a point missing a variant's row (its write
// cut short at a line's end, a line deleted) is measured again whole, its
// old rows dropped, and the summary counts the variants of a point.
func TestSweepResumesPartialPoint(t *testing.T) {
	dir := t.TempDir()
	args := []string{"sweep", "-scenario", "decode", "-quick", "-vary", "layers=1,2", "-mode", "kbk,pipeline", "-reps", "1", "-o", dir}
	if code, _, errb := runArgs(t, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	csvPath := filepath.Join(dir, "sweep.csv")
	b, _ := os.ReadFile(csvPath)
	lines := strings.SplitAfter(string(b), "\n")
	lines = lines[:len(lines)-1] // after the last newline
	if len(lines) != 5 {
		t.Fatalf("%d lines, want a header and 2 points × 2 variants:\n%s", len(lines), b)
	}
	// The first point loses its pipeline row: layers=1 is partial.
	var kept []string
	for _, l := range lines {
		if !strings.HasPrefix(l, "1,pipeline,") {
			kept = append(kept, l)
		}
	}
	os.WriteFile(csvPath, []byte(strings.Join(kept, "")), 0o644)
	code, out, errb := runArgs(t, args...)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errb)
	}
	if !strings.Contains(out, "2 points (1 run, 1 resumed") || !strings.Contains(out, "× 2 variants") {
		t.Errorf("resume: %s", out)
	}
	if !strings.Contains(errb, "layers=1 lacks the rows of pipeline/per-tensor: measuring it again") {
		t.Errorf("resume does not say what it measures again: %s", errb)
	}
	rows := sweepRowsOf(t, dir, 1)
	got := map[string][]string{}
	for _, r := range rows {
		got[r.point[0]] = append(got[r.point[0]], r.variant())
	}
	for _, p := range []string{"1", "2"} {
		if g := strings.Join(got[p], " "); g != "kbk pipeline/per-tensor" {
			t.Errorf("layers=%s: rows %s, want kbk pipeline/per-tensor", p, g)
		}
	}
	// The same sweep again: every point whole, nothing measured.
	if code, out, errb := runArgs(t, args...); code != 0 || !strings.Contains(out, "2 points (0 run, 2 resumed") || !strings.Contains(out, "× 2 variants") {
		t.Errorf("resume of a whole sweep: exit %d\n%s%s", code, out, errb)
	}
}

// TestSweepRefusesCorruptCSV: a value of sweep.csv that does not parse is
// an error naming the file, the line and the column, found when the file
// is read: before anything is measured (a point is missing here) and
// without changing the file.
func TestSweepRefusesCorruptCSV(t *testing.T) {
	args, csvPath, _, lines := twoPointSweep(t)
	f := strings.Split(lines[1], ",")
	f[3] = "abc" // makespan_ns
	// layers=1's row, corrupt; layers=2 missing, to be measured.
	corrupt := lines[0] + strings.Join(f, ",")
	os.WriteFile(csvPath, []byte(corrupt), 0o644)
	code, out, errb := runArgs(t, args...)
	if want := csvPath + `: line 2, column 4 (makespan_ns): "abc" is not an integer`; code != 1 || !strings.Contains(errb, want) || out != "" {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, errb, want)
	}
	if after, _ := os.ReadFile(csvPath); string(after) != corrupt {
		t.Errorf("a refused sweep changed sweep.csv:\n%s\nwas\n%s", after, corrupt)
	}
}

// TestReadSweepCSVNamesBadField: each malformed row of a sweep CSV is an
// error naming the file, the line and the column; readSweepRows (the
// figures, pipebench report) refuses the same measurements (it does not
// know the axes' kinds).
func TestReadSweepCSVNamesBadField(t *testing.T) {
	axes := []axis{{name: "infer", kind: kindDuration}, {name: "layers", kind: kindInt}}
	header := append([]string{"infer", "layers"}, sweepColumns...)
	good := "5us,2,kbk,-,1000,1.0000,0.5000,900,0.5500,500,400,500\n"
	for _, c := range []struct {
		row, want string
		axis      bool // a bad axis value, which readSweepRows takes as text
	}{
		{"5us,2,kbk,-,abc,1.0000,0.5000,900,0.5500,500,400,500\n", `line 3, column 5 (makespan_ns): "abc" is not an integer`, false},
		{"5us,2,kbk,-,1000,fast,0.5000,900,0.5500,500,400,500\n", `line 3, column 6 (speedup_vs_kbk): "fast" is not a number`, false},
		{"5us,2,kbk,-,1000,1.0000,0.5000,9e2,0.5500,500,400,500\n", `line 3, column 8 (predicted_ns): "9e2" is not an integer`, false},
		{"5us,2,kbk,-,1000,1.0000,0.5000,900,0.5500,,400,500\n", "line 3, column 10 (bound_ns): empty", false},
		{"5us,2,,-,1000,1.0000,0.5000,900,0.5500,500,400,500\n", "line 3, column 3 (mode): empty", false},
		{"5us,2,kbk,-,1000\n", "line 3", false},
		{"soon,2,kbk,-,1000,1.0000,0.5000,900,0.5500,500,400,500\n", `line 3, column 1 (infer): "soon" is not a duration`, true},
		{"5us,2.5,kbk,-,1000,1.0000,0.5000,900,0.5500,500,400,500\n", `line 3, column 2 (layers): "2.5" is not a whole number`, true},
	} {
		path := filepath.Join(t.TempDir(), "sweep.csv")
		os.WriteFile(path, []byte(strings.Join(header, ",")+"\n"+good+c.row), 0o644)
		_, err := readSweepCSV(path, header, axes)
		if err == nil || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %s: … %s", c.row, err, path, c.want)
		}
		if _, err := readSweepRows(path, len(axes)); !c.axis && (err == nil || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("readSweepRows %q: %v, want %s: … %s", c.row, err, path, c.want)
		}
	}
	// Empty predictions (replay, hetero) are well-formed.
	path := filepath.Join(t.TempDir(), "sweep.csv")
	os.WriteFile(path, []byte(strings.Join(header, ",")+"\n"+good+"5us,2,replay,per-tensor,1000,1.0000,0.5000,,,500,400,500\n"), 0o644)
	if got, err := readSweepCSV(path, header, axes); err != nil || len(got.rows) != 2 || got.rows[1].variant != "replay/per-tensor" {
		t.Errorf("empty predictions: %+v, %v", got, err)
	}
}

// twoPointSweep runs a sweep of two points (decode, layers 1 and 2, kbk)
// into a temporary directory and returns its arguments, the path of its
// CSV, the CSV and its lines.
func twoPointSweep(t *testing.T) (args []string, csvPath string, csv []byte, lines []string) {
	t.Helper()
	dir := t.TempDir()
	args = []string{"sweep", "-scenario", "decode", "-quick", "-vary", "layers=1,2", "-mode", "kbk", "-reps", "1", "-o", dir, "-q"}
	if code, _, errb := runArgs(t, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	csvPath = filepath.Join(dir, "sweep.csv")
	csv, _ = os.ReadFile(csvPath)
	lines = strings.SplitAfter(strings.TrimSuffix(string(csv), "\n"), "\n")
	return args, csvPath, csv, lines
}

// TestSweepFileFieldsLeftOut checks that a scenario file's sweep varies
// the fields the file leaves out too (a cost, the scale, reps, a
// built-in's size parameter): each is the scenario's, at the value
// pipebench runs without it, and a point sets it.
func TestSweepFileFieldsLeftOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.yaml")
	text := "name: mine\ngraph:\n  builtin: decode\n  params: {batch: 1, hidden: 64, heads: 4, ffn: 64, kv: 8, vocab: 64}\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sw, err := parseSweep([]string{"-scenario-file", path, "-mode", "kbk", "-o", t.TempDir(),
		"-vary", "infer=3us", "-vary", "costs.launch=4us", "-vary", "device.scale=2", "-vary", "reps=3", "-vary", "layers=2"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cfg, sf, err := sw.pointConfig(sw.point(make([]int, len(sw.axes))))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.costs.Infer != 3*time.Microsecond || cfg.costs.Launch != 4*time.Microsecond || cfg.reps != 3 ||
		sf.Device.Scale != 2 || sf.Graph.Params["layers"] != 2 {
		t.Errorf("point: infer %v, launch %v, reps %d, scale %g, layers %d; want 3µs, 4µs, 3, 2, 2",
			cfg.costs.Infer, cfg.costs.Launch, cfg.reps, sf.Device.Scale, sf.Graph.Params["layers"])
	}
}
