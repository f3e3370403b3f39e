package ops

import (
	"fmt"
	"math"
	"testing"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// hostRun runs a built-in op on real host inputs, the way the runtime does.
func hostRun(t *testing.T, op string, attrs kernel.Attrs, in ...*kernel.Tensor) (*kernel.Tensor, error) {
	t.Helper()
	k, err := Builtins().New(op, attrs)
	if err != nil {
		t.Fatal(err)
	}
	out := []*kernel.Tensor{{}}
	if err := k.InferShape(in, out); err != nil {
		return nil, err
	}
	var a kernel.Args
	if err := k.Resize(in, out, &a.Tiling); err != nil {
		return nil, err
	}
	out[0].Host = make([]byte, out[0].Bytes())
	if ws := a.Tiling.Workspace; ws > 0 {
		a.Workspace = device.Buffer{Addr: 1, Size: ws, Data: make([]byte, ws)}
	}
	a.In, a.Out = in, out
	return out[0], k.Compute(&a)
}

// dtValues makes a tensor of dtype dt holding vs (exactly representable in
// every dtype).
func dtValues(dt kernel.DType, vs ...float64) *kernel.Tensor {
	t := kernel.New(dt, int64(len(vs)))
	for i, v := range vs {
		switch dt {
		case kernel.Float32:
			kernel.Float32s(t.Host)[i] = float32(v)
		case kernel.Float16:
			kernel.Uint16s(t.Host)[i] = kernel.F32ToF16(float32(v))
		case kernel.Float64:
			kernel.Float64s(t.Host)[i] = v
		case kernel.Int32:
			kernel.Int32s(t.Host)[i] = int32(v)
		case kernel.Int64:
			kernel.Int64s(t.Host)[i] = int64(v)
		case kernel.Int8:
			kernel.Int8s(t.Host)[i] = int8(v)
		case kernel.Uint8, kernel.Bool:
			t.Host[i] = uint8(v)
		case kernel.Int16:
			kernel.Int16s(t.Host)[i] = int16(v)
		case kernel.Uint16:
			kernel.Uint16s(t.Host)[i] = uint16(v)
		case kernel.Uint32:
			kernel.Uint32s(t.Host)[i] = uint32(v)
		case kernel.Uint64:
			kernel.Uint64s(t.Host)[i] = uint64(v)
		case kernel.BFloat16:
			// The values here are small integers: the upper half of their
			// float32 bits is exact.
			kernel.Uint16s(t.Host)[i] = uint16(math.Float32bits(float32(v)) >> 16)
		default:
			switch {
			case dt.IsFloat():
				t.Host[i] = kernel.F64ToF8(dt, v, true)
			case dt.IsInt():
				t.Host[i] = byte(int8(v))
			default:
				panic("dtValues: no case for " + dt.String())
			}
		}
	}
	return t
}

// holds reports whether dtype dt holds v exactly.
func holds(dt kernel.DType, v float64) bool {
	switch {
	case dt.IsFloat8() || dt == kernel.Float4E2M1:
		return float64(kernel.F8ToF32(dt, kernel.F64ToF8(dt, v, true))) == v
	case dt.IsInt():
		lo, hi := dt.IntRange()
		return float64(lo) <= v && v <= float64(hi)
	}
	return true
}

// TestCastEveryPair: Cast between every pair of pipert's dtypes, on values
// both dtypes hold exactly, gives those values (bool: nonzero is 1).
func TestCastEveryPair(t *testing.T) {
	vs := []float64{0, 1, 2, 7, 100}
	for _, from := range kernel.DTypes() {
		for _, to := range kernel.DTypes() {
			var src []float64
			for _, v := range vs {
				if holds(from, v) && holds(to, v) {
					src = append(src, v)
				}
			}
			if from == kernel.Bool {
				src = []float64{0, 1, 1, 0, 1}
				if to == kernel.Float8E8M0 {
					src = []float64{1, 1}
				}
			}
			want := src
			if to == kernel.Bool {
				want = make([]float64, len(src))
				for i, v := range src {
					if v != 0 {
						want[i] = 1
					}
				}
			}
			got, err := hostRun(t, "Cast", kernel.Attrs{"to": to}, dtValues(from, src...))
			if err != nil {
				t.Fatalf("%v to %v: %v", from, to, err)
			}
			if w := dtValues(to, want...); string(got.Host) != string(w.Host) {
				t.Errorf("%v to %v: %v, want %v", from, to, got.Host, w.Host)
			}
		}
	}
}

// TestDTypesEitherComputeOrRefuse: an op that accepts a dtype computes
// right on it; a float-only op refuses float64 rather than computing
// nothing.
func TestDTypesEitherComputeOrRefuse(t *testing.T) {
	for _, dt := range kernel.DTypes() {
		got, err := hostRun(t, "NonZero", nil, dtValues(dt, 0, 1, 0, 2))
		if err != nil {
			t.Fatalf("NonZero %v: %v", dt, err)
		}
		if dt != kernel.Bool && dt != kernel.Float8E8M0 { // bool 2 reads as 1: still nonzero; float8e8m0 has no 0
			if fmt.Sprint(kernel.Int64s(got.Host)[:2]) != "[1 3]" {
				t.Errorf("NonZero %v: %v", dt, kernel.Int64s(got.Host))
			}
		}
	}
	// −0 of the float 8 and 4 types is zero; float8e8m0's code 0 is 2^−127.
	for _, c := range []struct {
		dt   kernel.DType
		code byte
		want bool
	}{{kernel.Float8E4M3FN, 0x80, false}, {kernel.Float8E5M2FNUZ, 0x80, true}, {kernel.Float4E2M1, 0x8, false},
		{kernel.Float8E8M0, 0, true}, {kernel.Int4, 0, false}} {
		if got := nonzeroAt([]byte{c.code}, c.dt, 0); got != c.want {
			t.Errorf("NonZero: %v code %#x nonzero %v, want %v", c.dt, c.code, got, c.want)
		}
	}
	for _, op := range []string{"LayerNorm"} {
		x := dtValues(kernel.Float64, 1, 2)
		in := []*kernel.Tensor{x}
		if op == "LayerNorm" {
			in = append(in, dtValues(kernel.Float64, 1, 1), dtValues(kernel.Float64, 0, 0))
		}
		if _, err := hostRun(t, op, nil, in...); err == nil {
			t.Errorf("%s computed float64, which it does not implement", op)
		}
	}
}
