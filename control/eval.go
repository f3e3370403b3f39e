package control

import (
	"fmt"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

// Eval runs g on the host, kernel by kernel, on real inputs (in the order
// of g's declared inputs, whose declared dtypes and ranks they replace):
// every node's InferShape, Resize and Compute, in execution order. It
// returns the outputs as new host tensors and the summed cost of the
// kernels. Compute-dependent kernels' outputs take their real shapes.
func Eval(g *subgraph.Graph, inputs []*kernel.Tensor, res kernel.Resolver) ([]*kernel.Tensor, device.Cost, error) {
	var cost device.Cost
	if len(inputs) != len(g.Inputs) {
		return nil, cost, fmt.Errorf("graph %q takes %d inputs, got %d", g.Name, len(g.Inputs), len(inputs))
	}
	c, err := subgraph.Validate(concrete(g, inputs), res)
	if err != nil {
		return nil, cost, err
	}
	vals := make(map[string]*kernel.Tensor, len(g.Inputs)+len(g.Consts)+len(g.Nodes))
	for i, v := range g.Inputs {
		vals[v.Name] = inputs[i]
	}
	for _, k := range g.Consts {
		vals[k.Name] = k.Tensor
	}
	for _, i := range c.Order {
		n, k := g.Nodes[i], c.Kernels[i]
		if err := step(n, k, vals, &cost); err != nil {
			return nil, cost, err
		}
	}
	outs := make([]*kernel.Tensor, len(g.Outputs))
	for i, name := range g.Outputs {
		t, ok := vals[name]
		if !ok {
			return nil, cost, fmt.Errorf("graph %q: output %q was not computed", g.Name, name)
		}
		o := &kernel.Tensor{DType: t.DType, Shape: t.Shape.Clone()}
		if t.Host != nil {
			o.Host = append([]byte(nil), t.Host[:o.Bytes()]...)
		}
		outs[i] = o
	}
	return outs, cost, nil
}

// step runs node n's kernel k on the host.
func step(n *subgraph.Node, k kernel.Kernel, vals map[string]*kernel.Tensor, cost *device.Cost) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &kernel.Error{Node: n.Name, Op: n.Op, Stage: kernel.StageLaunch, Err: fmt.Errorf("panic: %v", p)}
		}
	}()
	in := make([]*kernel.Tensor, len(n.Inputs))
	for j, name := range n.Inputs {
		in[j] = vals[name]
	}
	out := make([]*kernel.Tensor, len(n.Outputs))
	for j := range out {
		out[j] = &kernel.Tensor{}
	}
	if err := k.InferShape(in, out); err != nil {
		return &kernel.Error{Node: n.Name, Op: n.Op, Stage: kernel.StageInfer, Err: err}
	}
	var a kernel.Args
	if err := k.Resize(in, out, &a.Tiling); err != nil {
		return &kernel.Error{Node: n.Name, Op: n.Op, Stage: kernel.StageResize, Err: err}
	}
	for j, t := range out {
		if t == nil || !t.DType.Valid() || !t.Shape.Known() {
			return &kernel.Error{Node: n.Name, Op: n.Op, Stage: kernel.StageInfer, Err: fmt.Errorf("output %d is not a valid tensor: %v", j, t)}
		}
		t.Host = make([]byte, t.Bytes())
	}
	if ws := a.Tiling.Workspace; ws > 0 {
		a.Workspace = device.Buffer{Addr: 1, Size: ws, Data: make([]byte, ws)}
	}
	a.In, a.Out, a.Node = in, out, n.Name
	c := k.Cost(in, out)
	cost.FLOPs += c.FLOPs
	cost.Bytes += c.Bytes
	if err := k.Compute(&a); err != nil {
		return &kernel.Error{Node: n.Name, Op: n.Op, Stage: kernel.StageLaunch, Err: err}
	}
	if k.Deps().Compute {
		cd, ok := k.(kernel.ComputeDependent)
		if !ok {
			return &kernel.Error{Node: n.Name, Op: n.Op, Stage: kernel.StageLaunch, Err: fmt.Errorf("compute-dependent kernel without OutputShapes")}
		}
		shapes, err := cd.OutputShapes(&a)
		if err != nil {
			return &kernel.Error{Node: n.Name, Op: n.Op, Stage: kernel.StageLaunch, Err: err}
		}
		for j, sh := range shapes {
			out[j].Shape = sh.Clone()
			out[j].Host = out[j].Host[:out[j].Bytes()]
		}
	}
	for j, name := range n.Outputs {
		vals[name] = out[j]
	}
	return nil
}
