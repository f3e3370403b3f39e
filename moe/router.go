package moe

import (
	"context"
	"fmt"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

// Route is the router: Softmax over each token's expert logits, then ONNX
// TopK (largest, sorted, ties to the lower index) — both pipert's built-in
// ops, run by a KBK executable. It returns the n × k expert indices and
// their softmax weights. Negative token counts, no experts, or k outside
// [0, experts] are errors wrapping ErrProblem.
func Route(logits []float32, n, experts, k int) ([]int32, []float32, error) {
	if n < 0 || experts < 1 || k < 0 || k > experts {
		return nil, nil, fmt.Errorf("%w: router of %d tokens × %d experts, top-%d", ErrProblem, n, experts, k)
	}
	if n == 0 {
		return []int32{}, []float32{}, nil
	}
	if len(logits) != n*experts {
		return nil, nil, fmt.Errorf("%w: %d logits for %d tokens × %d experts", ErrProblem, len(logits), n, experts)
	}
	b := subgraph.NewBuilder("router")
	x := b.Input("logits", kernel.Float32, int64(n), int64(experts))
	kk := b.Const("k", kernel.FromInt64([]int64{int64(k)}, 1))
	sm := b.OpAttrs("Softmax", kernel.Attrs{"axis": int64(-1)}, x)
	outs := b.Node(&subgraph.Node{Op: "TopK", Inputs: []string{sm, kk}, Attrs: kernel.Attrs{"axis": int64(-1)}}, 2)
	b.Output(outs...)
	exe, err := pipert.Compile(b.Graph(), pipert.WithMode(pipert.KBK))
	if err != nil {
		return nil, nil, fmt.Errorf("moe: router: %w", err)
	}
	defer exe.Close()
	res, err := exe.Run(context.Background(), map[string]*kernel.Tensor{"logits": kernel.FromFloat32(logits, int64(n), int64(experts))})
	if err != nil {
		return nil, nil, fmt.Errorf("moe: router: %w", err)
	}
	vals := kernel.Float32s(res.Outputs[outs[0]].Data())
	ids := kernel.Int64s(res.Outputs[outs[1]].Data())
	idx := make([]int32, len(ids))
	for i, v := range ids {
		idx[i] = int32(v)
	}
	return idx, append([]float32(nil), vals...), nil
}
