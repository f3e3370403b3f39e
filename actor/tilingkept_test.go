package actor_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/internal/graphtest"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
)

// shapeTiled is a trusted Identity whose tiling is its input's shape, and
// whose Compute fails on any other tiling: a stale tiling shows as an
// error, not as equal outputs.
type shapeTiled struct{}

func (shapeTiled) Op() string             { return "ShapeTiled" }
func (shapeTiled) Arity() (int, int, int) { return 1, 1, 1 }
func (shapeTiled) Deps() kernel.Deps      { return kernel.Deps{} }
func (shapeTiled) Cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{Bytes: 1e6 * float64(in[0].Bytes())} // microseconds apart
}
func (shapeTiled) Trusted() {}

func (shapeTiled) InferShape(in, out []*kernel.Tensor) error {
	out[0].DType, out[0].Shape = in[0].DType, append(out[0].Shape[:0], in[0].Shape...)
	return nil
}

func (shapeTiled) Resize(in, out []*kernel.Tensor, t *kernel.Tiling) error {
	t.Data = t.Data[:0]
	for _, d := range in[0].Shape {
		t.Data = binary.LittleEndian.AppendUint64(t.Data, uint64(d))
	}
	t.Workspace = 8 * int64(len(in[0].Shape))
	return nil
}

func (shapeTiled) Compute(a *kernel.Args) error {
	sh := a.In[0].Shape
	if len(a.Tiling.Data) != 8*len(sh) || a.Tiling.Workspace != 8*int64(len(sh)) {
		return fmt.Errorf("tiling of %d bytes, workspace %d, for shape %v", len(a.Tiling.Data), a.Tiling.Workspace, sh)
	}
	for i, d := range sh {
		if got := int64(binary.LittleEndian.Uint64(a.Tiling.Data[8*i:])); got != d {
			return fmt.Errorf("tiling of shape dimension %d is %d, the input's %v", i, got, sh)
		}
	}
	copy(a.Out[0].Data(), a.In[0].Data())
	return nil
}

// TestTilingFollowsTheShapes: a kernel's tiling and cost at launch are
// the ones its Resize and Cost give for the run's shapes, whatever the
// caches skip: shapes change, come back and stay, in every mode and cache
// setting, and the device's modeled kernel time is KBK's without caches.
func TestTilingFollowsTheShapes(t *testing.T) {
	reg := ops.NewRegistry()
	if err := reg.Register("ShapeTiled", func(kernel.Attrs) (kernel.Kernel, error) { return shapeTiled{}, nil }); err != nil {
		t.Fatal(err)
	}
	b := subgraph.NewBuilder("tiled")
	x := b.Op("ShapeTiled", b.Input("x", kernel.Float32, kernel.Dynamic, 3))
	y := b.Op("ShapeTiled", b.Op("ReLU", x))
	b.Output(b.Op("ShapeTiled", b.Op("Add", x, y)))
	g := b.Graph()

	rows := []int64{2, 2, 5, 5, 2, 7, 7, 7, 2, 5, 2, 2}
	rng := rand.New(rand.NewPCG(1, 2))
	in := make([][]*kernel.Tensor, len(rows))
	for i, r := range rows {
		data := make([]float32, r*3)
		for j := range data {
			data[j] = rng.Float32()
		}
		in[i] = []*kernel.Tensor{kernel.FromFloat32(data, r, 3)}
	}
	ref, refDev, refDone := newActor(t, g, plan.Config{Mode: plan.KBK, Caches: noCaches}, reg)
	want := make([][]*kernel.Tensor, len(in))
	wantNs := make([]int64, len(in))
	for s := range in {
		before := refDev.Stats()
		out, _, err := ref.Run(context.Background(), in[s])
		if err != nil {
			t.Fatalf("kbk without caches, run %d: %v", s, err)
		}
		want[s], wantNs[s] = out, refDev.Stats().Sub(before).KernelNs
	}
	refDone()
	all := plan.TilingLocal | plan.TilingGlobal | plan.InferReuse | plan.SetupReuse
	for _, mode := range []plan.Mode{plan.KBK, plan.Async, plan.Pipeline, plan.Replay} {
		for _, cs := range []plan.Caches{
			{Kinds: plan.DefaultCaches},
			{Kinds: plan.TilingLocal | plan.SetupReuse},
			{Kinds: all, LocalSlots: 2},
			{Kinds: all | plan.MemoryPlan},
		} {
			cfg := plan.Config{Mode: mode, Caches: cs}
			a, dev, done := newActor(t, g, cfg, reg)
			for s := range in {
				before := dev.Stats()
				got, _, err := a.Run(context.Background(), in[s])
				if err == nil {
					err = sameOutputs(want[s], got)
				}
				if ns := dev.Stats().Sub(before).KernelNs; err == nil && ns != wantNs[s] {
					err = fmt.Errorf("modeled kernel time %d ns, want %d", ns, wantNs[s])
				}
				if err != nil {
					t.Errorf("%s, caches %v, run %d (rows %d): %v", name(cfg), cs.Kinds, s, rows[s], err)
					break
				}
			}
			done()
		}
	}
}

// TestWorkspaceSizeKeepsTheCaches: WorkspaceSize's dry run of the graph,
// before the first run or between runs, leaves every mode and cache
// setting running the graph as KBK without caches does.
func TestWorkspaceSizeKeepsTheCaches(t *testing.T) {
	b := subgraph.NewBuilder("static")
	x := b.Input("x", kernel.Float32, 3, 8)
	w := b.Const("w", kernel.New(kernel.Float32, 8, 8))
	h := b.Op("GELU", b.Op("MatMul", x, w))
	b.Output(b.OpAttrs("Softmax", kernel.Attrs{"axis": int64(-1)}, b.Op("Add", h, b.Op("Neg", x))))
	g := b.Graph()
	in := graphtest.Refill(rand.New(rand.NewPCG(7, 7)), g, 3)
	want := kbkRuns(t, g, [][]*kernel.Tensor{in})[0]
	all := plan.TilingLocal | plan.TilingGlobal | plan.InferReuse | plan.SetupReuse
	for _, mode := range []plan.Mode{plan.KBK, plan.Async, plan.Pipeline, plan.Replay} {
		for _, kinds := range []plan.CacheKinds{plan.DefaultCaches, all, plan.DefaultCaches | plan.MemoryPlan, all | plan.MemoryPlan} {
			cfg := plan.Config{Mode: mode, Caches: plan.Caches{Kinds: kinds}}
			a, _, done := newActor(t, g, cfg, ops.Builtins())
			for run := 0; run < 4; run++ {
				if run%2 == 0 {
					if _, err := a.WorkspaceSize(); err != nil {
						t.Fatalf("%s, caches %v, before run %d: WorkspaceSize: %v", name(cfg), kinds, run, err)
					}
				}
				got, _, err := a.Run(context.Background(), in)
				if err == nil {
					err = sameOutputs(want, got)
				}
				if err != nil {
					t.Errorf("%s, caches %v, run %d: %v", name(cfg), kinds, run, err)
					break
				}
			}
			done()
		}
	}
}
