package moe

import (
	"fmt"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// The ops of a rank's executable. Each is one kernel of the variant on the
// rank's device; its Compute moves the real data through the fabric.
const (
	opDispatchSend = "MoEDispatchSend"
	opDispatchRecv = "MoEDispatchRecv"
	opExperts      = "MoEGroupedGEMM"
	opCombineSend  = "MoECombineSend"
	opCombineRecv  = "MoECombineRecv"
)

// resolver builds a round's kernels, bound to the rank in their "rank"
// attribute.
type resolver struct{ rd *round }

func (rv resolver) Has(op string) bool {
	switch op {
	case opDispatchSend, opDispatchRecv, opExperts, opCombineSend, opCombineRecv:
		return true
	}
	return false
}

func (rv resolver) New(op string, attrs kernel.Attrs) (kernel.Kernel, error) {
	if !rv.Has(op) {
		return nil, fmt.Errorf("moe: %w: %s", kernel.ErrUnknownOp, op)
	}
	r, err := attrs.Int("rank", -1)
	if err != nil || r < 0 || int(r) >= len(rv.rd.ranks) {
		return nil, fmt.Errorf("moe: %s: rank attribute %d of %d ranks (%v)", op, r, len(rv.rd.ranks), err)
	}
	return &step{op: op, rd: rv.rd, rs: rv.rd.ranks[r]}, nil
}

// step is one MoE kernel of one rank. Its output is a one-element
// ordering token, except combine-recv's, the layer's output.
type step struct {
	op string
	rd *round
	rs *rankState
}

func (s *step) Op() string { return s.op }

func (s *step) Arity() (int, int, int) {
	switch s.op {
	case opDispatchSend, opCombineRecv:
		return 2, 2, 1
	}
	return 1, 1, 1
}

func (s *step) Deps() kernel.Deps { return kernel.Deps{} }

func (s *step) InferShape(in, out []*kernel.Tensor) error {
	if s.op == opCombineRecv {
		w := in[1]
		if len(w.Shape) != 2 || w.Shape[1] != int64(s.rd.p.TopK) {
			return fmt.Errorf("moe: %s: weights of shape %v, want [tokens %d]", s.op, w.Shape, s.rd.p.TopK)
		}
		out[0].Shape, out[0].DType = kernel.Shape{w.Shape[0], int64(s.rd.p.Hidden)}, kernel.Float32
		return nil
	}
	out[0].Shape, out[0].DType = kernel.Shape{1}, kernel.Float32
	return nil
}

func (s *step) Resize(in, out []*kernel.Tensor, t *kernel.Tiling) error { return nil }

// Cost is the kernel's device work at the run's size: every flat token's
// hidden vector read and written once.
func (s *step) Cost(in, out []*kernel.Tensor) device.Cost {
	p := s.rd.p
	b := float64(s.rd.in.Counts[s.rs.r]) * float64(p.TopK) * float64(p.Hidden) * 4 * 2
	return device.Cost{Bytes: b, FLOPs: b / 8}
}

func (s *step) Compute(a *kernel.Args) error {
	rd, rs := s.rd, s.rs
	var err error
	switch s.op {
	case opDispatchSend:
		err = rd.dispatchSend(rs, kernel.Float32s(a.In[0].Data()), kernel.Int32s(a.In[1].Data()))
	case opDispatchRecv:
		err = rd.dispatchRecv(rs)
	case opExperts:
		rd.experts(rs)
	case opCombineSend:
		err = rd.combineSend(rs)
	case opCombineRecv:
		err = rd.combineRecv(rs, kernel.Float32s(a.In[1].Data()), kernel.Float32s(a.Out[0].Data()))
	}
	if err != nil {
		return fmt.Errorf("%s (rank %d): %w", s.op, rs.r, err)
	}
	return nil
}
