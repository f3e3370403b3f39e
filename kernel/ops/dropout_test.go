package ops

import (
	"math"
	"slices"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// dropoutArgs prepares Dropout(x, ratio, training_mode true) of opset 12.
func dropoutArgs(t *testing.T, attrs kernel.Attrs, x *kernel.Tensor, ratio float64) (kernel.Kernel, *kernel.Args) {
	t.Helper()
	k, err := Builtins().New("Dropout", attrs)
	if err != nil {
		t.Fatal(err)
	}
	a, err := prepare(k, 1, x, f32(shp(), ratio), tensor(kernel.Bool, shp(), 1))
	if err != nil {
		t.Fatal(err)
	}
	return k, a
}

// TestDropoutTraining: in training mode each element is kept with
// probability 1 − ratio, as data·scale, and dropped as 0·data (−0 of a
// negative, NaN of NaN); the mask says which; the share dropped follows
// ratio; the draws follow the random ops' generator (same seed, same
// masks; a new run, new masks).
func TestDropoutTraining(t *testing.T) {
	const n = 20000
	for _, dt := range []kernel.DType{kernel.Float32, kernel.Float64, kernel.Float16} {
		for _, ratio := range []float64{0.1, 0.5, 0.75} {
			v := make([]float64, n)
			for i := range v {
				v[i] = float64(i%7) - 3.25
			}
			v[5], v[6] = math.NaN(), math.Inf(-1)
			x := tensor(dt, shp(n), v...)
			k, a := dropoutArgs(t, kernel.Attrs{kernel.OpsetAttr: int64(13), "seed": int64(7)}, x, ratio)
			if err := k.Compute(a); err != nil {
				t.Fatal(err)
			}
			y, mask := values(a.Out[0]), a.Out[1].Data()
			r := float64(float32(ratio)) // as the float32 operand holds it
			scale := float64(float32(1 / (1 - r)))
			if dt == kernel.Float64 {
				scale = 1 / (1 - r)
			}
			dropped := 0
			for i, xv := range values(x) {
				want := xv * scale
				if mask[i] == 0 {
					dropped++
					want = 0 * xv
				}
				if dt != kernel.Float64 {
					want = values(tensor(dt, shp(), want))[0]
				}
				if !sameValue(y[i], want, true) {
					t.Fatalf("%v ratio %v: y[%d] = %v (mask %d), want %v", dt, ratio, i, y[i], mask[i], want)
				}
			}
			if sd := math.Sqrt(ratio * (1 - ratio) / n); math.Abs(float64(dropped)/n-ratio) > 5*sd {
				t.Errorf("%v ratio %v: %d of %d dropped", dt, ratio, dropped, n)
			}
			// The same seed draws the same masks in a new kernel; the
			// next run of the same one draws new ones.
			first := slices.Clone(mask)
			k2, a2 := dropoutArgs(t, kernel.Attrs{kernel.OpsetAttr: int64(13), "seed": int64(7)}, x, ratio)
			if err := k2.Compute(a2); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(a2.Out[1].Data(), first) {
				t.Errorf("%v ratio %v: the same seed drew other masks", dt, ratio)
			}
			a.Run = 2
			if err := k.Compute(a); err != nil {
				t.Fatal(err)
			}
			if slices.Equal(a.Out[1].Data(), first) {
				t.Errorf("%v ratio %v: a new run drew the same masks", dt, ratio)
			}
		}
	}
}

// TestDropoutModes: ratio 0, or training_mode false, copy the data with a
// mask all true; training with a ratio outside [0, 1), or operands of the
// wrong kind, are errors at InferShape.
func TestDropoutModes(t *testing.T) {
	x := f32(shp(2, 3), -1, 2, math.NaN(), 4, -0.5, 6)
	for _, in := range [][]*kernel.Tensor{
		{x, f32(shp(), 0), tensor(kernel.Bool, shp(), 1)},
		{x, f32(shp(), 0.9), tensor(kernel.Bool, shp(), 0)},
		{x, f32(shp(), 7)}, // no training_mode: inference, ratio unused
	} {
		k, err := Builtins().New("Dropout", kernel.Attrs{kernel.OpsetAttr: int64(13)})
		if err != nil {
			t.Fatal(err)
		}
		a, err := prepare(k, 1, in...)
		if err != nil {
			t.Fatal(err)
		}
		if err := k.Compute(a); err != nil {
			t.Fatal(err)
		}
		if string(a.Out[0].Data()) != string(x.Data()) {
			t.Errorf("%v: output %v, want the data", in[1:], values(a.Out[0]))
		}
		for i, m := range a.Out[1].Data() {
			if m != 1 {
				t.Errorf("%v: mask[%d] = %d", in[1:], i, m)
			}
		}
	}
	if k, err := Builtins().New("Dropout", kernel.Attrs{kernel.OpsetAttr: int64(9)}); err != nil {
		t.Fatal(err)
	} else if _, err := prepare(k, 1, x, f32(shp(), 0.5), tensor(kernel.Bool, shp(), 1)); err == nil {
		t.Error("training mode at opset 9: no error")
	}
	for _, in := range [][]*kernel.Tensor{
		{x, f32(shp(), 1), tensor(kernel.Bool, shp(), 1)},
		{x, f32(shp(), -0.1), tensor(kernel.Bool, shp(), 1)},
		{x, f32(shp(), math.NaN()), tensor(kernel.Bool, shp(), 1)},
		{x, f32(shp(2), 0.5, 0.5), tensor(kernel.Bool, shp(), 1)},
		{x, i64(shp(), 0), tensor(kernel.Bool, shp(), 1)},
		{x, f32(shp(), 0.5), f32(shp(), 1)},
	} {
		k, err := Builtins().New("Dropout", kernel.Attrs{kernel.OpsetAttr: int64(13)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := prepare(k, 1, in...); err == nil {
			t.Errorf("ratio %v, training_mode %v: no error", in[1], in[2])
		}
	}
}
