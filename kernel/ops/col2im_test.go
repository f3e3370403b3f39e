package ops

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "Col2Im")
}

// TestCol2ImByHand: 2×2 blocks of a 3×3 image, stride 1: four blocks,
// the columns 1 to 16 (column k of block l holds 4k+l+1), summed where
// the blocks overlap, computed by hand.
func TestCol2ImByHand(t *testing.T) {
	x := f32(shp(1, 4, 4), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)
	got := mustRun(t, "Col2Im", nil, x, i64(shp(2), 3, 3), i64(shp(2), 2, 2))
	checkValues(t, "Col2Im", got, shp(1, 1, 3, 3), []float64{1, 7, 6, 12, 34, 22, 11, 27, 16})
	// ONNX's example: 1×5 blocks of a 5×5 image are its rows.
	v := make([]float64, 25)
	want := make([]float64, 25)
	for i := range v {
		v[i] = float64(i)
		want[i%5*5+i/5] = float64(i) // column k of block l is pixel (l, k)
	}
	got = mustRun(t, "Col2Im", nil, f32(shp(1, 5, 5), v...), i64(shp(2), 5, 5), i64(shp(2), 1, 5))
	checkValues(t, "Col2Im example", got, shp(1, 1, 5, 5), want)
	// Padding drops what falls outside the image; a stride of 2 leaves
	// pixel 1 uncovered (0). 1-D: image 3, block 2, pads 1 and 1: blocks
	// at -1, 1, 3 (the last one only its first element, at 3: dropped).
	got = mustRun(t, "Col2Im", kernel.Attrs{"pads": []int64{1, 1}, "strides": []int64{2}}, f32(shp(1, 2, 2), 1, 2, 3, 4), i64(shp(1), 3), i64(shp(1), 2))
	// column 0 (k=0): block 0 at -1 (dropped), block 1 at 1; column 1
	// (k=1): block 0 at 0, block 1 at 2.
	checkValues(t, "Col2Im 1-D", got, shp(1, 1, 3), []float64{3, 2, 4})
}

// TestCol2ImIsIm2ColsAdjoint: for random integer data, ⟨Col2Im(X), Y⟩ =
// ⟨X, im2col(Y)⟩, im2col written directly from the definition (each block
// copies the pixels it covers, 0 in the padding), over 1 to 4 spatial
// axes with dilations, pads and strides, in every numeric dtype the sums
// stay exact in.
func TestCol2ImIsIm2ColsAdjoint(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	type geo struct{ img, blk, dil, pads, str []int64 }
	geos := []geo{
		{[]int64{7}, []int64{3}, []int64{2}, []int64{1, 0}, []int64{1}},
		{[]int64{5, 6}, []int64{2, 3}, []int64{1, 2}, []int64{1, 0, 1, 1}, []int64{2, 1}},
		{[]int64{4, 3, 5}, []int64{2, 1, 2}, []int64{2, 1, 2}, []int64{1, 0, 0, 0, 1, 1}, []int64{1, 1, 2}},
		{[]int64{3, 4, 3, 2}, []int64{2, 2, 1, 2}, []int64{1, 2, 1, 1}, []int64{0, 1, 0, 0, 1, 0, 2, 1}, []int64{1, 1, 2, 1}},
		{[]int64{6, 6}, []int64{3, 3}, []int64{1, 1}, []int64{0, 0, 0, 0}, []int64{3, 3}},
	}
	for gi, g := range geos {
		s := len(g.img)
		nb := make([]int64, s)
		kprod, l := int64(1), int64(1)
		for i := range s {
			nb[i] = (g.img[i]+g.pads[i]+g.pads[s+i]-g.dil[i]*(g.blk[i]-1)-1)/g.str[i] + 1
			kprod *= g.blk[i]
			l *= nb[i]
		}
		const n, c = 2, 3
		for _, dt := range []kernel.DType{kernel.Float32, kernel.Float64, kernel.Float16, kernel.Int32, kernel.Int64, kernel.Int16} {
			name := fmt.Sprintf("geometry %d %v", gi, dt)
			xs := make([]float64, n*c*kprod*l)
			for i := range xs {
				xs[i] = float64(r.IntN(7) - 3)
			}
			img := append(kernel.Shape{n, c}, g.img...)
			ys := make([]float64, img.NumElements())
			for i := range ys {
				ys[i] = float64(r.IntN(5) - 2)
			}
			got := mustRun(t, "Col2Im", kernel.Attrs{"dilations": g.dil, "pads": g.pads, "strides": g.str},
				tensor(dt, shp(n, c*kprod, l), xs...), tensor(kernel.Int64, shp(int64(s)), toF(g.img)...), tensor(kernel.Int32, shp(int64(s)), toF(g.blk)...))
			if !got.Shape.Equal(img) || got.DType != dt {
				t.Fatalf("%s: output %v, want %v %v", name, got, dt, img)
			}
			lhs := 0.0
			for i, v := range values(got) {
				lhs += v * ys[i]
			}
			// im2col(Y) read against X.
			rhs := 0.0
			pixels := kernel.Shape(g.img).NumElements()
			for i := range xs {
				li, rest := int64(i)%l, int64(i)/l
				k, ch := rest%kprod, rest/kprod // ch = n·C + c
				kk, ll := unravel(k, g.blk), unravel(li, nb)
				pos := make([]int64, s)
				inside := true
				for a := range s {
					pos[a] = ll[a]*g.str[a] - g.pads[a] + kk[a]*g.dil[a]
					inside = inside && pos[a] >= 0 && pos[a] < g.img[a]
				}
				if inside {
					rhs += xs[i] * ys[ch*pixels+ravel(pos, g.img)]
				}
			}
			if lhs != rhs {
				t.Errorf("%s: ⟨Col2Im(X), Y⟩ = %v, ⟨X, im2col(Y)⟩ = %v", name, lhs, rhs)
			}
		}
	}
}

