package ops

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// cofactorDet is the determinant by Laplace expansion along the first row.
func cofactorDet(a [][]float64) float64 {
	n := len(a)
	if n == 0 {
		return 1
	}
	var d float64
	for c := range n {
		minor := make([][]float64, 0, n-1)
		for _, row := range a[1:] {
			m := append(append([]float64(nil), row[:c]...), row[c+1:]...)
			minor = append(minor, m)
		}
		sign := 1.0
		if c%2 == 1 {
			sign = -1
		}
		d += sign * a[0][c] * cofactorDet(minor)
	}
	return d
}

func TestDetAgainstCofactors(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for it := range 100 {
		m, batch := 1+r.IntN(5), 1+r.IntN(3)
		x := kernel.New(kernel.Float64, int64(batch), int64(m), int64(m))
		v := kernel.Float64s(x.Host)
		for i := range v {
			v[i] = float64(r.IntN(7) - 3) // singular matrices too
		}
		got := mustRun(t, "Det", nil, x)
		for b := range batch {
			a := make([][]float64, m)
			for i := range m {
				a[i] = v[(b*m+i)*m : (b*m+i+1)*m]
			}
			want := cofactorDet(a)
			if g := kernel.Float64s(got.Data())[b]; math.Abs(g-want) > 1e-9*(1+math.Abs(want)) {
				t.Fatalf("case %d matrix %d: det %g, want %g", it, b, g, want)
			}
		}
	}
}

// TestDFTAgainstDefinition checks DFT on complex and real signals, with
// lengths that pad and truncate, against the sum of its definition, and
// that the inverse undoes it.
func TestDFTAgainstDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for it := range 60 {
		m := int64(1 + r.IntN(9))
		n := m + int64(r.IntN(5)) - 2
		if n < 1 {
			n = 1
		}
		comp := int64(1 + r.IntN(2))
		x := kernel.New(kernel.Float64, 2, m, comp)
		xv := kernel.Float64s(x.Host)
		for i := range xv {
			xv[i] = r.NormFloat64()
		}
		got := mustRun(t, "DFT", kernel.Attrs{"axis": int64(1)}, x, kernel.FromInt64([]int64{n}))
		if !got.Shape.Equal(kernel.Shape{2, n, 2}) {
			t.Fatalf("case %d: shape %v", it, got.Shape)
		}
		g := kernel.Float64s(got.Data())
		for b := range int64(2) {
			for k := range n {
				var re, im float64
				for j := range min(m, n) {
					xr, xi := xv[(b*m+j)*comp], 0.0
					if comp == 2 {
						xi = xv[(b*m+j)*comp+1]
					}
					ang := -2 * math.Pi * float64(k) * float64(j) / float64(n)
					re += xr*math.Cos(ang) - xi*math.Sin(ang)
					im += xr*math.Sin(ang) + xi*math.Cos(ang)
				}
				if i := (b*n + k) * 2; math.Abs(g[i]-re) > 1e-9 || math.Abs(g[i+1]-im) > 1e-9 {
					t.Fatalf("case %d bin %d: (%g, %g), want (%g, %g)", it, k, g[i], g[i+1], re, im)
				}
			}
		}
		back := mustRun(t, "DFT", kernel.Attrs{"inverse": int64(1)}, got)
		if n == m {
			for b := range int64(2) {
				for j := range m {
					i := (b*m + j) * 2
					if math.Abs(kernel.Float64s(back.Data())[i]-xv[(b*m+j)*comp]) > 1e-9 {
						t.Fatalf("case %d: the inverse does not undo the DFT", it)
					}
				}
			}
		}
	}
	wantErr(t, "DFT", kernel.Attrs{"inverse": int64(1), "onesided": int64(1)}, []*kernel.Tensor{kernel.New(kernel.Float32, 2, 3, 1)}, "onesided", "complex input")
	wantErr(t, "DFT", nil, []*kernel.Tensor{kernel.New(kernel.Float32, 2, 3, 3)}, "1 or 2")
	wantErr(t, "DFT", kernel.Attrs{"axis": int64(2)}, []*kernel.Tensor{kernel.New(kernel.Float32, 2, 3, 1)}, "axis")
}

