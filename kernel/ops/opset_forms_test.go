package ops

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// The forms opsets 18 to 22 give Resize, AveragePool, DFT, QuantizeLinear
// and DequantizeLinear: their errors, and values against definitions and
// against the earlier forms. (onnx/testdata/opset checks them against
// onnxruntime.)

func formAttrs(opset int64, kv ...any) kernel.Attrs {
	a := kernel.Attrs{kernel.OpsetAttr: opset}
	for i := 0; i < len(kv); i += 2 {
		a[kv[i].(string)] = kv[i+1]
	}
	return a
}

func formInts(v ...int64) []int64 { return v }

// formScalar is a rank-0 int64 tensor.
func formScalar(v int64) *kernel.Tensor { return tensor(kernel.Int64, shp(), float64(v)) }

func TestResize18Errors(t *testing.T) {
	x := f32(shp(1, 1, 4, 6))
	none := f32(shp(0))
	scales := f32(shp(2), 0.5, 0.5)
	sizes := i64(shp(2), 2, 3)
	for _, c := range []struct {
		attrs kernel.Attrs
		in    []*kernel.Tensor
		want  string
	}{
		{formAttrs(18, "keep_aspect_ratio_policy", "fit"), []*kernel.Tensor{x, none, none, sizes}, "keep_aspect_ratio_policy"},
		{formAttrs(18, "antialias", int64(1)), []*kernel.Tensor{x, none, scales}, "antialias"},
		{formAttrs(18, "mode", "linear", "antialias", int64(2)), []*kernel.Tensor{x, none, scales}, "antialias"},
		{formAttrs(17, "mode", "linear", "antialias", int64(1)), []*kernel.Tensor{x, none, scales}, "antialias"},
		{formAttrs(17, "axes", formInts(2, 3)), []*kernel.Tensor{x, none, scales}, "axes"},
		{formAttrs(17, "keep_aspect_ratio_policy", "stretch"), []*kernel.Tensor{x, none, none, sizes}, "keep_aspect_ratio_policy"},
		{formAttrs(18, "coordinate_transformation_mode", "half_pixel_symmetric"), []*kernel.Tensor{x, none, scales}, "half_pixel_symmetric"},
		{formAttrs(18, "axes", formInts(2, 4)), []*kernel.Tensor{x, none, scales}, "out of range"},
		{formAttrs(18, "axes", formInts(3, -1)), []*kernel.Tensor{x, none, scales}, "twice"},
		{formAttrs(18, "axes", formInts(3)), []*kernel.Tensor{x, none, scales}, "one for each of axes"},
		{formAttrs(18, "axes", formInts(2, 3)), []*kernel.Tensor{x, none, f32(shp(4), 1, 1, 1, 1)}, "one for each of axes"},
		{formAttrs(18, "axes", formInts(2, 3)), []*kernel.Tensor{x, none, none, i64(shp(4), 1, 1, 2, 2)}, "one for each of axes"},
		{formAttrs(18), []*kernel.Tensor{x, none, scales}, "want 4 values"},
		{formAttrs(18, "axes", formInts(2, 3), "keep_aspect_ratio_policy", "not_larger"), []*kernel.Tensor{x, none, scales}, "applies to sizes"},
		{formAttrs(18, "axes", formInts(2, 3), "coordinate_transformation_mode", "tf_crop_and_resize"),
			[]*kernel.Tensor{x, f32(shp(8), 0, 0, 0, 0, 1, 1, 1, 1), scales}, "roi has 8 values, want 4"},
	} {
		wantErr(t, "Resize", c.attrs, c.in, c.want)
	}
}

// TestResize18Axes: scales and sizes on a subset of the axes, in any order
// and negative, equal the full-rank form with the other axes at 1.
func TestResize18Axes(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 1))
	x := randTensor(r, kernel.Float32, shp(2, 3, 4, 5))
	none := f32(shp(0))
	for _, mode := range []string{"nearest", "linear", "cubic"} {
		full := mustRun(t, "Resize", formAttrs(18, "mode", mode), x, none, f32(shp(4), 1, 1, 1.5, 0.6))
		for _, axes := range [][]int64{{2, 3}, {-2, -1}} {
			got := mustRun(t, "Resize", formAttrs(18, "mode", mode, "axes", axes), x, none, f32(shp(2), 1.5, 0.6))
			checkValues(t, mode+" axes", got, full.Shape, values(full))
		}
		got := mustRun(t, "Resize", formAttrs(18, "mode", mode, "axes", formInts(3, 2)), x, none, f32(shp(2), 0.6, 1.5))
		checkValues(t, mode+" axes [3 2]", got, full.Shape, values(full))
		bySizes := mustRun(t, "Resize", formAttrs(18, "mode", mode), x, none, none, i64(shp(4), 2, 3, 6, 3))
		got = mustRun(t, "Resize", formAttrs(18, "mode", mode, "axes", formInts(-1, 2)), x, none, none, i64(shp(2), 3, 6))
		checkValues(t, mode+" sizes on axes", got, bySizes.Shape, values(bySizes))
	}
	// Axes not named keep their extent and values.
	got := mustRun(t, "Resize", formAttrs(18, "mode", "linear", "axes", formInts(1)), x, none, f32(shp(1), 2))
	if !got.Shape.Equal(kernel.Shape{2, 6, 4, 5}) {
		t.Fatalf("axes [1]: shape %v", got.Shape)
	}
}

