package ops

import (
	"fmt"

	"github.com/pipert/pipert/kernel"
)

// window holds the sliding-window attributes ONNX's Conv, ConvTranspose
// and pooling ops share, and computes their geometry. Spatial geometry is
// always held in three dimensions (depth, height, width): a 1-D or 2-D op
// has leading unit dimensions with kernel 1, stride 1 and no padding, so
// the device code has one form.
type window struct {
	op                         string
	autoPad                    string // NOTSET, SAME_UPPER, SAME_LOWER, VALID
	kernel, strides, dilations []int64
	pads                       []int64 // begins then ends
	ceil                       bool    // pools: ceil_mode
}

// parseWindow reads the attributes named in names (of kernel_shape,
// strides, dilations, pads, auto_pad, ceil_mode).
func parseWindow(op string, attrs kernel.Attrs) (window, error) {
	w := window{op: op}
	var err error
	if w.autoPad, err = autoPad(attrs); err != nil {
		return w, err
	}
	for _, a := range []struct {
		name string
		dst  *[]int64
	}{{"kernel_shape", &w.kernel}, {"strides", &w.strides}, {"dilations", &w.dilations}, {"pads", &w.pads}} {
		if *a.dst, err = attrs.Ints(a.name, nil); err != nil {
			return w, err
		}
		for _, v := range *a.dst {
			if v < 0 || v == 0 && a.name != "pads" {
				return w, fmt.Errorf("attribute %s %v: values must be positive", a.name, *a.dst)
			}
		}
	}
	if w.pads != nil && w.autoPad != "NOTSET" {
		return w, fmt.Errorf("attributes pads and auto_pad %s are exclusive", w.autoPad)
	}
	c, err := attrs.Int("ceil_mode", 0)
	if err != nil {
		return w, err
	}
	w.ceil = c != 0
	return w, nil
}

// autoPad reads attribute auto_pad: NOTSET (its default, and what an
// empty string, which exporters write, means, as onnxruntime reads it),
// SAME_UPPER, SAME_LOWER or VALID.
func autoPad(attrs kernel.Attrs) (string, error) {
	p, err := attrs.String("auto_pad", "NOTSET")
	if err != nil {
		return "", err
	}
	switch p {
	case "":
		return "NOTSET", nil
	case "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID":
		return p, nil
	}
	return "", fmt.Errorf("auto_pad %q (want NOTSET, SAME_UPPER, SAME_LOWER or VALID)", p)
}

// dims3 is a spatial extent, stride or offset per (depth, height, width).
type dims3 [3]int64

func (d dims3) prod() int64 { return d[0] * d[1] * d[2] }

// geom is the geometry of one sliding-window op on given shapes.
type geom struct {
	nd                int // spatial rank, 1 to 3
	in, k, out        dims3
	stride, dil, padB dims3
	padE              dims3
	n, c              int64 // batch and input channels
	group, m          int64 // Conv: groups and output channels
}

// attr returns attribute v for spatial axis i of nd, or def.
func attrAt(v []int64, i int, def int64) int64 {
	if v == nil {
		return def
	}
	return v[i]
}

// spatial checks x (rank 3 to 5) and the attribute lengths, and fills in,
// k, stride and dil. kernel is the kernel's spatial shape when the weights
// give it (Conv), else the kernel_shape attribute is required.
func (w *window) spatial(x kernel.Shape, kshape []int64) (geom, error) {
	var g geom
	r := x.Rank()
	if r < 3 || r > 5 {
		return g, fmt.Errorf("input X has shape %v: want rank 3 to 5 (N, C and 1 to 3 spatial dimensions)", x)
	}
	g.nd, g.n, g.c = r-2, x[0], x[1]
	if w.kernel != nil {
		if kshape != nil && !kernel.Shape(w.kernel).Equal(kshape) {
			return g, fmt.Errorf("kernel_shape %v differs from the weights' %v", w.kernel, kshape)
		}
		kshape = w.kernel
	}
	if kshape == nil {
		return g, fmt.Errorf("attribute kernel_shape is required")
	}
	for _, a := range [...]struct {
		name string
		v    []int64
	}{{"kernel_shape", kshape}, {"strides", w.strides}, {"dilations", w.dilations}} {
		if a.v != nil && len(a.v) != g.nd {
			return g, fmt.Errorf("%s %v: want %d values for input %v", a.name, a.v, g.nd, x)
		}
		for _, d := range a.v {
			if d > maxWindow {
				// The tiling's words hold at most this (readGeom).
				return g, fmt.Errorf("%s %v: a value above 2^31", a.name, a.v)
			}
		}
	}
	if w.pads != nil && len(w.pads) != 2*g.nd {
		return g, fmt.Errorf("pads %v: want %d values for input %v", w.pads, 2*g.nd, x)
	}
	for _, p := range w.pads {
		if p > maxWindow {
			// Padded extents must not overflow (nor the tiling's words).
			return g, fmt.Errorf("pads %v: a value above 2^31", w.pads)
		}
	}
	g.in, g.k, g.out, g.stride, g.dil = dims3{1, 1, 1}, dims3{1, 1, 1}, dims3{1, 1, 1}, dims3{1, 1, 1}, dims3{1, 1, 1}
	off := 3 - g.nd
	for i := range g.nd {
		if x[2+i] > maxWindow {
			return g, fmt.Errorf("input X has shape %v: a spatial dimension above 2^31", x)
		}
		g.in[off+i] = x[2+i]
		g.k[off+i] = kshape[i]
		g.stride[off+i] = attrAt(w.strides, i, 1)
		g.dil[off+i] = attrAt(w.dilations, i, 1)
	}
	return g, nil
}

