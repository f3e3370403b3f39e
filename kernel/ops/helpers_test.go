package ops

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

var testDev = func() *device.Sim {
	d, err := device.NewSim(device.SimOptions{})
	if err != nil {
		panic(err)
	}
	return d
}()

// prepare runs InferShape and Resize and allocates the outputs (materialized
// exactly when kernel.OutputsReal says so) and the workspace.
func prepare(k kernel.Kernel, seed uint64, in ...*kernel.Tensor) (*kernel.Args, error) {
	_, _, nOut := k.Arity()
	out := make([]*kernel.Tensor, nOut)
	for i := range out {
		out[i] = &kernel.Tensor{}
	}
	if err := k.InferShape(in, out); err != nil {
		return nil, err
	}
	var tl kernel.Tiling
	err := k.Resize(in, out, &tl)
	if err != nil {
		return nil, err
	}
	real := kernel.OutputsReal(k, in)
	for _, o := range out {
		if o.Buf, err = testDev.Alloc(o.Bytes(), real); err != nil {
			return nil, err
		}
	}
	a := &kernel.Args{In: in, Out: out, Tiling: tl, Node: "node", Seed: seed}
	if tl.Workspace > 0 {
		if a.Workspace, err = testDev.Alloc(tl.Workspace, false); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// launch launches k with a and, for a compute-dependent kernel, sets the
// output shapes it reports.
func launch(k kernel.Kernel, a *kernel.Args) error {
	if err := k.Compute(a); err != nil {
		return err
	}
	if cd, ok := k.(kernel.ComputeDependent); ok {
		shapes, err := cd.OutputShapes(a)
		if err != nil {
			return err
		}
		for i, s := range shapes {
			a.Out[i].Shape = s
		}
	}
	return nil
}

// runOp builds op from the built-in registry and runs it through the whole
// life cycle.
func runOp(op string, attrs kernel.Attrs, in ...*kernel.Tensor) ([]*kernel.Tensor, error) {
	return runFilled(op, attrs, false, in...)
}

// runDirty is runOp with the output buffers filled with bytes 0xa5 before
// the launch: an element the kernel does not write shows.
func runDirty(op string, attrs kernel.Attrs, in ...*kernel.Tensor) ([]*kernel.Tensor, error) {
	return runFilled(op, attrs, true, in...)
}

func runFilled(op string, attrs kernel.Attrs, dirty bool, in ...*kernel.Tensor) ([]*kernel.Tensor, error) {
	k, err := Builtins().New(op, attrs)
	if err != nil {
		return nil, err
	}
	a, err := prepare(k, 1, in...)
	if err != nil {
		return nil, err
	}
	for _, o := range a.Out {
		if dirty {
			b := o.Data()
			for i := range b {
				b[i] = 0xa5
			}
		}
	}
	if err := launch(k, a); err != nil {
		return nil, err
	}
	return a.Out, nil
}

func mustRun(t testing.TB, op string, attrs kernel.Attrs, in ...*kernel.Tensor) *kernel.Tensor {
	t.Helper()
	out, err := runOp(op, attrs, in...)
	if err != nil {
		t.Fatalf("%s %v on %v: %v", op, attrs, in, err)
	}
	return out[0]
}

// wantErr runs op and requires an error containing every fragment.
func wantErr(t testing.TB, op string, attrs kernel.Attrs, in []*kernel.Tensor, fragments ...string) {
	t.Helper()
	_, err := runOp(op, attrs, in...)
	if err == nil {
		t.Fatalf("%s %v on %v: no error, want one containing %q", op, attrs, in, fragments)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Fatalf("%s %v on %v: error %q does not contain %q", op, attrs, in, err, f)
		}
	}
}

// tensor makes a host tensor of dtype dt and shape from float64 values, or
// zero-filled without values.
func tensor(dt kernel.DType, shape []int64, v ...float64) *kernel.Tensor {
	t := kernel.New(dt, shape...)
	if len(v) != 0 && int64(len(v)) != t.NumElements() {
		panic(fmt.Sprintf("tensor %v%v: %d values", dt, shape, len(v)))
	}
	for i, x := range v {
		setValue(t.Host, dt, i, x)
	}
	return t
}

func setValue(b []byte, dt kernel.DType, i int, x float64) {
	switch dt {
	case kernel.Float32:
		kernel.Float32s(b)[i] = float32(x)
	case kernel.Float16:
		kernel.Uint16s(b)[i] = kernel.F32ToF16(float32(x))
	case kernel.Float64:
		kernel.Float64s(b)[i] = x
	case kernel.Int32:
		kernel.Int32s(b)[i] = int32(x)
	case kernel.Int64:
		kernel.Int64s(b)[i] = int64(x)
	case kernel.Uint8:
		b[i] = uint8(x)
	case kernel.Int8:
		kernel.Int8s(b)[i] = int8(x)
	case kernel.Bool:
		b[i] = 0
		if x != 0 {
			b[i] = 1
		}
	case kernel.BFloat16:
		kernel.Uint16s(b)[i] = uint16(refBF16(x))
	case kernel.Int16:
		kernel.Int16s(b)[i] = int16(x)
	case kernel.Uint16:
		kernel.Uint16s(b)[i] = uint16(x)
	case kernel.Uint32:
		kernel.Uint32s(b)[i] = uint32(x)
	case kernel.Uint64:
		kernel.Uint64s(b)[i] = uint64(x)
	default:
		panic("setValue: no case for " + dt.String())
	}
}

// values reads t's contents as float64s.
func values(t *kernel.Tensor) []float64 {
	b := t.Data()
	n := t.NumElements()
	v := make([]float64, n)
	for i := range v {
		switch t.DType {
		case kernel.Float32:
			v[i] = float64(kernel.Float32s(b)[i])
		case kernel.Float16:
			v[i] = float64(kernel.F16ToF32(kernel.Uint16s(b)[i]))
		case kernel.Float64:
			v[i] = kernel.Float64s(b)[i]
		case kernel.Int32:
			v[i] = float64(kernel.Int32s(b)[i])
		case kernel.Int64:
			v[i] = float64(kernel.Int64s(b)[i])
		case kernel.Uint8:
			v[i] = float64(b[i])
		case kernel.Int8:
			v[i] = float64(kernel.Int8s(b)[i])
		case kernel.Bool:
			v[i] = float64(b[i])
		case kernel.BFloat16:
			v[i] = float64(math.Float32frombits(uint32(kernel.Uint16s(b)[i]) << 16))
		case kernel.Int16:
			v[i] = float64(kernel.Int16s(b)[i])
		case kernel.Uint16:
			v[i] = float64(kernel.Uint16s(b)[i])
		case kernel.Uint32:
			v[i] = float64(kernel.Uint32s(b)[i])
		case kernel.Uint64:
			v[i] = float64(kernel.Uint64s(b)[i])
		default:
			panic("values: no case for " + t.DType.String())
		}
	}
	return v
}

func f32(shape []int64, v ...float64) *kernel.Tensor { return tensor(kernel.Float32, shape, v...) }
func i64(shape []int64, v ...float64) *kernel.Tensor { return tensor(kernel.Int64, shape, v...) }
func shp(d ...int64) []int64                         { return d }

// sameValue reports whether a and b are equal, NaN equal to NaN and -0 to +0
// only if bits is false.
func sameValue(a, b float64, bits bool) bool {
	if math.IsNaN(a) && math.IsNaN(b) {
		return true
	}
	if bits {
		return math.Float64bits(a) == math.Float64bits(b)
	}
	return a == b
}

// checkValues compares got against want exactly (bit-exact for floats).
func checkValues(t testing.TB, what string, got *kernel.Tensor, wantShape []int64, want []float64) {
	t.Helper()
	if !got.Shape.Equal(wantShape) {
		t.Fatalf("%s: shape %v, want %v", what, got.Shape, kernel.Shape(wantShape))
	}
	g := values(got)
	for i := range want {
		if !sameValue(g[i], want[i], true) {
			t.Fatalf("%s: element %d is %v, want %v\ngot  %v\nwant %v", what, i, g[i], want[i], g, want)
		}
	}
}

// checkClose compares got against want within a relative tolerance.
func checkClose(t testing.TB, what string, got *kernel.Tensor, wantShape []int64, want []float64, tol float64) {
	t.Helper()
	if !got.Shape.Equal(wantShape) {
		t.Fatalf("%s: shape %v, want %v", what, got.Shape, kernel.Shape(wantShape))
	}
	g := values(got)
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(g[i]) || math.Abs(g[i]-want[i]) > tol*(1+math.Abs(want[i])) {
			t.Fatalf("%s: element %d is %v, want %v (tolerance %g)", what, i, g[i], want[i], tol)
		}
	}
}

