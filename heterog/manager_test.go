package heterog_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pipert/pipert/device/mt3000"
	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
)

// TestGroupCosts: a group made on request pays Create, a cached one
// Cached, in modeled time summed by GroupStats (MTTorch's thread groups:
// 1.2 ms to create, 0.6 ms to run a cached one).
func TestGroupCosts(t *testing.T) {
	p := mt3000.Default()
	chip, err := mt3000.New(p, mt3000.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dsp, err := chip.Cluster(0)
	if err != nil {
		t.Fatal(err)
	}
	m, err := heterog.NewManager(chip.CPU(), dsp, nil, heterog.WithGroupCosts(heterog.GroupCosts{Create: p.GroupCreate, Cached: p.GroupExec}), nil) // nil options are ignored
	if err != nil {
		t.Fatal(err)
	}
	defer m.Release()
	g1, err := m.Group(m.Accelerator(), 2)
	if err != nil {
		t.Fatal(err)
	}
	if st := m.GroupStats(); st.Created != 1 || st.Reused != 0 || st.Modeled != 1200*time.Microsecond {
		t.Fatalf("after a creation: %+v", st)
	}
	for range 3 {
		g, err := m.Group(m.Accelerator(), 2)
		if err != nil {
			t.Fatal(err)
		}
		if g != g1 {
			t.Fatal("cached group not handed out")
		}
	}
	st := m.GroupStats()
	if st.Created != 1 || st.Reused != 3 || st.Modeled != 1200*time.Microsecond+3*600*time.Microsecond {
		t.Fatalf("after three cached: %+v", st)
	}
	if m.GroupsCreated() != 1 {
		t.Fatalf("GroupsCreated %d", m.GroupsCreated())
	}
	free, err := heterog.NewManager(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer free.Release()
	if _, err := free.Group(free.Accelerator(), 1); err != nil {
		t.Fatal(err)
	}
	if st := free.GroupStats(); st.Modeled != 0 || st.Created != 1 {
		t.Fatalf("without costs: %+v", st)
	}
}

func TestGroupCostsRejectNegative(t *testing.T) {
	for _, c := range []heterog.GroupCosts{{Create: -1}, {Cached: -time.Millisecond}} {
		_, err := heterog.NewManager(nil, nil, heterog.WithGroupCosts(c))
		field := "Create"
		if c.Cached < 0 {
			field = "Cached"
		}
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

// TestVirtualOnMT3000: a virtual operator on a DSP cluster of the MT-3000
// computes on the host over the cluster's host-mapped DDR, and every
// schedule gives the kernel-by-kernel outputs bit for bit, virtual or
// copied to a CPU part.
func TestVirtualOnMT3000(t *testing.T) {
	b := subgraph.NewBuilder("mt3000")
	x := b.Input("x", kernel.Float32, 4, 8)
	w := b.Const("w", kernel.FromFloat32(func() []float32 {
		v := make([]float32, 64)
		for i := range v {
			v[i] = float32(i%7) / 8
		}
		return v
	}(), 8, 8))
	h := b.Op("MatMul", x, w)
	c := b.OpAttrs("CumSum", nil, h, b.Const("axis", kernel.FromInt64([]int64{1})))
	y := b.Op("Add", b.Op("MatMul", c, w), h)
	b.Output(y)
	g := b.Graph()
	xv := make([]float32, 32)
	for i := range xv {
		xv[i] = float32(i) / 16
	}
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32(xv, 4, 8)}
	want := reference(t, g, in)
	p := mt3000.Default()
	for _, virtual := range []bool{false, true} {
		for _, s := range []heterog.Schedule{heterog.Concurrent, heterog.Serial} {
			chip, err := mt3000.New(p, mt3000.Options{})
			if err != nil {
				t.Fatal(err)
			}
			dsp, err := chip.Cluster(0)
			if err != nil {
				t.Fatal(err)
			}
			m, err := heterog.NewManager(chip.CPU(), dsp, heterog.WithGroupCosts(heterog.GroupCosts{Create: p.GroupCreate, Cached: p.GroupExec}))
			if err != nil {
				t.Fatal(err)
			}
			cfg := plan.Config{Mode: plan.Pipeline, Schedule: s, Placement: heterog.Capability{Ops: []string{"MatMul", "Add"}}}
			if virtual {
				cfg.Placement, cfg.Virtual = heterog.Labels(), []string{"CumSum"}
			}
			e, err := heterog.Compile(g, cfg, m)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				r, err := e.Run(context.Background(), in)
				if err != nil {
					t.Fatal(err)
				}
				if err := sameOutputs(want, r.Outputs); err != nil {
					t.Errorf("virtual %v, %v: %v", virtual, s, err)
				}
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			if st := m.GroupStats(); s == heterog.Concurrent && st.Modeled < p.GroupCreate {
				t.Errorf("virtual %v, %v: groups paid %v", virtual, s, st.Modeled)
			}
			m.Release()
			if st := dsp.Stats(); st.MemInUse != 0 {
				t.Errorf("virtual %v, %v: %d bytes leaked", virtual, s, st.MemInUse)
			}
		}
	}
}
