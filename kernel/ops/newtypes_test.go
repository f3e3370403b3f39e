package ops

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// The element types int16, uint16, uint32, uint64 and bfloat16, checked
// against Go's own arithmetic on the typed values (which wraps, divides
// unsigned values as unsigned and compares them unsigned) and against bit
// patterns worked out by hand.

type anyInt interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// intsT makes a tensor of integer dtype dt and shape holding v.
func intsT[T anyInt](dt kernel.DType, shape []int64, v ...T) *kernel.Tensor {
	b := make([]uint64, len(v))
	for i, x := range v {
		b[i] = uint64(x)
	}
	return bitsTensor(dt, shape, b)
}

// lowBits keeps the bits of a value of dtype dt, as tensorBits reads them.
func lowBits(dt kernel.DType, v uint64) uint64 {
	if n := dt.Size() * 8; n < 64 {
		return v & (1<<n - 1)
	}
	return v
}

// intBinaryCases runs the broadcasting binary ops on every pair of vals, x
// [n,1] against y [1,n], against Go's operators on T.
func intBinaryCases[T anyInt](t *testing.T, dt kernel.DType, vals []T) {
	n := int64(len(vals))
	x, y := intsT(dt, shp(n, 1), vals...), intsT(dt, shp(1, n), vals...)
	unsigned := dt.IsUnsigned()
	b2 := func(c bool) uint64 {
		if c {
			return 1
		}
		return 0
	}
	for _, c := range []struct {
		op    string
		attrs kernel.Attrs
		f     func(a, b T) (uint64, bool) // the result's bits; false: b is not a divisor
		out   kernel.DType
	}{
		{"Add", nil, func(a, b T) (uint64, bool) { return uint64(a + b), true }, dt},
		{"Sub", nil, func(a, b T) (uint64, bool) { return uint64(a - b), true }, dt},
		{"Mul", nil, func(a, b T) (uint64, bool) { return uint64(a * b), true }, dt},
		{"Div", nil, func(a, b T) (uint64, bool) {
			if b == 0 {
				return 0, false
			}
			return uint64(a / b), true
		}, dt},
		{"Mod", kernel.Attrs{"fmod": int64(1)}, func(a, b T) (uint64, bool) {
			if b == 0 {
				return 0, false
			}
			return uint64(a % b), true // C's fmod: the dividend's sign
		}, dt},
		{"Mod", nil, func(a, b T) (uint64, bool) {
			if b == 0 {
				return 0, false
			}
			// a − b·⌊a/b⌋: the divisor's sign.
			r := a % b
			if !unsigned && r != 0 && (r < 0) != (b < 0) {
				r += b
			}
			return uint64(r), true
		}, dt},
		{"Max", nil, func(a, b T) (uint64, bool) { return uint64(max(a, b)), true }, dt},
		{"Min", nil, func(a, b T) (uint64, bool) { return uint64(min(a, b)), true }, dt},
		{"Less", nil, func(a, b T) (uint64, bool) { return b2(a < b), true }, kernel.Bool},
		{"Greater", nil, func(a, b T) (uint64, bool) { return b2(a > b), true }, kernel.Bool},
		{"LessOrEqual", nil, func(a, b T) (uint64, bool) { return b2(a <= b), true }, kernel.Bool},
		{"GreaterOrEqual", nil, func(a, b T) (uint64, bool) { return b2(a >= b), true }, kernel.Bool},
		{"Equal", nil, func(a, b T) (uint64, bool) { return b2(a == b), true }, kernel.Bool},
		{"BitwiseAnd", nil, func(a, b T) (uint64, bool) { return uint64(a & b), true }, dt},
		{"BitwiseXor", nil, func(a, b T) (uint64, bool) { return uint64(a ^ b), true }, dt},
	} {
		name := fmt.Sprintf("%s%v/%v", c.op, c.attrs, dt)
		divides := true
		want := make([]uint64, n*n)
		for i, a := range vals {
			for j, b := range vals {
				v, ok := c.f(a, b)
				divides = divides && ok
				want[int64(i)*n+int64(j)] = lowBits(c.out, v)
			}
		}
		out, err := runOp(c.op, c.attrs, x, y)
		if !divides {
			// A zero divisor: an integer division by zero is an error.
			if err == nil {
				t.Errorf("%s: a division by zero gave no error", name)
			}
			// Again without the zero divisor.
			var nz []T
			for _, v := range vals {
				if v != 0 {
					nz = append(nz, v)
				}
			}
			m := int64(len(nz))
			want = want[:0]
			for _, a := range vals {
				for _, b := range nz {
					v, _ := c.f(a, b)
					want = append(want, lowBits(c.out, v))
				}
			}
			out, err = runOp(c.op, c.attrs, x, intsT(dt, shp(1, m), nz...))
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			checkBits(t, name, out[0], c.out, shp(n, m), want, true, func(k int) string {
				return fmt.Sprintf("%v and %v", vals[int64(k)/m], nz[int64(k)%m])
			})
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		checkBits(t, name, out[0], c.out, shp(n, n), want, true, func(k int) string {
			return fmt.Sprintf("%v and %v", vals[int64(k)/n], vals[int64(k)%n])
		})
	}
}

// TestNewIntTypesBinary: arithmetic, Mod, comparisons, Max and Min on the
// extremes of int16, uint16, uint32 and uint64 (uint64 values above 2^63
// included), wrapping and unsigned as Go's typed operators are.
func TestNewIntTypesBinary(t *testing.T) {
	intBinaryCases(t, kernel.Int16, []int16{math.MinInt16, -7, -1, 0, 1, 3, 300, math.MaxInt16})
	intBinaryCases(t, kernel.Uint16, []uint16{0, 1, 3, 255, 256, 0x8000, 0xfffe, 0xffff})
	intBinaryCases(t, kernel.Uint32, []uint32{0, 1, 7, 0xffff, 0x8000_0000, 0x8000_0001, 0xffff_fffe, 0xffff_ffff})
	intBinaryCases(t, kernel.Uint64, []uint64{0, 1, 10, 1 << 53, 1<<53 + 1, 1 << 63, 1<<63 + 1, 0xffff_ffff_ffff_fffe, math.MaxUint64})
	// The existing types keep their signed semantics.
	intBinaryCases(t, kernel.Int64, []int64{math.MinInt64, -3, 0, 2, 1<<53 + 1, math.MaxInt64})
}

// TestNewIntTypesBitShift: BitShift on uint16, uint32 and uint64, every
// extreme by every count to beyond the width: the bits shifted out are
// lost, a right shift is logical (no sign), a shift by the width or more
// gives 0.
func TestNewIntTypesBitShift(t *testing.T) {
	for _, c := range []struct {
		dt   kernel.DType
		xs   []uint64
		bits uint64
	}{
		{kernel.Uint16, []uint64{0, 1, 0x7fff, 0x8000, 0xffff}, 16},
		{kernel.Uint32, []uint64{0, 1, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff}, 32},
		{kernel.Uint64, []uint64{0, 1, math.MaxInt64, 1 << 63, math.MaxUint64}, 64},
	} {
		var ys []uint64
		for s := uint64(0); s <= c.bits+1; s++ {
			ys = append(ys, s)
		}
		ys = append(ys, lowBits(c.dt, math.MaxUint64))
		nx, ny := int64(len(c.xs)), int64(len(ys))
		for _, dir := range []string{"LEFT", "RIGHT"} {
			out, err := runOp("BitShift", kernel.Attrs{"direction": dir}, bitsTensor(c.dt, shp(nx, 1), c.xs), bitsTensor(c.dt, shp(1, ny), ys))
			if err != nil {
				t.Errorf("BitShift %s %v: %v", dir, c.dt, err)
				continue
			}
			want := make([]uint64, nx*ny)
			for i, x := range c.xs {
				for j, y := range ys {
					var v uint64 // Go's shifts by the width or more give 0 too
					if dir == "LEFT" {
						v = x << y
					} else {
						v = x >> y
					}
					want[int64(i)*ny+int64(j)] = lowBits(c.dt, v)
				}
			}
			checkBits(t, fmt.Sprintf("BitShift %s %v", dir, c.dt), out[0], c.dt, shp(nx, ny), want, true, func(k int) string {
				return fmt.Sprintf("%#x by %d", c.xs[int64(k)/ny], ys[int64(k)%ny])
			})
		}
	}
	// BitShift takes the unsigned types only.
	wantErr(t, "BitShift", kernel.Attrs{"direction": "LEFT"}, []*kernel.Tensor{kernel.New(kernel.Int16, 1), kernel.New(kernel.Int16, 1)}, "int16")
}

// TestNewIntTypesUint64Order: the ops that compare and select treat uint64
// as unsigned, beyond 2^63 and beyond float64's 2^53.
func TestNewIntTypesUint64Order(t *testing.T) {
	const big = 1 << 63
	v := []uint64{5, big + 1, 1<<53 + 1, math.MaxUint64, big, 1 << 53, 0}
	n := int64(len(v))
	x := intsT(kernel.Uint64, shp(1, n), v...)
	check := func(name string, got *kernel.Tensor, dt kernel.DType, shape []int64, want ...uint64) {
		t.Helper()
		checkBits(t, name, got, dt, shape, want, true, func(i int) string { return fmt.Sprint("element ", i) })
	}
	attrs := func(kv ...any) kernel.Attrs { return formAttrs(18, kv...) }
	check("ReduceMax", mustRun(t, "ReduceMax", attrs(), x), kernel.Uint64, shp(1, 1), math.MaxUint64)
	check("ReduceMin", mustRun(t, "ReduceMin", attrs(), x), kernel.Uint64, shp(1, 1), 0)
	check("ReduceMax of 2^53 and 2^53+1", mustRun(t, "ReduceMax", attrs(), intsT(kernel.Uint64, shp(2), uint64(1<<53+1), uint64(1<<53))), kernel.Uint64, shp(1), 1<<53+1)
	// Empty reductions: the type's minimum and maximum.
	empty := kernel.New(kernel.Uint64, 0, 2)
	check("empty ReduceMax", mustRun(t, "ReduceMax", attrs(), empty, intsT(kernel.Int64, shp(1), int64(0))), kernel.Uint64, shp(1, 2), 0, 0)
	check("empty ReduceMin", mustRun(t, "ReduceMin", attrs(), empty, intsT(kernel.Int64, shp(1), int64(0))), kernel.Uint64, shp(1, 2), math.MaxUint64, math.MaxUint64)
	emptyU32 := kernel.New(kernel.Uint32, 0)
	check("empty uint32 ReduceMin", mustRun(t, "ReduceMin", attrs(), emptyU32), kernel.Uint32, shp(1), math.MaxUint32)
	check("empty uint32 ReduceMax", mustRun(t, "ReduceMax", attrs(), emptyU32), kernel.Uint32, shp(1), 0)
	check("ArgMax", mustRun(t, "ArgMax", kernel.Attrs{"axis": int64(1)}, x), kernel.Int64, shp(1, 1), 3)
	check("ArgMin", mustRun(t, "ArgMin", kernel.Attrs{"axis": int64(1)}, x), kernel.Int64, shp(1, 1), 6)
	// 2^53 and 2^53+1 are one float64: the larger must still win.
	check("ArgMax near 2^53", mustRun(t, "ArgMax", kernel.Attrs{"axis": int64(0)}, intsT(kernel.Uint64, shp(2), uint64(1<<53), uint64(1<<53+1))), kernel.Int64, shp(1), 1)
	top, err := runOp("TopK", kernel.Attrs{"axis": int64(1)}, x, intsT(kernel.Int64, shp(1), int64(3)))
	if err != nil {
		t.Fatal(err)
	}
	check("TopK values", top[0], kernel.Uint64, shp(1, 3), math.MaxUint64, big+1, big)
	check("TopK indices", top[1], kernel.Int64, shp(1, 3), 3, 1, 4)
	lo, hi := intsT(kernel.Uint64, shp(), uint64(1<<53)), intsT(kernel.Uint64, shp(), uint64(big+1))
	check("Clip", mustRun(t, "Clip", nil, x, lo, hi), kernel.Uint64, shp(1, n), 1<<53, big+1, 1<<53+1, big+1, big, 1<<53, 1<<53)
	check("Clip without max", mustRun(t, "Clip", nil, x, lo), kernel.Uint64, shp(1, n), 1<<53, big+1, 1<<53+1, math.MaxUint64, big, 1<<53, 1<<53)
	u, err := runOp("Unique", kernel.Attrs{"sorted": int64(1)}, x)
	if err != nil {
		t.Fatal(err)
	}
	check("Unique", u[0], kernel.Uint64, shp(n), 0, 5, 1<<53, 1<<53+1, big, big+1, math.MaxUint64)
	data := intsT(kernel.Uint64, shp(2), uint64(big), uint64(7))
	idx := intsT(kernel.Int64, shp(2), int64(0), int64(1))
	upd := intsT(kernel.Uint64, shp(2), uint64(5), uint64(math.MaxUint64))
	check("ScatterElements max", mustRun(t, "ScatterElements", kernel.Attrs{"reduction": "max"}, data, idx, upd), kernel.Uint64, shp(2), big, math.MaxUint64)
	check("ScatterElements min", mustRun(t, "ScatterElements", kernel.Attrs{"reduction": "min"}, data, idx, upd), kernel.Uint64, shp(2), 5, 7)
	// Sums wrap modulo 2^64.
	check("ReduceSum", mustRun(t, "ReduceSum", nil, intsT(kernel.Uint64, shp(3), uint64(math.MaxUint64), uint64(big), uint64(3))), kernel.Uint64, shp(1), big+2)
	check("CumSum", mustRun(t, "CumSum", nil, intsT(kernel.Uint64, shp(3), uint64(big), uint64(big), uint64(1)), intsT(kernel.Int64, shp(), int64(0))), kernel.Uint64, shp(3), big, 0, 1)
	check("MatMul uint32", mustRun(t, "MatMul", nil, intsT(kernel.Uint32, shp(1, 2), uint32(0xffff_ffff), uint32(2)), intsT(kernel.Uint32, shp(2, 1), uint32(2), uint32(0x8000_0000))), kernel.Uint32, shp(1, 1), 0xffff_fffe)
	// Abs and Sign of unsigned values; Neg of an unsigned type is refused,
	// as ONNX's Neg takes signed types only.
	check("Abs", mustRun(t, "Abs", nil, x), kernel.Uint64, shp(1, n), v...)
	check("Sign", mustRun(t, "Sign", nil, x), kernel.Uint64, shp(1, n), 1, 1, 1, 1, 1, 1, 0)
	for _, dt := range []kernel.DType{kernel.Uint8, kernel.Uint16, kernel.Uint32, kernel.Uint64} {
		wantErr(t, "Neg", nil, []*kernel.Tensor{kernel.New(dt, 1)}, "Neg does not take")
	}
	check("Neg int16", mustRun(t, "Neg", nil, intsT(kernel.Int16, shp(3), int16(math.MinInt16), int16(-2), int16(7))), kernel.Int16, shp(3), 0x8000, 2, lowBits(kernel.Int16, uint64(0xfff9)))
	check("Abs int16", mustRun(t, "Abs", nil, intsT(kernel.Int16, shp(3), int16(math.MinInt16), int16(-2), int16(7))), kernel.Int16, shp(3), 0x8000, 2, 7)
	// Pow with a uint64 exponent reads its unsigned value.
	p := mustRun(t, "Pow", nil, tensor(kernel.Float32, shp(2), 1, 2), intsT(kernel.Uint64, shp(2), uint64(math.MaxUint64), uint64(3)))
	check("Pow", p, kernel.Float32, shp(2), uint64(math.Float32bits(1)), uint64(math.Float32bits(8)))
}

// TestNewTypesCast: Cast between the new integer types and the others
// wraps as Go's conversions do; from floats it truncates and saturates;
// uint64 converts to floats as unsigned.
func TestNewTypesCast(t *testing.T) {
	u := intsT(kernel.Uint64, shp(4), uint64(math.MaxUint64), uint64(1<<63), uint64(70000), uint64(1<<24+1))
	check := func(to kernel.DType, x *kernel.Tensor, want ...uint64) {
		t.Helper()
		got := mustRun(t, "Cast", kernel.Attrs{"to": to}, x)
		checkBits(t, fmt.Sprintf("Cast %v to %v", x.DType, to), got, to, x.Shape, want, true, func(i int) string { return fmt.Sprint("element ", i) })
	}
	f32 := func(v float32) uint64 { return uint64(math.Float32bits(v)) }
	check(kernel.Int64, u, math.MaxUint64, 1<<63, 70000, 1<<24+1) // the bits
	check(kernel.Int16, u, 0xffff, 0, 70000&0xffff, 1)            // the low 16 bits
	check(kernel.Uint32, u, 0xffff_ffff, 0, 70000, 1<<24+1)       //
	check(kernel.Float64, u, math.Float64bits(0x1p64), math.Float64bits(0x1p63), math.Float64bits(70000), math.Float64bits(1<<24+1))
	check(kernel.Float32, u, f32(0x1p64), f32(0x1p63), f32(70000), f32(1<<24)) // 2^24+1 rounds to even
	// bfloat16: 70000 is 0x1.1170p16, between 0x4788 (69632) and 0x4789
	// (70144): nearer 70144.
	check(kernel.BFloat16, u, 0x5f80, 0x5f00, 0x4789, 0x4b80)
	i16 := intsT(kernel.Int16, shp(4), int16(math.MinInt16), int16(-1), int16(255), int16(math.MaxInt16))
	check(kernel.Uint16, i16, 0x8000, 0xffff, 255, 0x7fff)
	check(kernel.Uint64, i16, 1<<63|0x7fff_ffff_ffff_8000, math.MaxUint64, 255, 0x7fff)
	check(kernel.Int8, i16, 0, 0xff, 0xff, 0xff)
	check(kernel.Float32, i16, f32(-32768), f32(-1), f32(255), f32(32767))
	// From floats: truncated toward zero, saturated, NaN to 0.
	fl := tensor(kernel.Float64, shp(6), -1.5, 1e30, 65535.9, math.NaN(), 0x1p63, 123.7)
	check(kernel.Uint16, fl, 0, 0xffff, 0xffff, 0, 0xffff, 123)
	check(kernel.Int16, fl, lowBits(kernel.Int16, uint64(0xffff)), 0x7fff, 0x7fff, 0, 0x7fff, 123)
	check(kernel.Uint32, fl, 0, 0xffff_ffff, 65535, 0, 0xffff_ffff, 123)
	check(kernel.Uint64, fl, 0, math.MaxUint64, 65535, 0, 1<<63, 123)
	// Float to bfloat16: ties to even, NaN stays NaN (onnxruntime's
	// 0x7fc1), overflow to Inf; from float64 rounded once, not through a
	// float32 tie: 1 + 2^-8 + 2^-40 is above the tie between 1 and
	// 1 + 2^-7.
	x := bitsTensor(kernel.Float32, shp(6), []uint64{0x3f808000, 0x3f818000, 0x7fc00000, 0xffc00000, 0x7f7fffff, 0x00018000})
	check(kernel.BFloat16, x, 0x3f80, 0x3f82, 0x7fc1, 0x7fc1, 0x7f80, 0x0002)
	check(kernel.BFloat16, tensor(kernel.Float64, shp(2), 1+0x1p-8+0x1p-40, 1+0x1p-8), 0x3f81, 0x3f80)
	// bfloat16 widens exactly, and narrows to float16 once.
	bf := bitsTensor(kernel.BFloat16, shp(4), []uint64{0x3f81, 0xc2f7, 0x0001, 0x477f})
	check(kernel.Float32, bf, 0x3f810000, 0xc2f70000, 0x00010000, 0x477f0000)
	check(kernel.Float16, bf, 0x3c08, 0xd7b8, 0x0000, 0x7bf8) // 1.0078125, -123.5, 2^-133 (to 0), 65280
	check(kernel.Int32, bf, 1, lowBits(kernel.Int32, uint64(0xffff_ff85)), 0, 65280)
}

// TestNewTypesBFloat16Arith: bfloat16 operands compute in float32 and
// round once to bfloat16.
func TestNewTypesBFloat16Arith(t *testing.T) {
	a := bitsTensor(kernel.BFloat16, shp(3), []uint64{0x3f80, 0x4000, 0x7f7f}) // 1, 2, the largest
	b := bitsTensor(kernel.BFloat16, shp(3), []uint64{0x3b80, 0x3f80, 0x7f7f}) // 2^-8, 1, the largest
	for _, c := range []struct {
		op   string
		want []uint64
	}{
		{"Add", []uint64{0x3f80, 0x4040, 0x7f80}}, // 1 + 2^-8 ties to 1; 3; overflow to Inf
		{"Sub", []uint64{0x3f7f, 0x3f80, 0x0000}}, // 1 − 2^-8 = 0x3f7f exactly
		{"Mul", []uint64{0x3b80, 0x4000, 0x7f80}},
		{"Div", []uint64{0x4380, 0x4000, 0x3f80}},
	} {
		got := mustRun(t, c.op, nil, a, b)
		checkBits(t, c.op+"/bfloat16", got, kernel.BFloat16, shp(3), c.want, true, func(i int) string { return fmt.Sprint("element ", i) })
	}
}

// TestTypeConstraints: an element type no version of an op's ONNX type
// constraint lists is refused, for the ops whose lists are narrower than
// their neighbours'.
func TestTypeConstraints(t *testing.T) {
	scalar := func(dt kernel.DType) *kernel.Tensor { return kernel.New(dt) }
	for _, dt := range []kernel.DType{kernel.Int32, kernel.Int64, kernel.Uint8, kernel.Bool} {
		wantErr(t, "Celu", nil, []*kernel.Tensor{kernel.New(dt, 2)}, "Celu does not take")
	}
	for _, dt := range []kernel.DType{kernel.Int8, kernel.Uint8, kernel.Bool} {
		wantErr(t, "PRelu", nil, []*kernel.Tensor{kernel.New(dt, 2), kernel.New(dt, 1)}, "dtype")
	}
	for _, dt := range []kernel.DType{kernel.Int8, kernel.Uint8, kernel.Uint32} {
		wantErr(t, "Range", nil, []*kernel.Tensor{scalar(dt), scalar(dt), scalar(dt)}, "dtype")
	}
	// Range's float16 and bfloat16 came in opset 27 (TestRangeStash).
	for _, dt := range []kernel.DType{kernel.Float16, kernel.BFloat16} {
		wantErr(t, "Range", kernel.Attrs{kernel.OpsetAttr: int64(26)}, []*kernel.Tensor{scalar(dt), scalar(dt), scalar(dt)}, "dtype")
	}
	// The types they do take still run.
	for _, dt := range []kernel.DType{kernel.Float32, kernel.Float16, kernel.BFloat16, kernel.Float64} {
		mustRun(t, "Celu", nil, kernel.New(dt, 2)) // Celu-28's types, at every opset
	}
	for _, dt := range []kernel.DType{kernel.Float16, kernel.BFloat16, kernel.Float64, kernel.Int32, kernel.Int64, kernel.Uint32, kernel.Uint64} {
		mustRun(t, "PRelu", nil, kernel.New(dt, 2), kernel.New(dt, 1))
	}
}

// TestRangeStash: Range-27's float16 and bfloat16 count in the stash type,
// so a range past float16's integers still steps (2048 + 1 is not 2048),
// each element rounded once; before opset 27 they are refused, and so is
// the attribute.
func TestRangeStash(t *testing.T) {
	f16 := func(v float64) *kernel.Tensor { return tensor(kernel.Float16, shp(), v) }
	for _, attrs := range []kernel.Attrs{nil, {"stash_type": int64(1)}, {"stash_type": int64(11)}, {kernel.OpsetAttr: int64(27)}} {
		o := mustRun(t, "Range", attrs, f16(2048), f16(2058), f16(1))
		want := []float64{2048, 2048, 2050, 2052, 2052, 2052, 2054, 2056, 2056, 2056}
		if o.DType != kernel.Float16 || !slices.Equal(o.Shape, kernel.Shape{int64(len(want))}) {
			t.Fatalf("Range %v: %v, want float16 [%d]", attrs, o, len(want))
		}
		for i, w := range want {
			if got := loadF(o.DType, o.Data(), int64(i)); got != w {
				t.Errorf("Range %v: element %d = %v, want %v", attrs, i, got, w)
			}
		}
	}
	bf := func(v float64) *kernel.Tensor { return tensor(kernel.BFloat16, shp(), v) }
	if got := mustRun(t, "Range", nil, bf(0), bf(1), bf(0.25)).Shape; !slices.Equal(got, kernel.Shape{4}) {
		t.Errorf("bfloat16 Range: shape %v, want [4]", got)
	}
	wantErr(t, "Range", kernel.Attrs{kernel.OpsetAttr: int64(26)}, []*kernel.Tensor{f16(0), f16(4), f16(1)}, "dtype")
	if _, err := Builtins().New("Range", kernel.Attrs{kernel.OpsetAttr: int64(26), "stash_type": int64(1)}); err == nil {
		t.Error("Range-26 with stash_type: no error")
	}
	if _, err := Builtins().New("Range", kernel.Attrs{"stash_type": int64(10)}); err == nil || !strings.Contains(err.Error(), "stash_type") {
		t.Errorf("stash_type 10: %v, want an error naming it", err)
	}
}
