package subgraph_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

// TestGraphHoldingItself: a graph one of whose nodes holds it in an
// attribute (directly, as an If's branch, or through a subgraph) clones
// without end of recursion, and Validate refuses it with ErrCycle.
func TestGraphHoldingItself(t *testing.T) {
	direct := &subgraph.Graph{Name: "g", Inputs: []subgraph.Value{{Name: "x", DType: kernel.Float32, Shape: kernel.Shape{2}}}, Outputs: []string{"y"}}
	direct.Nodes = []*subgraph.Node{{Name: "n", Op: "ReLU", Inputs: []string{"x"}, Outputs: []string{"y"}, Attrs: kernel.Attrs{"oops": direct}}}
	inner := &subgraph.Graph{Name: "inner"}
	outer := &subgraph.Graph{Name: "outer", Inputs: direct.Inputs, Outputs: []string{"y"},
		Nodes: []*subgraph.Node{{Name: "n", Op: "ReLU", Inputs: []string{"x"}, Outputs: []string{"y"}, Attrs: kernel.Attrs{"branches": []*subgraph.Graph{inner}}}}}
	inner.Nodes = []*subgraph.Node{{Name: "m", Op: "ReLU", Attrs: kernel.Attrs{"back": outer}}}
	for _, g := range []*subgraph.Graph{direct, outer} {
		c := g.Clone()
		if c == g || c.Nodes[0] == g.Nodes[0] {
			t.Fatalf("%s: the clone shares its nodes", g.Name)
		}
		for _, h := range []*subgraph.Graph{g, c} {
			if _, err := subgraph.Validate(h, ops.Builtins()); !errors.Is(err, subgraph.ErrCycle) {
				t.Errorf("%s: Validate = %v, want ErrCycle", g.Name, err)
			}
		}
	}
	if c := direct.Clone(); c.Nodes[0].Attrs["oops"] != c {
		t.Error("the clone of a graph holding itself does not hold itself")
	}
}

// TestCloneKeepsSharedSubgraphsShared: a subgraph two attributes hold is
// copied once, at every level: a chain of 40 levels, each holding the
// next twice (2^40 paths), clones at once.
func TestCloneKeepsSharedSubgraphsShared(t *testing.T) {
	cur := &subgraph.Graph{Name: "leaf"}
	for range 40 {
		cur = &subgraph.Graph{Name: "level", Nodes: []*subgraph.Node{{Name: "n", Op: "ReLU", Attrs: kernel.Attrs{"a": cur, "b": cur}}}}
	}
	c := cur.Clone()
	for level := c; level.Name == "level"; level = level.Nodes[0].Attrs["a"].(*subgraph.Graph) {
		a, b := level.Nodes[0].Attrs["a"], level.Nodes[0].Attrs["b"]
		if a != b {
			t.Fatal("the clone copied a shared subgraph twice")
		}
	}
}

// TestBuilderGeneratedNamesAvoidGivenOnes: a generated node or output name
// skips names the caller gave (a node named relu_0, an input named
// relu_1:0), so the built graph validates; a node asking for more outputs
// than the Builder generates gets none, and Build reports its arity.
func TestBuilderGeneratedNamesAvoidGivenOnes(t *testing.T) {
	b := subgraph.NewBuilder("g")
	x := b.Input("relu_1:0", kernel.Float32, 2)
	first := b.Node(&subgraph.Node{Name: "relu_0", Op: "ReLU", Inputs: []string{x}}, 1)
	second := b.Op("ReLU", first[0])
	b.Output(second)
	g, err := b.Build(ops.Builtins())
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	if n := g.Nodes[1].Name; n == "relu_0" || n == "relu_1" {
		t.Errorf("the generated node is %q, a name taken", n)
	}
	b = subgraph.NewBuilder("huge")
	if outs := b.Node(&subgraph.Node{Op: "ReLU", Inputs: []string{b.Input("x", kernel.Float32, 2)}}, 1<<40); len(outs) != 0 {
		t.Errorf("a node of 2^40 outputs got %d", len(outs))
	}
	if _, err := b.Build(ops.Builtins()); err == nil {
		t.Error("a node without its outputs built")
	}
}

// TestValidateWithoutResolver: Validate (and Build) with a nil resolver,
// or a nil *ops.Registry, says so, matching ErrUnknownOp, instead of
// calling every op unknown or reporting a panic of the caller's code.
func TestValidateWithoutResolver(t *testing.T) {
	b := subgraph.NewBuilder("g")
	b.Output(b.Op("ReLU", b.Input("x", kernel.Float32, 2)))
	var none *ops.Registry
	for _, reg := range []kernel.Resolver{nil, none} {
		_, err := subgraph.Validate(b.Graph(), reg)
		if !errors.Is(err, subgraph.ErrUnknownOp) || !strings.Contains(err.Error(), "nil resolver") {
			t.Errorf("resolver %#v: %v, want ErrUnknownOp naming the nil resolver", reg, err)
		}
	}
	k, err := ops.Builtins().New("ReLU", kernel.Attrs{"bogus": int64(1)})
	if err == nil || !strings.Contains(err.Error(), "takes none") {
		t.Errorf("ReLU with an attribute: %v, %v; want an error saying it takes none", k, err)
	}
}
