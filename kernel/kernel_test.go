package kernel_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func TestDTypes(t *testing.T) {
	for _, c := range []struct {
		d    kernel.DType
		name string
		size int
	}{{kernel.Float32, "float32", 4}, {kernel.Float16, "float16", 2}, {kernel.Int32, "int32", 4}, {kernel.Int64, "int64", 8}, {kernel.Bool, "bool", 1}} {
		if c.d.String() != c.name || c.d.Size() != c.size || !c.d.Valid() {
			t.Errorf("%v: name %q size %d", c.d, c.d.String(), c.d.Size())
		}
		if d, err := kernel.ParseDType(c.name); err != nil || d != c.d {
			t.Errorf("ParseDType(%q) = %v, %v", c.name, d, err)
		}
	}
	var zero kernel.DType
	if zero.Valid() || zero.Size() != 0 {
		t.Error("the zero DType is valid")
	}
	if _, err := kernel.ParseDType("complex64"); err == nil {
		t.Error("unknown dtype parsed")
	}
}

func TestBroadcast(t *testing.T) {
	cases := []struct{ a, b, want kernel.Shape }{
		{kernel.Shape{2, 3}, kernel.Shape{3}, kernel.Shape{2, 3}},
		{kernel.Shape{4, 1, 5}, kernel.Shape{3, 1}, kernel.Shape{4, 3, 5}},
		{nil, kernel.Shape{2}, kernel.Shape{2}},
		{kernel.Shape{0, 3}, kernel.Shape{1, 3}, kernel.Shape{0, 3}},
		{kernel.Shape{1}, kernel.Shape{0}, kernel.Shape{0}},
	}
	for _, c := range cases {
		got, err := kernel.Broadcast(c.a, c.b)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("Broadcast(%v, %v) = %v, %v; want %v", c.a, c.b, got, err, c.want)
		}
	}
	for _, c := range [][2]kernel.Shape{{{2, 3}, {4}}, {{-2}, {1}}, {{1}, {kernel.Dynamic, 3}}} {
		if got, err := kernel.Broadcast(c[0], c[1]); err == nil {
			t.Errorf("Broadcast(%v, %v) = %v, want an error", c[0], c[1], got)
		}
	}
}

func TestShapeHelpers(t *testing.T) {
	s := kernel.Shape{2, 3, 4}
	if s.NumElements() != 24 || s.Rank() != 3 || !s.Known() || s.String() != "[2,3,4]" {
		t.Fatalf("shape %v", s)
	}
	if st := s.Strides(); st[0] != 12 || st[1] != 4 || st[2] != 1 {
		t.Fatalf("strides %v", st)
	}
	d := kernel.Shape{kernel.Dynamic, 3}
	if d.Known() || d.NumElements() != -1 || d.String() != "[?,3]" {
		t.Fatalf("dynamic shape %v", d)
	}
	if (kernel.Shape{}).NumElements() != 1 {
		t.Fatal("a scalar has one element")
	}
	c := s.Clone()
	c[0] = 9
	if s[0] != 2 {
		t.Fatal("Clone shares memory")
	}
	for _, tc := range []struct {
		axis int64
		rank int
		want int
		ok   bool
	}{{-1, 3, 2, true}, {0, 3, 0, true}, {3, 3, 0, false}, {-4, 3, 0, false}} {
		got, err := kernel.NormAxis(tc.axis, tc.rank)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("NormAxis(%d, %d) = %d, %v", tc.axis, tc.rank, got, err)
		}
	}
}

// f16Reference rounds f to binary16 by exhaustive search over the finite
// half values: the nearest one, ties to the even bit pattern.
func f16Reference(f float32, table []float32) uint16 {
	best, bestD := uint16(0), math.Inf(1)
	for h, v := range table {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			continue
		}
		d := math.Abs(float64(v) - float64(f))
		if d < bestD || d == bestD && h&1 == 0 {
			best, bestD = uint16(h), d
		}
	}
	return best
}

