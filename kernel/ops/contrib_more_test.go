package ops

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "EmbedLayerNormalization", "FusedConv", "FusedGemm", "MSQuantizeLinear", "MSDequantizeLinear",
		"MSTrilu", "ExpandDims", "NhwcMaxPool", "Inverse")
}

func i32(shape []int64, v ...float64) *kernel.Tensor { return tensor(kernel.Int32, shape, v...) }

// TestContribEmbedLayerNorm checks EmbedLayerNormalization on values
// computed by hand, with and without segments, mask and position ids, and
// every error.
func TestContribEmbedLayerNorm(t *testing.T) {
	word := f32(shp(3, 2), 1, 3, 0, 0, 2, 2)
	pos := f32(shp(2, 2), 0, 1, 1, 0)
	seg := f32(shp(2, 2), 0, 0, 1, 1)
	gamma, beta := f32(shp(2), 1, 2), f32(shp(2), 0, 0.5)
	ids, segIDs := i32(shp(1, 2), 0, 2), i32(shp(1, 2), 1, 0)
	eps0 := kernel.Attrs{"epsilon": 0.0}
	run := func(attrs kernel.Attrs, in ...*kernel.Tensor) []*kernel.Tensor {
		t.Helper()
		out, err := runOp("EmbedLayerNormalization", attrs, in...)
		if err != nil {
			t.Fatalf("EmbedLayerNormalization: %v", err)
		}
		return out
	}
	// Tokens: [1,3]+[0,1]+[1,1] = [2,5], then [2,2]+[1,0]+[0,0] = [3,2].
	out := run(eps0, ids, segIDs, word, pos, seg, gamma, beta, i32(shp(1, 2), 1, 2))
	checkValues(t, "output", out[0], shp(1, 2, 2), []float64{-1, 2.5, 1, -1.5})
	checkValues(t, "mask_index", out[1], shp(1), []float64{1})
	checkValues(t, "embedding_sum", out[2], shp(1, 2, 2), []float64{2, 5, 3, 2})
	// No mask: mask_index 0. Position ids [1, 0]: [3,4] and [2,3].
	out = run(eps0, ids, segIDs, word, pos, seg, gamma, beta, absent(), i32(shp(1, 2), 1, 0))
	checkValues(t, "output", out[0], shp(1, 2, 2), []float64{-1, 2.5, -1, 2.5})
	checkValues(t, "mask_index", out[1], shp(1), []float64{0})
	checkValues(t, "embedding_sum", out[2], shp(1, 2, 2), []float64{3, 4, 2, 3})
	// Position ids [1, S] broadcast over the batch; no segments.
	ids2 := i32(shp(2, 2), 0, 2, 2, 0)
	out = run(eps0, ids2, absent(), word, pos, absent(), gamma, beta, i32(shp(2, 2), 1, 1, 1, 0), i32(shp(1, 2), 0, 0))
	checkValues(t, "embedding_sum", out[2], shp(2, 2, 2), []float64{1, 4, 2, 3, 2, 3, 1, 4})
	checkValues(t, "output", out[0], shp(2, 2, 2), []float64{-1, 2.5, -1, 2.5, -1, 2.5, -1, 2.5})
	checkValues(t, "mask_index", out[1], shp(2), []float64{2, 1})
	// epsilon (the default 1e-12) in float32: σ = √(var + eps).
	out = run(nil, ids, segIDs, word, pos, seg, gamma, beta)
	e := float32(math.Sqrt(float64(float32(2.25) + float32(1e-12))))
	if got := kernel.Float32s(out[0].Data())[0]; got != -float32(1.5)/e {
		t.Errorf("output[0] = %v, want %v", got, -float32(1.5)/e)
	}

	base := []*kernel.Tensor{ids, segIDs, word, pos, seg, gamma, beta}
	with := func(i int, x *kernel.Tensor) []*kernel.Tensor {
		in := append([]*kernel.Tensor(nil), base...)
		for len(in) <= i {
			in = append(in, absent())
		}
		in[i] = x
		return in
	}
	const op = "EmbedLayerNormalization"
	wantErr(t, op, nil, with(0, i32(shp(1, 2), 0, 3)), "outside word_embedding")
	wantErr(t, op, nil, with(0, i32(shp(1, 2), -1, 0)), "outside word_embedding")
	wantErr(t, op, nil, with(1, i32(shp(1, 2), 0, 2)), "outside segment_embedding")
	wantErr(t, op, nil, with(4, absent()), "outside segment_embedding")
	wantErr(t, op, nil, []*kernel.Tensor{i32(shp(1, 3)), absent(), word, pos, absent(), gamma, beta}, "outside position_embedding")
	wantErr(t, op, nil, with(8, i32(shp(1, 2), 0, 2)), "outside position_embedding")
	wantErr(t, op, nil, with(8, i32(shp(1, 2), -1, 0)), "outside position_embedding")
	wantErr(t, op, nil, with(0, i64(shp(1, 2))), "input_ids", "dtype")
	wantErr(t, op, nil, with(0, i32(shp(2))), "input_ids", "2 dimensions")
	wantErr(t, op, nil, with(1, i32(shp(2, 1))), "segment_ids", "shape")
	wantErr(t, op, nil, with(1, f32(shp(1, 2))), "segment_ids", "dtype")
	wantErr(t, op, nil, with(2, tensor(kernel.Float16, shp(3, 2))), "word_embedding", "dtype")
	wantErr(t, op, nil, with(2, f32(shp(6))), "word_embedding", "2 dimensions")
	wantErr(t, op, nil, with(3, f32(shp(2, 3))), "position_embedding")
	wantErr(t, op, nil, with(3, tensor(kernel.Float64, shp(2, 2))), "position_embedding", "dtype")
	wantErr(t, op, nil, with(4, f32(shp(2, 3))), "segment_embedding")
	wantErr(t, op, nil, with(5, f32(shp(3))), "gamma")
	wantErr(t, op, nil, with(6, f32(shp(1, 2))), "beta")
	wantErr(t, op, nil, with(6, i32(shp(2))), "beta", "dtype")
	wantErr(t, op, nil, with(7, i32(shp(2, 2))), "mask", "shape")
	wantErr(t, op, nil, with(7, i64(shp(1, 2))), "mask", "dtype")
	wantErr(t, op, nil, with(8, i32(shp(2, 2))), "position_ids")
	wantErr(t, op, nil, with(8, i32(shp(2))), "position_ids")
	wantErr(t, op, nil, with(8, i64(shp(1, 2))), "position_ids", "dtype")
	for _, a := range []kernel.Attrs{{"epsilon": -1.0}, {"epsilon": math.NaN()}, {"epsilon": "x"}, {"mask_index_type": "x"}, {"other": int64(1)}} {
		if _, err := Builtins().New(op, a); err == nil {
			t.Errorf("%s %v: no error", op, a)
		}
	}
}

