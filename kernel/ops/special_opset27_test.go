package ops

import (
	"fmt"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "CausalConvWithState", "LinearAttention")
}

// TestSpecialCausalConvWithState puts every special value of float32 and
// float16 at every position of the input, weight, bias and past_state of
// a small convolution, without and with SiLU, bit for bit against
// refCausalConv rounded once; present_state keeps every bit of the
// elements it carries, NaN payloads included.
func TestSpecialCausalConvWithState(t *testing.T) {
	// B 1, C 2, L 3, k 3: input 6, weight 6, bias 2, past_state 4.
	base := []float64{0.5, -1, 1.5, 0.25, 1, -2, 0.75, -0.5, 1, 2, -1.25, 0.5, 1, -1, 0.5, 2, -3, 0.25}
	for _, dt := range []kernel.DType{kernel.Float32, kernel.Float16} {
		for _, act := range []string{"none", "silu"} {
			for pos := range base {
				for _, s := range sweepBits(dt) {
					b, x := withSpecial(dt, base, pos, s)
					in := []*kernel.Tensor{bitsTensor(dt, shp(1, 2, 3), b[0:6]), bitsTensor(dt, shp(2, 1, 3), b[6:12]),
						bitsTensor(dt, shp(2), b[12:14]), bitsTensor(dt, shp(1, 2, 2), b[14:18])}
					out, err := runOp("CausalConvWithState", kernel.Attrs{"activation": act}, in...)
					if err != nil {
						t.Fatal(err)
					}
					y, _ := refCausalConv(x[0:6], 1, 2, 3, x[6:12], 3, x[12:14], x[14:18], act == "silu")
					what := fmt.Sprintf("CausalConvWithState/%v %s, element %d = %s", dt, act, pos, showBits(dt, s))
					checkBits(t, what, out[0], dt, shp(1, 2, 3), rounded(dt, y), false, func(i int) string { return fmt.Sprint("output ", i, " of ", x) })
					// The state is the last two inputs of each channel.
					checkBits(t, what, out[1], dt, shp(1, 2, 2), []uint64{b[1], b[2], b[4], b[5]}, true, func(i int) string { return fmt.Sprint("state ", i) })
				}
			}
		}
	}
}

// TestSpecialLinearAttention puts every special value of float32 and
// float16 at every position of the operands of two-token problems of each update rule —
// two query heads on one key/value head, decay per key dimension and per
// head, a past state — bit for bit against refLinearAttention rounded
// once.
func TestSpecialLinearAttention(t *testing.T) {
	for _, dt := range []kernel.DType{kernel.Float32, kernel.Float16} {
		specialLinearAttention(t, dt)
	}
}

func specialLinearAttention(t *testing.T, dt kernel.DType) {
	// B 1, T 2, H_q 2, H_kv 1, d_k 2, d_v 2.
	q := []float64{0.5, -1, 1.5, 0.25, 1, 0.5, -0.75, 2}
	k := []float64{0.6, 0.8, -1, 0}
	v := []float64{1, -2, 0.5, 3}
	past := []float64{0.25, -0.5, 1, 0.125}
	decayKey := []float64{-0.5, -0.25, -1, 0}
	decayHead := []float64{-0.5, -2}
	beta := []float64{0.5, 0.75}
	for _, c := range []struct {
		rule         string
		decay, beta  []float64
		perKey, past bool
	}{
		{"linear", nil, nil, false, true},
		{"gated", decayKey, nil, true, true},
		{"gated", decayHead, nil, false, false},
		{"delta", nil, beta, false, true},
		{"gated_delta", decayKey, beta, true, true},
		{"gated_delta", decayHead, beta, false, true},
	} {
		ops := [][]float64{q, k, v, nil, c.decay, c.beta}
		if c.past {
			ops[3] = past
		}
		var flat []float64
		for _, o := range ops {
			flat = append(flat, o...)
		}
		for pos := range flat {
			for _, s := range sweepBits(dt) {
				b, x := withSpecial(dt, flat, pos, s)
				ref := laRef{B: 1, T: 2, Hq: 2, Hkv: 1, dk: 2, dv: 2, rule: c.rule, perKey: c.perKey, betaW: 1}
				in := make([]*kernel.Tensor, 6)
				at := 0
				for i, o := range ops {
					n := len(o)
					part := x[at : at+n]
					at += n
					var shape []int64
					switch i {
					case 0:
						ref.q, shape = part, shp(1, 2, 4)
					case 1:
						ref.k, shape = part, shp(1, 2, 2)
					case 2:
						ref.v, shape = part, shp(1, 2, 2)
					case 3:
						ref.past, shape = part, shp(1, 1, 2, 2)
					case 4:
						ref.decay, shape = part, shp(1, 2, int64(n/2))
					case 5:
						ref.beta, shape = part, shp(1, 2, 1)
					}
					if n == 0 {
						in[i] = f32(shp(0))
						if i == 3 {
							ref.past = nil
						}
						continue
					}
					in[i] = bitsTensor(dt, shape, b[at-n:at])
				}
				out, err := runOp("LinearAttention", kernel.Attrs{"q_num_heads": int64(2), "kv_num_heads": int64(1), "update_rule": c.rule}, in...)
				if err != nil {
					t.Fatal(err)
				}
				y, state := refLinearAttention(ref)
				what := fmt.Sprintf("LinearAttention/%v %s decay %v, element %d = %s", dt, c.rule, c.decay, pos, showBits(dt, s))
				checkBits(t, what, out[0], dt, shp(1, 2, 4), rounded(dt, y), false, func(i int) string { return fmt.Sprint("output ", i, " of ", x) })
				checkBits(t, what, out[1], dt, shp(1, 1, 2, 2), rounded(dt, state), false, func(i int) string { return fmt.Sprint("state ", i, " of ", x) })
			}
		}
	}
}

// withSpecial returns the bits of base rounded to dt with element pos
// replaced by the special value s, and the values those bits hold.
func withSpecial(dt kernel.DType, base []float64, pos int, s uint64) ([]uint64, []float64) {
	b := rounded(dt, base)
	b[pos] = s
	x := make([]float64, len(b))
	for i := range b {
		x[i] = refValue(dt, b[i])
	}
	return b, x
}
