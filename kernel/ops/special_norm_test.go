package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps,
		"LayerNorm", "LayerNormalization", "InstanceNormalization", "BatchNormalization",
		"LRN", "MeanVarianceNormalization")
}

// The normalizations compute in float64 and round each result once, in an
// order their documentation fixes; the references below follow that order
// with float64 arithmetic, so that they give the kernels' bits exactly for
// every special value: a NaN or ±Inf in a row (a channel, a window) makes
// exactly the outputs whose definition reads it NaN, and nothing else; a
// row of zeros normalizes to zeros of the sign the definition gives them.
//
//	LayerNorm, LayerNormalization, InstanceNormalization: mean = Σx/n
//	    (ascending), var = Σ(x−mean)²/n, inv = 1/√(var+ε); y =
//	    ((x−mean)·inv)·scale + B (ONNX's LayerNormalization function body;
//	    InstanceNormalization: (x−mean)·(inv·scale) + B).
//	BatchNormalization: y = ((x−mean)/√(var+ε))·scale + B, ONNX's formula.
//	LRN: y = x/(bias + (alpha/size)·Σx²)^beta, the sum over the window
//	    in ascending channel order.
//	MeanVarianceNormalization: mean = Σ(x/n), var = Σ((x−mean)²/n), y =
//	    (x−mean)/(√var + 1e-9), ONNX's function body (ε added to the
//	    standard deviation).

// normRows are rows of four values of dt: each special value with ordinary
// neighbours, twice with itself, rows of signed zeros and of subnormals.
func normRows(dt kernel.DType) [][]uint64 {
	f := func(v float64) uint64 { return refBits(dt, v) }
	var rows [][]uint64
	for _, s := range sweepBits(dt) {
		rows = append(rows, []uint64{s, f(1), f(-2), f(0.5)}, []uint64{f(3), s, s, f(neg0())})
	}
	z, nz := f(0), f(neg0())
	rows = append(rows, []uint64{z, z, z, z}, []uint64{nz, nz, nz, nz}, []uint64{nz, z, nz, z})
	sub := subnormals(dt)
	rows = append(rows, []uint64{sub[0], sub[1], sub[0], z}, []uint64{sub[1], sub[1], sub[1], sub[1]})
	return rows
}

// subnormals returns the first two subnormals of the sweep's values of dt.
func subnormals(dt kernel.DType) []uint64 {
	tiny := map[kernel.DType]float64{kernel.Float32: 0x1p-126, kernel.Float16: 0x1p-14, kernel.Float64: 0x1p-1022, kernel.BFloat16: 0x1p-126}[dt]
	var out []uint64
	for _, b := range sweepBits(dt) {
		if v := refValue(dt, b); v != 0 && math.Abs(v) < tiny && len(out) < 2 {
			out = append(out, b)
		}
	}
	return out
}

// moments64 is mean and 1/√(var+eps) in the kernels' order.
func moments64(x []float64, eps float64) (mean, inv float64) {
	var s, ss float64
	for _, v := range x {
		s += v
	}
	mean = s / float64(len(x))
	for _, v := range x {
		d := v - mean
		ss += d * d
	}
	return mean, 1 / math.Sqrt(ss/float64(len(x))+eps)
}

