package ops

import (
	"fmt"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "CumProd", "BitCast")
}

// TestSpecialCumProd: running products of every pair, forward, reverse
// and exclusive (whose first product is empty: 1), each the float64
// product rounded once.
func TestSpecialCumProd(t *testing.T) {
	for _, dt := range sweepFloats {
		bits := sweepBits(dt)
		p := pairs(bits)
		m := int64(len(p) / 2)
		for _, c := range []struct{ exclusive, reverse int64 }{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
			name := fmt.Sprintf("CumProd/%v exclusive %d reverse %d", dt, c.exclusive, c.reverse)
			out, err := runOp("CumProd", kernel.Attrs{"exclusive": c.exclusive, "reverse": c.reverse}, bitsTensor(dt, shp(m, 2), p), i64(shp(), 1))
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			want := make([]uint64, 2*m)
			for i := range m {
				a, b := refValue(dt, p[2*i]), refValue(dt, p[2*i+1])
				var y0, y1 float64
				switch {
				case c.exclusive == 0 && c.reverse == 0:
					y0, y1 = a, a*b
				case c.reverse == 0:
					y0, y1 = 1, a
				case c.exclusive == 0:
					y0, y1 = a*b, b
				default:
					y0, y1 = b, 1
				}
				want[2*i], want[2*i+1] = refBits(dt, y0), refBits(dt, y1)
			}
			checkBits(t, name, out[0], dt, shp(m, 2), want, false, func(i int) string {
				return fmt.Sprintf("element %d of %s, %s", i%2, showBits(dt, p[i/2*2]), showBits(dt, p[i/2*2+1]))
			})
		}
	}
}

// TestSpecialBitCast: every special bit pattern of each float dtype, cast
// to each dtype of its size and back, keeps every bit, NaN payloads and
// signalling NaNs included.
func TestSpecialBitCast(t *testing.T) {
	same := map[int][]kernel.DType{}
	for _, dt := range kernel.DTypes() {
		same[dt.Size()] = append(same[dt.Size()], dt)
	}
	for _, dt := range sweepFloats {
		bits := sweepBits(dt)
		x := bitsTensor(dt, shp(int64(len(bits))), bits)
		for _, to := range same[dt.Size()] {
			name := fmt.Sprintf("BitCast/%v to %v", dt, to)
			there, err := runOp("BitCast", kernel.Attrs{"to": to}, x)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			at := func(i int) string { return "x " + showBits(dt, bits[i]) }
			checkBits(t, name, there[0], to, x.Shape, bits, true, at)
			back, err := runOp("BitCast", kernel.Attrs{"to": dt}, there[0])
			if err != nil {
				t.Errorf("%s and back: %v", name, err)
				continue
			}
			checkBits(t, name+" and back", back[0], dt, x.Shape, bits, true, at)
		}
	}
}
