package ops

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func TestRegistryHoldsEveryOp(t *testing.T) {
	want := []string{
		// core
		"Add", "BatchMatMul", "Cast", "Concat", "Div", "GELU", "Gather", "LayerNorm", "LogSoftmax", "MatMul", "Mul",
		"NonZero", "ReLU", "ReduceSum", "Reshape", "Shape", "Slice", "Softmax", "Sub", "Transpose", "Unique",
		// element-wise
		"Abs", "Ceil", "Erf", "Exp", "Floor", "HardSigmoid", "HardSwish", "Log", "Neg", "Reciprocal", "Sigmoid",
		"Softplus", "Sqrt", "Tanh", "Sign", "LeakyRelu", "Elu", "Celu", "Selu", "ThresholdedRelu", "Shrink", "Softsign", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Round",
		"And", "Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual", "Max", "Mean", "Min", "Not", "Or", "Pow",
		"Sum", "Where", "Xor",
		"Dropout", "IsNaN", "IsInf", "PRelu", "Mod", "BitShift", "Tile", "Range", "ArgMax", "ArgMin", "CumSum", "GatherElements", "DepthToSpace", "SpaceToDepth", "InstanceNormalization", "LayerNormalization", "Split", "Einsum", "Hardmax", "QuantizeLinear", "DequantizeLinear", "GatherND", "EyeLike", "LRN", "MeanVarianceNormalization", "ReverseSequence", "Compress", "Trilu", "ScatterND", "ScatterElements", "Scatter", "OneHot", "CastLike", "TfIdfVectorizer",
		"Clip", "ConstantOfShape",
		// spatial
		"AveragePool", "BatchNormalization", "Conv", "ConvTranspose", "GlobalAveragePool", "GlobalMaxPool", "MaxPool", "Resize", "Upsample", "Gemm",
		// sequence
		"LSTM", "GRU", "RNN", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean", "ReduceMin",
		"ReduceProd", "ReduceSumSquare", "TopK",
		"Expand", "Flatten", "Identity", "Pad", "Size", "Squeeze", "Unsqueeze",
		// vision
		"NonMaxSuppression", "GridSample", "RoiAlign", "MaxUnpool",
		// signal
		"Det", "HannWindow", "HammingWindow", "BlackmanWindow", "MelWeightMatrix", "DFT", "STFT",
		// quantized
		"DynamicQuantizeLinear", "MatMulInteger", "QLinearMatMul", "ConvInteger", "QLinearConv",
		// losses
		"NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss",
		// new in ONNX opsets 18 to 21
		"BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot", "GroupNormalization", "Mish",
		// new in ONNX opsets 23 and 24
		"RMSNormalization", "Swish", "RotaryEmbedding",
		"Attention",
		"CenterCropPad", "AffineGrid", "TensorScatter", "DeformConv",
		"LpNormalization", "LpPool", "GlobalLpPool", "MaxRoiPool",
		// new in ONNX opset 26
		"CumProd", "BitCast",
		// new in ONNX opset 27
		"CausalConvWithState", "LinearAttention", "SwiGLU",
		// Col2Im and the random generators
		"Col2Im", "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Bernoulli", "Multinomial",
		// onnxruntime's contrib ops
		"BiasGelu", "FastGelu", "QuickGelu", "SkipLayerNormalization", "SkipSimplifiedLayerNormalization",
		"SimplifiedLayerNormalization", "FusedMatMul", "MSRotaryEmbedding", "MatMulNBits",
		"GroupQueryAttention", "MSAttention", "QAttention", "MultiHeadAttention", "DecoderMaskedMultiHeadAttention",
		"QLinearAdd", "QLinearMul", "QLinearGlobalAveragePool", "QLinearAveragePool", "QLinearConcat", "QLinearSigmoid", "QLinearLeakyRelu", "QLinearSoftmax", "QGemm", "MatMulIntegerToFloat", "DynamicQuantizeMatMul", "DynamicQuantizeLSTM", "QLinearWhere", "QEmbedLayerNormalization",
		"EmbedLayerNormalization", "FusedConv", "FusedGemm", "MSQuantizeLinear", "MSDequantizeLinear", "MSTrilu", "ExpandDims", "NhwcMaxPool", "Inverse", "GatherBlockQuantized",
		// ai.onnx.ml
		"TreeEnsembleRegressor", "TreeEnsemble", "TreeEnsembleClassifier", "LinearClassifier", "LinearRegressor", "Scaler", "Normalizer",
		"Binarizer", "Imputer", "ArrayFeatureExtractor", "OneHotEncoder", "FeatureVectorizer", "LabelEncoder",
		"SVMRegressor", "SVMClassifier",
		// experimental ops of opsets 1 to 9
		"ImageScaler", "Affine", "ScaledTanh", "ParametricSoftplus", "Crop", "DynamicSlice",
	}
	slices.Sort(want)
	if got := Builtins().Ops(); !slices.Equal(got, want) {
		t.Fatalf("Ops() = %v\nwant %v", got, want)
	}
	if r1, r2 := Builtins(), Builtins(); r1 != r2 {
		t.Fatal("Builtins() returns different registries")
	}
	r := NewRegistry()
	if !slices.Equal(r.Ops(), want) {
		t.Fatalf("NewRegistry holds %v", r.Ops())
	}
	required := requiredAttrs // the attributes each op cannot be made without
	// (Upsample's default opset takes scales as an input.)
	for _, op := range want {
		k, err := Builtins().New(op, required[op])
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		if k.Op() != op {
			t.Fatalf("%s: Op() = %q", op, k.Op())
		}
		d := k.Deps()
		_, isCD := k.(kernel.ComputeDependent)
		wantCompute := op == "Unique" || op == "NonZero" || op == "NonMaxSuppression"
		if d.Compute != wantCompute || isCD != wantCompute {
			t.Fatalf("%s: Deps().Compute %v, ComputeDependent %v", op, d.Compute, isCD)
		}
		if d.ShapeOnly != (op == "Shape" || op == "Size") {
			t.Fatalf("%s: Deps().ShapeOnly %v", op, d.ShapeOnly)
		}
		wantValue := map[string][]int{"Reshape": {1}, "ReduceSum": {1}, "Slice": {1, 2, 3, 4}, "Squeeze": {1}, "Unsqueeze": {1},
			"ConstantOfShape": {0}, "Expand": {1}, "Pad": {1}, "Resize": {2, 3}, "Upsample": {1}, "TopK": {1},
			"Dropout": {1, 2}, "Tile": {1}, "Range": {0, 1, 2}, "CumSum": {1}, "CumProd": {1}, "Split": {1}, "Trilu": {1}, "OneHot": {1}, "Compress": {1}, "NonMaxSuppression": {2, 3, 4},
			"HannWindow": {0}, "HammingWindow": {0}, "BlackmanWindow": {0}, "MelWeightMatrix": {0, 1}, "DFT": {1}, "STFT": {1, 3}, "MaxUnpool": {2}, "Col2Im": {1, 2}, "GroupQueryAttention": {6}, "MultiHeadAttention": {8}, "DecoderMaskedMultiHeadAttention": {7, 8}, "DynamicSlice": {1, 2, 3}, "MSTrilu": {1}, "ExpandDims": {1}}[op]
		if op == "CenterCropPad" || op == "AffineGrid" {
			wantValue = []int{1}
		}
		if !slices.Equal(d.Value, wantValue) {
			t.Fatalf("%s: Deps().Value %v, want %v", op, d.Value, wantValue)
		}
		if _, err := Builtins().New(op, kernel.Attrs{"bogus": 1}); err == nil || !strings.Contains(err.Error(), "bogus") {
			t.Fatalf("%s: unknown attribute: %v", op, err)
		}
	}
}