func flatten(rows [][]uint64) []uint64 {
	var out []uint64
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

// TestSpecialNormalizations runs rows of special values through the
// normalizations against their references, each with an ordinary scale and
// bias and then with special values as scale and bias.
func TestSpecialNormalizations(t *testing.T) {
	for _, dt := range sweepFloats {
		rows := normRows(dt)
		r, n := int64(len(rows)), int64(4)
		x := flatten(rows)
		vals := func(b []uint64) []float64 {
			v := make([]float64, len(b))
			for i := range b {
				v[i] = refValue(dt, b[i])
			}
			return v
		}
		at := func(i int) string {
			row := x[int64(i)/n*n : int64(i)/n*n+n]
			return fmt.Sprintf("element %d of row %v", int64(i)%n, vals(row))
		}
		// Per-row scale and bias: ordinary ones, then special values.
		f := func(v ...float64) []uint64 {
			b := make([]uint64, len(v))
			for i := range v {
				b[i] = refBits(dt, v[i])
			}
			return b
		}
		specials := sweepBits(dt)
		scaleBias := [][2][]uint64{{f(1.5, -1, 0.25, 2), f(neg0(), 0, 2, -0.5)}}
		for i := 0; i+3 < len(specials); i += 4 {
			scaleBias = append(scaleBias, [2][]uint64{specials[i : i+4], specials[len(specials)-4-i : len(specials)-i]})
		}
		const eps = 1e-5
		eps32 := float64(float32(eps))
		for _, sb := range scaleBias {
			scale, bias := vals(sb[0]), vals(sb[1])
			desc := fmt.Sprintf("scale %v bias %v", scale, bias)
			// LayerNorm (float32, float16) and LayerNormalization, axis -1.
			want, wantMean, wantInv := make([]uint64, r*n), make([]uint64, r), make([]uint64, r)
			for i, row := range rows {
				v := vals(row)
				m, inv := moments64(v, eps32)
				wantMean[i], wantInv[i] = refBits(kernel.Float32, m), refBits(kernel.Float32, inv)
				for j := range n {
					want[int64(i)*n+j] = refBits(dt, (v[j]-m)*inv*scale[j]+bias[j])
				}
			}
			xt, st, bt := bitsTensor(dt, shp(r, n), x), bitsTensor(dt, shp(n), sb[0]), bitsTensor(dt, shp(n), sb[1])
			out, err := runOp("LayerNormalization", nil, xt, st, bt)
			if err != nil {
				t.Errorf("LayerNormalization/%v: %v", dt, err)
			} else {
				name := fmt.Sprintf("LayerNormalization/%v %s", dt, desc)
				checkBits(t, name, out[0], dt, shp(r, n), want, false, at)
				rowAt := func(i int) string { return fmt.Sprintf("row %v", vals(x[int64(i)*n:int64(i+1)*n])) }
				checkBits(t, name+" mean", out[1], kernel.Float32, shp(r, 1), wantMean, false, rowAt)
				checkBits(t, name+" inv std", out[2], kernel.Float32, shp(r, 1), wantInv, false, rowAt)
			}
			if dt != kernel.Float64 {
				// LayerNorm's epsilon is the attribute's float64 value.
				for i, row := range rows {
					v := vals(row)
					m, inv := moments64(v, eps)
					for j := range n {
						want[int64(i)*n+j] = refBits(dt, (v[j]-m)*inv*scale[j]+bias[j])
					}
				}
				out, err := runOp("LayerNorm", nil, xt, st, bt)
				if err != nil {
					t.Errorf("LayerNorm/%v: %v", dt, err)
				} else {
					checkBits(t, fmt.Sprintf("LayerNorm/%v %s", dt, desc), out[0], dt, shp(r, n), want, false, at)
				}
			}
			// InstanceNormalization: X [1, r, n], scale and bias per channel
			// (row), cycling through the four.
			cs, cb := make([]uint64, r), make([]uint64, r)
			for i := range r {
				cs[i], cb[i] = sb[0][i%n], sb[1][i%n]
			}
			for i, row := range rows {
				v := vals(row)
				m, inv := moments64(v, eps32)
				fac := inv * scale[int64(i)%n]
				for j := range n {
					want[int64(i)*n+j] = refBits(dt, (v[j]-m)*fac+bias[int64(i)%n])
				}
			}
			out, err = runOp("InstanceNormalization", nil, bitsTensor(dt, shp(1, r, n), x), bitsTensor(dt, shp(r), cs), bitsTensor(dt, shp(r), cb))
			if err != nil {
				t.Errorf("InstanceNormalization/%v: %v", dt, err)
			} else {
				checkBits(t, fmt.Sprintf("InstanceNormalization/%v %s", dt, desc), out[0], dt, shp(1, r, n), want, false, at)
			}
		}
	}
}

// TestSpecialBatchNormalization: X [2, C, 2] of special values, its
// channels' statistics special values too, each statistic cycling through
// them at its own stride so that every special value meets the others.
func TestSpecialBatchNormalization(t *testing.T) {
	for _, dt := range sweepFloats {
		bits := sweepBits(dt)
		nb := int64(len(bits))
		c := 2 * nb
		x := make([]uint64, 2*c*2)
		for i := range x {
			x[i] = bits[int64(i)%nb]
		}
		stat := func(stride, off int64) []uint64 {
			s := make([]uint64, c)
			for i := range c {
				if i%3 == 2 { // an ordinary statistic every third channel
					s[i] = refBits(dt, float64(i%5)+0.5)
					continue
				}
				s[i] = bits[(i*stride+off)%nb]
			}
			return s
		}
		sc, b, mean, vr := stat(7, 1), stat(5, 2), stat(3, 3), stat(11, 4)
		// Non-negative variances but for the NaNs and -Inf: a negative
		// variance below -ε gives NaN, as √ of a negative number.
		want := make([]uint64, len(x))
		eps := float64(float32(1e-5))
		for i := range x {
			ch := int64(i) / 2 % c
			v := refValue(dt, x[i])
			sd := math.Sqrt(refValue(dt, vr[ch]) + eps)
			want[i] = refBits(dt, (v-refValue(dt, mean[ch]))/sd*refValue(dt, sc[ch])+refValue(dt, b[ch]))
		}
		name := fmt.Sprintf("BatchNormalization/%v", dt)
		out, err := runOp("BatchNormalization", nil, bitsTensor(dt, shp(2, c, 2), x),
			bitsTensor(dt, shp(c), sc), bitsTensor(dt, shp(c), b), bitsTensor(dt, shp(c), mean), bitsTensor(dt, shp(c), vr))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		checkBits(t, name, out[0], dt, shp(2, c, 2), want, false, func(i int) string {
			ch := int64(i) / 2 % c
			return fmt.Sprintf("x %s, channel %d: scale %s, B %s, mean %s, var %s", showBits(dt, x[i]), ch,
				showBits(dt, sc[ch]), showBits(dt, b[ch]), showBits(dt, mean[ch]), showBits(dt, vr[ch]))
		})
	}
}

// TestSpecialLRN: the channels of X [1, C, 1] are the special values, with
// ordinary ones between; each output reads a window of three channels.
func TestSpecialLRN(t *testing.T) {
	for _, dt := range sweepFloats {
		var x []uint64
		for i, b := range sweepBits(dt) {
			x = append(x, b, refBits(dt, float64(i%3)-1))
		}
		x = append(x, 0, 0, refBits(dt, neg0()), 0)
		c := int64(len(x))
		for _, attrs := range []kernel.Attrs{{"size": int64(3)}, {"size": int64(2), "alpha": 0.5, "beta": 1.5, "bias": 0.0}} {
			size := attrs["size"].(int64)
			alpha, beta, bias := 1e-4, 0.75, 1.0
			if size == 2 {
				alpha, beta, bias = 0.5, 1.5, 0
			}
			alpha, beta, bias = float64(float32(alpha)), float64(float32(beta)), float64(float32(bias))
			want := make([]uint64, c)
			lo, hi := (size-1)/2, size-1-(size-1)/2
			for i := range c {
				var sq float64
				for j := max(0, i-lo); j <= min(c-1, i+hi); j++ {
					v := refValue(dt, x[j])
					sq += v * v
				}
				want[i] = refBits(dt, refValue(dt, x[i])/math.Pow(bias+alpha/float64(size)*sq, beta))
			}
			name := fmt.Sprintf("LRN%v/%v", attrs, dt)
			out, err := runOp("LRN", attrs, bitsTensor(dt, shp(1, c, 1), x))
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			checkBits(t, name, out[0], dt, shp(1, c, 1), want, false, func(i int) string {
				return fmt.Sprintf("channel %d, x %s", i, showBits(dt, x[i]))
			})
		}
	}
}

// TestSpecialMeanVarianceNormalization: rows of special values, normalized
// over the last axis.
func TestSpecialMeanVarianceNormalization(t *testing.T) {
	for _, dt := range sweepFloats {
		rows := normRows(dt)
		r, n := int64(len(rows)), int64(4)
		x := flatten(rows)
		want := make([]uint64, r*n)
		eps := float64(float32(1e-9))
		for i, row := range rows {
			var mean, sq float64
			for _, b := range row {
				mean += refValue(dt, b) / float64(n)
			}
			for _, b := range row {
				d := refValue(dt, b) - mean
				sq += d * d / float64(n)
			}
			for j, b := range row {
				want[int64(i)*n+int64(j)] = refBits(dt, (refValue(dt, b)-mean)/(math.Sqrt(sq)+eps))
			}
		}
		name := fmt.Sprintf("MeanVarianceNormalization/%v", dt)
		out, err := runOp("MeanVarianceNormalization", kernel.Attrs{"axes": []int64{1}}, bitsTensor(dt, shp(r, n), x))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		checkBits(t, name, out[0], dt, shp(r, n), want, false, func(i int) string {
			return fmt.Sprintf("element %d of row %x", int64(i)%n, x[int64(i)/n*n:int64(i)/n*n+n])
		})
	}
}

// TestLayerNormFloat16RoundsOnce: on random float16 rows, LayerNorm's
// results are the float64 reference rounded once to float16 (rounding
// through float32 first would round some of them twice, the wrong way).
func TestLayerNormFloat16RoundsOnce(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 17))
	const rows, n = 40000, 8
	x := make([]uint64, rows*n)
	for i := range x {
		x[i] = refBits(kernel.Float16, r.NormFloat64()*4)
	}
	g, b := make([]uint64, n), make([]uint64, n)
	for i := range g {
		g[i], b[i] = refBits(kernel.Float16, r.NormFloat64()), refBits(kernel.Float16, r.NormFloat64())
	}
	want := make([]uint64, len(x))
	for i := range rows {
		v := make([]float64, n)
		for j := range v {
			v[j] = refValue(kernel.Float16, x[i*n+j])
		}
		m, inv := moments64(v, 1e-5)
		for j := range v {
			want[i*n+j] = refBits(kernel.Float16, (v[j]-m)*inv*refValue(kernel.Float16, g[j])+refValue(kernel.Float16, b[j]))
		}
	}
	out, err := runOp("LayerNorm", nil, bitsTensor(kernel.Float16, shp(rows, n), x), bitsTensor(kernel.Float16, shp(n), g), bitsTensor(kernel.Float16, shp(n), b))
	if err != nil {
		t.Fatal(err)
	}
	checkBits(t, "LayerNorm/float16", out[0], kernel.Float16, shp(rows, n), want, true, func(i int) string { return fmt.Sprint("element ", i) })
}
