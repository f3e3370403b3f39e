package pipert_test

import (
	"context"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

// TestRandomAfterAFailedRun: a run that fails may stop before a random
// node computes in one mode and after it in another; the next run's
// numbers are still KBK's in every mode (runs are numbered, failed ones
// included, the same way in every mode).
func TestRandomAfterAFailedRun(t *testing.T) {
	b := subgraph.NewBuilder("random-after-failure")
	x := b.Input("x", kernel.Float32, 4)
	s := b.Input("s", kernel.Int64, 2)
	r := b.OpAttrs("RandomUniform", kernel.Attrs{"shape": []int64{4}, "seed": 3.0})
	b.Last().Placement = subgraph.OnCPU
	b.Output(r)
	b.Output(b.Op("Reshape", b.Op("Add", x, r), s))
	g := b.Graph()
	good := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, 2, 3, 4}, 4), "s": kernel.FromInt64([]int64{2, 2}, 2)}
	bad := map[string]*kernel.Tensor{"x": good["x"], "s": kernel.FromInt64([]int64{3, 3}, 2)}
	numbers := func(m modeCase) [][]byte {
		exe, err := pipert.Compile(g, m.opts...)
		if err != nil {
			t.Fatal(err)
		}
		defer exe.Close()
		var out [][]byte
		for i, in := range []map[string]*kernel.Tensor{good, bad, good, bad, bad, good} {
			res, err := exe.Run(context.Background(), in)
			if (err != nil) != (i == 1 || i == 3 || i == 4) {
				t.Fatalf("%s: run %d: %v", m.name, i+1, err)
			}
			if err == nil {
				out = append(out, res.Outputs[r].Host)
			}
		}
		return out
	}
	want := numbers(everyMode()[0])
	if string(want[0]) == string(want[1]) {
		t.Fatal("two runs drew the same numbers")
	}
	for _, m := range everyMode()[1:] {
		for trial := range 5 {
			got := numbers(m)
			for i := range want {
				if string(got[i]) != string(want[i]) {
					t.Fatalf("%s, trial %d: good run %d drew other numbers than KBK's", m.name, trial, i+1)
				}
			}
		}
	}
}

// TestVirtualSeedsAgree: the modeled output size of a compute-dependent
// op on virtual data (kernel.Args.Seed) is the same for the n-th run in
// every mode, through Submit, and in a heterogeneous executable.
func TestVirtualSeedsAgree(t *testing.T) {
	b := subgraph.NewBuilder("virtual-seeds")
	x := b.Input("x", kernel.Float32, 64)
	e := b.Op("Neg", x)
	b.Last().Placement = subgraph.OnCPU
	u := b.Op("Unique", e)
	b.Last().Placement = subgraph.OnDevice
	b.Output(u)
	g := b.Graph()
	in := map[string]*kernel.Tensor{"x": kernel.Virtual(kernel.Float32, 64)}
	sizes := func(submit bool, opts ...pipert.Option) []int64 {
		exe, err := pipert.Compile(g, opts...)
		if err != nil {
			t.Fatal(err)
		}
		defer exe.Close()
		var out []int64
		var ps []*pipert.Pending
		for range 6 {
			if submit {
				p, err := exe.Submit(context.Background(), in)
				if err != nil {
					t.Fatal(err)
				}
				ps = append(ps, p)
				continue
			}
			res, err := exe.Run(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, res.Outputs[u].Shape[0])
		}
		for _, p := range ps {
			res, err := p.Wait()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, res.Outputs[u].Shape[0])
		}
		return out
	}
	want := sizes(false, pipert.WithMode(pipert.KBK))
	distinct := map[int64]bool{}
	for _, n := range want {
		distinct[n] = true
	}
	if len(distinct) < 2 {
		t.Fatalf("every run modeled %v: the sizes do not vary from run to run", want)
	}
	for _, c := range []struct {
		name   string
		submit bool
		opts   []pipert.Option
	}{
		{"pipeline", false, []pipert.Option{pipert.WithMode(pipert.Pipeline)}},
		{"replay", false, []pipert.Option{pipert.WithMode(pipert.Replay)}},
		{"pipeline, Submit", true, []pipert.Option{pipert.WithMode(pipert.Pipeline)}},
		{"kbk, Submit", true, []pipert.Option{pipert.WithMode(pipert.KBK)}},
		{"heterogeneous", false, []pipert.Option{pipert.WithHeterogeneous(nil)}},
	} {
		got := sizes(c.submit, c.opts...)
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: modeled sizes %v, KBK's %v", c.name, got, want)
				break
			}
		}
	}
}