func TestAdapterRejectsBadOperands(t *testing.T) {
	k, _ := Builtins().New("Add", nil)
	x := f32(shp(2), 1, 2)
	for _, c := range []struct {
		in, out []*kernel.Tensor
		frag    string
	}{
		{[]*kernel.Tensor{x}, []*kernel.Tensor{{}}, "want 2 inputs"},
		{[]*kernel.Tensor{x, x}, nil, "0 outputs"},
		{[]*kernel.Tensor{x, nil}, []*kernel.Tensor{{}}, "input 1 is nil"},
		{[]*kernel.Tensor{x, x}, []*kernel.Tensor{nil}, "output 0 is nil"},
		{[]*kernel.Tensor{x, {Shape: kernel.Shape{kernel.Dynamic}, DType: kernel.Float32}}, []*kernel.Tensor{{}}, "unresolved shape"},
		{[]*kernel.Tensor{x, {Shape: kernel.Shape{2}}}, []*kernel.Tensor{{}}, "invalid dtype"},
	} {
		err := k.InferShape(c.in, c.out)
		if err == nil || !strings.Contains(err.Error(), c.frag) || !strings.HasPrefix(err.Error(), "ops: Add: ") {
			t.Fatalf("InferShape: %v, want an error with %q", err, c.frag)
		}
	}
	if err := k.Resize([]*kernel.Tensor{x, x}, []*kernel.Tensor{{}}, new(kernel.Tiling)); err == nil || !strings.Contains(err.Error(), "not inferred") {
		t.Fatalf("Resize before InferShape: %v", err)
	}
	if c := k.Cost([]*kernel.Tensor{x}, nil); c.FLOPs != 0 || c.Bytes != 0 {
		t.Fatalf("Cost with bad arity: %+v", c)
	}
}