// numel is the element count of a shape.
func numel(s []int64) int64 { return kernel.Shape(s).NumElements() }

// unravel turns flat index i into a multi-index of shape s.
func unravel(i int64, s []int64) []int64 {
	idx := make([]int64, len(s))
	for d := len(s) - 1; d >= 0; d-- {
		idx[d] = i % s[d]
		i /= s[d]
	}
	return idx
}

// ravel turns a multi-index of shape s into a flat index.
func ravel(idx, s []int64) int64 {
	var i int64
	for d := range s {
		i = i*s[d] + idx[d]
	}
	return i
}

// randValues draws n values representable in dt: small integers for
// integer types, quarter steps for floats, 0 or 1 for bool.
func randValues(r *rand.Rand, dt kernel.DType, n int64) []float64 {
	v := make([]float64, n)
	for i := range v {
		switch {
		case dt == kernel.Bool:
			v[i] = float64(r.IntN(2))
		case dt.IsFloat():
			v[i] = float64(r.IntN(64)-32) / 4
		default:
			v[i] = float64(r.IntN(41) - 20)
		}
	}
	return v
}

func randTensor(r *rand.Rand, dt kernel.DType, shape []int64) *kernel.Tensor {
	return tensor(dt, shape, randValues(r, dt, numel(shape))...)
}

