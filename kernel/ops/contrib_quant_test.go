package ops

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "QLinearAdd", "QLinearMul", "QLinearGlobalAveragePool", "QLinearAveragePool", "QLinearConcat", "QLinearSigmoid", "QLinearLeakyRelu", "QLinearSoftmax", "QGemm", "MatMulIntegerToFloat", "DynamicQuantizeMatMul", "DynamicQuantizeLSTM", "QLinearWhere", "QEmbedLayerNormalization")
}

// qVals reads an int8 or uint8 tensor.
func qVals(t *kernel.Tensor) []int64 {
	out := make([]int64, t.NumElements())
	for i := range out {
		out[i] = loadI(t.DType, t.Data(), int64(i))
	}
	return out
}

// f32s is a float32 scalar.
func f32s(v float32) *kernel.Tensor { return tensor(kernel.Float32, nil, float64(v)) }

// qs is an int8 or uint8 scalar.
func qs(dt kernel.DType, v int64) *kernel.Tensor { return qTensor(dt, nil, []int64{v}) }

// absent is the importer's omitted input.
func absent() *kernel.Tensor { return tensor(kernel.Float32, []int64{0}) }

// fmaRef is x·y + z rounded once to float32, exactly in big.Float.
// Non-finite operands follow IEEE arithmetic.
func fmaRef(x, y, z float32) float32 {
	for _, v := range []float32{x, y, z} {
		if math.IsInf(float64(v), 0) || math.IsNaN(float64(v)) {
			return float32(float64(x)*float64(y) + float64(z))
		}
	}
	// 600 bits hold any float32 product and sum exactly.
	const prec = 600
	p := new(big.Float).SetPrec(prec).Mul(big.NewFloat(float64(x)).SetPrec(prec), big.NewFloat(float64(y)).SetPrec(prec))
	p.Add(p, big.NewFloat(float64(z)).SetPrec(prec))
	f, _ := p.Float32()
	return f
}

func TestFMAF32RoundsOnce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(x, y, z float32) {
		if got, want := fmaF32(x, y, z), fmaRef(x, y, z); got != want && !(got == 0 && want == 0) {
			t.Fatalf("fmaF32(%g, %g, %g) = %g, want %g", x, y, z, got, want)
		}
	}
	// A product half an ulp of z away, with a tail: one rounding goes up,
	// two would tie to even.
	check(1+0x1p-23, 0x1p-24, 1)
	check(1+0x1p-23, -0x1p-25, 1)
	check(3, 1.0/3, -1)
	for range 200000 {
		x := math.Float32frombits(r.Uint32())
		y := float32(r.IntN(512) - 256)
		z := math.Float32frombits(r.Uint32())
		if math.IsNaN(float64(x)) || math.IsNaN(float64(z)) || math.IsInf(float64(x), 0) || math.IsInf(float64(z), 0) {
			continue
		}
		if e := math.Abs(float64(x) * float64(y)); e > math.MaxFloat32/2 {
			continue
		}
		check(x, y, z)
		// Operands of the sizes QLinearAdd meets.
		check(float32(r.IntN(384)-128), float32(r.Float64()*4), float32(r.Float64()*300-150))
	}
}

func TestQLinearAddHand(t *testing.T) {
	u, i8 := kernel.Uint8, kernel.Int8
	for _, c := range []struct {
		name           string
		a, b           *kernel.Tensor
		sa, sb, sc     float32
		za, zb, zc     *kernel.Tensor
		shape          []int64
		want           []int64
		wantMul, mulOK bool
	}{
		// 0.5·a + 0.5·b: ties to even (1.5 → 2, 0.5 → 0), saturation.
		{name: "ties", a: qTensor(u, []int64{4}, []int64{1, 3, 255, 0}), b: qTensor(u, []int64{4}, []int64{0, 0, 255, 5}),
			sa: 0.5, sb: 0.5, sc: 1, za: qs(u, 0), zb: qs(u, 0), zc: absent(), shape: []int64{4}, want: []int64{0, 2, 255, 2}},
		{name: "output zero point saturates", a: qTensor(u, []int64{2}, []int64{255, 0}), b: qTensor(u, []int64{2}, []int64{255, 0}),
			sa: 0.5, sb: 0.5, sc: 1, za: qs(u, 0), zb: qs(u, 0), zc: qs(u, 10), shape: []int64{2}, want: []int64{255, 10}},
		// int8, B a scalar over A.
		{name: "int8 scalar", a: qTensor(i8, []int64{2, 2}, []int64{-128, 127, 0, 1}), b: qs(i8, 5),
			sa: 1, sb: 1, sc: 1, za: qs(i8, 0), zb: qs(i8, 0), zc: qs(i8, 0), shape: []int64{2, 2}, want: []int64{-123, 127, 5, 6}},
		// Zero points: (a − 10)·0.25 + (b − (−4))·0.25 − 3.
		{name: "zero points broadcast", a: qTensor(i8, []int64{2, 1}, []int64{10, 30}), b: qTensor(i8, []int64{3}, []int64{-4, 0, 4}),
			sa: 0.25, sb: 0.25, sc: 1, za: qs(i8, 10), zb: qs(i8, -4), zc: qs(i8, -3), shape: []int64{2, 3}, want: []int64{-3, -2, -1, 2, 3, 4}},
		// A value beyond int32's range converts to int32's minimum, and so
		// saturates to 0 however large, as on x86.
		{name: "beyond int32", a: qTensor(u, []int64{2}, []int64{1, 0}), b: qTensor(u, []int64{2}, []int64{0, 0}),
			sa: 1, sb: 1, sc: 1e-30, za: absent(), zb: absent(), zc: qs(u, 7), shape: []int64{2}, want: []int64{0, 7}},
	} {
		y := mustRun(t, "QLinearAdd", nil, c.a, f32s(c.sa), c.za, c.b, f32s(c.sb), c.zb, f32s(c.sc), c.zc)
		if !y.Shape.Equal(c.shape) || y.DType != c.a.DType || !slices.Equal(qVals(y), c.want) {
			t.Errorf("%s: got %v %v %v, want %v %v", c.name, y.DType, y.Shape, qVals(y), kernel.Shape(c.shape), c.want)
		}
	}
}

