package onnx_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/control"
	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/kernel"
	kops "github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/onnx"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
)

// randomModel is a model of every generator: RandomNormal (unseeded, no
// input: the import must not fold it), RandomUniformLike and
// RandomNormalLike of graph input x, Bernoulli of a constant (known at
// import, not folded either) and Multinomial of x, and an Add reading a
// generator's output.
func randomModel() *onnx.Model {
	f := func(name string, v float32) *onnx.Attribute {
		return &onnx.Attribute{Name: name, Type: onnx.AttrFloat, F: v}
	}
	i := func(name string, v int64) *onnx.Attribute {
		return &onnx.Attribute{Name: name, Type: onnx.AttrInt, I: v}
	}
	x := &onnx.ValueInfo{Name: "x", DataType: onnx.Float, Dims: []onnx.Dim{{Value: 3, Known: true}, {Value: 4, Known: true}}, HasShape: true}
	pt := &onnx.Tensor{Name: "p", Dims: []int64{8}, DataType: onnx.Float, Floats: []float32{0.5, 0.5, 0.1, 0.9, 0, 1, 0.5, 0.5}}
	return &onnx.Model{IRVersion: 10, Opsets: map[string]int64{"": 22},
		Graph: &onnx.Graph{Name: "random", Inputs: []*onnx.ValueInfo{x}, Initializers: []*onnx.Tensor{pt},
			Nodes: []*onnx.Node{
				{Name: "normal", OpType: "RandomNormal", Outputs: []string{"n"}, Attrs: []*onnx.Attribute{
					{Name: "shape", Type: onnx.AttrInts, Ints: []int64{2, 5}}, f("scale", 2)}},
				{Name: "twice", OpType: "Add", Inputs: []string{"n", "n"}, Outputs: []string{"n2"}},
				{Name: "uniform", OpType: "RandomUniformLike", Inputs: []string{"x"}, Outputs: []string{"u"}, Attrs: []*onnx.Attribute{f("seed", 4), f("low", -1)}},
				{Name: "normal_like", OpType: "RandomNormalLike", Inputs: []string{"x"}, Outputs: []string{"nl"}, Attrs: []*onnx.Attribute{i("dtype", 11)}},
				{Name: "coin", OpType: "Bernoulli", Inputs: []string{"p"}, Outputs: []string{"b"}, Attrs: []*onnx.Attribute{i("dtype", 7)}},
				{Name: "draw", OpType: "Multinomial", Inputs: []string{"x"}, Outputs: []string{"m"}, Attrs: []*onnx.Attribute{i("sample_size", 6), f("seed", 1)}},
			},
			Outputs: []*onnx.ValueInfo{{Name: "n"}, {Name: "n2"}, {Name: "u"}, {Name: "nl"}, {Name: "b"}, {Name: "m"}}}}
}

