package ops

// elemOps are the element-wise, comparison, casting and data-movement ops of ONNX.
var elemOps = mathBuiltins()
