package ops

import (
	"fmt"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// col2imOps holds ONNX's Col2Im (opset 18).
var col2imOps = []builtin{{"Col2Im", newCol2Im}}

// col2imOp is Col2Im(input, image_shape, block_shape) (dilations, pads,
// strides): the inverse of im2col, torch.nn.Fold over any number s ≥ 1 of
// spatial axes. input is [N, C·∏block_shape, L]; image_shape and
// block_shape are 1-D int64 (or int32) tensors of s values each, value
// dependencies; dilations and strides have s values (default 1),
// pads 2s, the begins then the ends (default 0). Along spatial axis i a
// block covers dilations[i]·(block_shape[i]−1)+1 elements of the padded
// image, and the blocks start every strides[i] elements, so there are
// b[i] = ⌊(image_shape[i]+pads[i]+pads[s+i] − dilations[i]·(block_shape[i]−1)
// − 1)/strides[i]⌋ + 1 of them; L must be ∏b[i], the blocks enumerated in
// row-major order. The output is [N, C, image_shape...]: each element of
// column c·∏block_shape + k (k the row-major index of the position within
// the block) of block l is added into the image element it covers;
// elements that fall in the padding are dropped, image elements no block
// covers are 0.
//
// The dtypes are ONNX's numeric ones among pipert's (float32, float16,
// bfloat16, float64 and the 8- to 64-bit integers). Floats are summed in
// float64, in block order, and each output is rounded once to its dtype;
// integers sum exactly, wrapping in two's complement.
//
// Tiling: split over the output elements (simple's words). Workspace:
// none (the kernel keeps a float64 or int64 buffer of one image). Cost:
// one addition per input element.
type col2imOp struct {
	dil, pads, strides []int64 // attributes; nil: the defaults
	// Scratch reused run after run: the accumulator of one image and the
	// odometers of the block position and of the block.
	accF       []float64
	accI       []int64
	kpos, lpos []int64
}

// col2imGeom is the geometry of one Col2Im: per spatial axis the image
// size, block size, dilation, begin padding, stride and block count.
type col2imGeom struct {
	n, c, kprod, l, pixels      int64
	img, blk, dil, pad, str, nb []int64
}

func newCol2Im(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("dilations", "pads", "strides"); err != nil {
		return nil, wrapAttr(err)
	}
	k := &col2imOp{}
	var err error
	if k.dil, err = attrs.Ints("dilations", nil); err != nil {
		return nil, wrapAttr(err)
	}
	if k.pads, err = attrs.Ints("pads", nil); err != nil {
		return nil, wrapAttr(err)
	}
	if k.strides, err = attrs.Ints("strides", nil); err != nil {
		return nil, wrapAttr(err)
	}
	for _, a := range []struct {
		name string
		v    []int64
		min  int64
	}{{"dilations", k.dil, 1}, {"pads", k.pads, 0}, {"strides", k.strides, 1}} {
		for _, x := range a.v {
			if x < a.min {
				return nil, fmt.Errorf("ops: Col2Im: attribute %s is %v: want values of at least %d", a.name, a.v, a.min)
			}
		}
	}
	return newKernel(sig{op: "Col2Im", minIn: 3, maxIn: 3, nOut: 1, deps: kernel.Deps{Value: []int{1, 2}}}, k), nil
}

// geom checks the operands and returns the geometry.
func (k *col2imOp) geom(in []*kernel.Tensor) (col2imGeom, error) {
	var g col2imGeom
	x := in[0]
	if err := dtypeIn(x, "input", onnxNumeric...); err != nil {
		return g, err
	}
	if x.Shape.Rank() != 3 {
		return g, fmt.Errorf("input has shape %v: want [N, C·∏block_shape, L]", x.Shape)
	}
	if in[1].Shape.Rank() != 1 || in[2].Shape.Rank() != 1 {
		return g, fmt.Errorf("image_shape %v and block_shape %v must be 1-D", in[1].Shape, in[2].Shape)
	}
	img, err := valueInts(in[1], "image_shape", 1)
	if err != nil {
		return g, err
	}
	blk, err := valueInts(in[2], "block_shape", 1)
	if err != nil {
		return g, err
	}
	s := img.n
	if s == 0 || blk.n != s {
		return g, fmt.Errorf("image_shape has %d values and block_shape %d: want the same number, at least 1", s, blk.n)
	}
	if k.dil != nil && len(k.dil) != s || k.strides != nil && len(k.strides) != s || k.pads != nil && len(k.pads) != 2*s {
		return g, fmt.Errorf("dilations %v, strides %v and pads %v: want %d, %d and %d values for %d spatial axes", k.dil, k.strides, k.pads, s, s, 2*s, s)
	}
	g.n = x.Shape[0]
	g.img, g.blk, g.dil, g.pad, g.str, g.nb = make([]int64, s), make([]int64, s), make([]int64, s), make([]int64, s), make([]int64, s), make([]int64, s)
	g.kprod, g.l, g.pixels = 1, 1, 1
	for i := range s {
		g.img[i], g.blk[i], g.dil[i], g.str[i] = img.at(i), blk.at(i), 1, 1
		if k.dil != nil {
			g.dil[i] = k.dil[i]
		}
		if k.strides != nil {
			g.str[i] = k.strides[i]
		}
		padded := g.img[i]
		if k.pads != nil {
			g.pad[i] = k.pads[i]
			padded += k.pads[i] + k.pads[s+i]
		}
		if g.img[i] < 1 || g.blk[i] < 1 {
			return g, fmt.Errorf("image_shape %v and block_shape %v: want positive values", valuesOf(img), valuesOf(blk))
		}
		span := g.dil[i]*(g.blk[i]-1) + 1
		if span > padded {
			return g, fmt.Errorf("axis %d: the block spans %d elements (block_shape %d, dilation %d), more than the padded image's %d", i, span, g.blk[i], g.dil[i], padded)
		}
		g.nb[i] = (padded-span)/g.str[i] + 1
		g.kprod *= g.blk[i]
		g.l *= g.nb[i]
		g.pixels *= g.img[i]
	}
	if x.Shape[1]%g.kprod != 0 {
		return g, fmt.Errorf("input has %d columns per block (dimension 1), not a multiple of ∏block_shape = %d", x.Shape[1], g.kprod)
	}
	g.c = x.Shape[1] / g.kprod
	if x.Shape[2] != g.l {
		return g, fmt.Errorf("input has %d blocks (dimension 2), but image_shape %v, block_shape %v, dilations, pads and strides give %v blocks per axis: %d in all",
			x.Shape[2], g.img, g.blk, g.nb, g.l)
	}
	return g, nil
}

// valuesOf lists the values of l, for errors.
func valuesOf(l ints) []int64 {
	out := make([]int64, l.n)
	for i := range out {
		out[i] = l.at(i)
	}
	return out
}

func (k *col2imOp) infer(in, out []*kernel.Tensor) error {
	g, err := k.geom(in)
	if err != nil {
		return err
	}
	s := append(kernel.Shape{g.n, g.c}, g.img...)
	setShape(out[0], s, in[0].DType)
	return nil
}

func (k *col2imOp) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	e.grow(splitWords)
	splitElems(out[0].NumElements(), out[0].DType.Size(), 4).put(e)
	return 0, nil
}

