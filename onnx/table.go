package onnx

import (
	"fmt"
	"sort"
	"strings"
)

// OpInfo is how one ONNX op maps onto pipert: the pipert op it becomes
// and the opsets of its domain whose form of the op pipert implements in
// full. Outside that range an import fails with ErrUnsupported naming
// node, domain, op and opset.
type OpInfo struct {
	// Domain is the op's domain: "" for the default domain (ai.onnx),
	// MSDomain or MLDomain.
	Domain             string
	ONNX, Pipert       string
	MinOpset, MaxOpset int64
	// Note says how the import treats the op, when it is not a plain
	// mapping.
	Note string
}

// MaxOpset is the newest default-domain opset the importer takes. Each
// op's range in the table ends there unless a later version of the op
// changed what it does in a way pipert does not follow (then the range
// ends before that version); versions that only admitted new element
// types (bfloat16, the 16- to 64-bit integers, and the float 8, float 4
// and 4- and 2-bit types of opsets 19 to 25, with the attributes that
// concern those types only, such as Cast's saturate) keep the range going,
// since a model of those opsets over the types it had means what it meant
// before. An op takes the element types its ONNX type constraints list,
// among pipert's (kernel.DTypes); where a version widened the list,
// pipert takes the widest at every opset of the range: Cast-13 converts to
// float8e4m3fn, QuantizeLinear-10 to int4 (with their defaults, saturate
// 1), where onnxruntime refuses the model. Opset 26 (ONNX
// 1.21) added CumProd and BitCast and changed no existing op: every range
// that reached 25 reaches 26. Opset 27 (ONNX 1.22) added
// CausalConvWithState and LinearAttention and gave Range float16, bfloat16
// and stash_type, which pipert follows from 27 on (Range's float16 is
// refused before 27, where no version took it): every range that reached
// 26 reaches 27. Opset 28 (ONNX 1.23) added SwiGLU and widened Celu from
// float32 to every float type, which pipert's Celu takes at every opset:
// every range that reached 27 reaches 28.
const MaxOpset = 28

// MSDomain is the domain of onnxruntime's contrib ops ("Microsoft contrib
// ops"), which optimized transformer models (Hugging Face Optimum, the
// onnxruntime transformers optimizer, onnxruntime-genai) contain. The
// importer takes the ops of msTable from it, computed as onnxruntime's CPU
// kernels compute them; MaxMSOpset is the newest version of the domain it
// takes (onnxruntime's contrib ops are all of version 1).
const (
	MSDomain   = "com.microsoft"
	MaxMSOpset = 1
)

// MLDomain is the domain of ONNX's classic machine-learning ops, which
// models converted from scikit-learn (skl2onnx), LightGBM and XGBoost
// (onnxmltools) contain. The importer takes the ops of mlTable from it,
// computed as onnxruntime's CPU kernels compute them; the model's version
// of the domain selects each op's form. pipert has no string, map or
// sequence tensors: the ops and attributes that need them (ZipMap,
// DictVectorizer, CategoryMapper, string labels) are refused; a
// classifier's ZipMap is left out by selecting the tensor before it
// (Options.Outputs). MaxMLOpset
// is the newest version of the domain the importer takes.
const (
	MLDomain   = "ai.onnx.ml"
	MaxMLOpset = 5
)

// The notes of the ops the import resolves itself (sequence.go).
const (
	seqNote = "resolved at import: positions, splits and counts constants of the model (the elements' dimensions may be symbolic); no sequence as a graph input or output, or crossing into a subgraph"
	optNote = "resolved at import: an optional known at import"
)

// experimentalNote is the note of the experimental ops ONNX removed at
// opset 10, which onnxruntime still runs for models of opsets 1 to 9
// (Windows ML took them as production ops).
const experimentalNote = "experimental op of opsets 1 to 9, removed from ONNX at 10; computed as onnxruntime, which keeps it, computes it"

