package actor_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pipert/pipert/actor"
	"github.com/pipert/pipert/control"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/internal/graphtest"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
)

var branchOps = control.Resolver{Base: ops.Builtins()}

// randomBranch is a branch over captures x and y with two outputs: a
// random graph (compute and value dependencies included), or, while depth
// lasts, a nested If on a condition computed from the captures.
func randomBranch(rng *rand.Rand, name string, depth int) *subgraph.Graph {
	if depth == 0 || rng.IntN(3) == 0 {
		g, _ := graphtest.Random(rng, graphtest.Options{Nodes: 2 + rng.IntN(6), ValueDeps: true})
		g.Name = name
		g.Outputs = g.Outputs[:2]
		return g
	}
	b := subgraph.NewBuilder(name)
	x := b.Input("x", kernel.Float32, 3, 4)
	y := b.Input("y", kernel.Float32, 3, 4)
	o := ifNode(rng, b, x, y, name+"/", depth-1)
	b.Output(o[1], b.Op("ReLU", o[0]))
	return b.Graph()
}

// ifNode adds If(sum(x·y) > 0, x, y) with random branches to b.
func ifNode(rng *rand.Rand, b *subgraph.Builder, x, y, prefix string, depth int) []string {
	zero := b.Const(prefix+"zero", kernel.FromFloat32([]float32{0}))
	sum := b.OpAttrs("ReduceSum", kernel.Attrs{"keepdims": false}, b.Op("Mul", x, y))
	cond := b.Op("Greater", sum, zero)
	return b.Node(&subgraph.Node{Name: prefix + "if", Op: "If", Inputs: []string{cond, x, y}, Attrs: kernel.Attrs{
		control.ThenBranch: randomBranch(rng, prefix+"then", depth),
		control.ElseBranch: randomBranch(rng, prefix+"else", depth),
	}}, 2)
}

// randomIfGraph is a graph around one random, possibly nested, If.
func randomIfGraph(rng *rand.Rand) *subgraph.Graph {
	b := subgraph.NewBuilder("randomif")
	x := b.Input("x", kernel.Float32, 3, 4)
	y := b.Input("y", kernel.Float32, 3, 4)
	o := ifNode(rng, b, x, y, "", 2)
	b.Output(o[0], b.Op("GELU", o[1]))
	return b.Graph()
}

func randomInput(rng *rand.Rand) *kernel.Tensor {
	t := kernel.New(kernel.Float32, 3, 4)
	v := kernel.Float32s(t.Host)
	for i := range v {
		v[i] = float32(rng.IntN(7)-3) / 2
	}
	return t
}

// actorFor is newActor with the control resolver, closed at the end of
// the test.
func actorFor(t *testing.T, g *subgraph.Graph, cfg plan.Config) (*actor.SuperKernelActor, device.Device) {
	t.Helper()
	cfg.Registry = branchOps
	a, dev, done := newActor(t, g, cfg, branchOps)
	t.Cleanup(done)
	return a, dev
}

// TestSplicedIfsMatchHostEvaluation runs random graphs of nested runtime
// Ifs (whose branches hold compute and value dependencies and whose
// conditions are computed on the device) in every mode: each mode splices
// the branches into its execution order and launches only the taken
// branch's kernels, and the outputs are bit-identical to evaluating the
// graph on the host (control.Eval, where each If runs its branch inside
// its InferShape), run after run on one actor with the conditions
// changing, with every host cache on too.
func TestSplicedIfsMatchHostEvaluation(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 11))
		g := randomIfGraph(rng)
		runs := make([][]*kernel.Tensor, 4)
		want := make([][]*kernel.Tensor, len(runs))
		for i := range runs {
			runs[i] = []*kernel.Tensor{randomInput(rng), randomInput(rng)}
			out, _, err := control.Eval(g, runs[i], branchOps)
			if err != nil {
				t.Fatalf("seed %d run %d: host evaluation: %v", seed, i, err)
			}
			want[i] = out
		}
		all := plan.Caches{Kinds: plan.TilingLocal | plan.TilingGlobal | plan.InferReuse | plan.SetupReuse}
		cached := []plan.Config{{Mode: plan.KBK, Caches: all}, {Mode: plan.Pipeline, Caches: all}}
		for _, v := range append(variants[:len(variants):len(variants)], cached...) {
			a, dev := actorFor(t, g, v)
			if a.Kernels() <= len(g.Nodes) {
				t.Fatalf("seed %d %s: %d kernels for %d nodes: the If was not spliced", seed, name(v), a.Kernels(), len(g.Nodes))
			}
			for i, in := range runs {
				k0 := dev.Stats().Kernels
				got, st, err := a.Run(context.Background(), in)
				if err != nil {
					t.Fatalf("seed %d run %d %s: %v", seed, i, name(v), err)
				}
				if err := sameOutputs(want[i], got); err != nil {
					t.Fatalf("seed %d run %d %s: %v", seed, i, name(v), err)
				}
				if n := dev.Stats().Kernels - k0; n >= int64(st.Kernels) {
					t.Fatalf("seed %d run %d %s: %d of %d kernels launched: no branch was skipped", seed, i, name(v), n, st.Kernels)
				}
			}
		}
	}
}

