package ops

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps,
		"IsNaN", "IsInf", "Clip", "Cast", "CastLike",
		"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp",
		"MaxPool", "GlobalMaxPool", "CumSum",
		"Softmax", "LogSoftmax", "Hardmax", "ArgMax", "ArgMin", "TopK",
		"QuantizeLinear", "DequantizeLinear")
}

// TestSpecialPredicates: IsNaN and IsInf (each sign alone too).
func TestSpecialPredicates(t *testing.T) {
	for _, c := range []struct {
		op    string
		attrs kernel.Attrs
		ref   func(x float64) bool
	}{
		{"IsNaN", nil, math.IsNaN},
		{"IsInf", nil, func(x float64) bool { return math.IsInf(x, 0) }},
		{"IsInf", kernel.Attrs{"detect_negative": int64(0)}, func(x float64) bool { return math.IsInf(x, 1) }},
		{"IsInf", kernel.Attrs{"detect_positive": int64(0)}, func(x float64) bool { return math.IsInf(x, -1) }},
	} {
		for _, dt := range sweepFloats {
			name := fmt.Sprintf("%s%v/%v", c.op, c.attrs, dt)
			bits := sweepBits(dt)
			n := int64(len(bits))
			out, err := runOp(c.op, c.attrs, bitsTensor(dt, shp(n), bits))
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			want := make([]uint64, n)
			for i, b := range bits {
				want[i] = uint64(b2f(c.ref(refValue(dt, b))))
			}
			checkBits(t, name, out[0], kernel.Bool, shp(n), want, true, func(i int) string { return "x " + showBits(dt, bits[i]) })
		}
	}
}

// TestSpecialClip: Clip is Min(max, Max(input, min)), every bound a
// special value or absent: an absent bound is the dtype's lowest or
// highest finite value.
func TestSpecialClip(t *testing.T) {
	top := map[kernel.DType]float64{
		kernel.Float16: 65504, kernel.BFloat16: float64(math.Float32frombits(0x7f7f0000)),
		kernel.Float32: math.MaxFloat32, kernel.Float64: math.MaxFloat64,
	}
	for _, dt := range sweepFloats {
		bits := sweepBits(dt)
		n := int64(len(bits))
		x := bitsTensor(dt, shp(n), bits)
		bounds := []float64{math.NaN(), 0, neg0(), math.Inf(-1), math.Inf(1), -1, 1}
		for li := -1; li < len(bounds); li++ {
			for hi := -1; hi < len(bounds); hi++ {
				in := []*kernel.Tensor{x, kernel.New(dt, 0), kernel.New(dt, 0)} // empty: absent
				name := fmt.Sprintf("Clip/%v", dt)
				if li >= 0 {
					in[1] = bitsTensor(dt, shp(), []uint64{refBits(dt, bounds[li])})
					name += fmt.Sprintf(" min %g", bounds[li])
				}
				if hi >= 0 {
					in[2] = bitsTensor(dt, shp(), []uint64{refBits(dt, bounds[hi])})
					name += fmt.Sprintf(" max %g", bounds[hi])
				}
				out, err := runOp("Clip", nil, in...)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				want := make([]uint64, n)
				for i, b := range bits {
					lo, up := -top[dt], top[dt]
					if li >= 0 {
						lo = bounds[li]
					}
					if hi >= 0 {
						up = bounds[hi]
					}
					v := ieeeMin(up, ieeeMax(refValue(dt, b), lo))
					want[i] = refBits(dt, v)
				}
				checkBits(t, name, out[0], dt, shp(n), want, false, func(i int) string { return "x " + showBits(dt, bits[i]) })
			}
		}
	}
}

