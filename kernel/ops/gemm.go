package ops

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// Gemm is ONNX's general matrix product (opsets 7 to 17) on float32,
// float64, float16 and bfloat16: Y = alpha·A'·B' + beta·C, where A' is A
// [M,K] or, with transA, Aᵀ of A [K,M]; B' likewise with transB; and C
// (optional from opset 11) broadcasts to [M,N] (a scalar, [N], [M,1], [M,N],
// …). alpha and beta (float attributes, so float32 values) default to 1. The
// product accumulates in the compute type with the blocked axpy kernel Conv
// uses: float32 and float64 in their own type, float16 and bfloat16 in
// float32, rounded once to their type. B is first transposed into the
// workspace when transB is set, so its rows are contiguous.
//
// Tiling (words):
//
//	0 M  1 N  2 K  3 transA  4 transB
//
// Workspace: K·N elements of the compute type (8 bytes for float64, 4
// otherwise) with transB, else none. Cost: 2·M·N·K + 2·M·N
// operations; bytes of every operand.
type gemm struct {
	transA, transB bool
	alpha, beta    float32
	walk           bcast
	mn             [2]int64        // Y's shape for walk: a literal would escape
	f32            floats[float32] // float32, float16 and bfloat16 operands
	f64            floats[float64] // float64 operands
}

