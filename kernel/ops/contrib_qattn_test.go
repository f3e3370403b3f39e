package ops

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "QAttention")
}

// TestContribQAttention checks QAttention against com.microsoft Attention
// on the dequantized operands. With power-of-two scales every product
// and sum of the projection is exact in both, so the two agree bit for bit
// whatever the attention does after: masks, past, unidirectional.
func TestContribQAttention(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, c := range []struct {
		name           string
		b, s, hin, n   int64
		d, p           int64
		wt             kernel.DType
		perColumn      bool
		mask           *kernel.Tensor
		unidirectional bool
	}{
		{name: "uint8 weight, per tensor", b: 2, s: 3, hin: 8, n: 2, d: 8, wt: kernel.Uint8},
		{name: "int8 weight, per column, end positions", b: 2, s: 3, hin: 5, n: 2, d: 4, wt: kernel.Int8, perColumn: true, mask: i32(shp(2), 2, 3)},
		{name: "past, unidirectional, key mask", b: 1, s: 3, hin: 6, n: 2, d: 4, p: 2, wt: kernel.Int8, perColumn: true,
			mask: i32(shp(1, 5), 1, 0, 1, 1, 1), unidirectional: true},
	} {
		cols := 3 * c.d
		lo, hi := int64(0), int64(255)
		if c.wt == kernel.Int8 {
			lo, hi = -128, 127
		}
		rnd := func(n, lo, hi int64) []int64 {
			v := make([]int64, n)
			for i := range v {
				v[i] = lo + r.Int64N(hi-lo+1)
			}
			return v
		}
		xv, wv := rnd(c.b*c.s*c.hin, 0, 255), rnd(c.hin*cols, lo, hi)
		xz := int64(117)
		nz := int64(1)
		if c.perColumn {
			nz = cols
		}
		wz, wsExp := rnd(nz, lo, hi), rnd(nz, 3, 6)
		ws := make([]float64, nz)
		for i, e := range wsExp {
			ws[i] = 1 / float64(int64(1)<<e)
		}
		const xs = 0.5
		biasV := make([]float64, cols)
		for i := range biasV {
			biasV[i] = float64(r.IntN(64)-32) / 16
		}
		bias := f32(shp(cols), biasV...)
		scaleShape := shp()
		if c.perColumn {
			scaleShape = shp(cols)
		}
		// The dequantized operands: (x − xz)·xs and (w − wz_c)·ws_c.
		xf, wf := make([]float64, len(xv)), make([]float64, len(wv))
		for i, v := range xv {
			xf[i] = float64(v-xz) * xs
		}
		for i, v := range wv {
			col := int64(i) % cols % nz
			wf[i] = float64(v-wz[col]) * ws[col]
		}
		attrs := kernel.Attrs{"num_heads": c.n}
		if c.unidirectional {
			attrs["unidirectional"] = int64(1)
		}
		maskIn := absent()
		if c.mask != nil {
			maskIn = c.mask
		}
		qin := []*kernel.Tensor{qTensor(kernel.Uint8, shp(c.b, c.s, c.hin), xv), qTensor(c.wt, shp(c.hin, cols), wv), bias,
			f32s(xs), tensor(kernel.Float32, scaleShape, ws...), maskIn, qs(kernel.Uint8, xz), qTensor(c.wt, scaleShape, wz)}
		fin := []*kernel.Tensor{f32(shp(c.b, c.s, c.hin), xf...), f32(shp(c.hin, cols), wf...), bias, maskIn}
		if c.p > 0 {
			past := randTensor(r, kernel.Float32, shp(2, c.b, c.n, c.p, c.d/c.n))
			qin, fin = append(qin, past), append(fin, past)
		}
		got, err := runOp("QAttention", attrs, qin...)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want, err := runOp("MSAttention", attrs, fin...)
		if err != nil {
			t.Fatalf("%s: Attention on the dequantized operands: %v", c.name, err)
		}
		for o := range want {
			if got[o].DType != kernel.Float32 || !got[o].Shape.Equal(want[o].Shape) || !bytes.Equal(got[o].Data(), want[o].Data()) {
				t.Fatalf("%s: output %d = %v %v, want %v %v", c.name, o, got[o], values(got[o]), want[o], values(want[o]))
			}
		}
	}
}

// TestContribQAttentionRefusals covers what QAttention refuses.
func TestContribQAttentionRefusals(t *testing.T) {
	u8, i8 := kernel.Uint8, kernel.Int8
	x, w, bias := qTensor(u8, shp(1, 2, 4), make([]int64, 8)), qTensor(i8, shp(4, 12), make([]int64, 48)), f32(shp(12))
	base := func(more ...*kernel.Tensor) []*kernel.Tensor {
		return append([]*kernel.Tensor{x, w, bias, f32s(0.1), f32s(0.1)}, more...)
	}
	attrs := kernel.Attrs{"num_heads": int64(2)}
	const op = "QAttention"
	wantErr(t, op, attrs, []*kernel.Tensor{f32(shp(1, 2, 4)), w, bias, f32s(0.1), f32s(0.1)}, "input input", "dtype")
	wantErr(t, op, attrs, []*kernel.Tensor{x, f32(shp(4, 12)), bias, f32s(0.1), f32s(0.1)}, "input weight", "dtype")
	wantErr(t, op, attrs, []*kernel.Tensor{x, w, f32(shp(9)), f32s(0.1), f32s(0.1)}, "bias")
	wantErr(t, op, attrs, []*kernel.Tensor{x, qTensor(i8, shp(3, 12), make([]int64, 36)), bias, f32s(0.1), f32s(0.1)}, "weights")
	wantErr(t, op, attrs, []*kernel.Tensor{x, w, bias, f32(shp(2)), f32s(0.1)}, "input_scale")
	wantErr(t, op, attrs, []*kernel.Tensor{x, w, bias, f32s(0.1), f32(shp(5))}, "weight_scale", "per column")
	wantErr(t, op, attrs, base(absent(), qs(i8, 0)), "input_zero_point", "dtype")
	wantErr(t, op, attrs, base(absent(), qs(u8, 0), qs(u8, 0)), "weight_zero_point", "dtype")
	wantErr(t, op, attrs, base(absent(), qs(u8, 0), qTensor(i8, shp(3), make([]int64, 3))), "weight_zero_point", "per column")
	wantErr(t, op, attrs, base(i32(shp(3))), "mask_index")
	wantErr(t, op, attrs, base(absent(), absent(), absent(), f32(shp(2, 1, 2, 1, 3))), "past")
	for _, a := range []kernel.Attrs{{}, {"num_heads": int64(2), "qkv_hidden_sizes": []int64{4, 4, 4}}, {"num_heads": int64(2), "do_rotary": int64(1)}} {
		if _, err := Builtins().New(op, a); err == nil {
			t.Errorf("%s %v: no error", op, a)
		}
	}
}
