package ops

import (
	"math"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func TestLpNormalizationValues(t *testing.T) {
	x := f32(shp(2, 2), 3, 4, 0, neg0())
	checkValues(t, "p 2", mustRun(t, "LpNormalization", nil, x), shp(2, 2), []float64{float64(float32(0.6)), float64(float32(0.8)), 0, 0})
	x = tensor(kernel.Float64, shp(2, 2), 1, -2, -3, 6)
	// p 1 along axis 0: the columns' norms are 4 and 8.
	checkValues(t, "p 1 axis 0", mustRun(t, "LpNormalization", kernel.Attrs{"p": int64(1), "axis": int64(0)}, x), shp(2, 2), []float64{0.25, -0.25, -0.75, 0.75})
	out := mustRun(t, "LpNormalization", kernel.Attrs{"axis": int64(-2)}, tensor(kernel.Float16, shp(2, 1), 0, neg0()))
	if got := values(out); math.Signbit(got[1]) || got[0] != 0 {
		t.Errorf("a zero lane gives %v, want +0s", got)
	}
}

func TestLpNormalizationRefusesMisuse(t *testing.T) {
	x := f32(shp(2, 3))
	wantErr(t, "LpNormalization", kernel.Attrs{"p": int64(3)}, []*kernel.Tensor{x}, "p 3 is not implemented")
	wantErr(t, "LpNormalization", kernel.Attrs{"axis": int64(2)}, []*kernel.Tensor{x}, "axis 2 out of range")
	wantErr(t, "LpNormalization", kernel.Attrs{"axis": int64(-3)}, []*kernel.Tensor{x}, "axis -3 out of range")
	wantErr(t, "LpNormalization", nil, []*kernel.Tensor{i64(shp(2))}, "dtype")
	wantErr(t, "LpNormalization", kernel.Attrs{"epsilon": 1.0}, []*kernel.Tensor{x}, "epsilon")
}

func TestLpPoolValues(t *testing.T) {
	x := f32(shp(1, 1, 5), 1, -2, 3, -4, 5)
	s := math.Sqrt
	at := func(opset int64, a kernel.Attrs) kernel.Attrs {
		a[kernel.OpsetAttr] = opset
		return a
	}
	// Windows of two: √(1+4), √(4+9), √(9+16), √(16+25).
	checkClose(t, "p 2", mustRun(t, "LpPool", at(11, kernel.Attrs{"kernel_shape": []int64{2}}), x), shp(1, 1, 4), []float64{s(5), s(13), s(25), s(41)}, 1e-7)
	checkValues(t, "p 1, padded", mustRun(t, "LpPool", at(2, kernel.Attrs{"kernel_shape": []int64{2}, "p": int64(1), "pads": []int64{1, 1}}), x), shp(1, 1, 6), []float64{1, 3, 5, 7, 9, 5})
	// Dilation 2: elements (0, 2), (1, 3), (2, 4).
	checkClose(t, "dilated", mustRun(t, "LpPool", at(18, kernel.Attrs{"kernel_shape": []int64{2}, "dilations": []int64{2}}), x), shp(1, 1, 3), []float64{s(10), s(20), s(34)}, 1e-7)
	// ceil_mode: the windows start at -1, 1, 3; one at 5 would start past
	// the input and its leading padding, and is dropped.
	checkClose(t, "ceil", mustRun(t, "LpPool", at(18, kernel.Attrs{"kernel_shape": []int64{2}, "strides": []int64{2}, "pads": []int64{1, 1}, "ceil_mode": int64(1)}), x),
		shp(1, 1, 3), []float64{1, s(13), s(41)}, 1e-7)
	// A window wholly in the padding is 0: taps -1 and 2 of [1, 2].
	checkValues(t, "window in padding", mustRun(t, "LpPool", at(18, kernel.Attrs{"kernel_shape": []int64{2}, "dilations": []int64{3}, "pads": []int64{1, 1}}), f32(shp(1, 1, 2), 1, 2)), shp(1, 1, 1), []float64{0})
	// p 3 over a 2x2 window: (1 + 8 + 27 + 64)^(1/3).
	checkClose(t, "p 3, 2-D", mustRun(t, "LpPool", at(22, kernel.Attrs{"kernel_shape": []int64{2, 2}, "p": int64(3)}), tensor(kernel.Float64, shp(1, 1, 2, 2), 1, -2, 3, -4)), shp(1, 1, 1, 1), []float64{math.Cbrt(100)}, 1e-15)
	// GlobalLpPool over 1x2 planes.
	checkValues(t, "global", mustRun(t, "GlobalLpPool", nil, f32(shp(1, 2, 1, 2), 3, -4, 0, neg0())), shp(1, 2, 1, 1), []float64{5, 0})
	checkValues(t, "global p 1", mustRun(t, "GlobalLpPool", kernel.Attrs{"p": int64(1)}, f32(shp(1, 1, 3), 3, -4, 1)), shp(1, 1, 1), []float64{8})
}

func TestLpPoolRefusesMisuse(t *testing.T) {
	x := f32(shp(1, 1, 5))
	k2 := []int64{2}
	wantErr(t, "LpPool", nil, []*kernel.Tensor{x}, "kernel_shape is required")
	wantErr(t, "LpPool", kernel.Attrs{"kernel_shape": k2, "p": int64(0)}, []*kernel.Tensor{x}, "p 0 is not implemented")
	wantErr(t, "LpPool", kernel.Attrs{"kernel_shape": k2, "ceil_mode": int64(1), kernel.OpsetAttr: int64(11)}, []*kernel.Tensor{x}, "ceil_mode")
	wantErr(t, "LpPool", kernel.Attrs{"kernel_shape": k2, "dilations": k2, kernel.OpsetAttr: int64(17)}, []*kernel.Tensor{x}, "dilations")
	wantErr(t, "LpPool", kernel.Attrs{"kernel_shape": k2, "dilations": k2, "auto_pad": "SAME_UPPER"}, []*kernel.Tensor{x}, "SAME_UPPER with dilations", "not implemented")
	wantErr(t, "LpPool", kernel.Attrs{"kernel_shape": k2, "count_include_pad": int64(1)}, []*kernel.Tensor{x}, "count_include_pad")
	wantErr(t, "LpPool", kernel.Attrs{"kernel_shape": k2}, []*kernel.Tensor{f32(shp(2, 5))}, "rank 3 to 5")
	// A window one longer than the input: no output, as onnxruntime
	// gives (span/stride + 1 truncated toward zero: 0); two longer: an
	// error.
	checkValues(t, "no window", mustRun(t, "LpPool", kernel.Attrs{"kernel_shape": []int64{6}}, x), shp(1, 1, 0), nil)
	wantErr(t, "LpPool", kernel.Attrs{"kernel_shape": []int64{7}}, []*kernel.Tensor{x}, "exceeds padded input")
	wantErr(t, "LpPool", kernel.Attrs{"kernel_shape": k2}, []*kernel.Tensor{i64(shp(1, 1, 5))}, "dtype")
	wantErr(t, "GlobalLpPool", kernel.Attrs{"p": int64(-1)}, []*kernel.Tensor{x}, "p -1 is not implemented")
	wantErr(t, "GlobalLpPool", nil, []*kernel.Tensor{f32(shp(2, 5))}, "rank 3 or more")
	wantErr(t, "GlobalLpPool", kernel.Attrs{"kernel_shape": k2}, []*kernel.Tensor{x}, "kernel_shape")
}

func TestMaxRoiPoolValues(t *testing.T) {
	x := kernel.New(kernel.Float32, 1, 1, 4, 4)
	for i := range 16 {
		setValue(x.Host, kernel.Float32, i, float64(i))
	}
	rois := f32(shp(3, 5),
		0, 0, 0, 3, 3, // the whole image: 2x2 bins
		0, 5, 5, 9, 9, // outside: 0
		0, 3, 3, 1, 1) // malformed: the pixel (3, 3)
	checkValues(t, "rois", mustRun(t, "MaxRoiPool", kernel.Attrs{"pooled_shape": []int64{2, 2}}, x, rois), shp(3, 1, 2, 2),
		[]float64{5, 7, 13, 15, 0, 0, 0, 0, 15, 15, 15, 15})
	// spatial_scale 0.5: (1, 1, 3, 5) becomes columns 1 (round(0.5)) to 2
	// (round(1.5)), rows 1 to 3 (round(2.5)), one bin.
	checkValues(t, "scaled", mustRun(t, "MaxRoiPool", kernel.Attrs{"pooled_shape": []int64{1, 1}, "spatial_scale": 0.5}, x, f32(shp(1, 5), 0, 1, 1, 3, 5)),
		shp(1, 1, 1, 1), []float64{14})
	// A bin of -Inf only is the lowest finite value.
	neg := f32(shp(1, 1, 1, 2), math.Inf(-1), math.Inf(-1))
	checkValues(t, "-Inf", mustRun(t, "MaxRoiPool", kernel.Attrs{"pooled_shape": []int64{1, 1}}, neg, f32(shp(1, 5), 0, 0, 0, 1, 0)),
		shp(1, 1, 1, 1), []float64{-math.MaxFloat32})
	// The batch index truncates: 1.9 is image 1.
	two := f32(shp(2, 1, 1, 1), 1, 2)
	checkValues(t, "batch", mustRun(t, "MaxRoiPool", kernel.Attrs{"pooled_shape": []int64{1, 1}}, two, f32(shp(1, 5), 1.9, 0, 0, 0, 0)), shp(1, 1, 1, 1), []float64{2})
}

func TestMaxRoiPoolRefusesMisuse(t *testing.T) {
	x := f32(shp(1, 1, 4, 4))
	r := f32(shp(1, 5), 0, 0, 0, 1, 1)
	p := kernel.Attrs{"pooled_shape": []int64{1, 1}}
	wantErr(t, "MaxRoiPool", nil, []*kernel.Tensor{x, r}, "pooled_shape []:")
	wantErr(t, "MaxRoiPool", kernel.Attrs{"pooled_shape": []int64{2}}, []*kernel.Tensor{x, r}, "two positive values")
	wantErr(t, "MaxRoiPool", kernel.Attrs{"pooled_shape": []int64{0, 1}}, []*kernel.Tensor{x, r}, "two positive values")
	wantErr(t, "MaxRoiPool", p, []*kernel.Tensor{x, tensor(kernel.Float64, shp(1, 5))}, "rois has dtype")
	wantErr(t, "MaxRoiPool", p, []*kernel.Tensor{x, f32(shp(1, 4))}, "[R, 5]")
	wantErr(t, "MaxRoiPool", p, []*kernel.Tensor{f32(shp(1, 4, 4)), r}, "[N, C, H, W]")
	wantErr(t, "MaxRoiPool", p, []*kernel.Tensor{x, f32(shp(1, 5), 1, 0, 0, 1, 1)}, "batch index 1")
	wantErr(t, "MaxRoiPool", p, []*kernel.Tensor{x, f32(shp(1, 5), -1, 0, 0, 1, 1)}, "batch index -1")
	wantErr(t, "MaxRoiPool", p, []*kernel.Tensor{x, f32(shp(1, 5), 0, math.NaN(), 0, 1, 1)}, "rois[0][1]", "not a finite value")
	wantErr(t, "MaxRoiPool", p, []*kernel.Tensor{x, f32(shp(1, 5), 0, 0, 0, 3e9, 1)}, "rois[0][3]")
	wantErr(t, "MaxRoiPool", p, []*kernel.Tensor{x, f32(shp(1, 5), math.Inf(1), 0, 0, 1, 1)}, "rois[0][0]")
}
