package subgraph_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

// contractKernel is a one-input identity whose Arity and Deps a test
// chooses, panics included.
type contractKernel struct {
	maxIn      int
	value      []int
	panicArity bool
	panicDeps  bool
}

func (k *contractKernel) Op() string { return "U" }
func (k *contractKernel) Arity() (int, int, int) {
	if k.panicArity {
		panic("arity")
	}
	return 1, k.maxIn, 1
}
func (k *contractKernel) Deps() kernel.Deps {
	if k.panicDeps {
		panic("deps")
	}
	return kernel.Deps{Value: k.value}
}
func (k *contractKernel) InferShape(in, out []*kernel.Tensor) error {
	out[0].DType, out[0].Shape = in[0].DType, in[0].Shape.Clone()
	return nil
}
func (k *contractKernel) Resize(in, out []*kernel.Tensor, t *kernel.Tiling) error { return nil }
func (k *contractKernel) Cost(in, out []*kernel.Tensor) device.Cost               { return device.Cost{} }
func (k *contractKernel) Compute(a *kernel.Args) error                            { return nil }

// TestKernelContract: a kernel whose Arity or Deps panics, whose Arity is
// no range, or whose Deps.Value names an input its op cannot have, fails validation with
// ErrBadNode naming the node; never a panic. Deps.Value may name an
// optional input the node omits.
func TestKernelContract(t *testing.T) {
	for _, tc := range []struct {
		name string
		k    contractKernel
		want string // "" when valid
	}{
		{"arity panics", contractKernel{maxIn: 1, panicArity: true}, "Arity or Deps: panic in user code: arity"},
		{"deps panics", contractKernel{maxIn: 1, panicDeps: true}, "Arity or Deps: panic in user code: deps"},
		{"negative value input", contractKernel{maxIn: 1, value: []int{-1}}, "input -1"},
		{"value input past the arity", contractKernel{maxIn: 1, value: []int{7}}, "input 7"},
		{"omitted optional value input", contractKernel{maxIn: 2, value: []int{1}}, ""},
		{"variadic value input", contractKernel{maxIn: -1, value: []int{3}}, ""},
		{"arity below -1", contractKernel{maxIn: -2}, "Arity is 1 to -2 inputs"},
		{"arity of fewer inputs than its least", contractKernel{maxIn: 0}, "Arity is 1 to 0 inputs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ops.NewRegistry()
			k := tc.k
			if err := r.Register("U", func(kernel.Attrs) (kernel.Kernel, error) { return &k, nil }); err != nil {
				t.Fatal(err)
			}
			b := subgraph.NewBuilder("g")
			b.Output(b.Op("U", b.Input("x", kernel.Float32, 2)))
			_, err := subgraph.Validate(b.Graph(), r)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("valid kernel refused: %v", err)
				}
				return
			}
			var se *subgraph.Error
			if !errors.Is(err, subgraph.ErrBadNode) || !errors.As(err, &se) || se.Node == "" || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want ErrBadNode naming the node and %q", err, tc.want)
			}
			if panics := tc.k.panicArity || tc.k.panicDeps; panics != errors.Is(err, kernel.ErrPanic) {
				t.Fatalf("got %v: errors.Is(err, kernel.ErrPanic) = %v", err, !panics)
			}
		})
	}
}

// TestPlacementLabel: a label outside Unplaced, OnDevice and OnCPU, or an
// opset attribute that is not an opset, is ErrBadNode.
func TestPlacementLabel(t *testing.T) {
	b := subgraph.NewBuilder("g")
	b.Output(b.Op("ReLU", b.Input("x", kernel.Float32, 2)))
	g := b.Graph()
	g.Nodes[0].Placement = 99
	if _, err := subgraph.Validate(g, ops.Builtins()); !errors.Is(err, subgraph.ErrBadNode) {
		t.Fatalf("placement 99: %v, want ErrBadNode", err)
	}
	g.Nodes[0].Placement = subgraph.Unplaced
	for _, opset := range []any{int64(-3), int64(0), "seven"} {
		g.Nodes[0].Attrs = kernel.Attrs{kernel.OpsetAttr: opset}
		if _, err := subgraph.Validate(g, ops.Builtins()); !errors.Is(err, subgraph.ErrBadNode) {
			t.Errorf("opset attribute %v: %v, want ErrBadNode", opset, err)
		}
	}
}

