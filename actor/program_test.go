package actor

import (
	"bytes"
	"errors"
	"hash/fnv"
	"strings"
	"testing"

	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
)

// TestNameSeedIsFNV: a node's name seed is FNV-1a of its name (mixed), so
// that the random ops' values stay those of earlier releases.
func TestNameSeedIsFNV(t *testing.T) {
	for _, name := range []string{"", "a", "node/7", "then/Add_3", "ünïcode", string([]byte{0, 0xff, 0x80})} {
		h := fnv.New64a()
		h.Write([]byte(name))
		if got, want := nameSeed(name), h.Sum64()*0xbf58476d1ce4e5b9; got != want {
			t.Errorf("nameSeed(%q) = %#x, want %#x", name, got, want)
		}
	}
}

// TestProgramSharesAttributeKeys: nodes of the same op, kernel type and
// attributes share one attribute key; nodes of other attributes have their
// own; every key has attrKey's bytes.
func TestProgramSharesAttributeKeys(t *testing.T) {
	b := subgraph.NewBuilder("keys")
	x := b.Input("x", kernel.Float32, 2, 3)
	r1 := b.Op("ReLU", x)
	r2 := b.Op("ReLU", r1)
	e1 := b.OpAttrs("Elu", kernel.Attrs{"alpha": 0.5}, r2)
	e2 := b.OpAttrs("Elu", kernel.Attrs{"alpha": 0.25}, e1)
	e3 := b.OpAttrs("Elu", kernel.Attrs{"alpha": 0.5}, e2)
	b.Output(e3)
	p, c := lower(t, b.Graph())
	same := func(a, b []byte) bool { return len(a) > 0 && len(b) > 0 && &a[0] == &b[0] }
	nd := p.nodes
	if !same(nd[0].key.attrs, nd[1].key.attrs) || !same(nd[2].key.attrs, nd[4].key.attrs) {
		t.Error("nodes of the same op and attributes do not share their key")
	}
	if same(nd[2].key.attrs, nd[3].key.attrs) || same(nd[0].key.attrs, nd[2].key.attrs) {
		t.Error("nodes of other attributes share a key")
	}
	for i, n := range nd {
		want, opLen, ok := attrKey(nil, n.op(), c.Kernels[c.Order[i]], c.Graph.Nodes[c.Order[i]].Attrs)
		if !ok || !bytes.Equal(n.key.attrs, want) || n.key.global != string(want[:opLen]) {
			t.Errorf("node %d: key %q global %q, want %q and %q", i, n.key.attrs, n.key.global, want, want[:opLen])
		}
		if cap(n.key.attrs) != len(n.key.attrs) {
			t.Errorf("node %d: key has room to append into (%d of %d)", i, len(n.key.attrs), cap(n.key.attrs))
		}
	}
}

// lower validates g against the builtin ops and lowers it, at no cost.
func lower(t *testing.T, g *subgraph.Graph) (*program, *subgraph.Checked) {
	t.Helper()
	c, err := subgraph.Validate(g, ops.Builtins())
	if err != nil {
		t.Fatal(err)
	}
	p, err := newProgram(c, func(int) (plan.Costs, error) { return plan.Costs{}, nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p, c
}

// TestProgramBoundsOperands: a node of more inputs and outputs than a
// node counts is refused with subgraph.ErrArity, naming it; one at the
// bound lowers with its slot lists whole.
func TestProgramBoundsOperands(t *testing.T) {
	for _, n := range []int{maxOperands - 1, maxOperands, maxOperands + 1} { // inputs; one output
		b := subgraph.NewBuilder("wide")
		x := b.Input("x", kernel.Float32, 1)
		ins := make([]string, n)
		for i := range ins {
			ins[i] = x
		}
		b.Output(b.Op("Sum", ins...))
		c, err := subgraph.Validate(b.Graph(), ops.Builtins())
		if err != nil {
			t.Fatal(err)
		}
		p, err := newProgram(c, func(int) (plan.Costs, error) { return plan.Costs{}, nil }, nil)
		if n+1 > maxOperands {
			if !errors.Is(err, subgraph.ErrArity) || !strings.Contains(err.Error(), "Sum") {
				t.Errorf("%d inputs: err = %v, want subgraph.ErrArity naming the node", n, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%d inputs: %v", n, err)
		}
		nd := &p.nodes[0]
		if len(nd.in()) != n || len(nd.out()) != 1 || nd.in()[n-1] != int32(p.inputs[0]) || nd.out()[0] != int32(p.outputs[0]) {
			t.Errorf("%d inputs: lists %d in, %d out", n, len(nd.in()), len(nd.out()))
		}
	}
}
