package ops

import (
	"fmt"
	"slices"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// TreeEnsemble (ai.onnx.ml version 5) → Y, computed as the spec (and
// ONNX's reference implementation) defines it, and otherwise as
// onnxruntime's CPU kernel computes it. Where onnxruntime 1.30 departs from
// the spec (its bugs microsoft/onnxruntime#26596 and #24862), the spec is
// followed: onnxruntime reads post_transform 1 as LOGISTIC and 2 as
// SOFTMAX, applies no transform but PROBIT with one target, and compares x
// with a large BRANCH_MEMBER set after truncating it to an int32.
//
//   - X is float32 or float64 [N, F]; Y is [N, n_targets] of X's dtype.
//     leaf_weights, nodes_splits and membership_values are tensors of X's
//     dtype (float16 is refused, as onnxruntime has no float16 kernel);
//     nodes_hitrates, float32 as ONNX's schema has it (onnxruntime refuses
//     it with float64 X), is checked and unused.
//   - The interior nodes are the nodes_* tuples (nodes_featureids,
//     nodes_modes — a uint8 tensor, 0 BRANCH_LEQ, 1 BRANCH_LT, 2
//     BRANCH_GTE, 3 BRANCH_GT, 4 BRANCH_EQ, 5 BRANCH_NEQ, 6 BRANCH_MEMBER
//     —, nodes_splits, nodes_truenodeids, nodes_trueleafs,
//     nodes_falsenodeids, nodes_falseleafs, nodes_missing_value_tracks_true
//     (0 or 1, optional)); a child is an index into the nodes, or into the
//     leaves (leaf_targetids, leaf_weights: one target and weight a leaf)
//     when its *leafs flag is 1. tree_roots index the nodes; a root whose
//     two children are the same leaf is a tree of that one leaf. Every
//     index is checked at creation, and the trees for cycles.
//   - A branch sends x to its true child when x op split holds, or when x
//     is NaN and nodes_missing_value_tracks_true is 1. BRANCH_MEMBER tests
//     x against its set of membership_values (the sets of the member nodes
//     in node order, each ended by NaN): x is a member when it equals one
//     of the set's values (exact comparison in X's type, whatever the
//     set's size and values); NaN is never a member. An empty set (a NaN
//     right after the previous set's) is valid and holds nothing.
//   - The scores are in X's type: aggregate_function 1 SUM (default) adds
//     the leaves' weights per target, 0 AVERAGE divides that sum by the
//     number of trees, 2 MIN and 3 MAX take the extreme; a target no leaf
//     reached is 0. post_transform is numbered as the spec numbers it: 0
//     NONE, 1 SOFTMAX, 2 LOGISTIC (1/(1+e^−x)), 3 SOFTMAX_ZERO, 4 PROBIT;
//     the transform is computed in float32 (for float64 X too), as
//     onnxruntime computes it, and applies with one target too: SOFTMAX
//     of one score is 1, SOFTMAX_ZERO of one score is 1, or 0 when the
//     score is 0 (within 1e-7 of 0, as SOFTMAX_ZERO tests zero).
type mlTree5 struct {
	n         int // targets
	agg, post int
	dt        kernel.DType // X's dtype: the tensors'
	// The nodes: the interior nodes in attribute order, then the leaves
	// (mode mlLeaf) in leaf order.
	mode     []uint8
	feat     []int64
	thr      []float64 // split, exact in dt
	tru, fal []int32
	missTrue []bool
	set      []int32     // a member node's set (index into sets), else -1
	sets     [][]float64 // the member sets, each sorted (exact in dt, no NaN)
	leafT    []int32     // a leaf's target (nodes before the leaves: unused)
	leafW    []float64
	roots    []int32
	maxFeat  int64
	mlScratch
}

// mlMember is the node mode of BRANCH_MEMBER in mlTree5.mode.
const mlMember = mlNEQ + 1

// The post transforms by the spec's numbering of post_transform.
var mlPost5 = [...]int{mlPostNone, mlPostSoftmax, mlPostLogistic, mlPostSoftmaxZero, mlPostProbit}

func newMLTree5(attrs kernel.Attrs) (kernel.Kernel, error) {
	m, err := parseMLTree5(attrs)
	if err != nil {
		return nil, fmt.Errorf("ops: TreeEnsemble: %w", err)
	}
	return newKernel(sig{op: "TreeEnsemble", minIn: 1, maxIn: 1, nOut: 1}, m), nil
}

// mlTensor5 reads tensor attribute name as exact float64 values, checking
// its dtype against dt (0: any float32 or float64, which it returns).
func mlTensor5(attrs kernel.Attrs, name string, dt kernel.DType) ([]float64, kernel.DType, bool, error) {
	t, err := attrs.Tensor(name, nil)
	if err != nil || t == nil {
		return nil, dt, false, err
	}
	switch {
	case t.DType == kernel.Float16 && (dt == 0 || dt == kernel.Float16):
		return nil, 0, false, notImplemented("attribute %q is float16: onnxruntime has no float16 TreeEnsemble", name)
	case dt == 0 && t.DType != kernel.Float32 && t.DType != kernel.Float64:
		return nil, 0, false, fmt.Errorf("attribute %q has dtype %v, want float32 or float64 (X's dtype)", name, t.DType)
	case name == "nodes_hitrates" && t.DType != dt:
		return nil, 0, false, fmt.Errorf("attribute %q has dtype %v, want float32", name, t.DType)
	case dt != 0 && t.DType != dt:
		return nil, 0, false, fmt.Errorf("attribute %q has dtype %v, \"leaf_weights\" %v: want X's dtype for both", name, t.DType, dt)
	}
	if t.Shape.Rank() != 1 {
		return nil, 0, false, fmt.Errorf("attribute %q %v: want a 1-D tensor", name, t.Shape)
	}
	h := t.Data()
	if int64(len(h)) < t.Bytes() {
		return nil, 0, false, fmt.Errorf("attribute %q has no contents", name)
	}
	out := make([]float64, t.NumElements())
	for i := range out {
		out[i] = loadF(t.DType, h, int64(i))
	}
	return out, t.DType, true, nil
}

func parseMLTree5(attrs kernel.Attrs) (*mlTree5, error) {
	if err := attrs.Check("aggregate_function", "leaf_targetids", "leaf_weights", "membership_values", "n_targets",
		"nodes_falseleafs", "nodes_falsenodeids", "nodes_featureids", "nodes_hitrates", "nodes_missing_value_tracks_true",
		"nodes_modes", "nodes_splits", "nodes_trueleafs", "nodes_truenodeids", "post_transform", "tree_roots"); err != nil {
		return nil, err
	}
	opset, err := attrs.Opset(5)
	if err != nil {
		return nil, err
	}
	if opset < 5 {
		return nil, fmt.Errorf("TreeEnsemble is from version 5 of ai.onnx.ml (the node's is %d)", opset)
	}
	m := &mlTree5{}
	nt, err := attrs.Int("n_targets", 0)
	if err != nil {
		return nil, err
	}
	if nt < 1 || nt > 1<<24 {
		return nil, fmt.Errorf("attribute \"n_targets\" is %d (or missing), want 1 or more", nt)
	}
	m.n = int(nt)
	agg, err := attrs.Int("aggregate_function", 1)
	if err != nil {
		return nil, err
	}
	switch agg {
	case 0:
		m.agg = mlAggAverage
	case 1:
		m.agg = mlAggSum
	case 2:
		m.agg = mlAggMin
	case 3:
		m.agg = mlAggMax
	default:
		return nil, fmt.Errorf("attribute \"aggregate_function\" is %d, want 0 (AVERAGE), 1 (SUM), 2 (MIN) or 3 (MAX)", agg)
	}
	post, err := attrs.Int("post_transform", 0)
	if err != nil {
		return nil, err
	}
	if post < 0 || post >= int64(len(mlPost5)) {
		return nil, fmt.Errorf("attribute \"post_transform\" is %d, want 0 to 4", post)
	}
	m.post = mlPost5[post]

	// The tensors, of one dtype (X's).
	w, dt, ok, err := mlTensor5(attrs, "leaf_weights", 0)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("attribute \"leaf_weights\" is missing")
	}
	m.dt = dt
	splits, _, ok, err := mlTensor5(attrs, "nodes_splits", dt)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("attribute \"nodes_splits\" is missing")
	}
	members, _, hasMembers, err := mlTensor5(attrs, "membership_values", dt)
	if err != nil {
		return nil, err
	}
	// nodes_hitrates: float32 (ONNX's schema), whatever X's dtype.
	hitrates, _, hasHit, err := mlTensor5(attrs, "nodes_hitrates", kernel.Float32)
	if err != nil {
		return nil, err
	}
	ints := map[string][]int64{}
	for _, name := range []string{"leaf_targetids", "nodes_falseleafs", "nodes_falsenodeids", "nodes_featureids",
		"nodes_missing_value_tracks_true", "nodes_trueleafs", "nodes_truenodeids", "tree_roots"} {
		if ints[name], err = attrs.Ints(name, nil); err != nil {
			return nil, err
		}
	}
	mt, err := attrs.Tensor("nodes_modes", nil)
	if err != nil {
		return nil, err
	}
	if mt == nil {
		return nil, fmt.Errorf("attribute \"nodes_modes\" is missing")
	}
	if mt.DType != kernel.Uint8 || mt.Shape.Rank() != 1 {
		return nil, fmt.Errorf("attribute \"nodes_modes\" is %v %v, want a 1-D uint8 tensor", mt.DType, mt.Shape)
	}
	if int64(len(mt.Data())) < mt.Bytes() {
		return nil, fmt.Errorf("attribute \"nodes_modes\" has no contents")
	}
	modes := mt.Data()[:mt.NumElements()]

	// Lengths.
	nn := len(ints["nodes_featureids"])
	if nn == 0 {
		return nil, fmt.Errorf("attribute \"nodes_featureids\" is empty or missing: no nodes")
	}
	nl := len(ints["leaf_targetids"])
	if nn >= 1<<30 || nl >= 1<<30 {
		return nil, fmt.Errorf("%d nodes and %d leaves: too many", nn, nl)
	}
	for _, c := range []struct {
		name string
		n    int
	}{{"nodes_modes", len(modes)}, {"nodes_splits", len(splits)}, {"nodes_truenodeids", len(ints["nodes_truenodeids"])},
		{"nodes_trueleafs", len(ints["nodes_trueleafs"])}, {"nodes_falsenodeids", len(ints["nodes_falsenodeids"])},
		{"nodes_falseleafs", len(ints["nodes_falseleafs"])}} {
		if c.n != nn {
			return nil, fmt.Errorf("attribute %q has %d values, \"nodes_featureids\" %d: want one per node", c.name, c.n, nn)
		}
	}
	if miss := ints["nodes_missing_value_tracks_true"]; len(miss) != 0 && len(miss) != nn {
		return nil, fmt.Errorf("attribute \"nodes_missing_value_tracks_true\" has %d values, want 0 or one per node (%d)", len(miss), nn)
	}
	if hasHit && len(hitrates) != nn {
		return nil, fmt.Errorf("attribute \"nodes_hitrates\" has %d values, want one per node (%d)", len(hitrates), nn)
	}
	if nl == 0 {
		return nil, fmt.Errorf("attribute \"leaf_targetids\" is empty or missing: no leaves")
	}
	if len(w) != nl {
		return nil, fmt.Errorf("attribute \"leaf_weights\" has %d values, \"leaf_targetids\" %d: want one per leaf", len(w), nl)
	}
	for i, t := range ints["leaf_targetids"] {
		if t < 0 || t >= nt {
			return nil, fmt.Errorf("attribute \"leaf_targetids\"[%d] is %d, want 0 to %d (n_targets − 1)", i, t, nt-1)
		}
	}
	for _, name := range []string{"nodes_trueleafs", "nodes_falseleafs", "nodes_missing_value_tracks_true"} {
		for i, v := range ints[name] {
			if v != 0 && v != 1 {
				return nil, fmt.Errorf("attribute %q[%d] is %d, want 0 or 1", name, i, v)
			}
		}
	}

	// The nodes, then the leaves.
	total := nn + nl
	m.mode, m.feat, m.thr = make([]uint8, total), make([]int64, total), make([]float64, total)
	m.tru, m.fal, m.missTrue, m.set = make([]int32, total), make([]int32, total), make([]bool, total), make([]int32, total)
	m.leafT, m.leafW = make([]int32, total), make([]float64, total)
	for i := range nl {
		m.mode[nn+i] = mlLeaf
		m.leafT[nn+i], m.leafW[nn+i] = int32(ints["leaf_targetids"][i]), w[i]
		m.set[nn+i] = -1
	}
	nMember := 0
	for i := range nn {
		md := modes[i]
		if md > 6 {
			return nil, fmt.Errorf("attribute \"nodes_modes\"[%d] is %d, want 0 to 6 (BRANCH_LEQ, BRANCH_LT, BRANCH_GTE, BRANCH_GT, BRANCH_EQ, BRANCH_NEQ, BRANCH_MEMBER)", i, md)
		}
		m.mode[i] = md + 1 // mlLEQ … mlNEQ, mlMember
		m.feat[i], m.thr[i], m.set[i] = ints["nodes_featureids"][i], splits[i], -1
		if m.feat[i] < 0 {
			return nil, fmt.Errorf("attribute \"nodes_featureids\"[%d] is %d, want ≥ 0", i, m.feat[i])
		}
		if miss := ints["nodes_missing_value_tracks_true"]; len(miss) != 0 {
			m.missTrue[i] = miss[i] == 1
		}
		for _, c := range []struct {
			ids, leafs string
			dst        []int32
		}{{"nodes_truenodeids", "nodes_trueleafs", m.tru}, {"nodes_falsenodeids", "nodes_falseleafs", m.fal}} {
			id := ints[c.ids][i]
			if ints[c.leafs][i] == 1 {
				if id < 0 || id >= int64(nl) {
					return nil, fmt.Errorf("attribute %q[%d] is %d, a leaf (%s): want 0 to %d", c.ids, i, id, c.leafs, nl-1)
				}
				c.dst[i] = int32(nn) + int32(id)
				continue
			}
			if id < 0 || id >= int64(nn) {
				return nil, fmt.Errorf("attribute %q[%d] is %d, a node (%s): want 0 to %d", c.ids, i, id, c.leafs, nn-1)
			}
			if id == int64(i) {
				return nil, fmt.Errorf("attribute %q[%d]: node %d is its own child", c.ids, i, i)
			}
			c.dst[i] = int32(id)
		}
		if md == 6 {
			nMember++
		}
	}
	if err := m.parseSets(members, hasMembers, nMember, nn); err != nil {
		return nil, err
	}

	// The roots: a node, or the leaf of a one-leaf tree.
	roots := ints["tree_roots"]
	if len(roots) == 0 {
		return nil, fmt.Errorf("attribute \"tree_roots\" is empty or missing: no trees")
	}
	m.roots = make([]int32, len(roots))
	for k, r := range roots {
		if r < 0 || r >= int64(nn) {
			return nil, fmt.Errorf("attribute \"tree_roots\"[%d] is %d, want 0 to %d", k, r, nn-1)
		}
		i := int(r)
		if ints["nodes_trueleafs"][i] == 1 && ints["nodes_falseleafs"][i] == 1 && m.tru[i] == m.fal[i] {
			m.roots[k] = m.tru[i]
		} else {
			m.roots[k] = int32(i)
		}
	}
	// No cycles among the nodes the roots reach (depth-first); the features
	// those nodes read.
	state := make([]uint8, total) // 0 new, 1 on the path, 2 done
	var stack []int32
	for _, s := range m.roots {
		if state[s] != 0 {
			continue
		}
		stack = append(stack[:0], s)
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			switch state[i] {
			case 0:
				state[i] = 1
				if m.mode[i] == mlLeaf {
					continue
				}
				m.maxFeat = max(m.maxFeat, m.feat[i])
				for _, c := range [2]int32{m.tru[i], m.fal[i]} {
					switch state[c] {
					case 0:
						stack = append(stack, c)
					case 1:
						return nil, fmt.Errorf("attributes \"nodes_truenodeids\", \"nodes_falsenodeids\": a cycle through node %d", c)
					}
				}
			case 1:
				state[i] = 2
				stack = stack[:len(stack)-1]
			default:
				stack = stack[:len(stack)-1]
			}
		}
	}
	return m, nil
}