// TestCloneSharesNothing: a clone's inputs, nodes, attributes (slices,
// tensors and nested graphs) and outputs are its own.
func TestCloneSharesNothing(t *testing.T) {
	inner := subgraph.NewBuilder("inner")
	inner.Output(inner.Op("ReLU", inner.Input("a", kernel.Float32, 2)))
	b := subgraph.NewBuilder("g")
	x := b.Input("x", kernel.Float32, 2, 3)
	b.Output(b.OpAttrs("Transpose", kernel.Attrs{"perm": []int64{1, 0}, "body": inner.Graph(), "value": kernel.FromFloat32([]float32{5}, 1)}, x))
	g := b.Graph()
	c := g.Clone()
	g.Inputs[0].Shape[0] = 9
	g.Nodes[0].Op = "Neg"
	g.Nodes[0].Inputs[0] = "y"
	g.Nodes[0].Attrs["perm"].([]int64)[0] = 7
	g.Nodes[0].Attrs["body"].(*subgraph.Graph).Nodes[0].Op = "Neg"
	g.Nodes[0].Attrs["value"].(*kernel.Tensor).Host[3] = 0x7f
	g.Outputs[0] = "z"
	n := c.Nodes[0]
	if c.Inputs[0].Shape[0] != 2 || n.Op != "Transpose" || n.Inputs[0] != "x" || n.Attrs["perm"].([]int64)[0] != 1 ||
		n.Attrs["body"].(*subgraph.Graph).Nodes[0].Op != "ReLU" || kernel.Float32s(n.Attrs["value"].(*kernel.Tensor).Host)[0] != 5 || c.Outputs[0] == "z" {
		t.Fatalf("the clone changed with the original: %+v", c)
	}
	if (*subgraph.Graph)(nil).Clone() != nil {
		t.Fatal("a nil graph cloned to non-nil")
	}
}

// TestCloneNodesApart: a clone equals its original (nil and empty name
// lists kept as they were, nil nodes too), and its nodes' name lists are
// apart from each other: appending to one node's inputs or outputs, or
// changing a node, leaves the others as they were.
func TestCloneNodesApart(t *testing.T) {
	g := &subgraph.Graph{Name: "g", Nodes: []*subgraph.Node{
		{Name: "a", Op: "ReLU", Inputs: []string{"x"}, Outputs: []string{"t"}},
		nil,
		{Name: "b", Op: "Add", Inputs: []string{"t", "x"}, Outputs: []string{"u"}},
		{Name: "c", Op: "Const", Inputs: []string{}, Outputs: nil},
		{Name: "d", Op: "ReLU", Inputs: nil, Outputs: []string{"v"}},
	}}
	c := g.Clone()
	if !reflect.DeepEqual(c, g) {
		t.Fatalf("clone %+v differs from its original", c)
	}
	if c.Nodes[3].Inputs == nil || c.Nodes[3].Outputs != nil || c.Nodes[4].Inputs != nil {
		t.Fatal("the clone changed a nil list into an empty one or back")
	}
	c.Nodes[0].Inputs = append(c.Nodes[0].Inputs, "y")
	c.Nodes[0].Outputs = append(c.Nodes[0].Outputs, "w")
	c.Nodes[2].Inputs = append(c.Nodes[2].Inputs, "z")
	c.Nodes[0].Name = "changed"
	if c.Nodes[2].Name != "b" || !slices.Equal(c.Nodes[2].Inputs, []string{"t", "x", "z"}) || !slices.Equal(c.Nodes[2].Outputs, []string{"u"}) ||
		!slices.Equal(c.Nodes[0].Outputs, []string{"t", "w"}) || !slices.Equal(c.Nodes[4].Outputs, []string{"v"}) {
		t.Fatalf("appending to one node's lists reached another: %+v %+v %+v", c.Nodes[0], c.Nodes[2], c.Nodes[4])
	}
	if g.Nodes[0].Name != "a" || len(g.Nodes[0].Inputs) != 1 || len(g.Nodes[2].Inputs) != 2 {
		t.Fatal("changing the clone changed the original")
	}
}

