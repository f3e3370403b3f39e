package ops

import (
	"bytes"
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// The cases below are edges where onnxruntime 1.30 was run on the same
// model (a differential test of random models against it): the wanted
// values are its outputs.

// TestPoolsKeepSameUpperNegativePadding: with auto_pad SAME_UPPER and a
// stride longer than the window, a pool's padding is negative (the one
// output's window starts at index 1 of 3), where a Conv clamps it to 0
// (its window starts at 0); SAME_LOWER starts at 0 for both.
func TestPoolsKeepSameUpperNegativePadding(t *testing.T) {
	x := f32(shp(1, 1, 3), -5, 1, 2)
	u := tensor(kernel.Uint8, shp(1, 1, 3), 6, 1, 2)
	for _, c := range []struct {
		op   string
		in   *kernel.Tensor
		pad  string
		want float64
	}{
		{"AveragePool", x, "SAME_UPPER", 1},
		{"LpPool", x, "SAME_UPPER", 1},
		{"MaxPool", u, "SAME_UPPER", 1},
		{"AveragePool", x, "SAME_LOWER", -5},
		{"LpPool", x, "SAME_LOWER", 5},
		{"MaxPool", u, "SAME_LOWER", 6},
	} {
		got := mustRun(t, c.op, kernel.Attrs{"kernel_shape": []int64{1}, "strides": []int64{3}, "auto_pad": c.pad, kernel.OpsetAttr: int64(20)}, c.in)
		checkValues(t, c.op+" "+c.pad, got, shp(1, 1, 1), []float64{c.want})
	}
	conv := mustRun(t, "Conv", kernel.Attrs{"kernel_shape": []int64{1}, "strides": []int64{3}, "auto_pad": "SAME_UPPER"}, x, f32(shp(1, 1, 1), 1))
	checkValues(t, "Conv SAME_UPPER", conv, shp(1, 1, 1), []float64{-5})
}

// TestPoolWithNoWindow: a window one longer than the padded input gives
// an empty output (MaxPool, AveragePool, LpPool; ceil_mode or not).
func TestPoolWithNoWindow(t *testing.T) {
	x := f32(shp(1, 1, 1), 7)
	for _, op := range []string{"MaxPool", "AveragePool", "LpPool"} {
		for _, ceil := range []int64{0, 1} {
			got := mustRun(t, op, kernel.Attrs{"kernel_shape": []int64{3}, "pads": []int64{1, 0}, "ceil_mode": ceil, kernel.OpsetAttr: int64(18)}, x)
			checkValues(t, op, got, shp(1, 1, 0), nil)
		}
		wantErr(t, op, kernel.Attrs{"kernel_shape": []int64{4}, "pads": []int64{1, 0}, kernel.OpsetAttr: int64(18)}, []*kernel.Tensor{x}, "exceeds padded input")
	}
}

// TestPowIntegerSquareAndCubeWrap: an integer base with an exponent of 2
// or 3 broadcast along the output's innermost axis longer than 1 is
// multiplied in its type, wrapping on overflow; other exponents go
// through float64 (an overflow is the type's minimum).
func TestPowIntegerSquareAndCubeWrap(t *testing.T) {
	got := mustRun(t, "Pow", kernel.Attrs{kernel.OpsetAttr: int64(17)}, tensor(kernel.Int32, shp(2), 98852, 30150), tensor(kernel.Int32, shp(1), 2))
	if g := kernel.Int32s(got.Data()); !slices.Equal(g, []int32{1181783312, 909022500}) {
		t.Errorf("int32 squares: %v", g)
	}
	got = mustRun(t, "Pow", kernel.Attrs{kernel.OpsetAttr: int64(17)}, tensor(kernel.Int32, shp(2), 1291, 2), tensor(kernel.Int64, shp(1), 3))
	if g := kernel.Int32s(got.Data()); !slices.Equal(g, []int32{-2143282125, 8}) {
		t.Errorf("int32 cube: %v", g)
	}
	a, b := int64(1)<<32, int64(3037000500)
	got = mustRun(t, "Pow", kernel.Attrs{kernel.OpsetAttr: int64(17)}, tensor(kernel.Int64, shp(2), float64(a), float64(b)), f32(shp(), 2))
	if g := kernel.Int64s(got.Data()); !slices.Equal(g, []int64{a * a, b * b}) {
		t.Errorf("int64 squares: %v, want %v", g, []int64{a * a, b * b})
	}
	// Only an exponent broadcast along the output's innermost axis longer
	// than 1 (one exponent for a run of bases) is multiplied out; an
	// exponent that varies along it, or a single base and exponent, goes
	// through float64, the overflow the type's minimum.
	const min32 = -1 << 31
	for _, c := range []struct {
		xs, ys []int64
		x, y   []float64
		want   []int32
	}{
		{shp(2), shp(2), []float64{98852, 3}, []float64{2, 2}, []int32{min32, 9}},
		{shp(1), shp(1), []float64{98852}, []float64{2}, []int32{min32}},
		{shp(), shp(), []float64{98852}, []float64{2}, []int32{min32}},
		{shp(2, 1), shp(1, 2), []float64{98852, 3}, []float64{2, 2}, []int32{min32, min32, 9, 9}},
		{shp(1, 2), shp(2, 1), []float64{98852, 3}, []float64{2, 2}, []int32{1181783312, 9, 1181783312, 9}},
		{shp(2, 2), shp(2, 1), []float64{98852, 3, 98852, 3}, []float64{2, 3}, []int32{1181783312, 9, -1466493376, 27}},
		{shp(2, 2), shp(1, 2), []float64{98852, 3, 98852, 3}, []float64{2, 2}, []int32{min32, 9, min32, 9}},
		{shp(2, 1), shp(2, 1), []float64{98852, 3}, []float64{2, 2}, []int32{min32, 9}},
	} {
		got := mustRun(t, "Pow", kernel.Attrs{kernel.OpsetAttr: int64(17)}, tensor(kernel.Int32, c.xs, c.x...), tensor(kernel.Int32, c.ys, c.y...))
		if g := kernel.Int32s(got.Data()); !slices.Equal(g, c.want) {
			t.Errorf("int32 %v ^ %v: %v, want %v", c.xs, c.ys, g, c.want)
		}
	}
}

// TestMultiHeadAttentionBiasBeforeMask: MultiHeadAttention adds
// attention_bias to the scores and then the key padding mask, each sum
// rounded to float32; the order shows in a row whose keys are all masked
// (batch 1 here), whose softmax is over the rounded sums.
func TestMultiHeadAttentionBiasBeforeMask(t *testing.T) {
	q := f32(shp(2, 1, 8), -0.9690473079681396, 0.3949781358242035, -1.712251901626587, 1.208844542503357, -1.9179229736328125, -0.9100937247276306, 1.0658828020095825, -1.5429567098617554,
		-0.08118409663438797, -1.570127010345459, -1.4659578800201416, -1.2893519401550293, 1.7130917310714722, -1.544309139251709, 1.473517894744873, 0.7025102972984314)
	k := f32(shp(2, 2, 8), 0.038943324238061905, -1.0518133640289307, -1.742469310760498, 1.8227862119674683, -0.26086416840553284, -0.887607991695404, -1.1814074516296387, 0.09323447197675705,
		1.9430019855499268, 0.5062283873558044, -0.9500434398651123, 0.4782220125198364, 1.6578317880630493, -1.0439532995224, -1.595259428024292, 1.4018728733062744,
		1.0552159547805786, -1.9027389287948608, 1.6396092176437378, -0.2010248452425003, 1.8866355419158936, 0.7517861723899841, -1.6696934700012207, -1.0290669202804565,
		0.26103949546813965, -0.4712335765361786, 0.22484911978244781, 0.1557454764842987, 0.7349071502685547, 0.10979723930358887, -1.6446532011032104, -1.9967398643493652)
	v := f32(shp(2, 2, 4), -1.946071982383728, -1.4048205614089966, 0.6178379654884338, 0.5482787489891052, 1.5136854648590088, -1.5028176307678223, 0.12045697867870331, 0.11825355887413025,
		0.10606970638036728, -1.8983134031295776, 0.8365251421928406, 0.786990761756897, -1.975173830986023, 1.651619791984558, 1.35508131980896, 0.6514714360237122)
	mask := tensor(kernel.Int32, shp(2, 2), 1, 0, 0, 0)
	bias := f32(shp(2, 1, 1, 2), 1.9763662815093994, 0.17539674043655396, -1.6340138912200928, -1.198069453239441)
	out, err := runOp("MultiHeadAttention", kernel.Attrs{"num_heads": int64(1)}, q, k, v, f32(shp(0)), mask, bias)
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{-1.946071982383728, -1.4048205614089966, 0.6178379654884338, 0.5482787489891052, -0.7599038481712341, -0.42124056816101074, 1.0522884130477905, 0.7306032180786133}
	got := kernel.Float32s(out[0].Data())
	for i, w := range want {
		if d := math.Abs(float64(got[i] - w)); d > 1e-6*math.Abs(float64(w)) {
			t.Fatalf("y = %v, want onnxruntime's %v", got, want)
		}
	}
}

// TestDynamicQuantizeLinearOfNaNAndInfinity: a range with an infinity or
// a NaN gives the zero point onnxruntime gives, 255 (its clamp of a NaN
// zero point), and 0 where x / scale is NaN; a NaN among the elements
// after the last eight is left out of the range, as onnxruntime's MLAS
// leaves it out.
func TestDynamicQuantizeLinearOfNaNAndInfinity(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		x     []float64
		y     []byte
		scale float64
		zp    byte
	}{
		{[]float64{math.Inf(-1), 1, -1}, []byte{0, 255, 255}, math.Inf(1), 255},
		{[]float64{0.25, 1.3, -0.007, nan, -1.54}, []byte{160, 255, 137, 0, 0}, float64(float32(2.84) / 255), 138},
		{[]float64{1, 2, 3, 4, 5, 6, 7, nan}, []byte{0, 0, 0, 0, 0, 0, 0, 0}, nan, 255},
	} {
		out, err := runOp("DynamicQuantizeLinear", nil, f32(shp(int64(len(c.x))), c.x...))
		if err != nil {
			t.Fatal(err)
		}
		scale := float64(kernel.Float32s(out[1].Data())[0])
		if y, zp := out[0].Data(), out[2].Data()[0]; !slices.Equal(y, c.y) || zp != c.zp || !(scale == c.scale || math.IsNaN(scale) && math.IsNaN(c.scale)) {
			t.Errorf("x %v: y %v, scale %v, zero point %d; want onnxruntime's %v, %v, %d", c.x, y, scale, zp, c.y, c.scale, c.zp)
		}
	}
}

