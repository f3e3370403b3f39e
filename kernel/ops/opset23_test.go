package ops

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestCast24RoundMode: from opset 24 Cast and CastLike take round_mode up,
// down or nearest, without effect on pipert's dtypes; another value, a
// non-string, and round_mode before opset 24 are errors.
func TestCast24RoundMode(t *testing.T) {
	x := f32(shp(6), 1.5, -2.5, 3.7, 0, 127.9, -128.9)
	like := tensor(kernel.Int8, shp(1))
	want := []float64{1, -2, 3, 0, 127, -128}
	for _, opset := range []int64{24, 25} {
		for _, mode := range []string{"up", "down", "nearest"} {
			got := mustRun(t, "Cast", formAttrs(opset, "to", "int8", "round_mode", mode, "saturate", int64(0)), x)
			checkValues(t, "Cast round_mode "+mode, got, shp(6), want)
			got = mustRun(t, "CastLike", formAttrs(opset, "round_mode", mode), x, like)
			if got.DType != kernel.Int8 {
				t.Fatalf("CastLike round_mode %s: dtype %v", mode, got.DType)
			}
			checkValues(t, "CastLike round_mode "+mode, got, shp(6), want)
		}
	}
	for _, c := range []struct {
		attrs kernel.Attrs
		want  string
	}{
		{formAttrs(24, "round_mode", "zero"), `"round_mode" is "zero", want up, down or nearest`},
		{formAttrs(25, "round_mode", "UP"), `"round_mode" is "UP"`},
		{formAttrs(24, "round_mode", int64(1)), `attribute "round_mode": want a string`},
		{formAttrs(23, "round_mode", "up"), `unknown attribute "round_mode"`},
		{formAttrs(24, "saturate", int64(2), "round_mode", "up"), `"saturate" is 2`},
	} {
		wantErr(t, "CastLike", c.attrs, []*kernel.Tensor{x, like}, c.want)
		c.attrs["to"] = "int8"
		wantErr(t, "Cast", c.attrs, []*kernel.Tensor{x}, c.want)
	}
}