// TestNodeClone: a node's clone equals it and shares nothing with it: its
// lists, and its attributes' slices, tensors and subgraphs, a subgraph two
// attributes hold copied once; a nil node clones to nil.
func TestNodeClone(t *testing.T) {
	body := &subgraph.Graph{Name: "body", Inputs: []subgraph.Value{{Name: "x", DType: kernel.Float32, Shape: kernel.Shape{2}}}, Outputs: []string{"x"}}
	n := &subgraph.Node{Name: "n", Op: "If", Inputs: []string{"c"}, Outputs: []string{"y"}, Placement: subgraph.OnCPU, Attrs: kernel.Attrs{
		"ints": []int64{1, 2}, "t": kernel.FromFloat32([]float32{1, 2}, 2), "then": body, "else": body, "k": int64(3),
	}}
	c := n.Clone()
	if !reflect.DeepEqual(c, n) {
		t.Fatalf("clone %+v differs from its original %+v", c, n)
	}
	if c.Attrs["then"].(*subgraph.Graph) != c.Attrs["else"].(*subgraph.Graph) {
		t.Error("a subgraph two attributes hold was copied twice")
	}
	c.Inputs[0], c.Outputs[0] = "changed", "changed"
	c.Attrs["ints"].([]int64)[0] = 9
	c.Attrs["t"].(*kernel.Tensor).Host[0] = 0xff
	c.Attrs["then"].(*subgraph.Graph).Outputs[0] = "changed"
	c.Attrs["k"] = int64(4)
	if n.Inputs[0] != "c" || n.Outputs[0] != "y" || n.Attrs["ints"].([]int64)[0] != 1 || n.Attrs["t"].(*kernel.Tensor).Host[0] != 0 ||
		body.Outputs[0] != "x" || n.Attrs["k"] != int64(3) {
		t.Errorf("changing the clone changed the original: %+v", n)
	}
	if (*subgraph.Node)(nil).Clone() != nil {
		t.Error("a nil node cloned to a node")
	}
}

// TestNilAndZeroBuilders: the zero Builder builds as NewBuilder("") does;
// a nil Builder builds nothing and never panics, its Graph empty; a nil
// *Error prints "<nil>".
func TestNilAndZeroBuilders(t *testing.T) {
	var zero subgraph.Builder
	x := zero.Input("x", kernel.Float32, 2)
	zero.Output(zero.Op("ReLU", x))
	if _, err := zero.Build(ops.Builtins()); err != nil {
		t.Errorf("zero Builder: %v", err)
	}
	var b *subgraph.Builder
	b.Output(b.Op("ReLU", b.Input("x", kernel.Float32, 2)))
	if b.Last() != nil || b.Node(&subgraph.Node{Op: "ReLU"}, 1) != nil {
		t.Error("a nil Builder built a node")
	}
	if g := b.Graph(); g == nil || len(g.Nodes)+len(g.Inputs)+len(g.Outputs) != 0 {
		t.Errorf("a nil Builder's graph: %+v", g)
	}
	if _, err := b.Build(ops.Builtins()); err == nil {
		t.Error("a nil Builder's empty graph validated")
	}
	var e *subgraph.Error
	if e.Error() != "<nil>" || e.Unwrap() != nil {
		t.Errorf("nil *Error: %q, %v", e.Error(), e.Unwrap())
	}
}