// pool reports whether w is a pool's window (MaxPool, AveragePool, LpPool).
func (w *window) pool() bool {
	return w.op == "MaxPool" || w.op == "AveragePool" || w.op == "LpPool"
}

// forward fills padB, padE and out for a Conv or pool.
func (w *window) forward(g *geom) error {
	off := 3 - g.nd
	for i := range g.nd {
		a := off + i
		in, s := g.in[a], g.stride[a]
		ext := (g.k[a]-1)*g.dil[a] + 1
		switch w.autoPad {
		case "NOTSET":
			g.padB[a], g.padE[a] = attrAt(w.pads, i, 0), attrAt(w.pads, g.nd+i, 0)
		case "VALID":
		default:
			// ⌈in/stride⌉ outputs. The padding they need is negative when
			// the stride exceeds the window's extent: a Conv clamps it to
			// 0, a pool keeps it (its first window starts inside the
			// input), as onnxruntime computes them; the head is the
			// total's half truncated toward zero (SAME_LOWER: rounded
			// up), as there.
			out := ceilDiv(in, s)
			total := (out-1)*s + ext - in
			if !w.pool() {
				total = max(total, 0)
			}
			if w.autoPad == "SAME_UPPER" {
				g.padB[a] = total / 2
			} else {
				g.padB[a] = (total + 1) / 2
			}
			g.padE[a] = total - g.padB[a]
		}
		span := in + g.padB[a] + g.padE[a] - ext
		switch {
		case span >= 0:
		case w.pool() && span <= -s && span/s+1 == 0:
			// A pool's span/stride + 1 with the quotient truncated
			// toward zero, as onnxruntime and ONNX's shape inference
			// compute it: no window (an empty output).
			g.out[a] = 0
			continue
		case (w.ceil || w.pool()) && span > -s:
			// One window, reaching past the padded input: ceil_mode's
			// ⌈span/stride⌉ + 1, and a pool's span/stride + 1 truncated
			// as above (the operator text's floor would give none).
			g.out[a] = 1
			continue
		default:
			return fmt.Errorf("kernel extent %d exceeds padded input %d on spatial axis %d", ext, in+g.padB[a]+g.padE[a], i)
		}
		g.out[a] = span/s + 1
		if w.ceil && span%s != 0 {
			g.out[a]++
		}
	}
	return nil
}

// spatialShape returns [n, ch, out spatial...] of rank nd+2.
func (g *geom) spatialShape(ch int64) kernel.Shape {
	s := kernel.Shape{g.n, ch}
	for i := range g.nd {
		s = append(s, g.out[3-g.nd+i])
	}
	return s
}

// put writes the geometry words: n, c, m, group, then in, k, out, stride,
// dil, padB, padE (3 words each).
func (g *geom) put(e *encoder) {
	e.grow(geomWords)
	e.put(g.n)
	e.put(g.c)
	e.put(g.m)
	e.put(g.group)
	for _, d := range [...]dims3{g.in, g.k, g.out, g.stride, g.dil, g.padB, g.padE} {
		e.puts(d[:])
	}
}

const geomWords = 4 + 21

// maxWindow bounds a window's sizes, strides and dilations and an axis's
// extent in the tiling.
const maxWindow = 1 << 31

// readGeom reads the geometry words back.
func readGeom(d *decoder) (geom, error) {
	var g geom
	g.n, g.c, g.m, g.group = d.word(), d.word(), d.word(), d.word()
	for _, p := range [...]*dims3{&g.in, &g.k, &g.out, &g.stride, &g.dil, &g.padB, &g.padE} {
		for i := range p {
			p[i] = d.word()
		}
	}
	if err := d.err(); err != nil {
		return g, err
	}
	for _, p := range [...]dims3{g.in, g.k, g.out, g.stride, g.dil} {
		for _, v := range p {
			if v < 0 || v > maxWindow {
				return g, errTiling
			}
		}
	}
	return g, nil
}