// TestContribEmbedLayerNormFloat16 checks float16 tables: the float32
// computation on their widened values, output and embedding_sum rounded
// once to float16 (how onnxruntime's CPU provider runs them, casting
// around its float32 kernel); a table of another dtype is refused.
func TestContribEmbedLayerNormFloat16(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const h = 24
	half := map[string]*kernel.Tensor{
		"word": randTensor(r, kernel.Float16, shp(7, h)), "pos": randTensor(r, kernel.Float16, shp(5, h)),
		"seg": randTensor(r, kernel.Float16, shp(2, h)), "gamma": randTensor(r, kernel.Float16, shp(h)), "beta": randTensor(r, kernel.Float16, shp(h)),
	}
	wide := make(map[string]*kernel.Tensor)
	for name, x := range half {
		v := make([]float64, x.NumElements())
		for i, b := range kernel.Uint16s(x.Data()) {
			v[i] = float64(kernel.F16ToF32(b))
		}
		wide[name] = f32(x.Shape, v...)
	}
	ids, segIDs, mask := i32(shp(2, 3), 0, 6, 3, 2, 2, 5), i32(shp(2, 3), 1, 0, 1, 0, 0, 1), i32(shp(2, 3), 1, 1, 0, 1, 1, 1)
	for _, segs := range []bool{true, false} {
		args := func(m map[string]*kernel.Tensor) []*kernel.Tensor {
			if !segs {
				return []*kernel.Tensor{ids, absent(), m["word"], m["pos"], absent(), m["gamma"], m["beta"], mask}
			}
			return []*kernel.Tensor{ids, segIDs, m["word"], m["pos"], m["seg"], m["gamma"], m["beta"], mask}
		}
		got, err := runOp("EmbedLayerNormalization", nil, args(half)...)
		if err != nil {
			t.Fatal(err)
		}
		want, err := runOp("EmbedLayerNormalization", nil, args(wide)...)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []int{0, 2} {
			if got[o].DType != kernel.Float16 || !got[o].Shape.Equal(want[o].Shape) {
				t.Fatalf("segments %v: output %d is %v%v, want float16%v", segs, o, got[o].DType, got[o].Shape, want[o].Shape)
			}
			g, w := kernel.Uint16s(got[o].Data()), kernel.Float32s(want[o].Data())
			for i := range w {
				if g[i] != kernel.F32ToF16(w[i]) {
					t.Fatalf("segments %v: output %d [%d] = %v, want %v rounded to float16", segs, o, i, kernel.F16ToF32(g[i]), w[i])
				}
			}
		}
		if !bytes.Equal(got[1].Data(), want[1].Data()) {
			t.Errorf("segments %v: mask_index %v, want %v", segs, got[1], want[1])
		}
	}
	in := []*kernel.Tensor{ids, segIDs, half["word"], half["pos"], half["seg"], wide["gamma"], half["beta"]}
	wantErr(t, "EmbedLayerNormalization", nil, in, "gamma", "dtype float32", "word_embedding's float16")
}

