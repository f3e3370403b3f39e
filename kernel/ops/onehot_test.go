package ops

import (
	"math"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestOneHotFloatIndices: a float index selects the position it equals
// (negative ones counting from depth), and a fractional one none, as in
// onnxruntime and ONNX's reference: no truncation toward zero.
func TestOneHotFloatIndices(t *testing.T) {
	idx := []float64{0, 1.5, -1, 0.9, -1.2, 2.5, 2, -0.5, -3, 3, -4, math.NaN(), math.Inf(-1)}
	hit := []int{0, -1, 2, -1, -1, -1, 2, -1, 0, -1, -1, -1, -1} // the position selected, −1 for none
	n := int64(len(idx))
	want := make([]float64, 3*n)
	for i, p := range hit {
		for j := range 3 {
			want[3*i+j] = 1
			if j == p {
				want[3*i+j] = 5
			}
		}
	}
	for _, dt := range []kernel.DType{kernel.Float32, kernel.Float16, kernel.Float64} {
		out := mustRun(t, "OneHot", nil, tensor(dt, shp(n), idx...), i64(shp(), 3), f32(shp(2), 1, 5))
		checkValues(t, "OneHot of "+dt.String()+" indices", out, shp(n, 3), want)
	}
	// axis 0, integer indices for comparison.
	out := mustRun(t, "OneHot", kernel.Attrs{"axis": int64(0)}, tensor(kernel.Int32, shp(4), 0, -1, 3, -4), i64(shp(), 3), i64(shp(2), 0, 1))
	checkValues(t, "OneHot of int32 indices", out, shp(3, 4), []float64{1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0})
}

// TestOneHotMatchRounding: float32 and float16 indices compute in float32,
// as onnxruntime does: a negative index plus depth rounds to float32, and
// a position is compared as a float32; float64 indices compute exactly.
func TestOneHotMatchRounding(t *testing.T) {
	one := func(dt kernel.DType, v float64) []byte { return tensor(dt, shp(1), v).Host }
	u := kernel.New(kernel.Uint64, 1)
	kernel.Uint64s(u.Host)[0] = math.MaxUint64
	for _, c := range []struct {
		what string
		dt   kernel.DType
		b    []byte
		j, d int64
		want bool
	}{
		// −1.5 + 2^23 + 2 is 2^23 + 0.5 in float32, a tie rounded to 2^23.
		{"float32 −1.5, depth 2^23+2, at 2^23", kernel.Float32, one(kernel.Float32, -1.5), 1 << 23, 1<<23 + 2, true},
		{"float32 −1.5, depth 2^23+2, at 2^23+1", kernel.Float32, one(kernel.Float32, -1.5), 1<<23 + 1, 1<<23 + 2, false},
		{"float64 −1.5, depth 2^23+2, at 2^23", kernel.Float64, one(kernel.Float64, -1.5), 1 << 23, 1<<23 + 2, false},
		// 2^24 + 1 is 2^24 in float32.
		{"float32 2^24 at 2^24+1", kernel.Float32, one(kernel.Float32, 1<<24), 1<<24 + 1, 1<<24 + 2, true},
		{"float64 2^24 at 2^24+1", kernel.Float64, one(kernel.Float64, 1<<24), 1<<24 + 1, 1<<24 + 2, false},
		// −1.5 + 1026 is 1024.5 in float32 (float16 arithmetic would round it to 1024).
		{"float16 −1.5, depth 1026, at 1024", kernel.Float16, one(kernel.Float16, -1.5), 1024, 1026, false},
		{"float16 −2, depth 1026, at 1024", kernel.Float16, one(kernel.Float16, -2), 1024, 1026, true},
		{"int64 −1, depth 7, at 6", kernel.Int64, one(kernel.Int64, -1), 6, 7, true},
		// A uint64 is never negative: 2^64 − 1 selects nothing.
		{"uint64 max, depth 3, at 2", kernel.Uint64, u.Host, 2, 3, false},
	} {
		if got := oneHotMatch(c.dt, c.b, 0, c.j, c.d); got != c.want {
			t.Errorf("%s: %v, want %v", c.what, got, c.want)
		}
	}
}
