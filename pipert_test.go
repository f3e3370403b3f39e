package pipert_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/internal/leaktest"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

// The test binary links ants through heterog; see leaktest.
func TestMain(m *testing.M) { leaktest.Main(m) }

func graph() *subgraph.Graph {
	b := subgraph.NewBuilder("g")
	b.Output(b.Op("ReLU", b.Input("x", kernel.Float32, 2)))
	return b.Graph()
}

func TestRunNamesBadInputs(t *testing.T) {
	exe, err := pipert.Compile(graph())
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	ctx := context.Background()
	if _, err := exe.Run(ctx, nil); err == nil || !strings.Contains(err.Error(), `missing input "x"`) {
		t.Fatalf("missing input: %v", err)
	}
	x := kernel.FromFloat32([]float32{1, -1}, 2)
	if _, err := exe.Run(ctx, map[string]*kernel.Tensor{"x": x, "y": x}); err == nil || !strings.Contains(err.Error(), `unknown input "y"`) {
		t.Fatalf("unknown input: %v", err)
	}
	res, err := exe.Run(ctx, map[string]*kernel.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	if got := kernel.Float32s(res.Outputs["relu_0:0"].Host); got[0] != 1 || got[1] != 0 {
		t.Fatalf("relu gave %v", got)
	}
	if res.Stats.Kernels != 1 || res.Stats.Makespan <= 0 || res.Stats.DeviceBusy <= 0 {
		t.Fatalf("stats %+v", res.Stats)
	}
}

func TestVirtualRunGivesVirtualOutputs(t *testing.T) {
	exe, err := pipert.Compile(graph(), pipert.WithMode(pipert.Async))
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	res, err := exe.Run(context.Background(), map[string]*kernel.Tensor{"x": kernel.Virtual(kernel.Float32, 2)})
	if err != nil {
		t.Fatal(err)
	}
	if out := res.Outputs["relu_0:0"]; !out.IsVirtual() || !out.Shape.Equal(kernel.Shape{2}) {
		t.Fatalf("virtual run output %v", out)
	}
}

func TestCompileRejectsBadGraphsAndOptions(t *testing.T) {
	b := subgraph.NewBuilder("bad")
	b.Output(b.Op("Nope", b.Input("x", kernel.Float32, 2)))
	if _, err := pipert.Compile(b.Graph()); err == nil || !strings.Contains(err.Error(), `"nope_0"`) {
		t.Fatalf("unknown op: %v", err)
	}
	if _, err := pipert.Compile(graph(), pipert.WithMode(42)); err == nil {
		t.Fatal("invalid mode accepted")
	}
	if _, err := pipert.ParseMode("warp"); !errors.Is(err, pipert.ErrConfig) {
		t.Fatalf("unknown mode name: %v, want ErrConfig", err)
	}
	if _, err := pipert.ParseBarrierPolicy("sometimes"); !errors.Is(err, pipert.ErrConfig) {
		t.Fatalf("unknown barrier policy name: %v, want ErrConfig", err)
	}
}

func TestHeterogeneousRunMatchesKBK(t *testing.T) {
	b := subgraph.NewBuilder("mixed")
	x := b.Input("x", kernel.Float32, 4, 4)
	ids := b.Input("ids", kernel.Int64, 6)
	h := b.Op("ReLU", b.Op("MatMul", x, b.Const("w", kernel.FromFloat32([]float32{
		1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 0, 0, 0, 0, 1, 1}, 4, 4))))
	u := b.Op("Unique", ids)
	b.Last().Placement = subgraph.OnCPU
	s := b.OpAttrs("ReduceSum", kernel.Attrs{"keepdims": false}, b.OpAttrs("Cast", kernel.Attrs{"to": "float32"}, u))
	b.Last().Placement = subgraph.OnCPU
	b.Output(b.Op("Add", h, s))
	in := map[string]*kernel.Tensor{
		"x":   kernel.FromFloat32([]float32{1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12, 13, -14, 15, -16}, 4, 4),
		"ids": kernel.FromInt64([]int64{3, 1, 3, 2, 1, 7}, 6),
	}
	want := runOnce(t, b.Graph(), in)
	got := runOnce(t, b.Graph(), in, pipert.WithHeterogeneous(nil))
	if len(got.Stats.Parts) < 2 || !got.Stats.Heterogeneous || got.Stats.CPUBusy <= 0 {
		t.Fatalf("heterogeneous run stats %+v", got.Stats)
	}
	for name, w := range want.Outputs {
		g := got.Outputs[name]
		if g == nil || !g.Shape.Equal(w.Shape) || string(g.Host) != string(w.Host) {
			t.Fatalf("output %s: %v, want %v", name, g, w)
		}
	}
}