// TestResize18AspectPolicy: not_larger and not_smaller size the named axes
// by one scale, min or max of size/D, rounding halves up; stretch takes
// the sizes as given.
func TestResize18AspectPolicy(t *testing.T) {
	x := f32(shp(1, 1, 6, 8))
	none := f32(shp(0))
	for _, c := range []struct {
		policy string
		axes   []int64
		sizes  []float64
		want   []int64
	}{
		{"stretch", formInts(2, 3), []float64{5, 5}, formInts(1, 1, 5, 5)},
		{"not_larger", formInts(2, 3), []float64{5, 5}, formInts(1, 1, 4, 5)},
		{"not_smaller", formInts(2, 3), []float64{5, 5}, formInts(1, 1, 5, 7)},
		{"not_larger", formInts(3), []float64{4}, formInts(1, 1, 6, 4)},
		{"not_larger", nil, []float64{1, 1, 100, 4}, formInts(1, 1, 3, 4)}, // 6·0.5 = 3
		{"not_smaller", formInts(-1, -2), []float64{2, 9}, formInts(1, 1, 9, 12)},
	} {
		attrs := formAttrs(18, "keep_aspect_ratio_policy", c.policy)
		if c.axes != nil {
			attrs["axes"] = c.axes
		}
		got := mustRun(t, "Resize", attrs, x, none, none, i64(shp(int64(len(c.sizes))), c.sizes...))
		if !got.Shape.Equal(c.want) {
			t.Errorf("%s axes %v sizes %v: shape %v, want %v", c.policy, c.axes, c.sizes, got.Shape, c.want)
		}
	}
	// Halves round up: 5·0.5 = 2.5 becomes 3.
	got := mustRun(t, "Resize", formAttrs(18, "keep_aspect_ratio_policy", "not_larger"), f32(shp(5, 8)), none, none, i64(shp(2), 100, 4))
	if !got.Shape.Equal(kernel.Shape{3, 4}) {
		t.Errorf("half up: shape %v, want [3 4]", got.Shape)
	}
}

// TestResize18Antialias: upscaling with antialias is the plain
// interpolation; downscaling by 2 with the triangle filter weighs the four
// nearest inputs 1/8, 3/8, 3/8, 1/8, the edge repeating.
func TestResize18Antialias(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 2))
	x := tensor(kernel.Float64, shp(5, 6), randValues(r, kernel.Float64, 30)...)
	none := f32(shp(0))
	up := f32(shp(2), 1.5, 2.5)
	for _, mode := range []string{"linear", "cubic"} {
		for _, excl := range []int64{0, 1} {
			plain := mustRun(t, "Resize", formAttrs(18, "mode", mode, "exclude_outside", excl), x, none, up)
			aa := mustRun(t, "Resize", formAttrs(18, "mode", mode, "exclude_outside", excl, "antialias", int64(1)), x, none, up)
			checkClose(t, mode+" antialias upscaling", aa, plain.Shape, values(plain), 1e-12)
		}
	}
	v := []float64{1, 2, 4, 8, 16, 32, 64, 128}
	got := mustRun(t, "Resize", formAttrs(18, "mode", "linear", "antialias", int64(1)), tensor(kernel.Float64, shp(8), v...), none, f32(shp(1), 0.5))
	want := make([]float64, 4)
	for o := range want {
		for j, w := range []float64{1, 3, 3, 1} {
			i := min(max(2*o-1+j, 0), 7)
			want[o] += w / 8 * v[i]
		}
	}
	checkClose(t, "antialias linear 1/2", got, shp(4), want, 1e-12)
	// exclude_outside drops the taps outside and renormalises.
	got = mustRun(t, "Resize", formAttrs(18, "mode", "linear", "antialias", int64(1), "exclude_outside", int64(1)), tensor(kernel.Float64, shp(8), v...), none, f32(shp(1), 0.5))
	want[0] = (3*v[0] + 3*v[1] + v[2]) / 7
	want[3] = (v[5] + 3*v[6] + 3*v[7]) / 7
	checkClose(t, "antialias linear 1/2 exclude_outside", got, shp(4), want, 1e-12)
}

