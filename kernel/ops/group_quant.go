package ops

import (
	"fmt"
	"math"

	"github.com/pipert/pipert/kernel"
)

// quantOps are ONNX's integer (quantized) ops, each a single pass (see
// simple) with exact integer accumulation:
//
//   - DynamicQuantizeLinear(x) → y, y_scale, y_zero_point: x (float32)
//     quantized to uint8 over the range [min(0, min x), max(0, max x)]:
//     scale = range/255, zero_point = saturate(round(−min/scale)), y =
//     saturate(round(x/scale) + zero_point), rounding half to even. An
//     empty range (x all zeros, or empty) has scale 1, as onnxruntime and
//     ONNX's reference give: zero point 0, y all 0. The range is found,
//     and y rounded, as onnxruntime's MLAS does on x86 (dynQuantParams,
//     mlasQuantize), NaN and infinities included.
//   - MatMulInteger(A, B[, a_zero_point[, b_zero_point]]) → int32: the
//     numpy matrix product of (A − a_zero_point) and (B − b_zero_point),
//     A and B int8 or uint8; zero points per tensor, per row of A and per
//     column of B, or, for batched operands, per row or column of each
//     batch matrix ([D…, M, 1] for A, [D…, 1, N] for B).
//   - QLinearMatMul(a, a_scale, a_zero_point, b, b_scale, b_zero_point,
//     y_scale, y_zero_point): the integer product requantized,
//     saturate(round(acc · a_scale·b_scale/y_scale) + y_zero_point), the
//     scale and the product in float32 and the rounding (half to even)
//     before the zero point is added, as the spec's formula and
//     onnxruntime do (ONNX's Python reference adds the zero point first:
//     it differs at ties with an odd zero point). Scales and zero points
//     as MatMulInteger's zero points, a scale and its zero point of one
//     shape; float16 and bfloat16 scales from opset 21.
//   - ConvInteger(x, w[, x_zero_point[, w_zero_point]]) → int32 and
//     QLinearConv(x, x_scale, x_zero_point, w, w_scale, w_zero_point,
//     y_scale, y_zero_point[, B]): Conv's geometry and attributes over
//     zero-point-shifted integers; weights' zero points and scales per
//     tensor or per output channel; QLinearConv adds the int32 bias before
//     requantizing as QLinearMatMul does.
var quantOps = []builtin{
	{"DynamicQuantizeLinear", newDynamicQuantize},
	{"MatMulInteger", newMatMulInteger(false)},
	{"QLinearMatMul", newMatMulInteger(true)},
	{"ConvInteger", newConvInteger(false)},
	{"QLinearConv", newConvInteger(true)},
}

var qTypes = []kernel.DType{kernel.Int8, kernel.Uint8}

// requant rounds v half to even and clamps it to the range of dt, int8 or
// uint8.
func requant(dt kernel.DType, v float64) int64 {
	if dt == kernel.Int8 {
		return saturate(math.RoundToEven(v), math.MinInt8, math.MaxInt8)
	}
	return saturate(math.RoundToEven(v), 0, math.MaxUint8)
}

func newDynamicQuantize(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check(); err != nil {
		return nil, wrapAttr(err)
	}
	k := &simple{flops: 4}
	k.inferF = func(in, out []*kernel.Tensor) error {
		if err := dtypeIn(in[0], "x", kernel.Float32); err != nil {
			return err
		}
		setShape(out[0], in[0].Shape, kernel.Uint8)
		setShape(out[1], nil, kernel.Float32)
		setShape(out[2], nil, kernel.Uint8)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x := kernel.Float32s(a.In[0].Data())
		scale, zp := dynQuantParams(x)
		y := a.Out[0].Data()
		for i, v := range x {
			y[i] = byte(mlasQuantize(kernel.Uint8, v, scale, zp))
		}
		kernel.Float32s(a.Out[1].Data())[0] = scale
		a.Out[2].Data()[0] = byte(zp)
		return nil
	}
	return newKernel(sig{op: "DynamicQuantizeLinear", minIn: 1, maxIn: 1, nOut: 3}, k), nil
}

