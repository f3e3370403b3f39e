package onnx

import "slices"

// stringLabelled are the classifiers whose labels may be strings, and the
// attribute of their integer labels.
var stringLabelled = map[string]string{
	"TreeEnsembleClassifier": "classlabels_int64s",
	"LinearClassifier":       "classlabels_ints",
	"SVMClassifier":          "classlabels_ints",
}

// unusedLabels returns g with the string labels of a classifier whose
// label output nothing reads (no node, in g or the subgraphs of its nodes,
// and no graph output: the scores alone were selected, say before a
// ZipMap) made integer labels 0, 1, …: pipert has no string tensors, and
// the scores do not depend on the labels. A classifier whose labels are
// read keeps its strings, and its import fails naming them. g itself is
// not changed.
func unusedLabels(g *Graph) *Graph {
	var out *Graph
	used := map[string]bool{}
	for _, v := range g.Outputs {
		used[v.Name] = true
	}
	readBy(g, used)
	for i, n := range g.Nodes {
		ints, ok := stringLabelled[n.OpType]
		a := n.Attr("classlabels_strings")
		if !ok || n.Domain != MLDomain || a == nil || a.Type != AttrStrings || len(n.Outputs) == 0 || used[n.Outputs[0]] || n.Attr(ints) != nil {
			continue
		}
		if out == nil {
			c := *g
			c.Nodes = slices.Clone(g.Nodes)
			out = &c
		}
		labels := &Attribute{Name: ints, Type: AttrInts, Ints: make([]int64, len(a.Strings))}
		for j := range labels.Ints {
			labels.Ints[j] = int64(j)
		}
		m := *n
		m.Attrs = slices.DeleteFunc(slices.Clone(n.Attrs), func(a *Attribute) bool { return a.Name == "classlabels_strings" })
		m.Attrs = append(m.Attrs, labels)
		out.Nodes[i] = &m
	}
	if out == nil {
		return g
	}
	return out
}

// readBy marks the names the nodes of g and of its subgraphs read.
func readBy(g *Graph, used map[string]bool) {
	for _, n := range g.Nodes {
		for _, in := range n.Inputs {
			used[in] = true
		}
		for _, a := range n.Attrs {
			if a.G != nil {
				readBy(a.G, used)
			}
			for _, sg := range a.Graphs {
				readBy(sg, used)
			}
		}
	}
}

// unusedStrings returns g without the string initializers and the string
// Constant nodes whose tensor nothing reads (no node, in g or the
// subgraphs of its nodes, and no graph output): pipert has no string
// tensors, and a model may carry such a tensor it never uses (a
// vocabulary, a label list beside a classifier whose labels are
// dropped). A string tensor that is read keeps the import failing,
// naming it. g itself is not changed.
func unusedStrings(g *Graph) *Graph {
	used := map[string]bool{}
	for _, v := range g.Outputs {
		used[v.Name] = true
	}
	readBy(g, used)
	dropInit := func(t *Tensor) bool { return t != nil && t.DataType == String && !used[t.Name] }
	dropNode := func(n *Node) bool {
		if n == nil || n.OpType != "Constant" || n.Domain != "" && n.Domain != "ai.onnx" || len(n.Outputs) != 1 || used[n.Outputs[0]] {
			return false
		}
		for _, a := range n.Attrs {
			if a != nil && (a.Name == "value_string" || a.Name == "value_strings" || a.Name == "value" && a.T != nil && a.T.DataType == String) {
				return true
			}
		}
		return false
	}
	if !slices.ContainsFunc(g.Initializers, dropInit) && !slices.ContainsFunc(g.Nodes, dropNode) {
		return g
	}
	c := *g
	c.Initializers = slices.DeleteFunc(slices.Clone(g.Initializers), dropInit)
	c.Nodes = slices.DeleteFunc(slices.Clone(g.Nodes), dropNode)
	return &c
}
