package ops

import (
	"fmt"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// Conv and ConvTranspose: ONNX convolution over 1 to 3 spatial dimensions
// on float32, float64, float16 and bfloat16, with every attribute of
// opsets 1 to 17 (auto_pad, dilations, group, kernel_shape, pads, strides;
// ConvTranspose also output_padding and output_shape). float32 and float64
// compute in their own type; float16 and bfloat16 compute in float32 and
// round once to their type, as onnxruntime's float16 kernels accumulate in
// float32 (floats).
//
// Conv(X [N,C,D…], W [M,C/group,k…], B [M]) → Y [N,M,O…] with
// O = ⌊(D + padB + padE − ((k−1)·dil+1)) / stride⌋ + 1; auto_pad SAME_*
// pads to O = ⌈D/stride⌉ (the odd element at the end for SAME_UPPER, at the
// beginning for SAME_LOWER), VALID pads nothing.
//
// ConvTranspose(X [N,C,D…], W [C,M/group,k…], B [M]) → Y [N,M,O…] with
// O = stride·(D−1) + output_padding + ((k−1)·dil+1) − padB − padE; when
// output_shape is given (or auto_pad is SAME_*, meaning O = D·stride), the
// pads follow from it: the total split evenly, the odd element at the
// beginning for SAME_UPPER… as the ONNX specification states.
//
// The device kernel lowers each (image, group) to a matrix product: Conv
// gathers the receptive fields into a [C/group·k, O] column matrix in the
// workspace (im2col; 1×1 kernels with unit strides and no padding read X
// directly), and multiplies W's [M/group, C/group·k] block by it;
// ConvTranspose multiplies Wᵀ by X into the workspace and scatters the
// columns onto Y (col2im). The product is blocked over columns and the
// reduction so a block of the right operand stays in cache, and its inner
// loop is an axpy over contiguous rows, four reduction steps at a time;
// the same generic code runs float32 and float64, its products rounded
// (mul) so that none is fused with the sum.
//
// Tiling (words):
//
//	0..24  geometry: N, C, M, group; then in, k, out, stride, dil, padB
//	       and padE, three words each (depth, height, width)
//
// Workspace: the column matrix in the compute type (8 bytes an element for
// float64, 4 otherwise), C/group·∏k·∏O elements (Conv; none for a direct
// 1×1) or M/group·∏k·∏D (ConvTranspose). Cost:
// 2·N·M·(C/group)·∏k·∏O operations (ConvTranspose: over ∏D); bytes of
// X, W, B and Y.
type conv struct {
	transpose bool
	w         window
	group     int64
	outPad    []int64
	outShape  []int64
	f32       floats[float32] // float32, float16 and bfloat16 operands
	f64       floats[float64] // float64 operands
}

func newConv(transpose bool) kernel.Factory {
	op := "Conv"
	known := []string{"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}
	if transpose {
		op = "ConvTranspose"
		known = append(known, "output_padding", "output_shape")
	}
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		if _, err := attrs.Opset(17); err != nil {
			return nil, wrapAttr(err)
		}
		if err := attrs.Check(known...); err != nil {
			return nil, wrapAttr(err)
		}
		w, err := parseWindow(op, attrs)
		if err != nil {
			return nil, fmt.Errorf("ops: %s: %w", op, err)
		}
		k := &conv{transpose: transpose, w: w}
		if k.group, err = attrs.Int("group", 1); err != nil {
			return nil, wrapAttr(err)
		}
		if k.group < 1 {
			return nil, fmt.Errorf("ops: %s: group %d: want at least 1", op, k.group)
		}
		if transpose {
			if k.outPad, err = attrs.Ints("output_padding", nil); err != nil {
				return nil, wrapAttr(err)
			}
			if k.outShape, err = attrs.Ints("output_shape", nil); err != nil {
				return nil, wrapAttr(err)
			}
		}
		return newKernel(sig{op: op, minIn: 2, maxIn: 3, nOut: 1}, k), nil
	}
}

// geometry checks the operands and computes the geometry.
func (k *conv) geometry(in []*kernel.Tensor) (geom, error) {
	x, w := in[0], in[1]
	if err := dtypeIn(x, "X", onnxFloats...); err != nil {
		return geom{}, err
	}
	if err := checkSameDType(w, "W", x, "X"); err != nil {
		return geom{}, err
	}
	if w.Shape.Rank() != x.Shape.Rank() {
		return geom{}, fmt.Errorf("weights W %v and input X %v differ in rank", w.Shape, x.Shape)
	}
	if x.Shape.Rank() < 3 {
		return geom{}, fmt.Errorf("input X %v: want [N, C, spatial...] of rank 3 to 5", x.Shape)
	}
	g, err := k.w.spatial(x.Shape, w.Shape[2:])
	if err != nil {
		return g, err
	}
	g.group = k.group
	if k.transpose {
		if w.Shape[0] != g.c || g.c%g.group != 0 {
			return g, fmt.Errorf("weights W %v do not fit input X %v with %d groups: want %d input channels, divisible by the groups", w.Shape, x.Shape, g.group, g.c)
		}
		g.m = w.Shape[1] * g.group
		if err := k.backward(&g); err != nil {
			return g, err
		}
	} else {
		if g.c%g.group != 0 || w.Shape[1]*g.group != g.c || w.Shape[0]%g.group != 0 {
			return g, fmt.Errorf("weights W %v do not fit input X %v with %d groups: want [M, C/group, …] with M divisible by the groups", w.Shape, x.Shape, g.group)
		}
		g.m = w.Shape[0]
		if err := k.w.forward(&g); err != nil {
			return g, err
		}
	}
	if len(in) > 2 && in[2].NumElements() > 0 {
		b := in[2]
		if err := checkSameDType(b, "B", x, "X"); err != nil {
			return g, err
		}
		if !b.Shape.Equal(kernel.Shape{g.m}) {
			return g, fmt.Errorf("bias B has shape %v, want [%d]", b.Shape, g.m)
		}
	}
	return g, nil
}

// backward fills the pads and output extents of a ConvTranspose.
func (k *conv) backward(g *geom) error {
	nd, off := g.nd, 3-g.nd
	if k.outPad != nil && len(k.outPad) != nd {
		return fmt.Errorf("output_padding %v: want %d values", k.outPad, nd)
	}
	os := k.outShape
	if os != nil {
		if len(os) == nd+2 {
			os = os[2:]
		}
		if len(os) != nd {
			return fmt.Errorf("output_shape %v: want %d values", k.outShape, nd)
		}
	}
	for i := range nd {
		a := off + i
		ext := (g.k[a]-1)*g.dil[a] + 1
		op := attrAt(k.outPad, i, 0)
		if op < 0 || op >= max(g.stride[a], g.dil[a]) {
			return fmt.Errorf("output_padding %v: each must be below its stride or dilation", k.outPad)
		}
		full := g.stride[a]*(g.in[a]-1) + op + ext
		var target int64 = -1
		switch {
		case os != nil:
			target = os[i]
		case k.w.autoPad == "SAME_UPPER" || k.w.autoPad == "SAME_LOWER":
			target = g.in[a] * g.stride[a]
		}
		if target >= 0 {
			// A negative total (output_shape beyond what the input
			// reaches) pads with zeros at the end: half is ⌊total/2⌋.
			total := full - target
			half := total >> 1
			if k.w.autoPad == "SAME_UPPER" {
				g.padB[a], g.padE[a] = half, total-half
			} else {
				g.padB[a], g.padE[a] = total-half, half
			}
		} else if k.w.autoPad == "NOTSET" {
			g.padB[a], g.padE[a] = attrAt(k.w.pads, i, 0), attrAt(k.w.pads, nd+i, 0)
		}
		g.out[a] = full - g.padB[a] - g.padE[a]
		if g.out[a] < 0 {
			return fmt.Errorf("pads %v leave no output on spatial axis %d", k.w.pads, i)
		}
	}
	return nil
}

func (k *conv) infer(in, out []*kernel.Tensor) error {
	g, err := k.geometry(in)
	if err != nil {
		return err
	}
	setShape(out[0], g.spatialShape(g.m), in[0].DType)
	return nil
}

// pointwise reports whether Conv reads X directly as its column matrix.
func (g *geom) pointwise() bool {
	return g.k == dims3{1, 1, 1} && g.stride == dims3{1, 1, 1} && g.padB == dims3{} && g.padE == dims3{}
}

// colElems is the column matrix's element count.
func (k *conv) colElems(g *geom) int64 {
	if k.transpose {
		return g.m / g.group * g.k.prod() * g.in.prod()
	}
	if g.pointwise() {
		return 0
	}
	return g.c / g.group * g.k.prod() * g.out.prod()
}

func (k *conv) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	g, err := k.geometry(in)
	if err != nil {
		return 0, err
	}
	if !out[0].Shape.Equal(g.spatialShape(g.m)) {
		return 0, fmt.Errorf("output %v differs from the inferred %v", out[0].Shape, g.spatialShape(g.m))
	}
	g.put(e)
	return computeSize(in[0].DType) * k.colElems(&g), nil
}

