package onnx

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pipert/pipert/kernel"
)

// Models of default-domain opsets 1 to 6 (the exporters of 2017 and 2018:
// Caffe2, early PyTorch, CNTK, the first model zoo) are imported by
// upgrading each node to its form at opset 7, as ONNX's version converter
// (onnx.version_converter) adapts it, and importing that:
//
//   - consumed_inputs (a legacy optimization hint of version 1) is dropped;
//   - the binary ops with attribute broadcast (Add, Sub, Mul, Div, Pow,
//     And, Or, Xor, Equal, Greater, Less) take B aligned at axis, or at
//     the end when axis is absent: B gets trailing dimensions of 1 so
//     that numpy broadcasting aligns it there (which needs the ranks at
//     import), and B's dimensions must be A's or 1;
//   - Gemm drops broadcast (opset 7's unidirectional broadcast of C holds
//     every form it allowed);
//   - BatchNormalization and Dropout drop is_test: the node runs in
//     inference mode, as ONNX's version converter and onnxruntime run it
//     (a BatchNormalization with its training outputs stays refused);
//   - PRelu's slope of one value per channel, [C] for an input of rank 3
//     or more, applies along dimension 1 (as Caffe2 and PyTorch export it);
//   - Reshape's shape attribute (before 5) becomes its input; Concat
//     without axis (before 4) concatenates along 1; Pad's paddings
//     (opset 1) are pads; Split's split input (opset 1) must be known at
//     import and becomes the attribute; LpPool and GlobalLpPool take p as
//     a float (opset 1), which must be whole;
//   - Cast's to as a type name (before 6); Tile's tiles and axis inputs
//     (before 6), known at import, become repeats; Upsample's
//     height_scale and width_scale (version 1) become scales, bilinear
//     being linear; Clip's absent min or max (before 6) clips nothing;
//     Selu's defaults before 6 are 1.6732 and 1.0507;
//   - GRU, LSTM and RNN drop output_sequence (the node's outputs say
//     which are made).
//
// An op that ONNX added at opset 7 or later is refused in such a model,
// but for the two normalizations onnxruntime takes at every opset (see
// legacyOps).
const legacyOpset = 7

// legacyOps are the ops of default-domain opsets 1 to 6: each has a
// version 1. The experimental ops of opsets 1 to 9 are among them, and
// the two normalizations onnxruntime takes in the default domain at every
// opset (its contrib LayerNormalization and SimplifiedLayerNormalization).
var legacyOps = makeSet(`Abs Add And ArgMax ArgMin AveragePool BatchNormalization Cast Ceil Clip
	Concat Constant Conv ConvTranspose DepthToSpace Div Dropout Elu Equal Exp Flatten Floor GRU Gather
	Gemm GlobalAveragePool GlobalLpPool GlobalMaxPool Greater HardSigmoid Hardmax Identity If
	InstanceNormalization LRN LSTM LeakyRelu Less Log LogSoftmax Loop LpNormalization LpPool MatMul Max
	MaxPool MaxRoiPool Mean Min Mul Neg Not Or PRelu Pad Pow RNN RandomNormal RandomNormalLike
	RandomUniform RandomUniformLike Reciprocal ReduceL1 ReduceL2 ReduceLogSum ReduceLogSumExp ReduceMax ReduceMean
	ReduceMin ReduceProd ReduceSum ReduceSumSquare Relu Reshape Selu Shape Sigmoid Size Slice Softmax
	Softplus Softsign SpaceToDepth Split Sqrt Squeeze Sub Sum Tanh Tile TopK Transpose Unsqueeze
	Upsample Xor
	Affine Crop DynamicSlice ImageScaler MeanVarianceNormalization ParametricSoftplus ScaledTanh
	ThresholdedRelu
	LayerNormalization SimplifiedLayerNormalization`)

// legacyBroadcast are the ops whose versions before 7 broadcast B onto A
// by attributes broadcast and axis.
var legacyBroadcast = makeSet("Add Sub Mul Div Pow And Or Xor Equal Greater Less")

func makeSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// legacyOf is importer.legacy for default-domain opset v.
func legacyOf(v int64) int64 {
	if v < legacyOpset {
		return v
	}
	return 0
}

// modelOpset is the default-domain opset of the model (or function) being
// imported, for messages: a legacy model's nodes are imported at opset 7.
func (im *importer) modelOpset() int64 {
	if im.legacy != 0 {
		return im.legacy
	}
	return im.opset
}