// TestQuantize23Precision: QuantizeLinear's precision (opset 23) may be
// 0, y_scale's own dtype or, for a float16 scale, float32; each divides
// as before: float16 and float32 operands in float32. Others are errors,
// and precision is unknown before opset 23.
func TestQuantize23Precision(t *testing.T) {
	// 10.050000190734863 / 0.1f is 100.5 in float32 (to even: 100) and
	// above it in float64 (101).
	x := f32(shp(4), 10.050000190734863, 0.25, -0.35, 30)
	s := f32(shp(), 0.1)
	want := []float64{100, 2, 0, 255}
	for _, p := range []any{int64(0), int64(1), kernel.Float32} {
		checkValues(t, "QuantizeLinear float32", mustRun(t, "QuantizeLinear", formAttrs(23, "precision", p), x, s), shp(4), want)
	}
	// float16: 10.546875 / 0.0999755859375 is 105.49 in float32 (105),
	// 105.5 in float16 (106); onnxruntime's is 105.
	h := tensor(kernel.Float16, shp(3), 10.546875, 10.1484375, -1)
	hs := tensor(kernel.Float16, shp(), 0.1)
	for _, p := range []any{nil, int64(0), int64(1), int64(10), kernel.Float16} {
		attrs := formAttrs(23)
		if p != nil {
			attrs["precision"] = p
		}
		checkValues(t, "QuantizeLinear float16", mustRun(t, "QuantizeLinear", attrs, h, hs), shp(3), []float64{105, 102, 0})
	}
	d := tensor(kernel.Float64, shp(1), 10.05)
	checkValues(t, "QuantizeLinear float64", mustRun(t, "QuantizeLinear", formAttrs(25, "precision", int64(11)), d, tensor(kernel.Float64, shp(), 0.1)), shp(1), []float64{100})

	for _, c := range []struct {
		attrs kernel.Attrs
		in    []*kernel.Tensor
		want  []string
	}{
		{formAttrs(23, "precision", int64(11)), []*kernel.Tensor{x, s}, []string{"precision float64 (11) with a float32 y_scale: want 0 or float32 (1)"}},
		{formAttrs(24, "precision", int64(10)), []*kernel.Tensor{x, s}, []string{"precision float16 (10)", "want 0 or float32 (1)"}},
		{formAttrs(25, "precision", int64(11)), []*kernel.Tensor{h, hs}, []string{"precision float64 (11) with a float16 y_scale: want 0 or float16 (10) or float32 (1)"}},
		{formAttrs(23, "precision", int64(27)), []*kernel.Tensor{x, s}, []string{"precision 27 (not one of pipert's dtypes)"}},
		{formAttrs(23, "precision", int64(16)), []*kernel.Tensor{x, s}, []string{"precision bfloat16 (16) with a float32 y_scale: want 0 or float32 (1)"}},
		{formAttrs(23, "precision", int64(-1)), []*kernel.Tensor{x, s}, []string{"precision -1"}},
		{formAttrs(23, "precision", int64(7)), []*kernel.Tensor{x, s}, []string{"precision int64 (7)"}},
		{formAttrs(23, "precision", kernel.Bool), []*kernel.Tensor{x, s}, []string{"precision bool (9)"}},
		{formAttrs(23, "precision", "float"), []*kernel.Tensor{x, s}, []string{`attribute "precision": want an integer`}},
		{formAttrs(22, "precision", int64(1)), []*kernel.Tensor{x, s}, []string{`unknown attribute "precision"`}},
		{formAttrs(23, "precision", int64(1)), []*kernel.Tensor{h, s}, []string{"y_scale", "must match"}},
	} {
		wantErr(t, "QuantizeLinear", c.attrs, c.in, c.want...)
	}
	// DequantizeLinear has no precision.
	wantErr(t, "DequantizeLinear", formAttrs(23, "precision", int64(1)), []*kernel.Tensor{tensor(kernel.Int8, shp(2)), s}, `unknown attribute "precision"`)
}

// TestDequantize23OutputDType: DequantizeLinear's output_dtype (opset 23)
// may be 0 or the scale's dtype; others are errors (onnxruntime computes
// no other), and output_dtype is unknown before opset 23.
func TestDequantize23OutputDType(t *testing.T) {
	x := tensor(kernel.Int8, shp(2, 3), -128, -1, 0, 1, 5, 127)
	zp := tensor(kernel.Int8, shp(3), 1, 0, -1)
	s := f32(shp(3), 0.5, 0.25, 2)
	want := []float64{-64.5, -0.25, 2, 0, 1.25, 256}
	for _, dt := range []any{int64(0), int64(1), kernel.Float32} {
		got := mustRun(t, "DequantizeLinear", formAttrs(23, "output_dtype", dt, "axis", int64(1)), x, s, zp)
		if got.DType != kernel.Float32 {
			t.Fatalf("output_dtype %v: dtype %v", dt, got.DType)
		}
		checkValues(t, "DequantizeLinear", got, shp(2, 3), want)
	}
	hs := tensor(kernel.Float16, shp(3), 0.5, 0.25, 2)
	got := mustRun(t, "DequantizeLinear", formAttrs(25, "output_dtype", int64(10), "axis", int64(-1)), x, hs, zp)
	if got.DType != kernel.Float16 {
		t.Fatalf("float16 scale: dtype %v", got.DType)
	}
	checkValues(t, "DequantizeLinear float16", got, shp(2, 3), want)

	in := []*kernel.Tensor{x, s, zp}
	for _, c := range []struct {
		attrs kernel.Attrs
		in    []*kernel.Tensor
		want  []string
	}{
		{formAttrs(23, "output_dtype", int64(10)), in, []string{"output_dtype float16 (10) with a float32 x_scale: want 0 or float32 (1)"}},
		{formAttrs(24, "output_dtype", int64(11)), in, []string{"output_dtype float64 (11)"}},
		{formAttrs(25, "output_dtype", int64(1)), []*kernel.Tensor{x, hs, zp}, []string{"output_dtype float32 (1) with a float16 x_scale: want 0 or float16 (10)"}},
		{formAttrs(23, "output_dtype", int64(27)), in, []string{"output_dtype 27 (not one of pipert's dtypes)"}},
		{formAttrs(23, "output_dtype", int64(16)), in, []string{"output_dtype bfloat16 (16) with a float32 x_scale"}},
		{formAttrs(23, "output_dtype", int64(3)), in, []string{"output_dtype int8 (3)"}},
		{formAttrs(23, "output_dtype", "float"), in, []string{`attribute "output_dtype": want an integer`}},
		{formAttrs(22, "output_dtype", int64(1)), in, []string{`unknown attribute "output_dtype"`}},
	} {
		wantErr(t, "DequantizeLinear", c.attrs, c.in, c.want...)
	}
}

