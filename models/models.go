// Package models embeds the real ONNX models pipert is tested on and
// pipebench's model scenarios run, with onnxruntime's reference outputs
// (see README.md in this directory: provenance, licenses, what each graph
// holds and how the goldens were made).
//
//   - PPOCRv4Det: the PP-OCRv4 text detector (paddle2onnx, opset 11).
//   - SileroVAD: the Silero voice activity detector v5 (opset 16, nested
//     Ifs, LSTM, streaming state).
//
// The byte slices are the files' contents; callers must not modify them.
package models

import _ "embed"

// The models and their golden files (package onnx reads the goldens with
// DecodeGolden).
var (
	//go:embed ppocrv4-det.onnx
	PPOCRv4Det []byte
	//go:embed ppocrv4-det.golden.json
	PPOCRv4DetGolden []byte
	//go:embed silero-vad-v5.onnx
	SileroVAD []byte
	//go:embed silero-vad-v5.golden.json
	SileroVADGolden []byte
)
