package ops

import (
	"fmt"
	"sort"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// The node modes of the tree ensembles (nodes_modes).
const (
	mlLeaf = iota
	mlLEQ
	mlLT
	mlGTE
	mlGT
	mlEQ
	mlNEQ
)

var mlModes = map[string]uint8{"LEAF": mlLeaf, "BRANCH_LEQ": mlLEQ, "BRANCH_LT": mlLT, "BRANCH_GTE": mlGTE,
	"BRANCH_GT": mlGT, "BRANCH_EQ": mlEQ, "BRANCH_NEQ": mlNEQ}

// The aggregate functions of TreeEnsembleRegressor.
const (
	mlAggSum = iota
	mlAggAverage
	mlAggMin
	mlAggMax
)

// mlTrees is a tree ensemble of TreeEnsembleRegressor or
// TreeEnsembleClassifier, checked and laid out at creation, with the
// scratch its runs use.
type mlTrees struct {
	op         string
	classifier bool
	n          int // targets, or classes
	agg, post  int
	// The nodes, in attribute order.
	mode     []uint8
	feat     []int64
	thr      []float64 // threshold, exact in the threshold type
	tru, fal []int32   // children (node indices) of a branch
	missTrue []bool
	leafOne  []float64 // a leaf's value with one target: its first weight, else its threshold
	wFirst   []int32   // a leaf's weights: wID[wFirst:wFirst+wCount]
	wCount   []int32
	wID      []int32
	wVal     []float64
	roots    []int32
	maxFeat  int64
	base     []float64
	// tensorDT is the dtype of the _as_tensor attributes (0: none):
	// float32 for float32 or integer X, float64 for float64 X.
	tensorDT kernel.DType
	// Classifier.
	labels     []int64
	binaryCase bool
	allPos     bool
	mlScratch
}

// mlScratch is a tree ensemble's scratch for a row's scores, allocated by
// the first run and kept.
type mlScratch struct {
	sc32 []float32
	sc64 []float64
	has  []bool
	out  []float32
}

// ensure makes room for n scores.
func (s *mlScratch) ensure(n int) {
	if len(s.has) < n {
		s.sc32, s.sc64, s.has, s.out = make([]float32, n), make([]float64, n), make([]bool, n), make([]float32, n)
	}
}

// mlTreeCost is the cost of an ensemble of nodes nodes on X = in[0]: a
// node a row.
func mlTreeCost(nodes int, in, out []*kernel.Tensor) device.Cost {
	rows := float64(1)
	if in[0].Shape.Rank() == 2 {
		rows = float64(in[0].Shape[0])
	}
	return device.Cost{FLOPs: rows * float64(nodes), Bytes: float64(in[0].Bytes() + out[0].Bytes())}
}

// mlTreeInts reads an integer-list attribute.
func mlTreeInts(attrs kernel.Attrs, name string) ([]int64, error) {
	v, err := attrs.Ints(name, nil)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// mlFloatsOrTensor reads attribute name (floats) or, from version 3,
// name_as_tensor (a 1-D float32 or float64 tensor); not both. The values
// are returned exact, with the tensor's dtype (0 for the floats form).
func mlFloatsOrTensor(attrs kernel.Attrs, name string, opset int64) ([]float64, kernel.DType, bool, error) {
	fl, err := attrs.Floats(name, nil)
	if err != nil {
		return nil, 0, false, err
	}
	tname := name + "_as_tensor"
	t, err := attrs.Tensor(tname, nil)
	if err != nil {
		return nil, 0, false, err
	}
	_, hasF := attrs[name]
	if t == nil {
		return fl, 0, hasF, nil
	}
	if opset < 3 {
		return nil, 0, false, fmt.Errorf("attribute %q is from version 3 of ai.onnx.ml (the node's is %d)", tname, opset)
	}
	if hasF && len(fl) > 0 {
		return nil, 0, false, fmt.Errorf("attributes %q and %q are both given", name, tname)
	}
	if t.Shape.Rank() != 1 || t.NumElements() == 0 {
		return nil, 0, false, fmt.Errorf("attribute %q %v: want a non-empty 1-D tensor", tname, t.Shape)
	}
	if t.DType != kernel.Float32 && t.DType != kernel.Float64 {
		return nil, 0, false, fmt.Errorf("attribute %q has dtype %v, want float32 or float64", tname, t.DType)
	}
	h := t.Data()
	if int64(len(h)) < t.Bytes() {
		return nil, 0, false, fmt.Errorf("attribute %q has no contents", tname)
	}
	out := make([]float64, t.NumElements())
	for i := range out {
		out[i] = loadF(t.DType, h, int64(i))
	}
	return out, t.DType, true, nil
}

// newMLTrees builds TreeEnsembleRegressor or TreeEnsembleClassifier; see
// mlOps.
func newMLTrees(classifier bool) kernel.Factory {
	op, tgt := "TreeEnsembleRegressor", "target"
	if classifier {
		op, tgt = "TreeEnsembleClassifier", "class"
	}
	return mlModel(op, classifier, func(attrs kernel.Attrs) (impl, error) { return parseMLTrees(attrs, classifier, op, tgt) })
}

func parseMLTrees(attrs kernel.Attrs, classifier bool, op, tgt string) (*mlTrees, error) {
	known := []string{"base_values", "base_values_as_tensor", "nodes_falsenodeids", "nodes_featureids", "nodes_hitrates",
		"nodes_hitrates_as_tensor", "nodes_missing_value_tracks_true", "nodes_modes", "nodes_nodeids", "nodes_treeids",
		"nodes_truenodeids", "nodes_values", "nodes_values_as_tensor", "post_transform",
		tgt + "_ids", tgt + "_nodeids", tgt + "_treeids", tgt + "_weights", tgt + "_weights_as_tensor"}
	if classifier {
		known = append(known, "classlabels_int64s", "classlabels_strings")
	} else {
		known = append(known, "aggregate_function", "n_targets")
	}
	if err := attrs.Check(known...); err != nil {
		return nil, err
	}
	opset, err := attrs.Opset(3)
	if err != nil {
		return nil, err
	}
	m := &mlTrees{op: op, classifier: classifier}
	post, err := attrs.String("post_transform", "NONE")
	if err != nil {
		return nil, err
	}
	if m.post, err = mlPostTransform(post); err != nil {
		return nil, err
	}
	if classifier {
		if _, ok := attrs["classlabels_strings"]; ok {
			return nil, notImplemented("attribute \"classlabels_strings\": string labels are not implemented (pipert has no string tensors)")
		}
		if m.labels, err = attrs.Ints("classlabels_int64s", nil); err != nil {
			return nil, err
		}
		if len(m.labels) < 1 {
			return nil, fmt.Errorf("attribute \"classlabels_int64s\" has no labels, want 1 or more")
		}
		m.n = len(m.labels)
	} else {
		n, err := attrs.Int("n_targets", 0)
		if err != nil {
			return nil, err
		}
		if n < 1 || n > 1<<24 {
			return nil, fmt.Errorf("attribute \"n_targets\" is %d, want 1 or more", n)
		}
		m.n = int(n)
		agg, err := attrs.String("aggregate_function", "SUM")
		if err != nil {
			return nil, err
		}
		switch agg {
		case "SUM":
			m.agg = mlAggSum
		case "AVERAGE":
			m.agg = mlAggAverage
		case "MIN":
			m.agg = mlAggMin
		case "MAX":
			m.agg = mlAggMax
		default:
			return nil, fmt.Errorf("attribute \"aggregate_function\" is %q, want SUM, AVERAGE, MIN or MAX", agg)
		}
	}
	// The _as_tensor forms: one dtype for all.
	var tdt kernel.DType
	useDT := func(name string, dt kernel.DType) error {
		if dt == 0 {
			return nil
		}
		if tdt != 0 && tdt != dt {
			return fmt.Errorf("attribute %q has dtype %v, another _as_tensor attribute %v", name+"_as_tensor", dt, tdt)
		}
		tdt = dt
		return nil
	}
	var dt kernel.DType
	if m.base, dt, _, err = mlFloatsOrTensor(attrs, "base_values", opset); err != nil {
		return nil, err
	}
	if err := useDT("base_values", dt); err != nil {
		return nil, err
	}
	if len(m.base) != 0 && len(m.base) != m.n && (!classifier || m.n != 2 || len(m.base) != 1) {
		return nil, fmt.Errorf("attribute \"base_values\" has %d values, want 0 or one per %s (%d; 1 also for two classes)", len(m.base), tgt, m.n)
	}
	if _, dt, _, err = mlFloatsOrTensor(attrs, "nodes_hitrates", opset); err != nil {
		return nil, err
	}
	if err := useDT("nodes_hitrates", dt); err != nil {
		return nil, err
	}
	thr, dt, _, err := mlFloatsOrTensor(attrs, "nodes_values", opset)
	if err != nil {
		return nil, err
	}
	if err := useDT("nodes_values", dt); err != nil {
		return nil, err
	}
	wv, dt, _, err := mlFloatsOrTensor(attrs, tgt+"_weights", opset)
	if err != nil {
		return nil, err
	}
	if err := useDT(tgt+"_weights", dt); err != nil {
		return nil, err
	}
	m.tensorDT = tdt

	ints := map[string][]int64{}
	for _, name := range []string{"nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_truenodeids", "nodes_falsenodeids",
		"nodes_missing_value_tracks_true", tgt + "_ids", tgt + "_nodeids", tgt + "_treeids"} {
		if ints[name], err = mlTreeInts(attrs, name); err != nil {
			return nil, err
		}
	}
	modes, err := attrs.Strings("nodes_modes", nil)
	if err != nil {
		return nil, err
	}
	treeIDs, nodeIDs := ints["nodes_treeids"], ints["nodes_nodeids"]
	nn := len(treeIDs)
	if nn == 0 {
		return nil, fmt.Errorf("attribute \"nodes_treeids\" is empty: no trees")
	}
	if nn >= 1<<31-1 {
		return nil, fmt.Errorf("attribute \"nodes_treeids\" has %d nodes, too many", nn)
	}
	for _, name := range []string{"nodes_nodeids", "nodes_featureids", "nodes_truenodeids", "nodes_falsenodeids"} {
		if len(ints[name]) != nn {
			return nil, fmt.Errorf("attribute %q has %d values, \"nodes_treeids\" %d", name, len(ints[name]), nn)
		}
	}
	if len(modes) != nn {
		return nil, fmt.Errorf("attribute \"nodes_modes\" has %d values, \"nodes_treeids\" %d", len(modes), nn)
	}
	if len(thr) != nn {
		return nil, fmt.Errorf("attribute \"nodes_values\" (or nodes_values_as_tensor) has %d values, \"nodes_treeids\" %d", len(thr), nn)
	}
	if miss := ints["nodes_missing_value_tracks_true"]; len(miss) > nn {
		return nil, fmt.Errorf("attribute \"nodes_missing_value_tracks_true\" has %d values, more than the %d nodes", len(miss), nn)
	}
	m.mode = make([]uint8, nn)
	m.feat = ints["nodes_featureids"]
	m.thr = thr
	m.tru, m.fal = make([]int32, nn), make([]int32, nn)
	m.missTrue = make([]bool, nn)
	for i, v := range ints["nodes_missing_value_tracks_true"] {
		m.missTrue[i] = v == 1
	}
	type key struct{ tree, node int64 }
	index := make(map[key]int32, nn)
	for i := range nn {
		md, ok := mlModes[modes[i]]
		if !ok {
			return nil, fmt.Errorf("attribute \"nodes_modes\"[%d] is %q, want LEAF, BRANCH_LEQ, BRANCH_LT, BRANCH_GTE, BRANCH_GT, BRANCH_EQ or BRANCH_NEQ", i, modes[i])
		}
		m.mode[i] = md
		k := key{treeIDs[i], nodeIDs[i]}
		if _, dup := index[k]; dup {
			return nil, fmt.Errorf("attributes \"nodes_treeids\", \"nodes_nodeids\": node %d of tree %d is given twice", k.node, k.tree)
		}
		index[k] = int32(i)
		if m.feat[i] > m.maxFeat {
			m.maxFeat = m.feat[i]
		}
		if md != mlLeaf && m.feat[i] < 0 {
			return nil, fmt.Errorf("attribute \"nodes_featureids\"[%d] is %d, want ≥ 0", i, m.feat[i])
		}
	}
	// Roots: the first node of each tree; a tree's nodes are contiguous.
	seen := map[int64]bool{}
	for i := range nn {
		if i > 0 && treeIDs[i] == treeIDs[i-1] {
			continue
		}
		if seen[treeIDs[i]] {
			return nil, fmt.Errorf("attribute \"nodes_treeids\": the nodes of tree %d are not contiguous", treeIDs[i])
		}
		seen[treeIDs[i]] = true
		m.roots = append(m.roots, int32(i))
	}
	for i := range nn {
		if m.mode[i] == mlLeaf {
			continue
		}
		for _, c := range []struct {
			name string
			ids  []int64
			dst  []int32
		}{{"nodes_truenodeids", ints["nodes_truenodeids"], m.tru}, {"nodes_falsenodeids", ints["nodes_falsenodeids"], m.fal}} {
			id := c.ids[i]
			j, ok := index[key{treeIDs[i], id}]
			if id < 0 || id >= int64(nn) || !ok {
				return nil, fmt.Errorf("attribute %q[%d] is %d: no node %d in tree %d", c.name, i, id, id, treeIDs[i])
			}
			if int(j) == i {
				return nil, fmt.Errorf("attribute %q[%d]: node %d of tree %d is its own child", c.name, i, nodeIDs[i], treeIDs[i])
			}
			c.dst[i] = j
		}
	}
	// No cycles: a depth-first walk over the branches.
	state := make([]uint8, nn) // 0 new, 1 on the path, 2 done
	var stack []int32
	for s := range nn {
		if state[s] != 0 {
			continue
		}
		stack = append(stack[:0], int32(s))
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			if state[i] == 0 {
				state[i] = 1
				if m.mode[i] != mlLeaf {
					for _, c := range [2]int32{m.tru[i], m.fal[i]} {
						switch state[c] {
						case 0:
							stack = append(stack, c)
						case 1:
							return nil, fmt.Errorf("attributes \"nodes_truenodeids\", \"nodes_falsenodeids\": tree %d has a cycle through node %d", treeIDs[i], nodeIDs[c])
						}
					}
				}
				continue
			}
			if state[i] == 1 {
				state[i] = 2
			}
			stack = stack[:len(stack)-1]
		}
	}
	// Weights, by leaf in attribute order; weights of branches are ignored.
	wIDs, wNodes, wTrees := ints[tgt+"_ids"], ints[tgt+"_nodeids"], ints[tgt+"_treeids"]
	nw := len(wIDs)
	if len(wNodes) != nw || len(wTrees) != nw || len(wv) != nw {
		return nil, fmt.Errorf("attributes \"%s_ids\", \"%s_nodeids\", \"%s_treeids\", \"%s_weights\" have %d, %d, %d and %d values: want one length",
			tgt, tgt, tgt, tgt, nw, len(wNodes), len(wTrees), len(wv))
	}
	type wref struct {
		node int32
		at   int
	}
	refs := make([]wref, 0, nw)
	classes := map[int64]bool{}
	m.allPos = true
	for i := range nw {
		j, ok := index[key{wTrees[i], wNodes[i]}]
		if !ok {
			return nil, fmt.Errorf("attribute \"%s_nodeids\"[%d]: no node %d in tree %d", tgt, i, wNodes[i], wTrees[i])
		}
		if wIDs[i] < 0 || wIDs[i] >= int64(m.n) {
			return nil, fmt.Errorf("attribute \"%s_ids\"[%d] is %d, want 0 to %d", tgt, i, wIDs[i], m.n-1)
		}
		classes[wIDs[i]] = true
		if wv[i] < 0 {
			m.allPos = false
		}
		if m.mode[j] == mlLeaf {
			refs = append(refs, wref{j, i})
		}
	}
	sort.SliceStable(refs, func(a, b int) bool { return refs[a].node < refs[b].node })
	m.wFirst, m.wCount = make([]int32, nn), make([]int32, nn)
	m.leafOne = make([]float64, nn)
	copy(m.leafOne, m.thr)
	m.wID, m.wVal = make([]int32, len(refs)), make([]float64, len(refs))
	for k, r := range refs {
		if m.wCount[r.node] == 0 {
			m.wFirst[r.node] = int32(k)
			m.leafOne[r.node] = wv[r.at]
		}
		m.wCount[r.node]++
		m.wID[k], m.wVal[k] = int32(wIDs[r.at]), wv[r.at]
	}
	m.binaryCase = classifier && m.n == 2 && len(classes) == 1
	return m, nil
}

// check validates X against the ensemble.
func (m *mlTrees) check(x *kernel.Tensor) error {
	switch x.DType {
	case kernel.Float32, kernel.Float64:
	case kernel.Int64, kernel.Int32:
		if !m.classifier {
			return fmt.Errorf("input X has dtype %v: onnxruntime's TreeEnsembleRegressor takes float32 and float64", x.DType)
		}
	default:
		return fmt.Errorf("input X has dtype %v, want float32, float64, int64 or int32", x.DType)
	}
	if x.Shape.Rank() != 2 {
		return fmt.Errorf("input X %v: want rank 2 [N, C]", x.Shape)
	}
	if m.maxFeat >= x.Shape[1] {
		return fmt.Errorf("input X %v: the trees read feature %d", x.Shape, m.maxFeat)
	}
	switch {
	case m.tensorDT == kernel.Float64 && x.DType != kernel.Float64:
		return fmt.Errorf("input X has dtype %v: the float64 _as_tensor attributes need float64 X, as in onnxruntime", x.DType)
	case m.tensorDT == kernel.Float32 && x.DType == kernel.Float64:
		return fmt.Errorf("input X has dtype float64: the float32 _as_tensor attributes need float32 or integer X, as in onnxruntime")
	}
	return nil
}

func (m *mlTrees) infer(in, out []*kernel.Tensor) error {
	x := in[0]
	if err := m.check(x); err != nil {
		return err
	}
	rows := x.Shape[0]
	if m.classifier {
		setShape(out[0], kernel.Shape{rows}, kernel.Int64)
		setShape(out[1], kernel.Shape{rows, int64(m.n)}, kernel.Float32)
		return nil
	}
	setShape(out[0], kernel.Shape{rows, int64(m.n)}, kernel.Float32)
	return nil
}

func (m *mlTrees) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	return 0, m.check(in[0])
}

