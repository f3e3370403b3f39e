package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// randQ returns a random int8 or uint8 tensor and its values minus zp as
// float32 (exact: the values are small).
func randQ(r *rand.Rand, dt kernel.DType, zp int64, shape ...int64) (*kernel.Tensor, *kernel.Tensor) {
	q := kernel.New(dt, shape...)
	f := kernel.New(kernel.Float32, shape...)
	for i := range q.Host {
		v := int64(r.IntN(256))
		if dt == kernel.Int8 {
			v -= 128
		}
		q.Host[i] = byte(v)
		kernel.Float32s(f.Host)[i] = float32(v - zp)
	}
	return q, f
}

func scalarQ(dt kernel.DType, v int64) *kernel.Tensor {
	t := kernel.New(dt)
	t.Host[0] = byte(v)
	return t
}

// TestIntegerOpsMatchFloatOps checks MatMulInteger and ConvInteger against
// MatMul and Conv on the zero-point-shifted values in float32, exact for
// these sizes, and QLinearMatMul against requantizing that product.
func TestIntegerOpsMatchFloatOps(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	dts := []kernel.DType{kernel.Int8, kernel.Uint8}
	for it := range 60 {
		da, db := dts[r.IntN(2)], dts[r.IntN(2)]
		za, zb := int64(r.IntN(20)), int64(r.IntN(20))
		if da == kernel.Int8 {
			za -= 10
		}
		if db == kernel.Int8 {
			zb -= 10
		}
		// MatMul shapes with batch broadcasting and 1-D operands.
		shapes := [][2][]int64{{{3, 4}, {4, 5}}, {{2, 1, 3, 4}, {3, 4, 2}}, {{4}, {4, 3}}, {{2, 3, 4}, {4}}}
		s := shapes[r.IntN(len(shapes))]
		a, af := randQ(r, da, za, s[0]...)
		b, bf := randQ(r, db, zb, s[1]...)
		want := mustRun(t, "MatMul", nil, af, bf)
		got := mustRun(t, "MatMulInteger", nil, a, b, scalarQ(da, za), scalarQ(db, zb))
		if !got.Shape.Equal(want.Shape) || got.DType != kernel.Int32 {
			t.Fatalf("case %d: MatMulInteger %v %v, want %v", it, got.DType, got.Shape, want.Shape)
		}
		for i, w := range kernel.Float32s(want.Data()) {
			if g := kernel.Int32s(got.Data())[i]; float32(g) != w {
				t.Fatalf("case %d: MatMulInteger element %d is %d, want %g", it, i, g, w)
			}
		}
		scale := func(v float32) *kernel.Tensor { return kernel.FromFloat32([]float32{v}) }
		as, bs, ys := float32(0.02), float32(0.5), float32(3.7)
		q := mustRun(t, "QLinearMatMul", nil, a, scale(as), scalarQ(da, za), b, scale(bs), scalarQ(db, zb), scale(ys), scalarQ(kernel.Uint8, 7))
		for i, w := range kernel.Float32s(want.Data()) {
			exp := max(0, min(255, math.RoundToEven(float64(w)*float64(as*bs/ys)+7)))
			if g := q.Data()[i]; float64(g) != exp {
				t.Fatalf("case %d: QLinearMatMul element %d is %d, want %g", it, i, g, exp)
			}
		}
		// Conv geometry.
		c, m, group := int64(2), int64(4), int64(1+r.IntN(2))
		attrs := kernel.Attrs{"group": group, "strides": []int64{1 + int64(r.IntN(2)), 1}, "dilations": []int64{1, 1 + int64(r.IntN(2))},
			"pads": []int64{int64(r.IntN(2)), 0, 1, int64(r.IntN(2))}}
		x, xf := randQ(r, da, za, 2, c, 5, 6)
		w, wf := randQ(r, db, zb, m, c/group, 2, 3)
		wantC := mustRun(t, "Conv", attrs, xf, wf)
		gotC := mustRun(t, "ConvInteger", attrs, x, w, scalarQ(da, za), scalarQ(db, zb))
		if !gotC.Shape.Equal(wantC.Shape) {
			t.Fatalf("case %d: ConvInteger %v, want %v", it, gotC.Shape, wantC.Shape)
		}
		for i, w := range kernel.Float32s(wantC.Data()) {
			if g := kernel.Int32s(gotC.Data())[i]; float32(g) != w {
				t.Fatalf("case %d: ConvInteger element %d is %d, want %g", it, i, g, w)
			}
		}
	}
	wantErr(t, "MatMulInteger", nil, []*kernel.Tensor{kernel.New(kernel.Float32, 2, 2), kernel.New(kernel.Uint8, 2, 2)}, "dtype")
	wantErr(t, "MatMulInteger", nil, []*kernel.Tensor{kernel.New(kernel.Uint8, 2, 3), kernel.New(kernel.Uint8, 2, 2)}, "inner")
	wantErr(t, "ConvInteger", nil, []*kernel.Tensor{kernel.New(kernel.Uint8, 1, 2, 4, 4), kernel.New(kernel.Uint8, 3, 3, 1, 1)}, "weights")
}