// TestResize18Coordinates: the coordinate modes take the output's extent
// at every opset (not in·scale unrounded, as the ONNX reference of opsets
// 11 to 17 did); half_pixel_symmetric (opset 19) centres the output.
func TestResize18Coordinates(t *testing.T) {
	x := tensor(kernel.Float64, shp(1, 5), 0, 1, 2, 3, 4)
	none := f32(shp(0))
	s := f32(shp(2), 1, 0.7) // 5·0.7 = 3.5: 3 outputs
	got := mustRun(t, "Resize", formAttrs(17, "mode", "linear", "coordinate_transformation_mode", "align_corners"), x, none, s)
	checkClose(t, "align_corners 17", got, shp(1, 3), []float64{0, 2, 4}, 1e-6)
	got = mustRun(t, "Resize", formAttrs(18, "mode", "linear", "coordinate_transformation_mode", "align_corners"), x, none, s)
	checkClose(t, "align_corners 18", got, shp(1, 3), []float64{0, 2, 4}, 1e-6)
	got = mustRun(t, "Resize", formAttrs(19, "mode", "linear", "coordinate_transformation_mode", "half_pixel_symmetric"), x, none, s)
	off := 2.5 * (1 - 3/(5*float64(float32(0.7))))
	want := make([]float64, 3)
	for i := range want {
		want[i] = off + (float64(i)+0.5)/float64(float32(0.7)) - 0.5
	}
	checkClose(t, "half_pixel_symmetric", got, shp(1, 3), want, 1e-12)
	// With sizes the output is in·scale: half_pixel_symmetric is half_pixel.
	hp := mustRun(t, "Resize", formAttrs(19, "mode", "cubic"), x, none, none, i64(shp(2), 1, 3))
	got = mustRun(t, "Resize", formAttrs(19, "mode", "cubic", "coordinate_transformation_mode", "half_pixel_symmetric"), x, none, none, i64(shp(2), 1, 3))
	checkClose(t, "half_pixel_symmetric with sizes", got, hp.Shape, values(hp), 1e-12)
}

func TestAveragePool19Errors(t *testing.T) {
	x := []*kernel.Tensor{f32(shp(1, 1, 7))}
	wantErr(t, "AveragePool", formAttrs(18, "kernel_shape", formInts(3), "dilations", formInts(2)), x, "dilations")
	wantErr(t, "AveragePool", formAttrs(19, "kernel_shape", formInts(3), "dilations", formInts(2), "auto_pad", "SAME_UPPER"), x, "SAME_UPPER", "dilations")
	wantErr(t, "AveragePool", formAttrs(19, "kernel_shape", formInts(3), "dilations", formInts(2, 2)), x, "dilations")
	wantErr(t, "AveragePool", formAttrs(19, "kernel_shape", formInts(3), "dilations", formInts(0)), x, "dilations")
	wantErr(t, "AveragePool", formAttrs(19, "kernel_shape", formInts(4), "dilations", formInts(3)), x, "exceeds")
}

// formPoolRef averages x [n·c, in…] (1 to 3 spatial axes) by the
// definition: the taps start + j·dil inside the input; with include, the
// divisor counts the taps before the end of the trailing padding; a window
// without input taps is 0.
func formPoolRef(x []float64, in, k, s, d, pb, pe, out []int64, include bool) []float64 {
	nd := len(in)
	var y []float64
	ip, op := numel(in), numel(out)
	for c := range int64(len(x)) / ip {
		for o := range op {
			pos := unravel(o, out)
			var taps [][]int64
			count := int64(1)
			for a := range nd {
				start := pos[a]*s[a] - pb[a]
				var t []int64
				n := int64(0)
				for j := range k[a] {
					p := start + j*d[a]
					if p < in[a]+pe[a] {
						n++
					}
					if p >= 0 && p < in[a] {
						t = append(t, p)
					}
				}
				taps = append(taps, t)
				count *= n
			}
			sum, valid := 0.0, int64(0)
			idx := make([]int64, nd)
			var walk func(a int)
			walk = func(a int) {
				if a == nd {
					sum += x[c*ip+ravel(idx, in)]
					valid++
					return
				}
				for _, p := range taps[a] {
					idx[a] = p
					walk(a + 1)
				}
			}
			walk(0)
			if !include {
				count = valid
			}
			if valid == 0 {
				y = append(y, 0) // no input element: 0, as onnxruntime
				continue
			}
			y = append(y, sum/float64(count))
		}
	}
	return y
}

// TestAveragePool19Dilations runs dilated windows of 1 to 3 spatial axes,
// with pads, strides, ceil_mode and count_include_pad, against formPoolRef;
// dilations of 1 give opset 18's result, bit for bit.
func TestAveragePool19Dilations(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 1))
	for range 300 {
		nd := 1 + r.IntN(3)
		var in, k, s, d, pb, pe []int64
		for range nd {
			kk, dd := int64(1+r.IntN(3)), int64(1+r.IntN(3))
			k, d = append(k, kk), append(d, dd)
			in = append(in, (kk-1)*dd+1+int64(r.IntN(5)))
			s = append(s, int64(1+r.IntN(3)))
			pb, pe = append(pb, int64(r.IntN(int(kk)))), append(pe, int64(r.IntN(int(kk))))
		}
		ceil, include := int64(r.IntN(2)), int64(r.IntN(2))
		shape := append([]int64{1, 2}, in...)
		x := randTensor(r, kernel.Float64, shape)
		attrs := formAttrs(19, "kernel_shape", k, "strides", s, "dilations", d, "pads", append(append([]int64{}, pb...), pe...),
			"ceil_mode", ceil, "count_include_pad", include)
		got := mustRun(t, "AveragePool", attrs, x)
		out := make([]int64, nd)
		for a := range nd {
			span := in[a] + pb[a] + pe[a] - (k[a]-1)*d[a] - 1
			out[a] = span/s[a] + 1
			if ceil == 1 && span%s[a] != 0 {
				out[a]++
				if (out[a]-1)*s[a] >= in[a]+pb[a] {
					out[a]--
				}
			}
		}
		want := formPoolRef(values(x), in, k, s, d, pb, pe, out, include == 1)
		checkClose(t, "dilated AveragePool", got, append([]int64{1, 2}, out...), want, 1e-12)
		if ceil == 0 {
			attrs["dilations"] = formOnes(nd)
			plain := mustRun(t, "AveragePool", attrs, x)
			delete(attrs, "dilations")
			attrs[kernel.OpsetAttr] = int64(18)
			old := mustRun(t, "AveragePool", attrs, x)
			checkValues(t, "dilations 1", plain, old.Shape, values(old))
		}
	}
}