func (m *mlTrees) cost(in, out []*kernel.Tensor) device.Cost {
	return mlTreeCost(len(m.mode), in, out)
}

func (m *mlTrees) compute(a *kernel.Args) error {
	x := a.In[0]
	if err := m.check(x); err != nil {
		return err
	}
	m.ensure(m.n)
	var label []int64
	z := kernel.Float32s(a.Out[0].Data())
	if m.classifier {
		label, z = kernel.Int64s(a.Out[0].Data()), kernel.Float32s(a.Out[1].Data())
	}
	if x.DType == kernel.Float64 {
		return mlRunTrees(m, m.sc64[:m.n], x, z, label)
	}
	return mlRunTrees(m, m.sc32[:m.n], x, z, label)
}

// mlFloat is the threshold type of a tree ensemble: float64 for float64
// X, float32 otherwise.
type mlFloat interface{ ~float32 | ~float64 }

// mlFeature returns feature f of row r of x, converted to T.
func mlFeature[T mlFloat](x *kernel.Tensor, b []byte, r, c, f int64) T {
	i := r*c + f
	switch x.DType {
	case kernel.Float32:
		return T(kernel.Float32s(b)[i])
	case kernel.Float64:
		return T(kernel.Float64s(b)[i])
	case kernel.Int64:
		return T(kernel.Int64s(b)[i])
	}
	return T(kernel.Int32s(b)[i])
}