// parseSets splits membership_values into the sets of the nMember member
// nodes (of the first nn nodes), in node order.
func (m *mlTree5) parseSets(members []float64, has bool, nMember, nn int) error {
	nan := 0
	for _, v := range members {
		if v != v {
			nan++
		}
	}
	switch {
	case nMember > 0 && !has:
		return fmt.Errorf("attribute \"membership_values\" is missing: %d nodes are BRANCH_MEMBER", nMember)
	case nan != nMember:
		return fmt.Errorf("attribute \"membership_values\" has %d NaN-ended sets, want one per BRANCH_MEMBER node (%d)", nan, nMember)
	case len(members) > 0 && members[len(members)-1] == members[len(members)-1]:
		return fmt.Errorf("attribute \"membership_values\" does not end with NaN: each set ends with NaN")
	}
	at := 0
	for i := range nn {
		if m.mode[i] != mlMember {
			continue
		}
		start := at
		for members[at] == members[at] {
			at++
		}
		// The set (possibly empty: it holds nothing), sorted for a binary
		// search; −0 and +0 compare equal, as in X's type.
		vals := slices.Clone(members[start:at])
		at++ // the NaN
		slices.Sort(vals)
		m.set[i] = int32(len(m.sets))
		m.sets = append(m.sets, vals)
	}
	return nil
}

