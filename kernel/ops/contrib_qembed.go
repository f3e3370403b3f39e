package ops

import (
	"errors"
	"fmt"
	"math"

	"github.com/pipert/pipert/kernel"
)

// QEmbedLayerNormalization (domain com.microsoft) is EmbedLayerNormalization
// of the models onnxruntime's dynamic quantization writes (BERT-like ones
// after its transformer optimizer): inputs input_ids, segment_ids
// (optional), word_embedding, position_embedding, segment_embedding
// (optional), gamma, beta (the tables and the two vectors int8 or uint8,
// of one dtype), mask (optional), then each one's scale (float32) and
// zero point (its dtype), scalars or 1-element vectors, in that order
// (inputs 8 to 12 and 13 to 17; a segment's only with segment_ids);
// attribute epsilon (1e-12). Output 0 is float32 [batch, sequence,
// hidden]: per token, the word row of its id, the position row of its
// position in the sequence and the segment row of its segment,
// dequantized ((q − zero point)·scale in float32) and summed in that
// order in float32, normalized as onnxruntime's kernel does in float32
// (mean, then the mean of the squared deviations, √(· + epsilon)), then
// times gamma plus beta, dequantized; an id out of its table's range is
// an error. Output 1 (mask_index, int32 [batch]) counts the mask's ones of
// each sequence (0 without a mask).
func newQEmbedLayerNorm(attrs kernel.Attrs) (kernel.Kernel, error) {
	eps, err := epsilonAttr("QEmbedLayerNormalization", attrs)
	if err != nil {
		return nil, err
	}
	epsF := float32(eps)
	names := [...]string{"word_embedding", "position_embedding", "segment_embedding", "gamma", "beta"}
	check := func(in []*kernel.Tensor) (batch, seq, h int64, err error) {
		ids := in[0]
		if err := dtypeIn(ids, "input_ids", kernel.Int32); err != nil {
			return 0, 0, 0, err
		}
		if ids.Shape.Rank() != 2 {
			return 0, 0, 0, fmt.Errorf("input_ids %v: want 2 dimensions [batch, sequence]", ids.Shape)
		}
		batch, seq = ids.Shape[0], ids.Shape[1]
		segs := optional(in, 1) != nil
		for _, c := range []struct {
			i    int
			name string
		}{{1, "segment_ids"}, {7, "mask"}} {
			if t := optional(in, c.i); t != nil {
				if err := dtypeIn(t, c.name, kernel.Int32); err != nil {
					return 0, 0, 0, err
				}
				if !t.Shape.Equal(ids.Shape) {
					return 0, 0, 0, fmt.Errorf("input %s %v: want input_ids' shape %v", c.name, t.Shape, ids.Shape)
				}
			}
		}
		we := in[2]
		if err := dtypeIn(we, "word_embedding", qTypes...); err != nil {
			return 0, 0, 0, err
		}
		if we.Shape.Rank() != 2 {
			return 0, 0, 0, fmt.Errorf("input word_embedding %v: want 2 dimensions [vocabulary, hidden]", we.Shape)
		}
		h = we.Shape[1]
		for j, name := range names {
			if j == 2 && !segs {
				continue
			}
			t := in[2+j]
			if j == 2 && optional(in, 4) == nil {
				return 0, 0, 0, errors.New("input segment_embedding is required with segment_ids")
			}
			if t.DType != we.DType {
				return 0, 0, 0, fmt.Errorf("input %s has dtype %v, want word_embedding's %v", name, t.DType, we.DType)
			}
			switch {
			case j < 3 && (t.Shape.Rank() != 2 || t.Shape[1] != h):
				return 0, 0, 0, fmt.Errorf("input %s %v: want [rows, %d] (word_embedding's hidden size)", name, t.Shape, h)
			case j >= 3 && !t.Shape.Equal(kernel.Shape{h}):
				return 0, 0, 0, fmt.Errorf("input %s %v: want [%d]", name, t.Shape, h)
			}
			if err := qScaleIn(in[8+j], name+"_scale"); err != nil {
				return 0, 0, 0, err
			}
			if qAbsent(in[13+j]) {
				return 0, 0, 0, fmt.Errorf("input %s_zero_point is required", name)
			}
			if err := qZeroIn(in, 13+j, name+"_zero_point", we.DType); err != nil {
				return 0, 0, 0, err
			}
		}
		if in[3].Shape[0] < seq {
			return 0, 0, 0, fmt.Errorf("input position_embedding %v: want at least %d rows (the sequence length)", in[3].Shape, seq)
		}
		return batch, seq, h, nil
	}
	var row []float32 // one token's sum, kept from run to run
	k := &simple{flops: 10}
	k.inferF = func(in, out []*kernel.Tensor) error {
		batch, seq, h, err := check(in)
		if err != nil {
			return err
		}
		setShape(out[0], kernel.Shape{batch, seq, h}, kernel.Float32)
		if len(out) > 1 {
			setShape(out[1], kernel.Shape{batch}, kernel.Int32)
		}
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		batch, seq, h, err := check(a.In)
		if err != nil {
			return err
		}
		if !a.Out[0].Shape.Equal(kernel.Shape{batch, seq, h}) || a.Out[0].DType != kernel.Float32 {
			return errors.New("operands differ from the inferred ones")
		}
		in := a.In
		dt := in[2].DType
		// deq is onnxruntime's Dequantize of element i of table j.
		var sc [5]float32
		var zp [5]int64
		for j := range names {
			if j == 2 && optional(in, 1) == nil {
				continue
			}
			sc[j], zp[j] = qScale(in[8+j]), qZero(in, 13+j)
		}
		deq := func(j int, i int64) float32 {
			return mul(float32(int32(loadI(dt, in[2+j].Data(), i)-zp[j])), sc[j])
		}
		ids := kernel.Int32s(in[0].Data())
		var segIDs []int32
		if t := optional(in, 1); t != nil {
			segIDs = kernel.Int32s(t.Data())
		}
		y := kernel.Float32s(a.Out[0].Data())
		if int64(cap(row)) < h {
			row = make([]float32, h)
		}
		row = row[:h]
		for t := range batch * seq {
			w := int64(ids[t])
			if w < 0 || w >= in[2].Shape[0] {
				return fmt.Errorf("input_ids[%d] is %d, out of word_embedding's %d rows", t, w, in[2].Shape[0])
			}
			p := t % seq
			var s int64 = -1
			if segIDs != nil {
				if s = int64(segIDs[t]); s < 0 || s >= in[4].Shape[0] {
					return fmt.Errorf("segment_ids[%d] is %d, out of segment_embedding's %d rows", t, s, in[4].Shape[0])
				}
			}
			var sum float32
			for i := range h {
				v := deq(0, w*h+i) + deq(1, p*h+i)
				if s >= 0 {
					v += deq(2, s*h+i)
				}
				row[i] = v
				sum += v
			}
			mean := sum / float32(h)
			sum = 0
			for i := range h {
				d := row[i] - mean
				row[i] = d
				sum += mul(d, d)
			}
			e := float32(math.Sqrt(float64(sum/float32(h) + epsF)))
			out := y[t*h : (t+1)*h]
			for i := range h {
				out[i] = mul(row[i]/e, deq(3, i)) + deq(4, i)
			}
		}
		if len(a.Out) > 1 {
			maskIndex(kernel.Int32s(a.Out[1].Data()), optional(in, 7), batch, seq)
		}
		return nil
	}
	return newKernel(sig{op: "QEmbedLayerNormalization", minIn: 18, maxIn: 18, nOut: 2}, k), nil
}
