// Package onnx reads ONNX models and imports them as pipert graphs.
//
// The reader (Parse, Read, ReadFile) decodes ModelProto, GraphProto,
// NodeProto, FunctionProto, AttributeProto (every attribute type),
// TensorProto (raw and typed data) and ValueInfoProto with google.golang.org/protobuf/encoding/
// protowire, without generated code. Tensor data alias the bytes read;
// lengths are checked against the input, so malformed or truncated input
// is an error wrapping ErrFormat, never a panic or an unbounded
// allocation (FuzzParse). ReadFile also reads external data (tensors
// kept in files beside the model, as exporters save large models) from
// the model's directory, each tensor's range only; Parse and Read, which know no directory, leave
// such tensors external, and importing one is an error saying so.
//
// The importer (Import, ImportFile, ImportReader) maps ONNX ops onto
// pipert ops through the table Ops lists, with the opsets each mapping
// covers: the ops of the default domain, and onnxruntime's contrib ops of
// domain com.microsoft (MSDomain) that optimized transformer models
// contain, and ops of domain ai.onnx.ml (MLDomain) that converted
// scikit-learn, LightGBM and XGBoost models contain, computed as
// onnxruntime's CPU kernels compute them (a node's
// domain selects the op; another domain is unsupported); it folds Constant nodes and initializers into graph constants,
// Identity into a second name, every node whose inputs are known at
// import into a constant (Shape of a statically shaped tensor, arithmetic
// on shape constants), and an If whose condition folds into the nodes of
// the branch it takes; it inlines calls of the model's local functions,
// and resolves sequences of tensors whose positions, splits and counts
// are constants of the model, and optional values, into the tensor ops
// they stand for (sequence.go). Input dimensions and values can be fixed at import
// (Options.Shapes, Options.Values) so that more folds. A runtime If stays
// an If node of package control, its branches subgraphs. An op, opset,
// attribute or dtype pipert does not implement is an error wrapping
// ErrUnsupported that names the node, op and opset; an invalid graph (a
// tensor used but never defined, defined twice, an If whose branches
// disagree) wraps ErrImport. pipert has no string tensors: a string
// tensor a node reads, or a string graph input or output, is
// ErrUnsupported, and string initializers and Constants that nothing reads
// are dropped. The import never yields a silently different graph.
//
// The ONNX backend node tests of Debian's libonnx-testdata run in
// TestBackendNodeTests; testdata/expected_failures.txt lists, with
// reasons, those pipert fails. With PIPERT_ONNX_NODE_TESTS naming a copy
// of a later suite (ONNX's repository at the last commit that holds it),
// the same test runs that one against
// testdata/expected_failures_onnx_main.txt. docs/ONNX_OPS.md is generated
// from Ops.
//
// Dependency rule: onnx imports control, subgraph, kernel and kernel/ops.
package onnx