// TestRMSNormalization: values by hand, the axis and the broadcasts of
// scale, and the misuses.
func TestRMSNormalization(t *testing.T) {
	x := f32(shp(2, 2), 3, 4, 0, 0)
	// Row [3, 4]: √(12.5 + ε); row of zeros: zeros.
	r := math.Sqrt(12.5 + float64(float32(1e-5)))
	checkClose(t, "axis -1", mustRun(t, "RMSNormalization", nil, x, f32(shp(2), 2, -1)), shp(2, 2), []float64{6 / r, -4 / r, 0, 0}, 1e-7)
	// axis 0: over all four, scale [1, 2] broadcast to [2, 2].
	r = math.Sqrt(25.0/4 + 0.5)
	checkClose(t, "axis 0", mustRun(t, "RMSNormalization", kernel.Attrs{"axis": int64(0), "epsilon": 0.5}, x, f32(shp(1, 2), 1, 2)), shp(2, 2), []float64{3 / r, 8 / r, 0, 0}, 1e-7)
	// A scale per sample [2, 1] with axis -1 (unidirectional to X).
	checkClose(t, "scale per row", mustRun(t, "RMSNormalization", kernel.Attrs{"epsilon": 0.0, "stash_type": int64(1)}, f32(shp(2, 2), 3, 4, 1, 1), f32(shp(2, 1), 1, 10)),
		shp(2, 2), []float64{3 / math.Sqrt(12.5), 4 / math.Sqrt(12.5), 10, 10}, 1e-6)
	checkClose(t, "float64", mustRun(t, "RMSNormalization", kernel.Attrs{"epsilon": 0.0}, tensor(kernel.Float64, shp(1, 2), 1, -1), tensor(kernel.Float64, shp(), 2)),
		shp(1, 2), []float64{2, -2}, 1e-15)

	f := f32(shp(2, 3), 1, 2, 3, 4, 5, 6)
	s3 := f32(shp(3), 1, 1, 1)
	for _, c := range []struct {
		attrs kernel.Attrs
		in    []*kernel.Tensor
		want  []string
	}{
		{kernel.Attrs{"stash_type": int64(0)}, []*kernel.Tensor{f, s3}, []string{"stash_type 0: want a float type"}},
		{kernel.Attrs{"stash_type": int64(7)}, []*kernel.Tensor{f, s3}, []string{"stash_type 7"}},
		{kernel.Attrs{"axis": int64(2)}, []*kernel.Tensor{f, s3}, []string{"axis 2 is out of range"}},
		{kernel.Attrs{"axis": int64(-3)}, []*kernel.Tensor{f, s3}, []string{"axis -3 is out of range"}},
		{nil, []*kernel.Tensor{f32(shp(), 1), f32(shp(), 1)}, []string{"axis -1 is out of range"}},
		{nil, []*kernel.Tensor{f, f32(shp(2), 1, 1)}, []string{"scale [2] does not broadcast to X [2,3]"}},
		{nil, []*kernel.Tensor{f, f32(shp(1, 2, 3))}, []string{"does not broadcast"}},
		{nil, []*kernel.Tensor{f, tensor(kernel.Float16, shp(3))}, []string{"scale", "must match"}},
		{nil, []*kernel.Tensor{tensor(kernel.Int32, shp(3)), tensor(kernel.Int32, shp(3))}, []string{"input X has dtype int32"}},
		{kernel.Attrs{"bias": 1.0}, []*kernel.Tensor{f, s3}, []string{`unknown attribute "bias"`}},
		{kernel.Attrs{"epsilon": "small"}, []*kernel.Tensor{f, s3}, []string{`attribute "epsilon"`}},
	} {
		wantErr(t, "RMSNormalization", c.attrs, c.in, c.want...)
	}
	// Every float stash_type gives the same outputs, as onnxruntime's
	// kernel (which reads none of them).
	for _, x := range []*kernel.Tensor{f, tensor(kernel.Float64, shp(2, 3), 0.1, 0.2, 0.3000001, 1e-3, 5, 7)} {
		scale := tensor(x.DType, shp(3), 1, 1.5, 2)
		ref := mustRun(t, "RMSNormalization", nil, x, scale)
		for _, st := range []int64{1, 10, 11, 16} {
			got := mustRun(t, "RMSNormalization", kernel.Attrs{"stash_type": st}, x, scale)
			if !slices.Equal(got.Data(), ref.Data()) {
				t.Errorf("%v X, stash_type %d: %v, want %v", x.DType, st, got, ref)
			}
		}
	}
}

