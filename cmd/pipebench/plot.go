package main

// The sweep's figures: for each varied field, speedup over KBK and
// efficiency against it, the other fields at the middle of their axes;
// one line per mode and policy, measured (solid, with points) and predicted
// by the flow-shop model (dashed, same colour); the worst prediction error
// of the figure in its title, and where the pipeline turns device-bound
// (device busy time reaching the host's bound) marked by a vertical line.

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// sweepFigure is one figure's data, computed apart from its drawing so
// that the report can state the same figures.
type sweepFigure struct {
	file      string // speedup_infer.svg
	title     string
	metric    string // "speedup over kbk" or "efficiency"
	axis      axis
	fixed     string // the other axes' values
	series    []figSeries
	worst     string // the caption: the worst prediction error
	crossover string // the caption: where the run turns device-bound
	crossX    float64
	hasCross  bool
}

type figSeries struct {
	name      string
	x, y, py  []float64 // py: predicted, NaN where there is none
	predicted bool
}

// axisX is the plotted value of an axis value: durations in µs.
func axisX(a axis, v float64) float64 {
	if a.kind == kindDuration {
		return v / 1e3
	}
	return v
}

func axisLabel(a axis) string {
	if a.kind == kindDuration {
		return a.name + " (µs)"
	}
	return a.name
}

// sweepFigures computes the figures of rows.
func sweepFigures(axes []axis, rows []sweepResult) []sweepFigure {
	var figs []sweepFigure
	for k, a := range axes {
		mid := make([]string, len(axes))
		var fixed []string
		for j, o := range axes {
			mid[j] = o.text(o.values[len(o.values)/2])
			if j != k {
				fixed = append(fixed, o.name+"="+mid[j])
			}
		}
		// The rows of the slice through the middle of the other axes,
		// by variant, in axis order.
		byVariant := map[string][]sweepResult{}
		var order []string
		kbkPred := map[string]int64{}
		for _, r := range rows {
			on := true
			for j := range axes {
				if j != k && r.point[j] != mid[j] {
					on = false
				}
			}
			if !on {
				continue
			}
			name := r.mode
			if r.barrier != "" {
				name += "/" + r.barrier
			}
			if _, ok := byVariant[name]; !ok {
				order = append(order, name)
			}
			byVariant[name] = append(byVariant[name], r)
			if r.mode == "kbk" {
				kbkPred[r.point[k]] = r.predicted
			}
		}
		xOf := func(r sweepResult) float64 {
			v, _ := a.parseValue(r.point[k])
			return axisX(a, v)
		}
		for _, metric := range []string{"speedup over kbk", "efficiency"} {
			f := sweepFigure{axis: a, metric: metric, fixed: strings.Join(fixed, ", ")}
			short := "speedup"
			if metric == "efficiency" {
				short = "efficiency"
			}
			f.file = short + "_" + fileSafe(a.name) + ".svg"
			f.title = fmt.Sprintf("%s against %s", metric, a.name)
			worst, worstAt := 0.0, ""
			for _, name := range order {
				rs := slices.Clone(byVariant[name])
				slices.SortFunc(rs, func(p, q sweepResult) int { return cmpFloat(xOf(p), xOf(q)) })
				if metric == "speedup over kbk" && strings.HasPrefix(name, "kbk") {
					continue
				}
				s := figSeries{name: name}
				for _, r := range rs {
					x := xOf(r)
					s.x = append(s.x, x)
					py := math.NaN()
					if metric == "efficiency" {
						s.y = append(s.y, r.efficiency)
						if r.predicted > 0 {
							py = r.predEff
						}
					} else {
						s.y = append(s.y, r.speedup)
						if kp := kbkPred[r.point[k]]; r.predicted > 0 && kp > 0 {
							py = float64(kp) / float64(r.predicted)
						}
					}
					if !math.IsNaN(py) {
						s.predicted = true
					}
					s.py = append(s.py, py)
					if r.predicted > 0 && r.makespan > 0 {
						if e := float64(r.predicted-r.makespan) / float64(r.makespan); math.Abs(e) > math.Abs(worst) || worstAt == "" {
							worst, worstAt = e, fmt.Sprintf("%s at %s=%s", name, a.name, r.point[k])
						}
					}
				}
				f.series = append(f.series, s)
			}
			if len(f.series) == 0 {
				continue // kbk alone: no speedup to draw
			}
			if worstAt != "" {
				f.worst = fmt.Sprintf("worst prediction error %+.0f%% (%s)", 100*worst, worstAt)
			} else {
				f.worst = "no prediction for these modes"
			}
			f.crossover, f.crossX, f.hasCross = crossover(a, byVariant, order, xOf)
			figs = append(figs, f)
		}
	}
	return figs
}