func formOnes(n int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

// TestPoolCeilLastWindow: ceil_mode drops a last window starting in the
// trailing padding, at every opset and in MaxPool too, as onnxruntime does
// (fixtures *_ceil_last_window in onnx/testdata/opset) and the ONNX
// reference.
func TestPoolCeilLastWindow(t *testing.T) {
	x := f32(shp(1, 1, 6), 1, 2, 3, 4, 5, 6)
	for _, opset := range []int64{10, 18, 19, 22} {
		attrs := formAttrs(opset, "kernel_shape", formInts(2), "strides", formInts(2), "pads", formInts(0, 1), "ceil_mode", int64(1))
		checkValues(t, fmt.Sprintf("AveragePool-%d", opset), mustRun(t, "AveragePool", attrs, x), shp(1, 1, 3), []float64{1.5, 3.5, 5.5})
		checkValues(t, fmt.Sprintf("MaxPool-%d", opset), mustRun(t, "MaxPool", attrs, x), shp(1, 1, 3), []float64{2, 4, 6})
	}
}

func TestDFT20Errors(t *testing.T) {
	x := f32(shp(2, 4, 2))
	none := f32(shp(0))
	for _, c := range []struct {
		attrs kernel.Attrs
		in    []*kernel.Tensor
		want  []string
	}{
		{formAttrs(20, "axis", int64(1)), []*kernel.Tensor{x}, []string{"axis"}},
		{formAttrs(20), []*kernel.Tensor{x, none, i64(shp(1), 1)}, []string{"int64 scalar"}},
		{formAttrs(20), []*kernel.Tensor{x, none, tensor(kernel.Int32, shp(), 1)}, []string{"int64 scalar"}},
		{formAttrs(20), []*kernel.Tensor{x, none, formScalar(2)}, []string{"axis 2"}},
		{formAttrs(20), []*kernel.Tensor{x, none, formScalar(-1)}, []string{"axis -1"}},
		{formAttrs(20), []*kernel.Tensor{x, none, formScalar(-4)}, []string{"axis -4"}},
		{formAttrs(20), []*kernel.Tensor{f32(shp(4))}, []string{"1 or 2"}},
		{formAttrs(20), []*kernel.Tensor{f32(shp(4, 3))}, []string{"1 or 2"}},
		{formAttrs(20, "onesided", int64(1)), []*kernel.Tensor{x}, []string{"real input"}},
		{formAttrs(20, "inverse", int64(1), "onesided", int64(1)), []*kernel.Tensor{f32(shp(2, 4, 1))}, []string{"complex input"}},
		{formAttrs(20, "inverse", int64(1), "onesided", int64(1)), []*kernel.Tensor{f32(shp(2, 1, 2))}, []string{"dft_length 0"}},
		{formAttrs(20), []*kernel.Tensor{x, formScalar(0)}, []string{"dft_length 0"}},
		{formAttrs(19, "inverse", int64(1), "onesided", int64(1)), []*kernel.Tensor{f32(shp(1, 4, 1))}, []string{"complex input"}},
		{formAttrs(19), []*kernel.Tensor{f32(shp(4, 2))}, []string{"batch"}},
	} {
		wantErr(t, "DFT", c.attrs, c.in, c.want...)
	}
}

// TestDFT20Axis: the axis input (default −2) picks the signal axis, the
// first included, as opset 17's attribute does for the others.
func TestDFT20Axis(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 1))
	x := randTensor(r, kernel.Float64, shp(3, 4, 5, 2))
	none := f32(shp(0))
	for axis := int64(1); axis <= 2; axis++ {
		want := mustRun(t, "DFT", formAttrs(17, "axis", axis), x)
		got := mustRun(t, "DFT", formAttrs(20), x, none, formScalar(axis))
		checkValues(t, "axis input", got, want.Shape, values(want))
		got = mustRun(t, "DFT", formAttrs(20), x, none, formScalar(axis-4))
		checkValues(t, "negative axis input", got, want.Shape, values(want))
	}
	last := mustRun(t, "DFT", formAttrs(20), x, none, formScalar(2))
	checkValues(t, "axis absent", mustRun(t, "DFT", formAttrs(20), x), last.Shape, values(last))
	// Axis 0 of [3, 4, 5, 2] is axis 1 of [1, 3, 4, 5, 2] at opset 17.
	x5 := &kernel.Tensor{DType: x.DType, Shape: kernel.Shape{1, 3, 4, 5, 2}, Host: x.Host}
	want := mustRun(t, "DFT", formAttrs(17, "axis", int64(1)), x5, formScalar(6))
	got := mustRun(t, "DFT", formAttrs(20), x, formScalar(6), formScalar(0))
	checkValues(t, "axis 0", got, want.Shape[1:], values(want))
	// A rank-2 signal [L, 1].
	got = mustRun(t, "DFT", formAttrs(20), tensor(kernel.Float64, shp(4, 1), 1, 2, 3, 4))
	checkClose(t, "rank 2", got, shp(4, 2), []float64{10, 0, -2, 2, -2, 0, -2, -2}, 1e-12)
}