// upgrade returns n, a default-domain node of a model of opset im.legacy
// (1 to 6), in its form at opset 7 (legacyOpset), importing first the
// constants and nodes the form needs.
func (im *importer) upgrade(n *Node) (*Node, error) {
	v := im.legacy
	if !legacyOps[n.OpType] {
		return nil, fmt.Errorf("%w: op %s is not in default-domain opset %d (ONNX added it at opset 7 or later)", ErrImport, n.OpType, v)
	}
	if info, ok := table[n.OpType]; ok && info.MinOpset > legacyOpset {
		return nil, fmt.Errorf("%w: op %s at opset %d (pipert takes it from opset %d)", ErrUnsupported, n.OpType, v, info.MinOpset)
	}
	c := *n
	c.Inputs = slices.Clone(n.Inputs)
	c.Attrs = nil
	for _, a := range n.Attrs {
		if a.Name != "consumed_inputs" {
			c.Attrs = append(c.Attrs, a)
		}
	}
	var err error
	switch op := n.OpType; {
	case legacyBroadcast[op]:
		err = im.upgradeBroadcast(&c)
	case op == "Gemm":
		c.drop("broadcast")
	case op == "BatchNormalization" || op == "Dropout":
		c.drop("is_test")
	case op == "GRU" || op == "LSTM" || op == "RNN":
		c.drop("output_sequence")
	case op == "PRelu":
		err = im.upgradePRelu(&c)
	case op == "Reshape" && v < 5:
		err = im.upgradeReshape(&c)
	case op == "Concat" && v < 4:
		if c.Attr("axis") == nil {
			c.Attrs = append(c.Attrs, &Attribute{Name: "axis", Type: AttrInt, I: 1})
		}
	case op == "Pad" && v < 2:
		var pads []int64
		var ok bool
		if pads, ok, err = intsAttr(&c, "paddings"); ok {
			c.drop("paddings")
			c.Attrs = append(c.Attrs, &Attribute{Name: "pads", Type: AttrInts, Ints: pads})
		}
	case op == "Split" && v < 2:
		err = im.upgradeSplit(&c)
	case (op == "LpPool" || op == "GlobalLpPool") && v < 2:
		err = upgradeLpP(&c)
	case op == "Cast" && v < 6:
		err = upgradeCast(&c)
	case op == "Tile" && v < 6:
		err = im.upgradeTile(&c)
	case op == "Upsample":
		err = upgradeUpsample(&c)
	case op == "Clip" && v < 6:
		c.floatDefault("min", float32(math.Inf(-1)))
		c.floatDefault("max", float32(math.Inf(1)))
	case op == "Selu" && v < 6:
		c.floatDefault("alpha", 1.6732)
		c.floatDefault("gamma", 1.0507)
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// floatDefault gives n the float attribute name, v, unless it has one.
func (n *Node) floatDefault(name string, v float32) {
	if n.Attr(name) == nil {
		n.Attrs = append(n.Attrs, &Attribute{Name: name, Type: AttrFloat, F: v})
	}
}

// drop removes n's attribute name.
func (n *Node) drop(name string) {
	n.Attrs = slices.DeleteFunc(n.Attrs, func(a *Attribute) bool { return a.Name == name })
}

// rankOf returns the rank of the tensor the node input name refers to,
// or -1 when the import does not know it.
func (im *importer) rankOf(name string) (int, error) {
	r, err := im.tensor(name)
	if err != nil {
		return 0, err
	}
	if t := im.known[r]; t != nil && t.Shape != nil {
		return len(t.Shape), nil
	}
	return -1, nil
}

// shapeOf returns the shape the import knows for node input name (nil if
// unknown).
func (im *importer) shapeOf(name string) kernel.Shape {
	r, err := im.tensor(name)
	if err != nil {
		return nil
	}
	if t := im.known[r]; t != nil {
		return t.Shape
	}
	return nil
}

// upgradeBroadcast rewrites a binary op of attributes broadcast and axis
// into numpy broadcasting.
func (im *importer) upgradeBroadcast(n *Node) error {
	bc, err := intAttr(n, "broadcast", 0)
	if err != nil {
		return err
	}
	axisAttr := n.Attr("axis")
	axis, err := intAttr(n, "axis", 0)
	if err != nil {
		return err
	}
	n.drop("broadcast")
	n.drop("axis")
	if len(n.Inputs) != 2 || n.Inputs[0] == "" || n.Inputs[1] == "" {
		return fmt.Errorf("%w: %s takes 2 inputs, has %d", ErrImport, n.OpType, len(n.Inputs))
	}
	a, b := im.shapeOf(n.Inputs[0]), im.shapeOf(n.Inputs[1])
	if bc == 0 {
		// The operands have one shape; numpy broadcasting computes the
		// same. A model whose shapes differ is refused.
		if a != nil && b != nil && a.Known() && b.Known() && !a.Equal(b) {
			return fmt.Errorf("%w: %s without broadcast has operands %v and %v: their shapes must be equal", ErrImport, n.OpType, a, b)
		}
		return nil
	}
	if a == nil || b == nil {
		return fmt.Errorf("%w: %s of opset %d with broadcast: the ranks of both operands must be known at import", ErrUnsupported, n.OpType, im.legacy)
	}
	ra, rb := len(a), len(b)
	if rb > ra {
		return fmt.Errorf("%w: %s broadcasts B %v onto A %v of lower rank", ErrImport, n.OpType, b, a)
	}
	start := ra - rb // suffix matching
	if axisAttr != nil {
		if axis < 0 {
			axis += int64(ra)
		}
		if axis < 0 || axis+int64(rb) > int64(ra) {
			return fmt.Errorf("%w: %s broadcasts B %v onto A %v at axis %d", ErrImport, n.OpType, b, a, axisAttr.I)
		}
		start = int(axis)
	}
	ones := b.Known() && b.NumElements() == 1
	for i, d := range b {
		if ad := a[start+i]; d != kernel.Dynamic && ad != kernel.Dynamic && d != ad && d != 1 && !ones {
			return fmt.Errorf("%w: %s broadcasts B %v onto A %v at axis %d: dimension %d is %d, not %d", ErrImport, n.OpType, b, a, start, i, d, ad)
		}
	}
	if trailing := ra - start - rb; trailing > 0 && !ones {
		axes := make([]int64, trailing)
		for i := range axes {
			axes[i] = int64(rb + i)
		}
		out, err := im.unsqueeze(n.Inputs[1], axes)
		if err != nil {
			return err
		}
		n.Inputs[1] = out
	}
	return nil
}

// upgradePRelu applies a slope of one value per channel along dimension 1.
func (im *importer) upgradePRelu(n *Node) error {
	if len(n.Inputs) != 2 {
		return nil // the op reports it
	}
	x, s := im.shapeOf(n.Inputs[0]), im.shapeOf(n.Inputs[1])
	// A dimension the import does not know (symbolic, or of a loop body's
	// input) is taken as the channel count: unsqueezed, a slope of one
	// value still applies to every element.
	if len(x) < 3 || len(s) != 1 || s[0] == 1 || s[0] != x[1] && s[0] != kernel.Dynamic && x[1] != kernel.Dynamic {
		return nil
	}
	axes := make([]int64, len(x)-2)
	for i := range axes {
		axes[i] = int64(1 + i)
	}
	out, err := im.unsqueeze(n.Inputs[1], axes)
	if err != nil {
		return err
	}
	n.Inputs[1] = out
	return nil
}

// upgradeReshape makes Reshape's shape attribute its input.
func (im *importer) upgradeReshape(n *Node) error {
	shape, ok, err := intsAttr(n, "shape")
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: Reshape of opset %d without attribute shape", ErrImport, im.legacy)
	}
	n.drop("shape")
	name, err := im.constInts(nodeBase(n)+"/shape", shape...)
	if err != nil {
		return err
	}
	n.Inputs = append(n.Inputs[:min(len(n.Inputs), 1)], name)
	return nil
}

// upgradeSplit makes Split's split input (opset 1) its attribute.
func (im *importer) upgradeSplit(n *Node) error {
	if len(n.Inputs) < 2 || n.Inputs[1] == "" {
		n.Inputs = n.Inputs[:min(len(n.Inputs), 1)]
		return nil
	}
	if n.Attr("split") != nil {
		return fmt.Errorf("%w: Split has both the split input and attribute", ErrImport)
	}
	vals, err := im.knownInts(n.Inputs[1])
	if err != nil {
		return fmt.Errorf("split input of Split: %w", err)
	}
	n.Inputs = n.Inputs[:1]
	n.Attrs = append(n.Attrs, &Attribute{Name: "split", Type: AttrInts, Ints: vals})
	return nil
}

// upgradeLpP makes LpPool's and GlobalLpPool's float p (opset 1) an int.
func upgradeLpP(n *Node) error {
	a := n.Attr("p")
	if a == nil || a.Type != AttrFloat {
		return nil
	}
	if a.F != float32(math.Trunc(float64(a.F))) || a.F < 1 {
		return fmt.Errorf("%w: %s with p %v (pipert takes whole p ≥ 1)", ErrUnsupported, n.OpType, a.F)
	}
	n.drop("p")
	n.Attrs = append(n.Attrs, &Attribute{Name: "p", Type: AttrInt, I: int64(a.F)})
	return nil
}

// upgradeCast makes Cast's to a data type number.
func upgradeCast(n *Node) error {
	a := n.Attr("to")
	if a == nil || a.Type != AttrString {
		return nil // an int already, or absent: attrs reports it
	}
	dt := DataType(slices.Index(dataTypeNames[:], string(a.S)))
	if dt <= Undefined {
		return fmt.Errorf("%w: Cast to %q (want a type name such as FLOAT or INT64)", ErrImport, a.S)
	}
	n.drop("to")
	n.Attrs = append(n.Attrs, &Attribute{Name: "to", Type: AttrInt, I: int64(dt)})
	return nil
}

// upgradeTile makes Tile's tiles and axis inputs (before opset 6) the
// repeats input.
func (im *importer) upgradeTile(n *Node) error {
	if len(n.Inputs) != 3 {
		return fmt.Errorf("%w: Tile of opset %d takes inputs input, tiles and axis; has %d", ErrImport, im.legacy, len(n.Inputs))
	}
	rank, err := im.rankOf(n.Inputs[0])
	if err != nil {
		return err
	}
	if rank < 0 {
		return fmt.Errorf("%w: Tile of opset %d: the rank of its input must be known at import", ErrUnsupported, im.legacy)
	}
	tiles, err := im.knownInts(n.Inputs[1])
	if err != nil {
		return fmt.Errorf("tiles input of Tile: %w", err)
	}
	axis, err := im.knownInts(n.Inputs[2])
	if err != nil {
		return fmt.Errorf("axis input of Tile: %w", err)
	}
	if len(tiles) != 1 || len(axis) != 1 {
		return fmt.Errorf("%w: Tile's tiles %v and axis %v must be one value each", ErrImport, tiles, axis)
	}
	ax := axis[0]
	if ax < 0 {
		ax += int64(rank)
	}
	if ax < 0 || ax >= int64(rank) {
		return fmt.Errorf("%w: Tile's axis %d outside rank %d", ErrImport, axis[0], rank)
	}
	repeats := make([]int64, rank)
	for i := range repeats {
		repeats[i] = 1
	}
	repeats[ax] = tiles[0]
	name, err := im.constInts(nodeBase(n)+"/repeats", repeats...)
	if err != nil {
		return err
	}
	n.Inputs = []string{n.Inputs[0], name}
	return nil
}

// upgradeUpsample makes Upsample's height_scale and width_scale (version
// 1) the scales of an NCHW input.
func upgradeUpsample(n *Node) error {
	h, w := n.Attr("height_scale"), n.Attr("width_scale")
	if h == nil && w == nil {
		return nil // the form of opset 7
	}
	if h == nil || w == nil || h.Type != AttrFloat || w.Type != AttrFloat {
		return fmt.Errorf("%w: Upsample of version 1 needs float attributes height_scale and width_scale", ErrImport)
	}
	n.drop("height_scale")
	n.drop("width_scale")
	n.Attrs = append(n.Attrs, &Attribute{Name: "scales", Type: AttrFloats, Floats: []float32{1, 1, h.F, w.F}})
	if m := n.Attr("mode"); m != nil && string(m.S) == "bilinear" {
		n.drop("mode")
		n.Attrs = append(n.Attrs, &Attribute{Name: "mode", Type: AttrString, S: []byte("linear")})
	}
	return nil
}

// knownInts returns the values of node input name, which must be known at
// import.
func (im *importer) knownInts(name string) ([]int64, error) {
	r, err := im.tensor(name)
	if err != nil {
		return nil, err
	}
	t := im.known[r]
	if t == nil || (t.Host == nil && t.NumElements() != 0) {
		return nil, fmt.Errorf("%w: %q must be known at import (a constant of the model)", ErrUnsupported, name)
	}
	if t.DType == kernel.Float32 || t.DType == kernel.Float64 {
		// Split's split and Tile's tiles and axis of opset 1 have the
		// input's type.
		var f []float64
		if t.DType == kernel.Float64 {
			f = kernel.Float64s(t.Host)
		} else {
			for _, x := range kernel.Float32s(t.Host) {
				f = append(f, float64(x))
			}
		}
		out := make([]int64, len(f))
		for i, x := range f {
			if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
				return nil, fmt.Errorf("%w: %q holds %v, not a whole number", ErrImport, name, x)
			}
			out[i] = int64(x)
		}
		return out, nil
	}
	v, err := t.IntValues()
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %v", ErrImport, name, err)
	}
	return v, nil
}

// unsqueeze imports an Unsqueeze (opset 7's form) of node input in on
// axes and returns the name of its output.
func (im *importer) unsqueeze(in string, axes []int64) (string, error) {
	out := im.fresh(in + "/unsqueezed")
	u := &Node{Name: im.fresh("Unsqueeze"), OpType: "Unsqueeze", Inputs: []string{in}, Outputs: []string{out},
		Attrs: []*Attribute{{Name: "axes", Type: AttrInts, Ints: axes}}}
	return out, im.node(u)
}
