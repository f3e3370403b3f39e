package ops

import (
	"errors"
	"fmt"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// MatMul multiplies as ONNX's MatMul (numpy's matmul): operands of rank 2
// are matrices, [M,K]×[K,N] → [M,N]; with more dimensions the last two are
// the matrices and the leading ones batch dimensions with numpy
// broadcasting; a 1-D A is a row [1,K] and a 1-D B a column [K,1], whose
// unit dimension the output drops. BatchMatMul takes inputs of rank ≥ 2, at
// least one of rank ≥ 3, as MatMul does.
// Both take float32, float16, bfloat16, float64, int32, int64, uint32 or
// uint64 (both inputs of one dtype; integers wrap) and the optional bool
// attributes transA and transB, which read A as [K,M] and B as [N,K].
//
// Each output element is the sum over k ascending of the float32-rounded
// products A[i,k]·B[k,j], accumulated in float32 (float16 and bfloat16
// operands widen) and rounded once to the output type; float64 and the
// integers accumulate in their own type. The sums start from −0, the
// additive identity of IEEE arithmetic: a sum whose products are all −0
// is −0, as the exact sum is (onnxruntime's MLAS starts its sums from +0
// and gives +0 there: 1/y then differs in the sign of its infinity).
//
// Tiling (words):
//
//	0   batch: the number of matrix products
//	1   M   2 N   3 K   4 transA   5 transB
//	6   tileM  7 tileN  8 tileK: the block sizes; a double-buffered A block
//	    (tileM·tileK) and B block (tileK·tileN) plus a float32 accumulator
//	    block (tileM·tileN) fit the 256 KiB local memory
//	9   tilesM  10 tilesN  11 tilesK
//	12  cores  13 tilesPerCore: output blocks (batch·tilesM·tilesN) over
//	    the cores
//	14  R: rank of the batch loop after coalescing
//	15… batchDims[R], strideA[R], strideB[R]: element offsets between the
//	    matrices of A and B along each batch dimension (0 where broadcast)
//
// Workspace: none. Cost: 2·batch·M·N·K operations; bytes of inputs and
// output.
type matmul struct {
	name           string
	batched        bool
	transA, transB bool
	// bT holds a float32 product's transposed B [k, n] (transB), so that
	// its rows take the row updates of an untransposed B.
	bT []float32
}

const matmulWords = 15

func newMatMul(batched bool) kernel.Factory {
	name := "MatMul"
	if batched {
		name = "BatchMatMul"
	}
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		if err := attrs.Check("transA", "transB"); err != nil {
			return nil, wrapAttr(err)
		}
		ta, err := flagAttr(attrs, "transA", false)
		if err != nil {
			return nil, wrapAttr(err)
		}
		tb, err := flagAttr(attrs, "transB", false)
		if err != nil {
			return nil, wrapAttr(err)
		}
		return newKernel(sig{op: name, minIn: 2, maxIn: 2, nOut: 1},
			&matmul{name: name, batched: batched, transA: ta, transB: tb}), nil
	}
}

// dims returns M, K (of A) or K, N (of B), honoring transposition.
func matDims(s kernel.Shape, trans bool) (rows, cols int64) {
	r, c := s[len(s)-2], s[len(s)-1]
	if trans {
		return c, r
	}
	return r, c
}