// perAxis is a zero point or scale given per tensor (one element) or per
// index along one axis (n elements).
type perAxis struct {
	t *kernel.Tensor
	n int64
}

// newPerAxis checks t (nil or empty: absent) against n indices.
func newPerAxis(t *kernel.Tensor, name string, n int64, dts ...kernel.DType) (perAxis, error) {
	if t == nil || t.NumElements() == 0 && t.Shape.Rank() > 0 {
		return perAxis{}, nil
	}
	if err := dtypeIn(t, name, dts...); err != nil {
		return perAxis{}, err
	}
	switch m := t.NumElements(); {
	case m == 1:
		return perAxis{t: t, n: 1}, nil
	case m == n:
		return perAxis{t: t, n: n}, nil
	}
	return perAxis{}, fmt.Errorf("input %s %v: want one element or %d", name, t.Shape, n)
}

// requiredPerAxis is newPerAxis for an input that must be given: an empty
// one (the encoding of an omitted input) is an error.
func requiredPerAxis(t *kernel.Tensor, name string, n int64, dts ...kernel.DType) error {
	if t == nil || t.NumElements() == 0 {
		if n == 1 {
			return fmt.Errorf("input %s is empty or absent: want one element", name)
		}
		return fmt.Errorf("input %s is empty or absent: want one element or %d", name, n)
	}
	_, err := newPerAxis(t, name, n, dts...)
	return err
}

// at returns the value for index i (0 when absent).
func (p perAxis) at(i int64) float64 {
	if p.t == nil {
		return 0
	}
	if p.n == 1 {
		i = 0
	}
	return loadF(p.t.DType, p.t.Data(), i)
}

// qlinearOut stores output element idx of a QLinear op (scales at inputs
// 1, 4 and 6, the output zero point at 7) from its integer accumulator:
// round(acc·(s1[i1]·s2[i2]/y_scale)) + y_zero_point, saturated. The spec's
// y = saturate(round(x / y_scale) + y_zero_point) rounds before the zero
// point is added (as QuantizeLinear does); the combined scale and its
// product with the accumulator are float32, as onnxruntime's requantization
// computes them, so that exact ties (0.5, 1.5, …) stay ties. i1 and i2 are
// element indices of the first two scales; a scale of one element applies
// to every index.
func qlinearOut(a *kernel.Args, idx, acc, i1, i2 int64) {
	scale := func(t *kernel.Tensor, i int64) float32 {
		return float32(loadF(t.DType, t.Data(), min(i, t.NumElements()-1)))
	}
	s := scale(a.In[1], i1) * scale(a.In[4], i2) / scale(a.In[6], 0)
	v := float32(acc) * s
	yz := loadI(a.In[7].DType, a.In[7].Data(), 0)
	o := a.Out[0]
	storeI(o.DType, o.Data(), idx, requant(o.DType, math.RoundToEven(float64(v))+float64(yz)))
}

// matAxis is a zero point or scale of one operand of MatMulInteger or
// QLinearMatMul: one element (per tensor), n elements (per row of A, per
// column of B) or, for an operand with batch dimensions [D…, M, K] or
// [D…, K, N], one row or column per batch matrix: [D…, M, 1] for A,
// [D…, 1, N] for B.
type matAxis struct {
	t       *kernel.Tensor
	n       int64
	batched bool
}

// newMatAxis checks t (nil or empty: absent) for an operand of shape op
// whose rows (A, col false) or columns (B, col true) number n.
func newMatAxis(t *kernel.Tensor, name string, op kernel.Shape, col bool, n int64, dts ...kernel.DType) (matAxis, error) {
	p, err := newPerAxis(t, name, n, dts...)
	if err == nil {
		return matAxis{t: p.t, n: p.n}, nil
	}
	if dtypeIn(t, name, dts...) != nil {
		return matAxis{}, err
	}
	last := kernel.Shape{n, 1}
	if col {
		last = kernel.Shape{1, n}
	}
	if r := op.Rank(); r > 2 && t.Shape.Rank() == r && t.Shape[:r-2].Equal(op[:r-2]) && t.Shape[r-2:].Equal(last) {
		return matAxis{t: t, n: n, batched: true}, nil
	}
	want := append(op[:max(op.Rank()-2, 0)].Clone(), last...)
	return matAxis{}, fmt.Errorf("input %s %v: want one element, %d or %v", name, t.Shape, n, want)
}