// check validates X against the ensemble.
func (m *mlTree5) check(x *kernel.Tensor) error {
	if x.DType != m.dt {
		if x.DType == kernel.Float32 || x.DType == kernel.Float64 {
			return fmt.Errorf("input X has dtype %v: the tensor attributes (leaf_weights, nodes_splits) are %v, want X's dtype", x.DType, m.dt)
		}
		if x.DType == kernel.Float16 {
			return notImplemented("input X is float16: onnxruntime has no float16 TreeEnsemble")
		}
		return fmt.Errorf("input X has dtype %v, want float32 or float64", x.DType)
	}
	if x.Shape.Rank() != 2 {
		return fmt.Errorf("input X %v: want rank 2 [N, F]", x.Shape)
	}
	if m.maxFeat >= x.Shape[1] {
		return fmt.Errorf("input X %v: the trees read feature %d", x.Shape, m.maxFeat)
	}
	return nil
}

func (m *mlTree5) infer(in, out []*kernel.Tensor) error {
	x := in[0]
	if err := m.check(x); err != nil {
		return err
	}
	setShape(out[0], kernel.Shape{x.Shape[0], int64(m.n)}, x.DType)
	return nil
}

func (m *mlTree5) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	return 0, m.check(in[0])
}

func (m *mlTree5) cost(in, out []*kernel.Tensor) device.Cost {
	return mlTreeCost(len(m.mode), in, out)
}