// TestBatchNormalizationOf1DInput: a 1-D X of N elements is [N, 1], one
// channel, as the ONNX operator says (onnxruntime web's test suite and
// onnxruntime agree), in inference at every opset and in training.
func TestBatchNormalizationOf1DInput(t *testing.T) {
	x := f32(shp(4), 1, 2, 3, 4)
	one := func(v float64) *kernel.Tensor { return f32(shp(1), v) }
	// ((x − 0.5)/√(4 + 1e-5))·2 + 1, rounded once.
	want := []float64{1.4999994, 2.4999981, 3.4999971, 4.4999957}
	for _, opset := range []int64{7, 9, 14, 15} {
		got := mustRun(t, "BatchNormalization", kernel.Attrs{kernel.OpsetAttr: opset}, x, one(2), one(1), one(0.5), one(4))
		for i, w := range want {
			if g := float64(kernel.Float32s(got.Data())[i]); math.Abs(g-w) > 1e-6 {
				t.Fatalf("opset %d: Y = %v, want %v", opset, kernel.Float32s(got.Data()), want)
			}
		}
	}
	out, err := runOp("BatchNormalization", kernel.Attrs{kernel.OpsetAttr: int64(15), "training_mode": int64(1)}, x, one(1), one(0), one(0), one(1))
	if err != nil {
		t.Fatal(err)
	}
	// The batch's mean 2.5 and variance 1.25 over the one channel.
	if m, v := kernel.Float32s(out[1].Data())[0], kernel.Float32s(out[2].Data())[0]; math.Abs(float64(m)-0.25) > 1e-6 || math.Abs(float64(v)-(0.9+0.1*1.25)) > 1e-6 {
		t.Errorf("running mean %v and variance %v, want 0.25 and 1.025", m, v)
	}
	wantErr(t, "BatchNormalization", nil, []*kernel.Tensor{f32(shp(), 1), one(1), one(0), one(0), one(1)}, "want rank 1 or more")
}