func (k *matmul) infer(in, out []*kernel.Tensor) error {
	a, b, o := in[0], in[1], out[0]
	if err := dtypeIn(a, "A", kernel.Float32, kernel.Float16, kernel.Float64, kernel.BFloat16, kernel.Int32, kernel.Int64, kernel.Uint32, kernel.Uint64); err != nil {
		return err
	}
	if err := checkSameDType(b, "B", a, "A"); err != nil {
		return err
	}
	ra, rb := a.Shape.Rank(), b.Shape.Rank()
	if !k.batched {
		if ra < 1 || rb < 1 {
			return fmt.Errorf("inputs A %v and B %v: MatMul takes operands of rank 1 or more", a.Shape, b.Shape)
		}
		if (ra == 1 || rb == 1) && (k.transA || k.transB) {
			return errors.New("transA and transB take matrices, not 1-D operands")
		}
		if ra == 1 || rb == 1 {
			pa, pb, _ := promote(a, b, nil, false)
			var po kernel.Tensor
			if err := k.infer([]*kernel.Tensor{pa, pb}, []*kernel.Tensor{&po}); err != nil {
				return err
			}
			s := po.Shape.Clone()
			if rb == 1 { // drop N
				s = s[:len(s)-1]
			}
			if ra == 1 { // drop M
				i := len(s) - 2
				if rb == 1 {
					i = len(s) - 1
				}
				s = append(s[:i], s[i+1:]...)
			}
			setShape(o, s, po.DType)
			return nil
		}
	} else {
		if ra < 2 {
			return fmt.Errorf("input A has rank %d, want at least 2", ra)
		}
		if rb < 2 {
			return fmt.Errorf("input B has rank %d, want at least 2", rb)
		}
		if max(ra, rb) < 3 {
			return errors.New("inputs A and B have rank 2: want a batch dimension on one of them (MatMul takes matrices)")
		}
	}
	m, ka := matDims(a.Shape, k.transA)
	kb, n := matDims(b.Shape, k.transB)
	if ka != kb {
		return fmt.Errorf("inner dimensions differ: A %v gives K=%d, B %v gives K=%d", a.Shape, ka, b.Shape, kb)
	}
	r := max(ra, rb)
	s := shapeOf(o, r)
	if err := broadcastDims(s[:r-2], a.Shape[:ra-2], b.Shape[:rb-2]); err != nil {
		return fmt.Errorf("batch dimensions: %w", err)
	}
	s[r-2], s[r-1] = m, n
	o.Shape, o.DType = s, a.DType
	return nil
}

// matTiles picks block sizes: up to 128×128 output blocks and 512-deep K
// blocks, multiples of 16, halved (K first) until the double-buffered input
// blocks and the float32 accumulator fit local memory.
func matTiles(m, n, kk int64, elemBytes int) (tm, tn, tk int64) {
	tm = min(roundUp(max(m, 1), 16), 128)
	tn = min(roundUp(max(n, 1), 16), 128)
	tk = min(roundUp(max(kk, 1), 16), 512)
	es := int64(elemBytes)
	for 2*(tm*tk+tk*tn)*es+4*tm*tn > localMem {
		switch {
		case tk >= max(tm, tn) && tk > 16:
			tk /= 2
		case tm >= tn && tm > 16:
			tm /= 2
		case tn > 16:
			tn /= 2
		default:
			return tm, tn, tk
		}
	}
	return tm, tn, tk
}

// promote returns the matrix forms of 1-D operands (a row A, a column B)
// and, given o, the output with the unit dimensions they drop restored.
// The forms carry the contents only with data set: InferShape and Resize
// must not read a buffer the launch goroutine may be setting.
func promote(a, b, o *kernel.Tensor, data bool) (pa, pb, po *kernel.Tensor) {
	pa, pb, po = a, b, o
	view := func(t *kernel.Tensor, s kernel.Shape) *kernel.Tensor {
		c := &kernel.Tensor{Shape: s, DType: t.DType}
		if data {
			c.Host, c.Buf = t.Host, t.Buf
		}
		return c
	}
	if a.Shape.Rank() == 1 {
		pa = view(a, kernel.Shape{1, a.Shape[0]})
	}
	if b.Shape.Rank() == 1 {
		pb = view(b, kernel.Shape{b.Shape[0], 1})
	}
	if o != nil && (pa != a || pb != b) {
		s := append(kernel.Shape{}, o.Shape...)
		if pb != b {
			s = append(s, 1)
		}
		if pa != a && len(s) > 0 {
			s = append(s[:len(s)-1], 1, s[len(s)-1])
		}
		po = view(o, s)
	}
	return pa, pb, po
}

