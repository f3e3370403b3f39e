package subgraph_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pipert/pipert/internal/graphtest"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

func labels(c *subgraph.Checked) func(int) subgraph.Placement {
	return func(i int) subgraph.Placement { return c.Graph.Nodes[i].Placement }
}

func onCPU(p subgraph.Placement) bool { return p == subgraph.OnCPU }

func TestPartitionProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 300 {
		n := 1 + rng.IntN(60)
		flip := []float64{0, 0.1, 0.3, 0.7}[iter%4]
		g, _ := graphtest.Random(rng, graphtest.Options{Nodes: n, Flip: flip, ValueDeps: iter%2 == 1})
		c, err := subgraph.Validate(g, reg())
		if err != nil {
			t.Fatalf("graph %d: %v", iter, err)
		}
		var chains func(subgraph.Placement) bool
		if iter%3 == 0 {
			chains = onCPU
		}
		p, err := subgraph.Partition(c, labels(c), chains)
		if err != nil {
			t.Fatalf("graph %d: %v", iter, err)
		}
		if err := checkPartition(c, p, chains); err != nil {
			t.Fatalf("graph %d (%d nodes, flip %v, chains %v): %v", iter, n, flip, chains != nil, err)
		}
		again, err := subgraph.Partition(c, labels(c), chains)
		if err != nil || !reflect.DeepEqual(p, again) {
			t.Fatalf("graph %d: partition is not deterministic (%v)", iter, err)
		}
	}
}

// checkPartition checks every invariant of a Partitioning against the
// graph, with simple reference computations, and Partition's grouping.
func checkPartition(c *subgraph.Checked, p *subgraph.Partitioning, chains func(subgraph.Placement) bool) error {
	if err := checkParts(c, p); err != nil {
		return err
	}
	return checkGrouping(c, p, chains)
}