func (m *mlTree5) compute(a *kernel.Args) error {
	x := a.In[0]
	if err := m.check(x); err != nil {
		return err
	}
	m.ensure(m.n)
	if x.DType == kernel.Float64 {
		mlRunTree5(m, m.sc64[:m.n], kernel.Float64s(x.Data()), x.Shape[1], kernel.Float64s(a.Out[0].Data()))
		return nil
	}
	mlRunTree5(m, m.sc32[:m.n], kernel.Float32s(x.Data()), x.Shape[1], kernel.Float32s(a.Out[0].Data()))
	return nil
}

// mlIsMember reports whether v equals one of the sorted values of set s
// (exact: v and the values are of one float type, widened exactly to
// float64). NaN is never a member.
func mlIsMember(s []float64, v float64) bool {
	_, found := slices.BinarySearch(s, v) // NaN compares below every value: never found
	return found
}

// mlLeaf5 walks one tree from root over row xr and returns its leaf.
func mlLeaf5[T mlFloat](m *mlTree5, xr []T, root int32) int32 {
	i := root
	for {
		md := m.mode[i]
		if md == mlLeaf {
			return i
		}
		v := xr[m.feat[i]]
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
		case mlNEQ:
			ok = v != t
		default:
			ok = mlIsMember(m.sets[m.set[i]], float64(v))
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

// mlRunTree5 computes the ensemble on the rows of x (c features a row)
// into y, with scores of type T.
func mlRunTree5[T mlFloat](m *mlTree5, sc []T, x []T, c int64, y []T) {
	n := m.n
	has := m.has[:n]
	out := m.out[:n]
	nt := T(len(m.roots))
	rows := int64(len(x)) / c // c ≥ 1: check requires a feature
	for r := range rows {
		xr := x[r*c : (r+1)*c]
		yr := y[r*int64(n) : (r+1)*int64(n)]
		for j := range sc {
			sc[j], has[j] = 0, false
		}
		for _, root := range m.roots {
			l := mlLeaf5(m, xr, root)
			id, v := m.leafT[l], T(m.leafW[l])
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
		for j := range sc {
			if m.agg == mlAggAverage {
				sc[j] /= nt
			}
			// A target no leaf reached reads 0, as in onnxruntime.
			if !has[j] {
				sc[j] = 0
			}
		}
		if n == 1 {
			// One target: a −0 score reads +0, as onnxruntime gives it (it
			// adds a zero base value).
			sc[0] += 0
		}
		if m.post == mlPostNone {
			copy(yr, sc)
			continue
		}
		for j, v := range sc {
			out[j] = float32(v)
		}
		if n == 1 && m.post == mlPostSoftmaxZero && out[0] <= 0.0000001 && out[0] >= -0.0000001 {
			// SOFTMAX_ZERO of one zero score: 0 (mlSoftmaxZero would
			// divide 0 by a sum of 0).
			out[0] = 0
		} else {
			mlWriteScores(out, m.post)
		}
		for j, v := range out {
			yr[j] = T(v)
		}
	}
}