func (k *matmul) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	a, b, o := promote(in[0], in[1], out[0], false)
	ra, rb, r := a.Shape.Rank(), b.Shape.Rank(), o.Shape.Rank()
	if ra < 2 || rb < 2 || r != max(ra, rb) {
		return 0, fmt.Errorf("output %v does not match inputs %v and %v", o.Shape, a.Shape, b.Shape)
	}
	m, kk := matDims(a.Shape, k.transA)
	_, n := matDims(b.Shape, k.transB)
	br := r - 2
	var buf [24]int64
	s := scratch(buf[:], 3*br)
	dims, sa, sb := s[:br], s[br:2*br], s[2*br:]
	copy(dims, o.Shape[:br])
	if err := bcastStrides(sa, a.Shape[:ra-2], o.Shape[:br], m*kk); err != nil {
		return 0, err
	}
	if err := bcastStrides(sb, b.Shape[:rb-2], o.Shape[:br], kk*n); err != nil {
		return 0, err
	}
	batch := o.Shape[:br].NumElements()
	nb := coalesce(dims, sa, sb)
	tm, tn, tk := matTiles(m, n, kk, o.DType.Size())
	tilesM, tilesN, tilesK := ceilDiv(m, tm), ceilDiv(n, tn), ceilDiv(kk, tk)
	blocks := batch * tilesM * tilesN
	cores := min(blocks, numCores)
	perCore := int64(0)
	if cores > 0 {
		perCore = ceilDiv(blocks, cores)
	}
	e.grow(matmulWords + 3*nb)
	for _, v := range [...]int64{batch, m, n, kk} {
		e.put(v)
	}
	e.putBool(k.transA)
	e.putBool(k.transB)
	for _, v := range [...]int64{tm, tn, tk, tilesM, tilesN, tilesK, cores, perCore, int64(nb)} {
		e.put(v)
	}
	e.puts(dims[:nb])
	e.puts(sa[:nb])
	e.puts(sb[:nb])
	return 0, nil
}

func (k *matmul) cost(in, out []*kernel.Tensor) device.Cost {
	a, _, o := promote(in[0], in[1], out[0], false)
	var kk int64
	if a.Shape.Rank() >= 2 {
		_, kk = matDims(a.Shape, k.transA)
	}
	return device.Cost{
		FLOPs: 2 * float64(o.NumElements()) * float64(kk),
		Bytes: float64(in[0].Bytes() + in[1].Bytes() + o.Bytes()),
	}
}

func (k *matmul) compute(a *kernel.Args) error {
	x, y, o := promote(a.In[0], a.In[1], a.Out[0], true)
	if x.DType != o.DType || y.DType != o.DType || x.Shape.Rank() < 2 || y.Shape.Rank() < 2 || o.Shape.Rank() < 2 {
		return errors.New("operands differ from the inferred ones")
	}
	d := decoder{b: a.Tiling.Data}
	batch, m, n, kk := d.word(), d.word(), d.word(), d.word()
	e := mmExec{transA: d.word() != 0, transB: d.word() != 0}
	for range 8 {
		d.word()
	}
	nb := d.word()
	e.dims, e.sa, e.sb = d.words(nb), d.words(nb), d.words(nb)
	if err := d.err(); err != nil {
		return err
	}
	xm, xk := matDims(x.Shape, e.transA)
	yk, yn := matDims(y.Shape, e.transB)
	if e.transA != k.transA || e.transB != k.transB || xm != m || xk != kk || yk != kk || yn != n ||
		o.Shape[o.Shape.Rank()-2] != m || o.Shape[o.Shape.Rank()-1] != n || batch*m*n != o.NumElements() {
		return fmt.Errorf("tiling is for %d products of [%d,%d]×[%d,%d], operands are %v and %v", batch, m, kk, kk, n, x.Shape, y.Shape)
	}
	if o.NumElements() == 0 {
		return nil
	}
	pa, err := checkWalk(e.dims, e.sa, 0, m*kk, x.NumElements())
	if err != nil {
		return err
	}
	pb, err := checkWalk(e.dims, e.sb, 0, kk*n, y.NumElements())
	if err != nil {
		return err
	}
	if pa != batch || pb != batch {
		return errTiling
	}
	e.m, e.n, e.k, e.rank = m, n, kk, int(nb)
	e.xb, e.yb, e.ob, e.dt, e.run = x.Data(), y.Data(), o.Data(), o.DType, a
	e.scratch = &k.bT
	return e.walk(0, 0, 0)
}