func TestComputeChecksBuffers(t *testing.T) {
	k, _ := Builtins().New("Add", nil)
	a, err := prepare(k, 0, f32(shp(4), 1, 2, 3, 4), f32(shp(4), 1, 2, 3, 4))
	if err != nil {
		t.Fatal(err)
	}
	out := a.Out[0]
	full := out.Buf
	out.Buf.Data = full.Data[:4:4]
	if err := launch(k, a); err == nil || !strings.Contains(err.Error(), "want 16") {
		t.Fatalf("short output buffer: %v", err)
	}
	out.Buf = kernel.Tensor{}.Buf
	if err := launch(k, a); err == nil || !strings.Contains(err.Error(), "no contents") {
		t.Fatalf("unmaterialized output: %v", err)
	}
	out.Buf = full
	a.In[1] = &kernel.Tensor{Shape: kernel.Shape{4}, DType: kernel.Float32, Host: make([]byte, 8)}
	if err := launch(k, a); err == nil || !strings.Contains(err.Error(), "input 1") {
		t.Fatalf("short input: %v", err)
	}
	a.In[1] = i64(shp(4))
	if err := launch(k, a); err == nil {
		t.Fatal("input dtype changed after Resize: no error")
	}
}

// robustCases are valid launches of every op, used to check that broken
// tiling data is an error or harmless, never a panic.
func robustCases() []struct {
	op    string
	attrs kernel.Attrs
	in    []*kernel.Tensor
} {
	x := f32(shp(2, 3, 4))
	return []struct {
		op    string
		attrs kernel.Attrs
		in    []*kernel.Tensor
	}{
		{"Add", nil, []*kernel.Tensor{x, f32(shp(3, 1))}},
		{"Div", nil, []*kernel.Tensor{tensor(kernel.Int32, shp(2), 1, 2), tensor(kernel.Int32, shp(2, 1), 1, 2)}},
		{"ReLU", nil, []*kernel.Tensor{x}},
		{"GELU", nil, []*kernel.Tensor{x}},
		{"Cast", kernel.Attrs{"to": "int64"}, []*kernel.Tensor{x}},
		{"MatMul", kernel.Attrs{"transB": true}, []*kernel.Tensor{f32(shp(3, 4)), f32(shp(5, 4))}},
		{"BatchMatMul", nil, []*kernel.Tensor{f32(shp(2, 1, 3, 4)), f32(shp(3, 4, 2))}},
		{"Softmax", kernel.Attrs{"axis": 1}, []*kernel.Tensor{x}},
		{"LayerNorm", nil, []*kernel.Tensor{x, f32(shp(4)), f32(shp(4))}},
		{"ReduceSum", kernel.Attrs{"axes": []int64{0, 2}}, []*kernel.Tensor{x}},
		{"Transpose", nil, []*kernel.Tensor{x}},
		{"Concat", kernel.Attrs{"axis": 1}, []*kernel.Tensor{x, x}},
		{"Slice", kernel.Attrs{"starts": []int64{-1, 1}, "ends": []int64{0, 4}, "steps": []int64{-1, 2}, "axes": []int64{1, 2}}, []*kernel.Tensor{x}},
		{"Gather", kernel.Attrs{"axis": 1}, []*kernel.Tensor{x, i64(shp(2), 2, -1)}},
		{"Shape", nil, []*kernel.Tensor{x}},
		{"Reshape", nil, []*kernel.Tensor{x, kernel.FromInt64([]int64{4, -1}, 2)}},
		{"Unique", nil, []*kernel.Tensor{x}},
		{"NonZero", nil, []*kernel.Tensor{x}},
		{"CausalConvWithState", kernel.Attrs{"activation": "silu"}, []*kernel.Tensor{x, f32(shp(3, 1, 2)), f32(shp(3)), f32(shp(2, 3, 1))}},
		{"LinearAttention", kernel.Attrs{"q_num_heads": int64(2), "kv_num_heads": int64(1)},
			[]*kernel.Tensor{f32(shp(2, 3, 4)), f32(shp(2, 3, 2)), f32(shp(2, 3, 3)), f32(shp(2, 1, 2, 3)), f32(shp(2, 3, 1)), f32(shp(2, 3, 1))}},
	}
}