// TestDFT20Irfft: inverse onesided inverts a real signal's one-sided
// spectrum, for even and odd lengths, along any axis.
func TestDFT20Irfft(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 2))
	for it := range 40 {
		n := int64(2 + r.IntN(9))
		x := randTensor(r, kernel.Float64, shp(2, n, 3, 1))
		spec := mustRun(t, "DFT", formAttrs(20, "onesided", int64(1)), x, f32(shp(0)), formScalar(1))
		m := n/2 + 1
		if !spec.Shape.Equal(kernel.Shape{2, m, 3, 2}) {
			t.Fatalf("case %d: spectrum %v", it, spec.Shape)
		}
		var length *kernel.Tensor = f32(shp(0))
		if n%2 == 1 {
			length = formScalar(n)
		}
		back := mustRun(t, "DFT", formAttrs(20, "inverse", int64(1), "onesided", int64(1)), spec, length, formScalar(1))
		checkClose(t, "irfft(rfft(x))", back, x.Shape, values(x), 1e-12)
	}
	// The imaginary parts of bin 0 and of the middle bin do not matter.
	spec := tensor(kernel.Float64, shp(3, 2), 4, 7, 1, 1, 2, -5)
	got := mustRun(t, "DFT", formAttrs(20, "inverse", int64(1), "onesided", int64(1)), spec)
	checkClose(t, "irfft", got, shp(4, 1), []float64{2, 0, 1, 1}, 1e-12)
}

// TestDFT17Irfft: before opset 20 inverse onesided is IRFFT too, as
// ONNX's text says since onnx/onnx#7574. The case is the backend test
// test_dft_irfft_opset19: the one-sided spectra along axis 1 of the
// columns x[k][j] = 10k + j, k < 10 (bin 0: 450 + 10j; bin w > 0:
// Σ 10k·ω^k = 100/(ω − 1), ω = e^(−2πiw/10)), inverted to x.
func TestDFT17Irfft(t *testing.T) {
	spec := make([]float64, 0, 6*10*2)
	for w := range 6 {
		for j := range 10 {
			if w == 0 {
				spec = append(spec, float64(450+10*j), 0)
				continue
			}
			c := 100 / (cmplx.Exp(complex(0, -2*math.Pi*float64(w)/10)) - 1)
			spec = append(spec, real(c), imag(c))
		}
	}
	want := make([]float64, 100)
	for i := range want {
		want[i] = float64(i)
	}
	for _, opset := range []int64{17, 19} {
		got := mustRun(t, "DFT", formAttrs(opset, "inverse", int64(1), "onesided", int64(1), "axis", int64(1)),
			tensor(kernel.Float32, shp(1, 6, 10, 2), spec...))
		checkClose(t, fmt.Sprintf("DFT-%d irfft", opset), got, shp(1, 10, 10, 1), want, 1e-4)
	}
	// The opset-20 form with the axis input gives the same.
	got := mustRun(t, "DFT", formAttrs(20, "inverse", int64(1), "onesided", int64(1)),
		tensor(kernel.Float32, shp(1, 6, 10, 2), spec...), f32(shp(0)), formScalar(1))
	checkClose(t, "DFT-20 irfft", got, shp(1, 10, 10, 1), want, 1e-4)
}

