package ops

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/internal/race"
	"github.com/pipert/pipert/kernel"
)

// TestConvIntegerMatchesDirect: ConvInteger's gathered-taps product gives,
// on random 1-D to 3-D geometries (groups, strides, dilations, pads, blocks
// of outputs that end mid-row, output channels not a multiple of four),
// exactly the sums of the convolution's definition computed tap by tap.
func TestConvIntegerMatchesDirect(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 9))
	for c := range 156 {
		nd := 1 + r.IntN(3)
		group := int64(1 + r.IntN(3))
		cg, mg := int64(1+r.IntN(3)), int64(1+r.IntN(6))
		big := c >= 150 // outputs in several blocks, ending mid-row
		if big {
			nd, group, cg, mg = 2, 1+int64(c%2), 16, 5
		}
		n := int64(1 + r.IntN(2))
		x := []int64{n, cg * group}
		w := []int64{mg * group, cg}
		var ks, st, dl, pads []int64
		for range nd {
			k := int64(1 + r.IntN(3))
			ks = append(ks, k)
			st = append(st, int64(1+r.IntN(2)))
			dl = append(dl, int64(1+r.IntN(2)))
			w = append(w, k)
		}
		pads = make([]int64, 2*nd)
		for i := range nd {
			pads[i], pads[nd+i] = int64(r.IntN(2)), int64(r.IntN(3))
			extra := int64(r.IntN(12))
			if big {
				ks[i], st[i], w[2+i] = 3, 1, 3
				extra = 37 + int64(r.IntN(20))
			}
			x = append(x, (ks[i]-1)*dl[i]+1+extra)
		}
		xdt, wdt := kernel.Uint8, kernel.Int8
		if r.IntN(2) == 0 {
			xdt, wdt = kernel.Int8, kernel.Uint8
		}
		xv, wv := randInts(r, xdt, numel(x)), randInts(r, wdt, numel(w))
		xz, wz := randInts(r, xdt, 1)[0], randInts(r, wdt, 1)[0]
		if race.Enabled && (big && c >= 152 || !big && c%4 != 0) {
			continue // a quarter (one big case of each group count) under the race detector; .ci/run runs all without it
		}
		attrs := kernel.Attrs{"kernel_shape": ks, "strides": st, "dilations": dl, "pads": pads, "group": group}
		got := mustRun(t, "ConvInteger", attrs, tensor(xdt, x, xv...), tensor(wdt, w, wv...), tensor(xdt, shp(), xz), tensor(wdt, shp(), wz))
		want, shape := directConvInteger(x, w, xv, wv, xz, wz, ks, st, dl, pads, group)
		checkValues(t, fmt.Sprintf("case %d: x %v w %v %v", c, x, w, attrs), got, shape, want)
	}
}

func randInts(r *rand.Rand, dt kernel.DType, n int64) []float64 {
	lo, hi := dt.IntRange()
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(lo + r.Int64N(hi-lo+1))
	}
	return v
}

// directConvInteger is the definition: every output the sum over its
// taps inside the input of (x − xz)(w − wz).
func directConvInteger(x, w []int64, xv, wv []float64, xz, wz float64, ks, st, dl, pads []int64, group int64) ([]float64, []int64) {
	nd := len(ks)
	out := []int64{x[0], w[0]}
	for i := range nd {
		out = append(out, (x[2+i]+pads[i]+pads[nd+i]-((ks[i]-1)*dl[i]+1))/st[i]+1)
	}
	cg, mg := w[1], w[0]/group
	res := make([]float64, numel(out))
	o := make([]int64, nd)
	k := make([]int64, nd)
	for i := range res {
		rem := int64(i)
		for d := nd - 1; d >= 0; d-- {
			o[d] = rem % out[2+d]
			rem /= out[2+d]
		}
		m := rem % out[1]
		b := rem / out[1]
		var sum float64
		for ci := range cg {
			c := m/mg*cg + ci
			for kp := range numel(ks) {
				rk := kp
				for d := nd - 1; d >= 0; d-- {
					k[d] = rk % ks[d]
					rk /= ks[d]
				}
				xi, inside := b*x[1]+c, true
				for d := range nd {
					p := o[d]*st[d] - pads[d] + k[d]*dl[d]
					if p < 0 || p >= x[2+d] {
						inside = false
						break
					}
					xi = xi*x[2+d] + p
				}
				if inside {
					sum += (xv[xi] - xz) * (wv[(m*cg+ci)*numel(ks)+kp] - wz)
				}
			}
		}
		res[i] = sum
	}
	return res, out
}
