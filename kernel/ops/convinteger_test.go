package ops

import (
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// convIntegerRef is ConvInteger by its definition: for every output, the
// sum over channels and taps of (x − x_zero_point)·(w − w_zero_point),
// taps in the padding skipped.
func convIntegerRef(x, w *kernel.Tensor, xzp int64, wzp []int64, group int64, strides, pads, dils []int64) ([]int32, kernel.Shape) {
	nd := x.Shape.Rank() - 2
	n, c, m := x.Shape[0], x.Shape[1], w.Shape[0]
	cg := c / group
	outShape := kernel.Shape{n, m}
	for i := range nd {
		ext := (w.Shape[2+i]-1)*dils[i] + 1
		outShape = append(outShape, (x.Shape[2+i]+pads[i]+pads[nd+i]-ext)/strides[i]+1)
	}
	out := make([]int32, outShape.NumElements())
	opos := make([]int64, nd)
	kpos := make([]int64, nd)
	for o := range out {
		r := int64(o)
		for i := nd - 1; i >= 0; i-- {
			opos[i] = r % outShape[2+i]
			r /= outShape[2+i]
		}
		mm, nn := r%m, r/m
		var acc int64
		for ci := range cg {
			ch := mm/(m/group)*cg + ci
			kn := kernel.Shape(w.Shape[2:]).NumElements()
			for kp := range kn {
				rr := kp
				for i := nd - 1; i >= 0; i-- {
					kpos[i] = rr % w.Shape[2+i]
					rr /= w.Shape[2+i]
				}
				xi, inside := (nn*c + ch), true
				for i := range nd {
					p := opos[i]*strides[i] - pads[i] + kpos[i]*dils[i]
					if p < 0 || p >= x.Shape[2+i] {
						inside = false
						break
					}
					xi = xi*x.Shape[2+i] + p
				}
				if !inside {
					continue
				}
				xv := loadI(x.DType, x.Host, xi) - xzp
				wv := loadI(w.DType, w.Host, (mm*cg+ci)*kn+kp) - wzp[mm]
				acc += xv * wv
			}
		}
		out[o] = int32(acc)
	}
	return out, outShape
}

// TestConvIntegerAsDefined: ConvInteger, which subtracts the zero points
// once and walks the taps by axis, gives the definition's sums on random
// 1-D to 3-D convolutions with groups, strides, pads, dilations, per
// channel weight zero points, int8 and uint8.
func TestConvIntegerAsDefined(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for c := range 300 {
		nd := 1 + r.IntN(3)
		group := int64(1 + r.IntN(2))
		cin, m := group*int64(1+r.IntN(3)), group*int64(1+r.IntN(3))
		xShape := kernel.Shape{int64(1 + r.IntN(2)), cin}
		wShape := kernel.Shape{m, cin / group}
		var strides, dils, pads []int64
		pads = make([]int64, 2*nd)
		for i := range nd {
			k := int64(1 + r.IntN(3))
			wShape = append(wShape, k)
			strides, dils = append(strides, int64(1+r.IntN(2))), append(dils, int64(1+r.IntN(2)))
			pads[i], pads[nd+i] = int64(r.IntN(2)), int64(r.IntN(2))
			xShape = append(xShape, (k-1)*dils[i]+1+int64(r.IntN(4)))
		}
		dts := []kernel.DType{kernel.Uint8, kernel.Int8}
		x, w := kernel.New(dts[r.IntN(2)], xShape...), kernel.New(dts[r.IntN(2)], wShape...)
		for _, t := range []*kernel.Tensor{x, w} {
			for i := range t.Host {
				t.Host[i] = byte(r.IntN(256))
			}
		}
		xz := kernel.New(x.DType)
		xz.Host[0] = byte(r.IntN(256))
		wz := kernel.New(w.DType, m)
		for i := range wz.Host {
			wz.Host[i] = byte(r.IntN(256))
		}
		wzp := make([]int64, m)
		for i := range wzp {
			wzp[i] = loadI(w.DType, wz.Host, int64(i))
		}
		want, shape := convIntegerRef(x, w, loadI(x.DType, xz.Host, 0), wzp, group, strides, pads, dils)
		got := mustRun(t, "ConvInteger", kernel.Attrs{"group": group, "strides": strides, "pads": pads, "dilations": dils}, x, w, xz, wz)
		if !got.Shape.Equal(shape) {
			t.Fatalf("case %d: shape %v, want %v", c, got.Shape, shape)
		}
		gv := kernel.Int32s(got.Data())
		if len(gv) != len(want) {
			t.Fatalf("case %d: %d outputs, want %d", c, len(gv), len(want))
		}
		for i, v := range gv {
			if v != want[i] {
				t.Fatalf("case %d (x %v %v, w %v %v, group %d, strides %v, pads %v, dilations %v): element %d is %d, want %d",
					c, x.DType, x.Shape, w.DType, w.Shape, group, strides, pads, dils, i, v, want[i])
			}
		}
	}
}