// TestDFTIrfftLengths: inverse onesided of any dft_length n reads the
// first n/2 + 1 bins of the spectrum, truncated or zero-padded to them,
// as numpy's irfft, which ONNX's reference calls. The spectrum is
// X0 = 1 − 0.3i, X1 = 2 + 0.2i, X2 = −1 + 0.5i; each want is the
// inverse written out. onnxruntime 1.30 departs from the specification
// at these lengths (at n = 1 of these bins it gives 2, at n = 4 of
// the first two 0.75, 0.2, −0.25, 0.3); the lengths where it follows
// it are the fixtures p2_dft_*_irfft_* of onnx/testdata/opset.
func TestDFTIrfftLengths(t *testing.T) {
	spec := []float64{1, -0.3, 2, 0.2, -1, 0.5}
	for _, c := range []struct {
		bins, n int64
		want    []float64
	}{
		// n = 1: bin 0's real part.
		{3, 1, []float64{1}},
		{2, 1, []float64{1}},
		// n = 2: bins 0 and 1, both real parts only.
		{3, 2, []float64{(1 + 2) / 2.0, (1 - 2) / 2.0}},
		// n = 4 of two bins: bin 2 is zero; (X0 + 2·Re(X1·i^t))/4.
		{2, 4, []float64{(1 + 4) / 4.0, (1 - 0.4) / 4.0, (1 - 4) / 4.0, (1 + 0.4) / 4.0}},
		// n = 4 of three: bin 2 adds its real part (−1)^t·X2r/4.
		{3, 4, []float64{(1 + 4 - 1) / 4.0, (1 - 0.4 + 1) / 4.0, (1 - 4 - 1) / 4.0, (1 + 0.4 + 1) / 4.0}},
		// n = 3 of one bin: the constant X0r/3.
		{1, 3, []float64{1 / 3.0, 1 / 3.0, 1 / 3.0}},
	} {
		x := tensor(kernel.Float64, shp(1, c.bins, 2), spec[:2*c.bins]...)
		for _, opset := range []int64{17, 20} {
			in := []*kernel.Tensor{x, formScalar(c.n)}
			attrs := formAttrs(opset, "inverse", int64(1), "onesided", int64(1))
			if opset >= 20 {
				in = append(in, formScalar(1))
			}
			got := mustRun(t, "DFT", attrs, in...)
			checkClose(t, fmt.Sprintf("DFT-%d irfft of %d bins to %d", opset, c.bins, c.n), got, shp(1, c.n, 1), c.want, 1e-12)
		}
	}
}

func TestQuantize21Errors(t *testing.T) {
	x := f32(shp(4, 6))
	for _, c := range []struct {
		op    string
		attrs kernel.Attrs
		in    []*kernel.Tensor
		want  []string
	}{
		{"QuantizeLinear", formAttrs(21, "block_size", int64(2)), []*kernel.Tensor{x, f32(shp(4, 2))}, []string{"scale [4,2]", "[4,3]"}},
		{"QuantizeLinear", formAttrs(21, "block_size", int64(2)), []*kernel.Tensor{x, f32(shp(3))}, []string{"scale [3]"}},
		{"QuantizeLinear", formAttrs(21, "block_size", int64(2)), []*kernel.Tensor{x, f32(shp())}, []string{"per-tensor"}},
		{"QuantizeLinear", formAttrs(21), []*kernel.Tensor{x, f32(shp(4, 3))}, []string{"want a scalar or [6]"}},
		{"QuantizeLinear", formAttrs(21, "block_size", int64(-1)), []*kernel.Tensor{x, f32(shp())}, []string{"block_size -1"}},
		{"QuantizeLinear", formAttrs(21, "block_size", int64(2), "axis", int64(2)), []*kernel.Tensor{x, f32(shp(4, 3))}, []string{"axis 2"}},
		{"QuantizeLinear", formAttrs(21, "block_size", int64(3)), []*kernel.Tensor{x, f32(shp(4, 2)), tensor(kernel.Uint8, shp(4, 3))}, []string{"differ in shape"}},
		{"QuantizeLinear", formAttrs(20, "block_size", int64(2)), []*kernel.Tensor{x, f32(shp(4, 3))}, []string{"block_size"}},
		{"QuantizeLinear", formAttrs(21, "output_dtype", int64(24)), []*kernel.Tensor{x, f32(shp())}, []string{"output_dtype 24 is not a quantized type"}},
		{"QuantizeLinear", formAttrs(21, "output_dtype", int64(4)), []*kernel.Tensor{x, f32(shp()), tensor(kernel.Int16, shp())}, []string{"differ"}},
		{"QuantizeLinear", formAttrs(21, "output_dtype", int64(1)), []*kernel.Tensor{x, f32(shp())}, []string{"output_dtype 1"}},
		{"QuantizeLinear", formAttrs(21, "output_dtype", int64(3)), []*kernel.Tensor{x, f32(shp()), tensor(kernel.Uint8, shp())}, []string{"differ"}},
		{"QuantizeLinear", formAttrs(20, "output_dtype", int64(3)), []*kernel.Tensor{x, f32(shp())}, []string{"output_dtype"}},
		{"QuantizeLinear", formAttrs(19, "saturate", int64(2)), []*kernel.Tensor{x, f32(shp())}, []string{"saturate"}},
		{"QuantizeLinear", formAttrs(18, "saturate", int64(1)), []*kernel.Tensor{x, f32(shp())}, []string{"saturate"}},
		{"QuantizeLinear", formAttrs(19), []*kernel.Tensor{x, tensor(kernel.Float64, shp())}, []string{"y_scale"}},
		{"DequantizeLinear", formAttrs(21, "block_size", int64(4)), []*kernel.Tensor{tensor(kernel.Int8, shp(4, 6)), f32(shp(4, 1))}, []string{"[4,2]"}},
		{"DequantizeLinear", formAttrs(21, "block_size", int64(0)), []*kernel.Tensor{tensor(kernel.Int8, shp(4, 6)), f32(shp(4, 2))}, []string{"want a scalar or [6]"}},
		{"DequantizeLinear", formAttrs(20, "block_size", int64(3)), []*kernel.Tensor{tensor(kernel.Int8, shp(4, 6)), f32(shp(4, 2))}, []string{"block_size"}},
		{"DequantizeLinear", formAttrs(21, "output_dtype", int64(1)), []*kernel.Tensor{tensor(kernel.Int8, shp(4, 6)), f32(shp())}, []string{"output_dtype"}},
	} {
		wantErr(t, c.op, c.attrs, c.in, c.want...)
	}
}