// ifOn is y = If(c, x): ReLU(x) then, a reshape of x to shape s else
// (which fails when s does not fit x), then y+y.
func ifOn(cShape ...int64) *subgraph.Graph {
	then := subgraph.NewBuilder("then")
	tx := then.Input("x", kernel.Float32, kernel.Dynamic, kernel.Dynamic)
	then.Input("s", kernel.Int64, kernel.Dynamic)
	then.Output(then.Op("ReLU", tx))
	els := subgraph.NewBuilder("else")
	ex := els.Input("x", kernel.Float32, kernel.Dynamic, kernel.Dynamic)
	es := els.Input("s", kernel.Int64, kernel.Dynamic)
	els.Output(els.Op("Reshape", ex, es))
	b := subgraph.NewBuilder("g")
	c := b.Input("c", kernel.Bool, cShape...)
	x := b.Input("x", kernel.Float32, 2, 3)
	s := b.Input("s", kernel.Int64, 2)
	o := b.Node(&subgraph.Node{Name: "if", Op: "If", Inputs: []string{c, x, s},
		Attrs: kernel.Attrs{control.ThenBranch: then.Graph(), control.ElseBranch: els.Graph()}}, 1)
	b.Output(b.Op("Add", o[0], o[0]))
	return b.Graph()
}

func TestSplicedIfErrorsNameTheNode(t *testing.T) {
	x := kernel.FromFloat32([]float32{-1, 2, -3, 4, -5, 6}, 2, 3)
	bad := kernel.FromInt64([]int64{4, 4}, 2)
	cond := func(v ...bool) *kernel.Tensor {
		t := kernel.New(kernel.Bool, int64(len(v)))
		for i, b := range v {
			if b {
				t.Host[i] = 1
			}
		}
		return t
	}
	for _, v := range variants {
		// A condition of two elements fails the If node itself.
		a, _ := actorFor(t, ifOn(2), v)
		_, _, err := a.Run(context.Background(), []*kernel.Tensor{cond(true, false), x, bad})
		var ke *kernel.Error
		if !errors.As(err, &ke) || ke.Node != "if" || ke.Stage != kernel.StageInfer || !strings.Contains(err.Error(), "single element") {
			t.Fatalf("%s: two-element condition: %v", name(v), err)
		}
		// A failing node of the taken branch fails the run; the actor
		// runs again, and the branch not taken may be the one that
		// would fail.
		a, dev := actorFor(t, ifOn(1), v)
		_, _, err = a.Run(context.Background(), []*kernel.Tensor{cond(false), x, bad})
		if !errors.As(err, &ke) || !strings.Contains(err.Error(), "Reshape") {
			t.Fatalf("%s: failing else branch: %v", name(v), err)
		}
		consts := dev.Stats().MemInUse
		out, _, err := a.Run(context.Background(), []*kernel.Tensor{cond(true), x, bad})
		if err != nil {
			t.Fatalf("%s: run after a failed run: %v", name(v), err)
		}
		if got := kernel.Float32s(out[0].Host); fmt.Sprint(got) != "[0 4 0 8 0 12]" {
			t.Fatalf("%s: then branch gave %v", name(v), got)
		}
		if got := dev.Stats().MemInUse; got != consts {
			t.Fatalf("%s: %d bytes in use after the run, constants hold %d", name(v), got, consts)
		}
	}
}

// TestStagingDoesNotRaceWithLaunches: a tensor read as data by one node and
// as a value dependency by a later one is staged to the host while the
// first may still be launching; under -race this fails if staging writes
// the tensor the launch reads.
func TestStagingDoesNotRaceWithLaunches(t *testing.T) {
	b := subgraph.NewBuilder("stage")
	x := b.Input("x", kernel.Float32, 2, 3)
	s := b.Op("Shape", b.Op("ReLU", x))
	c := b.OpAttrs("Cast", kernel.Attrs{"to": "float32"}, s)
	r := b.Op("Reshape", x, s)
	b.Output(c, r)
	in := []*kernel.Tensor{kernel.FromFloat32([]float32{1, -2, 3, -4, 5, -6}, 2, 3)}
	for _, v := range variants {
		a, _ := actorFor(t, b.Graph(), v)
		for range 20 {
			out, _, err := a.Run(context.Background(), in)
			if err != nil {
				t.Fatalf("%s: %v", name(v), err)
			}
			if fmt.Sprint(kernel.Float32s(out[0].Host)) != "[2 3]" || !out[1].Shape.Equal(kernel.Shape{2, 3}) {
				t.Fatalf("%s: outputs %v %v", name(v), out[0], out[1])
			}
		}
	}
}