// table lists every ONNX op the importer takes. The opset ranges are those
// whose semantics the pipert op follows (checked against the ONNX backend
// node tests where they exist); other opsets are refused, never guessed.
var table = map[string]OpInfo{
	"Add":                          {Pipert: "Add", MinOpset: 7, MaxOpset: MaxOpset},
	"Sub":                          {Pipert: "Sub", MinOpset: 7, MaxOpset: MaxOpset},
	"Mul":                          {Pipert: "Mul", MinOpset: 7, MaxOpset: MaxOpset},
	"Div":                          {Pipert: "Div", MinOpset: 7, MaxOpset: MaxOpset},
	"MatMul":                       {Pipert: "MatMul", MinOpset: 7, MaxOpset: MaxOpset},
	"Gelu":                         {Pipert: "GELU", MinOpset: 20, MaxOpset: MaxOpset, Note: "approximate none (erf, the default) or tanh"},
	"Mish":                         {Pipert: "Mish", MinOpset: 18, MaxOpset: MaxOpset},
	"BitwiseAnd":                   {Pipert: "BitwiseAnd", MinOpset: 18, MaxOpset: MaxOpset},
	"BitwiseOr":                    {Pipert: "BitwiseOr", MinOpset: 18, MaxOpset: MaxOpset},
	"BitwiseXor":                   {Pipert: "BitwiseXor", MinOpset: 18, MaxOpset: MaxOpset},
	"BitwiseNot":                   {Pipert: "BitwiseNot", MinOpset: 18, MaxOpset: MaxOpset},
	"GroupNormalization":           {Pipert: "GroupNormalization", MinOpset: 18, MaxOpset: MaxOpset, Note: "scale and bias per group at opsets 18 to 20, per channel from 21; stash_type 1 or 11 (statistics evaluated in float64; under 1, a float64 X cast to float32 first, as the function body); onnxruntime's one-pass float32 variance differs on groups whose values share a large offset (pipert's is exact)"},
	"RMSNormalization":             {Pipert: "RMSNormalization", MinOpset: 23, MaxOpset: MaxOpset, Note: "stash_type any float type (statistics evaluated in float64 whichever, a float64 X included, as onnxruntime's kernel)"},
	"Swish":                        {Pipert: "Swish", MinOpset: 24, MaxOpset: MaxOpset},
	"RotaryEmbedding":              {Pipert: "RotaryEmbedding", MinOpset: 23, MaxOpset: MaxOpset, Note: "float32, float16 and bfloat16; 3-D X with num_heads or 4-D X; an even rotary_embedding_dim"},
	"Attention":                    {Pipert: "Attention", MinOpset: 23, MaxOpset: MaxOpset, Note: "float32, float16, bfloat16 and float64 (evaluated in float64, each output rounded once; onnxruntime rounds float16 intermediates: about an ulp apart); 3-D or 4-D inputs, grouped-query heads, past and present caches, bool or float masks of rank 2 to 4 (last dimension total_sequence_length, or from 24 shorter: padded with −∞), is_causal (with a past cache, query i sees keys up to past length + i, as the ONNX reference; onnxruntime differs when there are fewer queries than new keys), positive scale, softcap, qk_matmul_output_mode 0 to 3 (2: −∞ where a mask masks, nonpad_kv_seqlen and the window included, as ONNX's text and reference, where onnxruntime writes the lowest float32), softmax_precision any float type (the softmax evaluated in float64 whichever, as onnxruntime reads none), nonpad_kv_seqlen from 24, the sliding window of 25 (left_window_size and right_window_size, from the query's position past length + i, or nonpad_kv_seqlen − q_seq + i); no integer mask"},
	"Relu":                         {Pipert: "ReLU", MinOpset: 6, MaxOpset: MaxOpset},
	"ReduceSum":                    {Pipert: "ReduceSum", MinOpset: 7, MaxOpset: MaxOpset, Note: "axes as attribute before 13, as input from 13; noop_with_empty_axes from 13; integers summed exactly in int64, a 32-bit result wrapping on overflow (onnxruntime sums integers in float64 and saturates)"},
	"NonZero":                      {Pipert: "NonZero", MinOpset: 9, MaxOpset: MaxOpset, Note: "a scalar counts as rank 1: [1, 1] or [1, 0], as onnxruntime gives (ONNX's reference gives [0, nnz])"},
	"Softmax":                      {Pipert: "Softmax", MinOpset: 7, MaxOpset: MaxOpset, Note: "before opset 13 flattened to 2-D at axis; a slice of one infinite element gives NaN, as PyTorch (onnxruntime gives 1)"},
	"LogSoftmax":                   {Pipert: "LogSoftmax", MinOpset: 7, MaxOpset: MaxOpset, Note: "before opset 13 flattened to 2-D at axis; a slice of one infinite element gives NaN, as PyTorch (onnxruntime gives 1)"},
	"Transpose":                    {Pipert: "Transpose", MinOpset: 7, MaxOpset: MaxOpset},
	"Concat":                       {Pipert: "Concat", MinOpset: 7, MaxOpset: MaxOpset},
	"Slice":                        {Pipert: "Slice", MinOpset: 7, MaxOpset: MaxOpset},
	"Gather":                       {Pipert: "Gather", MinOpset: 7, MaxOpset: MaxOpset},
	"Cast":                         {Pipert: "Cast", MinOpset: 7, MaxOpset: MaxOpset, Note: "the `to` enum becomes a pipert dtype, the float 8, float 4 and 4- and 2-bit types at every opset; saturate from 19 (to the float 8 types; float4e2m1 always saturates and takes a NaN to −0, as ONNX's node tests do); round_mode from 24 (to float8e8m0); a float into a 4- or 2-bit integer rounds to nearest even and wraps, as ONNX's 4-bit page says; a float out of another integer type's range saturates to its limits and a NaN becomes 0 (ONNX leaves both undefined; onnxruntime gives the x86 conversion's result)"},
	"Shape":                        {Pipert: "Shape", MinOpset: 7, MaxOpset: MaxOpset},
	"Reshape":                      {Pipert: "Reshape", MinOpset: 7, MaxOpset: MaxOpset},
	"Sigmoid":                      {Pipert: "Sigmoid", MinOpset: 6, MaxOpset: MaxOpset},
	"Tanh":                         {Pipert: "Tanh", MinOpset: 6, MaxOpset: MaxOpset},
	"Exp":                          {Pipert: "Exp", MinOpset: 6, MaxOpset: MaxOpset},
	"Log":                          {Pipert: "Log", MinOpset: 6, MaxOpset: MaxOpset},
	"Sqrt":                         {Pipert: "Sqrt", MinOpset: 6, MaxOpset: MaxOpset},
	"Erf":                          {Pipert: "Erf", MinOpset: 9, MaxOpset: MaxOpset},
	"Reciprocal":                   {Pipert: "Reciprocal", MinOpset: 6, MaxOpset: MaxOpset},
	"Floor":                        {Pipert: "Floor", MinOpset: 6, MaxOpset: MaxOpset},
	"Ceil":                         {Pipert: "Ceil", MinOpset: 6, MaxOpset: MaxOpset},
	"HardSigmoid":                  {Pipert: "HardSigmoid", MinOpset: 6, MaxOpset: MaxOpset},
	"HardSwish":                    {Pipert: "HardSwish", MinOpset: 14, MaxOpset: MaxOpset},
	"Softplus":                     {Pipert: "Softplus", MinOpset: 1, MaxOpset: MaxOpset},
	"Neg":                          {Pipert: "Neg", MinOpset: 6, MaxOpset: MaxOpset},
	"Abs":                          {Pipert: "Abs", MinOpset: 6, MaxOpset: MaxOpset},
	"Flatten":                      {Pipert: "Flatten", MinOpset: 7, MaxOpset: MaxOpset},
	"Squeeze":                      {Pipert: "Squeeze", MinOpset: 7, MaxOpset: MaxOpset, Note: "axes as attribute before 13, as input from 13"},
	"Unsqueeze":                    {Pipert: "Unsqueeze", MinOpset: 7, MaxOpset: MaxOpset, Note: "axes as attribute before 13, as input from 13"},
	"Equal":                        {Pipert: "Equal", MinOpset: 7, MaxOpset: MaxOpset},
	"Less":                         {Pipert: "Less", MinOpset: 7, MaxOpset: MaxOpset},
	"Greater":                      {Pipert: "Greater", MinOpset: 7, MaxOpset: MaxOpset},
	"LessOrEqual":                  {Pipert: "LessOrEqual", MinOpset: 12, MaxOpset: MaxOpset},
	"GreaterOrEqual":               {Pipert: "GreaterOrEqual", MinOpset: 12, MaxOpset: MaxOpset},
	"And":                          {Pipert: "And", MinOpset: 7, MaxOpset: MaxOpset},
	"Or":                           {Pipert: "Or", MinOpset: 7, MaxOpset: MaxOpset},
	"Xor":                          {Pipert: "Xor", MinOpset: 7, MaxOpset: MaxOpset},
	"Not":                          {Pipert: "Not", MinOpset: 1, MaxOpset: MaxOpset},
	"Where":                        {Pipert: "Where", MinOpset: 9, MaxOpset: MaxOpset},
	"Pow":                          {Pipert: "Pow", MinOpset: 7, MaxOpset: MaxOpset},
	"Max":                          {Pipert: "Max", MinOpset: 7, MaxOpset: MaxOpset},
	"Min":                          {Pipert: "Min", MinOpset: 7, MaxOpset: MaxOpset},
	"Sum":                          {Pipert: "Sum", MinOpset: 7, MaxOpset: MaxOpset},
	"Mean":                         {Pipert: "Mean", MinOpset: 7, MaxOpset: MaxOpset},
	"Clip":                         {Pipert: "Clip", MinOpset: 7, MaxOpset: MaxOpset, Note: "min and max as attributes before 11, as inputs from 11; a NaN bound gives NaN, as numpy (onnxruntime ignores it)"},
	"Expand":                       {Pipert: "Expand", MinOpset: 8, MaxOpset: MaxOpset},
	"ConstantOfShape":              {Pipert: "ConstantOfShape", MinOpset: 9, MaxOpset: MaxOpset},
	"Size":                         {Pipert: "Size", MinOpset: 7, MaxOpset: MaxOpset},
	"Pad":                          {Pipert: "Pad", MinOpset: 7, MaxOpset: MaxOpset, Note: "pads and value as attributes before 11, as inputs from 11; axes input from 18; constant, reflect, edge, and wrap from 19"},
	"Conv":                         {Pipert: "Conv", MinOpset: 7, MaxOpset: MaxOpset, Note: "1 to 3 spatial dimensions; float16 and bfloat16 computed in float32"},
	"ConvTranspose":                {Pipert: "ConvTranspose", MinOpset: 7, MaxOpset: MaxOpset, Note: "1 to 3 spatial dimensions; float16 and bfloat16 computed in float32; auto_pad SAME_UPPER and SAME_LOWER give the spec's output, input × stride, also where the kernel spans less than the stride (onnxruntime clamps the negative padding to 0 and gives less); an output_shape beyond the full output pads with the ONNX reference's floor division (onnxruntime clamps the negative padding and shifts the output)"},
	"AveragePool":                  {Pipert: "AveragePool", MinOpset: 7, MaxOpset: MaxOpset, Note: "1 to 3 spatial dimensions; dilations from 19 (not with auto_pad SAME_UPPER or SAME_LOWER); a window that starts in the input and reaches past its padded end (its span between −stride and 0) is one output, none when its span is above −2·stride and at most −stride (an empty output), as in onnxruntime and ONNX's shape inference; auto_pad SAME_UPPER or SAME_LOWER with a stride longer than the window keeps the negative padding this needs (the first window starts inside the input), as onnxruntime (Conv clamps it to 0, as there), its taps past the end not counted"},
	"MaxPool":                      {Pipert: "MaxPool", MinOpset: 7, MaxOpset: MaxOpset, Note: "1 to 3 spatial dimensions; Indices output; a window that starts in the input and reaches past its padded end (its span between −stride and 0) is one output, none when its span is above −2·stride and at most −stride (an empty output), as in onnxruntime and ONNX's shape inference; auto_pad SAME_UPPER or SAME_LOWER with a stride longer than the window keeps the negative padding this needs (the first window starts inside the input), as onnxruntime (Conv clamps it to 0, as there); auto_pad SAME_UPPER and SAME_LOWER with dilations give the spec's output, input ÷ stride rounded up (onnxruntime pads as if undilated); a window holding a NaN gives NaN (onnxruntime's result depends on where the NaN is); a window wholly in the padding gives 0 and index −1, as the ONNX reference's 2-D pool (onnxruntime gives the lowest value and an index outside the channel)"},
	"GlobalAveragePool":            {Pipert: "GlobalAveragePool", MinOpset: 1, MaxOpset: MaxOpset},
	"GlobalMaxPool":                {Pipert: "GlobalMaxPool", MinOpset: 1, MaxOpset: MaxOpset, Note: "a NaN in a channel gives NaN (onnxruntime's result depends on where the NaN is)"},
	"LpPool":                       {Pipert: "LpPool", MinOpset: 2, MaxOpset: MaxOpset, Note: "1 to 3 spatial dimensions; p 1 or more; ceil_mode and dilations from 18 (dilations not with auto_pad SAME_UPPER or SAME_LOWER); a window that starts in the input and reaches past its padded end (its span between −stride and 0) is one output, none when its span is above −2·stride and at most −stride (an empty output), as in onnxruntime and ONNX's shape inference; auto_pad SAME_UPPER or SAME_LOWER with a stride longer than the window keeps the negative padding this needs (the first window starts inside the input), as onnxruntime (Conv clamps it to 0, as there)"},
	"GlobalLpPool":                 {Pipert: "GlobalLpPool", MinOpset: 2, MaxOpset: MaxOpset, Note: "p 1 or more"},
	"MaxRoiPool":                   {Pipert: "MaxRoiPool", MinOpset: 1, MaxOpset: MaxOpset, Note: "as onnxruntime: a bin of -Inf only is the lowest finite value"},
	"BatchNormalization":           {Pipert: "BatchNormalization", MinOpset: 7, MaxOpset: MaxOpset, Note: "a 1-D X [N] is [N, 1], one channel; training mode (training_mode 1, or five outputs before opset 14) computes batch statistics; before opset 14 saved_var is the inverse standard deviation, as onnxruntime gives it; training with spatial=0 is refused"},
	"Resize":                       {Pipert: "Resize", MinOpset: 10, MaxOpset: MaxOpset, Note: "nearest, linear and cubic over any axes; every coordinate_transformation_mode; antialias, axes and keep_aspect_ratio_policy from 18"},
	"Upsample":                     {Pipert: "Upsample", MinOpset: 7, MaxOpset: 9, Note: "scales as attribute at 7, as input at 9"},
	"LSTM":                         {Pipert: "LSTM", MinOpset: 7, MaxOpset: MaxOpset, Note: "every direction, layout, activation, clip, peepholes and sequence_lens; an entry of sequence length 0 has zero Y_h and Y_c, as in onnxruntime; an activation without activation_alpha/beta takes its op's defaults, as the spec says (onnxruntime takes 0)"},
	"ReduceMean":                   {Pipert: "ReduceMean", MinOpset: 7, MaxOpset: MaxOpset},
	"ReduceMax":                    {Pipert: "ReduceMax", MinOpset: 7, MaxOpset: MaxOpset, Note: "bool from 20; a NaN in a reduced slice gives NaN (onnxruntime's result depends on where the NaN is)"},
	"ReduceMin":                    {Pipert: "ReduceMin", MinOpset: 7, MaxOpset: MaxOpset, Note: "bool from 20; a NaN in a reduced slice gives NaN (onnxruntime's result depends on where the NaN is)"},
	"ReduceProd":                   {Pipert: "ReduceProd", MinOpset: 7, MaxOpset: MaxOpset, Note: "integers multiplied in int64, a 32-bit result wrapping on overflow (onnxruntime saturates)"},
	"ReduceSumSquare":              {Pipert: "ReduceSumSquare", MinOpset: 7, MaxOpset: MaxOpset, Note: "Integers summed exactly in int64, a 32-bit result wrapping on overflow (onnxruntime sums integers in float64 and saturates)"},
	"ReduceL1":                     {Pipert: "ReduceL1", MinOpset: 7, MaxOpset: MaxOpset, Note: "Integers summed exactly in int64, a 32-bit result wrapping on overflow (onnxruntime sums integers in float64 and saturates)"},
	"ReduceL2":                     {Pipert: "ReduceL2", MinOpset: 7, MaxOpset: MaxOpset, Note: "Integers summed exactly in int64, a 32-bit result wrapping on overflow (onnxruntime sums integers in float64 and saturates)"},
	"ReduceLogSum":                 {Pipert: "ReduceLogSum", MinOpset: 1, MaxOpset: MaxOpset},
	"ReduceLogSumExp":              {Pipert: "ReduceLogSumExp", MinOpset: 7, MaxOpset: MaxOpset},
	"Gemm":                         {Pipert: "Gemm", MinOpset: 7, MaxOpset: MaxOpset, Note: "C optional from 11; float16 and bfloat16 computed in float32; with K = 0, beta·C (onnxruntime gives C whatever beta)"},
	"TopK":                         {Pipert: "TopK", MinOpset: 7, MaxOpset: MaxOpset, Note: "k as attribute before 10, K as input from 10; largest and sorted from 11; NaN ranks above every number, as in PyTorch (onnxruntime selects numbers before a NaN, largest or smallest)"},
	"Sign":                         {Pipert: "Sign", MinOpset: 9, MaxOpset: MaxOpset, Note: "the sign of NaN is NaN, as numpy (onnxruntime gives 0)"},
	"LeakyRelu":                    {Pipert: "LeakyRelu", MinOpset: 6, MaxOpset: MaxOpset},
	"Elu":                          {Pipert: "Elu", MinOpset: 6, MaxOpset: MaxOpset},
	"Celu":                         {Pipert: "Celu", MinOpset: 12, MaxOpset: MaxOpset},
	"Selu":                         {Pipert: "Selu", MinOpset: 6, MaxOpset: MaxOpset},
	"ThresholdedRelu":              {Pipert: "ThresholdedRelu", MinOpset: 1, MaxOpset: MaxOpset, Note: "the experimental op of opsets 1 to 9 (as onnxruntime keeps it) and the op of opset 10"},
	"Shrink":                       {Pipert: "Shrink", MinOpset: 9, MaxOpset: MaxOpset, Note: "every numeric type; integers as onnxruntime computes them (compared and offset in float32, truncated), saturated to the type (onnxruntime wraps at the type's limits)"},
	"Softsign":                     {Pipert: "Softsign", MinOpset: 1, MaxOpset: MaxOpset},
	"Sin":                          {Pipert: "Sin", MinOpset: 7, MaxOpset: MaxOpset},
	"Cos":                          {Pipert: "Cos", MinOpset: 7, MaxOpset: MaxOpset},
	"Tan":                          {Pipert: "Tan", MinOpset: 7, MaxOpset: MaxOpset},
	"Asin":                         {Pipert: "Asin", MinOpset: 7, MaxOpset: MaxOpset},
	"Acos":                         {Pipert: "Acos", MinOpset: 7, MaxOpset: MaxOpset},
	"Atan":                         {Pipert: "Atan", MinOpset: 7, MaxOpset: MaxOpset},
	"Sinh":                         {Pipert: "Sinh", MinOpset: 9, MaxOpset: MaxOpset},
	"Cosh":                         {Pipert: "Cosh", MinOpset: 9, MaxOpset: MaxOpset},
	"Asinh":                        {Pipert: "Asinh", MinOpset: 9, MaxOpset: MaxOpset},
	"Acosh":                        {Pipert: "Acosh", MinOpset: 9, MaxOpset: MaxOpset},
	"Atanh":                        {Pipert: "Atanh", MinOpset: 9, MaxOpset: MaxOpset},
	"Round":                        {Pipert: "Round", MinOpset: 11, MaxOpset: MaxOpset},
	"Dropout":                      {Pipert: "Dropout", MinOpset: 7, MaxOpset: MaxOpset, Note: "training mode drops with pipert's own generator (as the random ops: seeded by seed, else by the node's name; new masks each run, the same in every mode); never folded at import; of the low-precision dtypes training mode takes the float 8 types ONNX lists (not float8e8m0)"},
	"IsNaN":                        {Pipert: "IsNaN", MinOpset: 9, MaxOpset: MaxOpset, Note: "the float types and, at every opset, the float 8 types but float8e8m0 (ONNX lists them from 20)"},
	"IsInf":                        {Pipert: "IsInf", MinOpset: 10, MaxOpset: MaxOpset, Note: "the float types and, at every opset, the float 8 types but float8e8m0 (ONNX lists them from 20)"},
	"PRelu":                        {Pipert: "PRelu", MinOpset: 7, MaxOpset: MaxOpset},
	"Mod":                          {Pipert: "Mod", MinOpset: 10, MaxOpset: MaxOpset},
	"BitShift":                     {Pipert: "BitShift", MinOpset: 11, MaxOpset: MaxOpset, Note: "uint8, uint16, uint32 and uint64; a right shift is logical"},
	"Tile":                         {Pipert: "Tile", MinOpset: 7, MaxOpset: MaxOpset},
	"Range":                        {Pipert: "Range", MinOpset: 11, MaxOpset: MaxOpset, Note: "element i is start + i·delta computed in float64 (onnxruntime adds delta element after element: float32 and float64 results an ulp or two apart); float16 and bfloat16 from opset 27, computed in stash_type (float32 by default, or float64) and rounded once per element"},
	"ArgMax":                       {Pipert: "ArgMax", MinOpset: 7, MaxOpset: MaxOpset},
	"ArgMin":                       {Pipert: "ArgMin", MinOpset: 7, MaxOpset: MaxOpset},
	"CumSum":                       {Pipert: "CumSum", MinOpset: 11, MaxOpset: MaxOpset},
	"CumProd":                      {Pipert: "CumProd", MinOpset: 26, MaxOpset: MaxOpset},
	"BitCast":                      {Pipert: "BitCast", MinOpset: 26, MaxOpset: MaxOpset, Note: "between dtypes of one bit width among pipert's (no complex types); a 4- or 2-bit element keeps its low bits, sign-extended into int4 and int2"},
	"CausalConvWithState":          {Pipert: "CausalConvWithState", MinOpset: 27, MaxOpset: MaxOpset, Note: "float32, float16 and bfloat16; bias and past_state optional; activation none, silu or swish; evaluated in float64, each output rounded once (ONNX's reference rounds a float16 or bfloat16 convolution before its SiLU: an ulp apart)"},
	"SwiGLU":                       {Pipert: "SwiGLU", MinOpset: 28, MaxOpset: MaxOpset, Note: "A and B of one shape (no broadcasting); evaluated in float64, rounded once"},
	"LinearAttention":              {Pipert: "LinearAttention", MinOpset: 27, MaxOpset: MaxOpset, Note: "every update_rule (linear, gated, delta, gated_delta), grouped-query heads, decay per head or per key dimension, beta per head or shared, past_state of its own float type; float32, float16 and bfloat16, the recurrence evaluated in float64 (the state too, token to token) and each output rounded once (ONNX's reference keeps a float32 state); chunk_size unused"},
	"GatherElements":               {Pipert: "GatherElements", MinOpset: 11, MaxOpset: MaxOpset},
	"DepthToSpace":                 {Pipert: "DepthToSpace", MinOpset: 7, MaxOpset: MaxOpset},
	"SpaceToDepth":                 {Pipert: "SpaceToDepth", MinOpset: 7, MaxOpset: MaxOpset},
	"InstanceNormalization":        {Pipert: "InstanceNormalization", MinOpset: 6, MaxOpset: MaxOpset},
	"LpNormalization":              {Pipert: "LpNormalization", MinOpset: 1, MaxOpset: MaxOpset, Note: "p 1 or 2"},
	"LayerNormalization":           {Pipert: "LayerNormalization", MinOpset: 1, MaxOpset: MaxOpset, Note: "below opset 17 the form onnxruntime takes in the default domain (its contrib op, the same computation), whose attributes other than axis, epsilon and stash_type are ignored, as onnxruntime's schema allows (exporters wrote a misspelled epsion), and whose Scale, B and Y may be of another float type than X (Y of Scale's)"},
	"SimplifiedLayerNormalization": {Pipert: "SimplifiedLayerNormalization", MinOpset: 1, MaxOpset: MaxOpset, Note: "not an ONNX op: onnxruntime's RMS normalization, which it takes in the default domain at every opset; scale (and Y) may be of another float type than X; attributes other than axis, epsilon and stash_type ignored, as onnxruntime's schema allows"},
	"Split":                        {Pipert: "Split", MinOpset: 7, MaxOpset: MaxOpset, Note: "split as attribute before 13, as input from 13; num_outputs from 18"},
	"GRU":                          {Pipert: "GRU", MinOpset: 7, MaxOpset: MaxOpset, Note: "every direction, layout, activation, clip, linear_before_reset and sequence_lens; an entry of sequence length 0 has zero Y_h, as in onnxruntime; an activation without activation_alpha/beta takes its op's defaults, as the spec says (onnxruntime takes 0)"},
	"RNN":                          {Pipert: "RNN", MinOpset: 7, MaxOpset: MaxOpset, Note: "every direction, layout, activation, clip and sequence_lens; an entry of sequence length 0 has zero Y_h, as in onnxruntime; an activation without activation_alpha/beta takes its op's defaults, as the spec says (onnxruntime takes 0)"},
	"Trilu":                        {Pipert: "Trilu", MinOpset: 14, MaxOpset: MaxOpset, Note: "float8e8m0, which has no zero, refused"},
	"TfIdfVectorizer":              {Pipert: "TfIdfVectorizer", MinOpset: 9, MaxOpset: MaxOpset, Note: "int32 and int64 inputs (pipert has no string tensors: pool_strings is refused)"},
	"ScatterND":                    {Pipert: "ScatterND", MinOpset: 11, MaxOpset: MaxOpset, Note: "reduction max and min from 18; a reduction refuses the low-precision dtypes, which ONNX does not list"},
	"ScatterElements":              {Pipert: "ScatterElements", MinOpset: 11, MaxOpset: MaxOpset, Note: "reduction max and min from 18; a reduction refuses the low-precision dtypes, which ONNX does not list"},
	"Scatter":                      {Pipert: "Scatter", MinOpset: 9, MaxOpset: 10},
	"OneHot":                       {Pipert: "OneHot", MinOpset: 9, MaxOpset: MaxOpset, Note: "a float index selects a position only when equal to it (a fractional one selects none), as in onnxruntime and ONNX's reference"},
	"CastLike":                     {Pipert: "CastLike", MinOpset: 15, MaxOpset: MaxOpset, Note: "the float 8, float 4 and 4- and 2-bit types at every opset; saturate from 19 (to the float 8 types; float4e2m1 always saturates and takes a NaN to −0, as ONNX's node tests do); round_mode from 24 (to float8e8m0); a float into a 4- or 2-bit integer rounds to nearest even and wraps, as ONNX's 4-bit page says; a float out of another integer type's range saturates to its limits and a NaN becomes 0 (ONNX leaves both undefined; onnxruntime gives the x86 conversion's result)"},
	"Einsum":                       {Pipert: "Einsum", MinOpset: 12, MaxOpset: MaxOpset, Note: "an index of size 1 in one operand broadcasts against the others, as in onnxruntime and numpy"},
	"Hardmax":                      {Pipert: "Hardmax", MinOpset: 7, MaxOpset: MaxOpset, Note: "the first NaN of a row is its maximum (onnxruntime skips NaN, and marks nothing in a row of NaN only)"},
	"QuantizeLinear":               {Pipert: "QuantizeLinear", MinOpset: 10, MaxOpset: MaxOpset, Note: "to uint8, int8, uint16, int16, uint4, int4, uint2, int2, the float 8 types but float8e8m0, and float4e2m1, at every opset (a float 8 output ignores its zero point, float4e2m1 adds it); y_scale float32, float16, bfloat16, float64 or int32 (float8e8m0 scales, from 24, refused); a per-tensor y_scale and y_zero_point may be a scalar and a [1], as in onnxruntime; saturate from 19 (float 8 outputs); blocked quantization and output_dtype from 21; precision from 23: 0, y_scale's dtype, or float32 for float16 and bfloat16 (their division rounds in float32, as in onnxruntime); a NaN quotient gives an integer type's minimum, as onnxruntime's clamp does"},
	"DequantizeLinear":             {Pipert: "DequantizeLinear", MinOpset: 10, MaxOpset: MaxOpset, Note: "int8, uint8, int16, uint16, int32, uint4, int4, uint2, int2, the float 8 types but float8e8m0, and float4e2m1, at every opset; x_scale float32, float16, bfloat16 or float64 (float8e8m0 scales, from 24, refused); a per-tensor x_scale and x_zero_point may be a scalar and a [1], as in onnxruntime; blocked quantization from 21; output_dtype from 23: 0 or x_scale's dtype"},
	"GatherND":                     {Pipert: "GatherND", MinOpset: 11, MaxOpset: MaxOpset, Note: "indices whose last dimension is 0 gather whole slices, as in onnxruntime"},
	"EyeLike":                      {Pipert: "EyeLike", MinOpset: 9, MaxOpset: MaxOpset, Note: "float8e8m0, which has no zero, refused"},
	"LRN":                          {Pipert: "LRN", MinOpset: 7, MaxOpset: MaxOpset},
	"MeanVarianceNormalization":    {Pipert: "MeanVarianceNormalization", MinOpset: 1, MaxOpset: MaxOpset, Note: "before 9 the experimental op (across_channels, normalize_variance), as onnxruntime keeps it; axes from 9; divides by the standard deviation plus 1e-9, as the op's function body does: a slice of one value gives 0 (onnxruntime divides by the standard deviation alone: NaN)"},
	"ImageScaler":                  {Pipert: "ImageScaler", MinOpset: 1, MaxOpset: 9, Note: experimentalNote},
	"Affine":                       {Pipert: "Affine", MinOpset: 1, MaxOpset: 9, Note: experimentalNote},
	"ScaledTanh":                   {Pipert: "ScaledTanh", MinOpset: 1, MaxOpset: 9, Note: experimentalNote},
	"ParametricSoftplus":           {Pipert: "ParametricSoftplus", MinOpset: 1, MaxOpset: 9, Note: experimentalNote},
	"Crop":                         {Pipert: "Crop", MinOpset: 1, MaxOpset: 9, Note: experimentalNote},
	"DynamicSlice":                 {Pipert: "DynamicSlice", MinOpset: 1, MaxOpset: 9, Note: experimentalNote},
	"ReverseSequence":              {Pipert: "ReverseSequence", MinOpset: 10, MaxOpset: MaxOpset},
	"Compress":                     {Pipert: "Compress", MinOpset: 9, MaxOpset: MaxOpset},
	"Constant":                     {MinOpset: 1, MaxOpset: MaxOpset, Note: "folded into a graph constant"},
	"SequenceConstruct":            {MinOpset: 11, MaxOpset: MaxOpset, Note: seqNote},
	"SequenceEmpty":                {MinOpset: 11, MaxOpset: MaxOpset, Note: seqNote},
	"SequenceInsert":               {MinOpset: 11, MaxOpset: MaxOpset, Note: seqNote},
	"SequenceErase":                {MinOpset: 11, MaxOpset: MaxOpset, Note: seqNote},
	"SequenceAt":                   {MinOpset: 11, MaxOpset: MaxOpset, Note: seqNote},
	"SequenceMap":                  {MinOpset: 17, MaxOpset: MaxOpset, Note: seqNote + "; unrolled: its body inlined once per element, over sequences of one length and tensors"},
	"SequenceLength":               {MinOpset: 11, MaxOpset: MaxOpset, Note: seqNote},
	"ConcatFromSequence":           {MinOpset: 11, MaxOpset: MaxOpset, Note: seqNote + "; becomes Concat (Unsqueeze first with new_axis)"},
	"SplitToSequence":              {MinOpset: 11, MaxOpset: MaxOpset, Note: seqNote + "; becomes Split (Squeeze after, without keepdims); along a symbolic dimension, only with a split of constant sizes or of a length known at import (from opset 13 if computed at run time)"},
	"Optional":                     {MinOpset: 15, MaxOpset: MaxOpset, Note: optNote},
	"OptionalHasElement":           {MinOpset: 15, MaxOpset: MaxOpset, Note: optNote + "; a plain tensor or an omitted input from 18"},
	"OptionalGetElement":           {MinOpset: 15, MaxOpset: MaxOpset, Note: optNote + "; a plain tensor from 18"},
	"Identity":                     {MinOpset: 1, MaxOpset: MaxOpset, Note: "folded: its output names its input"},
	"NonMaxSuppression":            {Pipert: "NonMaxSuppression", MinOpset: 10, MaxOpset: MaxOpset},
	"Det":                          {Pipert: "Det", MinOpset: 11, MaxOpset: MaxOpset},
	"HannWindow":                   {Pipert: "HannWindow", MinOpset: 17, MaxOpset: MaxOpset},
	"HammingWindow":                {Pipert: "HammingWindow", MinOpset: 17, MaxOpset: MaxOpset},
	"BlackmanWindow":               {Pipert: "BlackmanWindow", MinOpset: 17, MaxOpset: MaxOpset},
	"MelWeightMatrix":              {Pipert: "MelWeightMatrix", MinOpset: 17, MaxOpset: MaxOpset},
	"DFT":                          {Pipert: "DFT", MinOpset: 17, MaxOpset: MaxOpset, Note: "axis as attribute before 20, as input from 20; onesided of a real signal only (a complex one has no one-sided spectrum); inverse with onesided (IRFFT, at every opset) to any dft_length n, from the first n/2+1 bins as numpy's irfft (onnxruntime 1.30 departs from the specification at most other lengths than 2(m−1) and odd n ≥ 2m−1 for m bins)"},
	"STFT":                         {Pipert: "STFT", MinOpset: 17, MaxOpset: MaxOpset, Note: "real and complex signals (onnxruntime 1.30 gives wrong values for complex ones, checked against a float64 DFT); a signal [batch, length] of rank 2, as PyTorch's exporter writes it, is real, as onnxruntime takes it"},
	"DynamicQuantizeLinear":        {Pipert: "DynamicQuantizeLinear", MinOpset: 11, MaxOpset: MaxOpset, Note: "NaN as onnxruntime on x86 (MLAS's AVX min and max): a NaN that is the last of its eight lanes' elements makes the scale NaN, one a later element of its lane replaces or among the elements after the last eight is skipped; a range with a NaN or an infinity gives zero point 255 (the NaN zero point clamped as onnxruntime clamps it) and 0 where x / scale is NaN"},
	"MatMulInteger":                {Pipert: "MatMulInteger", MinOpset: 10, MaxOpset: MaxOpset},
	"QLinearMatMul":                {Pipert: "QLinearMatMul", MinOpset: 10, MaxOpset: MaxOpset},
	"ConvInteger":                  {Pipert: "ConvInteger", MinOpset: 10, MaxOpset: MaxOpset, Note: "1 to 3 spatial dimensions"},
	"QLinearConv":                  {Pipert: "QLinearConv", MinOpset: 10, MaxOpset: MaxOpset, Note: "1 to 3 spatial dimensions; weight scales and zero points per tensor or per output channel"},
	"NegativeLogLikelihoodLoss":    {Pipert: "NegativeLogLikelihoodLoss", MinOpset: 12, MaxOpset: MaxOpset},
	"SoftmaxCrossEntropyLoss":      {Pipert: "SoftmaxCrossEntropyLoss", MinOpset: 12, MaxOpset: MaxOpset, Note: "log_prob is the optional second output"},
	"GridSample":                   {Pipert: "GridSample", MinOpset: 16, MaxOpset: MaxOpset, Note: "4-D, and from 20 5-D (linear and nearest); every mode and padding_mode; (bi)cubic with border padding clamps each of the 16 pixels, not the point, at every opset, as onnxruntime and PyTorch do (ONNX's reference clamps the point: results differ for points between the last pixel and the border)"},
	"RoiAlign":                     {Pipert: "RoiAlign", MinOpset: 10, MaxOpset: MaxOpset, Note: "avg and max; coordinate_transformation_mode from 16; computed in the input's precision, in onnxruntime's order (float16 and bfloat16 in float32), so that samples on the image's edge fall where onnxruntime's do; at most 2^24 samples per output bin (sampling_ratio up to 4096)"},
	"MaxUnpool":                    {Pipert: "MaxUnpool", MinOpset: 9, MaxOpset: MaxOpset, Note: "output_shape input from 11: the shape of MaxPool's input, the indices flat positions in it, as onnxruntime and PyTorch read them (the 1.12 backend test reads them in the default unpooled shape)"},
	"Loop":                         {Pipert: "Loop", MinOpset: 1, MaxOpset: MaxOpset, Note: "tensor values (no sequences); opsets 1 to 10 as 11, which only relaxed their rules; runs its body on the host, on real data (package control); with no iteration, a scan output is an empty stack of the body's element shape, [0, …] (onnxruntime gives [0] unless the body declares the shape), of the dtype the body declares; a body declaring its iteration number or condition of shape [1] (older tf2onnx and keras2onnx exports) is given it of that shape, as onnxruntime gives it"},
	"Unique":                       {Pipert: "Unique", MinOpset: 11, MaxOpset: MaxOpset, Note: "every output, sorted and axis; compute dependent; NaNs one value, sorted last (numpy's unique, the reference; onnxruntime merges them into other values)"},
	"Scan":                         {Pipert: "Scan", MinOpset: 8, MaxOpset: MaxOpset, Note: "every axis and direction; opset 8's batch axis and sequence_lens (a short sequence's scan outputs end in zeros); runs its body on the host, on real data (package control); a scan axis of length 0 is an error when static inference cannot give the body's output shapes (onnxruntime refuses every such Scan)"},
	"CenterCropPad":                {Pipert: "CenterCropPad", MinOpset: 18, MaxOpset: MaxOpset, Note: "shape as a value dependency"},
	"AffineGrid":                   {Pipert: "AffineGrid", MinOpset: 20, MaxOpset: MaxOpset, Note: "2-D and 3-D; size as a value dependency; float16 computed in float64 (onnxruntime has no float16 kernel)"},
	"TensorScatter":                {Pipert: "TensorScatter", MinOpset: 24, MaxOpset: MaxOpset, Note: "modes linear and circular; a negative write index is an error in both, as in onnxruntime; every dtype, copied bit for bit"},
	"DeformConv":                   {Pipert: "DeformConv", MinOpset: 19, MaxOpset: MaxOpset, Note: "2-D data only"},
	"If":                           {Pipert: "If", MinOpset: 7, MaxOpset: MaxOpset, Note: "inlined when the condition folds; else a runtime If (package control)"},
	"Col2Im":                       {Pipert: "Col2Im", MinOpset: 18, MaxOpset: MaxOpset, Note: "any number of spatial axes; image_shape and block_shape as value dependencies; numeric types"},
	"RandomNormal":                 {Pipert: "RandomNormal", MinOpset: 1, MaxOpset: MaxOpset, Note: "pipert's own generator (PCG), not onnxruntime's: seeded by seed, else by the node's name; new numbers each run, the same sequence in every executable and mode; never folded at import"},
	"RandomUniform":                {Pipert: "RandomUniform", MinOpset: 1, MaxOpset: MaxOpset, Note: "pipert's own generator (PCG), not onnxruntime's: seeded by seed, else by the node's name; new numbers each run, the same sequence in every executable and mode; never folded at import"},
	"RandomNormalLike":             {Pipert: "RandomNormalLike", MinOpset: 1, MaxOpset: MaxOpset, Note: "pipert's own generator (PCG), not onnxruntime's: seeded by seed, else by the node's name; new numbers each run, the same sequence in every executable and mode; never folded at import"},
	"RandomUniformLike":            {Pipert: "RandomUniformLike", MinOpset: 1, MaxOpset: MaxOpset, Note: "pipert's own generator (PCG), not onnxruntime's: seeded by seed, else by the node's name; new numbers each run, the same sequence in every executable and mode; never folded at import"},
	"Bernoulli":                    {Pipert: "Bernoulli", MinOpset: 15, MaxOpset: MaxOpset, Note: "pipert's own generator (PCG), not onnxruntime's: seeded by seed, else by the node's name; new numbers each run, the same sequence in every executable and mode; never folded at import; probabilities outside [0, 1] are an error"},
	"Multinomial":                  {Pipert: "Multinomial", MinOpset: 7, MaxOpset: MaxOpset, Note: "pipert's own generator (PCG), not onnxruntime's: seeded by seed, else by the node's name; new numbers each run, the same sequence in every executable and mode; never folded at import"},
}

