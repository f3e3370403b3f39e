package ops

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// The special-value sweep: every op that takes floating inputs runs on
// tensors of signed zeros, infinities, NaNs with payloads, subnormals and
// the extremes of each float dtype, and its results are compared bit for
// bit with a naive reference written here from the ONNX operator
// definitions. Where the definition is an expression of max and min, those
// are IEEE 754-2019's maximum and minimum: a NaN operand gives NaN, and -0
// is below +0. A value the text calls 0 is +0 (Sign of ±0, an empty sum);
// a sum of terms is their IEEE sum, so that a sum of one term is that
// term, -0 included. Ties between equal values (ArgMax, TopK) compare as
// numbers: -0 equals +0. A NaN result matches any NaN, except for the ops
// that move data, which must keep every bit of their input.
//
// Each op runs in float32, float16 and float64 where it takes them (ReLU
// and GELU take no float64, nor does ReduceSum; Gemm, Conv and
// ConvTranspose compute in float32 and run in float32 and float16).
//
// The families of ops live in special_*_test.go; specialSkips lists the ops
// the sweep leaves out, with the reason, and TestSpecialSweepCoversEveryOp
// checks that every registered op is either swept or listed. Most ops are
// compared bit for bit; the weaker properties some are checked on instead
// are stated with their tests:
//
//	LSTM, GRU, RNN: where NaNs go (special_seq_test.go); the values are
//	    checked within a tolerance by float64_test.go.
//	Range, Unique, DynamicQuantizeLinear, NonMaxSuppression: bit for bit
//	    on what ONNX fixes, the open part left out or checked against the
//	    kernel's documented choice (special_open_test.go).
//	And, Or, Xor, Not, BitShift, Shape, Size, EyeLike: their own dtypes'
//	    extremes and empty shapes (special_int_test.go).
//	MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv: int8/uint8
//	    extremes and zero points, exact; float32 scales (subnormal,
//	    negative, huge) exact against ONNX's requantization, leaving out
//	    the zero and non-finite scales whose results ONNX leaves undefined
//	    (special_quant_test.go).
//	HannWindow, HammingWindow, BlackmanWindow: within 2^-48 of ONNX's
//	    formula in float64, rounded to the output dtype; a symmetric window
//	    of one element is NaN, as ONNX's definition divides 0 by 0.
//	DFT, STFT: bit for bit against the definition's sum in float64 for
//	    the signal or frames a special sample reaches, and the others the
//	    same bits as without it (special_signal_test.go).
//	GridSample, RoiAlign: a NaN pixel makes NaN exactly the outputs whose
//	    sampling footprint holds it, the others keep their bits
//	    (special_vision_test.go). ONNX's reference cannot index a pixel at
//	    a NaN or infinite coordinate: a NaN grid point samples NaN, an
//	    infinite one is out of the image or clamped by the padding, and a
//	    non-finite region, or one too large for adaptive sampling,
//	    is an error (special_arch_test.go, special_vision_test.go).
//	Det: bit for bit against a naive LU (numpy's), and NaN whenever an
//	    element is NaN, or infinite with a zero column, as the
//	    determinant's expansion is (special_det_test.go).

// sweepFloats are the float dtypes the sweep runs, in order.
var sweepFloats = []kernel.DType{kernel.Float32, kernel.Float16, kernel.Float64, kernel.BFloat16}