func newGemm(attrs kernel.Attrs) (kernel.Kernel, error) {
	opset, err := attrs.Opset(17)
	if err != nil {
		return nil, wrapAttr(err)
	}
	if err := attrs.Check("alpha", "beta", "transA", "transB"); err != nil {
		return nil, wrapAttr(err)
	}
	k := &gemm{}
	ta, err := attrs.Int("transA", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	tb, err := attrs.Int("transB", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	k.transA, k.transB = ta != 0, tb != 0
	alpha, err := attrs.Float("alpha", 1)
	if err != nil {
		return nil, wrapAttr(err)
	}
	beta, err := attrs.Float("beta", 1)
	if err != nil {
		return nil, wrapAttr(err)
	}
	k.alpha, k.beta = float32(alpha), float32(beta)
	minIn := 3
	if opset >= 11 {
		minIn = 2
	}
	return newKernel(sig{op: "Gemm", minIn: minIn, maxIn: 3, nOut: 1}, k), nil
}

func (k *gemm) dims(a, b kernel.Shape) (m, n, kk int64, err error) {
	if a.Rank() != 2 || b.Rank() != 2 {
		return 0, 0, 0, fmt.Errorf("inputs A %v and B %v: want matrices", a, b)
	}
	m, kk = matDims(a, k.transA)
	kb, n := matDims(b, k.transB)
	if kk != kb {
		return 0, 0, 0, fmt.Errorf("inner dimensions differ: A %v gives K=%d, B %v gives K=%d", a, kk, b, kb)
	}
	return m, n, kk, nil
}

func (k *gemm) infer(in, out []*kernel.Tensor) error {
	a, b := in[0], in[1]
	if err := dtypeIn(a, "A", onnxFloats...); err != nil {
		return err
	}
	if err := checkSameDType(b, "B", a, "A"); err != nil {
		return err
	}
	m, n, _, err := k.dims(a.Shape, b.Shape)
	if err != nil {
		return err
	}
	if c := optional(in, 2); c != nil {
		if err := checkSameDType(c, "C", a, "A"); err != nil {
			return err
		}
		if err := bcastStrides(make([]int64, 2), c.Shape, kernel.Shape{m, n}, 1); err != nil {
			return fmt.Errorf("input C: %w", err)
		}
	}
	setShape(out[0], kernel.Shape{m, n}, a.DType)
	return nil
}

func (k *gemm) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	m, n, kk, err := k.dims(in[0].Shape, in[1].Shape)
	if err != nil {
		return 0, err
	}
	e.grow(5)
	e.puts([]int64{m, n, kk})
	e.putBool(k.transA)
	e.putBool(k.transB)
	if k.transB {
		return computeSize(in[0].DType) * kk * n, nil
	}
	return 0, nil
}

func (k *gemm) cost(in, out []*kernel.Tensor) device.Cost {
	m, n, kk, err := k.dims(in[0].Shape, in[1].Shape)
	if err != nil {
		return device.Cost{}
	}
	b := out[0].Bytes()
	for _, t := range in {
		b += t.Bytes()
	}
	return device.Cost{FLOPs: float64(2*m*n*kk + 2*m*n), Bytes: float64(b)}
}

func (k *gemm) compute(a *kernel.Args) error {
	d := decoder{b: a.Tiling.Data}
	w := d.words(5)
	if err := d.err(); err != nil {
		return err
	}
	m, n, kk, err := k.dims(a.In[0].Shape, a.In[1].Shape)
	if err != nil {
		return err
	}
	if w.at(0) != m || w.at(1) != n || w.at(2) != kk || (w.at(3) != 0) != k.transA || (w.at(4) != 0) != k.transB {
		return errTiling
	}
	if a.Out[0].DType == kernel.Float64 {
		return gemmRun(k, &k.f64, a, m, n, kk)
	}
	return gemmRun(k, &k.f32, a, m, n, kk)
}

// gemmRun computes Gemm in T, the compute type, on operands of the
// checked dimensions.
func gemmRun[T float32 | float64](k *gemm, c *floats[T], a *kernel.Args, m, n, kk int64) error {
	A, B := c.in(0, a.In[0]), c.in(1, a.In[1])
	Y := c.out(3, a.Out[0])[:m*n]
	defer flush(a.Out[0], Y)
	if k.transB {
		t := c.work(4, a.Workspace.Data, kk*n)
		transposeMat(t, B[:n*kk], n, kk)
		B = t
	}
	ai, ap := kk, int64(1)
	if k.transA {
		ai, ap = 1, m
	}
	startSums(Y, kk)
	if err := mmAxpy(a, Y, n, A, ai, ap, B, n, m, n, kk); err != nil {
		return err
	}
	if alpha := T(k.alpha); alpha != 1 {
		for i := range Y {
			Y[i] *= alpha
		}
	}
	if ct := optional(a.In, 2); ct != nil && k.beta != 0 {
		k.mn = [2]int64{m, n}
		if err := k.walk.set(k.mn[:], ct.Shape); err != nil {
			return err
		}
		beta, C := T(k.beta), c.in(2, ct)
		for i := range Y {
			Y[i] += mul(beta, C[k.walk.off[0]])
			k.walk.next()
		}
	}
	return nil
}

// TopK returns the K largest (largest=1, the default) or smallest elements
// along axis (default −1) and their int64 indices: K is attribute "k"
// before opset 10 and a one-element int64 input (a value dependency) from
// 10; largest and sorted are attributes from opset 11. The results are
// always sorted (which sorted=0 allows), equal values by ascending index.
// Numeric dtypes (integers compare exactly, the unsigned ones unsigned);
// NaN counts as larger than every number.
//
// Tiling (words):
//
//	0 outer  1 axis length  2 inner  3 K
//
// Workspace: none (the kernel's sort buffer). Cost: n·⌈log2 n⌉ comparisons
// per row of n; bytes of every operand.
type topK struct {
	k       int64 // before opset 10
	input   bool
	axis    int64
	largest bool
	order   []int64
}

func newTopK(attrs kernel.Attrs) (kernel.Kernel, error) {
	opset, err := attrs.Opset(17)
	if err != nil {
		return nil, wrapAttr(err)
	}
	known := []string{"axis"}
	switch {
	case opset < 10:
		known = append(known, "k")
	case opset >= 11:
		known = append(known, "largest", "sorted")
	}
	if err := attrs.Check(known...); err != nil {
		return nil, wrapAttr(err)
	}
	k := &topK{input: opset >= 10}
	if k.axis, err = attrs.Int("axis", -1); err != nil {
		return nil, wrapAttr(err)
	}
	l, err := attrs.Int("largest", 1)
	if err != nil {
		return nil, wrapAttr(err)
	}
	k.largest = l != 0
	// sorted 0 lets the op give the k elements in any order: sorted is
	// as good, so its type is checked and its value not followed.
	if _, err := attrs.Int("sorted", 1); err != nil {
		return nil, wrapAttr(err)
	}
	s := sig{op: "TopK", minIn: 2, maxIn: 2, nOut: 2, deps: kernel.Deps{Value: []int{1}}}
	if !k.input {
		if k.k, err = attrs.Int("k", -1); err != nil {
			return nil, wrapAttr(err)
		}
		if k.k < 0 {
			return nil, fmt.Errorf("ops: TopK: attribute k is required before opset 10 and must not be negative")
		}
		s.minIn, s.maxIn, s.deps = 1, 1, kernel.Deps{}
	}
	return newKernel(s, k), nil
}

// geometry returns outer, axis length, inner and K.
func (k *topK) geometry(in []*kernel.Tensor) (outer, n, inner, kk int64, err error) {
	x := in[0]
	axis, err := kernel.NormAxis(k.axis, x.Shape.Rank())
	if err != nil {
		return 0, 0, 0, 0, err
	}
	kk = k.k
	if k.input {
		v, err := shapeValues(in[1], "K")
		if err != nil {
			return 0, 0, 0, 0, err
		}
		if len(v) != 1 {
			return 0, 0, 0, 0, fmt.Errorf("input K has %d values, want 1", len(v))
		}
		kk = v[0]
	}
	outer, n, inner = around(x.Shape, axis)
	if kk < 0 || kk > n {
		return 0, 0, 0, 0, fmt.Errorf("k is %d, axis %d of X %v has %d elements", kk, axis, x.Shape, n)
	}
	return outer, n, inner, kk, nil
}

func (k *topK) infer(in, out []*kernel.Tensor) error {
	if err := dtypeIn(in[0], "X", onnxNumeric...); err != nil {
		return err
	}
	_, _, _, kk, err := k.geometry(in)
	if err != nil {
		return err
	}
	axis, _ := kernel.NormAxis(k.axis, in[0].Shape.Rank())
	s := in[0].Shape.Clone()
	s[axis] = kk
	setShape(out[0], s, in[0].DType)
	setShape(out[1], s, kernel.Int64)
	return nil
}

func (k *topK) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	outer, n, inner, kk, err := k.geometry(in)
	if err != nil {
		return 0, err
	}
	e.grow(4)
	e.puts([]int64{outer, n, inner, kk})
	return 0, nil
}

