package onnx

import (
	"errors"
	"strings"
	"testing"
)

// TestUnusedStringTensors: a string initializer or string Constant that
// nothing reads is dropped at import (pipert has no string tensors); one
// that a node reads, or that is a graph output, still fails the import,
// naming it.
func TestUnusedStringTensors(t *testing.T) {
	str := func(name string) *Tensor {
		return &Tensor{Name: name, Dims: []int64{2}, DataType: String, Strings: [][]byte{[]byte("a"), []byte("b")}}
	}
	relu := &Node{OpType: "Relu", Inputs: []string{"x"}, Outputs: []string{"y"}}
	constant := func(attr *Attribute) *Node {
		return &Node{OpType: "Constant", Outputs: []string{"s"}, Attrs: []*Attribute{attr}}
	}
	for _, tc := range []struct {
		name  string
		m     *Model
		fails string // "" when the import succeeds
	}{
		{"unused initializer", withInits(model([]*Node{relu}, []*ValueInfo{vi("x", Float, 2)}, []*ValueInfo{vi("y", Float, 2)}), str("vocab")), ""},
		{"unused value_strings", model([]*Node{constant(&Attribute{Name: "value_strings", Type: AttrStrings, Strings: [][]byte{[]byte("a")}}), relu}, []*ValueInfo{vi("x", Float, 2)}, []*ValueInfo{vi("y", Float, 2)}), ""},
		{"unused string value", model([]*Node{constant(&Attribute{Name: "value", Type: AttrTensor, T: str("")}), relu}, []*ValueInfo{vi("x", Float, 2)}, []*ValueInfo{vi("y", Float, 2)}), ""},
		{"read initializer", withInits(model([]*Node{{OpType: "Shape", Inputs: []string{"vocab"}, Outputs: []string{"y"}}}, nil, []*ValueInfo{vi("y", Int64, 1)}), str("vocab")), `"vocab"`},
		{"initializer output", withInits(model([]*Node{relu}, []*ValueInfo{vi("x", Float, 2)}, []*ValueInfo{vi("y", Float, 2), vi("vocab", String, 2)}), str("vocab")), "vocab"},
		{"read constant", model([]*Node{constant(&Attribute{Name: "value_strings", Type: AttrStrings, Strings: [][]byte{[]byte("a")}}), {OpType: "Shape", Inputs: []string{"s"}, Outputs: []string{"y"}}}, nil, []*ValueInfo{vi("y", Int64, 1)}), "value_strings"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := Import(tc.m, Options{})
			switch {
			case tc.fails == "" && err != nil:
				t.Fatalf("import: %v", err)
			case tc.fails == "" && len(g.Consts) != 0:
				t.Errorf("constants %v kept", g.Consts)
			case tc.fails != "" && (!errors.Is(err, ErrUnsupported) && !errors.Is(err, ErrImport) || !strings.Contains(err.Error(), tc.fails)):
				t.Errorf("import: %v, want an error naming %s", err, tc.fails)
			}
		})
	}
}

func withInits(m *Model, ts ...*Tensor) *Model {
	m.Graph.Initializers = append(m.Graph.Initializers, ts...)
	return m
}