// TestSwish: values by hand and the misuses.
func TestSwish(t *testing.T) {
	x := f32(shp(4), 0, 1, -2, 40)
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	checkClose(t, "alpha 1", mustRun(t, "Swish", nil, x), shp(4), []float64{0, sig(1), -2 * sig(-2), 40}, 1e-7)
	checkClose(t, "alpha 2", mustRun(t, "Swish", kernel.Attrs{"alpha": 2.0}, x), shp(4), []float64{0, sig(2), -2 * sig(-4), 40}, 1e-7)
	checkClose(t, "alpha 0", mustRun(t, "Swish", kernel.Attrs{"alpha": 0.0}, x), shp(4), []float64{0, 0.5, -1, 20}, 0)
	wantErr(t, "Swish", nil, []*kernel.Tensor{tensor(kernel.Int32, shp(1), 1)}, "dtype int32")
	wantErr(t, "Swish", kernel.Attrs{"beta": 1.0}, []*kernel.Tensor{x}, `unknown attribute "beta"`)
	wantErr(t, "Swish", kernel.Attrs{"alpha": "one"}, []*kernel.Tensor{x}, `attribute "alpha"`)
}

// TestRotaryEmbedding: a rotation by hand in each layout and pairing, with
// and without position_ids, and the misuses.
func TestRotaryEmbedding(t *testing.T) {
	// One head of 4, one token: cos c, sin s.
	c, s := 0.6, 0.8
	x := []float64{1, 2, 3, 4}
	cs := f32(shp(1, 1, 2), c, 0)
	sn := f32(shp(1, 1, 2), s, 1)
	// Halves: pairs (1, 3) by (c, s) and (2, 4) by (0, 1).
	halves := []float64{c*1 - s*3, 0*2 - 1*4, s*1 + c*3, 1*2 + 0*4}
	checkClose(t, "4-D", mustRun(t, "RotaryEmbedding", nil, f32(shp(1, 1, 1, 4), x...), cs, sn), shp(1, 1, 1, 4), halves, 1e-6)
	checkClose(t, "3-D", mustRun(t, "RotaryEmbedding", kernel.Attrs{"num_heads": int64(1)}, f32(shp(1, 1, 4), x...), cs, sn), shp(1, 1, 4), halves, 1e-6)
	// Interleaved: pairs (1, 2) by (c, s) and (3, 4) by (0, 1).
	inter := []float64{c*1 - s*2, s*1 + c*2, 0*3 - 1*4, 1*3 + 0*4}
	checkClose(t, "interleaved", mustRun(t, "RotaryEmbedding", kernel.Attrs{"interleaved": int64(1)}, f32(shp(1, 1, 1, 4), x...), cs, sn), shp(1, 1, 1, 4), inter, 1e-6)
	// Partial: the first two rotate as a pair, the last two are copied.
	part := []float64{c*1 - s*2, s*1 + c*2, 3, 4}
	checkClose(t, "partial", mustRun(t, "RotaryEmbedding", kernel.Attrs{"rotary_embedding_dim": int64(2)}, f32(shp(1, 1, 1, 4), x...), f32(shp(1, 1, 1), c), f32(shp(1, 1, 1), s)),
		shp(1, 1, 1, 4), part, 1e-6)
	// position_ids: token 0 at position 2 (cos c, sin s), token 1 at 0
	// (the identity); 3-D with two heads of 2.
	pcos, psin := f32(shp(3, 1), 1, 0, c), f32(shp(3, 1), 0, 1, s)
	got := mustRun(t, "RotaryEmbedding", kernel.Attrs{"num_heads": int64(2)}, f32(shp(1, 2, 4), 1, 2, 3, 4, 5, 6, 7, 8), pcos, psin, i64(shp(1, 2), 2, 0))
	checkClose(t, "position_ids", got, shp(1, 2, 4), []float64{c*1 - s*2, s*1 + c*2, c*3 - s*4, s*3 + c*4, 5, 6, 7, 8}, 1e-6)
	// 4-D: [batch 1, heads 2, seq 2, 2]; the heads share the token's
	// cache entries.
	got = mustRun(t, "RotaryEmbedding", nil, f32(shp(1, 2, 2, 2), 1, 2, 3, 4, 5, 6, 7, 8), f32(shp(1, 2, 1), c, 1), f32(shp(1, 2, 1), s, 0))
	checkClose(t, "4-D heads", got, shp(1, 2, 2, 2), []float64{c*1 - s*2, s*1 + c*2, 3, 4, c*5 - s*6, s*5 + c*6, 7, 8}, 1e-6)

	x4 := f32(shp(1, 2, 3, 4))
	c3 := f32(shp(1, 3, 2))
	x3 := f32(shp(1, 3, 8))
	c2 := f32(shp(5, 2))
	pos := i64(shp(1, 3), 0, 1, 4)
	for _, tc := range []struct {
		attrs kernel.Attrs
		in    []*kernel.Tensor
		want  []string
	}{
		{nil, []*kernel.Tensor{x3, c3, c3}, []string{"3-D: attribute num_heads is required"}},
		{kernel.Attrs{"num_heads": int64(3)}, []*kernel.Tensor{x3, c3, c3}, []string{"hidden size 8 is not a multiple of num_heads 3"}},
		{kernel.Attrs{"num_heads": int64(-2)}, []*kernel.Tensor{x3, c3, c3}, []string{"num_heads -2 is negative"}},
		{kernel.Attrs{"rotary_embedding_dim": int64(-2)}, []*kernel.Tensor{x4, c3, c3}, []string{"rotary_embedding_dim -2 is negative"}},
		{kernel.Attrs{"rotary_embedding_dim": int64(6)}, []*kernel.Tensor{x4, c3, c3}, []string{"rotary_embedding_dim 6 exceeds the head size 4"}},
		{kernel.Attrs{"rotary_embedding_dim": int64(3)}, []*kernel.Tensor{x4, f32(shp(1, 3, 1)), f32(shp(1, 3, 1))}, []string{"3 rotated elements per head", "want an even number"}},
		{nil, []*kernel.Tensor{f32(shp(1, 2, 3, 5)), c3, c3}, []string{"5 rotated elements per head"}},
		{kernel.Attrs{"interleaved": int64(2)}, []*kernel.Tensor{x4, c3, c3}, []string{`attribute "interleaved" is 2, want 0 or 1`}},
		{kernel.Attrs{"scale": 1.0}, []*kernel.Tensor{x4, c3, c3}, []string{`unknown attribute "scale"`}},
		{nil, []*kernel.Tensor{f32(shp(3, 8)), c3, c3}, []string{"X [3,8]: want [batch, heads, seq, head_size] or [batch, seq, hidden]"}},
		{nil, []*kernel.Tensor{tensor(kernel.Float64, shp(1, 2, 3, 4)), c3, c3}, []string{"input X has dtype float64"}},
		{nil, []*kernel.Tensor{x4, tensor(kernel.Float16, shp(1, 3, 2)), c3}, []string{"cos_cache", "must match"}},
		{nil, []*kernel.Tensor{x4, c3, f32(shp(1, 3, 3))}, []string{"input sin_cache [1,3,3]: want [1,3,2]"}},
		{nil, []*kernel.Tensor{f32(shp(2, 2, 3, 4)), c3, c3}, []string{"input cos_cache [1,3,2]: want [2,3,2]"}},
		{nil, []*kernel.Tensor{x4, c2, c2}, []string{"input cos_cache [5,2]: want [1,3,2]"}},
		{nil, []*kernel.Tensor{x4, c3, c3, pos}, []string{"input cos_cache [1,3,2]: with position_ids want [positions, 2]"}},
		{nil, []*kernel.Tensor{x4, c2, f32(shp(4, 2)), pos}, []string{"input sin_cache [4,2]: want [5,2]"}},
		{nil, []*kernel.Tensor{x4, c2, c2, i64(shp(3), 0, 1, 2)}, []string{"input position_ids [3]: want [batch, seq] = [1, 3]"}},
		{nil, []*kernel.Tensor{x4, c2, c2, tensor(kernel.Int32, shp(1, 3))}, []string{"input position_ids has dtype int32"}},
		{nil, []*kernel.Tensor{x4, c2, c2, i64(shp(1, 3), 0, 5, 1)}, []string{"position_ids[0][1] is 5, out of range [0, 5)"}},
		{nil, []*kernel.Tensor{x4, c2, c2, i64(shp(1, 3), 0, 1, -1)}, []string{"position_ids[0][2] is -1"}},
	} {
		wantErr(t, "RotaryEmbedding", tc.attrs, tc.in, tc.want...)
	}
}

