package control_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/control"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

// scanGraph is a running sum over the rows of X [3, 2]: the state is the
// sum so far, the scan output each partial sum.
func scanGraph(inDir, outAxis, outDir int64) *subgraph.Graph {
	body := subgraph.NewBuilder("body")
	s := body.Input("s", kernel.Float32, kernel.Dynamic)
	x := body.Input("x", kernel.Float32, kernel.Dynamic)
	sum := body.Op("Add", s, x)
	body.Output(sum, body.Op("Identity", sum))
	b := subgraph.NewBuilder("scan")
	init := b.Input("init", kernel.Float32, 2)
	xs := b.Input("X", kernel.Float32, 3, 2)
	outs := b.Node(&subgraph.Node{Name: "scan", Op: "Scan", Inputs: []string{init, xs}, Attrs: kernel.Attrs{
		control.LoopBody: body.Graph(), control.LoopCarried: int64(1), control.ScanInputs: int64(1),
		control.ScanInputDirections: []int64{inDir}, control.ScanOutputAxes: []int64{outAxis}, control.ScanOutputDirections: []int64{outDir}}}, 2)
	b.Output(outs...)
	return b.Graph()
}

func TestScanRunsItsBody(t *testing.T) {
	in := map[string]*kernel.Tensor{
		"init": kernel.FromFloat32([]float32{0, 100}, 2),
		"X":    kernel.FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 3, 2),
	}
	for _, c := range []struct {
		inDir, outAxis, outDir int64
		final, scan            string
		shape                  kernel.Shape
	}{
		{0, 0, 0, "[9 112]", "[1 102 4 106 9 112]", kernel.Shape{3, 2}},
		{1, 0, 0, "[9 112]", "[5 106 8 110 9 112]", kernel.Shape{3, 2}},
		{0, 1, 0, "[9 112]", "[1 4 9 102 106 112]", kernel.Shape{2, 3}},
		{0, 0, 1, "[9 112]", "[9 112 4 106 1 102]", kernel.Shape{3, 2}},
	} {
		for _, m := range pipert.Modes() {
			g := scanGraph(c.inDir, c.outAxis, c.outDir)
			exe, err := pipert.Compile(g, pipert.WithMode(m))
			if err != nil {
				t.Fatal(err)
			}
			res, err := exe.Run(context.Background(), in)
			exe.Close()
			if err != nil {
				t.Fatalf("%+v %v: %v", c, m, err)
			}
			f, s := res.Outputs[g.Outputs[0]], res.Outputs[g.Outputs[1]]
			if fmt.Sprint(kernel.Float32s(f.Host)) != c.final || fmt.Sprint(kernel.Float32s(s.Host)) != c.scan || !s.Shape.Equal(c.shape) {
				t.Fatalf("%+v %v: final %v, scan %v %v", c, m, kernel.Float32s(f.Host), s.Shape, kernel.Float32s(s.Host))
			}
		}
	}
}

