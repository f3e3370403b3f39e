package ops

// seqOps are the recurrent, reduction, TopK and softmax ops of ONNX.
var seqOps = append(reductionBuiltins(),
	builtin{"LSTM", newRecurrent("LSTM")},
	builtin{"GRU", newRecurrent("GRU")},
	builtin{"RNN", newRecurrent("RNN")},
	builtin{"TopK", newTopK},
)