// TestContribFusedConv checks FusedConv's Z, bias and activations on
// values computed by hand, and its errors.
func TestContribFusedConv(t *testing.T) {
	x := f32(shp(1, 1, 3), 1, 2, 3)
	w := f32(shp(2, 1, 2), 1, 1, 1, -1)
	b := f32(shp(2), 1, -10)
	z := f32(shp(1, 2, 2), 0.5, 0.5, 0, 0)
	// conv: [3, 5] and [−1, −1]; (conv + z) + b: [4.5, 6.5, −11, −11].
	pre := []float32{4.5, 6.5, -11, -11}
	f := func(g func(float32) float32) []float64 {
		r := make([]float64, len(pre))
		for i, v := range pre {
			r[i] = float64(g(v))
		}
		return r
	}
	for _, c := range []struct {
		attrs kernel.Attrs
		want  []float64
	}{
		{nil, f(func(v float32) float32 { return v })},
		{kernel.Attrs{"activation": "Relu"}, []float64{4.5, 6.5, 0, 0}},
		{kernel.Attrs{"activation": "LeakyRelu", "activation_params": []float64{0.1}}, f(func(v float32) float32 {
			if v < 0 {
				return float32(float32(0.1) * v)
			}
			return v
		})},
		{kernel.Attrs{"activation": "Clip", "activation_params": []float64{0, 5}}, []float64{4.5, 5, 0, 0}},
		{kernel.Attrs{"activation": "HardSigmoid", "activation_params": []float64{0.1, 0.5}}, []float64{float64(float32(float32(float32(0.1)*4.5) + 0.5)), 1, 0, 0}},
		{kernel.Attrs{"activation": "Sigmoid"}, f(mlasSigmoid)},
		{kernel.Attrs{"activation": "Tanh"}, f(func(v float32) float32 { return float32(math.Tanh(float64(v))) })},
	} {
		out := mustRun(t, "FusedConv", c.attrs, x, w, b, z)
		checkValues(t, "FusedConv", out, shp(1, 2, 2), c.want)
	}
	// Without Z or bias; with an omitted bias and Z.
	checkValues(t, "FusedConv", mustRun(t, "FusedConv", kernel.Attrs{"activation": "Relu"}, x, w), shp(1, 2, 2), []float64{3, 5, 0, 0})
	checkValues(t, "FusedConv", mustRun(t, "FusedConv", nil, x, w, absent(), z), shp(1, 2, 2), []float64{3.5, 5.5, -1, -1})
	// Conv's attributes pass through: pads and strides.
	checkValues(t, "FusedConv", mustRun(t, "FusedConv", kernel.Attrs{"pads": []int64{1, 1}, "strides": []int64{3}}, x, w), shp(1, 2, 2), []float64{1, 3, -1, 3})

	const op = "FusedConv"
	wantErr(t, op, nil, []*kernel.Tensor{x, w, b, f32(shp(1, 2, 3))}, "Z")
	wantErr(t, op, nil, []*kernel.Tensor{x, w, b, tensor(kernel.Float64, shp(1, 2, 2))}, "Z", "dtype")
	wantErr(t, op, nil, []*kernel.Tensor{tensor(kernel.Float16, shp(1, 1, 3)), tensor(kernel.Float16, shp(2, 1, 2))}, "X", "dtype")
	wantErr(t, op, nil, []*kernel.Tensor{x, tensor(kernel.Float64, shp(2, 1, 2))}, "W", "dtype")
	wantErr(t, op, nil, []*kernel.Tensor{x, w, f32(shp(3))}, "bias")
	wantErr(t, op, nil, []*kernel.Tensor{x, f32(shp(2, 2, 2))}, "weights")
	for _, a := range []kernel.Attrs{
		{"activation": "Gelu"},
		{"activation": "LeakyRelu"},
		{"activation": "LeakyRelu", "activation_params": []float64{0.1, 0.2}},
		{"activation": "Clip", "activation_params": []float64{0}},
		{"activation_params": []float64{0}},
		{"activation": int64(1)},
		{"group": int64(0)},
		{"other": int64(1)},
	} {
		if _, err := Builtins().New(op, a); err == nil {
			t.Errorf("%s %v: no error", op, a)
		}
	}
}

