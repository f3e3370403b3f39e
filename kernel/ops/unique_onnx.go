package ops

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// Unique with attribute outputs 2 to 4, or with sorted or axis, is ONNX's
// Unique(X) (sorted 1, axis) → Y, indices, inverse_indices, counts (the
// first outputs of them): the distinct elements of X (flattened), or with
// axis the distinct slices along it, in ascending order (slices compared
// element by element) or, with sorted 0, in order of first occurrence;
// indices (int64) is each one's first position in X, inverse_indices each
// position's index in Y, counts each one's occurrences. Floats compare by
// value (−0 equals +0, NaNs equal each other and sort last, as numpy's
// unique, ONNX's reference, has them; onnxruntime merges them into other
// values), integers
// exactly (the unsigned ones unsigned). Every dtype but bfloat16, which
// ONNX's Unique does not take.
//
// It is compute dependent: InferShape reports the bounds (as many distinct
// values as elements or slices), OutputShapes the real count U. On virtual
// data the model is U = 1 + mix(Seed) mod the bound. Tiling (words): 0 the
// element or slice count. Workspace: none; the kernel keeps its order and
// group arrays. Cost: n·⌈log2 n⌉ comparisons of a slice each; bytes of X
// and the output bounds.
type uniqueONNX struct {
	sorted  bool
	hasAxis bool
	axis    int64
	nOut    int
	// The last Compute's distinct count, and its scratch.
	count int64
	have  bool
	order []int64 // positions sorted by key (then position)
	group []int64 // by position: its distinct value's index in Y
	first []int64 // by distinct value (in output order): first position
	cnt   []int64
	rank  []int64 // by sorted distinct value: its output index
	byFst []int64 // sorted distinct values in first-occurrence order
}

func newUniqueONNX(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("sorted", "axis", "outputs"); err != nil {
		return nil, wrapAttr(err)
	}
	k := &uniqueONNX{}
	var err error
	if k.sorted, err = flagAttr(attrs, "sorted", true); err != nil {
		return nil, wrapAttr(err)
	}
	_, k.hasAxis = attrs["axis"]
	if k.axis, err = attrs.Int("axis", 0); err != nil {
		return nil, wrapAttr(err)
	}
	n, err := attrs.Int("outputs", 4)
	if err != nil {
		return nil, wrapAttr(err)
	}
	if n < 1 || n > 4 {
		return nil, fmt.Errorf("ops: Unique: outputs %d, want 1 to 4", n)
	}
	k.nOut = int(n)
	return newKernel(sig{op: "Unique", minIn: 1, maxIn: 1, nOut: k.nOut, deps: kernel.Deps{Compute: true}}, k), nil
}

// geometry returns the axis (−1 without), and the outer, slice count and
// inner extents of X around it.
func (k *uniqueONNX) geometry(x *kernel.Tensor) (axis int, outer, n, inner int64, err error) {
	if err := dtypeIn(x, "X", onnxAllNoBF16...); err != nil {
		return 0, 0, 0, 0, err
	}
	if !k.hasAxis {
		return -1, 1, x.NumElements(), 1, nil
	}
	a, err := kernel.NormAxis(k.axis, x.Shape.Rank())
	if err != nil {
		return 0, 0, 0, 0, err
	}
	outer, n, inner = around(x.Shape, a)
	return a, outer, n, inner, nil
}

// shapes returns the output shapes for u distinct values.
func (k *uniqueONNX) shapes(x *kernel.Tensor, u int64) []kernel.Shape {
	axis, _, n, _, _ := k.geometry(x)
	y := kernel.Shape{u}
	if axis >= 0 {
		y = x.Shape.Clone()
		y[axis] = u
	}
	return []kernel.Shape{y, {u}, {n}, {u}}[:k.nOut]
}

func (k *uniqueONNX) infer(in, out []*kernel.Tensor) error {
	_, _, n, _, err := k.geometry(in[0])
	if err != nil {
		return err
	}
	for i, s := range k.shapes(in[0], n) {
		dt := kernel.Int64
		if i == 0 {
			dt = in[0].DType
		}
		setShape(out[i], s, dt)
	}
	return nil
}

func (k *uniqueONNX) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	_, _, n, _, err := k.geometry(in[0])
	if err != nil {
		return 0, err
	}
	e.grow(1)
	e.put(n)
	return 0, nil
}

