package ops

// seqOps are the recurrent, reduction, TopK and softmax ops of ONNX.
var seqOps = append(reductionBuiltins(),
	builtin{"LSTM", newLSTM},
	builtin{"TopK", newTopK},
)
