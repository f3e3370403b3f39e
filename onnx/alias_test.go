package onnx

import (
	"errors"
	"testing"
)

// TestDefaultDomainAlias: a Model built by hand may name the default domain
// "ai.onnx", as the format allows; its opset is the default domain's.
func TestDefaultDomainAlias(t *testing.T) {
	m := model([]*Node{{Name: "n", OpType: "Neg", Inputs: []string{"x"}, Outputs: []string{"y"}}},
		[]*ValueInfo{vi("x", Float, 2)}, []*ValueInfo{{Name: "y"}})
	m.Opsets = map[string]int64{"ai.onnx": 7}
	if _, err := Import(m, Options{}); err != nil {
		t.Errorf("opset imported as ai.onnx: %v", err)
	}
	f := &Function{Name: "f", Domain: "local", Opsets: map[string]int64{"ai.onnx": 99}, Inputs: []string{"a"}, Outputs: []string{"b"},
		Nodes: []*Node{{OpType: "Neg", Inputs: []string{"a"}, Outputs: []string{"b"}}}}
	m = model([]*Node{{Name: "call", OpType: "f", Domain: "local", Inputs: []string{"x"}, Outputs: []string{"y"}}},
		[]*ValueInfo{vi("x", Float, 2)}, []*ValueInfo{{Name: "y"}})
	m.Opsets["local"] = 1
	m.Functions = []*Function{f}
	if _, err := Import(m, Options{}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("a function importing ai.onnx opset 99: %v, want ErrUnsupported", err)
	}
}
