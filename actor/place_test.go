package actor

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// placeRef is place as first written: every placed item checked against
// the new one, the placed kept in a list sorted by offset. The reference
// of TestPlaceMatchesReference.
func placeRef(items []planItem) int64 {
	var arena int64
	var placed, near []int
	for i := range items {
		it := &items[i]
		near = near[:0]
		for _, j := range placed {
			if o := &items[j]; o.start <= it.end && it.start <= o.end {
				near = append(near, j)
			}
		}
		best, bestGap := int64(-1), int64(-1)
		var cur int64
		for _, j := range near {
			o := &items[j]
			if gap := o.off - cur; gap >= it.size && (bestGap < 0 || gap < bestGap) {
				best, bestGap = cur, gap
			}
			cur = max(cur, o.off+o.size)
		}
		if best < 0 {
			best = cur
		}
		it.off = best
		arena = max(arena, it.off+it.size)
		k, _ := slices.BinarySearchFunc(placed, it.off, func(j int, off int64) int {
			switch {
			case items[j].off < off:
				return -1
			case items[j].off > off:
				return 1
			}
			return 0
		})
		placed = slices.Insert(placed, k, i)
	}
	return arena
}

// TestPlaceMatchesReference: on random lifetimes and sizes, place gives
// every item the offset the all-pairs reference gives, and the same arena.
func TestPlaceMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for c := range 3000 {
		n := 1 + rng.IntN(60)
		steps := 1 + rng.IntN(40)
		if c%3 == 0 { // lifetimes over many blocks of the index, some to the end
			n, steps = 1+rng.IntN(300), 1+rng.IntN(1000)
		}
		items := make([]planItem, n)
		for i := range items {
			a, b := rng.IntN(steps), rng.IntN(steps)
			if c%3 == 0 && rng.IntN(3) == 0 {
				b = steps - 1
			}
			items[i] = planItem{slot: i, start: min(a, b), end: max(a, b), size: int64(1 + rng.IntN(8)*64)}
		}
		ref := slices.Clone(items)
		got, want := place(items), placeRef(ref)
		if got != want {
			t.Fatalf("case %d: arena %d, reference %d", c, got, want)
		}
		for i := range items {
			if items[i].off != ref[i].off {
				t.Fatalf("case %d: item %d at %d, reference %d", c, i, items[i].off, ref[i].off)
			}
		}
	}
}

// TestPlaceLongChain: a chain of 100 000 short-lived tensors places
// (the all-pairs placement took 40 s).
func TestPlaceLongChain(t *testing.T) {
	items := make([]planItem, 100_000)
	for i := range items {
		items[i] = planItem{slot: i, start: i, end: i + 1, size: 64}
	}
	if a := place(items); a != 128 {
		t.Fatalf("arena %d, want 128", a)
	}
}

// TestPlaceWideFanOut: 3 000 tensors alive from their producer to the end
// of the graph (a fan-out into one Concat) place; walking every step of
// every lifetime took time cubic in their number (minutes).
func TestPlaceWideFanOut(t *testing.T) {
	const n = 3000
	items := make([]planItem, n)
	for i := range items {
		items[i] = planItem{slot: i, start: i, end: n, size: 64}
	}
	if a := place(items); a != 64*n {
		t.Fatalf("arena %d, want %d", a, 64*n)
	}
}