// TestSpecialCast: Cast and CastLike between the float dtypes round once
// to nearest even (overflow to Inf, underflow to signed zeros, float64 to
// float16 directly, not through float32), keep every bit to the same
// dtype, and give true for every nonzero value (NaN too) to bool.
func TestSpecialCast(t *testing.T) {
	for _, from := range sweepFloats {
		bits := sweepBits(from)
		n := int64(len(bits))
		x := bitsTensor(from, shp(n), bits)
		for _, to := range append(slices.Clone(sweepFloats), kernel.Bool) {
			want := make([]uint64, n)
			for i, b := range bits {
				v := refValue(from, b)
				switch {
				case to == from:
					want[i] = b
				case to == kernel.Bool:
					want[i] = uint64(b2f(v != 0))
				default:
					want[i] = refBits(to, v)
				}
			}
			at := func(i int) string { return "x " + showBits(from, bits[i]) }
			out, err := runOp("Cast", kernel.Attrs{"to": to.String()}, x)
			if err != nil {
				t.Errorf("Cast %v to %v: %v", from, to, err)
			} else {
				checkBits(t, fmt.Sprintf("Cast %v to %v", from, to), out[0], to, shp(n), want, to == from, at)
			}
			out, err = runOp("CastLike", nil, x, kernel.New(to, 1))
			if err != nil {
				t.Errorf("CastLike %v to %v: %v", from, to, err)
			} else {
				checkBits(t, fmt.Sprintf("CastLike %v to %v", from, to), out[0], to, shp(n), want, to == from, at)
			}
		}
	}
}

// pairs returns every ordered pair of bits as a [len², 2] list, row by row.
func pairs(bits []uint64) []uint64 {
	out := make([]uint64, 0, 2*len(bits)*len(bits))
	for _, a := range bits {
		for _, b := range bits {
			out = append(out, a, b)
		}
	}
	return out
}

// transposed returns the [2, m] transpose of an [m, 2] list.
func transposed(p []uint64) []uint64 {
	m := len(p) / 2
	out := make([]uint64, 2*m)
	for i := range m {
		out[i], out[m+i] = p[2*i], p[2*i+1]
	}
	return out
}

// logSumExp is ln(e^a + e^b) with the larger exponent taken out, so that
// it is finite wherever the result is: NaN with a NaN, +Inf with +Inf, -Inf
// when both are -Inf.
func logSumExp(a, b float64) float64 {
	m := ieeeMax(a, b)
	if math.IsNaN(m) || math.IsInf(m, 0) {
		return m
	}
	return math.Log(math.Exp(a-m)+math.Exp(b-m)) + m
}

// pairOps are the reductions of two elements each and their references.
var pairOps = []struct {
	op  string
	ref func(a, b float64) float64
	f64 bool // takes float64
}{
	{"ReduceSum", func(a, b float64) float64 { return a + b }, false},
	{"ReduceMean", func(a, b float64) float64 { return (a + b) / 2 }, true},
	{"ReduceMax", ieeeMax, true},
	{"ReduceMin", ieeeMin, true},
	{"ReduceProd", func(a, b float64) float64 { return a * b }, true},
	{"ReduceSumSquare", func(a, b float64) float64 { return a*a + b*b }, true},
	{"ReduceL1", func(a, b float64) float64 { return math.Abs(a) + math.Abs(b) }, true},
	{"ReduceL2", func(a, b float64) float64 { return math.Sqrt(a*a + b*b) }, true},
	{"ReduceLogSum", func(a, b float64) float64 { return math.Log(a + b) }, true},
	{"ReduceLogSumExp", logSumExp, true},
}

