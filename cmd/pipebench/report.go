package main

// pipebench report DIR: one self-contained HTML page of a sweep
// (DIR/sweep.csv) and a run (DIR/run.json, written by -json), tables and
// the sweep's figures inline as SVG, nothing fetched from the network. The
// page is well-formed XHTML, so that any XML reader takes it too.

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot/vg"
)

// axesOf recovers a sweep's axes from its CSV: the columns before mode,
// each one's kind from its values (a duration has a unit, an integer no
// point) and whether its values are spaced on a log scale.
func axesOf(header []string, rows []sweepResult) ([]axis, error) {
	n := slices.Index(header, "mode")
	if n < 0 || !slices.Equal(header[n:], sweepColumns) {
		return nil, fmt.Errorf("the columns %s are not a sweep's", strings.Join(header, ","))
	}
	axes := make([]axis, n)
	for i := range axes {
		a := axis{name: header[i], kind: kindInt}
		var texts []string
		for _, r := range rows {
			if !slices.Contains(texts, r.point[i]) {
				texts = append(texts, r.point[i])
			}
		}
		for _, t := range texts {
			if strings.ContainsAny(t, "smunµh") {
				a.kind = kindDuration
				break
			}
			if strings.ContainsAny(t, ".eE") && a.kind != kindDuration {
				a.kind = kindFloat
			}
		}
		for _, t := range texts {
			v, err := a.parseValue(t)
			if err != nil {
				return nil, fmt.Errorf("column %s: %v", a.name, err)
			}
			a.values = append(a.values, v)
		}
		slices.Sort(a.values)
		a.log = geometric(a.values)
		axes[i] = a
	}
	return axes, nil
}

// geometric reports whether three or more positive values have a common
// ratio (a /logN range) and not a common difference.
func geometric(v []float64) bool {
	if len(v) < 3 || v[0] <= 0 {
		return false
	}
	r := v[1] / v[0]
	d := v[1] - v[0]
	ratio, diff := true, true
	for i := 2; i < len(v); i++ {
		ratio = ratio && math.Abs(v[i]/v[i-1]-r) < 1e-3*r
		diff = diff && math.Abs(v[i]-v[i-1]-d) < 1e-6*math.Max(math.Abs(d), 1)
	}
	return ratio && !diff
}

// reportPage is what the template shows.
type reportPage struct {
	Generated string
	Dir       string
	Run       *report
	RunRows   []result
	Sweep     *sweepPage
}

type sweepPage struct {
	Columns []string
	Rows    [][]string
	Points  int
	Figures []reportFigure
}

type reportFigure struct {
	Title, Worst, Crossover string
	SVG                     template.HTML
}

// runReport is pipebench report DIR.
func runReport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pipebench report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: pipebench report DIR\n\nWrites DIR/report.html, one self-contained page of DIR/sweep.csv (pipebench sweep -o DIR)\nand DIR/run.json (pipebench -json DIR/run.json), whichever are there.\n")
	}
	if code, ok := parseSub(fs, args, 1, stderr, "want one directory: pipebench report DIR"); !ok {
		return code
	}
	out, err := writeReport(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "pipebench report: %v\n", err)
		if errors.Is(err, errUsage) {
			return usageFailed(stderr, "pipebench report")
		}
		return 1
	}
	fmt.Fprintf(stdout, "report written to %s\n", out)
	return 0
}