// TestEmptyAutoPadIsNotSet: auto_pad "" (as exporters write it) is NOTSET,
// as onnxruntime reads it: the sliding-window ops take it with pads and
// compute what they compute without the attribute.
func TestEmptyAutoPadIsNotSet(t *testing.T) {
	x := f32(shp(1, 1, 3), 1, 2, 3)
	pads := kernel.Attrs{"kernel_shape": []int64{2}, "pads": []int64{1, 0}}
	with := func(a kernel.Attrs) kernel.Attrs {
		b := maps.Clone(a)
		b["auto_pad"] = ""
		return b
	}
	for _, c := range []struct {
		op    string
		attrs kernel.Attrs
		in    []*kernel.Tensor
	}{
		{"Conv", pads, []*kernel.Tensor{x, f32(shp(1, 1, 2), 1, 1)}},
		{"ConvTranspose", pads, []*kernel.Tensor{x, f32(shp(1, 1, 2), 1, 1)}},
		{"AveragePool", pads, []*kernel.Tensor{x}},
		{"MaxPool", pads, []*kernel.Tensor{x}},
		{"LpPool", pads, []*kernel.Tensor{x}},
		{"NhwcMaxPool", pads, []*kernel.Tensor{u8(shp(1, 3, 1), 1, 2, 3)}},
		{"QLinearAveragePool", pads, []*kernel.Tensor{qTensor(kernel.Uint8, shp(1, 1, 3), []int64{1, 2, 3}), f32s(1), qs(kernel.Uint8, 0), f32s(1), qs(kernel.Uint8, 0)}},
	} {
		want := mustRun(t, c.op, c.attrs, c.in...)
		got := mustRun(t, c.op, with(c.attrs), c.in...)
		if !got.Shape.Equal(want.Shape) || !bytes.Equal(got.Host, want.Host) {
			t.Errorf("%s with auto_pad \"\": %v %v, want %v %v (as without auto_pad)", c.op, got.Shape, got.Host, want.Shape, want.Host)
		}
	}
	conv := mustRun(t, "Conv", with(pads), x, f32(shp(1, 1, 2), 1, 1))
	checkValues(t, "Conv", conv, shp(1, 1, 3), []float64{1, 3, 5})
}
