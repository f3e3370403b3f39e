package control_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/control"
	"github.com/pipert/pipert/internal/leaktest"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
)

func TestMain(m *testing.M) { leaktest.Main(m) }

// branch is a graph of one capture x applying op (twice x for Add), named
// name, with output out.
func branch(name, op string) *subgraph.Graph {
	b := subgraph.NewBuilder(name)
	x := b.Input(name+"/x", kernel.Float32, kernel.Dynamic, kernel.Dynamic)
	if op == "Add" {
		b.Output(b.Op("Add", x, x))
	} else {
		b.Output(b.Op(op, x))
	}
	return b.Graph()
}

// ifGraph is y = If(c, x): ReLU(x) then, x+x else, then y+y outside;
// nested puts a second If (on c2) inside the then branch.
func ifGraph(nested bool) *subgraph.Graph {
	b := subgraph.NewBuilder("if")
	c := b.Input("c", kernel.Bool)
	c2 := b.Input("c2", kernel.Bool)
	x := b.Input("x", kernel.Float32, 2, 3)
	then := branch("then", "ReLU")
	if nested {
		tb := subgraph.NewBuilder("then")
		tx := tb.Input("then/x", kernel.Float32, kernel.Dynamic, kernel.Dynamic)
		tc := tb.Input("then/c2", kernel.Bool)
		inner := &subgraph.Node{Name: "inner", Op: "If", Inputs: []string{tc, tx, tc},
			Attrs: kernel.Attrs{control.ThenBranch: branch2("in_then", "ReLU"), control.ElseBranch: branch2("in_else", "Add")}}
		tb.Node(inner, 1)
		tb.Output(tb.Last().Outputs[0])
		then = tb.Graph()
	}
	els := branch("else", "Add")
	ins := []string{c, x}
	if nested {
		els = withUnused(els)
		ins = []string{c, x, c2}
	}
	b.Node(&subgraph.Node{Name: "if", Op: "If", Inputs: ins, Attrs: kernel.Attrs{control.ThenBranch: then, control.ElseBranch: els}}, 1)
	y := b.Last().Outputs[0]
	b.Output(b.Op("Add", y, y))
	return b.Graph()
}

// nestedUnknown is a then branch holding an If whose else branch applies
// an op no registry has.
func nestedUnknown() *subgraph.Graph {
	tb := subgraph.NewBuilder("t")
	tx := tb.Input("t/x", kernel.Float32, kernel.Dynamic, kernel.Dynamic)
	tc := tb.Input("t/c", kernel.Bool)
	tb.Node(&subgraph.Node{Name: "inner", Op: "If", Inputs: []string{tc, tx},
		Attrs: kernel.Attrs{control.ThenBranch: branch("in_then", "ReLU"), control.ElseBranch: branch("in_else", "Nope")}}, 1)
	tb.Output(tb.Last().Outputs[0])
	return tb.Graph()
}

// branch2 is branch with a second, unused, bool capture.
func branch2(name, op string) *subgraph.Graph { return withUnused(branch(name, op)) }

func withUnused(g *subgraph.Graph) *subgraph.Graph {
	g.Inputs = append(g.Inputs, subgraph.Value{Name: g.Name + "/unused", DType: kernel.Bool})
	return g
}

func TestIfTakesTheBranchTheConditionSays(t *testing.T) {
	x := []float32{-1, 2, -3, 4, -5, 6}
	relu := []float32{0, 4, 0, 8, 0, 12}        // 2 ReLU(x)
	twice := []float32{-4, 8, -12, 16, -20, 24} // 2 (x+x)
	res := control.Resolver{Base: ops.Builtins()}
	for _, nested := range []bool{false, true} {
		for _, m := range []pipert.Mode{pipert.KBK, pipert.Async, pipert.Pipeline} {
			for _, b := range []pipert.BarrierPolicy{pipert.Drain, pipert.PerTensor} {
				exe, err := pipert.Compile(ifGraph(nested), pipert.WithRegistry(res), pipert.WithMode(m), pipert.WithBarrier(b))
				if err != nil {
					t.Fatal(err)
				}
				for _, tc := range []struct {
					c, c2 bool
					want  []float32
				}{{true, true, relu}, {false, true, twice}, {true, false, relu}, {false, false, twice}} {
					want := tc.want
					if nested && tc.c && !tc.c2 {
						want = twice // the inner else: x+x
					}
					in := map[string]*kernel.Tensor{"c": boolT(tc.c), "c2": boolT(tc.c2), "x": kernel.FromFloat32(x, 2, 3)}
					r, err := exe.Run(context.Background(), in)
					if err != nil {
						t.Fatalf("nested %v %v/%v c=%v c2=%v: %v", nested, m, b, tc.c, tc.c2, err)
					}
					var got []float32
					for _, o := range r.Outputs {
						got = kernel.Float32s(o.Host)
					}
					if !slices.Equal(got, want) {
						t.Fatalf("nested %v %v/%v c=%v c2=%v: %v, want %v", nested, m, b, tc.c, tc.c2, got, want)
					}
				}
				exe.Close()
			}
		}
	}
}