func (k *conv) cost(in, out []*kernel.Tensor) device.Cost {
	g, err := k.geometry(in)
	if err != nil {
		return device.Cost{}
	}
	sp := g.out.prod()
	if k.transpose {
		sp = g.in.prod()
	}
	b := in[0].Bytes() + in[1].Bytes() + out[0].Bytes()
	if len(in) > 2 {
		b += in[2].Bytes()
	}
	return device.Cost{FLOPs: 2 * float64(g.n*g.m*(g.c/g.group)*g.k.prod()*sp), Bytes: float64(b)}
}

func (k *conv) compute(a *kernel.Args) error {
	d := decoder{b: a.Tiling.Data}
	g, err := readGeom(&d)
	if err != nil {
		return err
	}
	x, w, y := a.In[0], a.In[1], a.Out[0]
	if g.group < 1 || g.n*g.c*g.in.prod() != x.NumElements() || g.n*g.m*g.out.prod() != y.NumElements() ||
		g.m*(g.c/g.group)*g.k.prod() != w.NumElements() || g.c%g.group != 0 || g.m%g.group != 0 {
		return errTiling
	}
	if y.DType == kernel.Float64 {
		return convRun(k, &k.f64, a, &g)
	}
	return convRun(k, &k.f32, a, &g)
}

