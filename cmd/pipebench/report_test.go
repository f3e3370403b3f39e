package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestReport renders the report of a sweep and a run and parses it as
// HTML: the run's table, the sweep's table with a row per point and mode,
// and every figure inline as SVG with its caption.
func TestReport(t *testing.T) {
	dir := t.TempDir()
	if code, _, errb := runArgs(t, "sweep", "-scenario", "decode", "-quick", "-vary", "layers=1,2", "-vary", "device.scale=1,2",
		"-mode", "kbk,pipeline", "-reps", "1", "-o", dir, "-q"); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, errb)
	}
	if code, _, errb := runArgs(t, "-scenario", "decode", "-quick", "-mode", "kbk,pipeline", "-reps", "1", "-q", "-json", filepath.Join(dir, "run.json")); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errb)
	}
	code, out, errb := runArgs(t, "report", dir)
	if code != 0 || !strings.Contains(out, "report.html") {
		t.Fatalf("report: exit %d: %s %s", code, out, errb)
	}
	f, err := os.Open(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := html.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string]int{} // table id → rows
	var svgs int
	var captions []string
	var external []string
	var walk func(n *html.Node, table string)
	walk = func(n *html.Node, table string) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "table":
				table = attr(n, "id")
			case "tr":
				tables[table]++
			case "svg":
				svgs++
			case "figcaption":
				captions = append(captions, text(n))
			case "script", "link", "img", "iframe":
				external = append(external, n.Data)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, table)
		}
	}
	walk(doc, "")
	if tables["run-table"] != 1+2 {
		t.Errorf("run table: %d rows, want a header and 2 modes", tables["run-table"])
	}
	if tables["sweep-table"] != 1+4*2 {
		t.Errorf("sweep table: %d rows, want a header and 4 points × 2 modes", tables["sweep-table"])
	}
	if svgs != 4 || len(captions) != 4 {
		t.Fatalf("%d inline SVGs and %d captions, want 4 figures (speedup and efficiency against each of 2 fields)", svgs, len(captions))
	}
	for i, want := range []string{"speedup over kbk against layers", "efficiency against layers", "speedup over kbk against device.scale", "efficiency against device.scale"} {
		if !strings.Contains(captions[i], want) || !strings.Contains(captions[i], "prediction error") {
			t.Errorf("figure %d caption %q, want %q and the prediction error", i+1, captions[i], want)
		}
	}
	if len(external) > 0 {
		t.Errorf("the page loads %v: it must be self-contained", external)
	}
	// An empty directory has nothing to report.
	if code, _, _ := runArgs(t, "report", t.TempDir()); code != 2 {
		t.Errorf("empty directory: exit %d, want 2", code)
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// TestTableOfNoKernel: a run of no kernel (a graph folded whole) prints no
// per-kernel figure: its makespan divided by one kernel would be one.
func TestTableOfNoKernel(t *testing.T) {
	var b strings.Builder
	writeTable(&b, &report{Results: []result{{Scenario: "folded", Mode: "kbk", TilingCopy: "with-kernel", Kernels: 0, MakespanNs: 18000, BoundNs: 15000, Efficiency: 0.83, SpeedupVsKBK: 1, HostNsPerKernel: 15000, OverheadNs: 3000}}})
	var row string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, "folded") {
			row = l
		}
	}
	f := strings.Fields(row)
	if len(f) < 15 || f[7] != "-" || f[8] != "-" || f[9] != "-" || f[14] != "-" {
		t.Fatalf("row %q: want - for per kernel, host/kernel, own/kernel and overhead/kernel", row)
	}
}

// TestMissingInputsNamed: report on a missing directory and analyze on a
// directory say so, instead of what the directory lacks or holds.
func TestMissingInputsNamed(t *testing.T) {
	dir := t.TempDir()
	if code, _, errb := runArgs(t, "report", filepath.Join(dir, "nosuch")); code != 2 || !strings.Contains(errb, "no such file") {
		t.Errorf("report on a missing directory: exit %d, %q", code, errb)
	}
	if code, _, errb := runArgs(t, "analyze", dir); code == 0 || !strings.Contains(errb, "is a directory") {
		t.Errorf("analyze on a directory: exit %d, %q", code, errb)
	}
}

// TestReportRefusesNonRuns: a run.json that is no run of pipebench -json
// (no results, another schema_version, null) is refused, naming the file,
// rather than rendered as an empty report.
func TestReportRefusesNonRuns(t *testing.T) {
	row := `{"scenario":"decode","mode":"kbk","kernels":3,"makespan_ns":1000,"bound_ns":900,"efficiency":0.9,"speedup_vs_kbk":1}`
	for _, c := range []struct {
		doc, want string
		code      int
	}{
		{`{}`, "no schema_version", 2},
		{`null`, "null", 2},
		{`{"schema_version":99,"results":[` + row + `]}`, "schema_version 99: want 1", 2},
		{`{"schema_version":1}`, "no results", 2},
		{`{"schema_version":1,"results":[]}`, "no results", 2},
		{`{"schema_version":1,"results":null}`, "no results", 2},
		{`[1]`, "cannot unmarshal", 2},
		{`{"schema_version":1,"schema_minor":99,"results":[` + row + `]}`, "", 0}, // a later minor only adds fields
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "run.json")
		os.WriteFile(path, []byte(c.doc), 0o644)
		code, _, errb := runArgs(t, "report", dir)
		if code != c.code || c.code != 0 && (!strings.Contains(errb, path+": ") || !strings.Contains(errb, c.want)) {
			t.Errorf("%s: exit %d, %q; want %d and %s: … %s", c.doc, code, errb, c.code, path, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "report.html")); (err == nil) != (c.code == 0) {
			t.Errorf("%s: report.html written: %v", c.doc, err == nil)
		}
	}
}

// TestReportSaysIncomplete: the report of a run that stopped early says
// so, and why, as its -json does ("incomplete"), rather than show the
// variants measured before as the whole run.
func TestReportSaysIncomplete(t *testing.T) {
	row := `{"scenario":"decode","mode":"kbk","kernels":3,"makespan_ns":1000,"bound_ns":900,"efficiency":0.9,"speedup_vs_kbk":1}`
	dir := t.TempDir()
	doc := `{"schema_version":1,"schema_minor":5,"incomplete":"interrupted: scenario decode, async/per-tensor","results":[` + row + `]}`
	if err := os.WriteFile(filepath.Join(dir, "run.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errb := runArgs(t, "report", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "interrupted: scenario decode, async/per-tensor") {
		t.Errorf("the report of an incomplete run does not say so:\n%s", page)
	}
}
