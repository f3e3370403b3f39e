package onnx

import (
	"fmt"
	"sort"
)

// OpInfo is how one ONNX op maps onto pipert: the pipert op it becomes
// and the opsets of the default domain whose form of the op pipert
// implements in full. Outside that range an import fails with
// ErrUnsupported naming node, op and opset.
type OpInfo struct {
	ONNX, Pipert       string
	MinOpset, MaxOpset int64
	// Note says how the import treats the op, when it is not a plain
	// mapping.
	Note string
}

// table lists every ONNX op the importer takes. The opset ranges are those
// whose semantics the pipert op follows (checked against the ONNX backend
// node tests where they exist); other opsets are refused, never guessed.
var table = map[string]OpInfo{
	"Add":                       {Pipert: "Add", MinOpset: 7, MaxOpset: 17},
	"Sub":                       {Pipert: "Sub", MinOpset: 7, MaxOpset: 17},
	"Mul":                       {Pipert: "Mul", MinOpset: 7, MaxOpset: 17},
	"Div":                       {Pipert: "Div", MinOpset: 7, MaxOpset: 17},
	"MatMul":                    {Pipert: "MatMul", MinOpset: 7, MaxOpset: 17},
	"Relu":                      {Pipert: "ReLU", MinOpset: 6, MaxOpset: 17},
	"ReduceSum":                 {Pipert: "ReduceSum", MinOpset: 7, MaxOpset: 17, Note: "axes as attribute before 13, as input from 13; noop_with_empty_axes from 13"},
	"NonZero":                   {Pipert: "NonZero", MinOpset: 9, MaxOpset: 17},
	"Softmax":                   {Pipert: "Softmax", MinOpset: 7, MaxOpset: 17, Note: "before opset 13 flattened to 2-D at axis"},
	"LogSoftmax":                {Pipert: "LogSoftmax", MinOpset: 7, MaxOpset: 17, Note: "before opset 13 flattened to 2-D at axis"},
	"Transpose":                 {Pipert: "Transpose", MinOpset: 7, MaxOpset: 17},
	"Concat":                    {Pipert: "Concat", MinOpset: 7, MaxOpset: 17},
	"Slice":                     {Pipert: "Slice", MinOpset: 7, MaxOpset: 17},
	"Gather":                    {Pipert: "Gather", MinOpset: 7, MaxOpset: 17},
	"Cast":                      {Pipert: "Cast", MinOpset: 7, MaxOpset: 17, Note: "the `to` enum becomes a pipert dtype"},
	"Shape":                     {Pipert: "Shape", MinOpset: 7, MaxOpset: 17},
	"Reshape":                   {Pipert: "Reshape", MinOpset: 7, MaxOpset: 17},
	"Sigmoid":                   {Pipert: "Sigmoid", MinOpset: 6, MaxOpset: 17},
	"Tanh":                      {Pipert: "Tanh", MinOpset: 6, MaxOpset: 17},
	"Exp":                       {Pipert: "Exp", MinOpset: 6, MaxOpset: 17},
	"Log":                       {Pipert: "Log", MinOpset: 6, MaxOpset: 17},
	"Sqrt":                      {Pipert: "Sqrt", MinOpset: 6, MaxOpset: 17},
	"Erf":                       {Pipert: "Erf", MinOpset: 9, MaxOpset: 17},
	"Reciprocal":                {Pipert: "Reciprocal", MinOpset: 6, MaxOpset: 17},
	"Floor":                     {Pipert: "Floor", MinOpset: 6, MaxOpset: 17},
	"Ceil":                      {Pipert: "Ceil", MinOpset: 6, MaxOpset: 17},
	"HardSigmoid":               {Pipert: "HardSigmoid", MinOpset: 6, MaxOpset: 17},
	"HardSwish":                 {Pipert: "HardSwish", MinOpset: 14, MaxOpset: 17},
	"Softplus":                  {Pipert: "Softplus", MinOpset: 1, MaxOpset: 17},
	"Neg":                       {Pipert: "Neg", MinOpset: 6, MaxOpset: 17},
	"Abs":                       {Pipert: "Abs", MinOpset: 6, MaxOpset: 17},
	"Flatten":                   {Pipert: "Flatten", MinOpset: 7, MaxOpset: 17},
	"Squeeze":                   {Pipert: "Squeeze", MinOpset: 7, MaxOpset: 17, Note: "axes as attribute before 13, as input from 13"},
	"Unsqueeze":                 {Pipert: "Unsqueeze", MinOpset: 7, MaxOpset: 17, Note: "axes as attribute before 13, as input from 13"},
	"Equal":                     {Pipert: "Equal", MinOpset: 7, MaxOpset: 17},
	"Less":                      {Pipert: "Less", MinOpset: 7, MaxOpset: 17},
	"Greater":                   {Pipert: "Greater", MinOpset: 7, MaxOpset: 17},
	"LessOrEqual":               {Pipert: "LessOrEqual", MinOpset: 12, MaxOpset: 17},
	"GreaterOrEqual":            {Pipert: "GreaterOrEqual", MinOpset: 12, MaxOpset: 17},
	"And":                       {Pipert: "And", MinOpset: 7, MaxOpset: 17},
	"Or":                        {Pipert: "Or", MinOpset: 7, MaxOpset: 17},
	"Xor":                       {Pipert: "Xor", MinOpset: 7, MaxOpset: 17},
	"Not":                       {Pipert: "Not", MinOpset: 1, MaxOpset: 17},
	"Where":                     {Pipert: "Where", MinOpset: 9, MaxOpset: 17},
	"Pow":                       {Pipert: "Pow", MinOpset: 7, MaxOpset: 17},
	"Max":                       {Pipert: "Max", MinOpset: 8, MaxOpset: 17},
	"Min":                       {Pipert: "Min", MinOpset: 8, MaxOpset: 17},
	"Sum":                       {Pipert: "Sum", MinOpset: 8, MaxOpset: 17},
	"Mean":                      {Pipert: "Mean", MinOpset: 8, MaxOpset: 17},
	"Clip":                      {Pipert: "Clip", MinOpset: 7, MaxOpset: 17, Note: "min and max as attributes before 11, as inputs from 11"},
	"Expand":                    {Pipert: "Expand", MinOpset: 8, MaxOpset: 17},
	"ConstantOfShape":           {Pipert: "ConstantOfShape", MinOpset: 9, MaxOpset: 17},
	"Size":                      {Pipert: "Size", MinOpset: 7, MaxOpset: 17},
	"Pad":                       {Pipert: "Pad", MinOpset: 7, MaxOpset: 17, Note: "pads and value as attributes before 11, as inputs from 11; constant, reflect and edge"},
	"Conv":                      {Pipert: "Conv", MinOpset: 7, MaxOpset: 17, Note: "1 to 3 spatial dimensions; float16 computed in float32"},
	"ConvTranspose":             {Pipert: "ConvTranspose", MinOpset: 7, MaxOpset: 17, Note: "1 to 3 spatial dimensions; float16 computed in float32"},
	"AveragePool":               {Pipert: "AveragePool", MinOpset: 7, MaxOpset: 17, Note: "1 to 3 spatial dimensions"},
	"MaxPool":                   {Pipert: "MaxPool", MinOpset: 8, MaxOpset: 17, Note: "1 to 3 spatial dimensions; Indices output"},
	"GlobalAveragePool":         {Pipert: "GlobalAveragePool", MinOpset: 1, MaxOpset: 17},
	"GlobalMaxPool":             {Pipert: "GlobalMaxPool", MinOpset: 1, MaxOpset: 17},
	"BatchNormalization":        {Pipert: "BatchNormalization", MinOpset: 7, MaxOpset: 17, Note: "inference mode; training_mode is refused"},
	"Resize":                    {Pipert: "Resize", MinOpset: 10, MaxOpset: 17, Note: "nearest, linear and cubic over any axes; every coordinate_transformation_mode"},
	"Upsample":                  {Pipert: "Upsample", MinOpset: 7, MaxOpset: 9, Note: "scales as attribute at 7, as input at 9"},
	"LSTM":                      {Pipert: "LSTM", MinOpset: 7, MaxOpset: 17, Note: "every direction, layout, activation, clip, peepholes and sequence_lens"},
	"ReduceMean":                {Pipert: "ReduceMean", MinOpset: 7, MaxOpset: 17},
	"ReduceMax":                 {Pipert: "ReduceMax", MinOpset: 7, MaxOpset: 17},
	"ReduceMin":                 {Pipert: "ReduceMin", MinOpset: 7, MaxOpset: 17},
	"ReduceProd":                {Pipert: "ReduceProd", MinOpset: 7, MaxOpset: 17},
	"ReduceSumSquare":           {Pipert: "ReduceSumSquare", MinOpset: 7, MaxOpset: 17},
	"ReduceL1":                  {Pipert: "ReduceL1", MinOpset: 7, MaxOpset: 17},
	"ReduceL2":                  {Pipert: "ReduceL2", MinOpset: 7, MaxOpset: 17},
	"ReduceLogSum":              {Pipert: "ReduceLogSum", MinOpset: 1, MaxOpset: 17},
	"ReduceLogSumExp":           {Pipert: "ReduceLogSumExp", MinOpset: 7, MaxOpset: 17},
	"Gemm":                      {Pipert: "Gemm", MinOpset: 7, MaxOpset: 17, Note: "C optional from 11; float16 computed in float32"},
	"TopK":                      {Pipert: "TopK", MinOpset: 7, MaxOpset: 17, Note: "k as attribute before 10, K as input from 10; largest and sorted from 11"},
	"Sign":                      {Pipert: "Sign", MinOpset: 9, MaxOpset: 17},
	"LeakyRelu":                 {Pipert: "LeakyRelu", MinOpset: 6, MaxOpset: 17},
	"Elu":                       {Pipert: "Elu", MinOpset: 6, MaxOpset: 17},
	"Celu":                      {Pipert: "Celu", MinOpset: 12, MaxOpset: 17},
	"Selu":                      {Pipert: "Selu", MinOpset: 6, MaxOpset: 17},
	"ThresholdedRelu":           {Pipert: "ThresholdedRelu", MinOpset: 10, MaxOpset: 17},
	"Shrink":                    {Pipert: "Shrink", MinOpset: 9, MaxOpset: 17},
	"Softsign":                  {Pipert: "Softsign", MinOpset: 1, MaxOpset: 17},
	"Sin":                       {Pipert: "Sin", MinOpset: 7, MaxOpset: 17},
	"Cos":                       {Pipert: "Cos", MinOpset: 7, MaxOpset: 17},
	"Tan":                       {Pipert: "Tan", MinOpset: 7, MaxOpset: 17},
	"Asin":                      {Pipert: "Asin", MinOpset: 7, MaxOpset: 17},
	"Acos":                      {Pipert: "Acos", MinOpset: 7, MaxOpset: 17},
	"Atan":                      {Pipert: "Atan", MinOpset: 7, MaxOpset: 17},
	"Sinh":                      {Pipert: "Sinh", MinOpset: 9, MaxOpset: 17},
	"Cosh":                      {Pipert: "Cosh", MinOpset: 9, MaxOpset: 17},
	"Asinh":                     {Pipert: "Asinh", MinOpset: 9, MaxOpset: 17},
	"Acosh":                     {Pipert: "Acosh", MinOpset: 9, MaxOpset: 17},
	"Atanh":                     {Pipert: "Atanh", MinOpset: 9, MaxOpset: 17},
	"Round":                     {Pipert: "Round", MinOpset: 11, MaxOpset: 17},
	"Dropout":                   {Pipert: "Dropout", MinOpset: 7, MaxOpset: 17},
	"IsNaN":                     {Pipert: "IsNaN", MinOpset: 9, MaxOpset: 17},
	"IsInf":                     {Pipert: "IsInf", MinOpset: 10, MaxOpset: 17},
	"PRelu":                     {Pipert: "PRelu", MinOpset: 7, MaxOpset: 17},
	"Mod":                       {Pipert: "Mod", MinOpset: 10, MaxOpset: 17},
	"BitShift":                  {Pipert: "BitShift", MinOpset: 11, MaxOpset: 17, Note: "uint8 only: pipert has no uint16, uint32 or uint64"},
	"Tile":                      {Pipert: "Tile", MinOpset: 7, MaxOpset: 17},
	"Range":                     {Pipert: "Range", MinOpset: 11, MaxOpset: 17},
	"ArgMax":                    {Pipert: "ArgMax", MinOpset: 7, MaxOpset: 17},
	"ArgMin":                    {Pipert: "ArgMin", MinOpset: 7, MaxOpset: 17},
	"CumSum":                    {Pipert: "CumSum", MinOpset: 11, MaxOpset: 17},
	"GatherElements":            {Pipert: "GatherElements", MinOpset: 11, MaxOpset: 17},
	"DepthToSpace":              {Pipert: "DepthToSpace", MinOpset: 7, MaxOpset: 17},
	"SpaceToDepth":              {Pipert: "SpaceToDepth", MinOpset: 7, MaxOpset: 17},
	"InstanceNormalization":     {Pipert: "InstanceNormalization", MinOpset: 6, MaxOpset: 17},
	"LayerNormalization":        {Pipert: "LayerNormalization", MinOpset: 17, MaxOpset: 17},
	"Split":                     {Pipert: "Split", MinOpset: 7, MaxOpset: 17, Note: "split as attribute before 13, as input from 13"},
	"GRU":                       {Pipert: "GRU", MinOpset: 7, MaxOpset: 17, Note: "every direction, layout, activation, clip, linear_before_reset and sequence_lens"},
	"RNN":                       {Pipert: "RNN", MinOpset: 7, MaxOpset: 17, Note: "every direction, layout, activation, clip and sequence_lens"},
	"Trilu":                     {Pipert: "Trilu", MinOpset: 14, MaxOpset: 17},
	"ScatterND":                 {Pipert: "ScatterND", MinOpset: 11, MaxOpset: 17},
	"ScatterElements":           {Pipert: "ScatterElements", MinOpset: 11, MaxOpset: 17},
	"Scatter":                   {Pipert: "Scatter", MinOpset: 9, MaxOpset: 10},
	"OneHot":                    {Pipert: "OneHot", MinOpset: 9, MaxOpset: 17},
	"CastLike":                  {Pipert: "CastLike", MinOpset: 15, MaxOpset: 17},
	"Einsum":                    {Pipert: "Einsum", MinOpset: 12, MaxOpset: 17},
	"Hardmax":                   {Pipert: "Hardmax", MinOpset: 7, MaxOpset: 17},
	"QuantizeLinear":            {Pipert: "QuantizeLinear", MinOpset: 10, MaxOpset: 17},
	"DequantizeLinear":          {Pipert: "DequantizeLinear", MinOpset: 10, MaxOpset: 17},
	"GatherND":                  {Pipert: "GatherND", MinOpset: 11, MaxOpset: 17},
	"EyeLike":                   {Pipert: "EyeLike", MinOpset: 9, MaxOpset: 17},
	"LRN":                       {Pipert: "LRN", MinOpset: 7, MaxOpset: 17},
	"MeanVarianceNormalization": {Pipert: "MeanVarianceNormalization", MinOpset: 9, MaxOpset: 17},
	"ReverseSequence":           {Pipert: "ReverseSequence", MinOpset: 10, MaxOpset: 17},
	"Compress":                  {Pipert: "Compress", MinOpset: 9, MaxOpset: 17},
	"Constant":                  {MinOpset: 1, MaxOpset: 17, Note: "folded into a graph constant"},
	"Identity":                  {MinOpset: 1, MaxOpset: 17, Note: "folded: its output names its input"},
	"NonMaxSuppression":         {Pipert: "NonMaxSuppression", MinOpset: 10, MaxOpset: 17},
	"Det":                       {Pipert: "Det", MinOpset: 11, MaxOpset: 17},
	"HannWindow":                {Pipert: "HannWindow", MinOpset: 17, MaxOpset: 17},
	"HammingWindow":             {Pipert: "HammingWindow", MinOpset: 17, MaxOpset: 17},
	"BlackmanWindow":            {Pipert: "BlackmanWindow", MinOpset: 17, MaxOpset: 17},
	"MelWeightMatrix":           {Pipert: "MelWeightMatrix", MinOpset: 17, MaxOpset: 17},
	"DFT":                       {Pipert: "DFT", MinOpset: 17, MaxOpset: 17},
	"STFT":                      {Pipert: "STFT", MinOpset: 17, MaxOpset: 17},
	"DynamicQuantizeLinear":     {Pipert: "DynamicQuantizeLinear", MinOpset: 11, MaxOpset: 17},
	"MatMulInteger":             {Pipert: "MatMulInteger", MinOpset: 10, MaxOpset: 17},
	"QLinearMatMul":             {Pipert: "QLinearMatMul", MinOpset: 10, MaxOpset: 17},
	"ConvInteger":               {Pipert: "ConvInteger", MinOpset: 10, MaxOpset: 17, Note: "1 to 3 spatial dimensions"},
	"QLinearConv":               {Pipert: "QLinearConv", MinOpset: 10, MaxOpset: 17, Note: "1 to 3 spatial dimensions; weight scales and zero points per tensor or per output channel"},
	"NegativeLogLikelihoodLoss": {Pipert: "NegativeLogLikelihoodLoss", MinOpset: 12, MaxOpset: 17},
	"SoftmaxCrossEntropyLoss":   {Pipert: "SoftmaxCrossEntropyLoss", MinOpset: 12, MaxOpset: 17, Note: "log_prob is the optional second output"},
	"GridSample":                {Pipert: "GridSample", MinOpset: 16, MaxOpset: 17, Note: "4-D; every mode and padding_mode"},
	"RoiAlign":                  {Pipert: "RoiAlign", MinOpset: 10, MaxOpset: 17, Note: "avg and max; coordinate_transformation_mode from 16"},
	"MaxUnpool":                 {Pipert: "MaxUnpool", MinOpset: 9, MaxOpset: 17, Note: "output_shape input from 11"},
	"Loop":                      {Pipert: "Loop", MinOpset: 11, MaxOpset: 17, Note: "tensor values (no sequences); runs its body on the host, on real data (package control)"},
	"Unique":                    {Pipert: "Unique", MinOpset: 11, MaxOpset: 17, Note: "every output, sorted and axis; compute dependent"},
	"Scan":                      {Pipert: "Scan", MinOpset: 8, MaxOpset: 17, Note: "every axis and direction; opset 8's batch axis and sequence_lens (a short sequence's scan outputs end in zeros); runs its body on the host, on real data (package control)"},
	"If":                        {Pipert: "If", MinOpset: 7, MaxOpset: 17, Note: "inlined when the condition folds; else a runtime If (package control)"},
}

func init() {
	for name, info := range table {
		info.ONNX = name
		table[name] = info
	}
}

// Ops lists the ONNX ops the importer takes, by name.
func Ops() []OpInfo {
	out := make([]OpInfo, 0, len(table))
	for _, info := range table {
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ONNX < out[j].ONNX })
	return out
}

// lookup returns the mapping of op at opset, or an error naming what is
// missing.
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