// convRun computes a Conv or ConvTranspose in T, the compute type, on
// operands whose geometry compute checked: one matrix product per (image,
// group). It stops when a's run ends (kernel.Args.Ctx) and returns why.
func convRun[T float32 | float64](k *conv, c *floats[T], a *kernel.Args, g *geom) error {
	x, w, y := a.In[0], a.In[1], a.Out[0]
	need := k.colElems(g)
	col := c.work(4, a.Workspace.Data, need)
	xs, ws, ys := c.in(0, x), c.in(1, w), c.out(3, y)
	var bias []T
	if len(a.In) > 2 && a.In[2].NumElements() > 0 {
		bias = c.in(2, a.In[2])[:g.m]
	}
	cg, mg := g.c/g.group, g.m/g.group
	kp, ip, op := g.k.prod(), g.in.prod(), g.out.prod()
	for n := range g.n {
		for gr := range g.group {
			xg := xs[(n*g.c+gr*cg)*ip : (n*g.c+(gr+1)*cg)*ip]
			yg := ys[(n*g.m+gr*mg)*op : (n*g.m+(gr+1)*mg)*op]
			if k.transpose {
				// col [mg·kp, ip] = W_gᵀ × X_g; W_g is [cg, mg·kp].
				wg := ws[gr*cg*mg*kp : (gr+1)*cg*mg*kp]
				startSums(col, cg)
				if err := mmAxpy(a, col, ip, wg, 1, mg*kp, xg, ip, mg*kp, ip, cg); err != nil {
					return err
				}
				startSums(yg, 1)
				col2im(yg, col, g, mg)
				emptySums(yg, g, mg)
			} else {
				wg := ws[gr*mg*cg*kp : (gr+1)*mg*cg*kp]
				b := xg
				if need > 0 {
					im2col(col, xg, g, cg)
					b = col
				}
				startSums(yg, cg*kp)
				if err := mmAxpy(a, yg, op, wg, cg*kp, 1, b, op, mg, op, cg*kp); err != nil {
					return err
				}
			}
			if bias != nil {
				for m := range mg {
					v := bias[gr*mg+m]
					row := yg[m*op : (m+1)*op]
					for j := range row {
						row[j] += v
					}
				}
			}
		}
	}
	flush(y, ys)
	return nil
}

