package ops

import (
	"fmt"
	"math"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// swishRef is Swish as ONNX defines it, x·sigmoid(alpha·x) with
// sigmoid(t) = 1/(1 + e^(−t)), for alpha a float32 value.
func swishRef(alpha float64) func(x float64) float64 {
	return func(x float64) float64 { return x * (1 / (1 + math.Exp(-(alpha * x)))) }
}

func init() {
	unaryCases = append(unaryCases,
		unaryCase{op: "Swish", ref: swishRef(1)},
		unaryCase{op: "Swish", attrs: kernel.Attrs{"alpha": 1.702}, ref: swishRef(float64(float32(1.702)))},
		unaryCase{op: "Swish", attrs: kernel.Attrs{"alpha": -0.5}, ref: swishRef(-0.5)},
		unaryCase{op: "Swish", attrs: kernel.Attrs{"alpha": 0.0}, ref: swishRef(0)})
	specialOtherOps = append(specialOtherOps, "RMSNormalization", "RotaryEmbedding")
}

// TestSpecialRMSNormalization: rows of special values, normalised over
// the last axis, with an ordinary scale and then special values as scale,
// bit for bit against ms = Σx²/n (ascending), rms = √(ms + ε), y =
// (x/rms)·scale, evaluated in float64 and rounded once: a NaN or ±Inf in a
// row makes exactly the outputs whose definition reads it NaN, a row of
// zeros gives zeros of the sign of x·scale, under either stash_type.
func TestSpecialRMSNormalization(t *testing.T) {
	eps := float64(float32(1e-5))
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
		specials := sweepBits(dt)
		scales := [][]uint64{{refBits(dt, 1.5), refBits(dt, -1), refBits(dt, 0.25), refBits(dt, neg0())}}
		for i := 0; i+3 < len(specials); i += 4 {
			scales = append(scales, specials[i:i+4])
		}
		for _, stash := range []int64{1, 11} {
			for _, sb := range scales {
				scale := vals(sb)
				want := make([]uint64, r*n)
				for i, row := range rows {
					v := vals(row)
					var ss float64
					for _, e := range v {
						ss += float64(e * e)
					}
					rms := math.Sqrt(ss/float64(n) + eps)
					for j := range n {
						want[int64(i)*n+j] = refBits(dt, v[j]/rms*scale[j])
					}
				}
				out, err := runOp("RMSNormalization", kernel.Attrs{"stash_type": stash}, bitsTensor(dt, shp(r, n), x), bitsTensor(dt, shp(n), sb))
				if err != nil {
					t.Fatalf("RMSNormalization/%v: %v", dt, err)
				}
				checkBits(t, fmt.Sprintf("RMSNormalization/%v stash_type %d scale %v", dt, stash, scale), out[0], dt, shp(r, n), want, false, func(i int) string {
					return fmt.Sprintf("element %d of row %v", int64(i)%n, vals(x[int64(i)/n*n:int64(i)/n*n+n]))
				})
			}
		}
	}
}

// TestSpecialRotaryEmbedding: every special value meets every other as
// the two elements of a rotated pair, with cos and sin special values too,
// in the two pairings (halves and interleaved) and with a partial rotation
// (the other elements copied bit for bit), against (cos·x1 − sin·x2,
// sin·x1 + cos·x2) evaluated in float64 and rounded once.
func TestSpecialRotaryEmbedding(t *testing.T) {
	for _, dt := range []kernel.DType{kernel.Float32, kernel.Float16} {
		bits := sweepBits(dt)
		nb := int64(len(bits))
		seq, size := nb*nb, int64(4) // X [1, 1, seq, 4]
		x := make([]uint64, seq*size)
		for s := range seq {
			x[s*size], x[s*size+1] = bits[s%nb], bits[s/nb]
			x[s*size+2], x[s*size+3] = bits[(s+3)%nb], bits[(s/nb+5)%nb]
		}
		for _, c := range []struct {
			interleaved bool
			rot         int64
		}{{false, 4}, {true, 4}, {false, 2}, {true, 2}} {
			half := c.rot / 2
			cos, sin := make([]uint64, seq*half), make([]uint64, seq*half)
			for i := range cos {
				cos[i], sin[i] = bits[(int64(i)*7+1)%nb], bits[(int64(i)*3+int64(i)/nb)%nb]
			}
			want := make([]uint64, len(x))
			copy(want, x)
			for s := range seq {
				for j := range half {
					i1, i2 := s*size+j, s*size+j+half
					if c.interleaved {
						i1, i2 = s*size+2*j, s*size+2*j+1
					}
					cv, sv := refValue(dt, cos[s*half+j]), refValue(dt, sin[s*half+j])
					x1, x2 := refValue(dt, x[i1]), refValue(dt, x[i2])
					want[i1] = refBits(dt, float64(cv*x1)-float64(sv*x2))
					want[i2] = refBits(dt, float64(sv*x1)+float64(cv*x2))
				}
			}
			attrs := kernel.Attrs{"rotary_embedding_dim": c.rot}
			if c.interleaved {
				attrs["interleaved"] = int64(1)
			}
			out, err := runOp("RotaryEmbedding", attrs, bitsTensor(dt, shp(1, 1, seq, size), x),
				bitsTensor(dt, shp(1, seq, half), cos), bitsTensor(dt, shp(1, seq, half), sin))
			if err != nil {
				t.Fatalf("RotaryEmbedding/%v %v: %v", dt, attrs, err)
			}
			what := fmt.Sprintf("RotaryEmbedding/%v %v", dt, attrs)
			checkBits(t, what, out[0], dt, shp(1, 1, seq, size), want, false, func(i int) string {
				s := int64(i) / size
				return fmt.Sprintf("element %d of token %v (cos %v, sin %v)", int64(i)%size,
					showRow(dt, x[s*size:s*size+size]), showRow(dt, cos[s*half:s*half+half]), showRow(dt, sin[s*half:s*half+half]))
			})
			// The elements past the rotation are copies, NaN payloads kept.
			got := tensorBits(out[0])
			for s := range seq {
				for e := c.rot; e < size; e++ {
					if i := s*size + e; got[i] != x[i] {
						t.Errorf("%s: element %d of token %d is %s, want the copy %s", what, e, s, showBits(dt, got[i]), showBits(dt, x[i]))
					}
				}
			}
		}
	}
}

// showRow renders bit patterns of dt as values.
func showRow(dt kernel.DType, b []uint64) string {
	v := make([]float64, len(b))
	for i := range b {
		v[i] = refValue(dt, b[i])
	}
	return fmt.Sprint(v)
}