// TestContribFusedGemm checks FusedGemm's activations on values computed
// by hand, and its errors.
func TestContribFusedGemm(t *testing.T) {
	a := f32(shp(2, 2), 1, 2, 3, 4)
	b := f32(shp(2, 2), 1, 0, 0, -1)
	c := f32(shp(2), 0.5, 0.5)
	pre := []float64{1.5, -1.5, 3.5, -3.5}
	f := func(g func(float64) float64) []float64 {
		r := make([]float64, len(pre))
		for i, v := range pre {
			r[i] = float64(float32(g(v)))
		}
		return r
	}
	for _, k := range []struct {
		attrs kernel.Attrs
		want  []float64
	}{
		{kernel.Attrs{"activation": "Relu"}, []float64{1.5, 0, 3.5, 0}},
		{kernel.Attrs{"activation": "LeakyRelu", "activation_alpha": 0.5}, []float64{1.5, -0.75, 3.5, -1.75}},
		{kernel.Attrs{"activation": "HardSigmoid", "activation_alpha": 0.25, "activation_beta": 0.5}, []float64{0.875, 0.125, 1, 0}},
		{kernel.Attrs{"activation": "ThresholdedRelu", "activation_alpha": 2.0}, []float64{0, 0, 3.5, 0}},
		// The functors' float32 steps: e^x − 1 rounded, then the rest.
		{kernel.Attrs{"activation": "Elu", "activation_alpha": 1.0}, f(func(v float64) float64 {
			return math.Max(v, 0) + math.Min(float64(float32(math.Exp(v))-1), 0)
		})},
		{kernel.Attrs{"activation": "Selu", "activation_alpha": 2.0, "activation_gamma": 0.5}, f(func(v float64) float64 {
			return 0.5 * (math.Max(v, 0) + math.Min(float64(2*(float32(math.Exp(v))-1)), 0))
		})},
		{kernel.Attrs{"activation": "Softsign"}, f(func(v float64) float64 { return float64(float32(1/(1+float32(math.Abs(v)))) * float32(v)) })},
		{kernel.Attrs{"activation": "Softplus"}, f(func(v float64) float64 { return math.Log1p(math.Exp(v)) })},
		{kernel.Attrs{"activation": "Tanh"}, f(math.Tanh)},
		{kernel.Attrs{"activation": "Sigmoid"}, f(func(v float64) float64 { return float64(mlasSigmoid(float32(v))) })},
	} {
		out := mustRun(t, "FusedGemm", k.attrs, a, b, c)
		checkValues(t, "FusedGemm", out, shp(2, 2), k.want)
	}
	// Gemm's attributes pass through; C is optional.
	relu := kernel.Attrs{"activation": "Relu", "transA": int64(1), "alpha": 2.0}
	checkValues(t, "FusedGemm", mustRun(t, "FusedGemm", relu, a, b), shp(2, 2), []float64{2, 0, 4, 0})

	const op = "FusedGemm"
	wantErr(t, op, kernel.Attrs{"activation": "Relu"}, []*kernel.Tensor{tensor(kernel.Float64, shp(2, 2)), tensor(kernel.Float64, shp(2, 2))}, "A", "dtype")
	wantErr(t, op, kernel.Attrs{"activation": "Relu"}, []*kernel.Tensor{a, f32(shp(3, 2))}, "inner dimensions")
	wantErr(t, op, kernel.Attrs{"activation": "Relu"}, []*kernel.Tensor{a, b, f32(shp(3))}, "C")
	for _, at := range []kernel.Attrs{
		nil,
		{"activation": "Celu", "activation_alpha": 1.0},
		{"activation": "LeakyRelu"},
		{"activation": "HardSigmoid", "activation_alpha": 0.2},
		{"activation": "Selu", "activation_alpha": 0.2},
		{"activation": "LeakyRelu", "activation_alpha": "x"},
		{"activation": "Relu", "other": int64(1)},
	} {
		if _, err := Builtins().New(op, at); err == nil {
			t.Errorf("%s %v: no error", op, at)
		}
	}
}

