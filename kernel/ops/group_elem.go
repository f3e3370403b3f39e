package ops

// elemOps are the element-wise, comparison, casting and data-movement ops of ONNX.
var elemOps = append(append(append(append(append(mathBuiltins(), logicBuiltins()...), miscBuiltins()...), moreBuiltins()...), extraBuiltins()...),
	builtin{"Clip", newClip},
	builtin{"Expand", newExpand},
	builtin{"ConstantOfShape", newConstantOfShape},
	builtin{"Size", newSize},
	builtin{"Pad", newPad},
	builtin{"Identity", newIdentity},
	builtin{"Flatten", newFlatten},
	builtin{"Squeeze", newAxesView("Squeeze")},
	builtin{"Unsqueeze", newAxesView("Unsqueeze")},
)
