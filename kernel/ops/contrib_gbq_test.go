package ops

import (
	"math"
	"strings"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "GatherBlockQuantized")
}

func u8(shape []int64, v ...float64) *kernel.Tensor { return tensor(kernel.Uint8, shape, v...) }

// TestGatherBlockQuantized checks values computed by hand: uint8 data
// packing 4, 2 and 8 bits with default and packed zero points, 4-bit data
// on other axes, special scales, and an empty gather.
func TestGatherBlockQuantized(t *testing.T) {
	const op = "GatherBlockQuantized"
	bs16 := kernel.Attrs{"block_size": int64(16)}
	// Rows of two 4-bit values, low nibble first: [1 2] [3 4] [0 15].
	data := u8(shp(3, 1), 0x21, 0x43, 0xf0)
	scales := f32(shp(3, 1), 0.5, 2, -1)
	idx := i64(shp(2), 2, -3)
	// Zero point 8 by default: row 2 (0−8)·−1, (15−8)·−1; row 0 (1−8)·0.5, (2−8)·0.5.
	checkValues(t, "4 bits", mustRun(t, op, bs16, data, idx, scales), shp(2, 2), []float64{8, -7, -3.5, -3})
	// Packed zero points: 1, 15, 7.
	zp := u8(shp(3, 1), 0x01, 0x0f, 0x07)
	checkValues(t, "4 bits, zero points", mustRun(t, op, bs16, data, idx, scales, zp), shp(2, 2), []float64{7, -8, 0, 0.5})

	// 2 bits: 0b11_10_01_00 holds 0, 1, 2, 3; zero point 2, or 1 packed.
	two := kernel.Attrs{"block_size": int64(16), "bits": int64(2)}
	d2, s2, i0 := u8(shp(1, 1), 0xe4), f32(shp(1, 1), 3), i64(shp(1), 0)
	checkValues(t, "2 bits", mustRun(t, op, two, d2, i0, s2), shp(1, 4), []float64{-6, -3, 0, 3})
	checkValues(t, "2 bits, zero point", mustRun(t, op, two, d2, i0, s2, u8(shp(1, 1), 0x01)), shp(1, 4), []float64{-3, 0, 3, 6})

	// 8 bits, zero point 128, int32 indices.
	eight := kernel.Attrs{"block_size": int64(16), "bits": int64(8)}
	checkValues(t, "8 bits", mustRun(t, op, eight, u8(shp(2, 2), 10, 250, 0, 128), i32(shp(1), 1), f32(shp(2, 1), 1, 0.25)),
		shp(1, 2), []float64{-32, 0})

	// 4-bit values a byte (INT4 read as int8), gathered on axis 1 and
	// quantized on axis 0: out[q][j] = (data[q][idx_j] − zp[idx_j])·scale[idx_j].
	unpacked := kernel.Attrs{"block_size": int64(16), "gather_axis": int64(1), "quantize_axis": int64(0), UnpackedAttr: int64(1)}
	d4 := tensor(kernel.Int8, shp(2, 3), -8, 7, 1, 2, -1, 0)
	z4 := tensor(kernel.Int8, shp(1, 3), 1, 0, -1)
	checkValues(t, "int4", mustRun(t, op, unpacked, d4, i64(shp(2), 2, 0), f32(shp(1, 3), 1, 2, 4), z4), shp(2, 2), []float64{8, -9, 4, 1})

	// Special scales: NaN, +Inf (times 0 is NaN), −0 (times a positive
	// value or +0 is −0).
	special := u8(shp(4, 1), 0x98, 0x07, 0x89, 0x08)
	sSpecial := f32(shp(4, 1), math.NaN(), math.Inf(1), math.Copysign(0, -1), math.Inf(1))
	negZero := math.Copysign(0, -1)
	checkValues(t, "special scales", mustRun(t, op, bs16, special, i64(shp(4), 0, 1, 2, 3), sSpecial), shp(4, 2),
		[]float64{math.NaN(), math.NaN(), math.Inf(-1), math.Inf(-1), negZero, negZero, math.NaN(), math.Inf(-1)})

	// No index: an empty output.
	checkValues(t, "no index", mustRun(t, op, bs16, data, i64(shp(0)), scales), shp(0, 2), nil)
}

// TestGatherBlockQuantizedErrors: every attribute and operand out of its
// form is an error naming it.
func TestGatherBlockQuantizedErrors(t *testing.T) {
	const op = "GatherBlockQuantized"
	for _, tc := range []struct {
		attrs kernel.Attrs
		frag  string
	}{
		{kernel.Attrs{"block_size": int64(8)}, "block_size 8"},
		{kernel.Attrs{"block_size": int64(24)}, "block_size 24"},
		{kernel.Attrs{"bits": int64(3)}, "bits 3"},
		{kernel.Attrs{"bits": int64(8), UnpackedAttr: int64(1)}, "bits 8"},
		{kernel.Attrs{"axis": int64(0)}, "axis"},
	} {
		if _, err := Builtins().New(op, tc.attrs); err == nil || !strings.Contains(err.Error(), tc.frag) {
			t.Errorf("%v: error %v, want one naming %q", tc.attrs, err, tc.frag)
		}
	}
	bs16 := kernel.Attrs{"block_size": int64(16)}
	data, idx, scales := u8(shp(3, 1), 0x21, 0x43, 0xf0), i64(shp(1), 0), f32(shp(3, 1), 1, 1, 1)
	wantErr(t, op, bs16, []*kernel.Tensor{tensor(kernel.Int8, shp(3, 1)), idx, scales}, "data", "dtype")
	wantErr(t, op, bs16, []*kernel.Tensor{data, f32(shp(1), 0), scales}, "indices", "dtype")
	wantErr(t, op, bs16, []*kernel.Tensor{data, idx, tensor(kernel.BFloat16, shp(3, 1))}, "scales", "dtype")
	wantErr(t, op, bs16, []*kernel.Tensor{data, idx, scales, tensor(kernel.Int8, shp(3, 1))}, "zero_points", "dtype")
	wantErr(t, op, kernel.Attrs{"block_size": int64(16), "gather_axis": int64(1)}, []*kernel.Tensor{data, idx, scales}, "gather_axis", "must be 0")
	wantErr(t, op, kernel.Attrs{"block_size": int64(16), "quantize_axis": int64(0)}, []*kernel.Tensor{data, idx, scales}, "quantize_axis")
	wantErr(t, op, kernel.Attrs{"block_size": int64(16), "gather_axis": int64(2)}, []*kernel.Tensor{data, idx, scales}, "gather_axis", "out of range")
	wantErr(t, op, bs16, []*kernel.Tensor{data, idx, f32(shp(3), 1, 1, 1)}, "scales", "rank")
	wantErr(t, op, bs16, []*kernel.Tensor{data, idx, f32(shp(3, 2))}, "scales", "blocks of 16")
	wantErr(t, op, bs16, []*kernel.Tensor{data, idx, f32(shp(2, 1))}, "scales", "dimension 0")
	wantErr(t, op, bs16, []*kernel.Tensor{data, idx, scales, u8(shp(3, 2))}, "zero_points", "want [3,1]")
	wantErr(t, op, bs16, []*kernel.Tensor{data, i64(shp(2), 1, 3), scales}, "index 3", "out of range")
	wantErr(t, op, bs16, []*kernel.Tensor{data, i64(shp(1), -4), scales}, "index -4", "out of range")
}