func toF(v []int64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// TestCol2ImValueInputs: image_shape and block_shape are value
// dependencies, and the output shape follows them.
func TestCol2ImValueInputs(t *testing.T) {
	k, err := Builtins().New("Col2Im", nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := k.Deps(); len(d.Value) != 2 || d.Value[0] != 1 || d.Value[1] != 2 || d.Volatile || d.Compute {
		t.Fatalf("Deps = %+v, want value dependencies 1 and 2", d)
	}
	out := []*kernel.Tensor{{}}
	if err := k.InferShape([]*kernel.Tensor{kernel.New(kernel.BFloat16, 2, 6, 12), i64(shp(2), 4, 5), i64(shp(2), 1, 3)}, out); err != nil {
		t.Fatal(err)
	}
	if want := (kernel.Shape{2, 2, 4, 5}); !out[0].Shape.Equal(want) || out[0].DType != kernel.BFloat16 {
		t.Fatalf("InferShape: %v, want bfloat16 %v", out[0], want)
	}
}

// TestCol2ImErrors: a block count that differs from the geometry's,
// columns that are not a multiple of the block, blocks larger than the
// padded image, attribute lengths and values, and dtypes.
func TestCol2ImErrors(t *testing.T) {
	img, blk := i64(shp(2), 3, 3), i64(shp(2), 2, 2)
	wantErr(t, "Col2Im", nil, []*kernel.Tensor{f32(shp(1, 4, 5)), img, blk}, "has 5 blocks", "[2 2] blocks per axis: 4 in all")
	wantErr(t, "Col2Im", kernel.Attrs{"strides": []int64{2, 1}}, []*kernel.Tensor{f32(shp(1, 4, 4)), img, blk}, "has 4 blocks", "[1 2]")
	wantErr(t, "Col2Im", nil, []*kernel.Tensor{f32(shp(1, 6, 4)), img, blk}, "not a multiple of ∏block_shape = 4")
	wantErr(t, "Col2Im", nil, []*kernel.Tensor{f32(shp(1, 16, 1)), img, i64(shp(2), 4, 4)}, "spans 4 elements", "padded image's 3")
	wantErr(t, "Col2Im", nil, []*kernel.Tensor{f32(shp(1, 4, 4)), img, i64(shp(3), 2, 2, 1)}, "image_shape has 2 values and block_shape 3")
	wantErr(t, "Col2Im", kernel.Attrs{"pads": []int64{1, 1}}, []*kernel.Tensor{f32(shp(1, 4, 4)), img, blk}, "want 2, 2 and 4 values")
	wantErr(t, "Col2Im", nil, []*kernel.Tensor{f32(shp(4, 4)), img, blk}, "want [N, C·∏block_shape, L]")
	wantErr(t, "Col2Im", nil, []*kernel.Tensor{tensor(kernel.Bool, shp(1, 4, 4)), img, blk}, "dtype bool")
	wantErr(t, "Col2Im", nil, []*kernel.Tensor{f32(shp(1, 4, 4)), i64(shp(2), 0, 3), blk}, "want positive values")
	wantErr(t, "Col2Im", nil, []*kernel.Tensor{f32(shp(1, 4, 4)), f32(shp(2), 3, 3), blk}, "want int64 or int32")
	for _, a := range []kernel.Attrs{{"dilations": []int64{0, 1}}, {"strides": []int64{1, -1}}, {"pads": []int64{0, 0, -1, 0}}, {"bogus": int64(1)}} {
		if _, err := Builtins().New("Col2Im", a); err == nil {
			t.Errorf("Col2Im %v: no error", a)
		}
	}
}

// TestSpecialCol2Im: every pair (a, b) of special values where two
// blocks overlap: the pixel is 0 + b + a summed in float64 and rounded
// once (a sum starting from +0, as onnxruntime's: -0 + -0 is +0), NaN
// and infinities propagating.
func TestSpecialCol2Im(t *testing.T) {
	for _, dt := range sweepFloats {
		p := pairs(sweepBits(dt))
		m := int64(len(p) / 2)
		// 1-D image of 2, blocks of 2, pads 1 and 1: pixel 0 is column 0
		// of block 1 plus column 1 of block 0.
		xb := make([]uint64, m*2*3)
		zero := refBits(dt, 0)
		for i := range xb {
			xb[i] = zero
		}
		for i := range m {
			xb[i*6+0*3+1] = p[2*i+1] // column 0, block 1: b
			xb[i*6+1*3+0] = p[2*i]   // column 1, block 0: a
		}
		out, err := runOp("Col2Im", kernel.Attrs{"pads": []int64{1, 1}}, bitsTensor(dt, shp(m, 2, 3), xb), i64(shp(1), 2), i64(shp(1), 2))
		if err != nil {
			t.Fatalf("Col2Im %v: %v", dt, err)
		}
		want := make([]uint64, 2*m)
		for i := range m {
			want[2*i] = refBits(dt, 0+refValue(dt, p[2*i+1])+refValue(dt, p[2*i]))
			want[2*i+1] = refBits(dt, 0)
		}
		checkBits(t, fmt.Sprintf("Col2Im %v", dt), out[0], dt, shp(m, 1, 2), want, false, func(i int) string {
			return fmt.Sprintf("pixel %d of %s, %s", i%2, showBits(dt, p[i/2*2]), showBits(dt, p[i/2*2+1]))
		})
	}
}
