package ops

// spatialOps are the convolution, pooling, normalisation, resizing, padding and GEMM ops of ONNX.
var spatialOps = []builtin{
	{"Conv", newConv(false)},
	{"ConvTranspose", newConv(true)},
	{"AveragePool", newPool("AveragePool")},
	{"MaxPool", newPool("MaxPool")},
	{"GlobalAveragePool", newPool("GlobalAveragePool")},
	{"GlobalMaxPool", newPool("GlobalMaxPool")},
	{"BatchNormalization", newBatchNorm},
	{"Resize", newResize("Resize")},
	{"Upsample", newResize("Upsample")},
	{"Gemm", newGemm},
}