// checkParts checks the invariants of a Partitioning: nodes, order,
// edges, outputs, parts that validate, convex parts.
func checkParts(c *subgraph.Checked, p *subgraph.Partitioning) error {
	g := c.Graph
	n := len(g.Nodes)
	// 1. Every node in exactly one part, Of consistent, one placement each.
	count := make([]int, n)
	for k, part := range p.Parts {
		if len(part.Nodes) == 0 {
			return fmt.Errorf("part %d is empty", k)
		}
		for _, i := range part.Nodes {
			count[i]++
			if p.Of[i] != k {
				return fmt.Errorf("node %d in part %d, Of says %d", i, k, p.Of[i])
			}
			if g.Nodes[i].Placement != part.Placement {
				return fmt.Errorf("node %s (%v) in part %d of placement %v", g.Nodes[i].Name, g.Nodes[i].Placement, k, part.Placement)
			}
		}
		if len(part.Graph.Nodes) != len(part.Nodes) {
			return fmt.Errorf("part %d: %d graph nodes for %d node indices", k, len(part.Graph.Nodes), len(part.Nodes))
		}
		for j, i := range part.Nodes {
			if part.Graph.Nodes[j].Name != g.Nodes[i].Name {
				return fmt.Errorf("part %d: node %d is %s, want %s", k, j, part.Graph.Nodes[j].Name, g.Nodes[i].Name)
			}
		}
	}
	for i, k := range count {
		if k != 1 {
			return fmt.Errorf("node %s is in %d parts", g.Nodes[i].Name, k)
		}
	}
	// 2. Parts are in topological order: every cut edge goes forward.
	for v, nd := range g.Nodes {
		for _, in := range nd.Inputs {
			if u := c.Producer[in]; u >= 0 && p.Of[u] > p.Of[v] {
				return fmt.Errorf("edge %s -> %s goes from part %d back to part %d", g.Nodes[u].Name, nd.Name, p.Of[u], p.Of[v])
			}
		}
	}
	// 3. Every edge is kept.
	edges := map[subgraph.Edge]bool{}
	for _, e := range p.Edges {
		edges[e] = true
	}
	for k, part := range p.Parts {
		sg := part.Graph
		if len(part.Sources) != len(sg.Inputs) {
			return fmt.Errorf("part %d: %d sources for %d inputs", k, len(part.Sources), len(sg.Inputs))
		}
		declared := map[string]int{}
		for j, v := range sg.Inputs {
			declared[v.Name] = part.Sources[j]
		}
		consts := map[string]bool{}
		for _, kc := range sg.Consts {
			consts[kc.Name] = true
		}
		for _, i := range part.Nodes {
			for _, in := range g.Nodes[i].Inputs {
				u := c.Producer[in]
				switch {
				case u >= 0 && p.Of[u] == k:
				case u >= 0:
					from, ok := declared[in]
					if !ok || from != p.Of[u] {
						return fmt.Errorf("part %d: input %s from part %d not declared (declared from %d, %v)", k, in, p.Of[u], from, ok)
					}
					if !edges[subgraph.Edge{Tensor: in, From: from, To: k}] {
						return fmt.Errorf("part %d: no edge for %s from part %d", k, in, from)
					}
					if !slices.Contains(p.Parts[from].Graph.Outputs, in) {
						return fmt.Errorf("part %d does not output %s, which part %d reads", from, in, k)
					}
				case consts[in]:
				default:
					if from, ok := declared[in]; !ok || from != -1 {
						return fmt.Errorf("part %d: graph input %s not declared", k, in)
					}
				}
			}
		}
	}
	for _, e := range p.Edges {
		if e.From == e.To || !slices.Contains(p.Parts[e.From].Graph.Outputs, e.Tensor) {
			return fmt.Errorf("edge %+v is not a cut", e)
		}
	}
	// 4. Graph outputs kept.
	for _, o := range g.Outputs {
		if u := c.Producer[o]; u >= 0 && !slices.Contains(p.Parts[p.Of[u]].Graph.Outputs, o) {
			return fmt.Errorf("graph output %s is not an output of part %d", o, p.Of[u])
		}
	}
	// 5. Each part validates.
	for k, part := range p.Parts {
		if _, err := subgraph.Validate(part.Graph, reg()); err != nil {
			return fmt.Errorf("part %d does not validate: %v", k, err)
		}
	}
	// 6. Parts are convex.
	anc := closure(c, false)
	desc := closure(c, true)
	for _, part := range p.Parts {
		for _, i := range part.Nodes {
			for j := range len(g.Nodes) {
				// j strictly between two members of the part must be in it.
				if desc[i][j] && p.Of[j] != p.Of[i] {
					for _, m := range part.Nodes {
						if anc[m][j] {
							return fmt.Errorf("path from %s through %s back into its part", g.Nodes[i].Name, g.Nodes[j].Name)
						}
					}
				}
			}
		}
	}
	return nil
}

// checkGrouping checks Partition's grouping: nodes share a part only with
// equal placement and foreign ancestor and descendant sets; adjacent nodes
// with equal ones share a part (for chained placements, along chains).
func checkGrouping(c *subgraph.Checked, p *subgraph.Partitioning, chains func(subgraph.Placement) bool) error {
	g := c.Graph
	n := len(g.Nodes)
	anc := closure(c, false)
	desc := closure(c, true)
	foreign := func(set []bool, pl subgraph.Placement) string {
		b := make([]byte, n)
		for i, in := range set {
			if in && g.Nodes[i].Placement != pl {
				b[i] = 1
			}
		}
		return string(b)
	}
	key := make([]string, n)
	for v, nd := range g.Nodes {
		key[v] = fmt.Sprint(nd.Placement) + foreign(anc[v], nd.Placement) + foreign(desc[v], nd.Placement)
	}
	// sameKey counts the distinct producers (or consumers) of v with v's key.
	sameKey := func(v int, consumers bool) int {
		seen := map[int]bool{}
		for w, nw := range g.Nodes {
			for _, in := range nw.Inputs {
				u := c.Producer[in]
				a, b := u, w // a produces for b
				if u < 0 || (!consumers && b != v) || (consumers && a != v) {
					continue
				}
				other := a
				if consumers {
					other = b
				}
				if key[other] == key[v] {
					seen[other] = true
				}
			}
		}
		return len(seen)
	}
	for v, nd := range g.Nodes {
		for _, in := range nd.Inputs {
			u := c.Producer[in]
			if u < 0 {
				continue
			}
			want := key[u] == key[v]
			if want && chains != nil && chains(nd.Placement) {
				want = sameKey(u, true) == 1 && sameKey(v, false) == 1
			}
			if want != (p.Of[u] == p.Of[v]) {
				return fmt.Errorf("adjacent %s and %s: same key %v, same part %v", g.Nodes[u].Name, nd.Name, key[u] == key[v], p.Of[u] == p.Of[v])
			}
		}
	}
	for _, part := range p.Parts {
		for _, i := range part.Nodes {
			if key[i] != key[part.Nodes[0]] {
				return fmt.Errorf("part holds %s and %s of different keys", g.Nodes[i].Name, g.Nodes[part.Nodes[0]].Name)
			}
		}
	}
	return nil
}

