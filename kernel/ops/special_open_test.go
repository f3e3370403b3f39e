package ops

import (
	"fmt"
	"math"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "Range", "Unique", "DynamicQuantizeLinear", "NonMaxSuppression")
}

// The four ops below leave part of their special-value behaviour open in
// ONNX; each test sweeps the part the definition fixes and says which part
// it leaves out.

// TestSpecialRange: ONNX's Range has max(⌈(limit − start)/delta⌉, 0)
// elements start + i·delta. Every start, limit and delta of the sweep runs:
// a count the formula makes NaN, infinite or beyond 2³¹ (an infinite or NaN
// operand, a subnormal delta), and a zero delta, are errors; an infinite
// delta gives ⌈±0⌉ = 0 elements or ⌈-finite/Inf⌉ = 0 (empty); the elements
// are start + i·delta, rounded once (start −0 and i = 0 give −0 + 0·delta,
// +0 for a positive delta).
func TestSpecialRange(t *testing.T) {
	for _, dt := range []kernel.DType{kernel.Float32, kernel.Float64} {
		bits := sweepBits(dt)
		for _, sb := range bits {
			for _, lb := range bits {
				for _, db := range bits {
					s, l, d := refValue(dt, sb), refValue(dt, lb), refValue(dt, db)
					name := fmt.Sprintf("Range/%v start %g limit %g delta %g", dt, s, l, d)
					in := []*kernel.Tensor{bitsTensor(dt, nil, []uint64{sb}), bitsTensor(dt, nil, []uint64{lb}), bitsTensor(dt, nil, []uint64{db})}
					c := math.Ceil((l - s) / d)
					if c > 1<<10 && c <= 1<<31 {
						continue // legal, but too long to check here
					}
					out, err := runOp("Range", nil, in...)
					if d == 0 || math.IsNaN(c) || c > 1<<31 {
						if err == nil {
							t.Errorf("%s: %v, want an error", name, out[0].Shape)
						}
						continue
					}
					if err != nil {
						t.Errorf("%s: %v", name, err)
						continue
					}
					n := int64(max(c, 0))
					want := make([]uint64, n)
					for i := range n {
						want[i] = refBits(dt, s+float64(i)*d)
					}
					checkBits(t, name, out[0], dt, shp(n), want, false, func(i int) string { return fmt.Sprint("element ", i) })
				}
			}
		}
	}
	// Integer extremes: the count of a range across the whole of int64.
	for _, c := range []struct{ s, l, d, n int64 }{
		{math.MinInt32, math.MaxInt32, math.MaxInt32, 3},
		{math.MaxInt32, math.MinInt32, math.MinInt32, 2},
		{0, 1, math.MaxInt32, 1}, {1, 0, math.MaxInt32, 0},
		// limit − start beyond int64.
		{math.MinInt64, math.MaxInt64, 1 << 62, 4},
		{math.MaxInt64, math.MinInt64, -1 << 62, 4},
		{math.MinInt64, math.MaxInt64, math.MaxInt64, 3},
		{math.MaxInt64, math.MinInt64, math.MinInt64, 2},
		{-1, math.MaxInt64, math.MaxInt64, 2},
	} {
		out, err := runOp("Range", nil, kernel.FromInt64([]int64{c.s}), kernel.FromInt64([]int64{c.l}), kernel.FromInt64([]int64{c.d}))
		if err != nil {
			t.Errorf("Range %d %d %d: %v", c.s, c.l, c.d, err)
			continue
		}
		want := make([]uint64, c.n)
		for i := range c.n {
			want[i] = uint64(c.s + i*c.d)
		}
		checkBits(t, fmt.Sprintf("Range/int64 %d %d %d", c.s, c.l, c.d), out[0], kernel.Int64, shp(c.n), want, true, func(i int) string { return fmt.Sprint("element ", i) })
	}
	// A count beyond 2³¹ is an error, also when limit − start is beyond int64.
	if _, err := runOp("Range", nil, kernel.FromInt64([]int64{math.MinInt64}), kernel.FromInt64([]int64{math.MaxInt64}), kernel.FromInt64([]int64{1})); err == nil {
		t.Error("Range/int64 from -2^63 to 2^63-1 by 1: want an error")
	}
}

