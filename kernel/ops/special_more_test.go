package ops

import (
	"fmt"
	"math"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps,
		"MatMul", "BatchMatMul", "Gemm", "Einsum", "Conv", "ConvTranspose",
		"AveragePool", "GlobalAveragePool", "NonZero", "ConstantOfShape",
		"NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss")
}

// TestSpecialProducts: the product ops with one term per output, whose
// result is one rounded product a·b of special values with no order of
// summation to choose: outer products (MatMul, BatchMatMul, Gemm, Einsum
// with K = 1) and 1×1 convolutions of one channel (ConvTranspose with
// stride 2, whose outputs between the inputs are empty sums, +0). A sum of
// one term is that term, -0 included.
func TestSpecialProducts(t *testing.T) {
	for _, dt := range sweepFloats {
		bits := sweepBits(dt)
		n := int64(len(bits))
		a, b := bitsTensor(dt, shp(n, 1), bits), bitsTensor(dt, shp(1, n), bits)
		want := make([]uint64, n*n)
		for i := range n {
			for j := range n {
				want[i*n+j] = refBits(dt, refValue(dt, bits[i])*refValue(dt, bits[j]))
			}
		}
		at := func(k int) string {
			return fmt.Sprintf("%s · %s", showBits(dt, bits[int64(k)/n]), showBits(dt, bits[int64(k)%n]))
		}
		for _, c := range []struct {
			op    string
			attrs kernel.Attrs
			in    []*kernel.Tensor
			shape []int64
		}{
			{"MatMul", nil, []*kernel.Tensor{a, b}, shp(n, n)},
			{"BatchMatMul", nil, []*kernel.Tensor{bitsTensor(dt, shp(1, n, 1), bits), bitsTensor(dt, shp(1, 1, n), bits)}, shp(1, n, n)},
			{"Gemm", nil, []*kernel.Tensor{a, b}, shp(n, n)},
			{"Gemm", kernel.Attrs{"transA": int64(1), "transB": int64(1)}, []*kernel.Tensor{bitsTensor(dt, shp(1, n), bits), bitsTensor(dt, shp(n, 1), bits)}, shp(n, n)},
			{"Einsum", kernel.Attrs{"equation": "i,j->ij"}, []*kernel.Tensor{bitsTensor(dt, shp(n), bits), bitsTensor(dt, shp(n), bits)}, shp(n, n)},
		} {
			name := fmt.Sprintf("%s%v/%v", c.op, c.attrs, dt)
			out, err := runOp(c.op, c.attrs, c.in...)
			if c.op == "Einsum" && dt == kernel.BFloat16 { // not among ONNX's Einsum's types
				if err == nil {
					t.Errorf("%s: computed a dtype ONNX's Einsum does not take", name)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			checkBits(t, name, out[0], dt, c.shape, want, false, at)
		}
		// Conv and ConvTranspose of X [1,1,n] by each special weight [1,1,1].
		x := bitsTensor(dt, shp(1, 1, n), bits)
		for _, op := range []string{"Conv", "ConvTranspose"} {
			for j, wb := range bits {
				name := fmt.Sprintf("%s/%v weight %s", op, dt, showBits(dt, wb))
				var attrs kernel.Attrs
				stride := int64(1)
				if op == "ConvTranspose" {
					stride = 2
					attrs = kernel.Attrs{"strides": []int64{stride}}
				}
				out, err := runOp(op, attrs, x, bitsTensor(dt, shp(1, 1, 1), []uint64{wb}))
				if err != nil {
					t.Errorf("%s: %v", name, err)
					break
				}
				col := make([]uint64, (n-1)*stride+1) // gaps +0
				for i := range n {
					col[i*stride] = want[i*n+int64(j)]
				}
				checkBits(t, name, out[0], dt, shp(1, 1, int64(len(col))), col, false, func(i int) string {
					if int64(i)%stride != 0 {
						return fmt.Sprintf("output %d, which no input reaches", i)
					}
					return "x " + showBits(dt, bits[int64(i)/stride])
				})
			}
		}
	}
}

// TestSpecialAveragePools: AveragePool and GlobalAveragePool over windows
// of two special values are (a + b)/2.
func TestSpecialAveragePools(t *testing.T) {
	for _, dt := range sweepFloats {
		p := pairs(sweepBits(dt))
		m := int64(len(p) / 2)
		want := make([]uint64, m)
		for i := range m {
			want[i] = refBits(dt, (refValue(dt, p[2*i])+refValue(dt, p[2*i+1]))/2)
		}
		at := func(i int) string { return fmt.Sprintf("%s, %s", showBits(dt, p[2*i]), showBits(dt, p[2*i+1])) }
		out, err := runOp("AveragePool", kernel.Attrs{"kernel_shape": []int64{2}, "strides": []int64{2}}, bitsTensor(dt, shp(1, 1, 2*m), p))
		if err != nil {
			t.Errorf("AveragePool/%v: %v", dt, err)
		} else {
			checkBits(t, fmt.Sprintf("AveragePool/%v", dt), out[0], dt, shp(1, 1, m), want, false, at)
		}
		out, err = runOp("GlobalAveragePool", nil, bitsTensor(dt, shp(m, 1, 2), p))
		if err != nil {
			t.Errorf("GlobalAveragePool/%v: %v", dt, err)
		} else {
			checkBits(t, fmt.Sprintf("GlobalAveragePool/%v", dt), out[0], dt, shp(m, 1, 1), want, false, at)
		}
	}
}

// TestSpecialNonZero: NaN is nonzero, -0 is zero.
func TestSpecialNonZero(t *testing.T) {
	for _, dt := range sweepFloats {
		bits := sweepBits(dt)
		var want []uint64
		for i, b := range bits {
			if refValue(dt, b) != 0 {
				want = append(want, uint64(i))
			}
		}
		out, err := runOp("NonZero", nil, bitsTensor(dt, shp(int64(len(bits))), bits))
		if err != nil {
			t.Errorf("NonZero/%v: %v", dt, err)
			continue
		}
		checkBits(t, fmt.Sprintf("NonZero/%v", dt), out[0], kernel.Int64, shp(1, int64(len(want))), want, true, func(i int) string {
			return fmt.Sprintf("index %d", i)
		})
	}
}

// TestSpecialConstantOfShape: every element is the bits of the value
// attribute, whatever they are.
func TestSpecialConstantOfShape(t *testing.T) {
	for _, dt := range sweepFloats {
		for _, b := range sweepBits(dt) {
			name := fmt.Sprintf("ConstantOfShape/%v %s", dt, showBits(dt, b))
			out, err := runOp("ConstantOfShape", kernel.Attrs{"value": bitsTensor(dt, shp(1), []uint64{b})}, i64(shp(2), 2, 3))
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			want := []uint64{b, b, b, b, b, b}
			checkBits(t, name, out[0], dt, shp(2, 3), want, true, func(i int) string { return fmt.Sprint("element ", i) })
		}
	}
}

// TestSpecialLosses: without reduction, NegativeLogLikelihoodLoss is
// −input[n, target[n]] and SoftmaxCrossEntropyLoss −LogSoftmax(input)[n,
// target[n]], for rows of special values.
func TestSpecialLosses(t *testing.T) {
	for _, dt := range sweepFloats {
		p := pairs(softmaxBits(dt))
		m := int64(len(p) / 2)
		x := bitsTensor(dt, shp(m, 2), p)
		target := make([]float64, m)
		for i := range target {
			target[i] = float64(i % 2)
		}
		tg := i64(shp(m), target...)
		nll, sce := make([]uint64, m), make([]uint64, m)
		for i := range m {
			row := []float64{refValue(dt, p[2*i]), refValue(dt, p[2*i+1])}
			v := row[i%2]
			nll[i] = refBits(dt, -v)
			mx := ieeeMax(row[0], row[1])
			s := math.Exp(row[0]-mx) + math.Exp(row[1]-mx)
			sce[i] = refBits(dt, -((v - mx) - math.Log(s)))
		}
		at := func(i int) string {
			return fmt.Sprintf("row %s, %s, target %d", showBits(dt, p[2*i]), showBits(dt, p[2*i+1]), i%2)
		}
		for _, c := range []struct {
			op   string
			want []uint64
		}{{"NegativeLogLikelihoodLoss", nll}, {"SoftmaxCrossEntropyLoss", sce}} {
			out, err := runOp(c.op, kernel.Attrs{"reduction": "none"}, x, tg)
			if err != nil {
				t.Errorf("%s/%v: %v", c.op, dt, err)
				continue
			}
			checkBits(t, fmt.Sprintf("%s/%v", c.op, dt), out[0], dt, shp(m), c.want, false, at)
		}
	}
}