// sweepBits returns the bit patterns of dt the sweep feeds to the ops: the
// special values of exact_test.go, the largest subnormal, halves for the
// rounding ops, and values at the edges of float16 for the casts.
func sweepBits(dt kernel.DType) []uint64 {
	var out []uint64
	switch dt {
	case kernel.Float32:
		for _, b := range specialF32 {
			out = append(out, uint64(b))
		}
		out = append(out,
			0x007fffff,             // largest subnormal
			0x3f000000, 0xbf000000, // ±0.5
			0x3fc00000, 0xc0200000, // 1.5, -2.5
			0x477fe000, 0x477ff000, // 65504 (float16's largest), 65520 (rounds to float16's Inf)
			0x33800000, 0x33000000, 0x33000001, // 2^-24 (float16's smallest subnormal), 2^-25 (a tie to 0), just above it
			0x38800000, // 2^-14, float16's smallest normal
		)
	case kernel.Float16:
		for _, b := range specialF16 {
			out = append(out, uint64(b))
		}
		out = append(out,
			0x03ff,         // largest subnormal
			0x3800, 0xb800, // ±0.5
			0x3e00, 0xc100, // 1.5, -2.5
		)
	case kernel.BFloat16:
		out = []uint64{
			0x0000, 0x8000, 0x7f80, 0xff80, // ±0, ±Inf
			0x7fc0, 0xffc1, 0x7f81, // NaNs: quiet, negative with a payload, signalling
			0x0001, 0x807f, // subnormals: the smallest, minus the largest
			0x7f7f, 0xff7f, 0x0080, // ±largest, smallest normal
			0x3f80, 0xbf80, 0x4228, // 1, -1, 42
			0x3f00, 0xbf00, 0x3fc0, 0xc020, // ±0.5, 1.5, -2.5
		}
	case kernel.Float64:
		out = []uint64{
			0, 1 << 63, // ±0
			0x7ff0000000000000, 0xfff0000000000000, // ±Inf
			0x7ff8000000000000, 0xfff8000000000001, 0x7ff8000000000123, 0x7ff0000000000001, // NaNs: quiet, negative with a payload, payload, signalling
			0x0000000000000001, 0x800fffffffffffff, 0x000fffffffffffff, // subnormals
			0x7fefffffffffffff, 0xffefffffffffffff, 0x0010000000000000, // largest, smallest normal
			0x3ff0000000000000, 0xbff0000000000000, 0x4045000000000000, // 1, -1, 42
			0x3fe0000000000000, 0xbfe0000000000000, 0x3ff8000000000000, 0xc004000000000000, // ±0.5, 1.5, -2.5
			math.Float64bits(65504), math.Float64bits(65520), math.Float64bits(0x1p-24), math.Float64bits(0x1p-25),
			math.Float64bits(1 + 0x1p-11 + 0x1p-40),               // above a float16 tie by less than float32 can hold
			math.Float64bits(math.MaxFloat32), 0x47efffffefffffff, // float32's largest; just below the value that rounds to Inf
			math.Float64bits(0x1p-149), math.Float64bits(0x1p-150), // float32's smallest subnormal, a tie to 0
		}
	}
	return out
}

// refValue decodes bit pattern b of float dtype dt to float64 (NaN payloads
// are dropped: the reference only needs that it is NaN).
func refValue(dt kernel.DType, b uint64) float64 {
	switch dt {
	case kernel.Float32:
		return float64(math.Float32frombits(uint32(b)))
	case kernel.Float64:
		return math.Float64frombits(b)
	case kernel.BFloat16:
		// sign, 8 exponent bits (bias 127), 7 fraction bits.
		sign := 1.0
		if b&0x8000 != 0 {
			sign = -1
		}
		e, f := int(b>>7)&0xff, float64(b&0x7f)
		switch e {
		case 0xff:
			if f != 0 {
				return math.NaN()
			}
			return math.Inf(int(sign))
		case 0:
			return sign * math.Ldexp(f, -133)
		}
		return sign * math.Ldexp(128+f, e-134)
	}
	// float16: sign, 5 exponent bits (bias 15), 10 fraction bits.
	sign := 1.0
	if b&0x8000 != 0 {
		sign = -1
	}
	e, f := int(b>>10)&0x1f, float64(b&0x3ff)
	switch e {
	case 0x1f:
		if f != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	case 0:
		return sign * math.Ldexp(f, -24)
	}
	return sign * math.Ldexp(1024+f, e-25)
}

// refBits rounds v once, to nearest even, to float dtype dt and returns its
// bit pattern. Float16 and bfloat16 are rounded here directly from
// float64.
func refBits(dt kernel.DType, v float64) uint64 {
	switch dt {
	case kernel.Float32:
		return uint64(math.Float32bits(float32(v)))
	case kernel.Float64:
		return math.Float64bits(v)
	case kernel.BFloat16:
		return refBF16(v)
	}
	var sign uint64
	if math.Signbit(v) {
		sign = 0x8000
	}
	a := math.Abs(v)
	switch {
	case math.IsNaN(v):
		return sign | 0x7e00
	case a >= 65520: // halfway from 65504 to 65536 and beyond: Inf
		return sign | 0x7c00
	case a == 0:
		return sign
	}
	_, e := math.Frexp(a) // a = m·2^e, m in [0.5, 1)
	e = max(e-1, -14)     // a's binade, subnormals in the lowest
	q := math.RoundToEven(math.Ldexp(a, 10-e))
	if q < 1024 { // subnormal (e is -14)
		return sign | uint64(q)
	}
	if q == 2048 { // rounded up into the next binade
		q, e = 1024, e+1
	}
	return sign | uint64(e+15)<<10 | (uint64(q) - 1024)
}

