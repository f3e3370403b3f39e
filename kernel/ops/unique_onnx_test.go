package ops

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestUniqueONNXAgainstNaive checks ONNX's Unique, with and without axis,
// sorted and not, against a map of slice keys.
func TestUniqueONNXAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for it := range 200 {
		shape := []int64{int64(1 + r.IntN(3)), int64(1 + r.IntN(4)), int64(1 + r.IntN(2))}
		x := kernel.New(kernel.Int64, shape...)
		v := kernel.Int64s(x.Host)
		for i := range v {
			v[i] = int64(r.IntN(3))
		}
		sorted := r.IntN(2) == 0
		attrs := kernel.Attrs{"sorted": map[bool]int64{false: 0, true: 1}[sorted], "outputs": int64(4)}
		axis := -1
		if r.IntN(2) == 0 {
			axis = r.IntN(3)
			attrs["axis"] = int64(axis)
		}
		out, err := runOp("Unique", attrs, x)
		if err != nil {
			t.Fatal(err)
		}
		// Naive: the slices along axis (or the elements), as strings.
		var n, outer, inner int64 = x.NumElements(), 1, 1
		if axis >= 0 {
			outer, n, inner = around(kernel.Shape(shape), axis)
		}
		slice := func(p int64) []int64 {
			var s []int64
			for o := range outer {
				for i := range inner {
					s = append(s, v[(o*n+p)*inner+i])
				}
			}
			return s
		}
		var keys [][]int64
		first := map[string]int64{}
		count := map[string]int64{}
		for p := range n {
			k := fmt.Sprint(slice(p))
			if _, ok := first[k]; !ok {
				first[k] = p
				keys = append(keys, slice(p))
			}
			count[k]++
		}
		if sorted {
			slices.SortFunc(keys, slices.Compare)
		}
		u := int64(len(keys))
		idx := kernel.Int64s(out[1].Data())
		inv := kernel.Int64s(out[2].Data())
		cnt := kernel.Int64s(out[3].Data())
		if out[1].Shape[0] != u {
			t.Fatalf("case %d (axis %d sorted %v): %d distinct, want %d", it, axis, sorted, out[1].Shape[0], u)
		}
		pos := map[string]int64{}
		for i, k := range keys {
			s := fmt.Sprint(k)
			pos[s] = int64(i)
			if idx[i] != first[s] || cnt[i] != count[s] || fmt.Sprint(slice(idx[i])) != s {
				t.Fatalf("case %d (axis %d sorted %v): value %d: index %d count %d, want %d %d", it, axis, sorted, i, idx[i], cnt[i], first[s], count[s])
			}
		}
		for p := range n {
			if inv[p] != pos[fmt.Sprint(slice(p))] {
				t.Fatalf("case %d: inverse[%d] = %d, want %d", it, p, inv[p], pos[fmt.Sprint(slice(p))])
			}
		}
		// Y holds the distinct slices in order.
		y := kernel.Int64s(out[0].Data())
		for i, k := range keys {
			for o := range outer {
				for j := range inner {
					if got := y[(o*u+int64(i))*inner+j]; got != k[o*inner+j] {
						t.Fatalf("case %d: Y slice %d differs", it, i)
					}
				}
			}
		}
	}
}
