package actor

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestOperandKeyIsTheVarintEncoding checks appendOperand's fast path
// against the plain encoding it abbreviates: the dtype, the rank as a
// uvarint, each dimension as a varint.
func TestOperandKeyIsTheVarintEncoding(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	edges := []int64{0, 1, 62, 63, 64, 65, 127, 128, -1, -64, math.MaxInt64, math.MinInt64}
	for i := 0; i < 2000; i++ {
		rank := rng.IntN(6)
		if i%100 == 0 {
			rank = 120 + rng.IntN(20) // past one byte of rank
		}
		shape := make([]int64, rank)
		for j := range shape {
			switch rng.IntN(3) {
			case 0:
				shape[j] = edges[rng.IntN(len(edges))]
			case 1:
				shape[j] = rng.Int64N(200)
			default:
				shape[j] = int64(rng.Uint64())
			}
		}
		tn := &kernel.Tensor{DType: kernel.DType(rng.IntN(12)), Shape: shape}
		want := binary.AppendUvarint([]byte{byte(tn.DType)}, uint64(rank))
		for _, d := range shape {
			want = binary.AppendVarint(want, d)
		}
		if got := appendOperand(nil, tn); !bytes.Equal(got, want) {
			t.Fatalf("shape %v: key %x, want %x", shape, got, want)
		}
	}
}
