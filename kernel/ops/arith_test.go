package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

var arithOps = []struct {
	name string
	op   binOp
}{{"Add", opAdd}, {"Sub", opSub}, {"Mul", opMul}, {"Div", opDiv}}

// refArith is one element of a binary op, in the arithmetic of dt.
func refArith(op binOp, dt kernel.DType, x, y float64) float64 {
	switch dt {
	case kernel.Float32, kernel.Float16:
		a, b := float32(x), float32(y)
		var r float32
		switch op {
		case opAdd:
			r = a + b
		case opSub:
			r = a - b
		case opMul:
			r = a * b
		case opDiv:
			r = a / b
		}
		if dt == kernel.Float16 {
			r = kernel.F16ToF32(kernel.F32ToF16(r))
		}
		return float64(r)
	}
	a, b := int64(x), int64(y)
	var r int64
	switch op {
	case opAdd:
		r = a + b
	case opSub:
		r = a - b
	case opMul:
		r = a * b
	case opDiv:
		r = a / b
	}
	if dt == kernel.Int32 {
		r = int64(int32(r))
	}
	return float64(r)
}

// refBroadcast computes a binary op with numpy broadcasting by walking the
// output's multi-indices.
func refBroadcast(op binOp, dt kernel.DType, as, bs []int64, av, bv []float64) ([]int64, []float64) {
	r := max(len(as), len(bs))
	out := make([]int64, r)
	dim := func(s []int64, i int) int64 {
		if j := i - (r - len(s)); j >= 0 {
			return s[j]
		}
		return 1
	}
	for i := range out {
		out[i] = max(dim(as, i), dim(bs, i))
		if dim(as, i) == 0 || dim(bs, i) == 0 {
			out[i] = 0
		}
	}
	at := func(s []int64, v []float64, idx []int64) float64 {
		in := make([]int64, len(s))
		for j := range s {
			if s[j] != 1 {
				in[j] = idx[j+r-len(s)]
			}
		}
		return v[ravel(in, s)]
	}
	res := make([]float64, numel(out))
	for i := range res {
		idx := unravel(int64(i), out)
		res[i] = refArith(op, dt, at(as, av, idx), at(bs, bv, idx))
	}
	return out, res
}

// randBroadcastPair draws two shapes that broadcast: an output shape, then
// for each operand a suffix of it with some dimensions set to 1.
func randBroadcastPair(r *rand.Rand) (a, b []int64) {
	out := make([]int64, r.IntN(5))
	for i := range out {
		out[i] = int64(r.IntN(4) + 1)
		if r.IntN(12) == 0 {
			out[i] = 0
		}
	}
	pick := func() []int64 {
		s := append([]int64(nil), out[len(out)-r.IntN(len(out)+1):]...)
		for i := range s {
			if r.IntN(3) == 0 {
				s[i] = 1
			}
		}
		return s
	}
	return pick(), pick()
}

func TestArithRandomBroadcastMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := range 400 {
		as, bs := randBroadcastPair(r)
		if iter%2 == 1 {
			as, bs = bs, as
		}
		for _, dt := range numericTypes {
			for _, o := range arithOps {
				av, bv := randValues(r, dt, numel(as)), randValues(r, dt, numel(bs))
				if o.op == opDiv && !dt.IsFloat() {
					for i := range bv {
						if bv[i] == 0 {
							bv[i] = 3
						}
					}
				}
				got := mustRun(t, o.name, nil, tensor(dt, as, av...), tensor(dt, bs, bv...))
				ws, wv := refBroadcast(o.op, dt, as, bs, av, bv)
				if got.DType != dt {
					t.Fatalf("%s %v: dtype %v", o.name, dt, got.DType)
				}
				checkValues(t, o.name+" "+dt.String()+" "+kernel.Shape(as).String()+kernel.Shape(bs).String(), got, ws, wv)
			}
		}
	}
}

func TestArithScalarsAndZeroSize(t *testing.T) {
	got := mustRun(t, "Add", nil, f32(nil, 2), f32(nil, 3))
	checkValues(t, "scalar+scalar", got, nil, []float64{5})
	if got.Shape.Rank() != 0 {
		t.Fatalf("scalar+scalar has rank %d", got.Shape.Rank())
	}
	got = mustRun(t, "Mul", nil, f32(shp(2, 2), 1, 2, 3, 4), f32(nil, 10))
	checkValues(t, "matrix*scalar", got, shp(2, 2), []float64{10, 20, 30, 40})
	got = mustRun(t, "Sub", nil, f32(shp(0, 3)), f32(shp(3), 1, 2, 3))
	checkValues(t, "zero-size", got, shp(0, 3), nil)
	got = mustRun(t, "Add", nil, f32(shp(2, 1), 1, 2), f32(shp(1, 0)))
	checkValues(t, "zero-size broadcast", got, shp(2, 0), nil)
}