// TestQuantize21Blocked: blocked (de)quantization is per-element
// (de)quantization with each scale and zero point repeated block_size
// times along the axis, the last block short when it does not divide.
func TestQuantize21Blocked(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 1))
	for range 60 {
		rank := 1 + r.IntN(3)
		shape := make([]int64, rank)
		for i := range shape {
			shape[i] = int64(1 + r.IntN(6))
		}
		axis := r.IntN(rank)
		block := int64(1 + r.IntN(4))
		sshape := append([]int64{}, shape...)
		sshape[axis] = (shape[axis] + block - 1) / block
		if rank == 1 && sshape[0] == 1 {
			continue // a one-element 1-D scale is per tensor
		}
		ns := numel(sshape)
		sv := make([]float64, ns)
		zv := make([]float64, ns)
		for i := range sv {
			sv[i] = float64(1+r.IntN(16)) / 64
			zv[i] = float64(r.IntN(256) - 128)
		}
		x := tensor(kernel.Float32, shape, randValues(r, kernel.Float32, numel(shape))...)
		xv := values(x)
		scale, zp := f32(sshape, sv...), tensor(kernel.Int8, sshape, zv...)
		attrs := formAttrs(21, "axis", int64(axis-rank), "block_size", block)
		q := mustRun(t, "QuantizeLinear", attrs, x, scale, zp)
		want := make([]float64, len(xv))
		for i := range xv {
			idx := unravel(int64(i), shape)
			idx[axis] /= block
			j := ravel(idx, sshape)
			want[i] = math.Max(-128, math.Min(127, math.RoundToEven(float64(float32(xv[i])/float32(sv[j])))+zv[j]))
		}
		checkValues(t, "blocked QuantizeLinear", q, shape, want)
		d := mustRun(t, "DequantizeLinear", attrs, q, scale, zp)
		for i, v := range want {
			idx := unravel(int64(i), shape)
			idx[axis] /= block
			j := ravel(idx, sshape)
			want[i] = float64(float32((v - zv[j]) * sv[j]))
		}
		checkValues(t, "blocked DequantizeLinear", d, shape, want)
	}
	// output_dtype without a zero point; saturate changes nothing.
	x := f32(shp(3), -300, 0.4, 300)
	checkValues(t, "output_dtype int8", mustRun(t, "QuantizeLinear", formAttrs(21, "output_dtype", int64(3)), x, f32(shp(), 2)), shp(3), []float64{-128, 0, 127})
	checkValues(t, "saturate 0", mustRun(t, "QuantizeLinear", formAttrs(19, "saturate", int64(0)), x, f32(shp(), 2)), shp(3), []float64{0, 0, 150})
}

// TestAttributesOfAnotherOpset: an attribute given at an opset that does
// not have it is an error when the node names its opset (an imported
// model); the same attribute at its own opsets, or in a graph built by
// hand without an opset, is accepted.
func TestAttributesOfAnotherOpset(t *testing.T) {
	at := func(opset int64, kv ...any) kernel.Attrs {
		a := kernel.Attrs{kernel.OpsetAttr: opset}
		for i := 0; i < len(kv); i += 2 {
			a[kv[i].(string)] = kv[i+1]
		}
		return a
	}
	for _, c := range []struct {
		op    string
		bad   kernel.Attrs
		frag  string
		good  kernel.Attrs
		plain kernel.Attrs // the same without an opset
	}{
		{"Slice", at(13, "starts", []int64{1}, "ends", []int64{3}), `"starts" is not in opset 13`, at(9, "starts", []int64{1}, "ends", []int64{3}), kernel.Attrs{"starts": []int64{1}, "ends": []int64{3}}},
		{"Slice", at(9), "opset 9 takes starts and ends as attributes", at(10), kernel.Attrs{}},
		{"ReduceSum", at(13, "axes", []int64{0}), `"axes" is not in opset 13`, at(12, "axes", []int64{0}), kernel.Attrs{"axes": []int64{0}}},
		{"ReduceSum", at(11, "noop_with_empty_axes", int64(1)), `"noop_with_empty_axes" is not in opset 11`, at(13, "noop_with_empty_axes", int64(1)), kernel.Attrs{"noop_with_empty_axes": int64(1)}},
		{"DepthToSpace", at(7, "blocksize", int64(2), "mode", "CRD"), `"mode" is not in opset 7`, at(11, "blocksize", int64(2), "mode", "CRD"), kernel.Attrs{"blocksize": int64(2), "mode": "CRD"}},
		{"ArgMax", at(11, "select_last_index", int64(1)), `"select_last_index" is not in opset 11`, at(12, "select_last_index", int64(1)), kernel.Attrs{"select_last_index": int64(1)}},
		{"Flatten", at(9, "axis", int64(-1)), "negative axes came in opset 11", at(11, "axis", int64(-1)), kernel.Attrs{"axis": int64(-1)}},
	} {
		if _, err := Builtins().New(c.op, c.bad); err == nil || !strings.Contains(err.Error(), c.frag) {
			t.Errorf("%s %v: error %v, want one containing %q", c.op, c.bad, err, c.frag)
		}
		for _, a := range []kernel.Attrs{c.good, c.plain} {
			if _, err := Builtins().New(c.op, a); err != nil {
				t.Errorf("%s %v: %v", c.op, a, err)
			}
		}
	}
	// ReduceSum before 13 takes no axes input.
	k, err := Builtins().New("ReduceSum", at(11))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := prepare(k, 0, f32(shp(2, 2)), i64(shp(1), 0)); err == nil {
		t.Error("ReduceSum at opset 11 took an axes input")
	}
}