// TestSpecialUnique: the distinct values of the sweep's special values,
// compared as numbers: −0 equals +0 (one value, with the bits of its first
// occurrence in X for ONNX's form), every other value its own. Where the
// NaNs go and whether they count as one value ONNX leaves open (a NaN
// equals nothing, itself included); the sweep checks the kernels' own
// documented choice: one value, first in ONNX's form and last in
// pipert's.
func TestSpecialUnique(t *testing.T) {
	for _, dt := range sweepFloats {
		bits := sweepBits(dt)
		// Twice, the second time reversed, so that each value and each zero
		// occurs twice and −0 and +0 each come first once.
		x := append([]uint64(nil), bits...)
		for i := len(bits) - 1; i >= 0; i-- {
			x = append(x, bits[i])
		}
		// ONNX's form, sorted: keys by value, NaN last (numpy's unique).
		type group struct {
			first int
			count int64
		}
		var order []float64
		groups := map[float64]*group{}
		var nan *group
		inverse := make([]int, len(x))
		key := func(v float64) float64 {
			if v == 0 {
				return 0
			}
			return v
		}
		for i, b := range x {
			v := refValue(dt, b)
			if math.IsNaN(v) {
				if nan == nil {
					nan = &group{first: i}
				}
				nan.count++
				continue
			}
			g, ok := groups[key(v)]
			if !ok {
				g = &group{first: i}
				groups[key(v)] = g
				order = append(order, key(v))
			}
			g.count++
		}
		sortFloats(order)
		var y, idxs, counts []uint64
		pos := map[float64]int{}
		for _, k := range order {
			g := groups[k]
			pos[k] = len(y)
			y, idxs, counts = append(y, x[g.first]), append(idxs, uint64(g.first)), append(counts, uint64(g.count))
		}
		nanAt := len(y)
		if nan != nil {
			y, idxs, counts = append(y, x[nan.first]), append(idxs, uint64(nan.first)), append(counts, uint64(nan.count))
		}
		inv := make([]uint64, len(x))
		for i, b := range x {
			v := refValue(dt, b)
			if math.IsNaN(v) {
				inv[i] = uint64(nanAt)
			} else {
				inv[i] = uint64(pos[key(v)])
			}
			inverse[i] = int(inv[i])
		}
		u := int64(len(y))
		name := fmt.Sprintf("Unique(sorted)/%v", dt)
		out, err := runOp("Unique", kernel.Attrs{"sorted": int64(1)}, bitsTensor(dt, shp(int64(len(x))), x))
		if dt == kernel.BFloat16 { // not among ONNX's Unique's types, nor pipert's form's
			if err == nil {
				t.Errorf("%s: computed a dtype ONNX's Unique does not take", name)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		at := func(i int) string { return fmt.Sprint("distinct value ", i) }
		checkBits(t, name+" Y", out[0], dt, shp(u), y, false, at)
		checkBits(t, name+" indices", out[1], kernel.Int64, shp(u), idxs, true, at)
		checkBits(t, name+" inverse", out[2], kernel.Int64, shp(int64(len(x))), inv, true, func(i int) string { return fmt.Sprint("element ", i) })
		checkBits(t, name+" counts", out[3], kernel.Int64, shp(u), counts, true, at)
		// Every Y value's bits are X's at its first index: −0 or +0 as it
		// came first, each NaN payload as it came.
		for i, k := range tensorBits(out[1]) {
			if i < len(tensorBits(out[0])) && tensorBits(out[0])[i] != x[k] {
				t.Errorf("%s: Y[%d] is %s, not X[%d] = %s", name, i, showBits(dt, tensorBits(out[0])[i]), k, showBits(dt, x[k]))
			}
		}
		// pipert's form: ascending, NaN last, one zero (the first in sorted
		// order: −0).
		if dt == kernel.Float64 {
			continue // float32 and float16 only
		}
		var want []uint64
		for _, k := range order {
			b := x[groups[k].first]
			if k == 0 {
				b = refBits(dt, neg0())
			}
			want = append(want, b)
		}
		if nan != nil {
			want = append(want, x[nan.first])
		}
		out, err = runOp("Unique", nil, bitsTensor(dt, shp(int64(len(x))), x))
		if err != nil {
			t.Errorf("Unique/%v: %v", dt, err)
			continue
		}
		checkBits(t, fmt.Sprintf("Unique/%v", dt), out[0], dt, shp(int64(len(want))), want, false, at)
	}
}

// sortFloats sorts non-NaN values ascending.
func sortFloats(v []float64) {
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && v[j] < v[j-1]; j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
}

// TestSpecialDynamicQuantizeLinear: ONNX's reference computes, in float32,
// scale = (max(0, max x) − min(0, min x))/255, zero point = clamp(round(0 −
// min/scale)), y = clamp(round(x/scale) + zero point), ties to even. The
// sweep runs each finite special value (±0, subnormals, the largest, ±1,
// 42) with 0, 1 and −1 beside it, and pairs of them; a NaN or ±Inf input
// (a NaN or infinite scale) ONNX leaves open: those are left out. An
// all-zero input (an empty range) has scale 1, zero point 0 and y 0, as
// ONNX's reference and onnxruntime give. A range of subnormals too narrow
// for a float32 scale (scale 0) gives what onnxruntime gives: zero point
// 255 (its clamp of the infinite or NaN 0 − min/0), y 255 where x > 0 and
// 0 elsewhere.
func TestSpecialDynamicQuantizeLinear(t *testing.T) {
	var fin []float32
	for _, b := range sweepBits(kernel.Float32) {
		if v := math.Float32frombits(uint32(b)); !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) {
			fin = append(fin, v)
		}
	}
	var cases [][]float32
	for _, v := range fin {
		cases = append(cases, []float32{v}, []float32{v, 0, 1, -1})
		for _, w := range fin {
			cases = append(cases, []float32{v, w})
		}
	}
	for _, x := range cases {
		lo, hi := float32(0), float32(0)
		for _, v := range x {
			if v < lo {
				lo = v
			}
			if v > hi {
				hi = v
			}
		}
		scale := (hi - lo) / 255
		if hi == lo {
			scale = 1
		}
		zp := float64(255)
		want := make([]uint64, len(x))
		for i, v := range x {
			if v > 0 {
				want[i] = 255
			}
		}
		if scale != 0 {
			zp = math.Max(0, math.Min(255, math.RoundToEven(float64(0-lo/scale))))
			for i, v := range x {
				want[i] = uint64(math.Max(0, math.Min(255, math.RoundToEven(float64(v/scale))+zp)))
			}
		}
		name := fmt.Sprintf("DynamicQuantizeLinear %v", x)
		out, err := runOp("DynamicQuantizeLinear", nil, kernel.FromFloat32(x, int64(len(x))))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		at := func(i int) string { return fmt.Sprint("element ", i) }
		checkBits(t, name+" y", out[0], kernel.Uint8, shp(int64(len(x))), want, true, at)
		checkBits(t, name+" scale", out[1], kernel.Float32, nil, []uint64{uint64(math.Float32bits(scale))}, false, at)
		checkBits(t, name+" zero point", out[2], kernel.Uint8, nil, []uint64{uint64(zp)}, true, at)
	}
}

// TestSpecialNonMaxSuppression: boxes of special sizes and special scores.
// The definition fixes: scores in descending order, −0 tying with +0 (the
// lower index first), +Inf first and −Inf last; a score threshold keeps
// the scores above it; two equal boxes have an IoU of 1, whatever their
// size — subnormal or spanning float32's range — and a box of zero area
// overlaps nothing. NaN scores and boxes with NaN or infinite corners
// (an IoU of NaN) ONNX leaves open, and the sweep leaves them out.
func TestSpecialNonMaxSuppression(t *testing.T) {
	var scores []float32
	for _, b := range sweepBits(kernel.Float32) {
		if v := math.Float32frombits(uint32(b)); !math.IsNaN(float64(v)) {
			scores = append(scores, v)
		}
	}
	n := int64(len(scores))
	// Disjoint unit boxes on a diagonal: no suppression, only the order.
	boxes := make([]float32, 4*n)
	for i := range n {
		y := float32(2 * i)
		boxes[4*i], boxes[4*i+1], boxes[4*i+2], boxes[4*i+3] = y, y, y+1, y+1
	}
	for _, thr := range []float32{float32(math.Inf(-1)), float32(math.Copysign(0, -1)), 0, 1, 0x1p-149} {
		var want []uint64
		idx := make([]int64, 0, n)
		for i := range n {
			if scores[i] > thr {
				idx = append(idx, i)
			}
		}
		for i := 1; i < len(idx); i++ { // a stable insertion sort, descending
			for j := i; j > 0 && scores[idx[j]] > scores[idx[j-1]]; j-- {
				idx[j], idx[j-1] = idx[j-1], idx[j]
			}
		}
		for _, i := range idx {
			want = append(want, 0, 0, uint64(i))
		}
		name := fmt.Sprintf("NonMaxSuppression scores, threshold %g", thr)
		out, err := runOp("NonMaxSuppression", nil, kernel.FromFloat32(boxes, 1, n, 4), kernel.FromFloat32(scores, 1, 1, n),
			kernel.FromInt64([]int64{n}, 1), kernel.FromFloat32([]float32{0.5}, 1), kernel.FromFloat32([]float32{thr}, 1))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		checkBits(t, name, out[0], kernel.Int64, shp(int64(len(want)/3), 3), want, true, func(i int) string { return fmt.Sprint("element ", i) })
	}
	// Pairs of equal boxes, then a box of zero area equal to the next:
	// the second of each equal pair is suppressed (IoU 1 > 0.5).
	const tiny, huge = float32(0x1p-149), float32(math.MaxFloat32)
	negZero32 := float32(math.Copysign(0, -1))
	for _, c := range []struct {
		name  string
		boxes []float32
		want  []uint64 // selected boxes
	}{
		{"subnormal boxes", []float32{0, 0, tiny, tiny, 0, 0, tiny, tiny}, []uint64{0}},
		{"subnormal boxes, signed zero corners", []float32{negZero32, 0, 2 * tiny, 3 * tiny, 0, float32(math.Copysign(0, -1)), 2 * tiny, 3 * tiny}, []uint64{0}},
		{"boxes spanning float32", []float32{-huge, -huge, huge, huge, huge, huge, -huge, -huge}, []uint64{0}},
		{"largest boxes", []float32{0, 0, huge, huge, huge, huge, 0, 0}, []uint64{0}},
		{"zero-area boxes", []float32{1, 1, 1, 5, 1, 1, 1, 5}, []uint64{0, 1}},
		{"a subnormal box in a unit box", []float32{0, 0, 1, 1, 0, 0, tiny, tiny}, []uint64{0, 1}},
	} {
		var want []uint64
		for _, i := range c.want {
			want = append(want, 0, 0, i)
		}
		out, err := runOp("NonMaxSuppression", nil, kernel.FromFloat32(c.boxes, 1, 2, 4), kernel.FromFloat32([]float32{0.9, 0.8}, 1, 1, 2),
			kernel.FromInt64([]int64{2}, 1), kernel.FromFloat32([]float32{0.5}, 1))
		if err != nil {
			t.Errorf("NonMaxSuppression %s: %v", c.name, err)
			continue
		}
		checkBits(t, "NonMaxSuppression "+c.name, out[0], kernel.Int64, shp(int64(len(want)/3), 3), want, true, func(i int) string { return fmt.Sprint("element ", i) })
	}
}