// mmExec walks the batch loop of a matmul, one matrix product per point.
type mmExec struct {
	transA, transB bool
	m, n, k        int64
	rank           int
	dims, sa, sb   words
	dt             kernel.DType
	xb, yb, ob     []byte
	next           int64        // offset of the next output matrix
	run            *kernel.Args // whose run's end stops the products
	scratch        *[]float32   // the kernel's buffer for a transposed B
	bT             []float32    // this product's B transposed, or nil
}

func (e *mmExec) walk(d int, oa, ob int64) error {
	if d == e.rank {
		return e.product(oa, ob)
	}
	n, sa, sb := e.dims.at(d), e.sa.at(d), e.sb.at(d)
	for range n {
		if err := e.walk(d+1, oa, ob); err != nil {
			return err
		}
		oa += sa
		ob += sb
	}
	return nil
}

// mmPollProducts is about how many multiply-adds a matrix product does
// between two checks that its run goes on: a few milliseconds' work.
const mmPollProducts = 1 << 22

// product computes one matrix product of the batch, a block of rows at a
// time, each row as the scalar loop computes it: between blocks it
// returns the run's error once the run ended (kernel.Args.Err).
func (e *mmExec) product(oa, ob int64) error {
	// Element strides: A[i,k] at oa + i·am + k·ak, B[k,j] at ob + k·bk + j·bn.
	am, ak := e.k, int64(1)
	if e.transA {
		am, ak = 1, e.m
	}
	bk, bn := e.n, int64(1)
	if e.transB {
		bk, bn = 1, e.k
	}
	o := e.next
	e.next += e.m * e.n
	e.bT = nil
	if e.transB && e.dt == kernel.Float32 && useSIMD && e.m >= 4 && e.n >= simdMin {
		// B [n, k] transposed once into [k, n]: every output element
		// takes the same products in the same order, by row updates.
		need := e.k * e.n
		if int64(cap(*e.scratch)) < need {
			*e.scratch = make([]float32, need)
		}
		t := (*e.scratch)[:need]
		transposeMat(t, kernel.Float32s(e.yb)[ob:ob+need], e.n, e.k)
		e.bT, ob, bk, bn = t, 0, e.n, 1
	}
	// Rows a block: a multiple of 4 (mmFloat32 takes four at a time).
	step := max(4, mmPollProducts/max(1, e.n*e.k)) &^ 3
	for i0 := int64(0); i0 < e.m; i0 += step {
		if err := e.run.Err(); err != nil {
			return err
		}
		e.rows(o+i0*e.n, oa+i0*am, ob, min(step, e.m-i0), am, ak, bk, bn)
	}
	return nil
}

// rows computes m rows of a product into the output at offset o, from A
// at oa and B at ob with the element strides of product.
func (e *mmExec) rows(o, oa, ob, m, am, ak, bk, bn int64) {
	size := m * e.n
	switch e.dt {
	case kernel.Float32:
		b := kernel.Float32s(e.yb)[ob:]
		if e.bT != nil {
			b = e.bT
		}
		mmFloat32(kernel.Float32s(e.ob)[o:o+size], kernel.Float32s(e.xb)[oa:], b, m, e.n, e.k, am, ak, bk, bn)
	case kernel.Float16:
		mmFloat16(kernel.Uint16s(e.ob)[o:o+size], kernel.Uint16s(e.xb)[oa:], kernel.Uint16s(e.yb)[ob:], m, e.n, e.k, am, ak, bk, bn)
	case kernel.Float64:
		mmRows(kernel.Float64s(e.ob)[o:o+size], kernel.Float64s(e.xb)[oa:], kernel.Float64s(e.yb)[ob:], m, e.n, e.k, am, ak, bk, bn)
	case kernel.Int32:
		mmRows(kernel.Int32s(e.ob)[o:o+size], kernel.Int32s(e.xb)[oa:], kernel.Int32s(e.yb)[ob:], m, e.n, e.k, am, ak, bk, bn)
	case kernel.Int64:
		mmRows(kernel.Int64s(e.ob)[o:o+size], kernel.Int64s(e.xb)[oa:], kernel.Int64s(e.yb)[ob:], m, e.n, e.k, am, ak, bk, bn)
	case kernel.BFloat16:
		mmBFloat16(kernel.Uint16s(e.ob)[o:o+size], kernel.Uint16s(e.xb)[oa:], kernel.Uint16s(e.yb)[ob:], m, e.n, e.k, am, ak, bk, bn)
	case kernel.Uint32:
		mmRows(kernel.Uint32s(e.ob)[o:o+size], kernel.Uint32s(e.xb)[oa:], kernel.Uint32s(e.yb)[ob:], m, e.n, e.k, am, ak, bk, bn)
	case kernel.Uint64:
		mmRows(kernel.Uint64s(e.ob)[o:o+size], kernel.Uint64s(e.xb)[oa:], kernel.Uint64s(e.yb)[ob:], m, e.n, e.k, am, ak, bk, bn)
	}
}

