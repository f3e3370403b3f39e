package onnx_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/onnx"
)

// TestAttentionCausalScores runs Attention with qk_matmul_output_mode 2
// and is_causal (testdata/attn_causal_scores, built by gen.js from
// cases_qkmode2.js) against onnxruntime's outputs: the scores after
// softcap and bias, with causal masks of self and cross attention, a
// cache, a float and a bool mask and 3-D grouped heads. Where a mask
// masks, ONNX's text and its reference give qk_matmul_output −∞;
// onnxruntime 1.30 writes the lowest float32 instead, which is read as
// −∞ here.
func TestAttentionCausalScores(t *testing.T) {
	runFixtureFilesAs(t, filepath.Join("testdata", "attn_causal_scores"), "*", 1e-5, func(c *onnx.Case) {
		qk := c.Outputs["qk"]
		if qk == nil || qk.DType != kernel.Float32 {
			t.Fatalf("%s: want a float32 output qk", c.Name)
		}
		v := kernel.Float32s(qk.Host)
		for i := range v {
			if v[i] == -math.MaxFloat32 {
				v[i] = float32(math.Inf(-1))
			}
		}
	})
}
