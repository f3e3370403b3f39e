package ops

import (
	"fmt"
	"math"

	"github.com/pipert/pipert/kernel"
)

// Resize's linear and cubic modes on uint8, int8 and int32. The arithmetic
// is onnxruntime's (CPU), which has a kernel for each layout of its own:
// coordinates, weights and sums in float32 (or fixed point), each result
// converted to the integer type as a C cast on x86-64 does (see castF32).

// Layouts of the integer interpolation.
const (
	intNCHW  = iota // rank 2, or rank 4 with the outer two axes kept: [B, H, W]
	intNHWC         // rank 4, axes 1 and 2 resized: [B, H, W, C]
	intNCDHW        // rank 3, or rank 5 with the outer two axes kept: [B, D, H, W]
)

// resizeIntScratch holds the integer path's per-run tables.
type resizeIntScratch struct {
	idx  [3][2][]int32   // per axis (depth, height, width): the two taps
	w    [3][2][]float32 // their float weights
	w10  [2][2][]int32   // fixed-point weights (×1024) of height and width
	org  [3][]float32    // the unclamped source coordinates
	aa   [3]aaAxis
	tmp  []byte
	tmp2 []byte
}

// aaAxis is an antialiasing filter along one axis.
type aaAxis struct {
	lo, hi []int64   // the taps [lo, hi) of each output coordinate
	oob    []int64   // the output coordinates outside the input
	wf     []float32 // weights, window per coordinate (int32 data)
	wi     []int32   // weights scaled by 2^22 (8-bit data)
	window int
	buf    []float32
}

// intLayout returns the layout the integer path uses for X and its float32
// scales, or an error naming what onnxruntime refuses.
func (k *resize) intLayout(x, y kernel.Shape, s []float32) (int, error) {
	r := len(x)
	cubic := k.mode == "cubic"
	computed := !x.Equal(y) && y.NumElements() > 0
	switch {
	case r == 2 || r == 4 && s[0] == 1 && s[1] == 1:
		if cubic && !k.antialias && computed {
			return 0, fmt.Errorf("mode cubic without antialias on integer X of shape %v: onnxruntime has no such kernel (it runs it on floats, and on [N,H,W,C] integers enlarged along H and W)", x)
		}
		return intNCHW, nil
	case r == 4 && s[0] == 1 && s[3] == 1:
		if cubic && !k.antialias && (s[1] < 1 || s[2] < 1) {
			return 0, fmt.Errorf("mode cubic without antialias shrinks [N,H,W,C] integer data: onnxruntime refuses")
		}
		return intNHWC, nil
	case !cubic && (r == 3 || r == 5 && s[0] == 1 && s[1] == 1):
		return intNCDHW, nil
	}
	if cubic {
		return 0, fmt.Errorf("mode cubic on integer X of rank %d with scales %v: want rank 2, or rank 4 with scales [1,1,h,w] (or [1,h,w,1])", r, s)
	}
	return 0, fmt.Errorf("mode linear on integer X of rank %d with scales %v: want rank 2 or 3, rank 4 with scales [1,1,h,w] or [1,h,w,1], or rank 5 with scales [1,1,d,h,w]", r, s)
}

// scales32 returns the float32 scales onnxruntime works with.
func scales32(dst []float32, scales []float64) []float32 {
	dst = dst[:0]
	for _, s := range scales {
		dst = append(dst, float32(s))
	}
	return dst
}

// castF32 converts v to dtype dt as onnxruntime's static_cast does on
// x86-64: truncation toward zero to int32 (NaN and values outside int32
// becoming −2^31), then the low bits.
func castF32(v float32, dt kernel.DType) int64 {
	i := int32(math.MinInt32)
	if v > -2147483904 && v < 2147483648 {
		i = int32(v)
	}
	switch dt {
	case kernel.Uint8:
		return int64(uint8(i))
	case kernel.Int8:
		return int64(int8(i))
	}
	return int64(i)
}

func loadRI(dt kernel.DType, b []byte, i int64) int32 {
	switch dt {
	case kernel.Uint8:
		return int32(b[i])
	case kernel.Int8:
		return int32(int8(b[i]))
	}
	return kernel.Int32s(b)[i]
}

func storeRI(dt kernel.DType, b []byte, i int64, v int64) {
	switch dt {
	case kernel.Uint8, kernel.Int8:
		b[i] = byte(v)
	default:
		kernel.Int32s(b)[i] = int32(v)
	}
}

