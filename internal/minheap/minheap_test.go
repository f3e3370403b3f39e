package minheap_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipert/pipert/internal/minheap"
)

type num int

func (a num) Less(b num) bool { return a < b }

// TestPopsInOrder: against sorting, with pushes and pops interleaved.
func TestPopsInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 200 {
		var h minheap.Heap[num]
		var ref []num
		for range rng.IntN(80) {
			if len(ref) > 0 && rng.IntN(3) == 0 {
				slices.Sort(ref)
				if got := h.Pop(); got != ref[0] {
					t.Fatalf("popped %d, want %d", got, ref[0])
				}
				ref = ref[1:]
				continue
			}
			x := num(rng.IntN(50))
			h.Push(x)
			ref = append(ref, x)
		}
		slices.Sort(ref)
		for _, want := range ref {
			if got := h.Pop(); got != want {
				t.Fatalf("popped %d, want %d", got, want)
			}
		}
		if h.Len() != 0 {
			t.Fatal("heap not empty")
		}
	}
}

func TestAllocatesOnlyToGrow(t *testing.T) {
	h := make(minheap.Heap[num], 0, 64)
	if n := testing.AllocsPerRun(100, func() {
		for i := range 64 {
			h.Push(num(64 - i))
		}
		for range 64 {
			h.Pop()
		}
	}); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}