// msTable lists the ops of domain com.microsoft the importer takes, with
// the domain versions of their form (all 1).
var msTable = map[string]OpInfo{
	"Gelu":                             {Pipert: "BiasGelu", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "exact (erf) GELU: BiasGelu without bias; float32 and float16; float16 as onnxruntime's CPU provider computes it up to a few units in the last place (it rounds intermediates to float16, pipert rounds once)"},
	"BiasGelu":                         {Pipert: "BiasGelu", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "float32 and float16; bias 1-D over the last axis; float16 as onnxruntime's CPU provider computes it up to a few units in the last place (it rounds intermediates to float16, pipert rounds once)"},
	"FastGelu":                         {Pipert: "FastGelu", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "tanh GELU; float32 and float16; optional 1-D bias over the last axis; float16 as onnxruntime's CPU provider computes it up to a few units in the last place (it rounds intermediates to float16, pipert rounds once)"},
	"QuickGelu":                        {Pipert: "QuickGelu", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "x·sigmoid(alpha·x); float32 and float16; float16 as onnxruntime's CPU provider computes it up to a few units in the last place (it rounds intermediates to float16, pipert rounds once)"},
	"SkipLayerNormalization":           {Pipert: "SkipLayerNormalization", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "float32 and float16; the sum input + skip (+ bias) in float32 as onnxruntime, its mean and variance in float64 in two passes (onnxruntime 1.30 agrees on most rows of a large offset but not all: on rows near 4160 of spread ~1 and hidden size 64 its outputs differ by up to 1.3e-3, a difference none of its published formulas reproduces; on values near 1e20, whose float32 squares overflow, it gives 0); 2-D or 3-D input; skip of input's shape, [1,S,H] or [S,H]; optional beta and bias; every output (mean, inv_std_var, input_skip_bias_sum)"},
	"SkipSimplifiedLayerNormalization": {Pipert: "SkipSimplifiedLayerNormalization", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "as SkipLayerNormalization, RMS form: no beta; outputs mean (zeros, as onnxruntime gives), inv_std_var and input_skip_bias_sum"},
	"RotaryEmbedding":                  {Pipert: "MSRotaryEmbedding", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "float32 and float16; 3-D [batch, seq, hidden] or 4-D [batch, heads, seq, head_size] input; position_ids [batch, seq] or one start position; interleaved, num_heads, rotary_embedding_dim (the rest of each head copied); scale accepted and unused, as in onnxruntime's CPU kernel; is_packed_batching 0 only"},
	"MatMulNBits":                      {Pipert: "MatMulNBits", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "A float32 or float16; bits 4 and 8 (2 refused); block_size a power of 2 ≥ 16; scales of A's type; zero_points absent, packed uint8, or of A's type (bits 4); g_idx (bits 4; uint8 zero points then read as 8, as onnxruntime does); bias; accuracy_level 0–3 in float32, 4 quantizes A to int8 per block as onnxruntime's int8 path (which onnxruntime takes for an initializer B only); results agree with onnxruntime to float32 rounding, not bit for bit; a NaN in A gives NaN outputs at every accuracy_level (onnxruntime's int8 path quantizes it away)"},
	"Attention":                        {Pipert: "MSAttention", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "float32 and float16 (computed as float32); input·weights + bias with qkv_hidden_sizes; mask_index [batch] end positions, [2·batch] end and start positions, [batch, total] and [batch, seq, total] masks, [batch or 1, 1] (no mask); past/present [2, batch, heads, past, head_size]; unidirectional (causal keys dropped), attention_bias [batch or 1, heads or 1, seq, total], scale, mask_filter_value (masked keys keep a large negative score, as onnxruntime); refused as onnxruntime's CPU kernel refuses them: a missing bias, do_rotary, past_present_share_buffer with past, past with attention_bias or unequal K/V sizes, 4-D mask_index; float32 to float32 rounding of onnxruntime"},
	"QAttention":                       {Pipert: "QAttention", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "uint8 or int8 input and weight [hidden_in, 3·D], float32 bias; input_scale and input_zero_point per tensor, weight_scale and weight_zero_point per tensor or per column; the integer product scaled and biased in float32 as onnxruntime's MLAS; then com.microsoft Attention's masks, past/present, unidirectional, scale and mask_filter_value (no attention_bias, no qkv_hidden_sizes)"},
	"DecoderMaskedMultiHeadAttention":  {Pipert: "DecoderMaskedMultiHeadAttention", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "float32 and float16 (computed as float32); one query token, head sizes of K and V equal; self attention: key and value [batch, 1, hidden], past_key/past_value a shared buffer [batch, heads, max, head_size] (past_present_share_buffer 1, past_sequence_length), past rows read through cache_indirection's beam indices (beam_width, when given, its second dimension) as MultiHeadAttention's shared-buffer form, or without cache_indirection from the own batch (past_sequence_length ≥ 1); cross attention: key and value [batch, heads, L, head_size] without past, read without bias; bias, mask_index [batch, total], attention_bias (self attention), scale, mask_filter_value; the qk output (written also with output_qk 0); refused as onnxruntime's CPU kernel refuses them: more than one query token, a 1-D or 3-D mask, attention_bias in cross attention, past without past_present_share_buffer, packed QKV; refused where onnxruntime's CPU kernel writes beyond present or misreads: past_sequence_length 0 without cache_indirection, 3-D key and value without past; float32 to float32 rounding of onnxruntime"},
	"MultiHeadAttention":               {Pipert: "MultiHeadAttention", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "float32 and float16 (computed as float32); query [batch, seq, hidden] with 3-D key and value, or 4-D key and value [batch, heads, L, head_size] (cross-attention); bias; key_padding_mask [batch], [3·batch+2], [batch, total], [batch, seq, total]; attention_bias (added before the mask, as onnxruntime); past_key/past_value and present outputs (past_key and past_value are read also when no present output is used, where onnxruntime ignores them); unidirectional, scale, mask_filter_value; the qk output; past_sequence_length and cache_indirection: the shared past/present buffer [batch, heads, max, head_size] of beam search (one query token and key after past_sequence_length ≥ 1 rows, past rows read through cache_indirection's beam indices, mask absent or [batch, total], attention_bias read at batch / beam width as onnxruntime), both checked and unread without past_key; refused as onnxruntime's CPU kernel refuses them: packed QKV or KV, a bool mask; refused where onnxruntime's CPU kernel writes beyond present: a shared buffer without cache_indirection, with past_sequence_length 0, or more than one query token or key; float32 to float32 rounding of onnxruntime"},
	"GroupQueryAttention":              {Pipert: "GroupQueryAttention", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "float32 and float16; Q, K, V separate or packed in query; past_key/past_value (BNSH) with seqlens_k and total_sequence_length: first prompts with right-padded batches, token generation, a prompt after context (batch 1); present buffers of max(total, past) tokens, zero beyond each batch; num_heads a multiple of kv_num_heads, head size a multiple of 8; scale, softcap, local_window_size, smooth_softmax, head_sink, attention_bias (a row it masks whole, −∞ or the lowest float32, gives zeros, as onnxruntime); do_rotary with cos_cache/sin_cache, rotary_interleaved, position_ids; qk_output (output_qk) and quantized caches refused; float32 to float32 rounding of onnxruntime"},
	"FusedMatMul":                      {Pipert: "FusedMatMul", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "alpha·MatMul with transA, transB, transBatchA, transBatchB; float32, float16 and float64"},
	"QLinearAdd":                       {Pipert: "QLinearAdd", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "int8 and uint8 (uint16 refused, as onnxruntime's CPU provider has no kernel for it); numpy broadcasting; scalar (or 1-element) float32 scales and zero points of the data's type; omitted zero points read as 0 (onnxruntime's shape inference refuses an omitted A or B zero point); bit for bit as onnxruntime's AVX2 kernel (fused multiply-adds in float32)"},
	"QLinearMul":                       {Pipert: "QLinearMul", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "int8 and uint8; numpy broadcasting; scalar (or 1-element) float32 scales and zero points of the data's type; omitted zero points read as 0 (onnxruntime's shape inference refuses an omitted A or B zero point); bit for bit as onnxruntime"},
	"QLinearGlobalAveragePool":         {Pipert: "QLinearGlobalAveragePool", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "int8 and uint8; channels_last 0 and 1, rank 3 or more; scalar (or 1-element) scales and zero points, both zero points required (onnxruntime's kernel reads them); a spatial size of 2^24 or more or a scale x_scale/(y_scale·size) outside [2^-32, 256) refused, as onnxruntime throws; bit for bit as onnxruntime"},
	"QLinearAveragePool":               {Pipert: "QLinearAveragePool", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "int8 and uint8; 1-D to 3-D, channels_last 0 and 1; kernel_shape, strides, pads, auto_pad, ceil_mode, count_include_pad as onnxruntime's kernel takes them (output sizes as onnxruntime computes them, windows clipped at the input's end); dilations other than 1 refused (onnxruntime sizes the output with them but does not apply them), pads not smaller than the kernel refused; scalar (or 1-element) scales and zero points; bit for bit as onnxruntime"},
	"QLinearConcat":                    {Pipert: "QLinearConcat", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "int8 and uint8; axis (negative counts from the end); each input requantized to Y's scale and zero point through onnxruntime's lookup table, copied when both agree; every scale and zero point required, scalar (or 1-element), zero points and inputs of Y_zero_point's dtype; bit for bit as onnxruntime"},
	"QLinearSigmoid":                   {Pipert: "QLinearSigmoid", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "int8 and uint8; onnxruntime's 256-entry table of MLAS's logistic approximation (its FMA3 kernel's float32 steps); scalar (or 1-element) scales, optional zero points of X's type; bit for bit as onnxruntime"},
	"QLinearLeakyRelu":                 {Pipert: "QLinearLeakyRelu", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "int8 and uint8; alpha; onnxruntime's 256-entry table; scalar (or 1-element) scales, optional zero points of X's type; bit for bit as onnxruntime"},
	"QEmbedLayerNormalization":         {Pipert: "QEmbedLayerNormalization", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "the EmbedLayerNormalization of onnxruntime's dynamic quantization: int8 or uint8 tables, gamma and beta with per-tensor scales and zero points; dequantized, summed and normalized in float32 as onnxruntime's kernel (two passes); an id out of range an error"},
	"QLinearWhere":                     {Pipert: "QLinearWhere", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "condition, X and Y broadcast; every scale and zero point required, int8 or uint8; X and Y requantized to z through onnxruntime's table (QLinearConcat's); bit for bit as onnxruntime"},
	"QLinearSoftmax":                   {Pipert: "QLinearSoftmax", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "int8 and uint8; opset attribute required (below 13 the input flattened to 2-D at axis, from 13 along axis; axis -1 by default at every opset, as onnxruntime reads the schema default); onnxruntime's float32 table of exponentials and its requantization; x_scale must be positive and finite (onnxruntime's table is undefined otherwise); bit for bit as onnxruntime"},
	"QGemm":                            {Pipert: "QGemm", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "A int8 or uint8, B int8 (or uint8 with uint8 A), 2-D; transA, transB, alpha; b_scale and b_zero_point per tensor or per column; int32 bias C (scalar, [N], [1,N], [M,1], [M,N]); quantized Y with y_scale and y_zero_point, float32 Y without them (one without the other refused); a_zero_point and b_zero_point required (onnxruntime's kernel reads them); K = 0 refused; bit for bit as onnxruntime"},
	"MatMulIntegerToFloat":             {Pipert: "MatMulIntegerToFloat", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "A uint8, B uint8 or int8, numpy batching; a_scale per tensor; b_scale and b_zero_point per tensor, per column ([N] for 2-D B) or per column of each matrix ([..., 1, N]); other scale shapes (which onnxruntime applies in a separate pass) refused; float32 bias [N]; bit for bit as onnxruntime on finite A (A's range skips a NaN, which onnxruntime's vectorized min and max skip at some positions and not at others)"},
	"DynamicQuantizeLSTM":              {Pipert: "DynamicQuantizeLSTM", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "the LSTM of onnxruntime's dynamic quantization: float32 X, int8 or uint8 W [dirs, input, 4h] and R [dirs, h, 4h], scales and zero points per direction or per gate column (a per-column zero point constant, and 0 for int8), int32 sequence_lens; LSTM's attributes but layout; X and each step's hidden state quantized to uint8 as onnxruntime does (the hidden state of the whole batch at once, as onnxruntime's kernel on one thread: with several threads onnxruntime may split a batch of several sequences), int32 products scaled in float32, the gates as LSTM's"},
	"DynamicQuantizeMatMul":            {Pipert: "DynamicQuantizeMatMul", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "float32 A quantized to uint8 as onnxruntime does (range including 0, scale range/255, zero point rounded half to even); B uint8 or int8, numpy batching; b_scale and b_zero_point per tensor, per column ([N] for 2-D B) or per column of each matrix ([..., 1, N]), other shapes refused; float32 bias [N]; bit for bit as onnxruntime, a NaN in A as DynamicQuantizeLinear's"},
	"EmbedLayerNormalization":          {Pipert: "EmbedLayerNormalization", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "float32 or float16 tables (float16 computed in float32 and rounded once, as onnxruntime's CPU provider casts around its float32 kernel); int32 input_ids, optional segment_ids and segment_embedding (DistilBERT), optional mask (mask_index counts its ones, 0 without it) and position_ids ([batch, S] or [1, S]); outputs output, mask_index, embedding_sum; mask_index_type accepted (unused on CPU, as in onnxruntime); ids outside their tables refused (negative positions too, which onnxruntime reads outside its table); layer normalization in float32 in onnxruntime's order"},
	"FusedConv":                        {Pipert: "FusedConv", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "float32; Conv's attributes; optional Z of the output's shape added before the bias, as MLAS; activation Relu, Tanh, Sigmoid, LeakyRelu, Clip, HardSigmoid with activation_params (none: identity; others refused); NhwcFusedConv refused; within float32 rounding of onnxruntime (its summation order and tanh approximation), not bit for bit"},
	"FusedGemm":                        {Pipert: "FusedGemm", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "float32; Gemm's attributes, C optional; activation required: Relu, Tanh, Sigmoid, LeakyRelu, HardSigmoid, Elu, Selu, ThresholdedRelu, Softsign, Softplus with activation_alpha, activation_beta, activation_gamma as onnxruntime requires them (Celu, ParametricSoftplus, ScaledTanh refused); within float32 rounding of onnxruntime, not bit for bit"},
	"QuantizeLinear":                   {Pipert: "MSQuantizeLinear", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "the QDQ form of onnxruntime's quantization tool (16-bit integers): x float32 or float16 with y_scale of x's dtype, to uint8 (no zero point), int8, uint16 and int16, per tensor or per axis; as onnxruntime computes it (the division in float32, a NaN quotient giving the type's minimum), bit for bit; 4-bit (INT4, UINT4) zero points refused; block_size and saturate refused, as onnxruntime's schema refuses them"},
	"DequantizeLinear":                 {Pipert: "MSDequantizeLinear", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "the QDQ form of onnxruntime's quantization tool: x uint8, int8, uint16, int16 or int32 (and INT4 and UINT4 constants, read as 8-bit), x_scale float32 or float16 (the output's dtype), per tensor or per axis; as onnxruntime computes it (x − zero point in int32, wrapping, then float32, times the scale in float32, then rounded to float16 for a float16 scale), bit for bit; block_size refused, as onnxruntime's schema refuses it"},
	"Trilu":                            {Pipert: "MSTrilu", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "the default domain's Trilu on the dtypes of onnxruntime's kernel: float32, float64, float16 and int64 (k int64); upper"},
	"ExpandDims":                       {Pipert: "ExpandDims", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "any dtype; axis an int32 scalar (a value dependency) in [-r-1, r] (onnxruntime checks it against the element count instead and reads outside the shape beyond r: refused)"},
	"NhwcMaxPool":                      {Pipert: "NhwcMaxPool", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "uint8 and int8 (the dtypes of onnxruntime's kernel); [N, spatial..., C], one or more spatial dimensions; kernel_shape, pads, strides, dilations, auto_pad, ceil_mode with onnxruntime's geometry (SAME_UPPER and SAME_LOWER pad as if undilated; taps outside the input read the type's minimum, as onnxruntime pads); pads not smaller than the kernel refused, as onnxruntime refuses them, and pads with auto_pad (onnxruntime ignores them); bit for bit as onnxruntime"},
	"Inverse":                          {Pipert: "Inverse", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "float32 and float64, [..., n, n]; LU with partial pivoting and triangular solves in the input's type, in the order of onnxruntime's Eigen for small matrices (agreement to rounding, not bit for bit, and as close as the matrix's conditioning allows); singular matrices give infinities or NaNs as in onnxruntime; float16 refused (onnxruntime computes it in float16 arithmetic)"},
	"GridSample":                       {Pipert: "GridSample", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "the GridSample PyTorch exporters wrote before ONNX had one: the default domain's GridSample at opset 16 (4-D; bilinear, nearest and bicubic; zeros, border and reflection padding; align_corners), whatever the model's default-domain opset"},
	"GatherBlockQuantized":             {Pipert: "GatherBlockQuantized", MinOpset: 1, MaxOpset: MaxMSOpset, Note: "the embedding lookup of block-quantized language models: data uint8 packing 8/bits values a byte (bits 2, 4, 8; gather_axis 0, quantize_axis the last; packed zero points, default 2^(bits−1)) or an INT4 or UINT4 initializer (any gather and quantize axes; zero points of its type, default 0); block_size a power of 2 ≥ 16; int32 or int64 indices, an index out of range an error (onnxruntime writes zeros); float32 or float16 scales, the output's dtype (bfloat16 refused, as onnxruntime); float8 and float4 data refused; bit for bit as onnxruntime"},
}