// refBF16 rounds v once, to nearest even, to bfloat16: 8 significant
// bits, exponents from -126 (subnormals below, in steps of 2^-133), Inf
// from halfway between the largest finite value (2^128 − 2^120) and 2^128.
func refBF16(v float64) uint64 {
	var sign uint64
	if math.Signbit(v) {
		sign = 0x8000
	}
	a := math.Abs(v)
	switch {
	case math.IsNaN(v):
		return sign | 0x7fc0
	case a >= 0x1p128-0x1p119:
		return sign | 0x7f80
	case a == 0:
		return sign
	}
	_, e := math.Frexp(a) // a = m·2^e, m in [0.5, 1)
	e = max(e-1, -126)    // a's binade, subnormals in the lowest
	q := math.RoundToEven(math.Ldexp(a, 7-e))
	if q < 128 { // subnormal (e is -126)
		return sign | uint64(q)
	}
	if q == 256 { // rounded up into the next binade
		q, e = 128, e+1
	}
	return sign | uint64(e+127)<<7 | (uint64(q) - 128)
}

// bitsTensor makes a tensor of dtype dt and shape holding bit patterns b.
func bitsTensor(dt kernel.DType, shape []int64, b []uint64) *kernel.Tensor {
	t := kernel.New(dt, shape...)
	if int64(len(b)) != t.NumElements() {
		panic(fmt.Sprintf("bitsTensor %v%v: %d values", dt, shape, len(b)))
	}
	for i, x := range b {
		putBits(t.Host, dt, i, x)
	}
	return t
}

func putBits(buf []byte, dt kernel.DType, i int, x uint64) {
	switch dt.Size() {
	case 1:
		buf[i] = byte(x)
	case 2:
		binary.LittleEndian.PutUint16(buf[2*i:], uint16(x))
	case 4:
		binary.LittleEndian.PutUint32(buf[4*i:], uint32(x))
	case 8:
		binary.LittleEndian.PutUint64(buf[8*i:], x)
	}
}

// tensorBits returns the bit pattern of every element of t.
func tensorBits(t *kernel.Tensor) []uint64 {
	d := t.Data()
	n := t.NumElements()
	out := make([]uint64, n)
	for i := range out {
		switch t.DType.Size() {
		case 1:
			out[i] = uint64(d[i])
		case 2:
			out[i] = uint64(binary.LittleEndian.Uint16(d[2*i:]))
		case 4:
			out[i] = uint64(binary.LittleEndian.Uint32(d[4*i:]))
		case 8:
			out[i] = binary.LittleEndian.Uint64(d[8*i:])
		}
	}
	return out
}

// isNaNBits reports whether b is a NaN of float dtype dt.
func isNaNBits(dt kernel.DType, b uint64) bool {
	switch dt {
	case kernel.Float32:
		return b&0x7f800000 == 0x7f800000 && b&0x7fffff != 0
	case kernel.Float16:
		return b&0x7c00 == 0x7c00 && b&0x3ff != 0
	case kernel.BFloat16:
		return b&0x7f80 == 0x7f80 && b&0x7f != 0
	case kernel.Float64:
		return b&0x7ff0000000000000 == 0x7ff0000000000000 && b&0xfffffffffffff != 0
	}
	return false
}

// bitsEqual compares element bit patterns; a NaN matches any NaN unless
// exact.
func bitsEqual(dt kernel.DType, got, want uint64, exact bool) bool {
	if got == want {
		return true
	}
	return !exact && dt.IsFloat() && isNaNBits(dt, got) && isNaNBits(dt, want)
}

// showBits renders bit pattern b of dt with its value, for failures.
func showBits(dt kernel.DType, b uint64) string {
	if dt.IsFloat() {
		return fmt.Sprintf("%#x (%g)", b, refValue(dt, b))
	}
	return fmt.Sprint(b)
}