func TestBrokenTilingNeverPanics(t *testing.T) {
	for _, c := range robustCases() {
		k, err := Builtins().New(c.op, c.attrs)
		if err != nil {
			t.Fatal(err)
		}
		a, err := prepare(k, 0, c.in...)
		if err != nil {
			t.Fatalf("%s: %v", c.op, err)
		}
		good := a.Tiling.Data
		run := func(what string, data []byte) error {
			t.Helper()
			a.Tiling.Data = data
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("%s with %s tiling: panic %v", c.op, what, p)
				}
			}()
			return k.Compute(a)
		}
		if err := run("good", good); err != nil {
			t.Fatalf("%s: %v", c.op, err)
		}
		for cut := 0; cut < len(good); cut += 4 {
			if err := run(fmt.Sprintf("%d-byte", cut), good[:cut]); err == nil {
				t.Fatalf("%s: tiling cut to %d of %d bytes: no error", c.op, cut, len(good))
			}
		}
		for w := 0; w < len(good)/8; w++ {
			for _, v := range []int64{-1, 0, 1, 2, 5, 1 << 40, math.MinInt64} {
				bad := slices.Clone(good)
				binary.LittleEndian.PutUint64(bad[8*w:], uint64(v))
				_ = run(fmt.Sprintf("word %d = %d", w, v), bad)
			}
		}
	}
}

func TestComputeIsDeterministic(t *testing.T) {
	for _, c := range robustCases() {
		var first []byte
		for range 3 {
			out, err := runOp(c.op, c.attrs, c.in...)
			if err != nil {
				t.Fatalf("%s: %v", c.op, err)
			}
			got := slices.Clone(out[0].Data())
			if first == nil {
				first = got
			} else if !slices.Equal(first, got) {
				t.Fatalf("%s: results differ between runs", c.op)
			}
		}
	}
}

// TestResizeOverwritesTiling checks that Resize rewrites the whole tiling it
// is given, in place: stale words of a previous shape never survive.
func TestResizeOverwritesTiling(t *testing.T) {
	k, _ := Builtins().New("Add", nil)
	in, out := []*kernel.Tensor{f32(shp(3, 1)), f32(shp(4))}, []*kernel.Tensor{{}}
	if err := k.InferShape(in, out); err != nil {
		t.Fatal(err)
	}
	var fresh kernel.Tiling
	if err := k.Resize(in, out, &fresh); err != nil {
		t.Fatal(err)
	}
	reused := kernel.Tiling{Data: make([]byte, 4096), Workspace: 99}
	for i := range reused.Data {
		reused.Data[i] = 0xa5
	}
	backing := &reused.Data[:1][0]
	if err := k.Resize(in, out, &reused); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(reused.Data, fresh.Data) || reused.Workspace != fresh.Workspace {
		t.Fatalf("Resize into a used tiling gave %x (workspace %d), want %x (%d)", reused.Data, reused.Workspace, fresh.Data, fresh.Workspace)
	}
	if &reused.Data[:1][0] != backing {
		t.Fatal("Resize did not reuse the tiling's memory")
	}
}