// TestSpecialReductions reduces every ordered pair of special values, along
// the last axis of [m,2] and the first of [2,m]; MaxPool and GlobalMaxPool
// take the same pairs as their windows.
func TestSpecialReductions(t *testing.T) {
	for _, dt := range sweepFloats {
		bits := sweepBits(dt)
		p := pairs(bits)
		m := int64(len(p) / 2)
		at := func(i int) string { return fmt.Sprintf("%s, %s", showBits(dt, p[2*i]), showBits(dt, p[2*i+1])) }
		for _, c := range pairOps {
			if dt == kernel.Float64 && !c.f64 {
				continue
			}
			want := make([]uint64, m)
			for i := range m {
				want[i] = refBits(dt, c.ref(refValue(dt, p[2*i]), refValue(dt, p[2*i+1])))
			}
			for axis, x := range []*kernel.Tensor{bitsTensor(dt, shp(2, m), transposed(p)), bitsTensor(dt, shp(m, 2), p)} {
				name := fmt.Sprintf("%s/%v axis %d", c.op, dt, axis)
				out, err := runOp(c.op, kernel.Attrs{"axes": []int64{int64(axis)}, "keepdims": int64(0)}, x)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				checkBits(t, name, out[0], dt, shp(m), want, false, at)
			}
		}
		want := make([]uint64, m)
		for i := range m {
			want[i] = refBits(dt, ieeeMax(refValue(dt, p[2*i]), refValue(dt, p[2*i+1])))
		}
		out, err := runOp("MaxPool", kernel.Attrs{"kernel_shape": []int64{2}, "strides": []int64{2}}, bitsTensor(dt, shp(1, 1, 2*m), p))
		if err != nil {
			t.Errorf("MaxPool/%v: %v", dt, err)
		} else {
			checkBits(t, fmt.Sprintf("MaxPool/%v", dt), out[0], dt, shp(1, 1, m), want, false, at)
		}
		out, err = runOp("GlobalMaxPool", nil, bitsTensor(dt, shp(m, 1, 2), p))
		if err != nil {
			t.Errorf("GlobalMaxPool/%v: %v", dt, err)
		} else {
			checkBits(t, fmt.Sprintf("GlobalMaxPool/%v", dt), out[0], dt, shp(m, 1, 1), want, false, at)
		}
	}
}

// TestSpecialCumSum: running sums of every pair, forward, reverse and
// exclusive (whose first sum is empty: 0).
func TestSpecialCumSum(t *testing.T) {
	for _, dt := range sweepFloats {
		bits := sweepBits(dt)
		p := pairs(bits)
		m := int64(len(p) / 2)
		for _, c := range []struct{ exclusive, reverse int64 }{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
			name := fmt.Sprintf("CumSum/%v exclusive %d reverse %d", dt, c.exclusive, c.reverse)
			out, err := runOp("CumSum", kernel.Attrs{"exclusive": c.exclusive, "reverse": c.reverse}, bitsTensor(dt, shp(m, 2), p), i64(shp(), 1))
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			want := make([]uint64, 2*m)
			for i := range m {
				a, b := refValue(dt, p[2*i]), refValue(dt, p[2*i+1])
				var y0, y1 float64
				switch c {
				case struct{ exclusive, reverse int64 }{0, 0}:
					y0, y1 = a, a+b
				case struct{ exclusive, reverse int64 }{1, 0}:
					y0, y1 = 0, a
				case struct{ exclusive, reverse int64 }{0, 1}:
					y0, y1 = a+b, b
				default:
					y0, y1 = b, 0
				}
				want[2*i], want[2*i+1] = refBits(dt, y0), refBits(dt, y1)
			}
			checkBits(t, name, out[0], dt, shp(m, 2), want, false, func(i int) string {
				return fmt.Sprintf("element %d of %s, %s", i%2, showBits(dt, p[i/2*2]), showBits(dt, p[i/2*2+1]))
			})
		}
	}
}

// firstMax returns the index of the first element of row equal to its
// IEEE maximum (a NaN if any; -0 equals +0) or, last, the last such.
func firstMax(row []float64, largest, last bool) int {
	m := row[0]
	for _, v := range row[1:] {
		if largest {
			m = ieeeMax(m, v)
		} else {
			m = ieeeMin(m, v)
		}
	}
	best := -1
	for i, v := range row {
		if v == m || math.IsNaN(v) && math.IsNaN(m) {
			if best < 0 || last {
				best = i
			}
		}
	}
	return best
}

