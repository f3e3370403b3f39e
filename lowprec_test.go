package pipert_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

// lowPrecTensor is a tensor of dtype dt and shape of random codes, as
// pipert holds them: a 4- or 2-bit element in a byte, int4 and int2
// sign-extended.
func lowPrecTensor(rng *rand.Rand, dt kernel.DType, shape ...int64) *kernel.Tensor {
	t := kernel.New(dt, shape...)
	for i := range t.Host {
		c := byte(rng.IntN(1 << dt.Bits()))
		switch dt {
		case kernel.Int4:
			c = byte(int8(c<<4) >> 4)
		case kernel.Int2:
			c = byte(int8(c<<6) >> 6)
		}
		t.Host[i] = c
	}
	return t
}

// TestLowPrecisionModesMatchKBK: a graph of data-movement ops (Transpose,
// Reshape, Concat, Gather, Pad, Slice, Tile, Expand, Unsqueeze, Squeeze,
// TensorScatter, BitCast) over each float 8, float 4 and 4- and 2-bit
// dtype gives, in every mode, KBK's outputs bit for bit, run after run.
func TestLowPrecisionModesMatchKBK(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(8, 4))
	for _, dt := range kernel.DTypes() {
		if !dt.IsFloat8() && !dt.IsSubByte() {
			continue
		}
		i64 := func(v ...int64) *kernel.Tensor { return kernel.FromInt64(v, int64(len(v))) }
		b := subgraph.NewBuilder(dt.String())
		x := b.Input("x", dt, 2, 3)
		ct := lowPrecTensor(rng, dt, 1, 3)
		c := b.Const("c", ct)
		tr := b.OpAttrs("Transpose", kernel.Attrs{"perm": []int64{1, 0}}, x)
		rs := b.Op("Reshape", tr, b.Const("shape", i64(2, 3)))
		cat := b.OpAttrs("Concat", kernel.Attrs{"axis": int64(0)}, rs, c)
		ga := b.OpAttrs("Gather", kernel.Attrs{"axis": int64(0)}, cat, b.Const("idx", i64(2, 0)))
		pad := b.OpAttrs("Pad", kernel.Attrs{"mode": "edge"}, ga, b.Const("pads", i64(1, 0, 0, 2)))
		sl := b.Op("Slice", pad, b.Const("starts", i64(1)), b.Const("ends", i64(4)), b.Const("axes", i64(1)))
		ti := b.Op("Tile", sl, b.Const("reps", i64(2, 1)))
		ex := b.Op("Expand", b.Op("Unsqueeze", ti, b.Const("ax0", i64(0))), b.Const("to", i64(2, 6, 3)))
		sq := b.Op("Squeeze", b.OpAttrs("Gather", kernel.Attrs{"axis": int64(0)}, ex, b.Const("one", i64(1))), b.Const("ax", i64(0)))
		ts := b.Op("TensorScatter", b.Op("Unsqueeze", sq, b.Const("ax1", i64(0))), b.Op("Unsqueeze", rs, b.Const("ax2", i64(0))))
		to := kernel.Uint8
		switch dt.Bits() {
		case 4:
			to = kernel.Uint4
		case 2:
			to = kernel.Uint2
		}
		bc := b.OpAttrs("BitCast", kernel.Attrs{"to": to}, ts)
		b.Output(ts, bc, cat)
		g := b.Graph()
		ins := []map[string]*kernel.Tensor{{"x": lowPrecTensor(rng, dt, 2, 3)}, {"x": lowPrecTensor(rng, dt, 2, 3)}}
		ref, err := pipert.Compile(g, pipert.WithMode(pipert.KBK))
		if err != nil {
			t.Fatalf("%v: kbk: %v", dt, err)
		}
		want := make([]*pipert.Result, len(ins))
		for i, in := range ins {
			if want[i], err = ref.Run(ctx, in); err != nil {
				t.Fatalf("%v run %d: kbk: %v", dt, i, err)
			}
		}
		ref.Close()
		// KBK itself: the Concat holds x transposed and reshaped, then c.
		xs, cs, got := ins[1]["x"].Host, ct.Host, want[1].Outputs[cat].Host
		if w := string([]byte{xs[0], xs[3], xs[1], xs[4], xs[2], xs[5], cs[0], cs[1], cs[2]}); string(got) != w {
			t.Fatalf("%v: kbk Concat % x, want % x", dt, got, w)
		}
		for _, m := range everyMode() {
			exe, err := pipert.Compile(g, m.opts...)
			if err != nil {
				t.Fatalf("%v, %s: %v", dt, m.name, err)
			}
			for i, in := range ins {
				got, err := exe.Run(ctx, in)
				if err == nil {
					err = sameResults(want[i], got)
				}
				if err != nil {
					t.Errorf("%v run %d, %s: %v", dt, i, m.name, err)
				}
			}
			exe.Close()
		}
	}
}
