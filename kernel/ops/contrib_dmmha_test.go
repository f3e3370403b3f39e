package ops

import (
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestContribDecoderMaskedMultiHeadAttention checks self attention with
// and without cache_indirection and cross attention against onnxruntime
// 1.30's CPU kernel.
func TestContribDecoderMaskedMultiHeadAttention(t *testing.T) {
	checkRecorded(t, "DecoderMaskedMultiHeadAttention", dmmhaCases)
}

// TestContribDecoderMaskedMultiHeadAttentionRefusals checks misuse and the
// forms onnxruntime's CPU kernel refuses or does not compute in bounds.
func TestContribDecoderMaskedMultiHeadAttentionRefusals(t *testing.T) {
	attrs := kernel.Attrs{"num_heads": int64(2), "past_present_share_buffer": int64(1)}
	none := f32(shp(0))
	q, kv := f32(shp(4, 1, 4)), f32(shp(4, 1, 4))
	past := f32(shp(4, 2, 3, 2))
	i32 := func(shape []int64, v ...float64) *kernel.Tensor { return tensor(kernel.Int32, shape, v...) }
	ci := i32(shp(2, 2, 3), 0, 1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 1)
	// self is self attention with cache_indirection, the inputs in w
	// replaced.
	type with map[int]*kernel.Tensor
	self := func(w with) []*kernel.Tensor {
		in := []*kernel.Tensor{q, kv, kv, none, none, past, past, i32(shp(1), 2), none, ci}
		for i, t := range w {
			in[i] = t
		}
		return in
	}
	for _, w := range []with{nil, {9: none}, {8: i32(shp(1), 2)}, {7: i32(shp(1), 0)}} {
		if _, err := runOp("DecoderMaskedMultiHeadAttention", attrs, self(w)...); err != nil {
			t.Fatalf("%v: %v", w, err)
		}
	}
	kv4 := f32(shp(4, 2, 3, 2))
	for _, c := range []struct {
		in   []*kernel.Tensor
		frag string
	}{
		{self(with{0: f32(shp(4, 2, 4)), 1: f32(shp(4, 2, 4)), 2: f32(shp(4, 2, 4))}), "sequence length 2"},
		{self(with{7: none}), "past_sequence_length is missing"},
		{self(with{7: i32(shp(1), 3)}), "past_sequence_length is 3"},
		{self(with{7: tensor(kernel.Int64, shp(1), 1)}), "past_sequence_length"},
		{self(with{8: i32(shp(1), 3)}), "beam_width is 3"},
		{self(with{8: i32(shp(1), 2), 9: none}), "beam_width is 2"},
		{self(with{8: i32(shp(2), 2, 2)}), "beam_width"},
		{self(with{9: i32(shp(2, 2, 3), 0, 1, 1, 1, 0, 1, 0, 3, 0, 1, 1, 1)}), "cache_indirection[1, 0, 1] is 3"},
		{self(with{9: i32(shp(2, 2, 2))}), "cache_indirection"},
		{self(with{7: i32(shp(1), 0), 9: none}), "past_sequence_length 0 without cache_indirection"},
		{self(with{3: i32(shp(4))}), "mask_index"},
		{self(with{3: i32(shp(4, 4))}), "mask_index"},
		{self(with{1: f32(shp(4, 2, 4)), 2: f32(shp(4, 2, 4))}), "2 tokens"},
		{self(with{1: kv4, 2: kv4}), "4-D with past_key"},
		{self(with{2: f32(shp(4, 1, 6))}), "head size"},
		{[]*kernel.Tensor{q, kv, kv}, "3-D without past_key"},
		{[]*kernel.Tensor{q, kv4, kv4, none, f32(shp(4, 2, 1, 3))}, "attention_bias in cross attention"},
		{[]*kernel.Tensor{q}, "packed Q, K and V"},
	} {
		wantErr(t, "DecoderMaskedMultiHeadAttention", attrs, c.in, c.frag)
	}
	wantErr(t, "DecoderMaskedMultiHeadAttention", kernel.Attrs{"num_heads": int64(2)}, self(nil), "past_present_share_buffer")
	if _, err := Builtins().New("DecoderMaskedMultiHeadAttention", kernel.Attrs{"num_heads": int64(2), "unidirectional": int64(1)}); err == nil {
		t.Error("attribute unidirectional accepted")
	}
}

// TestContribMultiHeadAttentionBeamsAllocate checks the steady state of
// the shared-buffer form of MultiHeadAttention and of
// DecoderMaskedMultiHeadAttention, float32 and float16: nothing is
// allocated.
func TestContribMultiHeadAttentionBeamsAllocate(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, dt := range []kernel.DType{kernel.Float32, kernel.Float16} {
		none := tensor(dt, shp(0))
		q, k, v := randTensor(r, dt, shp(4, 1, 8)), randTensor(r, dt, shp(4, 1, 8)), randTensor(r, dt, shp(4, 1, 8))
		pk, pv, bias := randTensor(r, dt, shp(4, 2, 5, 4)), randTensor(r, dt, shp(4, 2, 5, 4)), randTensor(r, dt, shp(24))
		mask := tensor(kernel.Int32, shp(4, 4), 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1)
		ab := randTensor(r, dt, shp(1, 2, 1, 4))
		psl := tensor(kernel.Int32, shp(1), 3)
		ci := tensor(kernel.Int32, shp(2, 2, 5), 0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 1, 0, 0)
		for _, c := range []struct {
			op    string
			attrs kernel.Attrs
			in    []*kernel.Tensor
		}{
			{"MultiHeadAttention", kernel.Attrs{"num_heads": int64(2)}, []*kernel.Tensor{q, k, v, bias, mask, ab, pk, pv, psl, ci}},
			{"DecoderMaskedMultiHeadAttention", kernel.Attrs{"num_heads": int64(2), "past_present_share_buffer": int64(1)},
				[]*kernel.Tensor{q, k, v, mask, ab, pk, pv, psl, none, none, bias}},
		} {
			kn, err := Builtins().New(c.op, c.attrs)
			if err != nil {
				t.Fatal(err)
			}
			a, err := prepare(kn, 0, c.in...)
			if err != nil {
				t.Fatalf("%s %v: %v", c.op, dt, err)
			}
			n := testing.AllocsPerRun(20, func() {
				if err := kn.Compute(a); err != nil {
					t.Fatal(err)
				}
			})
			if n != 0 {
				t.Errorf("%s %v: %v allocations per computation", c.op, dt, n)
			}
		}
	}
}