// mlTable lists the ops of domain ai.onnx.ml the importer takes, with the
// domain versions of their form.
var mlTable = map[string]OpInfo{
	"TreeEnsembleRegressor":  {Pipert: "TreeEnsembleRegressor", MinOpset: 1, MaxOpset: 4, Note: mlTreeNote},
	"TreeEnsemble":           {Pipert: "TreeEnsemble", MinOpset: 5, MaxOpset: 5, Note: mlDomainNote + "float32 and float64 X of rank 2, Y of X's dtype (float16 refused: onnxruntime has no kernel for it); the interior nodes and the leaves (leaf_targetids, leaf_weights), tree_roots, one-leaf trees, nodes_missing_value_tracks_true, every mode with BRANCH_MEMBER (membership_values, each set ended by NaN; an empty set holds nothing): x is a member when it equals one of its set's values, exactly in X's type, NaN never; aggregate_function in X's type; post_transform as the spec numbers it (0 NONE, 1 SOFTMAX, 2 LOGISTIC, 3 SOFTMAX_ZERO, 4 PROBIT), in float32, with one target too (SOFTMAX of one score is 1, SOFTMAX_ZERO 1, or 0 for a score of 0); follows the spec where onnxruntime 1.30 departs from it (microsoft/onnxruntime#26596, #24862): onnxruntime swaps post_transform 1 and 2 and applies none but PROBIT with one target, and compares x with a large member set (31 values or more, or any outside [0, 30]) after truncating it to int32; the attributes checked at import (lengths, dtypes, indices, cycles); nodes_hitrates (float32, as ONNX's schema has it) checked and unused; sums of 80 trees or more may differ from onnxruntime's by rounding (it adds batches of trees in parallel)"},
	"TreeEnsembleClassifier": {Pipert: "TreeEnsembleClassifier", MinOpset: 1, MaxOpset: 4, Note: mlTreeNote + "; classlabels_int64s (classlabels_strings only where nothing reads the label output, the scores taken alone); the binary cases (one class of weights, two classes) and one class (label 1 for a positive score, else 0) as onnxruntime computes them"},
	"LinearClassifier":       {Pipert: "LinearClassifier", MinOpset: 1, MaxOpset: 5, Note: mlDomainNote + "X float32, float64, int64 or int32 of rank 1 or 2 (read as float32, as onnxruntime); coefficients, intercepts (one per class), post_transform, classlabels_ints (classlabels_strings only where nothing reads the label output, the scores taken alone); one class scored as onnxruntime: labels by the sign of the score, two columns [1−p, p] with two labels; scores within float32 rounding of onnxruntime's GEMM"},
	"LinearRegressor":        {Pipert: "LinearRegressor", MinOpset: 1, MaxOpset: 5, Note: mlDomainNote + "X float32 of rank 0 to 2 (the type onnxruntime takes); coefficients, intercepts (used when one per target), targets, post_transform; within float32 rounding of onnxruntime's GEMM"},
	"Scaler":                 {Pipert: "Scaler", MinOpset: 1, MaxOpset: 5, Note: mlDomainNote + "X float32, float64, int64 or int32; (x − offset)·scale per feature or with one value, in X's type for float64 X and float32 otherwise; Y float32"},
	"Normalizer":             {Pipert: "Normalizer", MinOpset: 1, MaxOpset: 5, Note: mlDomainNote + "X float32, float64, int64 or int32 of rank 1 or 2; norm MAX, L1, L2 per row, in float32 as onnxruntime (squares and absolute values of integers wrap); a row of norm 0 copied"},
	"Binarizer":              {Pipert: "Binarizer", MinOpset: 1, MaxOpset: 5, Note: mlDomainNote + "X float32 (the type onnxruntime takes); threshold; NaN in X is an error, as in onnxruntime"},
	"Imputer":                {Pipert: "Imputer", MinOpset: 1, MaxOpset: 5, Note: mlDomainNote + "X float32 (imputed_value_floats, replaced_value_float; NaN replaces NaN) or int64 (imputed_value_int64s, replaced_value_int64); one value or one per feature"},
	"ArrayFeatureExtractor":  {Pipert: "ArrayFeatureExtractor", MinOpset: 1, MaxOpset: 5, Note: mlDomainNote + "X float32, float64, int64 or int32 (strings refused); int64 indices into the last axis, checked at run; 1-D X gives [1, indices]"},
	"OneHotEncoder":          {Pipert: "OneHotEncoder", MinOpset: 1, MaxOpset: 5, Note: mlDomainNote + "X int64, float32 or float64 of rank 0 to 2 (floats truncated to int64 as onnxruntime on x86-64; int32 refused, as onnxruntime); cats_int64s (cats_strings refused), zeros"},
	"FeatureVectorizer":      {Pipert: "FeatureVectorizer", MinOpset: 1, MaxOpset: 5, Note: mlDomainNote + "inputs of one dtype (float32, float64, int64 or int32), inputdimensions one per input: each input's row cut or padded with zeros to its width; Y float32"},
	"SVMRegressor":           {Pipert: "SVMRegressor", MinOpset: 1, MaxOpset: 5, Note: mlDomainNote + "X float32 of rank 1 or 2 (the type onnxruntime takes); kernel_type LINEAR, POLY, RBF, SIGMOID, kernel_params (required, as onnxruntime), support_vectors, n_supports (0: linear), coefficients, rho, one_class; post_transform checked and not applied, as onnxruntime; dot products within float32 rounding of onnxruntime's GEMM"},
	"SVMClassifier":          {Pipert: "SVMClassifier", MinOpset: 1, MaxOpset: 5, Note: mlDomainNote + "X float32, float64, int64 or int32 of rank 1 or 2 (read as float32); kernel_type LINEAR, POLY, RBF, SIGMOID, kernel_params (required, as onnxruntime), support_vectors, vectors_per_class (none: linear mode), coefficients, rho, prob_a, prob_b (Platt scaling and pairwise coupling), post_transform, classlabels_ints (classlabels_strings only where nothing reads the label output, the scores taken alone); labels by votes, onnxruntime's binary rules and score layouts (two classes with PROBIT: the second column, which onnxruntime leaves unset, is 0); support vectors with one class refused"},
	"LabelEncoder":           {Pipert: "LabelEncoder", MinOpset: 2, MaxOpset: 5, Note: mlDomainNote + "int64 and float keys and values: keys_int64s, keys_floats, values_int64s, values_floats, default_int64, default_float; from version 4 keys_tensor, values_tensor, default_tensor (int64, float32, float64: the key and value dtypes onnxruntime has kernels for) and NaN keys; string keys, values and version 1 refused"},
}