// index is the element of the value for row or column i of the
// operand's batch matrix b (0 for a scalar).
func (p matAxis) index(b, i int64) int64 {
	switch {
	case p.n == 1:
		return 0
	case p.batched:
		return b*p.n + i
	}
	return i
}

// at returns the value for row or column i of batch matrix b (0 when
// absent).
func (p matAxis) at(b, i int64) float64 {
	if p.t == nil {
		return 0
	}
	return loadF(p.t.DType, p.t.Data(), p.index(b, i))
}

func input(in []*kernel.Tensor, i int) *kernel.Tensor {
	if i < len(in) {
		return in[i]
	}
	return nil
}

func newMatMulInteger(linear bool) kernel.Factory {
	op, minIn, maxIn := "MatMulInteger", 2, 4
	if linear {
		op, minIn, maxIn = "QLinearMatMul", 8, 8
	}
	// The operand positions.
	ia, ib, iaz, ibz := 0, 1, 2, 3
	if linear {
		ia, ib, iaz, ibz = 0, 3, 2, 5
	}
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		if err := attrs.Check(); err != nil {
			return nil, wrapAttr(err)
		}
		opset, err := attrs.Opset(10)
		if err != nil {
			return nil, wrapAttr(err)
		}
		// QLinearMatMul-21 takes float16 and bfloat16 scales too (one
		// type for the three).
		scaleTypes := []kernel.DType{kernel.Float32}
		if opset >= 21 {
			scaleTypes = append(scaleTypes, kernel.Float16, kernel.BFloat16)
		}
		var mm matmul
		// shapes checks the operands and returns the output shape and
		// the product's M, K, N.
		shapes := func(in []*kernel.Tensor) (kernel.Shape, int64, int64, int64, error) {
			a, b := in[ia], in[ib]
			if err := dtypeIn(a, "A", qTypes...); err != nil {
				return nil, 0, 0, 0, err
			}
			if err := dtypeIn(b, "B", qTypes...); err != nil {
				return nil, 0, 0, 0, err
			}
			var o kernel.Tensor
			ma, mb := &kernel.Tensor{DType: kernel.Int32, Shape: a.Shape}, &kernel.Tensor{DType: kernel.Int32, Shape: b.Shape}
			if err := mm.infer([]*kernel.Tensor{ma, mb}, []*kernel.Tensor{&o}); err != nil {
				return nil, 0, 0, 0, err
			}
			m, kk, n := int64(1), a.Shape[a.Shape.Rank()-1], int64(1)
			if a.Shape.Rank() > 1 {
				m = a.Shape[a.Shape.Rank()-2]
			}
			if b.Shape.Rank() > 1 {
				n = b.Shape[b.Shape.Rank()-1]
			}
			return o.Shape, m, kk, n, nil
		}
		k := &simple{flops: 2}
		k.inferF = func(in, out []*kernel.Tensor) error {
			s, m, _, n, err := shapes(in)
			if err != nil {
				return err
			}
			if _, err := newMatAxis(input(in, iaz), "a_zero_point", in[ia].Shape, false, m, in[ia].DType); err != nil {
				return err
			}
			if _, err := newMatAxis(input(in, ibz), "b_zero_point", in[ib].Shape, true, n, in[ib].DType); err != nil {
				return err
			}
			dt := kernel.Int32
			if linear {
				for _, c := range []struct {
					i    int
					name string
					op   int // the operand, or -1
					n    int64
				}{{1, "a_scale", ia, m}, {4, "b_scale", ib, n}, {6, "y_scale", -1, 1}} {
					t := in[c.i]
					if t == nil || t.NumElements() == 0 {
						return fmt.Errorf("input %s is empty or absent", c.name)
					}
					if t.DType != in[1].DType {
						return fmt.Errorf("input %s has dtype %v, a_scale %v: want one type", c.name, t.DType, in[1].DType)
					}
					if c.op < 0 {
						if err := requiredPerAxis(t, c.name, 1, scaleTypes...); err != nil {
							return err
						}
						continue
					}
					if _, err := newMatAxis(t, c.name, in[c.op].Shape, c.op == ib, c.n, scaleTypes...); err != nil {
						return err
					}
				}
				// Scales and zero points of an operand have one shape.
				for _, c := range []struct {
					s, z int
					name string
				}{{1, iaz, "a"}, {4, ibz, "b"}} {
					if z := input(in, c.z); z != nil && z.NumElements() > 1 && !z.Shape.Equal(in[c.s].Shape) {
						return fmt.Errorf("input %s_zero_point has shape %v, %s_scale %v: want the same", c.name, z.Shape, c.name, in[c.s].Shape)
					}
				}
				if err := requiredPerAxis(in[7], "y_zero_point", 1, qTypes...); err != nil {
					return err
				}
				dt = in[7].DType
			}
			setShape(out[0], s, dt)
			return nil
		}
		// Scratch: the sums, a row of B and the zero points.
		var acc, brow, bzs, azs []int64
		k.computeF = func(a *kernel.Args) error {
			A, B, o := a.In[ia], a.In[ib], a.Out[0]
			_, m, kk, n, err := shapes(a.In)
			if err != nil {
				return err
			}
			az, _ := newMatAxis(input(a.In, iaz), "a_zero_point", A.Shape, false, m, A.DType)
			bz, _ := newMatAxis(input(a.In, ibz), "b_zero_point", B.Shape, true, n, B.DType)
			var as, bs matAxis
			if linear {
				as, _ = newMatAxis(a.In[1], "a_scale", A.Shape, false, m, scaleTypes...)
				bs, _ = newMatAxis(a.In[4], "b_scale", B.Shape, true, n, scaleTypes...)
			}
			if o.NumElements() == 0 {
				return nil
			}
			// Batch offsets: the output's batch dimensions broadcast
			// over A's and B's.
			batch := o.NumElements() / (m * n)
			ra, rb := max(A.Shape.Rank(), 2), max(B.Shape.Rank(), 2)
			ob := max(ra, rb) - 2
			outBatch := make(kernel.Shape, ob)
			abatch, bbatch := batchOf(A.Shape, ra, ob), batchOf(B.Shape, rb, ob)
			for i := range ob {
				outBatch[i] = broadcastDim(abatch[i], bbatch[i])
			}
			if int64(cap(acc)) < m*n {
				acc = make([]int64, m*n)
			}
			acc = acc[:m*n]
			if int64(cap(brow)) < n {
				brow, bzs = make([]int64, n), make([]int64, n)
			}
			if int64(cap(azs)) < m {
				azs = make([]int64, m)
			}
			brow, bzs, azs = brow[:n], bzs[:n], azs[:m]
			ab, bb, od := A.Data(), B.Data(), o.Data()
			for p := range batch {
				pa, pb := batchPair(p, outBatch, abatch, bbatch)
				clear(acc)
				for i := range azs {
					azs[i] = int64(az.at(pa, int64(i)))
				}
				for j := range bzs {
					bzs[j] = int64(bz.at(pb, int64(j)))
				}
				// Row t of B, less its zero points, then every
				// row of A's column t times it: exact integer
				// sums, in any order.
				for t := range kk {
					at := (pb*kk + t) * n
					switch B.DType {
					case kernel.Int8:
						for j, z := range bzs {
							brow[j] = int64(int8(bb[at+int64(j)])) - z
						}
					case kernel.Uint8:
						for j, z := range bzs {
							brow[j] = int64(bb[at+int64(j)]) - z
						}
					default:
						for j, z := range bzs {
							brow[j] = loadI(B.DType, bb, at+int64(j)) - z
						}
					}
					for i := range m {
						av := loadI(A.DType, ab, (pa*m+i)*kk+t) - azs[i]
						if av == 0 {
							continue
						}
						row := acc[i*n : (i+1)*n]
						for j, b := range brow {
							row[j] += av * b
						}
					}
				}
				for i := range m {
					for j := range n {
						v := acc[i*n+j]
						idx := p*m*n + i*n + j
						if !linear {
							kernel.Int32s(od)[idx] = int32(v)
							continue
						}
						qlinearOut(a, idx, v, as.index(pa, i), bs.index(pb, j))
					}
				}
			}
			return nil
		}
		return newKernel(sig{op: op, minIn: minIn, maxIn: maxIn, nOut: 1}, k), nil
	}
}