func boolT(v bool) *kernel.Tensor {
	t := kernel.New(kernel.Bool)
	if v {
		t.Host[0] = 1
	}
	return t
}

func TestIfOnVirtualDataInfersShapes(t *testing.T) {
	exe, err := pipert.Compile(ifGraph(false), pipert.WithRegistry(control.Resolver{Base: ops.Builtins()}), pipert.WithMode(pipert.Pipeline))
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	r, err := exe.Run(context.Background(), map[string]*kernel.Tensor{"c": boolT(true), "c2": boolT(true), "x": kernel.Virtual(kernel.Float32, 2, 3)})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range r.Outputs {
		if o.Host != nil || !o.Shape.Equal(kernel.Shape{2, 3}) {
			t.Fatalf("output %v", o)
		}
	}
}

func TestIfMisuse(t *testing.T) {
	res := control.Resolver{Base: ops.Builtins()}
	for name, c := range map[string]struct {
		attrs kernel.Attrs
		says  string
	}{
		"no branches":    {kernel.Attrs{}, `"then_branch" is missing`},
		"not a graph":    {kernel.Attrs{control.ThenBranch: "x", control.ElseBranch: branch("e", "ReLU")}, "is string, want a *subgraph.Graph"},
		"nil graph":      {kernel.Attrs{control.ThenBranch: branch("t", "ReLU"), control.ElseBranch: (*subgraph.Graph)(nil)}, `"else_branch" is a nil *subgraph.Graph`},
		"output counts":  {kernel.Attrs{control.ThenBranch: branch("t", "ReLU"), control.ElseBranch: &subgraph.Graph{Name: "e", Inputs: branch("e", "ReLU").Inputs}}, ""},
		"capture counts": {kernel.Attrs{control.ThenBranch: branch("t", "ReLU"), control.ElseBranch: branch2("e", "ReLU")}, ""},
		"unknown op":     {kernel.Attrs{control.ThenBranch: branch("t", "ReLU"), control.ElseBranch: branch("e", "Relu")}, `graph "e" node "relu_0": "Relu" is not registered`},
		"unknown op in a nested If": {kernel.Attrs{control.ThenBranch: nestedUnknown(), control.ElseBranch: branch("e", "Add")},
			`graph "in_else" node "nope_0": "Nope" is not registered`},
	} {
		_, err := res.New("If", c.attrs)
		if !errors.Is(err, control.ErrBranch) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want ErrBranch saying %q", name, err, c.says)
		}
		if strings.HasPrefix(name, "unknown op") && !errors.Is(err, subgraph.ErrUnknownOp) {
			t.Errorf("%s: %v, want ErrUnknownOp", name, err)
		}
	}
	// Validate meets it where it makes the If's kernel, in Loop and Scan
	// bodies as in branches.
	for _, op := range []string{"If", "Loop", "Scan"} {
		attrs := kernel.Attrs{control.ThenBranch: branch("t", "ReLU"), control.ElseBranch: branch("e", "Relu")}
		if op != "If" {
			attrs = kernel.Attrs{control.LoopBody: branch("body", "Relu")}
		}
		b := subgraph.NewBuilder("g")
		x := b.Input("x", kernel.Float32, 2)
		b.Node(&subgraph.Node{Name: "cf", Op: op, Inputs: []string{x}, Attrs: attrs}, 1)
		b.Output(b.Last().Outputs[0])
		if _, err := subgraph.Validate(b.Graph(), res); !errors.Is(err, subgraph.ErrUnknownOp) || !strings.Contains(err.Error(), `"Relu" is not registered`) {
			t.Errorf("%s: Validate: %v, want ErrUnknownOp naming Relu", op, err)
		}
	}
	// A condition that is not a bool scalar fails the run, naming the node.
	b := subgraph.NewBuilder("bad")
	c := b.Input("c", kernel.Float32, 2)
	x := b.Input("x", kernel.Float32, 2, 3)
	b.Node(&subgraph.Node{Name: "if", Op: "If", Inputs: []string{c, x}, Attrs: kernel.Attrs{control.ThenBranch: branch("t", "ReLU"), control.ElseBranch: branch("e", "Add")}}, 1)
	b.Output(b.Last().Outputs[0])
	exe, err := pipert.Compile(b.Graph(), pipert.WithRegistry(res))
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	_, err = exe.Run(context.Background(), map[string]*kernel.Tensor{"c": kernel.FromFloat32([]float32{1, 0}, 2), "x": kernel.FromFloat32(make([]float32, 6), 2, 3)})
	var ke *kernel.Error
	if !errors.As(err, &ke) || ke.Node != "if" {
		t.Fatalf("error %v does not name the If node", err)
	}
}