// TestContribMSQuantize checks com.microsoft's QuantizeLinear and
// DequantizeLinear on values computed by hand (ties to even, saturation,
// per axis, 16-bit and int32), and the forms onnxruntime refuses.
func TestContribMSQuantize(t *testing.T) {
	x := f32(shp(4), -1.25, 0.25, 0.75, 300)
	half := f32(shp(), 0.5)
	q := func(attrs kernel.Attrs, in ...*kernel.Tensor) *kernel.Tensor {
		t.Helper()
		return mustRun(t, "MSQuantizeLinear", attrs, in...)
	}
	out := q(nil, x, half, tensor(kernel.Int8, shp(), 0))
	if out.DType != kernel.Int8 {
		t.Fatalf("dtype %v, want int8", out.DType)
	}
	checkValues(t, "int8", out, shp(4), []float64{-2, 0, 2, 127})
	out = q(nil, x, half)
	if out.DType != kernel.Uint8 {
		t.Fatalf("dtype %v, want uint8", out.DType)
	}
	checkValues(t, "uint8", out, shp(4), []float64{0, 0, 2, 255})
	checkValues(t, "uint16", q(nil, x, half, tensor(kernel.Uint16, shp(), 1000)), shp(4), []float64{998, 1000, 1002, 1600})
	x2 := f32(shp(2, 2), -1.25, 0.25, 0.75, 300)
	checkValues(t, "int16 per axis", q(kernel.Attrs{"axis": int64(0)}, x2, f32(shp(2), 0.5, 2), tensor(kernel.Int16, shp(2), 0, -3)), shp(2, 2), []float64{-2, 0, -3, 147})
	checkValues(t, "float16", q(nil, tensor(kernel.Float16, shp(2), 1, -3), tensor(kernel.Float16, shp(), 0.5), tensor(kernel.Int8, shp(), 1)), shp(2), []float64{3, -5})

	// A NaN quotient gives the type's minimum, whatever the zero point.
	checkValues(t, "NaN", q(nil, f32(shp(4), math.NaN(), math.Inf(1), math.Inf(-1), 0), tensor(kernel.Float32, shp(), 0), tensor(kernel.Int8, shp(), 5)), shp(4), []float64{-128, 127, -128, -128})

	dq := func(attrs kernel.Attrs, in ...*kernel.Tensor) *kernel.Tensor {
		t.Helper()
		return mustRun(t, "MSDequantizeLinear", attrs, in...)
	}
	checkValues(t, "int16", dq(nil, tensor(kernel.Int16, shp(3), -32768, 0, 32767), half, tensor(kernel.Int16, shp(), 1)), shp(3), []float64{-16384.5, -0.5, 16383})
	checkValues(t, "int32", dq(nil, i32(shp(2), 5, -7), f32(shp(), 2)), shp(2), []float64{10, -14})
	// x − zp wraps in int32 and rounds to float32 before the product.
	checkValues(t, "int32 wrap", dq(nil, i32(shp(3), -2147483648, 16777217, 3), f32(shp(), 1), i32(shp(), 5)), shp(3), []float64{2147483648, 16777212, -2})
	checkValues(t, "int32 rounding", dq(nil, i32(shp(1), 16777217), f32(shp(), 3)), shp(1), []float64{float64(float32(16777216) * 3)})
	out = dq(nil, tensor(kernel.Uint16, shp(2), 10, 1000), tensor(kernel.Float16, shp(), 0.25), tensor(kernel.Uint16, shp(), 2))
	if out.DType != kernel.Float16 {
		t.Fatalf("dtype %v, want float16", out.DType)
	}
	checkValues(t, "uint16 float16", out, shp(2), []float64{2, 249.5})
	checkValues(t, "uint8 per axis", dq(kernel.Attrs{"axis": int64(-1)}, tensor(kernel.Uint8, shp(2, 2), 0, 255, 128, 1), f32(shp(2), 1, 0.5), tensor(kernel.Uint8, shp(2), 128, 1)), shp(2, 2), []float64{-128, 127, 0, 0})

	wantErr(t, "MSQuantizeLinear", nil, []*kernel.Tensor{i32(shp(2)), tensor(kernel.Int32, shp())}, "x", "dtype")
	wantErr(t, "MSQuantizeLinear", nil, []*kernel.Tensor{tensor(kernel.Float64, shp(2)), tensor(kernel.Float64, shp())}, "x", "dtype")
	wantErr(t, "MSQuantizeLinear", nil, []*kernel.Tensor{x, tensor(kernel.Float16, shp())}, "y_scale", "dtype")
	wantErr(t, "MSQuantizeLinear", nil, []*kernel.Tensor{x, half, i32(shp())}, "y_zero_point", "dtype")
	wantErr(t, "MSQuantizeLinear", nil, []*kernel.Tensor{x, f32(shp(3))}, "axis")
	wantErr(t, "MSQuantizeLinear", kernel.Attrs{"axis": int64(0)}, []*kernel.Tensor{x2, f32(shp(2)), tensor(kernel.Int8, shp())}, "zero point")
	wantErr(t, "MSQuantizeLinear", kernel.Attrs{"axis": int64(2)}, []*kernel.Tensor{x2, f32(shp(2))}, "axis")
	wantErr(t, "MSDequantizeLinear", nil, []*kernel.Tensor{x, half}, "x", "dtype")
	wantErr(t, "MSDequantizeLinear", nil, []*kernel.Tensor{tensor(kernel.Int8, shp(2)), tensor(kernel.Float64, shp())}, "x_scale", "dtype")
	wantErr(t, "MSDequantizeLinear", nil, []*kernel.Tensor{tensor(kernel.Int8, shp(2)), tensor(kernel.BFloat16, shp())}, "x_scale", "dtype")
	wantErr(t, "MSDequantizeLinear", nil, []*kernel.Tensor{tensor(kernel.Int8, shp(2)), half, tensor(kernel.Uint8, shp())}, "x_zero_point", "dtype")
	wantErr(t, "MSDequantizeLinear", nil, []*kernel.Tensor{tensor(kernel.Int8, shp(2, 3)), f32(shp(2))}, "scale")
	for _, op := range []string{"MSQuantizeLinear", "MSDequantizeLinear"} {
		for _, a := range []kernel.Attrs{{"block_size": int64(2)}, {"saturate": int64(1)}, {"output_dtype": int64(3)}, {"axis": "x"}} {
			if _, err := Builtins().New(op, a); err == nil {
				t.Errorf("%s %v: no error", op, a)
			}
		}
	}
}

// TestContribMSTrilu checks com.microsoft's Trilu and its dtypes.
func TestContribMSTrilu(t *testing.T) {
	x := f32(shp(3, 3), 1, 2, 3, 4, 5, 6, 7, 8, 9)
	checkValues(t, "upper", mustRun(t, "MSTrilu", nil, x), shp(3, 3), []float64{1, 2, 3, 0, 5, 6, 0, 0, 9})
	checkValues(t, "lower k=-1", mustRun(t, "MSTrilu", kernel.Attrs{"upper": int64(0)}, x, i64(shp(), -1)), shp(3, 3), []float64{0, 0, 0, 4, 0, 0, 7, 8, 0})
	checkValues(t, "int64 k=1", mustRun(t, "MSTrilu", nil, i64(shp(2, 3), 1, 2, 3, 4, 5, 6), i64(shp(), 1)), shp(2, 3), []float64{0, 2, 3, 0, 0, 6})
	checkValues(t, "float16", mustRun(t, "MSTrilu", nil, tensor(kernel.Float16, shp(2, 2), 1, 2, 3, 4)), shp(2, 2), []float64{1, 2, 0, 4})
	wantErr(t, "MSTrilu", nil, []*kernel.Tensor{i32(shp(2, 2))}, "input", "dtype")
	wantErr(t, "MSTrilu", nil, []*kernel.Tensor{tensor(kernel.Bool, shp(2, 2))}, "input", "dtype")
	wantErr(t, "MSTrilu", nil, []*kernel.Tensor{x, i32(shp(), 1)}, "k", "dtype")
	wantErr(t, "MSTrilu", nil, []*kernel.Tensor{f32(shp(3))}, "rank")
	if _, err := Builtins().New("MSTrilu", kernel.Attrs{"lower": int64(1)}); err == nil {
		t.Error("MSTrilu takes an unknown attribute")
	}
}