func TestArithOnDeviceInputs(t *testing.T) {
	a := onDevice(t, f32(shp(3, 1), 1, 2, 3))
	b := onDevice(t, f32(shp(2), 10, 20))
	got := mustRun(t, "Add", nil, a, b)
	checkValues(t, "device inputs", got, shp(3, 2), []float64{11, 21, 12, 22, 13, 23})
}

func TestArithFloat16RoundsOnStore(t *testing.T) {
	dt := kernel.Float16
	// 1 + 2^-11 is a tie between 1 and 1+2^-10 in float16: rounds to even (1).
	got := mustRun(t, "Add", nil, tensor(dt, shp(2), 1, 60000), tensor(dt, shp(2), math.Ldexp(1, -11), 10000))
	checkValues(t, "float16", got, shp(2), []float64{1, math.Inf(1)})
}

func TestDivIntegers(t *testing.T) {
	for _, dt := range []kernel.DType{kernel.Int32, kernel.Int64} {
		got := mustRun(t, "Div", nil, tensor(dt, shp(4), -7, 7, -7, 7), tensor(dt, shp(4), 2, -2, -2, 2))
		checkValues(t, "div "+dt.String(), got, shp(4), []float64{-3, -3, 3, 3})
		wantErr(t, "Div", nil, []*kernel.Tensor{tensor(dt, shp(2), 1, 2), tensor(dt, shp(2), 1, 0)}, "division by zero", "ops: Div")
	}
	got := mustRun(t, "Div", nil, f32(shp(3), 1, -1, 0), f32(shp(3), 0, 0, 0))
	checkValues(t, "float div by zero", got, shp(3), []float64{math.Inf(1), math.Inf(-1), math.NaN()})
}

func TestArithErrors(t *testing.T) {
	wantErr(t, "Add", nil, []*kernel.Tensor{f32(shp(2), 1, 2), i64(shp(2), 1, 2)}, "input B", "int64", "float32")
	wantErr(t, "Sub", nil, []*kernel.Tensor{tensor(kernel.Bool, shp(1), 1), tensor(kernel.Bool, shp(1), 1)}, "input A", "bool")
	wantErr(t, "Mul", nil, []*kernel.Tensor{f32(shp(2, 3)), f32(shp(2))}, "do not broadcast")
	wantErr(t, "Add", nil, []*kernel.Tensor{f32(shp(2))}, "have 1 inputs")
	wantErr(t, "Add", kernel.Attrs{"axis": 1}, nil, "unknown attribute")
}

func TestArithVirtualComputesNothing(t *testing.T) {
	k, err := Builtins().New("Add", nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := prepare(k, 1, kernel.Virtual(kernel.Float32, 1000, 64), kernel.Virtual(kernel.Float32, 64))
	if err != nil {
		t.Fatal(err)
	}
	if err := launch(k, a); err != nil {
		t.Fatal(err)
	}
	if !a.Out[0].IsVirtual() || !a.Out[0].Shape.Equal(kernel.Shape{1000, 64}) {
		t.Fatalf("output %v, want virtual [1000,64]", a.Out[0])
	}
	c := k.Cost(a.In, a.Out)
	if c.FLOPs != 64000 || c.Bytes != 4*(64000+64+64000) {
		t.Fatalf("cost %+v", c)
	}
}

// TestArithHighRank goes past the stack scratch of Resize (rank 8 for a
// binary op) with a broadcast that no coalescing can flatten.
func TestArithHighRank(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 30))
	as := shp(2, 1, 2, 1, 2, 1, 2, 1, 2, 1)
	bs := shp(1, 2, 1, 2, 1, 2, 1, 2, 1, 2)
	av, bv := randValues(r, kernel.Float32, numel(as)), randValues(r, kernel.Float32, numel(bs))
	ws, wv := refBroadcast(opSub, kernel.Float32, as, bs, av, bv)
	checkValues(t, "rank 10", mustRun(t, "Sub", nil, f32(as, av...), f32(bs, bv...)), ws, wv)
	x := randTensor(r, kernel.Int32, shp(2, 1, 3, 1, 2, 1, 2, 1, 2))
	perm := []int64{8, 0, 2, 4, 6, 1, 3, 5, 7}
	got := mustRun(t, "Transpose", kernel.Attrs{"perm": perm}, x)
	back := mustRun(t, "Transpose", kernel.Attrs{"perm": []int64{1, 5, 2, 6, 3, 7, 4, 8, 0}}, got)
	checkValues(t, "transpose round trip", back, x.Shape, values(x))
}