// im2col writes the receptive fields of x (ch channels of g.in) as the
// rows of col, [ch·∏k, ∏out]: row (c, kd, kh, kw), column (od, oh, ow).
// Positions in the padding read 0.
func im2col[T float32 | float64](col, x []T, g *geom, ch int64) {
	op, ip := g.out.prod(), g.in.prod()
	row := int64(0)
	for c := range ch {
		xc := x[c*ip : (c+1)*ip]
		for kd := range g.k[0] {
			for kh := range g.k[1] {
				for kw := range g.k[2] {
					dst := col[row*op : (row+1)*op]
					row++
					i := 0
					for od := range g.out[0] {
						id := od*g.stride[0] - g.padB[0] + kd*g.dil[0]
						for oh := range g.out[1] {
							ih := oh*g.stride[1] - g.padB[1] + kh*g.dil[1]
							if id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1] {
								clear(dst[i : i+int(g.out[2])])
								i += int(g.out[2])
								continue
							}
							src := xc[(id*g.in[1]+ih)*g.in[2] : (id*g.in[1]+ih+1)*g.in[2]]
							iw0, s := -g.padB[2]+kw*g.dil[2], g.stride[2]
							lo, hi := inBounds(iw0, s, g.in[2], g.out[2])
							out := dst[i : i+int(g.out[2])]
							clear(out[:lo])
							if s == 1 {
								if lo < hi {
									copy(out[lo:hi], src[iw0+lo:iw0+hi])
								}
							} else {
								for ow := lo; ow < hi; ow++ {
									out[ow] = src[iw0+ow*s]
								}
							}
							clear(out[hi:])
							i += int(g.out[2])
						}
					}
				}
			}
		}
	}
}

// inBounds returns the range [lo, hi) of the outputs ow < n whose input
// position i0 + ow·s (s ≥ 1) lies in [0, in); lo ≤ hi.
func inBounds(i0, s, in, n int64) (lo, hi int64) {
	if i0 < 0 {
		lo = (-i0 + s - 1) / s
	}
	hi = n
	if last := i0 + (n-1)*s; n > 0 && last >= in {
		// The largest ow with i0 + ow·s ≤ in − 1, plus one.
		if in-1-i0 < 0 {
			hi = 0
		} else {
			hi = (in-1-i0)/s + 1
		}
	}
	lo = min(lo, n)
	hi = max(min(hi, n), lo)
	return lo, hi
}

// col2im adds the columns of col, [ch·∏k, ∏in] (ConvTranspose: a column
// per input position), onto y (ch channels of g.out): input position i
// with kernel offset κ lands on output i·stride − padB + κ·dil.
func col2im[T float32 | float64](y, col []T, g *geom, ch int64) {
	op, ip := g.out.prod(), g.in.prod()
	row := int64(0)
	for c := range ch {
		yc := y[c*op : (c+1)*op]
		for kd := range g.k[0] {
			for kh := range g.k[1] {
				for kw := range g.k[2] {
					src := col[row*ip : (row+1)*ip]
					row++
					i := 0
					for id := range g.in[0] {
						od := id*g.stride[0] - g.padB[0] + kd*g.dil[0]
						for ih := range g.in[1] {
							oh := ih*g.stride[1] - g.padB[1] + kh*g.dil[1]
							if od < 0 || od >= g.out[0] || oh < 0 || oh >= g.out[1] {
								i += int(g.in[2])
								continue
							}
							dst := yc[(od*g.out[1]+oh)*g.out[2] : (od*g.out[1]+oh+1)*g.out[2]]
							ow := -g.padB[2] + kw*g.dil[2]
							for range g.in[2] {
								if ow >= 0 && ow < g.out[2] {
									dst[ow] += src[i]
								}
								i++
								ow += g.stride[2]
							}
						}
					}
				}
			}
		}
	}
}