// mlDomainNote starts the notes of the ops of ai.onnx.ml.
const mlDomainNote = "domain ai.onnx.ml (the range is of its versions); "

// mlTreeNote is the note of the tree ensembles; it names the domain, since
// the generated table lists the ops of ai.onnx.ml after the default
// domain's.
const mlTreeNote = "domain ai.onnx.ml (the range is of its versions); float32 and float64 X of rank 2 (int64 and int32 where onnxruntime takes them: the classifier); every node mode but BRANCH_MEMBER, nodes_missing_value_tracks_true, aggregate_function, post_transform, base_values; the _as_tensor attributes from version 3 (float64 for float64 X only, as onnxruntime); the trees checked at import (node ids, children, cycles)"

func init() {
	for name, info := range table {
		info.ONNX = name
		table[name] = info
	}
	for name, info := range msTable {
		info.ONNX, info.Domain = name, MSDomain
		msTable[name] = info
	}
	for name, info := range mlTable {
		info.ONNX, info.Domain = name, MLDomain
		mlTable[name] = info
	}
}

// Ops lists the ONNX ops the importer takes: those of the default domain
// by name, then those of MLDomain, then those of MSDomain, each by name.
func Ops() []OpInfo {
	out := make([]OpInfo, 0, len(table)+len(msTable)+len(mlTable))
	for name, info := range table {
		if legacyOps[name] && info.MinOpset > 1 && info.MinOpset <= 8 {
			// A model of opsets 1 to 6 has the node upgraded (legacy.go).
			info.MinOpset = 1
			info.Note = strings.TrimSuffix("opsets 1 to 6 upgraded to the form of opset 7; "+info.Note, "; ")
		}
		out = append(out, info)
	}
	for _, info := range msTable {
		out = append(out, info)
	}
	for _, info := range mlTable {
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Domain != out[j].Domain {
			return out[i].Domain < out[j].Domain
		}
		return out[i].ONNX < out[j].ONNX
	})
	return out
}