// TestContribExpandDims checks ExpandDims at every axis and its errors.
func TestContribExpandDims(t *testing.T) {
	x := f32(shp(2, 3), 1, 2, 3, 4, 5, 6)
	for _, c := range []struct {
		axis float64
		want []int64
	}{{0, shp(1, 2, 3)}, {1, shp(2, 1, 3)}, {2, shp(2, 3, 1)}, {-1, shp(2, 3, 1)}, {-2, shp(2, 1, 3)}, {-3, shp(1, 2, 3)}} {
		checkValues(t, "ExpandDims", mustRun(t, "ExpandDims", nil, x, i32(shp(), c.axis)), c.want, []float64{1, 2, 3, 4, 5, 6})
	}
	checkValues(t, "bool", mustRun(t, "ExpandDims", nil, tensor(kernel.Bool, shp(), 1), i32(shp(), -1)), shp(1), []float64{1})
	wantErr(t, "ExpandDims", nil, []*kernel.Tensor{x, i32(shp(), 3)}, "out of range")
	wantErr(t, "ExpandDims", nil, []*kernel.Tensor{x, i32(shp(), -4)}, "out of range")
	wantErr(t, "ExpandDims", nil, []*kernel.Tensor{x, i64(shp(), 0)}, "axis", "dtype")
	wantErr(t, "ExpandDims", nil, []*kernel.Tensor{x, i32(shp(1), 0)}, "scalar")
	if _, err := Builtins().New("ExpandDims", kernel.Attrs{"axis": int64(0)}); err == nil {
		t.Error("ExpandDims takes an attribute")
	}
}

