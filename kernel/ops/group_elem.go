package ops

// elemOps are the element-wise, comparison, casting and data-movement ops of ONNX.
var elemOps = append(mathBuiltins(),
	builtin{"Flatten", newFlatten},
	builtin{"Squeeze", newAxesView("Squeeze")},
	builtin{"Unsqueeze", newAxesView("Unsqueeze")},
)