func (k *uniqueONNX) cost(in, out []*kernel.Tensor) device.Cost {
	var b int64
	for _, t := range append(in[:1:1], out...) {
		b += t.Bytes()
	}
	n := float64(in[0].NumElements())
	return device.Cost{FLOPs: n * float64(bitsFor(int64(n))), Bytes: float64(b)}
}

// bitsFor is ⌈log2 n⌉, at least 1.
func bitsFor(n int64) int {
	b := 1
	for int64(1)<<b < n {
		b++
	}
	return b
}

func (k *uniqueONNX) compute(a *kernel.Args) error {
	k.have = false
	x := a.In[0]
	_, outer, n, inner, err := k.geometry(x)
	if err != nil {
		return err
	}
	d := decoder{b: a.Tiling.Data}
	if tn := d.word(); d.bad || tn != n {
		return errTiling
	}
	xb := x.Data()
	float := x.DType.IsFloat()
	// elem compares element j of slices p and q.
	elem := func(p, q, j int64) int {
		o, i := j/inner, j%inner
		pi, qi := (o*n+p)*inner+i, (o*n+q)*inner+i
		if float {
			return cmpNaNLast(loadF(x.DType, xb, pi), loadF(x.DType, xb, qi))
		}
		return cmp.Compare(loadOrd(x.DType, xb, pi), loadOrd(x.DType, xb, qi))
	}
	size := outer * inner // elements per slice
	key := func(p, q int64) int {
		for j := range size {
			if c := elem(p, q, j); c != 0 {
				return c
			}
		}
		return 0
	}
	k.order = k.order[:0]
	for p := range n {
		k.order = append(k.order, p)
	}
	slices.SortStableFunc(k.order, key)
	// Distinct values in sorted order: their first positions and counts.
	k.group = slices.Grow(k.group[:0], int(n))[:n]
	k.first, k.cnt = k.first[:0], k.cnt[:0]
	for i, p := range k.order {
		if i == 0 || key(k.order[i-1], p) != 0 {
			k.first, k.cnt = append(k.first, p), append(k.cnt, 0)
		}
		u := int64(len(k.first) - 1)
		k.group[p] = u
		k.cnt[u]++
	}
	u := int64(len(k.first))
	// rank maps a sorted index to its output index.
	k.rank = slices.Grow(k.rank[:0], int(u))[:u]
	for i := range k.rank {
		k.rank[i] = int64(i)
	}
	if !k.sorted {
		k.byFst = slices.Grow(k.byFst[:0], int(u))[:u]
		for i := range k.byFst {
			k.byFst[i] = int64(i)
		}
		slices.SortFunc(k.byFst, func(i, j int64) int { return cmp.Compare(k.first[i], k.first[j]) })
		for out, s := range k.byFst {
			k.rank[s] = int64(out)
		}
	}
	// Y: the distinct slices in output order, compactly [outer, U, inner].
	yb := a.Out[0].Data()
	es := int64(x.DType.Size())
	for s := range u {
		r, p := k.rank[s], k.first[s]
		for o := range outer {
			src := (o*n + p) * inner * es
			dst := (o*u + r) * inner * es
			copy(yb[dst:dst+inner*es], xb[src:src+inner*es])
		}
	}
	if k.nOut > 1 {
		idx := kernel.Int64s(a.Out[1].Data())
		for s := range u {
			idx[k.rank[s]] = k.first[s]
		}
	}
	if k.nOut > 2 {
		inv := kernel.Int64s(a.Out[2].Data())
		for p := range n {
			inv[p] = k.rank[k.group[p]]
		}
	}
	if k.nOut > 3 {
		cnt := kernel.Int64s(a.Out[3].Data())
		for s := range u {
			cnt[k.rank[s]] = k.cnt[s]
		}
	}
	k.count, k.have = u, true
	return nil
}

func (k *uniqueONNX) outputShapes(a *kernel.Args) ([]kernel.Shape, error) {
	x := a.In[0]
	_, _, n, _, err := k.geometry(x)
	if err != nil {
		return nil, err
	}
	if !a.Real() {
		u := int64(0)
		if n > 0 {
			u = 1 + int64(mix(a.Seed)%uint64(n))
		}
		return k.shapes(x, u), nil
	}
	if !k.have {
		return nil, errors.New("output shapes asked before the kernel computed")
	}
	k.have = false
	return k.shapes(x, k.count), nil
}

// cmpNaNLast orders floats ascending with −0 equal to +0 and NaNs equal to
// each other, after every number.
func cmpNaNLast(a, b float64) int {
	switch an, bn := a != a, b != b; {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return cmp.Compare(a, b)
}