// TestQuantizeNaN: a NaN quotient quantizes to the output type's minimum,
// whatever the zero point, as onnxruntime's clamp gives (ONNX leaves it
// undefined); ±Inf saturate.
func TestQuantizeNaN(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		dt   kernel.DType
		want []float64
	}{
		{kernel.Int8, []float64{-128, 127, -128, -128}},
		{kernel.Uint8, []float64{0, 255, 0, 0}},
		{kernel.Int16, []float64{-32768, 32767, -32768, -32768}},
		{kernel.Uint16, []float64{0, 65535, 0, 0}},
	} {
		x := f32(shp(4), nan, inf, -inf, nan)
		zp := tensor(c.dt, shp(), 3)
		q := mustRun(t, "QuantizeLinear", formAttrs(21), x, f32(shp(), 0.5), zp)
		checkValues(t, fmt.Sprintf("QuantizeLinear to %v", c.dt), q, shp(4), c.want)
	}
}

// TestQuantizePerTensorShapes: a per-tensor scale and zero point may be a
// scalar and a [1] in either order, as in onnxruntime and ONNX's
// reference implementation; a one-element zero point of rank 2 is refused,
// as onnxruntime refuses it. The values are onnxruntime 1.30's for x
// −3, 0, 1.5, 7, scale 2 and zero point 1 (at the opsets whose
// QuantizeLinear lists the dtype: 21 for the 4-bit integers, 25 for the
// 2-bit ones).
func TestQuantizePerTensorShapes(t *testing.T) {
	x := f32(shp(4), -3, 0, 1.5, 7)
	zeroPt := func(dt kernel.DType, shape []int64) *kernel.Tensor {
		z := kernel.New(dt, shape...)
		z.Host[0] = 1
		return z
	}
	for _, c := range []struct {
		dt     kernel.DType
		opsets []int64
		want   []byte
	}{
		{kernel.Int8, formInts(13, 19, 21, 25), []byte{0xff, 1, 2, 5}},
		{kernel.Uint8, formInts(13, 19, 21, 25), []byte{0, 1, 2, 5}},
		{kernel.Int4, formInts(21, 25), []byte{0xff, 1, 2, 5}},
		{kernel.Uint4, formInts(21, 25), []byte{0, 1, 2, 5}},
		{kernel.Int2, formInts(25), []byte{0xff, 1, 1, 1}},
		{kernel.Uint2, formInts(25), []byte{0, 1, 2, 3}},
	} {
		for _, shapes := range [][2][]int64{{shp(), shp(1)}, {shp(1), shp()}, {shp(1), shp(1)}} {
			scale, zp := f32(shapes[0], 2), zeroPt(c.dt, shapes[1])
			for _, opset := range c.opsets {
				y, err := hostRun(t, "QuantizeLinear", formAttrs(opset), x, scale, zp)
				if err != nil {
					t.Fatalf("QuantizeLinear-%d to %v, scale %v, zero point %v: %v", opset, c.dt, scale.Shape, zp.Shape, err)
				}
				if string(y.Host) != string(c.want) {
					t.Errorf("QuantizeLinear-%d to %v, scale %v, zero point %v: % x, want % x", opset, c.dt, scale.Shape, zp.Shape, y.Host, c.want)
				}
				d, err := hostRun(t, "DequantizeLinear", formAttrs(opset), y, scale, zp)
				if err != nil {
					t.Fatalf("DequantizeLinear-%d of %v, scale %v, zero point %v: %v", opset, c.dt, scale.Shape, zp.Shape, err)
				}
				want := make([]float64, len(c.want))
				for i, q := range y.Host {
					want[i] = 2 * float64(loadI(c.dt, []byte{q}, 0)-1)
				}
				if got := values(d); !slices.Equal(got, want) {
					t.Errorf("DequantizeLinear-%d of %v, scale %v, zero point %v: %v, want %v", opset, c.dt, scale.Shape, zp.Shape, got, want)
				}
			}
		}
		for _, shapes := range [][2][]int64{{shp(), shp(1, 1)}, {shp(1), shp(1, 1)}} {
			wantErr(t, "QuantizeLinear", formAttrs(21), []*kernel.Tensor{x, f32(shapes[0], 2), zeroPt(c.dt, shapes[1])}, "differ in shape")
		}
	}
}