// writeReport renders DIR/report.html, atomically: a failed report leaves
// no file.
func writeReport(dir string) (string, error) {
	page := reportPage{Generated: time.Now().UTC().Format(time.RFC3339), Dir: dir}
	if fi, err := os.Stat(dir); err != nil {
		return "", fmt.Errorf("%w: %v", errUsage, err)
	} else if !fi.IsDir() {
		return "", fmt.Errorf("%w: %s is not a directory", errUsage, dir)
	}
	runPath := filepath.Join(dir, "run.json")
	if b, err := os.ReadFile(runPath); err == nil {
		rep, err := readRunJSON(b)
		if err != nil {
			return "", fmt.Errorf("%w: %s: %v", errUsage, runPath, err)
		}
		page.Run, page.RunRows = rep, rep.Results
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	csvPath := filepath.Join(dir, "sweep.csv")
	if b, err := os.ReadFile(csvPath); err == nil {
		sp, err := sweepSection(csvPath, b)
		if err != nil {
			return "", fmt.Errorf("%w: %v", errUsage, err)
		}
		page.Sweep = sp
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	if page.Run == nil && page.Sweep == nil {
		return "", fmt.Errorf("%w: %s holds neither sweep.csv nor run.json", errUsage, dir)
	}
	var buf bytes.Buffer
	if err := reportTemplate.Execute(&buf, page); err != nil {
		return "", err
	}
	out := filepath.Join(dir, "report.html")
	if fi, err := os.Lstat(out); err == nil && !fi.Mode().IsRegular() {
		// The rename below would replace it: a pipe, a device, a link.
		return "", fmt.Errorf("%s is not a regular file: report.html is written by replacing it", out)
	}
	tmp, err := os.CreateTemp(dir, ".report-*.html")
	if err != nil {
		return "", err
	}
	_, werr := tmp.Write(buf.Bytes())
	if err := errors.Join(werr, tmp.Chmod(0o644), tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return out, nil
}

// runSchemaVersion is the schema_version of the document pipebench -json
// writes (bench's report): the major version, which a reader must know.
// Its minors only add fields, so any is read.
const runSchemaVersion = 1

// readRunJSON reads a document of pipebench -json: it must be one of
// runSchemaVersion and hold results (pipebench writes a row per scenario
// and variant it ran, and runs at least one); anything else, {} or null
// among them, is not a run to report.
func readRunJSON(b []byte) (*report, error) {
	var rep *report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, err
	}
	switch {
	case rep == nil:
		return nil, errors.New("null: not a document of pipebench -json")
	case rep.SchemaVersion == 0:
		return nil, errors.New("no schema_version: not a document of pipebench -json")
	case rep.SchemaVersion != runSchemaVersion:
		return nil, fmt.Errorf("schema_version %d: want %d, the version pipebench -json writes", rep.SchemaVersion, runSchemaVersion)
	case len(rep.Results) == 0:
		return nil, errors.New("no results: not a run of pipebench -json")
	}
	return rep, nil
}

// sweepSection is the page's section of the sweep CSV at path, whose
// contents are data; an error names path.
func sweepSection(path string, data []byte) (*sweepPage, error) {
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) < 2 {
		return nil, fmt.Errorf("%s: no rows", path)
	}
	nAxes := slices.Index(recs[0], "mode")
	rows, err := readSweepRows(path, max(nAxes, 0)) // its errors name path
	if err != nil {
		return nil, err
	}
	axes, err := axesOf(recs[0], rows)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sp := &sweepPage{Columns: recs[0], Rows: recs[1:]}
	points := map[string]bool{}
	for _, r := range rows {
		points[strings.Join(r.point, "\x00")] = true
	}
	sp.Points = len(points)
	for _, f := range sweepFigures(axes, rows) {
		var b bytes.Buffer
		if err := renderFigure(&b, f); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		svg := b.String()
		if i := strings.Index(svg, "<svg"); i >= 0 {
			svg = svg[i:] // inline: no XML declaration or doctype
		}
		sp.Figures = append(sp.Figures, reportFigure{Title: f.title, Worst: f.worst, Crossover: f.crossover, SVG: template.HTML(svg)})
	}
	return sp, nil
}

// renderFigure writes f as SVG to w.
func renderFigure(w io.Writer, f sweepFigure) error {
	p, err := figurePlot(f)
	if err != nil {
		return err
	}
	wt, err := p.WriterTo(7*vg.Inch, 4.5*vg.Inch, "svg")
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}

func fmtNs(ns int64) string {
	return time.Duration(ns).Round(time.Microsecond).String()
}

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"ns":  fmtNs,
	"f2":  func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) },
	"inc": func(i int) int { return i + 1 },
}).Parse(`<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" lang="en">
<head>
<meta charset="utf-8" />
<title>pipebench report: {{.Dir}}</title>
<style>
body { font-family: sans-serif; max-width: 72em; margin: 2em auto; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }
th { background: #eee; }
td.l, th.l { text-align: left; }
figure { margin: 2em 0; }
figcaption { font-size: 0.9em; color: #444; }
</style>
</head>
<body>
<h1>pipebench report</h1>
<p>{{.Dir}}, generated {{.Generated}}. Efficiency is the bound (the largest of the device's busy time, the busiest goroutine's host work and the host work over GOMAXPROCS) over the makespan; the prediction is the flow-shop model of trace/analysis.</p>
{{with .Run}}
<h2 id="run">Run</h2>
<p>Device {{.Device}}; GOMAXPROCS {{.Machine.GOMAXPROCS}}, {{.Machine.NumCPU}} CPUs, {{.Machine.Go}}{{.Machine.RoundTrips}}.</p>
{{if .Incomplete}}<p id="run-incomplete">Incomplete: the run stopped early ({{.Incomplete}}); the table holds the variants measured before.</p>
{{end}}<table id="run-table">
<tr><th class="l">scenario</th><th class="l">mode</th><th class="l">barrier</th><th>kernels</th><th>makespan</th><th>bound</th><th>efficiency</th><th>speedup vs kbk</th><th>device util</th></tr>
{{range .Results}}<tr><td class="l">{{.Scenario}}</td><td class="l">{{.Mode}}{{if .Caches}}+{{.Caches}}{{end}}{{if .Overlap}} (overlap){{end}}</td><td class="l">{{.Barrier}}</td><td>{{.Kernels}}</td><td>{{ns .MakespanNs}}</td><td>{{ns .BoundNs}}</td><td>{{f2 .Efficiency}}</td><td>{{f2 .SpeedupVsKBK}}</td><td>{{f2 .DeviceUtil}}</td></tr>
{{end}}</table>
{{end}}
{{with .Sweep}}
<h2 id="sweep">Sweep</h2>
<p>{{.Points}} points; each figure holds the other varied fields at the middle of their axes. Solid: measured; dashed: predicted.</p>
{{range $i, $f := .Figures}}<figure id="figure-{{inc $i}}">
{{$f.SVG}}
<figcaption>Figure {{inc $i}}: {{$f.Title}}. {{$f.Worst}}{{if $f.Crossover}}; {{$f.Crossover}}{{end}}.</figcaption>
</figure>
{{end}}
<table id="sweep-table">
<tr>{{range .Columns}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{end}}
</body>
</html>
`))
