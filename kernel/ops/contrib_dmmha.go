package ops

import (
	"errors"
	"fmt"

	"github.com/pipert/pipert/kernel"
)

// newDecoderMaskedMultiHeadAttention builds com.microsoft's
// DecoderMaskedMultiHeadAttention, the one-token decoder attention of
// Whisper and T5 exports run by BeamSearch, as onnxruntime's CPU kernel
// computes it: MultiHeadAttention's computation (see
// newMultiHeadAttention) on its operands in another order — query, key,
// value, mask_index, attention_bias, past_key, past_value,
// past_sequence_length, beam_width, cache_indirection and bias — for one
// query token (S = 1) and Hv = H.
//
// Self attention: key and value are [batch, 1, D] and past_key and
// past_value a shared buffer [batch, num_heads, M, H] (attribute
// past_present_share_buffer 1 and past_sequence_length P, 0 ≤ P < M,
// required). With cache_indirection it is MultiHeadAttention's
// shared-buffer form, also for P = 0; beam_width, when given, must be
// cache_indirection's second dimension. Without it (beam_width absent or
// 1, P ≥ 1) past row j of batch b is its own, attention_bias is read at
// [b, n] as elsewhere, and mask_index masks keys where it is ≤ 0.
// present_key and present_value, [batch, num_heads, M, H], are the past
// with row P replaced by this run's K and V; qk is [batch, num_heads, 1,
// P + 1].
//
// Cross attention: without past_key, key and value are [batch,
// num_heads, L, H], read without bias; mask_index [batch, L] masks keys
// where it is ≤ 0; qk is [batch, num_heads, 1, L]. present_key and
// present_value hold key and value (onnxruntime's CPU kernel fails when
// they are used here).
//
// The qk output is written whether or not output_qk is 1. Refused, as
// onnxruntime's CPU kernel refuses them: a sequence length other than 1,
// Hv ≠ H, a mask_index not [batch, total], attention_bias in cross
// attention, past_key without past_present_share_buffer 1 or without
// past_sequence_length, beam_width > 1 without cache_indirection, packed
// Q, K and V. Refused where onnxruntime's CPU kernel takes all M rows of
// past_key for the past and writes beyond present_key's end: P = 0
// without cache_indirection, key and value of more than one token or
// 4-D with past_key; and 3-D key and value without past_key, which it
// reads as 4-D.
//
// Workspace: none (Q, K, V and a row of scores the kernel keeps).
func newDecoderMaskedMultiHeadAttention(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("num_heads", "scale", "mask_filter_value", "past_present_share_buffer", "output_qk"); err != nil {
		return nil, wrapAttr(err)
	}
	m := &mha{decoder: true, in: make([]*kernel.Tensor, 10), none: kernel.New(kernel.Float32, 0)}
	if err := m.readAttrs("DecoderMaskedMultiHeadAttention", attrs); err != nil {
		return nil, err
	}
	share, err := attrs.Int("past_present_share_buffer", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	m.share = share == 1
	if _, err := attrs.Int("output_qk", 0); err != nil {
		return nil, wrapAttr(err)
	}
	k := m.simple(m.decoderDims, func([]*kernel.Tensor) []*kernel.Tensor { return m.in })
	return newKernel(sig{op: "DecoderMaskedMultiHeadAttention", minIn: 1, maxIn: 11, nOut: 4, deps: kernel.Deps{Value: []int{7, 8}}}, &mhaCost{k, m.decoderDims}), nil
}

// decoderDims puts DecoderMaskedMultiHeadAttention's operands in into
// MultiHeadAttention's order (m.in), checks them and beam_width, and
// returns the sizes.
func (m *mha) decoderDims(in []*kernel.Tensor) (mhaDims, error) {
	at := func(i int) *kernel.Tensor {
		if t := optional(in, i); t != nil {
			return t
		}
		return m.none
	}
	for i, j := range [...]int{0, 1, 2, 10, 3, 4, 5, 6, 7, 9} {
		m.in[i] = at(j)
	}
	m.in[0] = in[0]
	d, err := m.dims(m.in)
	if err != nil {
		return d, err
	}
	if bw := optional(in, 8); bw != nil {
		if err := dtypeIn(bw, "beam_width", kernel.Int32); err != nil {
			return d, err
		}
		if bw.Shape.Rank() > 1 || bw.NumElements() != 1 {
			return d, fmt.Errorf("input beam_width %v: want a scalar or [1]", bw.Shape)
		}
		if bw.IsVirtual() {
			return d, errors.New("input beam_width: its value is unknown")
		}
		w := int64(kernel.Int32s(bw.Data())[0])
		switch {
		case d.w > 0 && w != d.w:
			return d, fmt.Errorf("input beam_width is %d: want cache_indirection's second dimension %d", w, d.w)
		case d.w == 0 && w > 1:
			return d, fmt.Errorf("input beam_width is %d: want cache_indirection with a beam width above 1", w)
		}
	}
	return d, nil
}

// decoderForm checks that DecoderMaskedMultiHeadAttention's operands are
// of a form onnxruntime's CPU kernel computes.
func (m *mha) decoderForm(d mhaDims, mask, ab *kernel.Tensor) error {
	switch {
	case d.s != 1:
		return fmt.Errorf("input query: sequence length %d, want 1, as onnxruntime's CPU kernel", d.s)
	case d.hv != d.h:
		return notImplemented("input value: head size %d, want query's %d: not implemented, as in onnxruntime's CPU kernel", d.hv, d.h)
	case mask != nil && mask.Shape.Rank() != 2:
		return notImplemented("input mask_index %v: only [batch, total] is implemented, as in onnxruntime's CPU kernel", mask.Shape)
	}
	if !d.share {
		switch {
		case !d.bnsh:
			return notImplemented("inputs key and value: 3-D without past_key is not implemented, as onnxruntime's CPU kernel reads them as [batch, num_heads, L, head_size]")
		case ab != nil:
			return notImplemented("input attention_bias in cross attention (without past_key): not implemented, as in onnxruntime's CPU kernel")
		}
		return nil
	}
	switch {
	case d.bnsh:
		return notImplemented("inputs key and value: 4-D with past_key is not implemented, as onnxruntime's CPU kernel reads all of past_key's rows and writes beyond present_key's end there")
	case d.l != 1:
		return notImplemented("inputs key and value with %d tokens: one token is implemented, as onnxruntime's CPU kernel reads its keys at the wrong rows otherwise", d.l)
	case d.w == 0 && d.p == 0:
		return notImplemented("input past_sequence_length 0 without cache_indirection: not implemented, as onnxruntime's CPU kernel reads all of past_key's rows and writes beyond present_key's end there")
	case d.w > 0 && ab != nil && ab.Shape[0] != 1 && ab.Shape[1] == 1 && (d.b/d.w-1)*d.n+1 > d.b:
		return notImplemented("input attention_bias %v with cache_indirection: onnxruntime's CPU kernel reads it at row (batch / beam width)·num_heads, beyond its end", ab.Shape)
	}
	return nil
}