// mlLeafOf walks one tree from root for row r and returns its leaf.
func mlLeafOf[T mlFloat](m *mlTrees, x *kernel.Tensor, b []byte, r, c int64, root int32) int32 {
	i := root
	for {
		md := m.mode[i]
		if md == mlLeaf {
			return i
		}
		v := mlFeature[T](x, b, r, c, m.feat[i])
		t := T(m.thr[i])
		var ok bool
		switch md {
		case mlLEQ:
			ok = v <= t
		case mlLT:
			ok = v < t
		case mlGTE:
			ok = v >= t
		case mlGT:
			ok = v > t
		case mlEQ:
			ok = v == t
		default:
			ok = v != t
		}
		if !ok && m.missTrue[i] && v != v {
			ok = true
		}
		if ok {
			i = m.tru[i]
		} else {
			i = m.fal[i]
		}
	}
}

// mlRunTrees computes the ensemble on every row of x with scores of type T.
func mlRunTrees[T mlFloat](m *mlTrees, sc []T, x *kernel.Tensor, z []float32, label []int64) error {
	b := x.Data()
	rows, c := x.Shape[0], x.Shape[1]
	n := m.n
	has := m.has[:n]
	out := m.out[:n]
	nt := T(len(m.roots))
	for r := range rows {
		zr := z[r*int64(n) : (r+1)*int64(n)]
		if n == 1 {
			// One target, or one class: the leaves' single values.
			var s T
			h := false
			for _, root := range m.roots {
				v := T(m.leafOne[mlLeafOf[T](m, x, b, r, c, root)])
				switch m.agg {
				case mlAggMin:
					if !h || v < s {
						s = v
					}
				case mlAggMax:
					if !h || v > s {
						s = v
					}
				default:
					s += v
				}
				h = true
			}
			var origin T
			if len(m.base) == 1 {
				origin = T(m.base[0])
			}
			switch m.agg {
			case mlAggAverage:
				s /= nt
				s += origin
			case mlAggSum:
				s += origin
			default:
				if h {
					s += origin
				} else {
					s = origin
				}
			}
			if m.post == mlPostProbit {
				zr[0] = mlProbit(float32(s))
			} else {
				zr[0] = float32(s)
			}
			if m.classifier {
				label[r] = mlOneClassLabel(s)
			}
			continue
		}
		for j := range sc {
			sc[j], has[j] = 0, false
		}
		for _, root := range m.roots {
			l := mlLeafOf[T](m, x, b, r, c, root)
			w0, wn := m.wFirst[l], m.wCount[l]
			for k := w0; k < w0+wn; k++ {
				id, v := m.wID[k], T(m.wVal[k])
				switch m.agg {
				case mlAggMin:
					if !has[id] || v < sc[id] {
						sc[id] = v
					}
				case mlAggMax:
					if !has[id] || v > sc[id] {
						sc[id] = v
					}
				default:
					sc[id] += v
				}
				has[id] = true
			}
		}
		if m.classifier {
			var ok bool
			if label[r], ok = mlClassify(m, sc, has, zr); !ok {
				return fmt.Errorf("row %d: no class has a score (no leaf weight, no base value), so no label", r)
			}
			continue
		}
		useBase := len(m.base) == n
		for j := range sc {
			switch m.agg {
			case mlAggSum:
				if useBase {
					sc[j] += T(m.base[j])
				}
			case mlAggAverage:
				if useBase {
					sc[j] = sc[j]/nt + T(m.base[j])
				} else {
					sc[j] /= nt
				}
			default:
				var v T
				if useBase {
					v = T(m.base[j])
				}
				if has[j] {
					v += sc[j]
				}
				sc[j] = v
			}
			// A target no leaf weighted reads 0, base value or not, as in
			// onnxruntime.
			out[j] = 0
			if has[j] {
				out[j] = float32(sc[j])
			}
		}
		mlWriteScores(out, m.post)
		copy(zr, out)
	}
	return nil
}