// msLatest is the latest version of domain com.microsoft, its only one.
const msLatest = 1

// lookup returns the mapping of node n at the opsets the importer is at,
// or an error naming what is missing.
func (im *importer) lookup(n *Node) (OpInfo, error) {
	switch n.Domain {
	case "", "ai.onnx":
		return lookup(n.Domain, n.OpType, im.opset)
	case MSDomain:
		info, ok := msTable[n.OpType]
		if !ok {
			return OpInfo{}, fmt.Errorf("%w: op %s of domain %s (version %d) is not implemented", ErrUnsupported, n.OpType, MSDomain, im.msOpset)
		}
		v := im.msOpset
		if v <= 0 {
			// A model that uses the domain without importing it (as
			// onnxruntime's own fusion tools write them) is read at
			// the domain's only version, as onnxruntime reads a domain
			// missing from opset_import at its latest.
			v = msLatest
		}
		if v < info.MinOpset || v > info.MaxOpset {
			return OpInfo{}, fmt.Errorf("%w: op %s of domain %s at version %d (implemented for versions %d to %d)", ErrUnsupported, n.OpType, MSDomain, v, info.MinOpset, info.MaxOpset)
		}
		return info, nil
	case MLDomain:
		info, ok := mlTable[n.OpType]
		if !ok && n.OpType == "ZipMap" && len(n.Inputs) > 0 {
			return OpInfo{}, fmt.Errorf("%w: op ZipMap of domain %s makes a sequence of maps, which pipert does not have: select its input %q, the tensor it maps, as an output instead (onnx.Options.Outputs, pipert.WithOutputs, pipebench -outputs)", ErrUnsupported, MLDomain, n.Inputs[0])
		}
		if !ok {
			return OpInfo{}, fmt.Errorf("%w: op %s of domain %s (version %d) is not implemented", ErrUnsupported, n.OpType, MLDomain, im.mlOpset)
		}
		if im.mlOpset <= 0 {
			return OpInfo{}, fmt.Errorf("%w: op %s of domain %s, which the model does not import (opset_import)", ErrImport, n.OpType, MLDomain)
		}
		if im.mlOpset < info.MinOpset || im.mlOpset > info.MaxOpset {
			return OpInfo{}, fmt.Errorf("%w: op %s of domain %s at version %d (implemented for versions %d to %d)", ErrUnsupported, n.OpType, MLDomain, im.mlOpset, info.MinOpset, info.MaxOpset)
		}
		return info, nil
	}
	return OpInfo{}, fmt.Errorf("%w: op %s of domain %q (version %d) is not implemented: the importer takes the default domain, %s and %s", ErrUnsupported, n.OpType, n.Domain, im.domainVersion(n.Domain), MLDomain, MSDomain)
}

// domainVersion is the version of domain the model imports, 0 if none.
func (im *importer) domainVersion(domain string) int64 { return im.domains[domain] }

// lookup returns the mapping of op of the default domain at opset, or an
// error naming what is missing.
func lookup(domain, op string, opset int64) (OpInfo, error) {
	if domain != "" && domain != "ai.onnx" {
		return OpInfo{}, fmt.Errorf("%w: op %s of domain %q", ErrUnsupported, op, domain)
	}
	info, ok := table[op]
	if !ok {
		return OpInfo{}, fmt.Errorf("%w: op %s (opset %d) is not implemented", ErrUnsupported, op, opset)
	}
	if opset < info.MinOpset || opset > info.MaxOpset {
		return OpInfo{}, fmt.Errorf("%w: op %s at opset %d (implemented for opsets %d to %d)", ErrUnsupported, op, opset, info.MinOpset, info.MaxOpset)
	}
	return info, nil
}