// source32 is onnxruntime's coordinate transformation, in float32.
func (k *resize) source32(x, scale, outLen, inLen, start, end float32) float32 {
	switch k.coord {
	case "asymmetric":
		return x / scale
	case "pytorch_half_pixel":
		if outLen > 1 {
			return (x+0.5)/scale - 0.5
		}
		return 0
	case "tf_half_pixel_for_nn":
		return (x + 0.5) / scale
	case "align_corners":
		if outLen == 1 {
			return 0
		}
		return float32(x*(inLen-1)) / (outLen - 1)
	case "tf_crop_and_resize":
		if outLen > 1 {
			return float32(start*(inLen-1)) + float32(float32(x*(end-start))*(inLen-1))/(outLen-1)
		}
		return float32(float64(float32(0.5*float64(start+end))) * float64(inLen-1))
	case "half_pixel_symmetric":
		width := float32(scale * inLen)
		adj := outLen / width
		center := inLen / 2
		off := float32(center * (1 - adj))
		return float32(float64(off) + (float64(x)+0.5)/float64(scale) - 0.5)
	}
	return (x+0.5)/scale - 0.5
}

// linearAxis builds the two taps and weights of one axis (onnxruntime's
// bilinear set-up): the source coordinate clamped to [0, in−1], taps ⌊x'⌋
// and ⌊x'⌋+1 (both the last element at the edge, weights ½ each).
func (k *resize) linearAxis(a int, in, out int64, scale, start, end float32, fixed bool) {
	sc := &k.ints
	sc.idx[a][0], sc.idx[a][1] = grownInt32(sc.idx[a][0], int(out)), grownInt32(sc.idx[a][1], int(out))
	sc.w[a][0], sc.w[a][1] = grownF32(sc.w[a][0], int(out)), grownF32(sc.w[a][1], int(out))
	sc.org[a] = grownF32(sc.org[a], int(out))
	if fixed {
		sc.w10[a-1][0], sc.w10[a-1][1] = grownInt32(sc.w10[a-1][0], int(out)), grownInt32(sc.w10[a-1][1], int(out))
	}
	for x := range out {
		src := float32(x)
		if scale != 1 {
			src = k.source32(float32(x), scale, float32(out), float32(in), start, end)
		}
		sc.org[a][x] = src
		src = max(0, min(src, float32(in-1)))
		i1 := min(int32(src), int32(in-1))
		i2 := min(i1+1, int32(in-1))
		d1, d2 := float32(math.Abs(float64(src-float32(i1)))), float32(math.Abs(float64(src-float32(i2))))
		if i1 == i2 {
			d1, d2 = 0.5, 0.5
		}
		sc.idx[a][0][x], sc.idx[a][1][x] = i1, i2
		sc.w[a][0][x], sc.w[a][1][x] = d1, d2
		if fixed {
			s10 := int32(float32(src * 1024))
			f1 := s10 - i1*1024
			if f1 < 0 {
				f1 = -f1
			}
			if i1 == i2 {
				f1 = 512
			}
			sc.w10[a-1][0][x], sc.w10[a-1][1][x] = f1, 1024-f1
		}
	}
}

func grownInt32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

