package onnx

import (
	"fmt"
	"slices"
)

// selectOutputs returns g with names as its outputs and only the nodes they
// depend on (Options.Outputs). A name may be a graph output, a tensor a
// node of g computes, a graph input or an initializer. A selected output
// keeps the type its declaration gives (graph output, value_info or
// input), if any. The inputs and initializers of g are kept, used or not,
// so that the graph takes the inputs the model declares.
func selectOutputs(g *Graph, names []string) (*Graph, error) {
	if len(names) == 0 {
		return nil, fmt.Errorf("%w: Options.Outputs is empty (nil keeps the model's outputs)", ErrImport)
	}
	// A name two nodes define is refused here, as the whole graph's import
	// refuses it: the nodes selected must not depend on which is kept.
	producer := make(map[string]int, len(g.Nodes))
	for i, n := range g.Nodes {
		for _, o := range n.Outputs {
			if o == "" {
				continue
			}
			if j, ok := producer[o]; ok {
				return nil, fmt.Errorf("%w: tensor %q defined twice: outputs of nodes %q (%s) and %q (%s)", ErrImport, o, g.Nodes[j].Name, g.Nodes[j].OpType, n.Name, n.OpType)
			}
			producer[o] = i
		}
	}
	declared := map[string]*ValueInfo{}
	for _, vs := range [][]*ValueInfo{g.ValueInfo, g.Inputs, g.Outputs} { // later lists win
		for _, v := range vs {
			declared[v.Name] = v
		}
	}
	fed := map[string]bool{}
	for _, v := range g.Inputs {
		fed[v.Name] = true
	}
	for _, t := range g.Initializers {
		fed[t.Name] = true
	}
	need := make([]bool, len(g.Nodes))
	var todo []string
	outs := make([]*ValueInfo, 0, len(names))
	for i, name := range names {
		if name == "" {
			return nil, fmt.Errorf("%w: Options.Outputs[%d] is empty", ErrImport, i)
		}
		if slices.Contains(names[:i], name) {
			return nil, fmt.Errorf("%w: Options.Outputs names %q twice", ErrImport, name)
		}
		if _, ok := producer[name]; !ok && !fed[name] {
			return nil, fmt.Errorf("%w: Options.Outputs names %q, which the graph neither takes nor computes", ErrImport, name)
		}
		if v := declared[name]; v != nil {
			outs = append(outs, v)
		} else {
			outs = append(outs, &ValueInfo{Name: name})
		}
		todo = append(todo, name)
	}
	for len(todo) > 0 {
		name := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		i, ok := producer[name]
		if !ok || need[i] {
			continue
		}
		need[i] = true
		visitNames(g.Nodes[i], func(in string) { todo = append(todo, in) })
	}
	sel := *g
	sel.Nodes = nil
	for i, n := range g.Nodes {
		if need[i] {
			sel.Nodes = append(sel.Nodes, n)
		}
	}
	sel.Outputs = outs
	return &sel, nil
}