// mlOneClassLabel is the label of a one-class classifier's row of score s,
// as onnxruntime gives it: 1 when s is positive, else 0, whatever the
// class's label (the specification leaves the case open). Its score is
// written as a regressor's: raw, or through PROBIT, the other post
// transforms left out.
func mlOneClassLabel[T mlFloat](s T) int64 {
	if s > 0 {
		return 1
	}
	return 0
}

// mlClassify finishes a classifier's row: the scores sc (has: whether a
// leaf weighted the class) with the base values, the label it returns and
// the probabilities or scores it writes to zr.
//
// With more than two classes and no class scored (no leaf weight and no
// base value), there is no label: onnxruntime fails, and so does the run.
func mlClassify[T mlFloat](m *mlTrees, sc []T, has []bool, zr []float32) (int64, bool) {
	n := m.n
	out := m.out[:n]
	val := func(j int) T {
		if has[j] {
			return sc[j]
		}
		return 0
	}
	if n > 2 {
		for k, bv := range m.base {
			if !has[k] {
				has[k], sc[k] = true, T(bv)
			} else {
				sc[k] += T(bv)
			}
		}
		best := -1
		var bw T
		for j := range sc {
			if has[j] && (best == -1 || sc[j] > bw) {
				best, bw = j, sc[j]
			}
		}
		for j := range out {
			out[j] = float32(val(j))
		}
		mlWriteScores(out, m.post)
		copy(zr, out)
		if best < 0 {
			return 0, false
		}
		return m.labels[best], true
	}
	// Two classes.
	add := -1
	size := 2
	switch len(m.base) {
	case 2:
		if has[1] {
			sc[1] = T(m.base[1]) + sc[0]
			sc[0] = -sc[1]
		} else {
			sc[1] += T(m.base[1])
			sc[0] += T(m.base[0])
		}
	case 1:
		sc[0] += T(m.base[0])
		if !has[1] {
			size = 1
		}
	case 0:
		add = 3
		if !has[1] {
			size = 1
		}
	}
	var pos T
	switch {
	case size == 2 && has[1]:
		pos = sc[1]
	case has[0]:
		pos = sc[0]
	}
	var lab int64
	if m.binaryCase {
		switch {
		case m.allPos && pos > 0.5:
			add, lab = 0, m.labels[1]
		case m.allPos:
			add, lab = 1, m.labels[0]
		case pos > 0:
			add, lab = 2, m.labels[1]
		default:
			add, lab = 3, m.labels[0]
		}
	} else if pos > 0 {
		lab = 1
	}
	if size == 2 {
		out[0], out[1] = float32(val(0)), float32(val(1))
		mlWriteScores(out, m.post)
		copy(zr, out)
		return lab, true
	}
	// One score: the second column derives from it.
	v := val(0)
	zr[1] = 0
	switch {
	case m.post == mlPostProbit:
		zr[0] = mlProbit(float32(v))
	case add >= 0 && m.post == mlPostLogistic:
		zr[0], zr[1] = mlLogistic(float32(-v)), mlLogistic(float32(v))
	case add == 0 || add == 1:
		zr[0], zr[1] = float32(1-v), float32(v)
	case add == 2 || add == 3:
		zr[0], zr[1] = float32(-v), float32(v)
	default:
		zr[0] = float32(v)
	}
	return lab, true
}