// checkBits compares got's dtype, shape and elements against the reference
// and reports at most a few differing elements, each with its inputs as
// described by at(i).
func checkBits(t *testing.T, what string, got *kernel.Tensor, dt kernel.DType, shape []int64, want []uint64, exact bool, at func(i int) string) {
	t.Helper()
	if got.DType != dt || !got.Shape.Equal(shape) {
		t.Errorf("%s: %v %v, want %v %v", what, got.DType, got.Shape, dt, kernel.Shape(shape))
		return
	}
	bad := 0
	for i, g := range tensorBits(got) {
		if bitsEqual(dt, g, want[i], exact) {
			continue
		}
		if bad++; bad > 4 {
			t.Errorf("%s: and more", what)
			return
		}
		t.Errorf("%s: %s: got %s, want %s", what, at(i), showBits(dt, g), showBits(dt, want[i]))
	}
}

// ieeeMax and ieeeMin are IEEE 754-2019's maximum and minimum: NaN if either
// operand is NaN, and -0 below +0.
func ieeeMax(a, b float64) float64 {
	switch {
	case math.IsNaN(a) || math.IsNaN(b):
		return math.NaN()
	case a == b && a == 0:
		if math.Signbit(a) {
			return b
		}
		return a
	case a > b:
		return a
	}
	return b
}

func ieeeMin(a, b float64) float64 {
	switch {
	case math.IsNaN(a) || math.IsNaN(b):
		return math.NaN()
	case a == b && a == 0:
		if math.Signbit(a) {
			return a
		}
		return b
	case a < b:
		return a
	}
	return b
}

// specialSkips are the ops the sweep leaves out, each with its reason:
// none, every registered op is swept.
var specialSkips = map[string]string{}

// specialCovered lists the ops each family of the sweep runs, for the
// coverage check.
func specialCovered() []string {
	var ops []string
	for _, c := range unaryCases {
		ops = append(ops, c.op)
	}
	for _, c := range binaryCases {
		ops = append(ops, c.op)
	}
	for _, c := range dataCases {
		ops = append(ops, c.op)
	}
	ops = append(ops, specialOtherOps...)
	return ops
}

// TestSpecialSweepCoversEveryOp: every registered op is swept or listed in
// specialSkips, and no op is both or listed but unknown.
func TestSpecialSweepCoversEveryOp(t *testing.T) {
	covered := map[string]bool{}
	for _, op := range specialCovered() {
		covered[op] = true
		if !Builtins().Has(op) {
			t.Errorf("the sweep covers %s, which is not registered", op)
		}
		if r, ok := specialSkips[op]; ok {
			t.Errorf("%s is swept and also skipped (%s)", op, r)
		}
	}
	for op := range specialSkips {
		if !Builtins().Has(op) {
			t.Errorf("the sweep skips %s, which is not registered", op)
		}
	}
	var missing []string
	for _, op := range Builtins().Ops() {
		if !covered[op] && specialSkips[op] == "" {
			missing = append(missing, op)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		t.Errorf("ops neither swept with special values nor skipped with a reason: %v", missing)
	}
}

// TestF64ToF16RoundsOnce: at and around every tie between two neighbouring
// float16 values, f64ToF16 rounds as the test's own float16 rounding does:
// to even at the tie, to the nearer one just off it, however little off.
func TestF64ToF16RoundsOnce(t *testing.T) {
	for h := uint64(0); h < 0x7c00; h++ {
		for _, sign := range []float64{1, -1} {
			lo, hi := refValue(kernel.Float16, h), refValue(kernel.Float16, h+1)
			if h+1 == 0x7c00 {
				hi = 65536 // where Inf starts if float16 had one more binade
			}
			mid := sign * (lo + hi) / 2
			for _, v := range []float64{sign * lo, mid, math.Nextafter(mid, 0), math.Nextafter(mid, math.Inf(int(sign))), math.Nextafter(mid, 0) * (1 - 0x1p-40)} {
				if got, want := f64ToF16(v), refBits(kernel.Float16, v); uint64(got) != want {
					t.Fatalf("f64ToF16(%v) = %#x, want %#x", v, got, want)
				}
			}
		}
	}
}