func (k *topK) cost(in, out []*kernel.Tensor) device.Cost {
	outer, n, inner, _, err := k.geometry(in)
	if err != nil || n == 0 {
		return device.Cost{}
	}
	lg := float64(64 - bits.LeadingZeros64(uint64(n)))
	return device.Cost{FLOPs: float64(outer*inner*n) * lg, Bytes: float64(in[0].Bytes() + out[0].Bytes() + out[1].Bytes())}
}

func (k *topK) compute(a *kernel.Args) error {
	d := decoder{b: a.Tiling.Data}
	w := d.words(4)
	if err := d.err(); err != nil {
		return err
	}
	outer, n, inner, kk, err := k.geometry(a.In)
	if err != nil {
		return err
	}
	if w.at(0) != outer || w.at(1) != n || w.at(2) != inner || w.at(3) != kk {
		return errTiling
	}
	x, vals, idx := a.In[0], a.Out[0], kernel.Int64s(a.Out[1].Data())
	xb, vb := x.Data(), vals.Data()
	size := int64(x.DType.Size())
	if int64(cap(k.order)) < n {
		k.order = make([]int64, n)
	}
	order := k.order[:n]
	float := x.DType.IsFloat()
	less := func(i, j int64, base int64) int {
		// −1 when element i comes first.
		var c int
		if float {
			vi, vj := loadF(x.DType, xb, base+i*inner), loadF(x.DType, xb, base+j*inner)
			switch {
			case vi != vi && vj != vj: // both NaN
			case vi != vi:
				c = 1
			case vj != vj:
				c = -1
			default:
				c = cmp.Compare(vi, vj)
			}
		} else {
			c = cmp.Compare(loadOrd(x.DType, xb, base+i*inner), loadOrd(x.DType, xb, base+j*inner))
		}
		if k.largest {
			c = -c
		}
		if c == 0 {
			return cmp.Compare(i, j)
		}
		return c
	}
	for o := range outer {
		for in := range inner {
			base := o*n*inner + in
			for i := range order {
				order[i] = int64(i)
			}
			slices.SortFunc(order, func(i, j int64) int { return less(i, j, base) })
			for j := range kk {
				dst := o*kk*inner + j*inner + in
				copyElem(vb, dst, xb, base+order[j]*inner, size)
				idx[dst] = order[j]
			}
		}
	}
	return nil
}