// TestContribNhwcMaxPool checks NhwcMaxPool on values computed by hand
// and by onnxruntime (pads reading the type's minimum, ceil_mode,
// dilations, 1-D), and its errors.
func TestContribNhwcMaxPool(t *testing.T) {
	u8 := func(shape []int64, v ...float64) *kernel.Tensor { return tensor(kernel.Uint8, shape, v...) }
	seq := func(n int, f func(int) float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = f(i)
		}
		return v
	}
	k2 := kernel.Attrs{"kernel_shape": []int64{2, 2}}
	checkValues(t, "2x2", mustRun(t, "NhwcMaxPool", k2, u8(shp(1, 3, 3, 1), seq(9, func(i int) float64 { return float64(i) })...)), shp(1, 2, 2, 1), []float64{4, 5, 7, 8})
	checkValues(t, "channels", mustRun(t, "NhwcMaxPool", k2, u8(shp(1, 2, 2, 2), 1, 10, 2, 20, 3, 30, 4, 40)), shp(1, 1, 1, 2), []float64{4, 40})
	neg := tensor(kernel.Int8, shp(1, 3, 3, 1), seq(9, func(i int) float64 { return float64(i - 100) })...)
	checkValues(t, "int8 pads", mustRun(t, "NhwcMaxPool", kernel.Attrs{"kernel_shape": []int64{2, 2}, "pads": []int64{1, 1, 1, 1}}, neg), shp(1, 4, 4, 1),
		[]float64{-100, -99, -98, -98, -97, -96, -95, -95, -94, -93, -92, -92, -94, -93, -92, -92})
	x55 := u8(shp(1, 5, 5, 1), seq(25, func(i int) float64 { return float64(i * 37 % 256) })...)
	checkValues(t, "ceil_mode", mustRun(t, "NhwcMaxPool", kernel.Attrs{"kernel_shape": []int64{2, 2}, "strides": []int64{2, 2}, "ceil_mode": int64(1)}, x55), shp(1, 3, 3, 1),
		[]float64{222, 111, 148, 151, 225, 191, 228, 83, 120})
	checkValues(t, "dilations", mustRun(t, "NhwcMaxPool", kernel.Attrs{"kernel_shape": []int64{2, 2}, "dilations": []int64{2, 2}}, x55), shp(1, 3, 3, 1),
		[]float64{188, 225, 188, 185, 222, 191, 228, 225, 188})
	checkValues(t, "1-D", mustRun(t, "NhwcMaxPool", kernel.Attrs{"kernel_shape": []int64{2}}, u8(shp(1, 5, 2), seq(10, func(i int) float64 { return float64(i * 37 % 256) })...)), shp(1, 4, 2),
		[]float64{74, 111, 148, 185, 222, 185, 222, 77})
	checkValues(t, "4 spatial axes", mustRun(t, "NhwcMaxPool", kernel.Attrs{"kernel_shape": []int64{1, 2, 1, 1}}, u8(shp(1, 1, 2, 1, 1, 2), 1, 9, 5, 3)), shp(1, 1, 1, 1, 1, 2), []float64{5, 9})
	checkValues(t, "empty batch", mustRun(t, "NhwcMaxPool", k2, u8(shp(0, 3, 3, 2))), shp(0, 2, 2, 2), nil)

	wantErr(t, "NhwcMaxPool", k2, []*kernel.Tensor{f32(shp(1, 3, 3, 1))}, "x", "dtype")
	wantErr(t, "NhwcMaxPool", kernel.Attrs{"kernel_shape": []int64{2}}, []*kernel.Tensor{u8(shp(3, 1))}, "spatial")
	wantErr(t, "NhwcMaxPool", k2, []*kernel.Tensor{u8(shp(1, 0, 3, 1))}, "only N")
	wantErr(t, "NhwcMaxPool", k2, []*kernel.Tensor{u8(shp(1, 3, 1))}, "kernel_shape")
	// A kernel one beyond the input leaves no output, as in onnxruntime;
	// two beyond is an error (onnxruntime's size is negative).
	checkValues(t, "no window", mustRun(t, "NhwcMaxPool", kernel.Attrs{"kernel_shape": []int64{4, 4}}, u8(shp(1, 3, 3, 1))), shp(1, 0, 0, 1), nil)
	wantErr(t, "NhwcMaxPool", kernel.Attrs{"kernel_shape": []int64{5, 1}}, []*kernel.Tensor{u8(shp(1, 3, 3, 1))}, "does not fit")
	// SAME_UPPER with a kernel below the stride pads by −1: the window
	// starts one element in (onnxruntime's geometry).
	checkValues(t, "negative pad", mustRun(t, "NhwcMaxPool", kernel.Attrs{"kernel_shape": []int64{1}, "strides": []int64{3}, "auto_pad": "SAME_UPPER"}, u8(shp(1, 3, 1), 5, 6, 7)), shp(1, 1, 1), []float64{6})
	// SAME_LOWER leaves the dilation out of the padding.
	checkValues(t, "same dilated", mustRun(t, "NhwcMaxPool", kernel.Attrs{"kernel_shape": []int64{2}, "dilations": []int64{2}, "auto_pad": "SAME_LOWER"}, u8(shp(1, 3, 1), 1, 3, 2)), shp(1, 2, 1), []float64{3, 2})
	for _, a := range []kernel.Attrs{
		nil,
		{"kernel_shape": []int64{2, 2}, "storage_order": int64(1)},
		{"kernel_shape": []int64{2, 2}, "pads": []int64{2, 0, 0, 0}},
		{"kernel_shape": []int64{2, 2}, "auto_pad": "SAME"},
		{"kernel_shape": []int64{0, 2}},
		{"kernel_shape": []int64{}},
		{"kernel_shape": []int64{2}, "strides": []int64{1, 1}},
		{"kernel_shape": []int64{2}, "pads": []int64{1}},
	} {
		if _, err := Builtins().New("NhwcMaxPool", a); err == nil {
			t.Errorf("NhwcMaxPool %v: no error", a)
		}
	}
}

// TestContribInverse checks Inverse on matrices with known inverses,
// batches, a singular matrix, float64 against A·A⁻¹ = I, and its errors.
func TestContribInverse(t *testing.T) {
	checkClose(t, "2x2", mustRun(t, "Inverse", nil, f32(shp(2, 2), 4, 7, 2, 6)), shp(2, 2), []float64{0.6, -0.7, -0.2, 0.4}, 1e-6)
	checkValues(t, "batch", mustRun(t, "Inverse", nil, f32(shp(2, 2, 2), 1, 0, 0, 1, 0, 1, 1, 0)), shp(2, 2, 2), []float64{1, 0, 0, 1, 0, 1, 1, 0})
	checkValues(t, "diagonal", mustRun(t, "Inverse", nil, f32(shp(3, 3), 2, 0, 0, 0, 4, 0, 0, 0, 0.5)), shp(3, 3), []float64{0.5, 0, 0, 0, 0.25, 0, 0, 0, 2})
	sing := mustRun(t, "Inverse", nil, f32(shp(2, 2), 1, 2, 2, 4))
	finite := true
	for _, v := range kernel.Float32s(sing.Data()) {
		finite = finite && !math.IsInf(float64(v), 0) && !math.IsNaN(float64(v))
	}
	if finite {
		t.Errorf("singular: %v, want infinities or NaNs", kernel.Float32s(sing.Data()))
	}
	a := []float64{2, -1, 0.5, 1, 3, 2, -1, 0.25, 4}
	inv := values(mustRun(t, "Inverse", nil, tensor(kernel.Float64, shp(3, 3), a...)))
	for i := range 3 {
		for j := range 3 {
			var s float64
			for k := range 3 {
				s += a[i*3+k] * inv[k*3+j]
			}
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(s-want) > 1e-14 {
				t.Errorf("float64: (A·A⁻¹)[%d][%d] = %v", i, j, s)
			}
		}
	}
	checkValues(t, "empty", mustRun(t, "Inverse", nil, f32(shp(0, 2, 2))), shp(0, 2, 2), nil)
	wantErr(t, "Inverse", nil, []*kernel.Tensor{f32(shp(2, 3))}, "square")
	wantErr(t, "Inverse", nil, []*kernel.Tensor{f32(shp(2))}, "square")
	wantErr(t, "Inverse", nil, []*kernel.Tensor{tensor(kernel.Float16, shp(2, 2))}, "X", "dtype")
	wantErr(t, "Inverse", nil, []*kernel.Tensor{i32(shp(2, 2))}, "X", "dtype")
	if _, err := Builtins().New("Inverse", kernel.Attrs{"axis": int64(0)}); err == nil {
		t.Error("Inverse takes an attribute")
	}
}

