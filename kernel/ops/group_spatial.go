package ops

// spatialOps are the convolution, pooling, normalisation, resizing, padding and GEMM ops of ONNX.
var spatialOps = []builtin{}