func TestQLinearMulHand(t *testing.T) {
	u, i8 := kernel.Uint8, kernel.Int8
	// (a − 10)·(b − 1)·0.25 over [3, 1] × [2].
	y := mustRun(t, "QLinearMul", nil, qTensor(u, []int64{3, 1}, []int64{10, 20, 30}), f32s(0.5), qs(u, 10),
		qTensor(u, []int64{2}, []int64{3, 5}), f32s(0.5), qs(u, 1), f32s(1))
	if want := []int64{0, 0, 5, 10, 10, 20}; !y.Shape.Equal(kernel.Shape{3, 2}) || !slices.Equal(qVals(y), want) {
		t.Errorf("broadcast: got %v %v, want [3 2] %v", y.Shape, qVals(y), want)
	}
	// Ties after the output zero point (0.5 + 1 → 2, 1.5 + 1 → 2, −2.5 +
	// 1 → −2) and saturation.
	y = mustRun(t, "QLinearMul", nil, qTensor(i8, []int64{5}, []int64{1, 3, -5, 127, -128}), f32s(0.5), absent(),
		qTensor(i8, []int64{5}, []int64{2, 2, 2, 127, 127}), f32s(0.25), absent(), f32s(0.5), qs(i8, 1))
	if want := []int64{2, 2, -2, 127, -128}; !slices.Equal(qVals(y), want) {
		t.Errorf("int8: got %v, want %v", qVals(y), want)
	}
}