// TestSoftmaxFloat64 checks float64 Softmax and LogSoftmax against the
// definition, to float64 precision.
func TestSoftmaxFloat64(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	x := kernel.New(kernel.Float64, 3, 4)
	v := kernel.Float64s(x.Host)
	for i := range v {
		v[i] = 10 * r.NormFloat64()
	}
	for _, log := range []bool{false, true} {
		op := map[bool]string{false: "Softmax", true: "LogSoftmax"}[log]
		got := kernel.Float64s(mustRun(t, op, kernel.Attrs{"axis": int64(1)}, x).Data())
		for row := range 3 {
			var s float64
			for j := range 4 {
				s += math.Exp(v[4*row+j])
			}
			for j := range 4 {
				want := math.Exp(v[4*row+j]) / s
				if log {
					want = v[4*row+j] - math.Log(s)
				}
				if g := got[4*row+j]; math.Abs(g-want) > 1e-12*(1+math.Abs(want)) {
					t.Fatalf("%s[%d,%d] = %.17g, want %.17g", op, row, j, g, want)
				}
			}
		}
	}
}

// TestDFTFactorsAsComputed: dftInto with its cached factors, stepped by
// k mod n, gives the bits of the term-by-term formula (dftRef: each factor
// from the angle of k·t mod n), forward and inverse, for lengths below,
// equal to and above the points given, and bins beyond n.
func TestDFTFactorsAsComputed(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	var w twiddles
	for range 200 {
		n := r.Int64N(64) + 1
		m := r.Int64N(2*n) + 1
		bins := r.Int64N(2*n) + 1
		inverse := r.IntN(2) == 1
		x := make([]float64, 2*m)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		got := make([]float64, 2*bins)
		if err := dftInto(nil, &w, got, x, n, bins, inverse); err != nil {
			t.Fatal(err)
		}
		want := dftRef(x, n, bins, inverse)
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("n %d, %d points, %d bins, inverse %v: element %d is %v, want %v", n, m, bins, inverse, i, got[i], want[i])
			}
		}
	}
}

// TestSTFTRank2Signal: a signal of rank 2, [batch, length] (PyTorch's
// exporter writes torch.stft so, and onnxruntime runs it), is a real
// signal: its STFT is the same, bit for bit, as that of [batch, length, 1]
// of the same samples, windowed or not. A signal of rank 1 or 4 is still
// refused.
func TestSTFTRank2Signal(t *testing.T) {
	samples := []float64{1, -2, 0.5, 3, 0.25, -0.75, 2, 0, 1.5, -1, 4, 0.125, -3, 2.5, 0.75, 1}
	step := kernel.FromInt64([]int64{3})
	for _, windowed := range []bool{false, true} {
		rest := []*kernel.Tensor{step, kernel.New(kernel.Float32, 0), kernel.FromInt64([]int64{4})}
		if windowed {
			rest = []*kernel.Tensor{step, f32(shp(4), 0.5, 1, 0.25, 0.75)}
		}
		want, err := runOp("STFT", nil, append([]*kernel.Tensor{f32(shp(2, 8, 1), samples...)}, rest...)...)
		if err != nil {
			t.Fatal(err)
		}
		got, err := runOp("STFT", nil, append([]*kernel.Tensor{f32(shp(2, 8), samples...)}, rest...)...)
		if err != nil {
			t.Fatalf("windowed %v: [2, 8]: %v", windowed, err)
		}
		if !got[0].Shape.Equal(want[0].Shape) || !slices.Equal(got[0].Data(), want[0].Data()) {
			t.Errorf("windowed %v: [2, 8] gives %v %v, [2, 8, 1] %v %v", windowed, got[0].Shape, kernel.Float32s(got[0].Data()), want[0].Shape, kernel.Float32s(want[0].Data()))
		}
	}
	for _, s := range [][]int64{{16}, {1, 2, 8, 1}} {
		wantErr(t, "STFT", nil, []*kernel.Tensor{f32(s, samples...), step, kernel.New(kernel.Float32, 0), kernel.FromInt64([]int64{4})}, "want [batch, length]")
	}
}