func (k *col2imOp) cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{FLOPs: float64(in[0].NumElements()), Bytes: float64(in[0].Bytes() + out[0].Bytes())}
}

func (k *col2imOp) compute(a *kernel.Args) error {
	d := decoder{b: a.Tiling.Data}
	if err := readSplit(&d, a.Out[0].NumElements()); err != nil {
		return err
	}
	g, err := k.geom(a.In)
	if err != nil {
		return err
	}
	x, o := a.In[0], a.Out[0]
	if o.DType != x.DType || o.NumElements() != g.n*g.c*g.pixels {
		return fmt.Errorf("output %v differs from the inferred one", o)
	}
	isFloat := x.DType.IsFloat()
	if isFloat {
		k.accF = grow(k.accF, g.pixels)
	} else {
		k.accI = grow(k.accI, g.pixels)
	}
	s := len(g.img)
	k.kpos, k.lpos = grow(k.kpos, int64(s)), grow(k.lpos, int64(s))
	xb, ob := x.Data(), o.Data()
	for img := range g.n * g.c {
		clear(k.accF)
		clear(k.accI)
		clear(k.kpos)
		col := img * g.kprod * g.l // the first input element of this image
		for range g.kprod {
			clear(k.lpos)
			for range g.l {
				off, inside := int64(0), true
				for i := range s {
					p := k.lpos[i]*g.str[i] - g.pad[i] + k.kpos[i]*g.dil[i]
					if p < 0 || p >= g.img[i] {
						inside = false
						break
					}
					off = off*g.img[i] + p
				}
				if inside {
					if isFloat {
						k.accF[off] += loadF(x.DType, xb, col)
					} else {
						k.accI[off] += loadI(x.DType, xb, col)
					}
				}
				col++
				odometer(k.lpos, g.nb)
			}
			odometer(k.kpos, g.blk)
		}
		base := img * g.pixels
		for p := range g.pixels {
			if isFloat {
				storeF(o.DType, ob, base+p, k.accF[p])
			} else {
				storeI(o.DType, ob, base+p, k.accI[p])
			}
		}
	}
	return nil
}

// grow returns b with length n, reusing its array when large enough.
func grow[T any](b []T, n int64) []T {
	if int64(cap(b)) < n {
		return make([]T, n)
	}
	return b[:n]
}

// odometer advances the row-major multi-index pos within dims by one
// (wrapping to all zeros after the last).
func odometer(pos, dims []int64) {
	for i := len(pos) - 1; i >= 0; i-- {
		if pos[i]++; pos[i] < dims[i] {
			return
		}
		pos[i] = 0
	}
}
