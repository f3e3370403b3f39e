package ops

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func TestSplitElemsFitsTheCoreArray(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	for range 2000 {
		total := r.Int64N(1 << uint(r.IntN(34)))
		es := []int{1, 2, 4, 8}[r.IntN(4)]
		buffers := 2 + r.IntN(6)
		s := splitElems(total, es, buffers)
		if s.tileLen <= 0 || s.tileLen%tileAlign != 0 || s.tileLen*int64(es*buffers) > localMem {
			t.Fatalf("split(%d, %d, %d) = %+v: tile not aligned or too large", total, es, buffers, s)
		}
		if s.tiles*s.tileLen < total || (s.tiles > 0 && (s.tiles-1)*s.tileLen >= total) {
			t.Fatalf("split(%d, %d, %d) = %+v: tiles do not cover total exactly", total, es, buffers, s)
		}
		if s.cores > numCores || s.cores*s.tilesPerCore < s.tiles || (total > 0) != (s.cores > 0) {
			t.Fatalf("split(%d, %d, %d) = %+v: cores do not cover tiles", total, es, buffers, s)
		}
		// The busiest core does at most one aligned tile more than an even
		// share; when tiles are not capped by local memory, at most the
		// even share rounded up to the alignment.
		capacity := int64(localMem/buffers/es) / tileAlign * tileAlign
		load, even := s.tilesPerCore*s.tileLen, ceilDiv(total, numCores)
		if (s.tileLen < capacity && load >= even+tileAlign) || load >= even+s.tileLen {
			t.Fatalf("split(%d, %d, %d) = %+v: unbalanced, busiest core %d elements, even share %d", total, es, buffers, s, load, even)
		}
	}
}

func tilingWords(t *testing.T, op string, attrs kernel.Attrs, in ...*kernel.Tensor) ([]int64, int64) {
	t.Helper()
	k, err := Builtins().New(op, attrs)
	if err != nil {
		t.Fatal(err)
	}
	out := []*kernel.Tensor{{}}
	if err := k.InferShape(in, out); err != nil {
		t.Fatal(err)
	}
	var tl kernel.Tiling
	if err := k.Resize(in, out, &tl); err != nil {
		t.Fatal(err)
	}
	d := decoder{b: tl.Data}
	w := make([]int64, len(tl.Data)/8)
	for i := range w {
		w[i] = d.word()
	}
	return w, tl.Workspace
}

func TestTilingLayouts(t *testing.T) {
	v := func(s ...int64) *kernel.Tensor { return kernel.Virtual(kernel.Float32, s...) }
	for _, c := range []struct {
		name  string
		op    string
		attrs kernel.Attrs
		in    []*kernel.Tensor
		want  []int64
		ws    int64
	}{
		// [8,1]+[16] → [8,16]: 128 elements, 64-element tiles on 2 cores;
		// loop [8,16] with A strides [1,0], B strides [0,1].
		{"Add bias", "Add", nil, []*kernel.Tensor{v(8, 1), v(16)}, []int64{128, 64, 2, 2, 1, 2, 8, 16, 1, 0, 0, 1}, 0},
		// Same shapes coalesce to one contiguous run.
		{"Add same", "Add", nil, []*kernel.Tensor{v(4, 5, 6), v(4, 5, 6)}, []int64{120, 64, 2, 2, 1, 1, 120, 1, 1}, 0},
		// 2^20 float32 over 32 cores: the 6 tiles of a binary op cap a tile
		// at 256 KiB / 6 / 4 bytes = 10922 → 10880 elements.
		{"Add large", "Add", nil, []*kernel.Tensor{v(1 << 20), v(1)}, []int64{1 << 20, 10880, 97, 32, 4, 1, 1 << 20, 1, 0}, 0},
		// Transpose [2,3,4] with perm [0,2,1]: loop [2,4,3], strides [12,1,4].
		{"Transpose", "Transpose", kernel.Attrs{"perm": []int64{0, 2, 1}}, []*kernel.Tensor{v(2, 3, 4)}, []int64{24, 64, 1, 1, 1, 3, 0, 2, 4, 3, 12, 1, 4}, 0},
		// Slice rows 1..2 of [4,5] reversed columns: base 1·5+4, strides [5,-1].
		{"Slice", "Slice", kernel.Attrs{"starts": []int64{1, -1}, "ends": []int64{3, -6}, "steps": []int64{1, -1}}, []*kernel.Tensor{v(4, 5)}, []int64{10, 64, 1, 1, 1, 2, 9, 2, 5, 5, -1}, 0},
		// LayerNorm over [3,4] rows of 10 float32: 12 rows on 12 cores.
		{"LayerNorm", "LayerNorm", kernel.Attrs{"axis": -1, "epsilon": 0.5}, []*kernel.Tensor{v(3, 4, 10), v(10)}, []int64{12, 10, 1, 12, 64, 0x3fe0000000000000, 0}, 12 * 8},
		// ReduceSum of [2,3,4] over axis 1: 8 outputs of 3, kept loop [2,4]
		// strides [12,1], reduced loop [3] stride 4; 8 outputs fit one core,
		// so no partial sums.
		{"ReduceSum", "ReduceSum", kernel.Attrs{"axes": []int64{1}}, []*kernel.Tensor{v(2, 3, 4)}, []int64{8, 3, 1, 8, 3, 2, 2, 4, 12, 1, 1, 3, 4}, 0},
		{"Concat", "Concat", kernel.Attrs{"axis": 1}, []*kernel.Tensor{v(2, 3, 4), v(2, 1, 4)}, []int64{32, 64, 1, 1, 1, 2, 2, 12, 4}, 0},
		{"Gather", "Gather", kernel.Attrs{"axis": 1}, []*kernel.Tensor{v(2, 3, 4), kernel.Virtual(kernel.Int64, 5)}, []int64{40, 64, 1, 1, 1, 2, 3, 4, 5}, 0},
		{"Unique", "Unique", nil, []*kernel.Tensor{v(1000)}, []int64{1000, 16, 63}, 4000},
		{"NonZero", "NonZero", nil, []*kernel.Tensor{v(10, 10)}, []int64{100, 2, 2, 50}, 16},
	} {
		got, ws := tilingWords(t, c.op, c.attrs, c.in...)
		if !slices.Equal(got, c.want) || ws != c.ws {
			t.Errorf("%s: tiling %v workspace %d\nwant %v workspace %d", c.name, got, ws, c.want, c.ws)
		}
	}
}