// batchOf returns the batch dimensions of a matrix operand of shape s
// (rank r after promoting a vector to a matrix), right-aligned to n
// dimensions with leading ones.
// batchPair unravels output batch p over outBatch into A's and B's batch
// indices, their batch shapes abatch and bbatch broadcasting to it.
func batchPair(p int64, outBatch, abatch, bbatch kernel.Shape) (pa, pb int64) {
	rem, sa, sb := p, int64(1), int64(1)
	for d := len(outBatch) - 1; d >= 0; d-- {
		idx := rem % outBatch[d]
		rem /= outBatch[d]
		if abatch[d] != 1 {
			pa += idx * sa
		}
		if bbatch[d] != 1 {
			pb += idx * sb
		}
		sa *= abatch[d]
		sb *= bbatch[d]
	}
	return pa, pb
}

func batchOf(s kernel.Shape, r, n int) kernel.Shape {
	out := make(kernel.Shape, n)
	for i := range out {
		out[i] = 1
	}
	if len(s) > 2 {
		copy(out[n-(r-2):], s[:r-2])
	}
	return out
}

func newConvInteger(linear bool) kernel.Factory {
	op, minIn, maxIn := "ConvInteger", 2, 4
	if linear {
		op, minIn, maxIn = "QLinearConv", 8, 9
	}
	ix, iw, ixz, iwz := 0, 1, 2, 3
	if linear {
		ix, iw, ixz, iwz = 0, 3, 2, 5
	}
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		if err := attrs.Check("auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"); err != nil {
			return nil, wrapAttr(err)
		}
		win, err := parseWindow(op, attrs)
		if err != nil {
			return nil, fmt.Errorf("ops: %s: %w", op, err)
		}
		c := &conv{w: win}
		if c.group, err = attrs.Int("group", 1); err != nil {
			return nil, wrapAttr(err)
		}
		if c.group < 1 {
			return nil, fmt.Errorf("ops: %s: group %d: want at least 1", op, c.group)
		}
		geometry := func(in []*kernel.Tensor) (geom, error) {
			x, w := in[ix], in[iw]
			if err := dtypeIn(x, "x", qTypes...); err != nil {
				return geom{}, err
			}
			if err := dtypeIn(w, "w", qTypes...); err != nil {
				return geom{}, err
			}
			// Conv's geometry, on float metadata of the same shapes.
			fx, fw := &kernel.Tensor{DType: kernel.Float32, Shape: x.Shape}, &kernel.Tensor{DType: kernel.Float32, Shape: w.Shape}
			g, err := c.geometry([]*kernel.Tensor{fx, fw})
			if err != nil {
				return g, err
			}
			if _, err := newPerAxis(input(in, ixz), "x_zero_point", 1, x.DType); err != nil {
				return g, err
			}
			if _, err := newPerAxis(input(in, iwz), "w_zero_point", g.m, w.DType); err != nil {
				return g, err
			}
			if linear {
				for _, s := range []struct {
					i    int
					name string
					n    int64
				}{{1, "x_scale", 1}, {4, "w_scale", g.m}, {6, "y_scale", 1}} {
					if err := requiredPerAxis(in[s.i], s.name, s.n, kernel.Float32); err != nil {
						return g, err
					}
				}
				if err := requiredPerAxis(in[7], "y_zero_point", 1, qTypes...); err != nil {
					return g, err
				}
				if b := input(in, 8); b != nil && b.NumElements() > 0 {
					if err := dtypeIn(b, "B", kernel.Int32); err != nil {
						return g, err
					}
					if !b.Shape.Equal(kernel.Shape{g.m}) {
						return g, fmt.Errorf("bias B has shape %v, want [%d]", b.Shape, g.m)
					}
				}
			}
			return g, nil
		}
		k := &simple{flops: 2}
		k.inferF = func(in, out []*kernel.Tensor) error {
			g, err := geometry(in)
			if err != nil {
				return err
			}
			dt := kernel.Int32
			if linear {
				dt = in[7].DType
			}
			setShape(out[0], g.spatialShape(g.m), dt)
			return nil
		}
		k.computeF = func(a *kernel.Args) error {
			g, err := geometry(a.In)
			if err != nil {
				return err
			}
			x, w, o := a.In[ix], a.In[iw], a.Out[0]
			xz, _ := newPerAxis(input(a.In, ixz), "x_zero_point", 1, x.DType)
			wz, _ := newPerAxis(input(a.In, iwz), "w_zero_point", g.m, w.DType)
			xb, wb, ob := x.Data(), w.Data(), o.Data()
			cg, mg := g.c/g.group, g.m/g.group
			in, kk, out := g.in, g.k, g.out
			inSize, kSize, outSize := in[0]*in[1]*in[2], kk[0]*kk[1]*kk[2], out[0]*out[1]*out[2]
			// The operands less their zero points, once (8-bit types:
			// they fit int32, and their products are exact in any order).
			xs := make([]int32, x.NumElements())
			xzp := int64(xz.at(0))
			for i := range xs {
				xs[i] = int32(loadI(x.DType, xb, int64(i)) - xzp)
			}
			ws := make([]int32, w.NumElements())
			for m := range g.m {
				wzp := int64(wz.at(m))
				for i := m * cg * kSize; i < (m+1)*cg*kSize; i++ {
					ws[i] = int32(loadI(w.DType, wb, i) - wzp)
				}
			}
			// A block of output positions at a time: their input taps
			// gathered as rows (im2col: row r = channel and tap, 0 in
			// the padding), then four output channels' sums over the
			// rows at once (integer sums are exact in any order, and a
			// product of two 8-bit values less zero points fits int32).
			taps := cg * kSize
			blk := min(outSize, max(int64(64), int64(1<<17)/max(taps, 1)))
			col := make([]int32, taps*blk)
			var accs [4][]int64
			for j := range accs {
				accs[j] = make([]int64, blk)
			}
			p := poller{a: a}
			for n := range g.n {
				for grp := range g.group {
					xg := xs[(n*g.c+grp*cg)*inSize : (n*g.c+(grp+1)*cg)*inSize]
					for p0 := int64(0); p0 < outSize; p0 += blk {
						b := min(blk, outSize-p0)
						if err := p.add(taps * b * mg); err != nil {
							return err
						}
						gatherTaps(col[:taps*b], xg, &g, cg, p0, b)
						for m0 := grp * mg; m0 < (grp+1)*mg; m0 += 4 {
							nm := min(int64(4), (grp+1)*mg-m0)
							for j := range nm {
								clear(accs[j][:b])
							}
							sumTaps(accs, col, ws, m0, nm, taps, b)
							for j := range nm {
								m := m0 + j
								var bias int64
								if bt := input(a.In, 8); linear && bt != nil && bt.NumElements() > 0 {
									bias = int64(kernel.Int32s(bt.Data())[m])
								}
								base := (n*g.m+m)*outSize + p0
								for i, v := range accs[j][:b] {
									if !linear {
										kernel.Int32s(ob)[base+int64(i)] = int32(v)
										continue
									}
									qlinearOut(a, base+int64(i), v+bias, 0, m)
								}
							}
						}
					}
				}
			}
			return nil
		}
		return newKernel(sig{op: op, minIn: minIn, maxIn: maxIn, nOut: 1}, k), nil
	}
}