// closure returns, for each node, the set of its strict ancestors (or
// descendants), by repeated relaxation: slow and obviously right.
func closure(c *subgraph.Checked, down bool) [][]bool {
	g := c.Graph
	n := len(g.Nodes)
	r := make([][]bool, n)
	for i := range r {
		r[i] = make([]bool, n)
	}
	for changed := true; changed; {
		changed = false
		for v, nd := range g.Nodes {
			for _, in := range nd.Inputs {
				u := c.Producer[in]
				if u < 0 {
					continue
				}
				from, to := u, v // v's ancestors include u's
				if down {
					from, to = v, u
				}
				if !r[to][from] {
					r[to][from], changed = true, true
				}
				for j := range n {
					if r[from][j] && !r[to][j] {
						r[to][j], changed = true, true
					}
				}
			}
		}
	}
	return r
}

func TestPartitionCutsWhereTheOtherSideJoins(t *testing.T) {
	// A CPU chain c0..c3 and a device chain d0..d3; c1 feeds d2, and the
	// CPU post-processing p reads d3. The CPU chain splits after c1 (its
	// foreign descendants change), the device chain before d2 (its foreign
	// ancestors change), so d0..d1 need not wait for the CPU at all.
	b := subgraph.NewBuilder("join")
	x := b.Input("x", kernel.Float32, 4)
	y := b.Input("y", kernel.Float32, 4)
	cpu := func(out string) string { b.Last().Placement = subgraph.OnCPU; return out }
	dev := func(out string) string { b.Last().Placement = subgraph.OnDevice; return out }
	c0 := cpu(b.Op("ReLU", x))
	c1 := cpu(b.Op("ReLU", c0))
	c2 := cpu(b.Op("ReLU", c1))
	c3 := cpu(b.Op("ReLU", c2))
	d0 := dev(b.Op("GELU", y))
	d1 := dev(b.Op("GELU", d0))
	d2 := dev(b.Op("Add", d1, c1))
	d3 := dev(b.Op("GELU", d2))
	p := cpu(b.Op("Add", d3, c3))
	b.Output(p)
	c, err := subgraph.Validate(b.Graph(), reg())
	if err != nil {
		t.Fatal(err)
	}
	part, err := subgraph.Partition(c, labels(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, pt := range part.Parts {
		var names []string
		for _, n := range pt.Graph.Nodes {
			names = append(names, n.Name)
		}
		got = append(got, fmt.Sprintf("%v%v", pt.Placement, names))
	}
	want := []string{"cpu[relu_0 relu_1]", "cpu[relu_2 relu_3]", "device[gelu_0 gelu_1]", "device[add_0 gelu_2]", "cpu[add_1]"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parts %v, want %v", got, want)
	}
	if err := checkPartition(c, part, nil); err != nil {
		t.Fatal(err)
	}
	_ = []string{c2, d2}
}

func TestPartitionOfOnePlacementIsTheGraph(t *testing.T) {
	g := chain().Graph()
	c, err := subgraph.Validate(g, reg())
	if err != nil {
		t.Fatal(err)
	}
	p, err := subgraph.Partition(c, func(int) subgraph.Placement { return subgraph.OnDevice }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Parts) != 1 || len(p.Edges) != 0 || len(p.Parts[0].Nodes) != len(g.Nodes) {
		t.Fatalf("partition %+v", p)
	}
	if pg := p.Parts[0].Graph; !reflect.DeepEqual(pg.Outputs, g.Outputs) || len(pg.Inputs) != 1 {
		t.Fatalf("part graph %+v", pg)
	}
}

func TestPartitionDeclaresDynamicCrossTensors(t *testing.T) {
	// Unique's output has no static shape; crossing to the CPU it is
	// declared as float32 of rank 1 with a dynamic dimension.
	b := subgraph.NewBuilder("dyn")
	x := b.Input("x", kernel.Float32, 3, 4)
	u := b.Op("Unique", x)
	b.Last().Placement = subgraph.OnDevice
	r := b.Op("ReLU", u)
	b.Last().Placement = subgraph.OnCPU
	b.Output(r)
	c, err := subgraph.Validate(b.Graph(), reg())
	if err != nil {
		t.Fatal(err)
	}
	p, err := subgraph.Partition(c, labels(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	in := p.Parts[1].Graph.Inputs
	if len(in) != 1 || in[0].Name != u || in[0].DType != kernel.Float32 || !in[0].Shape.Equal(kernel.Shape{kernel.Dynamic}) {
		t.Fatalf("cross input declared as %+v", in)
	}
	if p.Parts[1].Sources[0] != 0 || len(p.Edges) != 1 || p.Edges[0] != (subgraph.Edge{Tensor: u, From: 0, To: 1}) {
		t.Fatalf("sources %v, edges %v", p.Parts[1].Sources, p.Edges)
	}
}

func TestPartitionFoldsComputedShapes(t *testing.T) {
	// Reshape by a shape computed from shapes: folding Shape and Gather
	// gives its output's rank, so it can cross parts, declared with dynamic
	// dimensions. With a dynamic input dimension the folded shape is a
	// stand-in, and the rank is still right.
	for _, shape := range []kernel.Shape{{2, 3}, {kernel.Dynamic, 3}} {
		b := subgraph.NewBuilder("fold")
		x := b.Input("x", kernel.Float32, shape...)
		s := b.Op("Shape", x)
		perm := b.OpAttrs("Gather", kernel.Attrs{"axis": int64(0)}, s, b.Const("perm", kernel.FromInt64([]int64{1, 0}, 2)))
		r := b.Op("Reshape", x, perm)
		for _, n := range b.Graph().Nodes {
			n.Placement = subgraph.OnDevice
		}
		b.Output(b.Op("ReLU", r))
		b.Last().Placement = subgraph.OnCPU
		c, err := subgraph.Validate(b.Graph(), reg())
		if err != nil {
			t.Fatal(err)
		}
		p, err := subgraph.Partition(c, labels(c), nil)
		if err != nil {
			t.Fatalf("x %v: %v", shape, err)
		}
		in := p.Parts[1].Graph.Inputs
		if len(in) != 1 || in[0].Name != r || in[0].DType != kernel.Float32 || !in[0].Shape.Equal(kernel.Shape{kernel.Dynamic, kernel.Dynamic}) {
			t.Fatalf("x %v: cross input declared as %+v", shape, in)
		}
	}
}

func TestPartitionDeclaresTensorsOfUnknownRank(t *testing.T) {
	// Reshape by a shape the caller passes in: its output's rank is known
	// only at run time, so the other part declares it as an input of any
	// shape.
	b := subgraph.NewBuilder("rank")
	x := b.Input("x", kernel.Float32, 2, 3)
	s := b.Input("s", kernel.Int64, kernel.Dynamic)
	r := b.Op("Reshape", x, s)
	b.Last().Placement = subgraph.OnDevice
	b.Output(b.Op("ReLU", r))
	b.Last().Placement = subgraph.OnCPU
	c, err := subgraph.Validate(b.Graph(), reg())
	if err != nil {
		t.Fatal(err)
	}
	p, err := subgraph.Partition(c, labels(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, part := range p.Parts {
		for _, in := range part.Graph.Inputs {
			if in.Name == r {
				found = in.AnyShape
			}
		}
	}
	if !found {
		t.Fatalf("%q is not an input of any shape of its consumer's part", r)
	}
	if _, err := subgraph.Partition(nil, nil, nil); !errors.Is(err, subgraph.ErrPartition) {
		t.Fatalf("Partition(nil): %v", err)
	}
}

func TestPartitionDeclaresRanksThatDependOnDimensions(t *testing.T) {
	// Squeeze without axes drops the dimensions equal to 1: its output's
	// rank depends on the dynamic dimension's value, so the other part
	// takes it as an input of any shape. Squeeze of the static one keeps
	// its rank.
	for _, c := range []struct {
		axes    []int64
		anyRank bool
	}{{nil, true}, {[]int64{1}, false}} {
		b := subgraph.NewBuilder("squeeze")
		x := b.Input("x", kernel.Float32, kernel.Dynamic, 1)
		var sq string
		if c.axes == nil {
			sq = b.Op("Squeeze", x)
		} else {
			sq = b.Op("Squeeze", x, b.Const("axes", kernel.FromInt64(c.axes, int64(len(c.axes)))))
		}
		b.Last().Placement = subgraph.OnDevice
		b.Output(b.Op("ReLU", sq))
		b.Last().Placement = subgraph.OnCPU
		chk, err := subgraph.Validate(b.Graph(), reg())
		if err != nil {
			t.Fatal(err)
		}
		p, err := subgraph.Partition(chk, labels(chk), nil)
		if err != nil {
			t.Fatal(err)
		}
		in := p.Parts[1].Graph.Inputs
		if len(in) != 1 || in[0].Name != sq || in[0].AnyShape != c.anyRank || !c.anyRank && !in[0].Shape.Equal(kernel.Shape{kernel.Dynamic}) {
			t.Errorf("axes %v: cross input declared as %+v, want any shape %v", c.axes, in, c.anyRank)
		}
	}
}

func TestPartitionKeepsDeadNodesRunning(t *testing.T) {
	// A CPU node whose output nobody reads still gets a part, which outputs
	// that tensor so that the part validates.
	b := subgraph.NewBuilder("dead")
	x := b.Input("x", kernel.Float32, 4)
	b.Op("ReLU", x)
	b.Last().Placement = subgraph.OnCPU
	b.Output(b.Op("GELU", x))
	c, err := subgraph.Validate(b.Graph(), reg())
	if err != nil {
		t.Fatal(err)
	}
	p, err := subgraph.Partition(c, labels(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkPartition(c, p, nil); err != nil {
		t.Fatal(err)
	}
	if len(p.Parts) != 2 || !reflect.DeepEqual(p.Parts[0].Graph.Outputs, []string{"relu_0:0"}) {
		t.Fatalf("parts %+v", p.Parts)
	}
}

func BenchmarkPartition(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	g, _ := graphtest.Random(rng, graphtest.Options{Nodes: 2000, Flip: 0.05, ValueDeps: true})
	c, err := subgraph.Validate(g, reg())
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := subgraph.Partition(c, labels(c), nil); err != nil {
			b.Fatal(err)
		}
	}
}

func TestPartitionChainsSplitParallelCPUBranches(t *testing.T) {
	// Two independent CPU chains meet at a CPU Add that feeds the device.
	// Both chains have the same foreign descendants, so without chains they
	// share one part (and would run one after the other); chained, each
	// chain and the join are parts of their own.
	b := subgraph.NewBuilder("fanin")
	x := b.Input("x", kernel.Float32, 4)
	cpu := func(out string) string { b.Last().Placement = subgraph.OnCPU; return out }
	a := cpu(b.Op("ReLU", cpu(b.Op("ReLU", x))))
	c2 := cpu(b.Op("GELU", cpu(b.Op("GELU", x))))
	j := cpu(b.Op("Add", a, c2))
	b.Output(b.Op("Mul", j, j))
	c, err := subgraph.Validate(b.Graph(), reg())
	if err != nil {
		t.Fatal(err)
	}
	names := func(p *subgraph.Partitioning) []string {
		var out []string
		for _, pt := range p.Parts {
			var ns []string
			for _, n := range pt.Graph.Nodes {
				ns = append(ns, n.Name)
			}
			out = append(out, fmt.Sprint(ns))
		}
		return out
	}
	whole, err := subgraph.Partition(c, labels(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(whole), []string{"[relu_0 relu_1 gelu_0 gelu_1 add_0]", "[mul_0]"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("unchained parts %v, want %v", got, want)
	}
	chained, err := subgraph.Partition(c, labels(c), onCPU)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(chained), []string{"[relu_0 relu_1]", "[gelu_0 gelu_1]", "[add_0]", "[mul_0]"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("chained parts %v, want %v", got, want)
	}
	if err := checkPartition(c, chained, onCPU); err != nil {
		t.Fatal(err)
	}
}

// TestMergedProperties: merging the parts of the merged placements of
// random partitionings keeps every invariant, merges only parts of one
// placement, never splits a part, and leaves no edge between two parts of
// a merged placement that could merge: each such edge has a path around
// it through a third part. It is deterministic.
func TestMergedProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	notCPU := func(p subgraph.Placement) bool { return p != subgraph.OnCPU }
	merges := 0
	for iter := range 300 {
		n := 1 + rng.IntN(60)
		flip := []float64{0.1, 0.3, 0.5, 0.7}[iter%4]
		g, _ := graphtest.Random(rng, graphtest.Options{Nodes: n, Flip: flip, ValueDeps: iter%2 == 1})
		c, err := subgraph.Validate(g, reg())
		if err != nil {
			t.Fatalf("graph %d: %v", iter, err)
		}
		var chains func(subgraph.Placement) bool
		if iter%3 != 2 {
			chains = onCPU
		}
		fine, err := subgraph.Partition(c, labels(c), chains)
		if err != nil {
			t.Fatalf("graph %d: %v", iter, err)
		}
		merge := notCPU
		if iter%5 == 4 {
			merge = func(subgraph.Placement) bool { return true }
		}
		p, err := fine.Merged(c, merge)
		if err != nil {
			t.Fatalf("graph %d: %v", iter, err)
		}
		if err := checkParts(c, p); err != nil {
			t.Fatalf("graph %d (%d nodes, flip %v): merged: %v", iter, n, flip, err)
		}
		for v := range g.Nodes {
			for u := range g.Nodes {
				if fine.Of[u] == fine.Of[v] && p.Of[u] != p.Of[v] {
					t.Fatalf("graph %d: merging split part %d", iter, fine.Of[u])
				}
				if p.Of[u] == p.Of[v] && fine.Of[u] != fine.Of[v] && !merge(g.Nodes[u].Placement) {
					t.Fatalf("graph %d: parts %d and %d of an unmerged placement merged", iter, fine.Of[u], fine.Of[v])
				}
			}
		}
		// maximal: each edge between two parts of a merged placement has
		// a path around it through a third part.
		reach := partReach(p)
		for _, e := range p.Edges {
			pl := p.Parts[e.From].Placement
			if pl != p.Parts[e.To].Placement || !merge(pl) {
				continue
			}
			around := false
			for k := range p.Parts {
				if k != e.From && k != e.To && reach[e.From][k] && reach[k][e.To] {
					around = true
				}
			}
			if !around {
				t.Fatalf("graph %d: parts %d and %d (%v) could merge", iter, e.From, e.To, pl)
			}
		}
		again, err := fine.Merged(c, merge)
		if err != nil || !reflect.DeepEqual(p, again) {
			t.Fatalf("graph %d: Merged is not deterministic (%v)", iter, err)
		}
		merges += len(fine.Parts) - len(p.Parts)
	}
	if merges < 100 {
		t.Errorf("only %d parts merged over 300 graphs", merges)
	}
}

// partReach is the transitive closure of the part graph.
func partReach(p *subgraph.Partitioning) [][]bool {
	n := len(p.Parts)
	r := make([][]bool, n)
	for k := range r {
		r[k] = make([]bool, n)
	}
	for _, e := range p.Edges {
		r[e.From][e.To] = true
	}
	for k := range n {
		for i := range n {
			if r[i][k] {
				for j := range n {
					r[i][j] = r[i][j] || r[k][j]
				}
			}
		}
	}
	return r
}

func TestMergedRejectsMisuse(t *testing.T) {
	g, _ := graphtest.Random(rand.New(rand.NewPCG(1, 1)), graphtest.Options{Nodes: 6, Flip: 0.5})
	c, err := subgraph.Validate(g, reg())
	if err != nil {
		t.Fatal(err)
	}
	p, err := subgraph.Partition(c, labels(c), onCPU)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := graphtest.Random(rand.New(rand.NewPCG(2, 2)), graphtest.Options{Nodes: 9})
	oc, err := subgraph.Validate(other, reg())
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func() error{
		"nil graph":     func() error { _, err := p.Merged(nil, onCPU); return err },
		"nil merge":     func() error { _, err := p.Merged(c, nil); return err },
		"another graph": func() error { _, err := p.Merged(oc, onCPU); return err },
		"nil partitioning": func() error {
			var np *subgraph.Partitioning
			_, err := np.Merged(c, onCPU)
			return err
		},
	} {
		if err := f(); !errors.Is(err, subgraph.ErrPartition) {
			t.Errorf("%s: %v, want ErrPartition", name, err)
		}
	}
}

// TestHandMadeChecked: Partition and Checked.Deps on a Checked that
// Validate did not make (no kernels, or a graph swapped for a shorter
// one) and Deps of a node that is not there are errors, not panics.
func TestHandMadeChecked(t *testing.T) {
	b := subgraph.NewBuilder("hand")
	x := b.Input("x", kernel.Float32, 2)
	b.Output(b.Op("ReLU", b.Op("Neg", x)))
	g := b.Graph()
	cpu := func(int) subgraph.Placement { return subgraph.OnCPU }
	if _, err := subgraph.Partition(&subgraph.Checked{Graph: g}, cpu, nil); !errors.Is(err, subgraph.ErrPartition) {
		t.Errorf("Partition of a Checked with no kernels: %v, want ErrPartition", err)
	}
	c, err := subgraph.Validate(g, reg())
	if err != nil {
		t.Fatal(err)
	}
	stale := *c
	stale.Graph = g.Clone()
	stale.Graph.Nodes = stale.Graph.Nodes[:1]
	if _, err := subgraph.Partition(&stale, cpu, nil); !errors.Is(err, subgraph.ErrPartition) {
		t.Errorf("Partition of a Checked whose graph lost a node: %v, want ErrPartition", err)
	}
	for _, i := range []int{-1, 2, 99} {
		if _, err := c.Deps(i); !errors.Is(err, subgraph.ErrBadNode) {
			t.Errorf("Deps(%d): %v, want ErrBadNode", i, err)
		}
	}
	if _, err := (&subgraph.Checked{Graph: g}).Deps(0); !errors.Is(err, subgraph.ErrBadNode) {
		t.Errorf("Deps of a Checked with no kernels: %v, want ErrBadNode", err)
	}
	if d, err := c.Deps(0); err != nil || d.Compute {
		t.Errorf("Deps(0) = %+v, %v", d, err)
	}
}

// TestPartitionRecoversCallbacks: a place or chains function that panics
// makes Partition fail with ErrPartition, naming the panic.
func TestPartitionRecoversCallbacks(t *testing.T) {
	c, err := subgraph.Validate(chain().Graph(), reg())
	if err != nil {
		t.Fatal(err)
	}
	dev := func(int) subgraph.Placement { return subgraph.OnDevice }
	for name, f := range map[string]func() (*subgraph.Partitioning, error){
		"place": func() (*subgraph.Partitioning, error) {
			return subgraph.Partition(c, func(int) subgraph.Placement { panic("no place") }, nil)
		},
		"chains": func() (*subgraph.Partitioning, error) {
			return subgraph.Partition(c, dev, func(subgraph.Placement) bool { panic("no place") })
		},
	} {
		p, err := f()
		if p != nil || !errors.Is(err, subgraph.ErrPartition) || !strings.Contains(err.Error(), "no place") {
			t.Errorf("%s panics: Partition = %v, %v; want ErrPartition naming the panic", name, p, err)
		}
	}
}
