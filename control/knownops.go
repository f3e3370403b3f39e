package control

import (
	"fmt"

	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

// knownOps checks that res resolves the op of every node of g and of the
// graphs their attributes hold (nested control flow), so that an op no
// registry has fails where the control-flow node's kernel is made —
// subgraph.Validate, Compile — and not when its branch or body first
// runs. The error wraps subgraph.ErrUnknownOp and names the graph and the
// node; a panic of res's Has (the caller's code) is an error wrapping
// kernel.ErrPanic.
func knownOps(g *subgraph.Graph, res kernel.Resolver) error {
	return knownOps1(g, res, map[*subgraph.Graph]bool{})
}

func knownOps1(g *subgraph.Graph, res kernel.Resolver, seen map[*subgraph.Graph]bool) error {
	if g == nil || seen[g] {
		return nil
	}
	seen[g] = true
	for _, n := range g.Nodes {
		if n == nil {
			continue // Validate says so when the graph is first run
		}
		has, err := resolves(res, n.Op)
		if err != nil {
			return fmt.Errorf("graph %q node %q: %w", g.Name, n.Name, err)
		}
		if !has {
			return fmt.Errorf("%w: graph %q node %q: %q is not registered", subgraph.ErrUnknownOp, g.Name, n.Name, n.Op)
		}
		for _, v := range n.Attrs {
			var gs []*subgraph.Graph
			switch x := v.(type) {
			case *subgraph.Graph:
				gs = []*subgraph.Graph{x}
			case []*subgraph.Graph:
				gs = x
			}
			for _, sg := range gs {
				if err := knownOps1(sg, res, seen); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// resolves is res.Has(op), a panic of it an error.
func resolves(res kernel.Resolver, op string) (has bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			has, err = false, fmt.Errorf("the resolver's Has(%q): %w: %v", op, kernel.ErrPanic, p)
		}
	}()
	return res != nil && res.Has(op), nil
}