func grownF32(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

// outside reports whether a source coordinate lies outside [0, in−1].
func outside(src float32, in int64) bool { return !(src >= 0 && src <= float32(in-1)) } // NaN too

// computeInt computes Y from X of an integer dtype in linear or cubic mode.
func (k *resize) computeInt(a *kernel.Args, x, y *kernel.Tensor, scales []float64, starts, ends []float64) error {
	dt := x.DType
	xb, yb := x.Data(), y.Data()
	s := scales32(k.s32[:0], scales)
	k.s32 = s
	layout, err := k.intLayout(x.Shape, y.Shape, s)
	if err != nil {
		return err
	}
	if x.Shape.Equal(y.Shape) {
		copy(yb, xb)
		return nil
	}
	r := len(x.Shape)
	// The resized axes: depth, height, width (depth only for intNCDHW).
	var ax [3]int
	var b, c int64 = 1, 1
	switch layout {
	case intNCHW:
		ax = [3]int{-1, r - 2, r - 1}
		if r == 4 {
			b = x.Shape[0] * x.Shape[1]
		}
	case intNHWC:
		ax = [3]int{-1, 1, 2}
		b, c = x.Shape[0], x.Shape[3]
	case intNCDHW:
		ax = [3]int{r - 3, r - 2, r - 1}
		if r == 5 {
			b = x.Shape[0] * x.Shape[1]
		}
	}
	dim := func(sh kernel.Shape, a int) int64 {
		if ax[a] < 0 {
			return 1
		}
		return sh[ax[a]]
	}
	sca := func(a int) float32 {
		if ax[a] < 0 {
			return 1
		}
		return s[ax[a]]
	}
	roi := func(a int) (float32, float32) {
		if ax[a] < 0 {
			return 0, 1
		}
		return float32(starts[ax[a]]), float32(ends[ax[a]])
	}
	ext := castF32(float32(k.extrap), dt)
	useExt := k.coord == "tf_crop_and_resize"
	if k.antialias || k.mode == "cubic" {
		return k.antialiasInt(layout, dt, xb, yb, b, c, dim, sca, roi, x.Shape, y.Shape, useExt, ext)
	}
	iH, iW, oH, oW := dim(x.Shape, 1), dim(x.Shape, 2), dim(y.Shape, 1), dim(y.Shape, 2)
	fixed := layout == intNHWC && dt != kernel.Int32
	for a := range 3 {
		if a == 0 && layout != intNCDHW {
			continue
		}
		st, en := roi(a)
		k.linearAxis(a, dim(x.Shape, a), dim(y.Shape, a), sca(a), st, en, fixed && a > 0)
	}
	sc := &k.ints
	switch layout {
	case intNCHW:
		for p := range b {
			xo, yo := p*iH*iW, p*oH*oW
			for yy := range oH {
				if err := a.Err(); err != nil {
					return err // the run ended: a row at a time
				}
				for xx := range oW {
					o := yo + yy*oW + xx
					if useExt && (outside(sc.org[1][yy], iH) || outside(sc.org[2][xx], iW)) {
						storeRI(dt, yb, o, ext)
						continue
					}
					y1, y2 := int64(sc.idx[1][0][yy])*iW, int64(sc.idx[1][1][yy])*iW
					x1, x2 := int64(sc.idx[2][0][xx]), int64(sc.idx[2][1][xx])
					dy1, dy2 := sc.w[1][0][yy], sc.w[1][1][yy]
					dx1, dx2 := sc.w[2][0][xx], sc.w[2][1][xx]
					v11, v21 := float32(loadRI(dt, xb, xo+y1+x1)), float32(loadRI(dt, xb, xo+y1+x2))
					v12, v22 := float32(loadRI(dt, xb, xo+y2+x1)), float32(loadRI(dt, xb, xo+y2+x2))
					v := float32(float32(dx2*dy2)*v11) + float32(float32(dx1*dy2)*v21)
					v = float32(v+float32(float32(dx2*dy1)*v12)) + float32(float32(dx1*dy1)*v22)
					storeRI(dt, yb, o, castF32(v, dt))
				}
			}
		}
	case intNHWC:
		for n := range b {
			xo, yo := n*iH*iW*c, n*oH*oW*c
			for yy := range oH {
				if err := a.Err(); err != nil {
					return err
				}
				for xx := range oW {
					o := yo + (yy*oW+xx)*c
					if useExt && (outside(sc.org[1][yy], iH) || outside(sc.org[2][xx], iW)) {
						for ch := range c {
							storeRI(dt, yb, o+ch, ext)
						}
						continue
					}
					y1, y2 := int64(sc.idx[1][0][yy])*iW, int64(sc.idx[1][1][yy])*iW
					x1, x2 := int64(sc.idx[2][0][xx]), int64(sc.idx[2][1][xx])
					o11, o21, o12, o22 := xo+(y1+x1)*c, xo+(y1+x2)*c, xo+(y2+x1)*c, xo+(y2+x2)*c
					if fixed {
						dx1, dy1 := sc.w10[1][0][xx], sc.w10[0][0][yy]
						dx2, dy2 := 1024-dx1, 1024-dy1
						w11, w21, w12, w22 := dx2*dy2, dx1*dy2, dx2*dy1, dx1*dy1
						for ch := range c {
							v := w11*loadRI(dt, xb, o11+ch) + w21*loadRI(dt, xb, o21+ch) + w12*loadRI(dt, xb, o12+ch) + w22*loadRI(dt, xb, o22+ch)
							storeRI(dt, yb, o+ch, int64(v/(1<<20)))
						}
						continue
					}
					dy1, dy2 := sc.w[1][0][yy], sc.w[1][1][yy]
					dx1, dx2 := sc.w[2][0][xx], sc.w[2][1][xx]
					c11, c21, c12, c22 := float32(dx2*dy2), float32(dx1*dy2), float32(dx2*dy1), float32(dx1*dy1)
					for ch := range c {
						v := float32(c11*float32(loadRI(dt, xb, o11+ch))) + float32(c21*float32(loadRI(dt, xb, o21+ch)))
						v = float32(v+float32(c12*float32(loadRI(dt, xb, o12+ch)))) + float32(c22*float32(loadRI(dt, xb, o22+ch)))
						storeRI(dt, yb, o+ch, castF32(v, dt))
					}
				}
			}
		}
	case intNCDHW:
		iD, oD := dim(x.Shape, 0), dim(y.Shape, 0)
		for p := range b {
			xo, yo := p*iD*iH*iW, p*oD*oH*oW
			for zz := range oD {
				for yy := range oH {
					if err := a.Err(); err != nil {
						return err
					}
					for xx := range oW {
						o := yo + (zz*oH+yy)*oW + xx
						if useExt && (outside(sc.org[0][zz], iD) || outside(sc.org[1][yy], iH) || outside(sc.org[2][xx], iW)) {
							storeRI(dt, yb, o, ext)
							continue
						}
						var v float32
						for t := range 8 {
							zi, yi, xi := t>>2, t>>1&1, t&1
							off := (int64(sc.idx[0][zi][zz])*iH+int64(sc.idx[1][yi][yy]))*iW + int64(sc.idx[2][xi][xx])
							w := float32(float32(sc.w[2][1-xi][xx]*sc.w[1][1-yi][yy]) * sc.w[0][1-zi][zz])
							v = float32(v + float32(w*float32(loadRI(dt, xb, xo+off))))
						}
						storeRI(dt, yb, o, castF32(v, dt))
					}
				}
			}
		}
	}
	return nil
}

// aaBuild builds the antialiasing filter of one axis (onnxruntime's, in
// float32): support max(1, 1/scale)·(1 linear, 2 cubic) about the source
// coordinate's centre, weights normalised to sum 1, taps outside the input
// folded onto its edge (or dropped with exclude_outside); 2^22 fixed
// point for 8-bit data.
func (k *resize) aaBuild(f *aaAxis, in, out int64, rscale, start, end float32, eight bool) {
	size := float32(2)
	if k.mode == "cubic" {
		size = 4
	}
	scale := 1 / rscale
	support := size * 0.5
	inv := float32(1)
	if scale >= 1 {
		support = float32(size*0.5) * scale
		inv = 1 / scale
	}
	win := int(math.Ceil(float64(support)))*2 + 1
	f.window = win
	f.lo, f.hi = grownInts(f.lo, int(out)), grownInts(f.hi, int(out))
	f.oob = f.oob[:0]
	if eight {
		f.wi = grownInt32(f.wi, win*int(out))
	} else {
		f.wf = grownF32(f.wf, win*int(out))
	}
	f.buf = grownF32(f.buf, win)
	buf := f.buf
	for i := range out {
		src := float32(i)
		if scale != 1 {
			src = k.source32(float32(i), rscale, float32(out), float32(in), start, end)
		}
		center := 0.5 + src
		if center-0.5 < 0 || center-0.5 > float32(in-1) {
			f.oob = append(f.oob, i)
		}
		lo := int64(math.Floor(float64(center - support + 0.5)))
		hi := int64(math.Floor(float64(center + support + 0.5)))
		hi = lo + min(max(hi-lo, 0), int64(win))
		loCut, hiCut := min(max(lo, 0), in), min(max(hi, 0), in)
		if k.exclude {
			lo, hi = loCut, hiCut
		}
		f.lo[i], f.hi[i] = loCut, hiCut
		clear(buf)
		n := hi - lo
		var total float32
		for j := range n {
			u := float32(float32(float32(j+lo)-center)+0.5) * inv
			w := k.aaFilter32(u)
			buf[j] = w
			total += w
		}
		if !k.exclude && loCut < hiCut {
			neg := min(max(-lo, 0), n-1)
			for j := range neg {
				buf[neg] += buf[j]
			}
			bnd := min(max(n+lo-in, 0), n-1)
			for j := n - bnd; j < n; j++ {
				buf[n-bnd-1] += buf[j]
			}
			if neg|bnd > 0 {
				for j := range hiCut - loCut {
					buf[j] = buf[j+neg]
				}
			}
		}
		norm := float32(1)
		if total != 0 {
			norm = 1 / total
		}
		for j := range hiCut - loCut {
			v := float32(buf[j] * norm)
			if eight {
				f.wi[int(i)*win+int(j)] = int32(math.Round(float64(float32(v * (1 << 22)))))
			} else {
				f.wf[int(i)*win+int(j)] = v
			}
		}
	}
}

// aaFilter32 is the antialiasing filter in float32.
func (k *resize) aaFilter32(u float32) float32 {
	if u < 0 {
		u = -u
	}
	if k.mode == "linear" {
		if u < 1 {
			return 1 - u
		}
		return 0
	}
	a := float32(k.cubicA)
	switch {
	case u < 1:
		t := float32(float32(float32((a+2)*u)-(a+3)) * u)
		return float32(t*u) + 1
	case u < 2:
		t := float32(float32(float32(float32(u-5)*u)+8) * u)
		return float32(t-4) * a
	}
	return 0
}

// aaPass filters src [outer, in, inner] along its middle axis into dst
// [outer, out, inner]; an axis whose extent is kept is copied.
func aaPass(dt kernel.DType, f *aaAxis, src, dst []byte, outer, in, out, inner int64) {
	if in == out {
		copy(dst[:outer*out*inner*int64(dt.Size())], src)
		return
	}
	for o := range outer {
		for i := range out {
			lo, hi := f.lo[i], f.hi[i]
			base := int(i) * f.window
			for e := range inner {
				si := (o*in+lo)*inner + e
				di := (o*out+i)*inner + e
				if dt == kernel.Int32 {
					var acc float32
					for j := range hi - lo {
						acc += float32(float32(loadRI(dt, src, si+j*inner)) * f.wf[base+int(j)])
					}
					v := math.Round(float64(acc))
					storeRI(dt, dst, di, int64(min(max(v, math.MinInt32), math.MaxInt32)))
					continue
				}
				acc := int32(1 << 21)
				for j := range hi - lo {
					acc += loadRI(dt, src, si+j*inner) * f.wi[base+int(j)]
				}
				storeRI(dt, dst, di, int64(uint8(min(max(acc>>22, 0), 255))))
			}
		}
	}
}

func grownBytes(s []byte, n int64) []byte {
	if int64(cap(s)) < n {
		return make([]byte, n)
	}
	return s[:n]
}

// antialiasInt filters the integer X separably: width, then height, then
// depth, each pass's result in X's dtype; extrapolation_value is written
// last, at the positions onnxruntime writes it (for [N,H,W,C] data, as if
// the data were [N·C, H, W]).
func (k *resize) antialiasInt(layout int, dt kernel.DType, xb, yb []byte, b, c int64, dim func(kernel.Shape, int) int64,
	sca func(int) float32, roi func(int) (float32, float32), xs, ys kernel.Shape, useExt bool, ext int64) error {
	sc := &k.ints
	eight := dt != kernel.Int32
	for a := range 3 {
		st, en := roi(a)
		k.aaBuild(&sc.aa[a], dim(xs, a), dim(ys, a), sca(a), st, en, eight)
	}
	iD, iH, iW := dim(xs, 0), dim(xs, 1), dim(xs, 2)
	oD, oH, oW := dim(ys, 0), dim(ys, 1), dim(ys, 2)
	size := int64(dt.Size())
	sc.tmp = grownBytes(sc.tmp, b*iD*iH*oW*c*size)
	nc := b
	switch layout {
	case intNCHW:
		aaPass(dt, &sc.aa[2], xb, sc.tmp, b*iH, iW, oW, 1)
		aaPass(dt, &sc.aa[1], sc.tmp, yb, b, iH, oH, oW)
	case intNHWC:
		aaPass(dt, &sc.aa[2], xb, sc.tmp, b*iH, iW, oW, c)
		aaPass(dt, &sc.aa[1], sc.tmp, yb, b, iH, oH, oW*c)
		nc = b * c
	case intNCDHW:
		sc.tmp2 = grownBytes(sc.tmp2, b*iD*oH*oW*size)
		aaPass(dt, &sc.aa[2], xb, sc.tmp, b*iD*iH, iW, oW, 1)
		aaPass(dt, &sc.aa[1], sc.tmp, sc.tmp2, b*iD, iH, oH, oW)
		aaPass(dt, &sc.aa[0], sc.tmp2, yb, b, iD, oD, oH*oW)
	}
	if !useExt {
		return nil
	}
	for p := range nc {
		for z := range oD {
			for y := range oH {
				row := ((p*oD+z)*oH + y) * oW
				for _, x := range sc.aa[2].oob {
					storeRI(dt, yb, row+x, ext)
				}
			}
			for _, y := range sc.aa[1].oob {
				row := ((p*oD+z)*oH + y) * oW
				for x := range oW {
					storeRI(dt, yb, row+x, ext)
				}
			}
		}
		for _, z := range sc.aa[0].oob {
			plane := (p*oD + z) * oH * oW
			for i := range oH * oW {
				storeRI(dt, yb, plane+i, ext)
			}
		}
	}
	return nil
}