// TestIfBranchDrawsByRun: a random generator in the branch of an If that
// a Loop's body runs (on the host, not spliced) draws on from iteration
// to iteration and run to run, as one outside a branch does, and the n-th
// run draws the same in every mode.
func TestIfBranchDrawsByRun(t *testing.T) {
	then := subgraph.NewBuilder("then")
	tx := then.Input("then/x", kernel.Float32, 4)
	then.Output(then.Op("Add", tx, then.OpAttrs("RandomUniform", kernel.Attrs{"shape": []int64{4}, "seed": 7.0})))
	body := subgraph.NewBuilder("body")
	body.Input("i", kernel.Int64)
	bc := body.Input("c", kernel.Bool)
	bx := body.Input("x", kernel.Float32, 4)
	body.Node(&subgraph.Node{Name: "if", Op: "If", Inputs: []string{bc, bx},
		Attrs: kernel.Attrs{control.ThenBranch: then.Graph(), control.ElseBranch: branch("else", "Add")}}, 1)
	drawn := body.Last().Outputs[0]
	body.Output(body.Op("Identity", bc), bx, drawn)
	b := subgraph.NewBuilder("loop")
	x := b.Input("x", kernel.Float32, 4)
	m := b.Const("M", kernel.FromInt64([]int64{3}))
	c := b.Const("c", &kernel.Tensor{DType: kernel.Bool, Shape: kernel.Shape{}, Host: []byte{1}})
	outs := b.Node(&subgraph.Node{Name: "loop", Op: "Loop", Inputs: []string{m, c, x},
		Attrs: kernel.Attrs{control.LoopBody: body.Graph(), control.LoopCarried: int64(1)}}, 2)
	b.Output(outs[1])
	g := b.Graph()
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, 2, 3, 4}, 4)}
	draws := func(opts ...pipert.Option) [2][]float32 {
		exe, err := pipert.Compile(g, append(opts, pipert.WithRegistry(control.Resolver{Base: ops.Builtins()}))...)
		if err != nil {
			t.Fatal(err)
		}
		defer exe.Close()
		var d [2][]float32
		for i := range d {
			res, err := exe.Run(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			d[i] = kernel.Float32s(res.Outputs[outs[1]].Host)
		}
		return d
	}
	want := draws(pipert.WithMode(pipert.KBK))
	for r, d := range want {
		if slices.Equal(d[:4], d[4:8]) || slices.Equal(d[4:8], d[8:]) {
			t.Errorf("KBK run %d: the iterations drew the same: %v", r+1, d)
		}
	}
	if slices.Equal(want[0], want[1]) {
		t.Errorf("KBK's runs drew the same: %v", want[0])
	}
	settings := everySetting(nil)
	for name, opts := range settings {
		if got := draws(opts...); !slices.Equal(got[0], want[0]) || !slices.Equal(got[1], want[1]) {
			t.Errorf("%s: runs drew %v, KBK %v", name, got, want)
		}
	}
}

// everySetting is the options of each mode, by name, and of a
// heterogeneous run placed by placer ("heterogeneous").
func everySetting(placer plan.Placer) map[string][]pipert.Option {
	settings := map[string][]pipert.Option{"heterogeneous": {pipert.WithHeterogeneous(placer)}}
	for _, m := range pipert.Modes() {
		settings[m.String()] = []pipert.Option{pipert.WithMode(m)}
	}
	return settings
}