// argRef is ArgMax (ArgMin unless largest) of row as onnxruntime computes
// it: each element compared in order with the extreme so far, replacing it
// when strictly beyond (or equal too, with last), so that a NaN compares
// false: it is passed over unless it comes first.
func argRef(row []float64, largest, last bool) int {
	best, at := row[0], 0
	for i, v := range row[1:] {
		beyond, equal := v < best, v == best
		if largest {
			beyond = v > best
		}
		if beyond || last && equal {
			best, at = v, i+1
		}
	}
	return at
}

// softmaxBits are the values Softmax rows are made of: the specials whose
// results every summation order rounds alike.
func softmaxBits(dt kernel.DType) []uint64 {
	var out []uint64
	for _, b := range sweepBits(dt) {
		v := refValue(dt, b)
		if math.IsNaN(v) || math.IsInf(v, 0) || v == 0 || math.Abs(v) < 1e-30 || math.Abs(v) > 1e30 || v == 42 {
			out = append(out, b)
		}
	}
	return out
}

// TestSpecialSoftmax: Softmax, LogSoftmax and Hardmax of every pair of
// special values as a row, and ArgMax and ArgMin of the same rows. Softmax
// is e^(x-m)/Σe^(x-m) with m the row's maximum: a row with a NaN, or whose
// maximum is infinite, is NaN.
func TestSpecialSoftmax(t *testing.T) {
	for _, dt := range sweepFloats {
		p := pairs(softmaxBits(dt))
		m := int64(len(p) / 2)
		x := bitsTensor(dt, shp(m, 2), p)
		at := func(i int) string {
			return fmt.Sprintf("element %d of %s, %s", i%2, showBits(dt, p[i/2*2]), showBits(dt, p[i/2*2+1]))
		}
		soft, logSoft, hard := make([]uint64, 2*m), make([]uint64, 2*m), make([]uint64, 2*m)
		for i := range m {
			row := []float64{refValue(dt, p[2*i]), refValue(dt, p[2*i+1])}
			mx := ieeeMax(row[0], row[1])
			s := math.Exp(row[0]-mx) + math.Exp(row[1]-mx)
			h := firstMax(row, true, false)
			for j, v := range row {
				soft[2*i+int64(j)] = refBits(dt, math.Exp(v-mx)/s)
				logSoft[2*i+int64(j)] = refBits(dt, (v-mx)-math.Log(s))
				hard[2*i+int64(j)] = refBits(dt, b2f(j == h))
			}
		}
		for _, c := range []struct {
			op   string
			want []uint64
		}{{"Softmax", soft}, {"LogSoftmax", logSoft}, {"Hardmax", hard}} {
			out, err := runOp(c.op, nil, x)
			if err != nil {
				t.Errorf("%s/%v: %v", c.op, dt, err)
				continue
			}
			checkBits(t, fmt.Sprintf("%s/%v", c.op, dt), out[0], dt, shp(m, 2), c.want, false, at)
		}
		// ArgMax and ArgMin over all pairs of every special value.
		p = pairs(sweepBits(dt))
		m = int64(len(p) / 2)
		x = bitsTensor(dt, shp(m, 2), p)
		for _, op := range []string{"ArgMax", "ArgMin"} {
			for _, last := range []int64{0, 1} {
				name := fmt.Sprintf("%s/%v select_last_index %d", op, dt, last)
				out, err := runOp(op, kernel.Attrs{"axis": int64(1), "keepdims": int64(0), "select_last_index": last}, x)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				want := make([]uint64, m)
				for i := range m {
					want[i] = uint64(argRef([]float64{refValue(dt, p[2*i]), refValue(dt, p[2*i+1])}, op == "ArgMax", last == 1))
				}
				checkBits(t, name, out[0], kernel.Int64, shp(m), want, true, func(i int) string {
					return fmt.Sprintf("%s, %s", showBits(dt, p[2*i]), showBits(dt, p[2*i+1]))
				})
			}
		}
	}
}