// gatherTaps writes, for output positions p0 to p0+b-1 of geometry g, the
// input value under each of the cg·kSize taps of one group (xg, its
// channels less their zero point; 0 in the padding) as rows of b: row
// ci·kSize + tap.
func gatherTaps(col, xg []int32, g *geom, cg, p0, b int64) {
	in, kk, out := g.in, g.k, g.out
	inSize, kSize := in[0]*in[1]*in[2], kk[0]*kk[1]*kk[2]
	for ci := range cg {
		xc := xg[ci*inSize : (ci+1)*inSize]
		for kp := range kSize {
			row := col[(ci*kSize+kp)*b : (ci*kSize+kp+1)*b]
			kd, kh, kw := kp/(kk[1]*kk[2]), kp/kk[2]%kk[1], kp%kk[2]
			// The output position p0 as (od, oh, ow), stepped along.
			od, oh, ow := p0/(out[1]*out[2]), p0/out[2]%out[1], p0%out[2]
			for i := range row {
				id := od*g.stride[0] - g.padB[0] + kd*g.dil[0]
				ih := oh*g.stride[1] - g.padB[1] + kh*g.dil[1]
				iw := ow*g.stride[2] - g.padB[2] + kw*g.dil[2]
				if id >= 0 && id < in[0] && ih >= 0 && ih < in[1] && iw >= 0 && iw < in[2] {
					row[i] = xc[(id*in[1]+ih)*in[2]+iw]
				} else {
					row[i] = 0 // padding: x − zero_point is 0 there
				}
				if ow++; ow == out[2] {
					ow = 0
					if oh++; oh == out[1] {
						oh, od = 0, od+1
					}
				}
			}
		}
	}
}

