package onnx_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/onnx"
)

// TestOpset27Ops imports one-node models of the ops new in opset 27,
// with an optional input omitted before a given one, and checks their
// outputs against values worked out by hand from the operators' text, in
// KBK and in Pipeline mode bit-identical to KBK; at opset 26 the same
// models are refused.
func TestOpset27Ops(t *testing.T) {
	for _, tc := range []struct {
		name string
		node *onnx.Node
		in   map[string][]int64
		vals map[string][]float32
		want map[string][]float32
	}{
		{
			// Channel 0 convolves [10, 1, 2, 3] with [1, −1], channel 1
			// [20, 4, 5, 6] with [0.5, 2]; the state is each channel's last
			// input.
			"CausalConvWithState",
			&onnx.Node{Name: "conv", OpType: "CausalConvWithState", Inputs: []string{"x", "w", "", "past"}, Outputs: []string{"y", "state"}},
			map[string][]int64{"x": {1, 2, 3}, "w": {2, 1, 2}, "past": {1, 2, 1}},
			map[string][]float32{"x": {1, 2, 3, 4, 5, 6}, "w": {1, -1, 0.5, 2}, "past": {10, 20}},
			map[string][]float32{"y": {9, -1, -1, 18, 12, 14.5}, "state": {3, 6}},
		},
		{
			// Two query heads share one key/value head (d_k = d_v = 1),
			// decay 0 keeps the state: S = 1·3 = 3, then 3 + 2·4 = 11;
			// the outputs are q·S (scale 1).
			"LinearAttention",
			&onnx.Node{Name: "la", OpType: "LinearAttention", Inputs: []string{"q", "k", "v", "", "decay"}, Outputs: []string{"y", "state"},
				Attrs: []*onnx.Attribute{attrS("update_rule", "gated"), attrI("q_num_heads", 2), attrI("kv_num_heads", 1), attrF("scale", 1)}},
			map[string][]int64{"q": {1, 2, 2}, "k": {1, 2, 1}, "v": {1, 2, 1}, "decay": {1, 2, 1}},
			map[string][]float32{"q": {1, 2, 3, 4}, "k": {1, 2}, "v": {3, 4}, "decay": {0, 0}},
			map[string][]float32{"y": {3, 6, 33, 44}, "state": {11}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := legacyModel(27, []*onnx.Node{tc.node}, tc.in, nil, "y", "state")
			m.IRVersion = 13
			g, err := onnx.Import(m, onnx.Options{})
			if err != nil {
				t.Fatal(err)
			}
			in := map[string]*kernel.Tensor{}
			for name, shape := range tc.in {
				in[name] = f32Tensor(shape, tc.vals[name])
			}
			res, err := runIn(g, in, pipert.KBK)
			if err != nil {
				t.Fatal(err)
			}
			piped, err := runIn(g, in, pipert.Pipeline)
			if err != nil {
				t.Fatal(err)
			}
			for name, want := range tc.want {
				got := res.Outputs[name]
				if got == nil || got.DType != kernel.Float32 || !slices.Equal(kernel.Float32s(got.Host), want) {
					t.Errorf("%s: got %v, want %v", name, got, want)
				} else if p := piped.Outputs[name]; p == nil || !got.Shape.Equal(p.Shape) || string(p.Host) != string(got.Host) {
					t.Errorf("%s: Pipeline's %v differs from KBK's %v", name, p, got)
				}
			}
			m.Opsets[""] = 26
			if _, err := onnx.Import(m, onnx.Options{}); !errors.Is(err, onnx.ErrUnsupported) {
				t.Errorf("opset 26: %v, want ErrUnsupported", err)
			}
		})
	}
}