// TestSpecialTopK sorts the special values but NaN (whose place ONNX leaves
// open): largest or smallest first, equal values (-0 and +0 among them)
// in input order, each value's bits kept.
func TestSpecialTopK(t *testing.T) {
	for _, dt := range sweepFloats {
		var bits []uint64
		for _, b := range sweepBits(dt) {
			if !isNaNBits(dt, b) {
				bits = append(bits, b)
			}
		}
		n := int64(len(bits))
		for _, largest := range []int64{1, 0} {
			name := fmt.Sprintf("TopK/%v largest %d", dt, largest)
			out, err := runOp("TopK", kernel.Attrs{"largest": largest}, bitsTensor(dt, shp(1, n), bits), i64(shp(1), float64(n)))
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			order := make([]int, n)
			for i := range order {
				order[i] = i
			}
			slices.SortStableFunc(order, func(i, j int) int {
				a, b := refValue(dt, bits[i]), refValue(dt, bits[j])
				if largest == 0 {
					a, b = b, a
				}
				switch {
				case a > b:
					return -1
				case a < b:
					return 1
				}
				return 0
			})
			vals, idxs := make([]uint64, n), make([]uint64, n)
			for k, i := range order {
				vals[k], idxs[k] = bits[i], uint64(i)
			}
			checkBits(t, name+" values", out[0], dt, shp(1, n), vals, true, func(k int) string { return fmt.Sprintf("rank %d", k) })
			checkBits(t, name+" indices", out[1], kernel.Int64, shp(1, n), idxs, true, func(k int) string { return fmt.Sprintf("rank %d", k) })
		}
	}
}

// TestSpecialQuantize: QuantizeLinear is saturate(round(x/scale) + zero
// point), ties to even, for every special value but NaN (whose quantization
// ONNX leaves open); DequantizeLinear is (x − zero point)·scale for every
// special scale.
func TestSpecialQuantize(t *testing.T) {
	for _, dt := range sweepFloats {
		var bits []uint64
		for _, b := range sweepBits(dt) {
			if !isNaNBits(dt, b) {
				bits = append(bits, b)
			}
		}
		n := int64(len(bits))
		for _, zdt := range []kernel.DType{kernel.Uint8, kernel.Int8} {
			lo, hi, z := 0.0, 255.0, 128.0
			if zdt == kernel.Int8 {
				lo, hi, z = -128, 127, -3
			}
			for _, scale := range []float64{1, 0.5} {
				name := fmt.Sprintf("QuantizeLinear/%v to %v scale %g", dt, zdt, scale)
				out, err := runOp("QuantizeLinear", nil, bitsTensor(dt, shp(n), bits), bitsTensor(dt, shp(), []uint64{refBits(dt, scale)}), tensor(zdt, shp(), z))
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				want := make([]uint64, n)
				for i, b := range bits {
					q := math.Max(lo, math.Min(hi, math.RoundToEven(refValue(dt, b)/scale)+z))
					if zdt == kernel.Uint8 {
						want[i] = uint64(uint8(q))
					} else {
						want[i] = uint64(uint8(int8(q)))
					}
				}
				checkBits(t, name, out[0], zdt, shp(n), want, true, func(i int) string { return "x " + showBits(dt, bits[i]) })
			}
			q := []float64{0, 1, 127, 128, 255}
			if zdt == kernel.Int8 {
				q = []float64{-128, -1, 0, 1, 127}
			}
			for _, s := range sweepBits(dt) {
				name := fmt.Sprintf("DequantizeLinear/%v from %v scale %s", dt, zdt, showBits(dt, s))
				out, err := runOp("DequantizeLinear", nil, tensor(zdt, shp(int64(len(q))), q...), bitsTensor(dt, shp(), []uint64{s}), tensor(zdt, shp(), z))
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				want := make([]uint64, len(q))
				for i, v := range q {
					want[i] = refBits(dt, (v-z)*refValue(dt, s))
				}
				checkBits(t, name, out[0], dt, shp(int64(len(q))), want, false, func(i int) string { return fmt.Sprintf("x %g", q[i]) })
			}
		}
	}
}
