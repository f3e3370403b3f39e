package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "LSTM", "GRU", "RNN")
}

// TestSpecialRecurrentNaN: the recurrent cells' long chains of roundings
// are the kernel's (float64_test.go checks them against a float64
// reference within a tolerance); what the definition fixes whatever the
// order is where a special value goes. A NaN or ±Inf·0 (an infinite input
// against a zero weight) in one batch entry's input at step s makes that
// entry's hidden state NaN at step s and at every later one, and leaves its
// earlier steps and every other batch entry the bits of the same run
// without it.
func TestSpecialRecurrentNaN(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const seq, batch, in, h = 4, 2, 3, 2
	for _, cell := range []string{"LSTM", "GRU", "RNN"} {
		g := map[string]int64{"LSTM": 4, "GRU": 3, "RNN": 1}[cell]
		for _, dt := range sweepFloats {
			rnd := func(n int64) []uint64 {
				b := make([]uint64, n)
				for i := range b {
					b[i] = refBits(dt, r.NormFloat64()/2)
				}
				return b
			}
			x, w, rw := rnd(seq*batch*in), rnd(g*h*in), rnd(g*h*h)
			// Input feature 2 has zero weights: an Inf there is Inf·0.
			for j := range g * h {
				w[j*in+2] = refBits(dt, 0)
			}
			run := func(x []uint64) []uint64 {
				out, err := runOp(cell, kernel.Attrs{"hidden_size": int64(h)}, bitsTensor(dt, shp(seq, batch, in), x),
					bitsTensor(dt, shp(1, g*h, in), w), bitsTensor(dt, shp(1, g*h, h), rw))
				if err != nil {
					t.Fatalf("%s/%v: %v", cell, dt, err)
				}
				return tensorBits(out[0]) // Y [seq, 1, batch, h]
			}
			clean := run(x)
			for _, sp := range []struct {
				what    string
				feature int64
				bits    uint64
			}{{"NaN", 0, refBits(dt, math.NaN())}, {"+Inf against zero weights", 2, refBits(dt, math.Inf(1))}, {"-Inf against zero weights", 2, refBits(dt, math.Inf(-1))}} {
				for step := range int64(seq) {
					y := append([]uint64(nil), x...)
					y[(step*batch+0)*in+sp.feature] = sp.bits
					got := run(y)
					for i, b := range got {
						st, be := int64(i)/(batch*h), int64(i)/h%batch
						name := fmt.Sprintf("%s/%v: %s in batch entry 0 at step %d: Y step %d entry %d", cell, dt, sp.what, step, st, be)
						if be == 0 && st >= step {
							if !isNaNBits(dt, b) {
								t.Errorf("%s: %s, want NaN", name, showBits(dt, b))
							}
						} else if b != clean[i] {
							t.Errorf("%s: %s, want %s as without it", name, showBits(dt, b), showBits(dt, clean[i]))
						}
					}
				}
			}
		}
	}
}
