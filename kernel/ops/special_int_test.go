package ops

import (
	"fmt"
	"math"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "And", "Or", "Xor", "Not", "BitShift", "Shape", "Size", "EyeLike")
}

// The ops without a float input whose value matters run on their own
// dtypes' extreme values instead: every pair of bools, every uint8 shifted
// by every count, and shapes that are empty or have a zero extent.

// TestSpecialBool: And, Or, Xor and Not on every pair of bools, x [2,1]
// against y [1,2].
func TestSpecialBool(t *testing.T) {
	x, y := tensor(kernel.Bool, shp(2, 1), 0, 1), tensor(kernel.Bool, shp(1, 2), 0, 1)
	for _, c := range []struct {
		op  string
		ref func(a, b bool) bool
	}{
		{"And", func(a, b bool) bool { return a && b }},
		{"Or", func(a, b bool) bool { return a || b }},
		{"Xor", func(a, b bool) bool { return a != b }},
	} {
		out, err := runOp(c.op, nil, x, y)
		if err != nil {
			t.Errorf("%s: %v", c.op, err)
			continue
		}
		want := make([]uint64, 4)
		for i := range 4 {
			want[i] = uint64(b2f(c.ref(i/2 == 1, i%2 == 1)))
		}
		checkBits(t, c.op, out[0], kernel.Bool, shp(2, 2), want, true, func(i int) string { return fmt.Sprintf("%v, %v", i/2 == 1, i%2 == 1) })
	}
	out, err := runOp("Not", nil, tensor(kernel.Bool, shp(2), 0, 1))
	if err != nil {
		t.Fatalf("Not: %v", err)
	}
	checkBits(t, "Not", out[0], kernel.Bool, shp(2), []uint64{1, 0}, true, func(i int) string { return fmt.Sprint(i == 1) })
}

// TestSpecialBitShift: every uint8 extreme (0, 1, 127, 128, 255) shifted
// each way by every count 0 to 9 and 255: the bits shifted out are lost, a
// shift by 8 or more gives 0.
func TestSpecialBitShift(t *testing.T) {
	xs := []float64{0, 1, 127, 128, 255}
	ys := []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 255}
	nx, ny := int64(len(xs)), int64(len(ys))
	for _, dir := range []string{"LEFT", "RIGHT"} {
		out, err := runOp("BitShift", kernel.Attrs{"direction": dir}, tensor(kernel.Uint8, shp(nx, 1), xs...), tensor(kernel.Uint8, shp(1, ny), ys...))
		if err != nil {
			t.Errorf("BitShift %s: %v", dir, err)
			continue
		}
		want := make([]uint64, nx*ny)
		for i, x := range xs {
			for j, y := range ys {
				v := uint64(0)
				if y < 8 {
					if dir == "LEFT" {
						v = uint64(uint8(uint(x) << uint(y)))
					} else {
						v = uint64(uint8(uint(x) >> uint(y)))
					}
				}
				want[int64(i)*ny+int64(j)] = v
			}
		}
		checkBits(t, "BitShift "+dir, out[0], kernel.Uint8, shp(nx, ny), want, true, func(k int) string {
			return fmt.Sprintf("%g by %g", xs[int64(k)/ny], ys[int64(k)%ny])
		})
	}
}

// TestSpecialShapeOps: Shape, Size and EyeLike on empty tensors, scalars
// and a zero extent; Shape with start and end beyond the rank (clamped).
func TestSpecialShapeOps(t *testing.T) {
	for _, s := range [][]int64{nil, {0}, {3, 0, 2}, {1, 1, 1, 1, 1, 1}, {0, 0}} {
		x := kernel.New(kernel.Float32, s...)
		out, err := runOp("Shape", nil, x)
		if err != nil {
			t.Errorf("Shape %v: %v", s, err)
		} else {
			want := make([]uint64, len(s))
			for i, d := range s {
				want[i] = uint64(d)
			}
			checkBits(t, fmt.Sprintf("Shape %v", s), out[0], kernel.Int64, shp(int64(len(s))), want, true, func(i int) string { return fmt.Sprint("axis ", i) })
		}
		out, err = runOp("Size", nil, x)
		if err != nil {
			t.Errorf("Size %v: %v", s, err)
		} else {
			checkBits(t, fmt.Sprintf("Size %v", s), out[0], kernel.Int64, nil, []uint64{uint64(numel(s))}, true, func(int) string { return "" })
		}
	}
	for _, c := range []struct {
		start, end int64
		want       []uint64
	}{{-100, 100, []uint64{3, 0, 2}}, {math.MinInt64, math.MaxInt64, []uint64{3, 0, 2}}, {2, 1, nil}, {-1, 3, []uint64{2}}} {
		out, err := runOp("Shape", kernel.Attrs{"start": c.start, "end": c.end}, kernel.New(kernel.Float32, 3, 0, 2))
		name := fmt.Sprintf("Shape start %d end %d", c.start, c.end)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		checkBits(t, name, out[0], kernel.Int64, shp(int64(len(c.want))), c.want, true, func(i int) string { return fmt.Sprint("axis ", i) })
	}
	// EyeLike: ones on diagonal k of a 2-D shape, k beyond either side
	// giving all zeros; empty shapes give empty outputs.
	for _, s := range [][]int64{{0, 0}, {0, 3}, {3, 4}, {4, 3}} {
		for _, k := range []int64{math.MinInt64, -4, -1, 0, 1, 3, math.MaxInt64} {
			name := fmt.Sprintf("EyeLike %v k %d", s, k)
			out, err := runOp("EyeLike", kernel.Attrs{"k": k}, kernel.New(kernel.Int32, s...))
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			want := make([]uint64, numel(s))
			for i := range s[0] {
				for j := range s[1] {
					if j-i == k {
						want[i*s[1]+j] = 1
					}
				}
			}
			checkBits(t, name, out[0], kernel.Int32, s, want, true, func(i int) string { return fmt.Sprint("element ", i) })
		}
	}
}