// sumTaps adds to accs[j][:b], for the nm (1 to 4) output channels from
// m0, the products of their weights (ws, rows of taps) with the gathered
// taps (col, rows of b). Four channels take four taps at a time: sixteen
// products of 8-bit values less zero points, summed four by four, fit
// int32 before they reach the int64 sums.
func sumTaps(accs [4][]int64, col, ws []int32, m0, nm, taps, b int64) {
	r := int64(0)
	if nm == 4 {
		a0, a1, a2, a3 := accs[0][:b], accs[1][:b], accs[2][:b], accs[3][:b]
		w0, w1, w2, w3 := ws[m0*taps:(m0+1)*taps], ws[(m0+1)*taps:(m0+2)*taps], ws[(m0+2)*taps:(m0+3)*taps], ws[(m0+3)*taps:(m0+4)*taps]
		for ; r+4 <= taps; r += 4 {
			x0, x1, x2, x3 := col[r*b:(r+1)*b], col[(r+1)*b:(r+2)*b], col[(r+2)*b:(r+3)*b], col[(r+3)*b:(r+4)*b]
			x1, x2, x3 = x1[:len(x0)], x2[:len(x0)], x3[:len(x0)]
			a0, a1, a2, a3 := a0[:len(x0)], a1[:len(x0)], a2[:len(x0)], a3[:len(x0)]
			k0 := [4]int32{w0[r], w0[r+1], w0[r+2], w0[r+3]}
			k1 := [4]int32{w1[r], w1[r+1], w1[r+2], w1[r+3]}
			k2 := [4]int32{w2[r], w2[r+1], w2[r+2], w2[r+3]}
			k3 := [4]int32{w3[r], w3[r+1], w3[r+2], w3[r+3]}
			for i, v0 := range x0 {
				v1, v2, v3 := x1[i], x2[i], x3[i]
				a0[i] += int64(v0*k0[0] + v1*k0[1] + v2*k0[2] + v3*k0[3])
				a1[i] += int64(v0*k1[0] + v1*k1[1] + v2*k1[2] + v3*k1[3])
				a2[i] += int64(v0*k2[0] + v1*k2[1] + v2*k2[2] + v3*k2[3])
				a3[i] += int64(v0*k3[0] + v1*k3[1] + v2*k3[2] + v3*k3[3])
			}
		}
	}
	for ; r < taps; r++ {
		row := col[r*b : (r+1)*b]
		for j := range nm {
			w := ws[(m0+j)*taps+r]
			if w == 0 {
				continue
			}
			acc := accs[j][:len(row)]
			for i, v := range row {
				acc[i] += int64(v * w)
			}
		}
	}
}