// TestOpset23ComputeAllocatesNothing: the new ops compute again and again
// without allocating.
func TestOpset23ComputeAllocatesNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, c := range []struct {
		op    string
		attrs kernel.Attrs
		in    []*kernel.Tensor
	}{
		{"RMSNormalization", kernel.Attrs{"axis": int64(1)}, []*kernel.Tensor{randTensor(r, kernel.Float16, shp(2, 3, 4)), randTensor(r, kernel.Float16, shp(3, 1))}},
		{"Swish", kernel.Attrs{"alpha": 1.5}, []*kernel.Tensor{randTensor(r, kernel.Float32, shp(40))}},
		{"RotaryEmbedding", kernel.Attrs{"num_heads": int64(2), "interleaved": int64(1), "rotary_embedding_dim": int64(4)},
			[]*kernel.Tensor{randTensor(r, kernel.Float32, shp(2, 3, 12)), randTensor(r, kernel.Float32, shp(4, 2)), randTensor(r, kernel.Float32, shp(4, 2)), i64(shp(2, 3), 0, 1, 2, 3, 2, 1)}},
	} {
		if n := computeAllocs(t, c.op, c.attrs, c.in); n != 0 {
			t.Errorf("%s: %v allocations per computation", c.op, n)
		}
	}
}
