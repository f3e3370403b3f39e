package onnx

import (
	"fmt"
	"slices"

	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

// Sequences are resolved at import: a sequence value is the list of the
// graph tensors it holds, known when the import reaches it. The sequence
// ops whose positions, splits and counts are constants of the model
// (SequenceConstruct, SequenceEmpty, SequenceInsert, SequenceErase,
// SequenceAt, SequenceLength, ConcatFromSequence, SplitToSequence, and
// Identity of a sequence) become list edits or the tensor ops they stand
// for (Concat, Unsqueeze, Split, Squeeze), and SequenceMap its body
// inlined once per element, as exporters write them for a module's list
// of tensors. The elements' dimensions may be symbolic, known only at run
// time, as long as their number is known at import (a SplitToSequence
// along a symbolic dimension takes a split of constant sizes, or one
// computed at run time of a known length); a sequence whose number of
// elements or positions depend on run-time values, or that is a graph
// input or output or crosses into a subgraph, is an error wrapping
// ErrUnsupported.

// seqValue is a sequence known at import: its tensors, in order, and
// their element type (0 while unknown).
type seqValue struct {
	elems    []string
	dtype    kernel.DType
	optional bool
}

// seqOps are the sequence and optional ops the import resolves (their
// opsets are in the table).
var seqOps = map[string]bool{"SequenceConstruct": true, "SequenceEmpty": true, "SequenceInsert": true, "SequenceErase": true,
	"SequenceAt": true, "SequenceLength": true, "ConcatFromSequence": true, "SplitToSequence": true, "SequenceMap": true,
	"Optional": true, "OptionalHasElement": true, "OptionalGetElement": true}

// An optional value known at import (Optional, OptionalHasElement,
// OptionalGetElement, opset 15 on) is a sequence of at most one element:
// seqValue with optional set, elems empty or the tensor (or sequence) it
// holds.

// seqOf returns the sequence a resolved name holds, or nil.
func (im *importer) seqOf(name string) *seqValue { return im.seqs[name] }

// defineSeq defines ONNX name out as sequence s.
func (im *importer) defineSeq(out string, s *seqValue) error {
	local, err := im.define(out)
	if err != nil {
		return err
	}
	if im.seqs == nil {
		im.seqs = map[string]*seqValue{}
	}
	im.seqs[local] = s
	return nil
}

// seqInput resolves input i of n, which must be a sequence.
func (im *importer) seqInput(n *Node, i int) (*seqValue, error) {
	if i >= len(n.Inputs) || n.Inputs[i] == "" {
		return nil, fmt.Errorf("%w: %s needs a sequence as input %d", ErrImport, n.OpType, i)
	}
	name, err := im.resolve(n.Inputs[i])
	if err != nil {
		return nil, err
	}
	s := im.seqOf(name)
	if s == nil || s.optional {
		return nil, fmt.Errorf("%w: %s input %q is not a sequence", ErrImport, n.OpType, n.Inputs[i])
	}
	return s, nil
}

// constInt returns the value of optional scalar input i of n, a constant
// of the model; ok is false when n omits it.
func (im *importer) constInt(n *Node, i int, what string) (v int64, ok bool, err error) {
	if i >= len(n.Inputs) || n.Inputs[i] == "" {
		return 0, false, nil
	}
	name, err := im.resolve(n.Inputs[i])
	if err != nil {
		return 0, false, err
	}
	t := im.known[name]
	if t == nil || t.Host == nil {
		return 0, false, fmt.Errorf("%w: %s's %s is computed at run time (sequences are resolved at import)", ErrUnsupported, n.OpType, what)
	}
	vs, err := t.IntValues()
	if err != nil || len(vs) != 1 {
		return 0, false, fmt.Errorf("%w: %s's %s must be one integer, have %v", ErrImport, n.OpType, what, t)
	}
	return vs[0], true, nil
}

// sequenceNode imports a sequence op.
func (im *importer) sequenceNode(n *Node) error {
	if n.OpType == "SequenceMap" {
		return im.sequenceMap(n)
	}
	one := func() error {
		if len(n.Outputs) != 1 || n.Outputs[0] == "" {
			return fmt.Errorf("%w: %s has one output", ErrImport, n.OpType)
		}
		return nil
	}
	if err := one(); err != nil {
		return err
	}
	switch n.OpType {
	case "Optional":
		o := &seqValue{optional: true}
		if len(n.Inputs) > 0 && n.Inputs[0] != "" {
			name, err := im.resolve(n.Inputs[0])
			if err != nil {
				return err
			}
			o.elems = []string{name}
		} else if n.Attr("type") == nil {
			return fmt.Errorf("%w: an empty Optional needs its type attribute", ErrImport)
		}
		return im.defineSeq(n.Outputs[0], o)
	case "OptionalHasElement", "OptionalGetElement":
		if len(n.Inputs) == 0 || n.Inputs[0] == "" {
			if n.OpType == "OptionalHasElement" && im.opset >= 18 {
				return im.constBool(n.Outputs[0], false) // an omitted input is an empty optional
			}
			return fmt.Errorf("%w: %s needs an input", ErrImport, n.OpType)
		}
		name, err := im.resolve(n.Inputs[0])
		if err != nil {
			return err
		}
		o := im.seqOf(name)
		switch {
		case o == nil || !o.optional:
			if im.opset < 18 {
				return fmt.Errorf("%w: %s of %q, not an optional, at opset %d (from 18)", ErrImport, n.OpType, n.Inputs[0], im.opset)
			}
			if n.OpType == "OptionalHasElement" {
				return im.constBool(n.Outputs[0], true)
			}
			if o != nil {
				return im.defineSeq(n.Outputs[0], o)
			}
			return im.aliasAs(n.Outputs[0], name)
		case n.OpType == "OptionalHasElement":
			return im.constBool(n.Outputs[0], len(o.elems) > 0)
		case len(o.elems) == 0:
			return fmt.Errorf("%w: OptionalGetElement of an empty optional", ErrImport)
		case im.seqOf(o.elems[0]) != nil:
			return im.defineSeq(n.Outputs[0], im.seqOf(o.elems[0]))
		default:
			return im.aliasAs(n.Outputs[0], o.elems[0])
		}
	case "SequenceEmpty":
		code, err := intAttr(n, "dtype", int64(Float))
		if err != nil {
			return err
		}
		dt, ok := DataType(code).DType()
		if !ok {
			return fmt.Errorf("%w: SequenceEmpty of %v", ErrUnsupported, DataType(code))
		}
		return im.defineSeq(n.Outputs[0], &seqValue{dtype: dt})
	case "SequenceConstruct":
		s := &seqValue{}
		for _, in := range n.Inputs {
			name, err := im.resolve(in)
			if err != nil {
				return err
			}
			if err := im.seqAppend(n, s, len(s.elems), name); err != nil {
				return err
			}
		}
		if len(s.elems) == 0 {
			return fmt.Errorf("%w: SequenceConstruct needs at least one tensor", ErrImport)
		}
		return im.defineSeq(n.Outputs[0], s)
	case "SequenceInsert":
		s, err := im.seqInput(n, 0)
		if err != nil {
			return err
		}
		if len(n.Inputs) < 2 || n.Inputs[1] == "" {
			return fmt.Errorf("%w: SequenceInsert needs a tensor", ErrImport)
		}
		t, err := im.resolve(n.Inputs[1])
		if err != nil {
			return err
		}
		pos, given, err := im.constInt(n, 2, "position")
		if err != nil {
			return err
		}
		if !given {
			pos = int64(len(s.elems))
		}
		if pos < -int64(len(s.elems)) || pos > int64(len(s.elems)) {
			return fmt.Errorf("%w: SequenceInsert at %d into a sequence of %d", ErrImport, pos, len(s.elems))
		}
		if pos < 0 {
			pos += int64(len(s.elems))
		}
		c := &seqValue{elems: append([]string(nil), s.elems...), dtype: s.dtype}
		if err := im.seqAppend(n, c, int(pos), t); err != nil {
			return err
		}
		return im.defineSeq(n.Outputs[0], c)
	case "SequenceErase":
		s, p, err := im.seqAt(n, -1)
		if err != nil {
			return err
		}
		c := &seqValue{dtype: s.dtype}
		c.elems = append(append(c.elems, s.elems[:p]...), s.elems[p+1:]...)
		return im.defineSeq(n.Outputs[0], c)
	case "SequenceAt":
		s, p, err := im.seqAt(n, 0)
		if err != nil {
			return err
		}
		return im.aliasAs(n.Outputs[0], s.elems[p])
	case "SequenceLength":
		s, err := im.seqInput(n, 0)
		if err != nil {
			return err
		}
		t := kernel.New(kernel.Int64)
		t.Shape = kernel.Shape{}
		kernel.Int64s(t.Host)[0] = int64(len(s.elems))
		_, err = im.constOut(n.Outputs[0], t)
		return err
	case "ConcatFromSequence":
		return im.concatFromSequence(n)
	case "SplitToSequence":
		return im.splitToSequence(n)
	}
	return fmt.Errorf("%w: sequence op %s", ErrUnsupported, n.OpType)
}

// constBool defines ONNX name out as a boolean scalar constant.
func (im *importer) constBool(out string, v bool) error {
	t := kernel.New(kernel.Bool)
	t.Shape = kernel.Shape{}
	if v {
		t.Host[0] = 1
	}
	_, err := im.constOut(out, t)
	return err
}

// constOut defines ONNX name out as constant t and returns its graph name.
func (im *importer) constOut(out string, t *kernel.Tensor) (string, error) {
	local, err := im.define(out)
	if err != nil {
		return "", err
	}
	im.g.Consts = append(im.g.Consts, subgraph.Const{Name: local, Tensor: t})
	im.known[local] = t
	return local, nil
}

// seqAt returns the sequence node n reads and the position, from its
// start, its second input names: the last when the input is omitted and
// def is -1 (SequenceErase), an error when def is 0 (SequenceAt).
func (im *importer) seqAt(n *Node, def int) (*seqValue, int, error) {
	s, err := im.seqInput(n, 0)
	if err != nil {
		return nil, 0, err
	}
	pos, given, err := im.constInt(n, 1, "position")
	if err != nil {
		return nil, 0, err
	}
	if !given {
		if def == 0 {
			return nil, 0, fmt.Errorf("%w: %s needs a position", ErrImport, n.OpType)
		}
		pos = int64(len(s.elems)) - 1
	}
	p, err := seqIndex(n, pos, len(s.elems))
	return s, p, err
}

// seqIndex checks position pos of a sequence of n tensors (negative from
// the end) and returns it from the start.
func seqIndex(nd *Node, pos int64, n int) (int, error) {
	if pos < -int64(n) || pos >= int64(n) {
		return 0, fmt.Errorf("%w: %s at %d of a sequence of %d", ErrImport, nd.OpType, pos, n)
	}
	if pos < 0 {
		pos += int64(n)
	}
	return int(pos), nil
}

// seqAppend inserts tensor name into s at position at, checking that it
// is a tensor of s's element type.
func (im *importer) seqAppend(n *Node, s *seqValue, at int, name string) error {
	if im.seqOf(name) != nil {
		return fmt.Errorf("%w: %s: a sequence of sequences", ErrUnsupported, n.OpType)
	}
	if m := im.known[name]; m != nil && m.DType != 0 {
		if s.dtype != 0 && s.dtype != m.DType {
			return fmt.Errorf("%w: %s puts a %v tensor in a sequence of %v", ErrImport, n.OpType, m.DType, s.dtype)
		}
		s.dtype = m.DType
	}
	s.elems = append(s.elems, "")
	copy(s.elems[at+1:], s.elems[at:])
	s.elems[at] = name
	return nil
}

// aliasAs defines ONNX name out as another name of graph tensor src.
func (im *importer) aliasAs(out, src string) error {
	local, err := im.define(out)
	if err != nil {
		return err
	}
	if im.alias == nil {
		im.alias = map[string]string{}
	}
	im.alias[local] = src
	im.known[local] = im.known[src]
	return nil
}

// fresh returns an ONNX name for a tensor the import adds, taken by no
// tensor of the model.
func (im *importer) fresh(base string) string {
	root := im
	for root.parent != nil {
		root = root.parent
	}
	for {
		im.gen++
		name := fmt.Sprintf("%s/%d", base, im.gen)
		if !im.used[name] && !root.declared[name] {
			return name
		}
	}
}

// constInts adds a constant int64 vector and returns its ONNX name.
func (im *importer) constInts(base string, v ...int64) (string, error) {
	name := im.fresh(base)
	t := kernel.New(kernel.Int64, int64(len(v)))
	copy(kernel.Int64s(t.Host), v)
	_, err := im.constOut(name, t)
	return name, err
}

// axesNode imports an Unsqueeze or Squeeze of in on axis, in the form of
// the importer's opset, into out.
func (im *importer) axesNode(op, in, out string, axis int64) error {
	nd := &Node{Name: im.fresh(op), OpType: op, Inputs: []string{in}, Outputs: []string{out}}
	if im.opset < 13 {
		nd.Attrs = []*Attribute{{Name: "axes", Type: AttrInts, Ints: []int64{axis}}}
	} else {
		axes, err := im.constInts(op+"/axes", axis)
		if err != nil {
			return err
		}
		nd.Inputs = append(nd.Inputs, axes)
	}
	return im.node(nd)
}

// concatFromSequence imports ConcatFromSequence as a Concat of the
// sequence's tensors, each unsqueezed first with new_axis.
func (im *importer) concatFromSequence(n *Node) error {
	s, err := im.seqInput(n, 0)
	if err != nil {
		return err
	}
	if len(s.elems) == 0 {
		return fmt.Errorf("%w: ConcatFromSequence of an empty sequence", ErrImport)
	}
	if n.Attr("axis") == nil {
		return fmt.Errorf("%w: ConcatFromSequence needs an axis", ErrImport)
	}
	axis, err := intAttr(n, "axis", 0)
	if err != nil {
		return err
	}
	na, err := intAttr(n, "new_axis", 0)
	if err != nil {
		return err
	}
	newAxis := na != 0
	inputs := s.elems
	if newAxis {
		// A negative axis counts from the stacked rank, as Unsqueeze's and
		// Concat's do: when the elements' rank is known only at run time,
		// it stands as it is.
		if m := im.known[s.elems[0]]; m != nil && m.Shape != nil {
			r := int64(len(m.Shape))
			if axis < -r-1 || axis > r {
				return fmt.Errorf("%w: ConcatFromSequence axis %d with new_axis for rank %d", ErrImport, axis, r)
			}
			if axis < 0 {
				axis += r + 1
			}
		}
		inputs = make([]string, len(s.elems))
		for i, e := range s.elems {
			inputs[i] = im.fresh(nodeBase(n) + "/unsqueezed")
			if err := im.axesNode("Unsqueeze", e, inputs[i], axis); err != nil {
				return err
			}
		}
	}
	return im.node(&Node{Name: nodeBase(n), OpType: "Concat", Inputs: inputs, Outputs: n.Outputs,
		Attrs: []*Attribute{{Name: "axis", Type: AttrInt, I: axis}}})
}

// splitToSequence imports SplitToSequence as a Split into known chunks
// (and a Squeeze of each, for size-1 chunks without keepdims). The number
// of chunks must be known at import: a split of constant sizes (checked
// against the dimension at run time when the model leaves it free), a
// split computed at run time of a length the import knows, or a scalar
// split or none along a dimension the import knows. The chunks' other
// dimensions may be free, and the tensor's rank known only at run time.
func (im *importer) splitToSequence(n *Node) error {
	if len(n.Inputs) == 0 || n.Inputs[0] == "" {
		return fmt.Errorf("%w: SplitToSequence needs an input", ErrImport)
	}
	in, err := im.resolve(n.Inputs[0])
	if err != nil {
		return err
	}
	axis, err := intAttr(n, "axis", 0)
	if err != nil {
		return err
	}
	// A tensor whose rank is known only at run time is split along its
	// axis as Split counts it, by sizes the split gives.
	m := im.known[in]
	if m == nil {
		m = &kernel.Tensor{}
	}
	dim := kernel.Dynamic
	if m.Shape != nil {
		r := int64(len(m.Shape))
		if axis < -r || axis >= r {
			return fmt.Errorf("%w: SplitToSequence axis %d of rank %d", ErrImport, axis, r)
		}
		if axis < 0 {
			axis += r
		}
		dim = m.Shape[axis]
	}
	kd, err := intAttr(n, "keepdims", 1)
	if err != nil {
		return err
	}
	keep := kd != 0
	sizes, runSplit, squeeze, err := im.splitSizes(n, dim, axis, keep)
	if err != nil {
		return err
	}
	s := &seqValue{dtype: m.DType}
	if len(sizes) == 0 {
		return im.defineSeq(n.Outputs[0], s)
	}
	parts := make([]string, len(sizes))
	for i := range parts {
		parts[i] = im.fresh(nodeBase(n) + "/part")
	}
	split := &Node{Name: nodeBase(n), OpType: "Split", Inputs: []string{in}, Outputs: parts,
		Attrs: []*Attribute{{Name: "axis", Type: AttrInt, I: axis}}}
	switch {
	case runSplit != "":
		split.Inputs = append(split.Inputs, runSplit)
	case im.opset < 13:
		split.Attrs = append(split.Attrs, &Attribute{Name: "split", Type: AttrInts, Ints: sizes})
	default:
		c, err := im.constInts(nodeBase(n)+"/split", sizes...)
		if err != nil {
			return err
		}
		split.Inputs = append(split.Inputs, c)
	}
	if err := im.node(split); err != nil {
		return err
	}
	for i, p := range parts {
		e := p
		var shape kernel.Shape
		if m.Shape != nil {
			shape = m.Shape.Clone()
			shape[axis] = sizes[i]
			im.knowRank(p, m.DType, shape)
		}
		if squeeze { // the rank is known: dim is
			e = im.fresh(nodeBase(n) + "/squeezed")
			if err := im.axesNode("Squeeze", p, e, axis); err != nil {
				return err
			}
			im.knowRank(e, m.DType, slices.Delete(shape.Clone(), int(axis), int(axis)+1))
		}
		name, err := im.resolve(e)
		if err != nil {
			return err
		}
		s.elems = append(s.elems, name)
	}
	return im.defineSeq(n.Outputs[0], s)
}

// splitSizes returns the chunk sizes of SplitToSequence n along
// dimension axis, of length dim (kernel.Dynamic when free or of a
// tensor of unknown rank), and whether
// each chunk is squeezed (no split, keepdims 0). A split of constant
// sizes gives its chunks whatever dim is (a free one must add up to their
// sum at run time, as Split checks); a split computed at run time whose
// length the import knows gives that many chunks, of sizes kernel.Dynamic,
// and runSplit names it as Split takes it (int64); a scalar split or none
// makes as many chunks as dim holds, so dim must be known.
func (im *importer) splitSizes(n *Node, dim, axis int64, keep bool) (sizes []int64, runSplit string, squeeze bool, err error) {
	if len(n.Inputs) < 2 || n.Inputs[1] == "" {
		if dim < 0 {
			return nil, "", false, fmt.Errorf("%w: SplitToSequence without a split makes one element per index of dimension %d, whose length is known only at run time (sequences are resolved at import: fix it with Options.Shapes)", ErrUnsupported, axis)
		}
		return slices.Repeat([]int64{1}, int(dim)), "", !keep, nil
	}
	name, err := im.resolve(n.Inputs[1])
	if err != nil {
		return nil, "", false, err
	}
	t := im.known[name]
	if t != nil && t.Host == nil && len(t.Shape) == 1 && t.Shape.Known() {
		runSplit, err := im.runSplit(n, name, t.DType)
		return slices.Repeat([]int64{kernel.Dynamic}, int(t.Shape[0])), runSplit, false, err
	}
	if t == nil || t.Host == nil {
		return nil, "", false, fmt.Errorf("%w: SplitToSequence's split is computed at run time, of a length unknown at import (sequences are resolved at import)", ErrUnsupported)
	}
	vs, err := t.IntValues()
	if err != nil {
		return nil, "", false, fmt.Errorf("%w: SplitToSequence split: %v", ErrImport, err)
	}
	if len(t.Shape) == 0 {
		if vs[0] <= 0 {
			return nil, "", false, fmt.Errorf("%w: SplitToSequence split %d", ErrImport, vs[0])
		}
		if dim < 0 {
			return nil, "", false, fmt.Errorf("%w: SplitToSequence's scalar split %d makes as many elements as fit in dimension %d, whose length is known only at run time (sequences are resolved at import: fix it with Options.Shapes, or give the split's sizes)", ErrUnsupported, vs[0], axis)
		}
		for left := dim; left > 0; left -= vs[0] {
			sizes = append(sizes, min(vs[0], left))
		}
		return sizes, "", false, nil
	}
	sum := int64(0)
	for _, v := range vs {
		if v < 0 {
			return nil, "", false, fmt.Errorf("%w: SplitToSequence split %v", ErrImport, vs)
		}
		sum += v
	}
	if dim >= 0 && sum != dim {
		return nil, "", false, fmt.Errorf("%w: SplitToSequence split %v of a dimension of %d", ErrImport, vs, dim)
	}
	return vs, "", false, nil
}

// runSplit returns the graph name of SplitToSequence n's split, computed
// at run time, as Split takes it: int64 (from opset 13), an int32 split
// cast.
func (im *importer) runSplit(n *Node, name string, dt kernel.DType) (string, error) {
	if im.opset < 13 {
		return "", fmt.Errorf("%w: SplitToSequence's split is computed at run time, and Split takes one only from opset 13 (the model's is %d)", ErrUnsupported, im.opset)
	}
	if dt == kernel.Int64 {
		return name, nil
	}
	cast := im.fresh(nodeBase(n) + "/split")
	err := im.node(&Node{Name: im.fresh(nodeBase(n) + "/cast"), OpType: "Cast", Inputs: []string{name}, Outputs: []string{cast},
		Attrs: []*Attribute{{Name: "to", Type: AttrInt, I: int64(Int64)}}})
	if err != nil {
		return "", err
	}
	return im.resolve(cast)
}

// knowRank records what the import knows of tensor name when the node
// that made it could not infer it, its inputs' shapes known only in part:
// its dtype and shape, kernel.Dynamic for the dimensions known only at
// run time (as a graph input's), so that the ops reading it know its rank.
func (im *importer) knowRank(name string, dt kernel.DType, shape kernel.Shape) {
	local, err := im.resolve(name)
	if err != nil || im.known[local] != nil {
		return
	}
	im.known[local] = &kernel.Tensor{DType: dt, Shape: shape}
}

// sequenceMap imports a SequenceMap (opset 17) by unrolling it: its body
// is inlined once per element of its input sequence, its inputs bound to
// that element of each sequence input and to each tensor input as it is;
// output o is the sequence of the body's output o over the elements.
func (im *importer) sequenceMap(n *Node) error {
	at := n.Attr("body")
	if at == nil || at.G == nil {
		return fmt.Errorf("%w: a SequenceMap needs a body graph", ErrImport)
	}
	body := at.G
	if len(body.Inputs) != len(n.Inputs) {
		return fmt.Errorf("%w: SequenceMap has %d inputs, its body %d", ErrImport, len(n.Inputs), len(body.Inputs))
	}
	if len(body.Outputs) != len(n.Outputs) || len(n.Outputs) == 0 {
		return fmt.Errorf("%w: SequenceMap has %d outputs, its body %d", ErrImport, len(n.Outputs), len(body.Outputs))
	}
	first, err := im.seqInput(n, 0)
	if err != nil {
		return err
	}
	if first.optional {
		return fmt.Errorf("%w: SequenceMap's input 0 is an optional, not a sequence", ErrImport)
	}
	k := len(first.elems)
	// The bound inputs: a sequence's elements, or a tensor for every
	// element.
	ins := make([][]string, len(n.Inputs))
	for j, name := range n.Inputs {
		if name == "" {
			return fmt.Errorf("%w: SequenceMap input %d is empty", ErrImport, j)
		}
		r, err := im.resolve(name)
		if err != nil {
			return err
		}
		if sq := im.seqOf(r); sq != nil {
			if sq.optional || len(sq.elems) != k {
				return fmt.Errorf("%w: SequenceMap input %d (%q) is not a sequence of %d elements, as input 0 is", ErrImport, j, name, k)
			}
			ins[j] = sq.elems
			continue
		}
		ins[j] = slices.Repeat([]string{r}, k)
	}
	outs := make([]*seqValue, len(n.Outputs))
	for o, vi := range body.Outputs {
		outs[o] = &seqValue{}
		if dt, ok := vi.DataType.DType(); ok {
			outs[o].dtype = dt
		}
	}
	for i := range k {
		rename := map[string]string{}
		for j, vi := range body.Inputs {
			rename[vi.Name] = ins[j][i]
		}
		if err := im.body(body, rename); err != nil {
			return fmt.Errorf("SequenceMap body, element %d: %w", i, err)
		}
		im.scopes = append(im.scopes, rename)
		for o, vi := range body.Outputs {
			src, err := im.tensor(vi.Name)
			if err != nil {
				im.scopes = im.scopes[:len(im.scopes)-1]
				return fmt.Errorf("SequenceMap body, element %d: output %q: %w", i, vi.Name, err)
			}
			outs[o].elems = append(outs[o].elems, src)
			if m := im.known[src]; m != nil && outs[o].dtype == 0 {
				outs[o].dtype = m.DType
			}
		}
		im.scopes = im.scopes[:len(im.scopes)-1]
	}
	for o, name := range n.Outputs {
		if name == "" {
			continue
		}
		if err := im.defineSeq(name, outs[o]); err != nil {
			return err
		}
	}
	return nil
}