// TestBatchedScanWithSequenceLengths: opset 8's Scan runs each batch
// element on its own, for its sequence_lens steps, in either direction;
// a short sequence's final state is the state after its last step and its
// scan outputs end in zeros.
func TestBatchedScanWithSequenceLengths(t *testing.T) {
	body := subgraph.NewBuilder("body")
	s := body.Input("s", kernel.Float32, kernel.Dynamic)
	x := body.Input("x", kernel.Float32, kernel.Dynamic)
	sum := body.Op("Add", s, x)
	body.Output(sum, body.Op("Identity", sum))
	for _, c := range []struct {
		dir         int64
		final, scan string
	}{
		// batch 0: rows 1,2 / 3,4 / 5,6 from 0,100, three steps; batch 1:
		// rows 10,20 (then 30,40 / 50,60 unused) from 1,1, one step.
		{0, "[9 112 11 21]", "[1 102 4 106 9 112 11 21 0 0 0 0]"},
		// reversed: batch 1 reads only its first row still (its sequence).
		{1, "[9 112 11 21]", "[5 106 8 110 9 112 11 21 0 0 0 0]"},
	} {
		b := subgraph.NewBuilder("scan8")
		lens := b.Input("lens", kernel.Int64, 2)
		init := b.Input("init", kernel.Float32, 2, 2)
		xs := b.Input("X", kernel.Float32, 2, 3, 2)
		outs := b.Node(&subgraph.Node{Name: "scan", Op: "Scan", Inputs: []string{lens, init, xs}, Attrs: kernel.Attrs{
			control.LoopBody: body.Graph(), control.LoopCarried: int64(1), control.ScanInputs: int64(1),
			control.ScanBatched: int64(1), control.ScanSequenceLens: int64(1), control.ScanInputDirections: []int64{c.dir}}}, 2)
		b.Output(outs...)
		g := b.Graph()
		in := map[string]*kernel.Tensor{
			"lens": kernel.FromInt64([]int64{3, 1}, 2),
			"init": kernel.FromFloat32([]float32{0, 100, 1, 1}, 2, 2),
			"X":    kernel.FromFloat32([]float32{1, 2, 3, 4, 5, 6, 10, 20, 30, 40, 50, 60}, 2, 3, 2),
		}
		exe, err := pipert.Compile(g)
		if err != nil {
			t.Fatal(err)
		}
		res, err := exe.Run(context.Background(), in)
		exe.Close()
		if err != nil {
			t.Fatal(err)
		}
		f, sc := res.Outputs[g.Outputs[0]], res.Outputs[g.Outputs[1]]
		if fmt.Sprint(kernel.Float32s(f.Host)) != c.final || fmt.Sprint(kernel.Float32s(sc.Host)) != c.scan || !sc.Shape.Equal(kernel.Shape{2, 3, 2}) {
			t.Fatalf("direction %d: final %v, scan %v %v", c.dir, kernel.Float32s(f.Host), sc.Shape, kernel.Float32s(sc.Host))
		}
	}
}