// emptySums sets to +0 the outputs of col2im (ch channels of g.out) that
// no input position reaches, sums of no terms, which startSums left at -0.
// Whether an output is reached is a product over the axes.
func emptySums[T float32 | float64](y []T, g *geom, ch int64) {
	op := g.out.prod()
	for od := range g.out[0] {
		r0 := reached(g, 0, od)
		for oh := range g.out[1] {
			r1 := r0 && reached(g, 1, oh)
			for ow := range g.out[2] {
				if r1 && reached(g, 2, ow) {
					continue
				}
				at := (od*g.out[1]+oh)*g.out[2] + ow
				for c := range ch {
					y[c*op+at] = 0
				}
			}
		}
	}
}

// reached reports whether output coordinate o of axis d of a transposed
// convolution receives a term: o = i·stride − padBegin + k·dilation for an
// input i and a tap k.
func reached(g *geom, d int, o int64) bool {
	for k := range g.k[d] {
		if t := o + g.padB[d] - k*g.dil[d]; t >= 0 && t%g.stride[d] == 0 && t/g.stride[d] < g.in[d] {
			return true
		}
	}
	return false
}

// Block sizes of mmAxpy: a block of the right operand is mmK rows of mmN
// elements (256 KiB of float32, 512 KiB of float64), and an output row
// block (4 or 8 KiB) stays in L1. mmK fixes the grouping of the sums: a
// change changes results.
const (
	mmN = 1024
	mmK = 64
	// mmPoll is how many rows of a block (at most mmK·mmN products each)
	// mmAxpy computes between two checks that the run goes on.
	mmPoll = 16
)

// mmAxpy accumulates o[i, j] += Σ_p a[i·ai + p·ap] · b[p·ldb + j] for i
// < m, j < n, p < kk, where o's rows are ldo apart, in T. The inner loop is
// an axpy over a contiguous row of b, four reduction steps at a time: per
// element, each block of mmK steps adds ((t0 + t1) + t2) + t3 for every
// four rounded products, then the products left one by one. Every
// mmPoll rows of a block it checks that the kernel's run goes on
// (run.Err) and returns the run's error once it ended.
func mmAxpy[T float32 | float64](run *kernel.Args, o []T, ldo int64, a []T, ai, ap int64, b []T, ldb, m, n, kk int64) error {
	for j0 := int64(0); j0 < n; j0 += mmN {
		j1 := min(j0+mmN, n)
		w := j1 - j0
		for p0 := int64(0); p0 < kk; p0 += mmK {
			p1 := min(p0+mmK, kk)
			for i := range m {
				if i%mmPoll == 0 {
					if err := run.Err(); err != nil {
						return err
					}
				}
				row := o[i*ldo+j0 : i*ldo+j1]
				p := p0
				for ; p+4 <= p1; p += 4 {
					a0, a1, a2, a3 := a[i*ai+p*ap], a[i*ai+(p+1)*ap], a[i*ai+(p+2)*ap], a[i*ai+(p+3)*ap]
					axpySum4(row, b[p*ldb+j0:][:w], b[(p+1)*ldb+j0:][:w], b[(p+2)*ldb+j0:][:w], b[(p+3)*ldb+j0:][:w], a0, a1, a2, a3)
				}
				for ; p < p1; p++ {
					// a zero too: 0·Inf and 0·NaN are NaN
					axpy1(row, b[p*ldb+j0:][:w], a[i*ai+p*ap])
				}
			}
		}
	}
	return nil
}