func TestInferShapeReusesOutputShape(t *testing.T) {
	k, _ := Builtins().New("Add", nil)
	in, out := []*kernel.Tensor{kernel.Virtual(kernel.Float32, 8, 1), kernel.Virtual(kernel.Float32, 16)}, []*kernel.Tensor{{}}
	if err := k.InferShape(in, out); err != nil {
		t.Fatal(err)
	}
	first := &out[0].Shape[0]
	in[0].Shape[0] = 9
	n := testing.AllocsPerRun(20, func() {
		if err := k.InferShape(in, out); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 || &out[0].Shape[0] != first || !out[0].Shape.Equal(kernel.Shape{9, 16}) {
		t.Fatalf("InferShape: %v allocations, shape %v", n, out[0].Shape)
	}
}

type nopKernel struct{ kernel.Kernel }

// TestNilRegistry: a nil Registry is empty: New fails with
// kernel.ErrUnknownOp, Has is false, Ops is empty, and Register fails;
// none panics.
func TestNilRegistry(t *testing.T) {
	var r *Registry
	if _, err := r.New("Add", nil); !errors.Is(err, kernel.ErrUnknownOp) {
		t.Errorf("New: %v, want ErrUnknownOp", err)
	}
	if r.Has("Add") || len(r.Ops()) != 0 {
		t.Error("a nil Registry has ops")
	}
	if err := r.Register("X", func(kernel.Attrs) (kernel.Kernel, error) { return nopKernel{}, nil }); err == nil {
		t.Error("Register on a nil Registry gave no error")
	}
}

func TestRegistry(t *testing.T) {
	var r Registry
	bad := errors.New("bad attrs")
	if err := r.Register("Nop", func(a kernel.Attrs) (kernel.Kernel, error) {
		if _, ok := a["fail"]; ok {
			return nil, bad
		}
		if _, ok := a["panic"]; ok {
			panic("factory bug")
		}
		if _, ok := a["nil"]; ok {
			return nil, nil
		}
		return nopKernel{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if !r.Has("Nop") || r.Has("Other") || len(r.Ops()) != 1 {
		t.Fatal("registry contents")
	}
	if _, err := r.New("Other", nil); !errors.Is(err, kernel.ErrUnknownOp) {
		t.Fatalf("unknown op: %v", err)
	}
	if _, err := r.New("Nop", kernel.Attrs{"fail": 1}); !errors.Is(err, bad) || !strings.Contains(err.Error(), "Nop") {
		t.Fatalf("factory error %v", err)
	}
	if _, err := r.New("Nop", kernel.Attrs{"panic": 1}); err == nil || !strings.Contains(err.Error(), "factory bug") {
		t.Fatalf("panicking factory: %v", err)
	}
	if k, err := r.New("Nop", kernel.Attrs{"nil": 1}); err == nil || k != nil {
		t.Fatalf("factory returning (nil, nil): %v, %v", k, err)
	}
	if err := r.Register("Nop", func(kernel.Attrs) (kernel.Kernel, error) { return nopKernel{}, nil }); !errors.Is(err, ErrDuplicateOp) {
		t.Fatalf("registering an op twice: %v", err)
	}
	if err := r.Register("Nil", nil); err == nil {
		t.Fatal("registering a nil factory accepted")
	}
	for _, name := range []string{"", "  ", " Nop2", "Nop2\n"} {
		if err := r.Register(name, func(kernel.Attrs) (kernel.Kernel, error) { return nopKernel{}, nil }); err == nil {
			t.Errorf("registering op %q accepted", name)
		}
	}
	if err := Builtins().Register("Mine", func(kernel.Attrs) (kernel.Kernel, error) { return nopKernel{}, nil }); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("registering into Builtins: %v", err)
	}
}

func TestBuiltinNamesAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, g := range builtinGroups {
		for _, b := range g {
			if seen[b.op] {
				t.Errorf("op %q listed twice", b.op)
			}
			seen[b.op] = true
		}
	}
}