func TestORTBroadcastMode(t *testing.T) {
	for _, c := range []struct {
		a, b kernel.Shape
		want int
	}{
		{kernel.Shape{2, 3}, kernel.Shape{2, 3}, bcastGeneral},
		{kernel.Shape{2, 3}, kernel.Shape{3}, bcastGeneral},
		{kernel.Shape{2, 3}, kernel.Shape{2, 1}, bcastScalar1},
		{kernel.Shape{2, 1}, kernel.Shape{2, 3}, bcastScalar0},
		{kernel.Shape{}, kernel.Shape{3}, bcastScalar0},
		{kernel.Shape{3}, kernel.Shape{}, bcastScalar1},
		{kernel.Shape{1}, kernel.Shape{}, bcastScalar0},
		{kernel.Shape{}, kernel.Shape{}, bcastScalar0},
		{kernel.Shape{1}, kernel.Shape{1}, bcastScalar0},
		{kernel.Shape{2, 1, 1}, kernel.Shape{1, 3, 1}, bcastScalar0}, // the common trailing 1 is skipped
		{kernel.Shape{4, 1}, kernel.Shape{1}, bcastScalar0},          // the only common axis is 1 in both
		{kernel.Shape{2, 1, 4}, kernel.Shape{3, 1}, bcastScalar1},
	} {
		if got := ortBroadcastMode(c.a, c.b); got != c.want {
			t.Errorf("ortBroadcastMode(%v, %v) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// TestSpecialQLinearBinary: QLinearAdd and QLinearMul on every pair of
// int8/uint8 extremes with zero points at the extremes and scales from
// subnormal to huge, against a reference of their float32 steps (the
// fused multiply-adds in big.Float).
func TestSpecialQLinearBinary(t *testing.T) {
	scales := []float32{1, 0.5, 3, 0x1p-149, 1e-30, 1e30, 0.0078125}
	for _, dt := range qTypes {
		ex := qExtremes[dt]
		n := int64(len(ex))
		var av, bv []int64
		for _, x := range ex {
			for _, y := range ex {
				av, bv = append(av, x), append(bv, y)
			}
		}
		a, b := qTensor(dt, []int64{n, n}, av), qTensor(dt, []int64{n, n}, bv)
		for _, z := range [][3]int64{{0, 0, 0}, {ex[0], ex[len(ex)-1], ex[2]}} {
			for _, s := range [][3]float32{{1, 1, 1}, {scales[1], scales[6], scales[2]}, {scales[3], 1, scales[4]}, {scales[5], scales[5], 1}, {1, scales[4], scales[3]}} {
				in := []*kernel.Tensor{a, f32s(s[0]), qs(dt, z[0]), b, f32s(s[1]), qs(dt, z[1]), f32s(s[2]), qs(dt, z[2])}
				add, mul := mustRun(t, "QLinearAdd", nil, in...), mustRun(t, "QLinearMul", nil, in...)
				rx, rw := s[0]/s[2], s[1]/s[2]
				fixed := float32(z[2]) - fmaRef(rx, float32(z[0]), rw*float32(z[1]))
				ratio := s[0] * s[1]
				ratio /= s[2]
				for i := range av {
					wantAdd := packSat(dt, cvtRound(float64(fmaRef(float32(av[i]), rx, fmaRef(float32(bv[i]), rw, fixed)))))
					p := float32((av[i] - z[0]) * (bv[i] - z[1]))
					wantMul := packSat(dt, cvtRound(float64(p*ratio+float32(z[2]))))
					if g := qVals(add)[i]; g != wantAdd {
						t.Errorf("%v QLinearAdd(%d, %d) zero points %v scales %v: got %d, want %d", dt, av[i], bv[i], z, s, g, wantAdd)
					}
					if g := qVals(mul)[i]; g != wantMul {
						t.Errorf("%v QLinearMul(%d, %d) zero points %v scales %v: got %d, want %d", dt, av[i], bv[i], z, s, g, wantMul)
					}
				}
			}
		}
	}
}

func TestQLinearBinaryErrors(t *testing.T) {
	u, i8 := kernel.Uint8, kernel.Int8
	a := qTensor(u, []int64{2}, []int64{1, 2})
	one := f32s(1)
	ok := func() []*kernel.Tensor {
		return []*kernel.Tensor{a, one, qs(u, 0), a, one, qs(u, 0), one, qs(u, 0)}
	}
	with := func(i int, t *kernel.Tensor) []*kernel.Tensor {
		in := ok()
		in[i] = t
		return in
	}
	for _, op := range []string{"QLinearAdd", "QLinearMul"} {
		wantErr(t, op, nil, ok()[:6], "inputs")
		wantErr(t, op, nil, with(0, tensor(kernel.Float32, []int64{2}, 1, 2)), "input A has dtype float32")
		wantErr(t, op, nil, with(3, qTensor(i8, []int64{2}, []int64{1, 2})), "B")
		wantErr(t, op, nil, with(1, tensor(kernel.Float64, nil, 1)), "input A_scale has dtype float64")
		wantErr(t, op, nil, with(4, tensor(kernel.Float32, []int64{2}, 1, 1)), "input B_scale [2]: want a scalar or a 1-element vector")
		wantErr(t, op, nil, with(6, tensor(kernel.Float32, []int64{1, 1}, 1)), "input C_scale [1,1]")
		wantErr(t, op, nil, with(2, qs(i8, 0)), "input A_zero_point has dtype int8, want the data's dtype uint8")
		wantErr(t, op, nil, with(5, qTensor(u, []int64{2}, []int64{0, 0})), "input B_zero_point [2]")
		wantErr(t, op, nil, with(7, tensor(kernel.Int32, nil, 0)), "input C_zero_point has dtype int32")
		wantErr(t, op, nil, with(3, qTensor(u, []int64{3}, []int64{1, 2, 3})), "do not broadcast")
		// A 1-element vector is a scale, as onnxruntime's kernel takes it.
		mustRun(t, op, nil, with(1, tensor(kernel.Float32, []int64{1}, 1))...)
	}
}

func TestQLinearGlobalAveragePoolHand(t *testing.T) {
	u, i8 := kernel.Uint8, kernel.Int8
	one := f32s(1)
	for _, c := range []struct {
		name   string
		x      *kernel.Tensor
		attrs  kernel.Attrs
		xs, ys float32
		xz, yz int64
		shape  []int64
		want   []int64
	}{
		// Means 7/3 and 31/3, through the float32 scale 1/3.
		{name: "nchw", x: qTensor(u, []int64{1, 2, 3}, []int64{1, 2, 4, 10, 10, 11}), xs: 1, ys: 1, shape: []int64{1, 2, 1}, want: []int64{2, 10}},
		// Channels last: means 1.5 and 3.5, ties to even.
		{name: "nhwc ties", x: qTensor(u, []int64{1, 2, 2}, []int64{1, 3, 2, 4}), attrs: kernel.Attrs{"channels_last": int64(1)}, xs: 1, ys: 1, shape: []int64{1, 1, 2}, want: []int64{2, 4}},
		// Zero points: (x − 5)·2 mean, then + 100 (saturates at 127 for
		// the second channel).
		{name: "int8 zero points", x: qTensor(i8, []int64{2, 1, 2, 1}, []int64{5, 7, 100, 127}), xs: 2, ys: 1, xz: 5, yz: 100, shape: []int64{2, 1, 1, 1}, want: []int64{102, 127}},
		{name: "int8 low saturation", x: qTensor(i8, []int64{1, 1, 2}, []int64{-128, -128}), xs: 1, ys: 1, yz: -100, shape: []int64{1, 1, 1}, want: []int64{-128}},
	} {
		dt := c.x.DType
		y := mustRun(t, "QLinearGlobalAveragePool", c.attrs, c.x, f32s(c.xs), qs(dt, c.xz), f32s(c.ys), qs(dt, c.yz))
		if !y.Shape.Equal(c.shape) || !slices.Equal(qVals(y), c.want) {
			t.Errorf("%s: got %v %v, want %v %v", c.name, y.Shape, qVals(y), kernel.Shape(c.shape), c.want)
		}
	}
	x := qTensor(u, []int64{1, 1, 2}, []int64{1, 2})
	ok := func() []*kernel.Tensor { return []*kernel.Tensor{x, one, qs(u, 0), one, qs(u, 0)} }
	with := func(i int, t *kernel.Tensor) []*kernel.Tensor {
		in := ok()
		in[i] = t
		return in
	}
	op := "QLinearGlobalAveragePool"
	wantErr(t, op, nil, ok()[:4], "inputs")
	wantErr(t, op, nil, with(0, qTensor(u, []int64{1, 2}, []int64{1, 2})), "want rank 3 or more")
	wantErr(t, op, nil, with(0, tensor(kernel.Float32, []int64{1, 1, 2}, 1, 2)), "input X has dtype float32")
	wantErr(t, op, nil, with(2, absent()), "input x_zero_point is required")
	wantErr(t, op, nil, with(4, qs(i8, 0)), "input y_zero_point has dtype int8")
	wantErr(t, op, nil, with(3, tensor(kernel.Float32, []int64{2}, 1, 1)), "input y_scale [2]")
	wantErr(t, op, nil, with(1, f32s(1000)), "want a scale in [2^-32, 256)")
	wantErr(t, op, nil, with(1, f32s(-1)), "want a scale in [2^-32, 256)")
	wantErr(t, op, kernel.Attrs{"channels_last": "x"}, ok(), "channels_last")
}

// TestSpecialQLinearGlobalAveragePool: every int8/uint8 extreme as each
// pixel of a 2-pixel image, zero points at the extremes, against the
// int32 sum requantized in float32.
func TestSpecialQLinearGlobalAveragePool(t *testing.T) {
	for _, dt := range qTypes {
		ex := qExtremes[dt]
		var xv []int64
		for _, a := range ex {
			for _, b := range ex {
				xv = append(xv, a, b)
			}
		}
		c := int64(len(xv) / 2)
		x := qTensor(dt, []int64{1, c, 2}, xv)
		for _, xz := range ex {
			for _, yz := range []int64{ex[0], ex[len(ex)-1], 0} {
				for _, sc := range [][2]float32{{1, 1}, {0.5, 3}, {1e-3, 1e-5}, {200, 1}, {3e-9, 1}} {
					y := mustRun(t, "QLinearGlobalAveragePool", nil, x, f32s(sc[0]), qs(dt, xz), f32s(sc[1]), qs(dt, yz))
					scale := sc[0] / float32(sc[1]*2)
					lo, hi := qRange(dt)
					for ch := range c {
						acc := float32(xv[2*ch] + xv[2*ch+1] - 2*xz)
						v := math.RoundToEven(float64(acc*scale)) + float64(yz)
						want := int64(math.Max(float64(lo), math.Min(float64(hi), v)))
						if g := qVals(y)[ch]; g != want {
							t.Errorf("%v (%d, %d) zero points %d, %d scales %v: got %d, want %d", dt, xv[2*ch], xv[2*ch+1], xz, yz, sc, g, want)
						}
					}
				}
			}
		}
	}
}

func TestQLinearAveragePoolHand(t *testing.T) {
	u, i8 := kernel.Uint8, kernel.Int8
	for _, c := range []struct {
		name   string
		x      *kernel.Tensor
		attrs  kernel.Attrs
		xs, ys float32
		xz, yz int64
		shape  []int64
		want   []int64
	}{
		{name: "ties", x: qTensor(u, []int64{1, 1, 4}, []int64{1, 2, 3, 4}), attrs: kernel.Attrs{"kernel_shape": []int64{2}, "strides": []int64{2}},
			xs: 1, ys: 1, shape: []int64{1, 1, 2}, want: []int64{2, 4}},
		{name: "pads", x: qTensor(u, []int64{1, 1, 3}, []int64{3, 6, 9}), attrs: kernel.Attrs{"kernel_shape": []int64{3}, "pads": []int64{1, 1}},
			xs: 1, ys: 1, shape: []int64{1, 1, 3}, want: []int64{4, 6, 8}},
		{name: "count_include_pad", x: qTensor(u, []int64{1, 1, 3}, []int64{3, 6, 9}), attrs: kernel.Attrs{"kernel_shape": []int64{3}, "pads": []int64{1, 1}, "count_include_pad": int64(1)},
			xs: 1, ys: 1, shape: []int64{1, 1, 3}, want: []int64{3, 6, 5}},
		// ceil_mode: a third window of one element.
		{name: "ceil_mode", x: qTensor(u, []int64{1, 1, 5}, []int64{2, 4, 6, 8, 10}), attrs: kernel.Attrs{"kernel_shape": []int64{2}, "strides": []int64{2}, "ceil_mode": int64(1)},
			xs: 1, ys: 1, shape: []int64{1, 1, 3}, want: []int64{3, 7, 10}},
		{name: "channels_last", x: qTensor(u, []int64{1, 1, 3, 2}, []int64{1, 10, 3, 20, 5, 30}), attrs: kernel.Attrs{"kernel_shape": []int64{1, 2}, "channels_last": int64(1)},
			xs: 1, ys: 1, shape: []int64{1, 1, 2, 2}, want: []int64{2, 15, 4, 25}},
		// The whole image: as QLinearGlobalAveragePool, 11/4 → 3.
		{name: "global", x: qTensor(u, []int64{1, 1, 2, 2}, []int64{1, 2, 3, 5}), attrs: kernel.Attrs{"kernel_shape": []int64{2, 2}},
			xs: 1, ys: 1, shape: []int64{1, 1, 1, 1}, want: []int64{3}},
		// 0.5·(x − 1)/0.25 + 3, saturated.
		{name: "zero points", x: qTensor(i8, []int64{1, 1, 3}, []int64{-128, 127, 4}), attrs: kernel.Attrs{"kernel_shape": []int64{1}},
			xs: 0.5, ys: 0.25, xz: 1, yz: 3, shape: []int64{1, 1, 3}, want: []int64{-128, 127, 9}},
	} {
		dt := c.x.DType
		y := mustRun(t, "QLinearAveragePool", c.attrs, c.x, f32s(c.xs), qs(dt, c.xz), f32s(c.ys), qs(dt, c.yz))
		if !y.Shape.Equal(c.shape) || !slices.Equal(qVals(y), c.want) {
			t.Errorf("%s: got %v %v, want %v %v", c.name, y.Shape, qVals(y), kernel.Shape(c.shape), c.want)
		}
	}
	// y_zero_point may be omitted.
	y := mustRun(t, "QLinearAveragePool", kernel.Attrs{"kernel_shape": []int64{1}}, qTensor(u, []int64{1, 1, 1}, []int64{7}), f32s(1), qs(u, 0), f32s(1))
	if g := qVals(y); !slices.Equal(g, []int64{7}) {
		t.Errorf("no y_zero_point: got %v, want [7]", g)
	}
}

func TestQLinearAveragePoolErrors(t *testing.T) {
	u, i8 := kernel.Uint8, kernel.Int8
	op := "QLinearAveragePool"
	k1 := kernel.Attrs{"kernel_shape": []int64{1}}
	x := qTensor(u, []int64{1, 1, 3}, []int64{1, 2, 3})
	one := f32s(1)
	ok := func() []*kernel.Tensor { return []*kernel.Tensor{x, one, qs(u, 0), one, qs(u, 0)} }
	with := func(i int, t *kernel.Tensor) []*kernel.Tensor {
		in := ok()
		in[i] = t
		return in
	}
	for _, c := range []struct {
		attrs kernel.Attrs
		frag  string
	}{
		{kernel.Attrs{}, "kernel_shape"},
		{kernel.Attrs{"kernel_shape": []int64{1, 1, 1, 1}}, "want 1 to 3 values"},
		{kernel.Attrs{"kernel_shape": []int64{0}}, "want positive values"},
		{kernel.Attrs{"kernel_shape": []int64{2}, "dilations": []int64{2}}, "only 1 is implemented"},
		{kernel.Attrs{"kernel_shape": []int64{2}, "pads": []int64{2, 0}}, "want each in [0, kernel)"},
		{kernel.Attrs{"kernel_shape": []int64{2}, "pads": []int64{1}}, "want 2 values"},
		{kernel.Attrs{"kernel_shape": []int64{2}, "strides": []int64{0}}, "strides"},
		{kernel.Attrs{"kernel_shape": []int64{2}, "auto_pad": "SAME"}, "auto_pad"},
		{kernel.Attrs{"kernel_shape": []int64{2}, "ceil_mode": "x"}, "ceil_mode"},
	} {
		if _, err := Builtins().New(op, c.attrs); err == nil || !strings.Contains(err.Error(), c.frag) {
			t.Errorf("%v: error %v, want one containing %q", c.attrs, err, c.frag)
		}
	}
	wantErr(t, op, k1, ok()[:3], "inputs")
	wantErr(t, op, kernel.Attrs{"kernel_shape": []int64{1, 1}}, ok(), "want rank 4")
	wantErr(t, op, kernel.Attrs{"kernel_shape": []int64{3}}, with(0, qTensor(u, []int64{1, 1, 1}, []int64{1})), "negative output size")
	wantErr(t, op, k1, with(0, tensor(kernel.Float32, []int64{1, 1, 3}, 1, 2, 3)), "input X has dtype float32")
	wantErr(t, op, k1, with(2, qs(i8, 0)), "input x_zero_point has dtype int8")
	wantErr(t, op, k1, with(3, tensor(kernel.Float32, []int64{2}, 1, 1)), "input y_scale [2]")
	// The whole image through the global path: its scale range.
	wantErr(t, op, kernel.Attrs{"kernel_shape": []int64{3}}, with(1, f32s(1e6)), "want a scale in [2^-32, 256)")
}

// TestSpecialQLinearAveragePool: windows of two int8/uint8 extremes with
// zero points at the extremes, against the float32 steps of the
// dequantized mean.
func TestSpecialQLinearAveragePool(t *testing.T) {
	for _, dt := range qTypes {
		ex := qExtremes[dt]
		var xv []int64
		for _, a := range ex {
			for _, b := range ex {
				xv = append(xv, a, b, a)
			}
		}
		c := int64(len(xv) / 3)
		x := qTensor(dt, []int64{1, c, 3}, xv)
		lo, hi := qRange(dt)
		for _, xz := range ex {
			for _, yz := range []int64{ex[0], ex[len(ex)-1], 0} {
				for _, sc := range [][2]float32{{1, 1}, {0.5, 3}, {1e-3, 1e-5}, {0x1p-149, 1}, {1e30, 1e-30}} {
					y := mustRun(t, "QLinearAveragePool", kernel.Attrs{"kernel_shape": []int64{2}}, x, f32s(sc[0]), qs(dt, xz), f32s(sc[1]), qs(dt, yz))
					for ch := range c {
						for o := range int64(2) {
							a, b := xv[3*ch+o], xv[3*ch+o+1]
							mean := (float32(sc[0]*float32(a-xz)) + float32(sc[0]*float32(b-xz))) / 2
							v := float64(mean/sc[1] + float32(yz))
							var want int64
							if r := math.RoundToEven(v); !(r >= -2147483648 && r < 2147483648) {
								want = lo
							} else {
								want = int64(math.Max(float64(lo), math.Min(float64(hi), r)))
							}
							if g := qVals(y)[2*ch+o]; g != want {
								t.Errorf("%v (%d, %d) zero points %d, %d scales %v: got %d, want %d", dt, a, b, xz, yz, sc, g, want)
							}
						}
					}
				}
			}
		}
	}
}

func TestQLinearConcat(t *testing.T) {
	u, i8 := kernel.Uint8, kernel.Int8
	ax := func(a int64) kernel.Attrs { return kernel.Attrs{"axis": a} }
	// X1 copied (Y's scale and zero point), X2 0.5·(x − 1), X3 0.5·x
	// (ties to even: 1.5 → 2, 2.5 → 2).
	y := mustRun(t, "QLinearConcat", ax(-1), f32s(1), qs(u, 0),
		qTensor(u, []int64{1, 2}, []int64{10, 20}), f32s(1), qs(u, 0),
		qTensor(u, []int64{1, 1}, []int64{7}), f32s(0.5), qs(u, 1),
		qTensor(u, []int64{1, 2}, []int64{3, 5}), f32s(0.5), qs(u, 0))
	if want := []int64{10, 20, 3, 2, 2}; !y.Shape.Equal(kernel.Shape{1, 5}) || !slices.Equal(qVals(y), want) {
		t.Errorf("uint8: got %v %v, want [1 5] %v", y.Shape, qVals(y), want)
	}
	// int8 along axis 0, saturating, with Y's zero point.
	y = mustRun(t, "QLinearConcat", ax(0), f32s(1), qs(i8, -3),
		qTensor(i8, []int64{1, 2}, []int64{100, -100}), f32s(4), qs(i8, 0),
		qTensor(i8, []int64{1, 2}, []int64{5, -128}), f32s(1), qs(i8, 2))
	if want := []int64{127, -128, 0, -128}; !y.Shape.Equal(kernel.Shape{2, 2}) || !slices.Equal(qVals(y), want) {
		t.Errorf("int8: got %v %v, want [2 2] %v", y.Shape, qVals(y), want)
	}
	op := "QLinearConcat"
	x := qTensor(u, []int64{1, 2}, []int64{1, 2})
	ok := func() []*kernel.Tensor { return []*kernel.Tensor{f32s(1), qs(u, 0), x, f32s(1), qs(u, 0)} }
	with := func(i int, t *kernel.Tensor) []*kernel.Tensor {
		in := ok()
		in[i] = t
		return in
	}
	if _, err := Builtins().New(op, nil); err == nil || !strings.Contains(err.Error(), "axis is required") {
		t.Errorf("no axis: error %v", err)
	}
	wantErr(t, op, ax(0), ok()[:4], "inputs")
	wantErr(t, op, ax(0), append(ok(), x), "triples")
	wantErr(t, op, ax(2), ok(), "attribute axis 2: out of range")
	wantErr(t, op, ax(0), with(1, absent()), "input Y_zero_point is required")
	wantErr(t, op, ax(0), with(1, tensor(kernel.Int32, nil, 0)), "input Y_zero_point has dtype int32")
	wantErr(t, op, ax(0), with(2, qTensor(i8, []int64{1, 2}, []int64{1, 2})), "input X1 has dtype int8")
	wantErr(t, op, ax(0), with(4, qs(i8, 0)), "input X1_zero_point has dtype int8")
	wantErr(t, op, ax(0), with(4, absent()), "input X1_zero_point is required")
	wantErr(t, op, ax(0), with(3, tensor(kernel.Float64, nil, 1)), "input X1_scale has dtype float64")
	wantErr(t, op, ax(0), with(0, tensor(kernel.Float32, []int64{2}, 1, 1)), "input Y_scale [2]")
	wantErr(t, op, ax(0), append(ok(), qTensor(u, []int64{1, 3}, []int64{1, 2, 3}), f32s(1), qs(u, 0)), "want X1's dimensions")
	wantErr(t, op, ax(0), append(ok(), qTensor(u, []int64{2}, []int64{1, 2}), f32s(1), qs(u, 0)), "want rank 2")
}

func TestQLinearLookupOps(t *testing.T) {
	u, i8 := kernel.Uint8, kernel.Int8
	// LeakyRelu of 0.5·(x − 10) with alpha 0.5, requantized by 0.25
	// around 100.
	y := mustRun(t, "QLinearLeakyRelu", kernel.Attrs{"alpha": 0.5}, qTensor(u, []int64{3}, []int64{0, 10, 20}), f32s(0.5), qs(u, 10), f32s(0.25), qs(u, 100))
	if want := []int64{90, 100, 120}; !slices.Equal(qVals(y), want) {
		t.Errorf("QLinearLeakyRelu: got %v, want %v", qVals(y), want)
	}
	// Sigmoid: 0 → 0.5 → 128; large → 1 → 256, saturated; int8 at −128
	// → ~1.5e-8 → the output zero point; zero points omitted.
	y = mustRun(t, "QLinearSigmoid", nil, qTensor(u, []int64{1, 3}, []int64{0, 255, 128}), f32s(1), absent(), f32s(1.0/256))
	if want := []int64{128, 255, 255}; !y.Shape.Equal(kernel.Shape{1, 3}) || !slices.Equal(qVals(y), want) {
		t.Errorf("QLinearSigmoid uint8: got %v %v, want [1 3] %v", y.Shape, qVals(y), want)
	}
	y = mustRun(t, "QLinearSigmoid", nil, qTensor(i8, []int64{2}, []int64{-128, 0}), f32s(1), qs(i8, 0), f32s(1.0/256), qs(i8, -128))
	if want := []int64{-128, 0}; !slices.Equal(qVals(y), want) {
		t.Errorf("QLinearSigmoid int8: got %v, want %v", qVals(y), want)
	}
	// MLAS's approximation stays within float32 rounding of the logistic
	// function, saturating beyond ±18.
	for v := float32(-20); v <= 20; v += 0.125 {
		want := 1 / (1 + math.Exp(-float64(min(max(v, -18), 18))))
		if g := mlasSigmoid(v); math.Abs(float64(g)-want) > 2e-7 {
			t.Errorf("mlasSigmoid(%g) = %g, want %g", v, g, want)
		}
	}
	if g := mlasSigmoid(0); g != 0.5 {
		t.Errorf("mlasSigmoid(0) = %g, want 0.5", g)
	}
	x := qTensor(u, []int64{2}, []int64{1, 2})
	one := f32s(1)
	for _, op := range []string{"QLinearSigmoid", "QLinearLeakyRelu"} {
		ok := func() []*kernel.Tensor { return []*kernel.Tensor{x, one, qs(u, 0), one, qs(u, 0)} }
		with := func(i int, t *kernel.Tensor) []*kernel.Tensor {
			in := ok()
			in[i] = t
			return in
		}
		wantErr(t, op, nil, ok()[:3], "inputs")
		wantErr(t, op, nil, with(0, tensor(kernel.Float32, []int64{2}, 1, 2)), "input X has dtype float32")
		wantErr(t, op, nil, with(1, tensor(kernel.Float32, []int64{2}, 1, 1)), "input X_scale [2]")
		wantErr(t, op, nil, with(3, tensor(kernel.Int8, nil, 1)), "input Y_scale has dtype int8")
		wantErr(t, op, nil, with(2, qs(i8, 0)), "input X_zero_point has dtype int8")
		wantErr(t, op, nil, with(4, qTensor(u, []int64{2}, []int64{0, 0})), "input Y_zero_point [2]")
	}
	wantErr(t, "QLinearLeakyRelu", kernel.Attrs{"alpha": "x"}, []*kernel.Tensor{x, one, qs(u, 0), one}, "alpha")
	if _, err := Builtins().New("QLinearSigmoid", kernel.Attrs{"alpha": 0.5}); err == nil {
		t.Error("QLinearSigmoid took attribute alpha")
	}
}

func TestQLinearSoftmax(t *testing.T) {
	u, i8 := kernel.Uint8, kernel.Int8
	op := "QLinearSoftmax"
	ys := f32s(1.0 / 256)
	for _, c := range []struct {
		name  string
		x     *kernel.Tensor
		attrs kernel.Attrs
		yz    int64
		want  []int64
	}{
		// Equal entries: 256·e/(2e) = 128 exactly.
		{name: "halves", x: qTensor(u, []int64{1, 2}, []int64{255, 255}), attrs: kernel.Attrs{"opset": int64(13)}, want: []int64{128, 128}},
		{name: "int8 quarters", x: qTensor(i8, []int64{4}, []int64{127, 127, 127, 127}), attrs: kernel.Attrs{"opset": int64(13)}, yz: -128, want: []int64{-64, -64, -64, -64}},
		// exp(−255) underflows to 0; 256 saturates at 255.
		{name: "saturate", x: qTensor(u, []int64{2}, []int64{0, 255}), attrs: kernel.Attrs{"opset": int64(13)}, want: []int64{0, 255}},
		// Along axis 0 from opset 13, over the flattened tensor before.
		{name: "axis 0 opset 13", x: qTensor(u, []int64{2, 2}, []int64{255, 0, 0, 0}), attrs: kernel.Attrs{"opset": int64(13), "axis": int64(0)}, want: []int64{255, 128, 0, 128}},
		{name: "axis 0 opset 12", x: qTensor(u, []int64{2, 2}, []int64{255, 0, 0, 0}), attrs: kernel.Attrs{"opset": int64(12), "axis": int64(0)}, want: []int64{255, 0, 0, 0}},
	} {
		dt := c.x.DType
		y := mustRun(t, op, c.attrs, c.x, f32s(1), qs(dt, 0), ys, qs(dt, c.yz))
		if !y.Shape.Equal(c.x.Shape) || !slices.Equal(qVals(y), c.want) {
			t.Errorf("%s: got %v %v, want %v %v", c.name, y.Shape, qVals(y), c.x.Shape, c.want)
		}
	}
	if _, err := Builtins().New(op, nil); err == nil || !strings.Contains(err.Error(), "opset is required") {
		t.Errorf("no opset: error %v", err)
	}
	a13 := kernel.Attrs{"opset": int64(13)}
	x := qTensor(u, []int64{2}, []int64{1, 2})
	one := f32s(1)
	ok := func() []*kernel.Tensor { return []*kernel.Tensor{x, one, qs(u, 0), one, qs(u, 0)} }
	with := func(i int, t *kernel.Tensor) []*kernel.Tensor {
		in := ok()
		in[i] = t
		return in
	}
	wantErr(t, op, a13, ok()[:3], "inputs")
	wantErr(t, op, kernel.Attrs{"opset": int64(13), "axis": int64(1)}, ok(), "attribute axis 1: out of range")
	wantErr(t, op, a13, with(0, tensor(kernel.Float32, []int64{2}, 1, 2)), "input X has dtype float32")
	wantErr(t, op, a13, with(1, f32s(0)), "want a positive finite scale")
	wantErr(t, op, a13, with(1, f32s(float32(math.Inf(1)))), "want a positive finite scale")
	wantErr(t, op, a13, with(2, qs(i8, 0)), "input x_zero_point has dtype int8")
	wantErr(t, op, a13, with(3, tensor(kernel.Float32, []int64{2}, 1, 1)), "input y_scale [2]")
	wantErr(t, op, a13, with(4, tensor(kernel.Int32, nil, 0)), "input y_zero_point has dtype int32")
}

func TestQGemm(t *testing.T) {
	u, i8 := kernel.Uint8, kernel.Int8
	op := "QGemm"
	one := f32s(1)
	eye := qTensor(u, []int64{2, 2}, []int64{1, 0, 0, 1})
	a := qTensor(u, []int64{2, 2}, []int64{1, 2, 3, 4})
	// Float Y: A·I, plus a bias per column, alpha 0.5.
	y := mustRun(t, op, nil, a, one, qs(u, 0), eye, one, qs(u, 0))
	if g := kernel.Float32s(y.Data()); y.DType != kernel.Float32 || !slices.Equal(g, []float32{1, 2, 3, 4}) {
		t.Errorf("float: got %v %v", y.DType, g)
	}
	y = mustRun(t, op, kernel.Attrs{"alpha": 0.5}, a, one, qs(u, 0), eye, one, qs(u, 0), tensor(kernel.Int32, []int64{2}, 10, 20))
	if g := kernel.Float32s(y.Data()); !slices.Equal(g, []float32{5.5, 11, 6.5, 12}) {
		t.Errorf("bias, alpha: got %v", g)
	}
	// int8, transposed operands, per-column b: (10·2 + (−10)·0)·0.5·0.25/0.5
	// + 3 = 8; with a bias of 4, 24·0.25 + 3 = 9.
	A := qTensor(i8, []int64{2, 1}, []int64{10, -10})
	B := qTensor(i8, []int64{1, 2}, []int64{3, 1})
	tr := kernel.Attrs{"transA": int64(1), "transB": int64(1)}
	y = mustRun(t, op, tr, A, f32s(0.5), qs(i8, 0), B, tensor(kernel.Float32, []int64{1}, 0.25), qTensor(i8, []int64{1}, []int64{1}), absent(), f32s(0.5), qs(i8, 3))
	if !y.Shape.Equal(kernel.Shape{1, 1}) || y.DType != i8 || qVals(y)[0] != 8 {
		t.Errorf("int8: got %v %v %v, want int8 [1 1] [8]", y.DType, y.Shape, qVals(y))
	}
	y = mustRun(t, op, tr, A, f32s(0.5), qs(i8, 0), B, tensor(kernel.Float32, []int64{1}, 0.25), qTensor(i8, []int64{1}, []int64{1}), tensor(kernel.Int32, []int64{1, 1}, 4), f32s(0.5), qs(i8, 3))
	if qVals(y)[0] != 9 {
		t.Errorf("int8 with bias: got %v, want [9]", qVals(y))
	}
	// A tie: 6·0.25 = 1.5 → 2; and 24·0.25 = 6.
	y = mustRun(t, op, nil, qTensor(u, []int64{1, 2}, []int64{6, 250}), f32s(0.5), qs(u, 0), qTensor(u, []int64{2, 2}, []int64{1, 4, 0, 0}), f32s(0.5), qs(u, 0), absent(), one, qs(u, 0))
	if want := []int64{2, 6}; !slices.Equal(qVals(y), want) {
		t.Errorf("ties: got %v, want %v", qVals(y), want)
	}
	ok := func() []*kernel.Tensor { return []*kernel.Tensor{a, one, qs(u, 0), eye, one, qs(u, 0)} }
	with := func(i int, t *kernel.Tensor) []*kernel.Tensor {
		in := ok()
		for len(in) <= i {
			in = append(in, absent())
		}
		in[i] = t
		return in
	}
	wantErr(t, op, nil, ok()[:5], "inputs")
	wantErr(t, op, nil, with(0, qTensor(i8, []int64{2, 2}, []int64{1, 2, 3, 4})), "with int8 A, B must be int8")
	wantErr(t, op, nil, with(0, tensor(kernel.Float32, []int64{2, 2}, 1, 2, 3, 4)), "input A has dtype float32")
	wantErr(t, op, nil, with(3, qTensor(u, []int64{4}, []int64{1, 2, 3, 4})), "want both 2-D")
	wantErr(t, op, nil, with(3, qTensor(u, []int64{3, 1}, []int64{1, 2, 3})), "inner dimensions 2 and 3 differ")
	wantErr(t, op, nil, []*kernel.Tensor{qTensor(u, []int64{2, 0}, nil), one, qs(u, 0), qTensor(u, []int64{0, 2}, nil), one, qs(u, 0)}, "K = 0")
	wantErr(t, op, nil, with(2, absent()), "input a_zero_point is required")
	wantErr(t, op, nil, with(5, absent()), "input b_zero_point is required")
	wantErr(t, op, nil, with(5, qs(i8, 0)), "input b_zero_point has dtype int8, want B's dtype uint8")
	wantErr(t, op, nil, with(4, tensor(kernel.Float32, []int64{2}, 1, 1)), "want one shape")
	wantErr(t, op, nil, with(4, tensor(kernel.Float32, []int64{3}, 1, 1, 1)), "want one shape")
	wantErr(t, op, nil, with(1, tensor(kernel.Float32, []int64{2}, 1, 1)), "input a_scale [2]")
	wantErr(t, op, nil, with(6, tensor(kernel.Float32, []int64{2}, 1, 1)), "input C has dtype float32")
	wantErr(t, op, nil, with(6, tensor(kernel.Int32, []int64{3}, 1, 1, 1)), "input C [3]")
	wantErr(t, op, nil, with(7, one), "want both")
	wantErr(t, op, nil, append(ok(), absent(), absent(), qs(u, 0)), "want both")
	wantErr(t, op, nil, append(ok(), absent(), one, qs(i8, 0)), "input y_zero_point has dtype int8")
	wantErr(t, op, kernel.Attrs{"alpha": "x"}, ok(), "alpha")
}

func TestQMatMulToFloat(t *testing.T) {
	u, i8 := kernel.Uint8, kernel.Int8
	// (A − 1)·B = [14, 20], times 0.5·[1, 0.25], plus [1, −1].
	A := qTensor(u, []int64{1, 2}, []int64{3, 5})
	B := qTensor(u, []int64{2, 2}, []int64{1, 2, 3, 4})
	bs := tensor(kernel.Float32, []int64{2}, 1, 0.25)
	bias := tensor(kernel.Float32, []int64{2}, 1, -1)
	y := mustRun(t, "MatMulIntegerToFloat", nil, A, B, f32s(0.5), bs, qs(u, 1), qs(u, 0), bias)
	if g := kernel.Float32s(y.Data()); !y.Shape.Equal(kernel.Shape{1, 2}) || !slices.Equal(g, []float32{8, 1.5}) {
		t.Errorf("MatMulIntegerToFloat: got %v %v, want [1 2] [8 1.5]", y.Shape, g)
	}
	// Batched A over a 2-D B, per-tensor parameters, no zero points.
	y = mustRun(t, "MatMulIntegerToFloat", nil, qTensor(u, []int64{2, 1, 2}, []int64{1, 0, 0, 1}), B, f32s(1), f32s(2))
	if g := kernel.Float32s(y.Data()); !y.Shape.Equal(kernel.Shape{2, 1, 2}) || !slices.Equal(g, []float32{2, 4, 6, 8}) {
		t.Errorf("batched: got %v %v", y.Shape, g)
	}
	// DynamicQuantizeMatMul: A = [−127.5, 127.5] has scale 1 and zero
	// point 128 (127.5 to even), so A quantizes to [0, 255] (−127.5 →
	// −128, 127.5 clamped to 127); with B = [1, 1] the sum is −1, times
	// b_scale 3.
	y = mustRun(t, "DynamicQuantizeMatMul", nil, tensor(kernel.Float32, []int64{1, 2}, -127.5, 127.5), qTensor(i8, []int64{2, 1}, []int64{1, 1}), f32s(3))
	if g := kernel.Float32s(y.Data()); !slices.Equal(g, []float32{-3}) {
		t.Errorf("DynamicQuantizeMatMul: got %v, want [-3]", g)
	}
	if s, z := dynQuantParams([]float32{0, 0}); s != 1 || z != 0 {
		t.Errorf("dynQuantParams of zeros: %v, %d, want 1, 0", s, z)
	}
	if s, z := dynQuantParams([]float32{2, 5.1}); s != float32(5.1)/255 || z != 0 {
		t.Errorf("dynQuantParams of positives: %v, %d", s, z)
	}
	op := "MatMulIntegerToFloat"
	one := f32s(1)
	ok := func() []*kernel.Tensor { return []*kernel.Tensor{A, B, one, one, qs(u, 0), qs(u, 0), bias} }
	with := func(i int, t *kernel.Tensor) []*kernel.Tensor {
		in := ok()
		in[i] = t
		return in
	}
	wantErr(t, op, nil, ok()[:3], "inputs")
	wantErr(t, op, nil, with(0, qTensor(i8, []int64{1, 2}, []int64{3, 5})), "input A has dtype int8")
	wantErr(t, op, nil, with(1, tensor(kernel.Float32, []int64{2, 2}, 1, 2, 3, 4)), "input B has dtype float32")
	wantErr(t, op, nil, with(1, qTensor(u, []int64{3, 2}, []int64{1, 2, 3, 4, 5, 6})), "B")
	wantErr(t, op, nil, with(2, tensor(kernel.Float32, []int64{2}, 1, 1)), "input a_scale [2]")
	wantErr(t, op, nil, with(3, tensor(kernel.Float32, []int64{3}, 1, 1, 1)), "input b_scale [3]")
	wantErr(t, op, nil, with(3, tensor(kernel.Float32, []int64{2, 2}, 1, 1, 1, 1)), "input b_scale [2,2]")
	wantErr(t, op, nil, with(4, qs(i8, 0)), "input a_zero_point has dtype int8")
	wantErr(t, op, nil, with(5, qs(i8, 0)), "input b_zero_point has dtype int8, want B's dtype uint8")
	wantErr(t, op, nil, with(5, qTensor(u, []int64{3}, []int64{0, 0, 0})), "input b_zero_point [3]")
	wantErr(t, op, nil, with(6, tensor(kernel.Float32, []int64{3}, 1, 1, 1)), "input bias [3]: want [N] = [2]")
	wantErr(t, op, nil, with(6, tensor(kernel.Int32, []int64{2}, 1, 1)), "input bias has dtype int32")
	wantErr(t, "DynamicQuantizeMatMul", nil, []*kernel.Tensor{A, B}, "inputs")
	wantErr(t, "DynamicQuantizeMatMul", nil, []*kernel.Tensor{A, B, one}, "input A has dtype uint8")
	wantErr(t, "DynamicQuantizeMatMul", nil, []*kernel.Tensor{tensor(kernel.Float32, []int64{1, 2}, 1, 2), B, tensor(kernel.Float32, []int64{2, 1}, 1, 1)}, "input b_scale [2,1]")
}

// TestQLinearWhereErrors: every operand QLinearWhere refuses is an error
// naming it, and a good call runs.
func TestQLinearWhereErrors(t *testing.T) {
	u, i8 := kernel.Uint8, kernel.Int8
	x := qTensor(u, []int64{2}, []int64{1, 2})
	c := tensor(kernel.Bool, []int64{2}, 1, 0)
	ok := func() []*kernel.Tensor {
		return []*kernel.Tensor{c, x, f32s(1), qs(u, 0), x, f32s(0.5), qs(u, 3), f32s(0.25), qs(u, 7)}
	}
	with := func(i int, t *kernel.Tensor) []*kernel.Tensor {
		in := ok()
		in[i] = t
		return in
	}
	got := mustRun(t, "QLinearWhere", nil, ok()...)
	// x → z: 1·(v − 0)/0.25 + 7; y → z: 0.5·(v − 3)/0.25 + 7.
	if v := qVals(got); !slices.Equal(v, []int64{11, 5}) {
		t.Fatalf("QLinearWhere = %v, want [11 5]", v)
	}
	wantErr(t, "QLinearWhere", nil, with(0, qTensor(u, []int64{2}, []int64{1, 0})), "input condition has dtype uint8")
	wantErr(t, "QLinearWhere", nil, with(1, qTensor(i8, []int64{2}, []int64{1, 2})), "input x has dtype int8")
	wantErr(t, "QLinearWhere", nil, with(3, absent()), "input x_zero_point is required")
	wantErr(t, "QLinearWhere", nil, with(8, absent()), "input z_zero_point is required")
	wantErr(t, "QLinearWhere", nil, with(6, qs(i8, 0)), "input y_zero_point has dtype int8, want the data's dtype uint8")
	wantErr(t, "QLinearWhere", nil, with(7, tensor(kernel.Float32, []int64{2}, 1, 1)), "z_scale")
	wantErr(t, "QLinearWhere", nil, with(4, qTensor(u, []int64{3}, []int64{1, 2, 3})), "broadcast")
}
