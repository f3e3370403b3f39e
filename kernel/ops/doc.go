// Package ops is pipert's built-in op library: the kernels a graph node names
// by op type (Add, MatMul, Softmax, Reshape, Unique, ...), each implementing
// the kernel.Kernel life cycle with real shape inference, real tiling data,
// an honest device cost, and a real computation that runs on materialized
// data at launch.
//
// Dependency rule: ops imports kernel, device and the standard library only.
//
// # Using it
//
// Builtins returns the process-wide, read-only registry of every built-in op
// (a kernel.Resolver); NewRegistry returns a registry holding them to which
// ops of one's own can be added:
//
//	k, err := ops.Builtins().New("Softmax", kernel.Attrs{"axis": int64(-1)})
//
//	r := ops.NewRegistry()
//	err := r.Register("MyOp", newMyOp)
//
// # Ops
//
//	Add Sub Mul Div               elementwise, numpy broadcasting (arith.go)
//	ReLU GELU                     activations (unary.go)
//	Cast                          dtype conversion (cast.go)
//	MatMul BatchMatMul            matrix products (matmul.go)
//	Softmax LogSoftmax            row normalization (softmax.go)
//	LayerNorm                     layer normalization (layernorm.go)
//	ReduceSum                     sum over axes (reduce.go)
//	Transpose Slice               strided copies (transpose.go, slice.go)
//	Concat Gather                 joins and lookups (concat.go, gather.go)
//	Shape Reshape                 shape ops (shape.go, reshape.go)
//	Unique NonZero                compute dependent (unique.go, nonzero.go)
//	BiasGelu FastGelu QuickGelu   onnxruntime's contrib ops: GELUs,
//	SkipLayerNormalization ...    normalizations, FusedMatMul,
//	MSRotaryEmbedding             rotary embedding (contrib.go)
//	MatMulNBits                   blockwise 4- and 8-bit quantized
//	                              MatMul (contrib_nbits.go)
//	GroupQueryAttention           attention of LLM decoders
//	                              (contrib_attn.go)
//	MSAttention                   com.microsoft Attention: BERT
//	                              self-attention (contrib_mha.go)
//	QAttention                    its quantized form (contrib_qattn.go)
//	MultiHeadAttention            attention of encoder-decoder
//	                              exports (contrib_mha.go)
//	CausalConvWithState           ONNX opset 27: the fused steps of
//	LinearAttention               Gated DeltaNet layers (opset27.go)
//	TreeEnsembleRegressor         ai.onnx.ml: tree ensembles (ml_tree.go,
//	TreeEnsembleClassifier        the post transforms in ml_post.go),
//	LinearClassifier ...          linear models (ml_linear.go), feature
//	Scaler Normalizer ...         preprocessing (ml_prep.go), LabelEncoder
//	                              (ml_label.go)
//
// Each op's file documents its semantics, its tiling layout, its workspace
// and its cost.
//
// # The modeled device
//
// Resize computes the tiling data a kernel of a core-array accelerator would
// receive: the work is split over 32 cores, each with 256 KiB of local
// memory, and element tiles are multiples of 64 elements so that vector loads
// stay aligned. Tiling data is a sequence of little-endian 64-bit words
// (signed values in two's complement). Many layouts start with the same
// five-word element split:
//
//	total        elements of the output
//	tileLen      elements per tile: a multiple of 64, small enough that the
//	             op's double-buffered operand tiles fit local memory, and no
//	             larger than an even share of total rounded up to 64, so that
//	             the work spreads over the cores
//	tiles        ceil(total / tileLen)
//	cores        cores used: min(tiles, 32)
//	tilesPerCore ceil(tiles / cores)
//
// Compute, the host-side computation of the device kernel, reads its loop
// bounds and strides from the tiling data and checks them against the
// operands, so inconsistent tiling data is an error, never a panic. Resize
// writes the tiling data over the memory of the Tiling.Data it is handed
// (Data[:0], growing it only when it is too short), so a steady-state
// Resize allocates nothing: a caller that keeps the tiling data of one call
// copies it before the next call on the same Tiling.
//
// # Determinism
//
// Every computation has a fixed evaluation order (sums run in ascending index
// order, products are rounded before they are accumulated, so no fused
// multiply-add changes results) and gives bit-identical results run after
// run. Float16 and bfloat16 operands are widened to float32, computed on,
// and rounded to nearest even on store, as onnxruntime's float16 kernels
// accumulate in float32. The products and convolutions (MatMul, Gemm, Conv,
// ConvTranspose) and the recurrent cells (LSTM, GRU, RNN) compute float64
// operands in float64, as ONNX and onnxruntime do: Gemm, the convolutions
// and the cells share one generic implementation over float32 | float64
// (conv.go's mmAxpy, lstm.go), whose products are rounded by round.go's
// explicit conversions, so that float32 results keep their bits.
//
// # Long computations
//
// The kernels whose Compute can run long on legal inputs stop when their
// run ends (kernel.Args.Ctx), returning its error: MatMul between blocks
// of rows (a few million multiply-adds each), Gemm, Conv and
// ConvTranspose every 16 rows of a block of their matrix products,
// LSTM, GRU and RNN at every step of a sequence, Attention at every head,
// Einsum every 2^20 terms, and CausalConvWithState and LinearAttention
// about every 2^18 (between rows and between tokens). The blocks do not change
// the order of any sum: results keep their bits.
//
// # Shapes
//
// InferShape writes out[i].Shape in place when its capacity suffices; a
// caller that keeps a previous output shape must Clone it. Scalars (rank 0)
// and zero-size dimensions are accepted wherever the op's semantics allow.
//
// # Value and compute dependencies
//
// Reshape (input 1), ReduceSum without an axes attribute (input 1) and Slice
// without attributes (inputs 1 to 4) read integer inputs in InferShape: their
// Deps().Value lists those indices; an index at or beyond the node's input
// count names an optional input the node omitted. InferShape reads the values
// from Tensor.Host, falling back to the device contents.
//
// Unique and NonZero are compute dependent: InferShape reports an upper bound
// and OutputShapes the real shape. On virtual inputs their output size is
// drawn from Args.Seed (unique.go and nonzero.go document the models), so that
// benchmarks at real model sizes see varying but reproducible shapes.
package ops