// TestNhwcMaxPoolAgainstEveryTap compares NhwcMaxPool, which visits only
// the taps inside the input, with a reference that visits every tap of
// the window (a tap in the padding reads the type's minimum), on random
// shapes, kernels, strides, dilations, pads, auto_pad and ceil_mode; and
// checks that a window far larger than the input costs no more than the
// input (it took forever when every tap was visited).
func TestNhwcMaxPoolAgainstEveryTap(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	compared := 0
	for c := range 400 {
		nd := 1 + rng.IntN(2)
		shape := []int64{1 + rng.Int64N(2)}
		kern, strides, dils, pads := make([]int64, nd), make([]int64, nd), make([]int64, nd), make([]int64, 2*nd)
		for i := range nd {
			shape = append(shape, 1+rng.Int64N(6))
			kern[i], strides[i], dils[i] = 1+rng.Int64N(4), 1+rng.Int64N(3), 1+rng.Int64N(2)
			pads[i], pads[nd+i] = rng.Int64N(kern[i]), rng.Int64N(kern[i])
		}
		shape = append(shape, 1+rng.Int64N(3))
		attrs := kernel.Attrs{"kernel_shape": kern, "strides": strides, "dilations": dils}
		switch rng.IntN(4) {
		case 0:
			attrs["pads"] = pads
		case 1:
			attrs["auto_pad"] = "SAME_UPPER"
		case 2:
			attrs["auto_pad"] = "SAME_LOWER"
		}
		if rng.IntN(2) == 0 {
			attrs["ceil_mode"] = int64(1)
		}
		x := kernel.New(kernel.Int8, shape...)
		for i := range x.Host {
			x.Host[i] = byte(rng.IntN(256))
		}
		out, err := runOp("NhwcMaxPool", attrs, x)
		if err != nil {
			continue // a window that does not fit: an error either way
		}
		k, err := newNhwcMaxPool(attrs)
		if err != nil {
			t.Fatal(err)
		}
		p := k.(*opKernel).impl.(*nhwcMaxPool)
		if err := p.geometry(x); err != nil {
			t.Fatal(err)
		}
		want := everyTapMaxPool(p, x)
		if got := out[0].Data()[:out[0].Bytes()]; string(got) != string(want) {
			t.Fatalf("case %d: %v on %v: %v, want %v", c, attrs, x.Shape, got, want)
		}
		compared++
	}
	if compared < 200 {
		t.Fatalf("only %d of 400 random windows fit their inputs", compared)
	}
	huge := kernel.Attrs{"kernel_shape": []int64{1 << 40}, "strides": []int64{2}, "auto_pad": "SAME_LOWER"}
	checkValues(t, "huge window", mustRun(t, "NhwcMaxPool", huge, tensor(kernel.Int8, shp(1, 3, 1), 1, -5, 7)), shp(1, 2, 1), []float64{7, 7})
}

// everyTapMaxPool is NhwcMaxPool over every tap of every window, with the
// geometry p holds.
func everyTapMaxPool(p *nhwcMaxPool, x *kernel.Tensor) []byte {
	nd := len(p.w.kernel)
	c := x.Shape[nd+1]
	ip, op, taps := int64(1), int64(1), int64(1)
	for i := range nd {
		ip, op, taps = ip*p.in[i], op*p.out[i], taps*p.w.kernel[i]
	}
	y := make([]byte, x.Shape[0]*op*c)
	pos, tap := make([]int64, nd), make([]int64, nd)
	for n := range x.Shape[0] {
		for o := range op {
			rem := o
			for i := nd - 1; i >= 0; i-- {
				pos[i], rem = rem%p.out[i], rem/p.out[i]
			}
			for ch := range c {
				best := int8(-128)
				for t := range taps {
					rem, at, inside := t, int64(0), true
					for i := nd - 1; i >= 0; i-- {
						tap[i], rem = rem%p.w.kernel[i], rem/p.w.kernel[i]
					}
					for i := range nd {
						q := pos[i]*attrAt(p.w.strides, i, 1) - p.padB[i] + tap[i]*attrAt(p.w.dilations, i, 1)
						if q < 0 || q >= p.in[i] {
							inside = false
							break
						}
						at = at*p.in[i] + q
					}
					if inside {
						best = max(best, int8(x.Host[(n*ip+at)*c+ch]))
					}
				}
				y[(n*op+o)*c+ch] = byte(best)
			}
		}
	}
	return y
}
