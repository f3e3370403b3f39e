package alloc

import (
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestBitmapAgainstBools checks every bitmap operation against a []bool
// over random operations, for sizes that give one, two and three levels.
func TestBitmapAgainstBools(t *testing.T) {
	for _, n := range []int{1, 63, 64, 65, 511, 512, 513, 4096, 40_000, 300_000} {
		r := rand.New(rand.NewPCG(uint64(n), 3))
		b := newBitmap(n)
		ref := make([]bool, n)
		for _, lv := range b.levels {
			if uintptr(unsafe.Pointer(&lv[0]))%cacheLine != 0 {
				t.Fatalf("n=%d: level not cache-line aligned", n)
			}
		}
		ops := 3000
		for op := range ops {
			i := r.IntN(n)
			j := min(n, i+1+r.IntN(min(n, 1+r.IntN(3)*700)))
			// Keep the set sparse most of the time so searches travel.
			switch x := r.IntN(10); {
			case x < 2:
				b.set(i)
				ref[i] = true
			case x < 5:
				b.clear(i)
				ref[i] = false
			case x < 6:
				for k := i; k < j; k++ {
					b.set(k)
					ref[k] = true
				}
			case x < 7:
				// move: from a set bit to a clear one.
				if from, to := refNext(ref, i), refNext(invert(ref), j-1); from >= 0 && to >= 0 {
					b.move(from, to)
					ref[from], ref[to] = false, true
				}
			default:
				for k := i; k < j; k++ {
					b.clear(k)
					ref[k] = false
				}
			}
			q := r.IntN(n+2) - 1
			if got, want := b.next(q), refNext(ref, q); got != want {
				t.Fatalf("n=%d op %d: next(%d) = %d, want %d", n, op, q, got, want)
			}
			if got, want := b.prev(q), refPrev(ref, q); got != want {
				t.Fatalf("n=%d op %d: prev(%d) = %d, want %d", n, op, q, got, want)
			}
			if q >= 0 && q < n && b.get(q) != ref[q] {
				t.Fatalf("n=%d op %d: get(%d) = %v", n, op, q, b.get(q))
			}
			if op%500 == 0 {
				if err := checkBitmap(&b); err != nil {
					t.Fatalf("n=%d op %d: %v", n, op, err)
				}
				c := 0
				for _, v := range ref {
					if v {
						c++
					}
				}
				if b.count() != c {
					t.Fatalf("n=%d op %d: count %d, want %d", n, op, b.count(), c)
				}
			}
		}
	}
}

func refNext(ref []bool, i int) int {
	for i = max(i, 0); i < len(ref); i++ {
		if ref[i] {
			return i
		}
	}
	return -1
}

func invert(ref []bool) []bool {
	out := make([]bool, len(ref))
	for i, v := range ref {
		out[i] = !v
	}
	return out
}

func refPrev(ref []bool, i int) int {
	for i = min(i, len(ref)-1); i >= 0; i-- {
		if ref[i] {
			return i
		}
	}
	return -1
}

// TestBitmapClearOnly checks that clearing the only set bit leaves an empty
// bitmap with consistent summaries, for bits on every level's line edges.
func TestBitmapClearOnly(t *testing.T) {
	for _, n := range []int{1, 64, 513, 300_000} {
		b := newBitmap(n)
		for _, i := range []int{0, n / 3, n / 2, n - 1, 511 % n, 512 % n} {
			b.set(i)
			if got := b.next(0); got != i {
				t.Fatalf("n=%d: next(0) = %d after set(%d)", n, got, i)
			}
			b.clearOnly(i)
			if err := checkBitmap(&b); err != nil {
				t.Fatalf("n=%d: clearOnly(%d): %v", n, i, err)
			}
			if c := b.count(); c != 0 || b.next(0) != -1 {
				t.Fatalf("n=%d: clearOnly(%d) left %d bits", n, i, c)
			}
		}
	}
}