func TestFloat16RoundTripAndRounding(t *testing.T) {
	table := make([]float32, 1<<16)
	for h := range table {
		table[h] = kernel.F16ToF32(uint16(h))
		// Widening then narrowing is the identity on every non-NaN value.
		if !math.IsNaN(float64(table[h])) && kernel.F32ToF16(table[h]) != uint16(h) {
			t.Fatalf("round trip of %#04x gave %#04x", h, kernel.F32ToF16(table[h]))
		}
	}
	if kernel.F16ToF32(0x3c00) != 1 || kernel.F16ToF32(0xc000) != -2 || kernel.F16ToF32(0x7bff) != 65504 {
		t.Fatal("known half values decode wrong")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 400; i++ {
		f := float32(rng.NormFloat64() * math.Pow(2, float64(rng.IntN(30)-20)))
		got := kernel.F32ToF16(f)
		want := f16Reference(f, table)
		// Equal distance from two halves with the same parity cannot
		// happen; allow the reference's sign of zero to differ for tiny f.
		if got != want && !(table[got] == 0 && table[want] == 0) {
			t.Fatalf("F32ToF16(%g) = %#04x (%g), nearest is %#04x (%g)", f, got, table[got], want, table[want])
		}
	}
	if got := kernel.F32ToF16(1e6); got != 0x7c00 {
		t.Fatalf("overflow gave %#04x, want +Inf", got)
	}
	if got := kernel.F32ToF16(float32(math.NaN())); got&0x7c00 != 0x7c00 || got&0x3ff == 0 {
		t.Fatalf("NaN gave %#04x", got)
	}
}

func TestAttrs(t *testing.T) {
	a := kernel.Attrs{"axis": 1, "perm": []int{1, 0}, "eps": float32(0.5), "to": "int64", "keep": true, "name": "x"}
	if v, err := a.Int("axis", 0); err != nil || v != 1 {
		t.Errorf("Int: %v %v", v, err)
	}
	if v, err := a.Int("missing", 7); err != nil || v != 7 {
		t.Errorf("Int default: %v %v", v, err)
	}
	if v, err := a.Ints("perm", nil); err != nil || len(v) != 2 || v[0] != 1 {
		t.Errorf("Ints: %v %v", v, err)
	}
	if v, err := a.Float("eps", 0); err != nil || v != 0.5 {
		t.Errorf("Float: %v %v", v, err)
	}
	if v, err := a.DType("to", 0); err != nil || v != kernel.Int64 {
		t.Errorf("DType: %v %v", v, err)
	}
	if v, err := a.Bool("keep", false); err != nil || !v {
		t.Errorf("Bool: %v %v", v, err)
	}
	if _, err := a.Int("name", 0); err == nil {
		t.Error("a string read as an int")
	}
	if _, err := a.Ints("axis", nil); err == nil {
		t.Error("an int read as a list")
	}
	if err := a.Check("axis", "perm"); err == nil || !strings.Contains(err.Error(), "unknown attribute") {
		t.Errorf("Check: %v", err)
	}
}

// TestAttrsErrorsMatchErrBadAttr: every refusal of the getters matches
// ErrBadAttr and names the attribute; Check's of an unknown one does not.
func TestAttrsErrorsMatchErrBadAttr(t *testing.T) {
	a := kernel.Attrs{"s": "x", "i": int64(1), "to": "no-such-type", "opset": int64(0), "d": kernel.DType(200)}
	for name, err := range map[string]error{
		"Int":           second(a.Int("s", 0)),
		"Float":         second(a.Float("s", 0)),
		"Ints":          second(a.Ints("s", nil)),
		"Floats":        second(a.Floats("s", nil)),
		"Strings":       second(a.Strings("i", nil)),
		"Tensor":        second(a.Tensor("i", nil)),
		"String":        second(a.String("i", "")),
		"Bool":          second(a.Bool("s", false)),
		"DType":         second(a.DType("i", 0)),
		"DType name":    second(a.DType("to", 0)),
		"DType invalid": second(a.DType("d", 0)),
		"Opset":         second(a.Opset(1)),
	} {
		if !errors.Is(err, kernel.ErrBadAttr) || !strings.Contains(err.Error(), `attribute "`) {
			t.Errorf("%s: %v, want an error matching ErrBadAttr naming the attribute", name, err)
		}
	}
	if err := a.Check("i"); err == nil || errors.Is(err, kernel.ErrBadAttr) {
		t.Errorf("Check of unknown attributes: %v, want an error not matching ErrBadAttr", err)
	}
}

// second returns its second argument.
func second[T any](_ T, err error) error { return err }

func TestTensorViewsAndValues(t *testing.T) {
	x := kernel.FromInt64([]int64{3, -1, 4}, 3)
	v, err := x.IntValues()
	if err != nil || len(v) != 3 || v[1] != -1 {
		t.Fatalf("IntValues %v %v", v, err)
	}
	y := kernel.FromInt32([]int32{5, 6}, 2)
	if v, err := y.IntValues(); err != nil || v[1] != 6 {
		t.Fatalf("int32 IntValues %v %v", v, err)
	}
	if _, err := kernel.Virtual(kernel.Int64, 2).IntValues(); err == nil {
		t.Fatal("values of a virtual tensor")
	}
	if _, err := kernel.FromFloat32([]float32{1}, 1).IntValues(); err == nil {
		t.Fatal("float tensor read as integers")
	}
	f := kernel.FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	if f.Bytes() != 24 || f.IsVirtual() || kernel.Float32s(f.Data())[5] != 6 || f.String() != "float32[2,3](real)" {
		t.Fatalf("tensor %v", f)
	}
	if m := f.Meta(); m.Host != nil || !m.Shape.Equal(f.Shape) {
		t.Fatal("Meta kept contents")
	}
	e := &kernel.Error{Node: "n", Op: "Add", Stage: kernel.StageResize, Err: errors.New("boom")}
	if !strings.Contains(e.Error(), `node "n" (op Add) stage resize: boom`) || errors.Unwrap(e).Error() != "boom" {
		t.Fatalf("error %q", e)
	}
}

// TestAttrsTensorChecksTheTensor: a tensor attribute is refused, naming
// the attribute, when it is nil, of an invalid dtype, of a negative or
// overflowing shape, or holds other than its byte count.
func TestAttrsTensorChecksTheTensor(t *testing.T) {
	short := kernel.New(kernel.Float32, 2)
	short.Host = short.Host[:4]
	for _, c := range []struct {
		v    any
		frag string
	}{
		{(*kernel.Tensor)(nil), "want a tensor"},
		{&kernel.Tensor{DType: 0, Shape: kernel.Shape{1}, Host: []byte{0}}, "invalid dtype"},
		{&kernel.Tensor{DType: kernel.Int64, Shape: kernel.Shape{-1}}, "negative"},
		{&kernel.Tensor{DType: kernel.Int64, Shape: kernel.Shape{1 << 40, 1 << 40}}, "more bytes than an int64"},
		{short, "holds 4 bytes, want 8"},
		{kernel.Virtual(kernel.Float32, 2), "holds 0 bytes"},
	} {
		_, err := kernel.Attrs{"value": c.v}.Tensor("value", nil)
		if err == nil || !strings.Contains(err.Error(), c.frag) || !strings.Contains(err.Error(), `"value"`) {
			t.Errorf("Tensor(%v): error %v, want one naming the attribute and containing %q", c.v, err, c.frag)
		}
	}
	if x, err := (kernel.Attrs{"value": kernel.FromInt64([]int64{3}, 1)}).Tensor("value", nil); err != nil || x.NumElements() != 1 {
		t.Errorf("Tensor of a good tensor: %v, %v", x, err)
	}
}