// TestScanOfNoStep: a Scan over a sequence of no step returns its initial
// states and empty scan outputs whose element shape the body infers
// (along the output axis asked); an opset-8 batch element of sequence
// length 0 keeps its state and scans zeros.
func TestScanOfNoStep(t *testing.T) {
	body := subgraph.NewBuilder("body")
	s := body.Input("s", kernel.Float32, kernel.Dynamic)
	x := body.Input("x", kernel.Float32, kernel.Dynamic)
	sum := body.Op("Add", s, x)
	body.Output(sum, body.Op("Identity", sum))
	for _, c := range []struct {
		outAxis int64
		shape   kernel.Shape
	}{{0, kernel.Shape{0, 2}}, {1, kernel.Shape{2, 0}}, {-1, kernel.Shape{2, 0}}} {
		b := subgraph.NewBuilder("scan")
		init := b.Input("init", kernel.Float32, 2)
		xs := b.Input("X", kernel.Float32, 0, 2)
		outs := b.Node(&subgraph.Node{Name: "scan", Op: "Scan", Inputs: []string{init, xs}, Attrs: kernel.Attrs{
			control.LoopBody: body.Graph(), control.LoopCarried: int64(1), control.ScanInputs: int64(1),
			control.ScanOutputAxes: []int64{c.outAxis}}}, 2)
		b.Output(outs...)
		g := b.Graph()
		in := map[string]*kernel.Tensor{"init": kernel.FromFloat32([]float32{7, 8}, 2), "X": kernel.New(kernel.Float32, 0, 2)}
		for _, m := range pipert.Modes() {
			exe, err := pipert.Compile(g, pipert.WithMode(m))
			if err != nil {
				t.Fatalf("axis %d %v: %v", c.outAxis, m, err)
			}
			res, err := exe.Run(context.Background(), in)
			exe.Close()
			if err != nil {
				t.Fatalf("axis %d %v: %v", c.outAxis, m, err)
			}
			f, sc := res.Outputs[g.Outputs[0]], res.Outputs[g.Outputs[1]]
			if fmt.Sprint(kernel.Float32s(f.Host)) != "[7 8]" || !sc.Shape.Equal(c.shape) || sc.DType != kernel.Float32 {
				t.Fatalf("axis %d %v: final %v, scan %v %v", c.outAxis, m, kernel.Float32s(f.Host), sc.DType, sc.Shape)
			}
		}
	}
	b := subgraph.NewBuilder("scan8")
	lens := b.Input("lens", kernel.Int64, 2)
	init := b.Input("init", kernel.Float32, 2, 2)
	xs := b.Input("X", kernel.Float32, 2, 2, 2)
	outs := b.Node(&subgraph.Node{Name: "scan", Op: "Scan", Inputs: []string{lens, init, xs}, Attrs: kernel.Attrs{
		control.LoopBody: body.Graph(), control.LoopCarried: int64(1), control.ScanInputs: int64(1),
		control.ScanBatched: int64(1), control.ScanSequenceLens: int64(1)}}, 2)
	b.Output(outs...)
	g := b.Graph()
	exe, err := pipert.Compile(g)
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	res, err := exe.Run(context.Background(), map[string]*kernel.Tensor{
		"lens": kernel.FromInt64([]int64{0, 1}, 2),
		"init": kernel.FromFloat32([]float32{0, 100, 1, 1}, 2, 2),
		"X":    kernel.FromFloat32([]float32{1, 2, 3, 4, 10, 20, 30, 40}, 2, 2, 2),
	})
	if err != nil {
		t.Fatal(err)
	}
	f, sc := res.Outputs[g.Outputs[0]], res.Outputs[g.Outputs[1]]
	if fmt.Sprint(kernel.Float32s(f.Host)) != "[0 100 11 21]" || fmt.Sprint(kernel.Float32s(sc.Host)) != "[0 0 0 0 11 21 0 0]" {
		t.Fatalf("batched: final %v, scan %v %v", kernel.Float32s(f.Host), sc.Shape, kernel.Float32s(sc.Host))
	}
}

// TestControlAttributesChecked: a Scan direction other than 0 (forward)
// or 1 (reverse), and an attribute If, Loop or Scan does not know (a
// misspelt one), are errors, not a different scan.
func TestControlAttributesChecked(t *testing.T) {
	res := control.Resolver{Base: ops.Builtins()}
	body := scanGraph(0, 0, 0).Nodes[0].Attrs[control.LoopBody]
	scan := func(extra kernel.Attrs) kernel.Attrs {
		a := kernel.Attrs{control.LoopBody: body, control.LoopCarried: int64(1), control.ScanInputs: int64(1)}
		for k, v := range extra {
			a[k] = v
		}
		return a
	}
	for name, a := range map[string]kernel.Attrs{
		"input direction 7":   scan(kernel.Attrs{control.ScanInputDirections: []int64{7}}),
		"output direction -1": scan(kernel.Attrs{control.ScanOutputDirections: []int64{-1}}),
		"misspelt direction":  scan(kernel.Attrs{"scan_input_direction": []int64{1}}),
	} {
		if _, err := control.NewScan(a, res); err == nil {
			t.Errorf("Scan with %s: no error", name)
		}
	}
	if _, err := control.NewScan(scan(kernel.Attrs{control.ScanInputDirections: []int64{1}, kernel.OpsetAttr: int64(16)}), res); err != nil {
		t.Errorf("Scan reversed: %v", err)
	}
	if _, err := control.NewLoop(kernel.Attrs{control.LoopBody: body, "carried_states": int64(1)}, res); err == nil {
		t.Error("Loop with an unknown attribute: no error")
	}
	branch := branch("b", "ReLU")
	if _, err := control.NewIf(kernel.Attrs{control.ThenBranch: branch, control.ElseBranch: branch, "else": branch}, res); err == nil {
		t.Error("If with an unknown attribute: no error")
	}
}
