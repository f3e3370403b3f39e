package moe

// Reference computes the layer on one device with plain loops, none of the
// machinery: out[t] = Σ_k w[t,k] · (x[t] ⊙ expert[idx[t,k]]), summed in k
// order from +0, every product rounded to float32. Every variant's result
// equals it bit for bit. An input that fails Check has no reference: nil.
func Reference(in *Input) [][]float32 {
	if in.Check() != nil {
		return nil
	}
	p := in.P
	out := make([][]float32, p.Ranks)
	for r := range p.Ranks {
		out[r] = make([]float32, in.Counts[r]*p.Hidden)
		for t := range in.Counts[r] {
			x := in.X[r][t*p.Hidden : (t+1)*p.Hidden]
			o := out[r][t*p.Hidden : (t+1)*p.Hidden]
			for k := range p.TopK {
				e := int(in.Idx[r][t*p.TopK+k])
				w := in.W[r][t*p.TopK+k]
				ew := in.Experts[e*p.Hidden : (e+1)*p.Hidden]
				for h := range o {
					o[h] = combineTerm(o[h], w, expertMul(x[h], ew[h]))
				}
			}
		}
	}
	return out
}

// expertMul is the "grouped GEMM" of one element: rounded to float32.
func expertMul(x, w float32) float32 { return float32(x * w) }

// combineTerm adds one expert's weighted output to the accumulator, the
// product rounded before the sum (no fused multiply-add on any
// architecture).
func combineTerm(acc, w, y float32) float32 { return acc + float32(w*y) }