// onDevice returns a copy of t whose contents live in a device buffer only.
func onDevice(t testing.TB, x *kernel.Tensor) *kernel.Tensor {
	t.Helper()
	buf, err := testDev.Alloc(x.Bytes(), true)
	if err != nil {
		t.Fatal(err)
	}
	copy(buf.Data, x.Host)
	return &kernel.Tensor{Shape: x.Shape.Clone(), DType: x.DType, Buf: buf}
}

var numericTypes = []kernel.DType{kernel.Float32, kernel.Float16, kernel.Int32, kernel.Int64}

// hardSwishExact is HardSwish, x·max(0, min(1, x/6 + 1/2)), evaluated in
// exact rational arithmetic and rounded once.
func hardSwishExact(x float64) float64 {
	switch {
	case x <= -3:
		return x * 0
	case x >= 3 || x != x:
		return x
	}
	r := new(big.Rat).SetFloat64(x)
	p := new(big.Rat).Add(r, big.NewRat(3, 1))
	p.Mul(p, r).Quo(p, big.NewRat(6, 1))
	f, _ := p.Float64()
	if f == 0 {
		return x * 0 // the sign of x
	}
	return f
}

// computeAllocs returns the allocations of a steady-state Compute of op on
// in (after a first one).
func computeAllocs(t *testing.T, op string, attrs kernel.Attrs, in []*kernel.Tensor) float64 {
	t.Helper()
	k, err := Builtins().New(op, attrs)
	if err != nil {
		t.Fatal(err)
	}
	a, err := prepare(k, 0, in...)
	if err != nil {
		t.Fatal(err)
	}
	return testing.AllocsPerRun(50, func() {
		if err := k.Compute(a); err != nil {
			t.Fatal(err)
		}
	})
}

// floats32In returns a source of n float32 values in [-2, 2), as float64,
// drawn from a PCG stream seeded by seed1 and seed2.
func floats32In(seed1, seed2 uint64) func(n int) []float64 {
	r := rand.New(rand.NewPCG(seed1, seed2))
	return func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(float32(r.Float64()*4 - 2))
		}
		return v
	}
}