// crossover finds where the pipeline (or the first queued variant) turns
// device-bound along the axis: device busy time reaching the host's bound,
// interpolated between the two points around it.
func crossover(a axis, by map[string][]sweepResult, order []string, xOf func(sweepResult) float64) (string, float64, bool) {
	pick := ""
	for _, n := range order {
		if strings.HasPrefix(n, "pipeline") {
			pick = n
			break
		}
	}
	for _, n := range order {
		if pick == "" && !strings.HasPrefix(n, "kbk") {
			pick = n
		}
	}
	if pick == "" {
		return "", 0, false
	}
	rs := slices.Clone(by[pick])
	slices.SortFunc(rs, func(p, q sweepResult) int { return cmpFloat(xOf(p), xOf(q)) })
	ratio := func(r sweepResult) float64 { return float64(r.device) / math.Max(float64(r.hostBound), 1) }
	for i := 1; i < len(rs); i++ {
		r0, r1 := ratio(rs[i-1]), ratio(rs[i])
		if (r0 < 1) != (r1 < 1) {
			x0, x1 := xOf(rs[i-1]), xOf(rs[i])
			t := (1 - r0) / (r1 - r0)
			x := x0 + t*(x1-x0)
			if a.log && x0 > 0 && x1 > 0 {
				x = x0 * math.Pow(x1/x0, t)
			}
			dir := "device-bound"
			if r1 < 1 {
				dir = "host-bound"
			}
			unit := ""
			if a.kind == kindDuration {
				unit = "µs"
			}
			return fmt.Sprintf("%s turns %s at %s ≈ %.3g%s", pick, dir, a.name, x, unit), x, true
		}
	}
	if len(rs) > 0 && ratio(rs[0]) >= 1 {
		return pick + " is device-bound over the whole axis", 0, false
	}
	return pick + " is host-bound over the whole axis", 0, false
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, s)
}

// plotSweep draws every figure of rows into dir and returns their files.
func plotSweep(dir string, axes []axis, rows []sweepResult) ([]string, error) {
	var files []string
	for _, f := range sweepFigures(axes, rows) {
		if err := drawFigure(filepath.Join(dir, f.file), f); err != nil {
			return files, fmt.Errorf("plot %s: %w", f.file, err)
		}
		files = append(files, f.file)
	}
	return files, nil
}

var predDashes = []vg.Length{vg.Points(5), vg.Points(3)}

// drawFigure writes f to path. A panic of the plotting library (it
// panics on ranges it cannot draw) is an error, and the file it began is
// removed.
func drawFigure(path string, f sweepFigure) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("plotting: %v", p)
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	p, err := figurePlot(f)
	if err != nil {
		return err
	}
	return p.Save(7*vg.Inch, 4.5*vg.Inch, path)
}

// figurePlot lays out f.
func figurePlot(f sweepFigure) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = f.title + "\n" + f.worst
	if f.crossover != "" {
		p.Title.Text += "\n" + f.crossover
	}
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.X.Label.Text = axisLabel(f.axis)
	if f.fixed != "" {
		p.X.Label.Text += "   (" + f.fixed + ")"
	}
	p.Y.Label.Text = f.metric
	if f.axis.log && len(f.axis.values) > 1 { // one value: the axis widens it by ±1, below 0
		p.X.Scale = plot.LogScale{}
	}
	if len(f.axis.values) <= 12 {
		// The axis' own values, the points measured.
		var ticks []plot.Tick
		for _, v := range f.axis.values {
			x := axisX(f.axis, v)
			ticks = append(ticks, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'g', 4, 64)})
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
	}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	anyPred := false
	for i, s := range f.series {
		pts := make(plotter.XYs, len(s.x))
		for j := range s.x {
			pts[j] = plotter.XY{X: s.x[j], Y: s.y[j]}
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		c := plotutil.Color(i)
		line.Color, points.Color = c, c
		points.Shape = plotutil.Shape(i)
		p.Add(line, points)
		p.Legend.Add(s.name, line, points)
		if !s.predicted {
			continue
		}
		var pp plotter.XYs
		for j := range s.x {
			if !math.IsNaN(s.py[j]) {
				pp = append(pp, plotter.XY{X: s.x[j], Y: s.py[j]})
			}
		}
		if len(pp) == 0 {
			continue
		}
		pl, err := plotter.NewLine(pp)
		if err != nil {
			return nil, err
		}
		pl.Color = c
		pl.Dashes = predDashes
		p.Add(pl)
		anyPred = true
	}
	if anyPred {
		key, _ := plotter.NewLine(plotter.XYs{{}, {}})
		key.Color = color.Gray{Y: 96}
		key.Dashes = predDashes
		p.Legend.Add("dashed: flow-shop prediction", key)
	}
	if f.hasCross {
		vl, err := plotter.NewLine(plotter.XYs{{X: f.crossX, Y: p.Y.Min}, {X: f.crossX, Y: p.Y.Max}})
		if err != nil {
			return nil, err
		}
		vl.Color = color.Black
		vl.Dashes = []vg.Length{vg.Points(1), vg.Points(3)}
		vl.Width = vg.Points(1.5)
		p.Add(vl)
		label := "device-bound from here"
		if strings.Contains(f.crossover, "host-bound") {
			label = "host-bound from here"
		}
		p.Legend.Add(label, vl)
	}
	return p, nil
}