// mmRows is mmFloat32 for float64 and the integer dtypes (which wrap).
func mmRows[T float64 | int32 | int64 | uint32 | uint64](o, a, b []T, m, n, kk, am, ak, bk, bn int64) {
	for i := range m {
		row := o[i*n : (i+1)*n]
		startSums(row, kk)
		for p := range kk {
			av := a[i*am+p*ak]
			off := p * bk
			for j := range row {
				row[j] += T(av * b[off+int64(j)*bn]) // rounded: never fused into an FMA
			}
		}
	}
}

// mmFloat32 accumulates each output row over k ascending; per element this
// is the same sequence of float32 additions as a scalar dot product. With
// B's rows contiguous (bn 1) it takes four output rows at a time, each B
// row loaded once for the four: the same additions in the same order.
func mmFloat32(o, a, b []float32, m, n, kk, am, ak, bk, bn int64) {
	i := int64(0)
	if bn == 1 {
		for ; i+4 <= m; i += 4 {
			r0 := o[i*n : (i+1)*n]
			r1 := o[(i+1)*n : (i+2)*n][:len(r0)]
			r2 := o[(i+2)*n : (i+3)*n][:len(r0)]
			r3 := o[(i+3)*n : (i+4)*n][:len(r0)]
			startSums(o[i*n:(i+4)*n], kk)
			for p := range kk {
				a0, a1, a2, a3 := a[i*am+p*ak], a[(i+1)*am+p*ak], a[(i+2)*am+p*ak], a[(i+3)*am+p*ak]
				axpyRows4(r0, r1, r2, r3, b[p*bk : p*bk+n][:len(r0)], a0, a1, a2, a3)
			}
		}
	}
	for ; i < m; i++ {
		row := o[i*n : (i+1)*n]
		startSums(row, kk)
		for p := range kk {
			av := a[i*am+p*ak]
			off := p * bk
			if bn == 1 {
				axpy1(row, b[off:off+n], av)
				continue
			}
			for j := range row {
				row[j] += float32(av * b[off+int64(j)*bn])
			}
		}
	}
}

func mmFloat16(o, a, b []uint16, m, n, kk, am, ak, bk, bn int64) {
	for i := range m {
		for j := range n {
			acc := negZero32 // a sum of -0s is -0
			if kk == 0 {
				acc = 0
			}
			for p := range kk {
				acc += float32(kernel.F16ToF32(a[i*am+p*ak]) * kernel.F16ToF32(b[p*bk+j*bn]))
			}
			o[i*n+j] = kernel.F32ToF16(acc)
		}
	}
}

// mmBFloat16 is mmFloat16 for bfloat16.
func mmBFloat16(o, a, b []uint16, m, n, kk, am, ak, bk, bn int64) {
	for i := range m {
		for j := range n {
			acc := negZero32 // a sum of -0s is -0
			if kk == 0 {
				acc = 0
			}
			for p := range kk {
				acc += float32(kernel.BF16ToF32(a[i*am+p*ak]) * kernel.BF16ToF32(b[p*bk+j*bn]))
			}
			o[i*n+j] = kernel.F32ToBF16(acc)
		}
	}
}
