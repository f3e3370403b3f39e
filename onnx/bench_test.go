package onnx

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// BenchmarkImport imports each real model from a bytes.Reader, inputs fixed
// as the scenarios fix them. B/op is to be read against the file size:
// tensor data aliases the input buffer.
func BenchmarkImport(b *testing.B) {
	sr := kernel.New(kernel.Int64)
	kernel.Int64s(sr.Host)[0] = 16000
	for _, tc := range []struct {
		name string
		opt  Options
	}{
		{"ppocrv4-det", Options{Shapes: map[string][]int64{"x": {1, 3, 96, 96}}}},
		{"silero-vad-v5", Options{Shapes: map[string][]int64{"input": {1, 512}, "state": {2, 1, 128}}, Values: map[string]*kernel.Tensor{"sr": sr}}},
	} {
		data, err := os.ReadFile(filepath.Join("..", "models", tc.name+".onnx"))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.ReportMetric(float64(len(data)), "file-bytes")
			for b.Loop() {
				if _, err := ImportReader(bytes.NewReader(data), tc.opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