// TestRandomOpsAcrossModes: the generators are not folded at import; a
// model's runs draw the same numbers in KBK, Async, Pipeline and Replay,
// heterogeneously (concurrent and serial, placed by measured cost), with
// no host caches and with the runner pool handing kernels from one
// executable to the next; each run draws new numbers; the outputs have
// the shapes and dtypes ONNX gives.
func TestRandomOpsAcrossModes(t *testing.T) {
	g, err := onnx.Import(randomModel(), onnx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]bool{}
	for _, n := range g.Nodes {
		ops[n.Op] = true
	}
	for _, op := range []string{"RandomNormal", "RandomUniformLike", "RandomNormalLike", "Bernoulli", "Multinomial"} {
		if !ops[op] {
			t.Fatalf("the import folded %s: nodes %v", op, ops)
		}
	}
	x := kernel.FromFloat32([]float32{0, 1, 2, 3, -1, -1, -1, 5, 0.5, 0.25, 0, 0}, 3, 4)
	const runs = 3
	type variant struct {
		name string
		opts []pipert.Option
	}
	serial := func(c *pipert.Config) { c.Schedule = plan.Serial }
	variants := []variant{
		{"kbk", []pipert.Option{pipert.WithMode(pipert.KBK)}},
		{"async", []pipert.Option{pipert.WithMode(pipert.Async)}},
		{"pipeline", []pipert.Option{pipert.WithMode(pipert.Pipeline)}},
		{"replay", []pipert.Option{pipert.WithMode(pipert.Replay)}},
		{"no caches", []pipert.Option{pipert.WithMode(pipert.Pipeline), pipert.WithCaches(pipert.Caches{Kinds: pipert.NoCaches})}},
		{"all caches", []pipert.Option{pipert.WithMode(pipert.Replay), pipert.WithCaches(pipert.Caches{Kinds: plan.TilingLocal | plan.TilingGlobal | plan.InferReuse | plan.SetupReuse | plan.MemoryPlan | plan.Runners})}},
		{"all caches again", []pipert.Option{pipert.WithMode(pipert.KBK), pipert.WithCaches(pipert.Caches{Kinds: plan.TilingLocal | plan.TilingGlobal | plan.InferReuse | plan.SetupReuse | plan.MemoryPlan | plan.Runners})}},
		{"heterogeneous", []pipert.Option{pipert.WithHeterogeneous(heterog.Cost{})}},
		{"heterogeneous serial", []pipert.Option{pipert.WithHeterogeneous(heterog.Cost{}), serial}},
		{"heterogeneous on the cpu", []pipert.Option{pipert.WithHeterogeneous(heterog.Fixed(subgraph.OnCPU)), serial}},
	}
	var want [runs]map[string]*kernel.Tensor
	for vi, v := range variants {
		opts := append([]pipert.Option{pipert.WithRegistry(control.Resolver{Base: kops.Builtins()})}, v.opts...)
		exe, err := pipert.Compile(g, opts...)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		for r := range runs {
			res, err := exe.Run(context.Background(), map[string]*kernel.Tensor{"x": x})
			if err != nil {
				t.Fatalf("%s run %d: %v", v.name, r, err)
			}
			if vi == 0 {
				want[r] = res.Outputs
				continue
			}
			for name, w := range want[r] {
				if got := res.Outputs[name]; got == nil || got.DType != w.DType || !got.Shape.Equal(w.Shape) || string(got.Host) != string(w.Host) {
					t.Errorf("%s run %d: output %q differs from KBK's", v.name, r, name)
				}
			}
		}
		exe.Close()
	}
	shapes := map[string]string{"n": "float32[2,5]", "n2": "float32[2,5]", "u": "float32[3,4]", "nl": "float64[3,4]", "b": "int64[8]", "m": "int32[3,6]"}
	for name, s := range shapes {
		w := want[0][name]
		if got := fmt.Sprintf("%v%v", w.DType, w.Shape); got != s {
			t.Errorf("output %q is %s, want %s", name, got, s)
		}
		if name != "b" && string(want[1][name].Host) == string(w.Host) {
			t.Errorf("output %q: the second run drew what the first did", name)
		}
	}
	n, n2 := kernel.Float32s(want[0]["n"].Host), kernel.Float32s(want[0]["n2"].Host)
	for i := range n {
		if n2[i] != n[i]+n[i] {
			t.Fatalf("n2[%d] = %v, n = %v: Add read another draw", i, n2[i], n[i])
		}
	}
	b := kernel.Int64s(want[0]["b"].Host)
	if b[4] != 0 || b[5] != 1 {
		t.Errorf("Bernoulli of p 0 and 1: %v", b)
	}
}

// TestRandomImportErrors: attributes ONNX does not allow fail the import
// with an error naming the node, op and opset.
func TestRandomImportErrors(t *testing.T) {
	cases := []struct {
		op    string
		attrs []*onnx.Attribute
		in    []string
		want  string
	}{
		{"RandomNormal", []*onnx.Attribute{{Name: "shape", Type: onnx.AttrInts, Ints: []int64{2}}, {Name: "scale", Type: onnx.AttrFloat, F: -1}}, nil, "standard deviation"},
		{"RandomUniform", []*onnx.Attribute{{Name: "shape", Type: onnx.AttrInts, Ints: []int64{2}}, {Name: "low", Type: onnx.AttrFloat, F: 1}, {Name: "high", Type: onnx.AttrFloat, F: 0}}, nil, "high (0) is below low (1)"},
		{"RandomUniform", []*onnx.Attribute{{Name: "shape", Type: onnx.AttrInts, Ints: []int64{2}}, {Name: "dtype", Type: onnx.AttrInt, I: 7}}, nil, "dtype is int64 (7)"},
		{"RandomNormal", nil, nil, "shape is required"},
		{"Multinomial", []*onnx.Attribute{{Name: "sample_size", Type: onnx.AttrInt, I: 0}}, []string{"x"}, "sample_size is 0"},
		{"Multinomial", []*onnx.Attribute{{Name: "dtype", Type: onnx.AttrInt, I: 11}}, []string{"x"}, "want int32 (6) or int64 (7)"},
		{"Bernoulli", []*onnx.Attribute{{Name: "dtype", Type: onnx.AttrInt, I: 8}}, []string{"x"}, "attribute dtype is 8"},
	}
	x := &onnx.ValueInfo{Name: "x", DataType: onnx.Float, Dims: []onnx.Dim{{Value: 2, Known: true}, {Value: 2, Known: true}}, HasShape: true}
	for _, c := range cases {
		m := &onnx.Model{IRVersion: 10, Opsets: map[string]int64{"": 21}, Graph: &onnx.Graph{Name: "g", Inputs: []*onnx.ValueInfo{x},
			Nodes:   []*onnx.Node{{Name: "the_node", OpType: c.op, Inputs: c.in, Outputs: []string{"y"}, Attrs: c.attrs}},
			Outputs: []*onnx.ValueInfo{{Name: "y"}}}}
		_, err := onnx.Import(m, onnx.Options{})
		if err == nil || !errors.Is(err, onnx.ErrUnsupported) || !strings.Contains(err.Error(), `node "the_node" (`+c.op+`, opset 21)`) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: %v, want an error naming the node and containing %q", c.op, c.attrs, err, c.want)
		}
	}
}
