package pipert_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

// TestSubmitDrawsLikeRuns: a random op's steps under Submit draw what
// consecutive Runs draw, in every mode (Submit alternates two lanes that
// share the executable's kernels and their streams), and with the runner
// pool a second executable of the graph starts its streams over.
func TestSubmitDrawsLikeRuns(t *testing.T) {
	b := subgraph.NewBuilder("noise")
	x := b.Input("x", kernel.Float32, 4)
	r := b.OpAttrs("RandomUniform", kernel.Attrs{"shape": []int64{4}, "seed": 1.0})
	b.Output(b.Op("Add", x, r))
	g := b.Graph()
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{0, 10, 20, 30}, 4)}
	ctx := context.Background()
	const steps = 5
	draws := func(exe *pipert.Executable, submit bool) []string {
		var out []string
		for i := range steps {
			var res *pipert.Result
			var err error
			if submit && i < steps-1 {
				var p *pipert.Pending
				if p, err = exe.Submit(ctx, in); err == nil {
					res, err = p.Wait()
				}
			} else {
				res, err = exe.Run(ctx, in)
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprint(kernel.Float32s(res.Outputs[g.Outputs[0]].Host)))
		}
		return out
	}
	var want []string
	for _, m := range pipert.Modes() {
		for _, submit := range []bool{false, true} {
			exe, err := pipert.Compile(g, pipert.WithMode(m), pipert.WithCaches(pipert.Caches{Kinds: pipert.Runners}))
			if err != nil {
				t.Fatal(err)
			}
			got := draws(exe, submit)
			exe.Close()
			if want == nil {
				want = got
				if got[0] == got[1] {
					t.Fatalf("two runs drew the same numbers: %v", got)
				}
				continue
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%v submit %v: %v, want %v", m, submit, got, want)
			}
		}
	}
}
