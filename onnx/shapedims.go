package onnx

import "github.com/pipert/pipert/kernel"

// A model with symbolic dimensions reads its shapes at run time (Shape)
// and picks dimensions out of them (Gather), some fixed by the model,
// some not. The import keeps, for the output of a Shape whose input's
// rank it knows, the dimensions it will hold (dims, kernel.Dynamic for
// those known only at run time): its shape is known, and a Gather of it
// at constant positions that pick fixed dimensions only folds to a
// constant, as it would with every dimension fixed. A sequence's element
// count (SplitToSequence's split) so folds, or has a known length.

// shapeDims notes, for Shape node n of input x (its shape known in part)
// and graph output out, the output's shape and the dimensions it holds.
func (im *importer) shapeDims(n *Node, x *kernel.Tensor, out string) {
	if x == nil || x.Shape == nil || x.Shape.Known() || im.parent != nil {
		return
	}
	r := int64(len(x.Shape))
	bound := func(name string, def int64) (int64, error) {
		v, err := intAttr(n, name, def)
		if v < 0 {
			v += r
		}
		return min(max(v, 0), r), err
	}
	start, err := bound("start", 0)
	end, err2 := bound("end", r)
	if err != nil || err2 != nil {
		return // the Shape kernel reports the mistyped attribute
	}
	dims := kernel.Shape{}
	if start < end {
		dims = x.Shape[start:end].Clone()
	}
	if im.dims == nil {
		im.dims = map[string]kernel.Shape{}
	}
	im.dims[out] = dims
	im.known[out] = &kernel.Tensor{DType: kernel.Int64, Shape: kernel.Shape{int64(len(dims))}}
}

// gatherDims folds Gather node n of graph inputs inputs when it picks, at
// constant positions, fixed dimensions out of a Shape's output (see
// shapeDims); it reports whether it did.
func (im *importer) gatherDims(n *Node, inputs []string) (bool, error) {
	if !im.fold || im.parent != nil || len(inputs) != 2 || len(n.Outputs) != 1 {
		return false, nil
	}
	dims := im.dims[inputs[0]]
	idx := im.known[inputs[1]]
	if dims == nil || idx == nil || idx.Host == nil || len(idx.Shape) > 1 {
		return false, nil
	}
	if a, err := intAttr(n, "axis", 0); err != nil || a != 0 && a != -1 {
		return false, nil
	}
	vs, err := idx.IntValues()
	if err != nil {
		return false, nil
	}
	t := kernel.New(kernel.Int64, idx.Shape...)
	picked := kernel.Int64s(t.Host)
	for i, v := range vs {
		if v < 0 {
			v += int64(len(dims))
		}
		if v < 0 || v >= int64(len(dims)) || dims[v] == kernel.Dynamic {
			return false, nil // out of range: Gather's own error
		}
		picked[i] = dims[v]
	}
	_, err = im.constOut(n.Outputs[0], t)
	return true, err
}
