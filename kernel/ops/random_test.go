package ops

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Bernoulli", "Multinomial")
}

// gen is a generator kernel with its launch arguments: draw computes it
// again with the same Args, as the runtime does run after run.
type gen struct {
	t *testing.T
	k kernel.Kernel
	a *kernel.Args
}

func newGen(t *testing.T, op string, attrs kernel.Attrs, in ...*kernel.Tensor) *gen {
	t.Helper()
	k, err := Builtins().New(op, attrs)
	if err != nil {
		t.Fatalf("%s %v: %v", op, attrs, err)
	}
	a, err := prepare(k, 1, in...)
	if err != nil {
		t.Fatalf("%s %v: %v", op, attrs, err)
	}
	return &gen{t, k, a}
}

// draw computes and returns a copy of the output's bytes.
func (g *gen) draw() []byte {
	g.t.Helper()
	if err := g.k.Compute(g.a); err != nil {
		g.t.Fatalf("%s: %v", g.k.Op(), err)
	}
	return slices.Clone(g.a.Out[0].Data())
}

func (g *gen) values() []float64 {
	g.t.Helper()
	g.draw()
	return values(g.a.Out[0])
}

// TestRandomDeterminism: every generator, seeded or not, draws the same
// sequence from the same start — a new kernel, or the same kernel launched
// with new Args (a new executable, or a pooled kernel) — and new numbers
// on each launch with the same Args (each run); a launch without a node
// name (a policy timing the kernel) leaves the sequence alone; seeds and,
// unseeded, node names choose different sequences.
func TestRandomDeterminism(t *testing.T) {
	x := f32(shp(4, 8), 0.5, 0.1, 0.9, 0.5, 0.3, 0.7, 0.5, 0.5, 0.5, 0.1, 0.9, 0.5, 0.3, 0.7, 0.5, 0.5, 0.5, 0.1, 0.9, 0.5, 0.3, 0.7, 0.5, 0.5, 0.5, 0.1, 0.9, 0.5, 0.3, 0.7, 0.5, 0.5)
	cases := []struct {
		op    string
		attrs kernel.Attrs
		in    []*kernel.Tensor
	}{
		{"RandomNormal", kernel.Attrs{"shape": []int64{4, 8}}, nil},
		{"RandomUniform", kernel.Attrs{"shape": []int64{32}, "dtype": kernel.Float64}, nil},
		{"RandomNormalLike", kernel.Attrs{"dtype": int64(10)}, []*kernel.Tensor{x}},
		{"RandomUniformLike", kernel.Attrs{}, []*kernel.Tensor{x}},
		{"Bernoulli", kernel.Attrs{}, []*kernel.Tensor{x}},
		{"Multinomial", kernel.Attrs{"sample_size": int64(16)}, []*kernel.Tensor{x}},
	}
	for _, c := range cases {
		for _, seed := range []any{nil, float32(3), 3.0, math.Copysign(0, -1)} {
			attrs := kernel.Attrs{}
			for k, v := range c.attrs {
				attrs[k] = v
			}
			if seed != nil {
				attrs["seed"] = seed
			}
			g := newGen(t, c.op, attrs, c.in...)
			first, second := g.draw(), g.draw()
			if string(first) == string(second) {
				t.Errorf("%s seed %v: the second run drew what the first did", c.op, seed)
			}
			h := newGen(t, c.op, attrs, c.in...)
			if string(h.draw()) != string(first) || string(h.draw()) != string(second) {
				t.Errorf("%s seed %v: another kernel drew another sequence", c.op, seed)
			}
			// Timing on stand-ins, with no node name, between runs.
			stand := *h.a
			stand.Node = ""
			if err := h.k.Compute(&stand); err != nil {
				t.Fatal(err)
			}
			third := h.draw()
			if string(third) == string(first) || string(third) == string(second) {
				t.Errorf("%s seed %v: a nameless launch moved the sequence", c.op, seed)
			}
			// Another Args (Submit's second lane) draws on from the same
			// stream; the kernel handed on to another executable (Reset,
			// kernel.Stateful) starts over.
			again := *h.a
			h.a = &again
			if fourth := h.draw(); string(fourth) == string(first) || string(fourth) == string(third) {
				t.Errorf("%s seed %v: a launch with other Args did not draw on", c.op, seed)
			}
			h.k.(kernel.Stateful).Reset()
			if string(h.draw()) != string(first) {
				t.Errorf("%s seed %v: a reset kernel did not start over", c.op, seed)
			}
			// Unseeded, the node name chooses the stream; seeded, it does not.
			o := newGen(t, c.op, attrs, c.in...)
			o.a.Node = "other"
			if same := string(o.draw()) == string(first); same != (seed != nil) {
				t.Errorf("%s seed %v: another node's name draws the same sequence: %v", c.op, seed, same)
			}
		}
		attrs := kernel.Attrs{"seed": 4.0}
		maps := func(a kernel.Attrs) kernel.Attrs {
			for k, v := range c.attrs {
				a[k] = v
			}
			return a
		}
		a, b := newGen(t, c.op, maps(kernel.Attrs{"seed": 3.0}), c.in...), newGen(t, c.op, maps(attrs), c.in...)
		if string(a.draw()) == string(b.draw()) {
			t.Errorf("%s: seeds 3 and 4 draw the same", c.op)
		}
	}
}

// within fails unless got is within 5 standard errors se of want.
func within(t *testing.T, what string, got, want, se float64) {
	t.Helper()
	if math.Abs(got-want) > 5*se {
		t.Errorf("%s: %v, want %v ± 5·%.3g", what, got, want, se)
	}
}

// sampleMoments returns the mean and the (unbiased) variance of v.
func sampleMoments(v []float64) (mean, variance float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		variance += (x - mean) * (x - mean)
	}
	return mean, variance / float64(len(v)-1)
}

// TestRandomDistributions: with a fixed seed and many draws, the sample
// mean and variance of the normal and uniform generators lie within 5
// standard errors of the distribution's; uniform values lie in [low,
// high) after rounding; Bernoulli's frequencies follow p (0 and 1
// exactly); Multinomial's class frequencies follow the softmax of the
// logits, a class of −Inf never drawn.
func TestRandomDistributions(t *testing.T) {
	const n = 200000
	for _, dt := range []kernel.DType{kernel.Float64, kernel.Float32} {
		for _, unseeded := range []bool{false, true} {
			attrs := kernel.Attrs{"shape": []int64{n}, "dtype": dt, "mean": 2.5, "scale": 3.0, "seed": 11.0}
			if unseeded {
				delete(attrs, "seed")
			}
			m, v := sampleMoments(newGen(t, "RandomNormal", attrs).values())
			within(t, "normal mean", m, 2.5, 3/math.Sqrt(n))
			within(t, "normal variance", v, 9, 9*math.Sqrt(2.0/(n-1)))
		}
		attrs := kernel.Attrs{"shape": []int64{n}, "dtype": dt, "low": -1.0, "high": 3.0, "seed": 12.0}
		u := newGen(t, "RandomUniform", attrs).values()
		m, v := sampleMoments(u)
		const w = 4.0
		within(t, "uniform mean", m, 1, math.Sqrt(w*w/12/n))
		within(t, "uniform variance", v, w*w/12, math.Sqrt((math.Pow(w, 4)/80-math.Pow(w*w/12, 2))/n))
		if lo, hi := slices.Min(u), slices.Max(u); lo < -1 || hi >= 3 {
			t.Errorf("uniform %v: values from %v to %v, want [-1, 3)", dt, lo, hi)
		}
	}
	// Narrow ranges in float16 and bfloat16: u·(high−low) rounding up to
	// high steps below it.
	for _, dt := range []kernel.DType{kernel.Float16, kernel.BFloat16} {
		for _, r := range [][2]float64{{1, 1.0078125}, {-2, -1.9921875}, {-0.001, 0}, {0, 0.001}} {
			u := newGen(t, "RandomUniform", kernel.Attrs{"shape": []int64{4096}, "dtype": dt, "low": r[0], "high": r[1], "seed": 1.0}).values()
			if lo, hi := slices.Min(u), slices.Max(u); lo < r[0]-1e-3*math.Abs(r[0]) || hi >= r[1] {
				t.Errorf("uniform %v in %v: values from %v to %v", dt, r, lo, hi)
			}
		}
	}
	// Bernoulli.
	ps := []float64{0, 0.1, 0.5, 0.9, 1}
	const per = 40000
	p := make([]float64, 0, per*len(ps))
	for _, q := range ps {
		for range per {
			p = append(p, q)
		}
	}
	for _, dt := range []kernel.DType{kernel.Float64, kernel.Float16} {
		for _, out := range []kernel.DType{0, kernel.Bool, kernel.Int64, kernel.Uint8, kernel.BFloat16} {
			attrs := kernel.Attrs{"seed": 5.0}
			if out != 0 {
				attrs["dtype"] = out
			}
			g := newGen(t, "Bernoulli", attrs, tensor(dt, shp(int64(len(ps)), per), p...))
			want := out
			if out == 0 {
				want = dt
			}
			if g.a.Out[0].DType != want {
				t.Fatalf("Bernoulli of %v dtype %v: output %v", dt, out, g.a.Out[0].DType)
			}
			got := g.values()
			for i, q := range ps {
				ones := 0.0
				for _, b := range got[i*per : (i+1)*per] {
					if b != 0 && b != 1 {
						t.Fatalf("Bernoulli: value %v", b)
					}
					ones += b
				}
				if q == 0 || q == 1 {
					if ones != q*per {
						t.Errorf("Bernoulli p %v: %v ones in %d", q, ones, per)
					}
					continue
				}
				within(t, "Bernoulli frequency", ones/per, q, math.Sqrt(q*(1-q)/per))
			}
		}
	}
	// Multinomial: two rows, softmax of [0, 1, 2, −Inf] and [3, 3, −Inf, −1].
	inf := math.Inf(-1)
	logits := []float64{0, 1, 2, inf, 3, 3, inf, -1}
	for _, dt := range []kernel.DType{kernel.Float32, kernel.BFloat16} {
		g := newGen(t, "Multinomial", kernel.Attrs{"sample_size": int64(n), "dtype": int64(7), "seed": 9.0}, tensor(dt, shp(2, 4), logits...))
		if o := g.a.Out[0]; o.DType != kernel.Int64 || !o.Shape.Equal(kernel.Shape{2, n}) {
			t.Fatalf("Multinomial: output %v", o)
		}
		got := g.values()
		for row := range 2 {
			l := logits[row*4 : row*4+4]
			sum := 0.0
			for _, x := range l {
				sum += math.Exp(x)
			}
			count := make([]float64, 4)
			for _, c := range got[row*n : (row+1)*n] {
				count[int(c)]++
			}
			for c, x := range l {
				q := math.Exp(x) / sum
				if q == 0 {
					if count[c] != 0 {
						t.Errorf("Multinomial row %d: class %d of −Inf drawn %v times", row, c, count[c])
					}
					continue
				}
				within(t, "Multinomial frequency", count[c]/n, q, math.Sqrt(q*(1-q)/n))
			}
		}
	}
}

// TestRandomShapesAndDTypes: the output shapes and dtypes ONNX gives
// each generator, its defaults and the dtype attribute as an ONNX code or
// a pipert dtype.
func TestRandomShapesAndDTypes(t *testing.T) {
	i32 := tensor(kernel.Int32, shp(2, 3))
	cases := []struct {
		op    string
		attrs kernel.Attrs
		in    []*kernel.Tensor
		dt    kernel.DType
		shape kernel.Shape
	}{
		{"RandomNormal", kernel.Attrs{"shape": []int64{2, 0, 3}}, nil, kernel.Float32, kernel.Shape{2, 0, 3}},
		{"RandomNormal", kernel.Attrs{"shape": []int64{}}, nil, kernel.Float32, kernel.Shape{}},
		{"RandomNormal", kernel.Attrs{"shape": []int64{5}, "dtype": int64(16)}, nil, kernel.BFloat16, kernel.Shape{5}},
		{"RandomUniform", kernel.Attrs{"shape": []int64{3, 1}, "dtype": int64(10)}, nil, kernel.Float16, kernel.Shape{3, 1}},
		{"RandomUniform", kernel.Attrs{"shape": []int64{3}, "dtype": kernel.Float64}, nil, kernel.Float64, kernel.Shape{3}},
		{"RandomNormalLike", kernel.Attrs{"dtype": int64(11)}, []*kernel.Tensor{i32}, kernel.Float64, kernel.Shape{2, 3}},
		{"RandomNormalLike", nil, []*kernel.Tensor{tensor(kernel.BFloat16, shp(4))}, kernel.BFloat16, kernel.Shape{4}},
		{"RandomUniformLike", kernel.Attrs{"dtype": int64(1)}, []*kernel.Tensor{tensor(kernel.Bool, shp(1, 2))}, kernel.Float32, kernel.Shape{1, 2}},
		{"RandomUniformLike", nil, []*kernel.Tensor{tensor(kernel.Float16, shp(0, 2))}, kernel.Float16, kernel.Shape{0, 2}},
		{"Bernoulli", nil, []*kernel.Tensor{tensor(kernel.Float64, shp(2, 2), 0, 1, 0, 1)}, kernel.Float64, kernel.Shape{2, 2}},
		{"Bernoulli", kernel.Attrs{"dtype": int64(9)}, []*kernel.Tensor{f32(shp(3), 0, 1, 1)}, kernel.Bool, kernel.Shape{3}},
		{"Bernoulli", kernel.Attrs{"dtype": int64(12)}, []*kernel.Tensor{f32(shp(3), 0, 1, 1)}, kernel.Uint32, kernel.Shape{3}},
		{"Multinomial", nil, []*kernel.Tensor{f32(shp(3, 2))}, kernel.Int32, kernel.Shape{3, 1}},
		{"Multinomial", kernel.Attrs{"sample_size": int64(4), "dtype": kernel.Int64}, []*kernel.Tensor{tensor(kernel.Float16, shp(0, 2))}, kernel.Int64, kernel.Shape{0, 4}},
	}
	for _, c := range cases {
		out, err := runOp(c.op, c.attrs, c.in...)
		if err != nil {
			t.Errorf("%s %v: %v", c.op, c.attrs, err)
			continue
		}
		if out[0].DType != c.dt || !out[0].Shape.Equal(c.shape) {
			t.Errorf("%s %v: output %v, want %v %v", c.op, c.attrs, out[0], c.dt, c.shape)
		}
		k, _ := Builtins().New(c.op, c.attrs)
		if d := k.Deps(); d.Volatile || d.Compute || d.ShapeOnly || len(d.Value) != 0 {
			t.Errorf("%s: Deps %+v, want none", c.op, d)
		}
	}
	// A Bernoulli or Multinomial output is its input's class indices or
	// 0/1 exactly where the draws cannot matter.
	checkValues(t, "Bernoulli 0/1", mustRun(t, "Bernoulli", kernel.Attrs{"dtype": int64(7)}, f32(shp(4), 1, 0, 0, 1)), shp(4), []float64{1, 0, 0, 1})
	inf := math.Inf(-1)
	checkValues(t, "Multinomial one class", mustRun(t, "Multinomial", kernel.Attrs{"sample_size": int64(3)}, f32(shp(2, 3), inf, 5, inf, -7, inf, inf)), shp(2, 3), []float64{1, 1, 1, 0, 0, 0})
	checkValues(t, "RandomUniform low = high", mustRun(t, "RandomUniform", kernel.Attrs{"shape": []int64{2}, "low": 1.5, "high": 1.5}), shp(2), []float64{1.5, 1.5})
	checkValues(t, "RandomNormal scale 0", mustRun(t, "RandomNormal", kernel.Attrs{"shape": []int64{2}, "mean": -4.0, "scale": 0.0}), shp(2), []float64{-4, -4})
}

// TestRandomErrors: attributes ONNX does not allow, and inputs the
// distributions are not defined on.
func TestRandomErrors(t *testing.T) {
	bad := []struct {
		op    string
		attrs kernel.Attrs
		want  string
	}{
		{"RandomNormal", kernel.Attrs{}, "attribute shape is required"},
		{"RandomNormal", kernel.Attrs{"shape": []int64{2, -1}}, "dimensions of at least 0"},
		{"RandomNormal", kernel.Attrs{"shape": []int64{2}, "scale": -1.0}, "standard deviation must be at least 0"},
		{"RandomNormal", kernel.Attrs{"shape": []int64{2}, "mean": math.NaN()}, "attribute mean is NaN"},
		{"RandomNormal", kernel.Attrs{"shape": []int64{2}, "dtype": int64(6)}, "attribute dtype is int32 (6)"},
		{"RandomNormal", kernel.Attrs{"shape": []int64{2}, "dtype": int64(8)}, "attribute dtype is 8 (not one of pipert's dtypes)"},
		{"RandomNormal", kernel.Attrs{"shape": []int64{2}, "dtype": int64(0)}, "attribute dtype is 0"},
		{"RandomUniform", kernel.Attrs{"shape": []int64{2}, "low": 2.0, "high": 1.0}, "attribute high (1) is below low (2)"},
		{"RandomUniform", kernel.Attrs{"shape": []int64{2}, "high": math.Inf(1)}, "attribute high is +Inf"},
		{"RandomUniform", kernel.Attrs{"shape": []int64{2}, "seed": math.NaN()}, "attribute seed is NaN"},
		{"RandomUniform", kernel.Attrs{"shape": []int64{1 << 40, 1 << 40}}, "too many elements"},
		{"RandomUniformLike", kernel.Attrs{"shape": []int64{2}}, "shape"},
		{"RandomNormalLike", kernel.Attrs{"dtype": kernel.Int64}, "attribute dtype is int64 (7)"},
		{"Bernoulli", kernel.Attrs{"dtype": int64(8)}, "attribute dtype is 8"},
		{"Multinomial", kernel.Attrs{"sample_size": int64(0)}, "sample_size is 0: want at least 1"},
		{"Multinomial", kernel.Attrs{"sample_size": int64(-2)}, "sample_size is -2"},
		{"Multinomial", kernel.Attrs{"dtype": int64(1)}, "attribute dtype is float32 (1): want int32 (6) or int64 (7)"},
	}
	for _, b := range bad {
		_, err := Builtins().New(b.op, b.attrs)
		if err == nil || !strings.Contains(err.Error(), b.want) || !strings.Contains(err.Error(), b.op) && b.op != "RandomUniformLike" {
			t.Errorf("%s %v: error %v, want one naming the op and containing %q", b.op, b.attrs, err, b.want)
		}
	}
	wantErr(t, "RandomUniformLike", nil, []*kernel.Tensor{tensor(kernel.Int32, shp(2))}, "dtype int32", "must be a float type")
	wantErr(t, "Bernoulli", nil, []*kernel.Tensor{tensor(kernel.Int32, shp(2))}, "dtype int32")
	wantErr(t, "Bernoulli", nil, []*kernel.Tensor{f32(shp(3), 0.5, 1.5, 0)}, "element 1 is 1.5", "[0, 1]")
	wantErr(t, "Bernoulli", nil, []*kernel.Tensor{f32(shp(2), math.NaN(), 0)}, "element 0 is NaN")
	wantErr(t, "Multinomial", nil, []*kernel.Tensor{f32(shp(3))}, "want [batch_size, class_size]")
	wantErr(t, "Multinomial", nil, []*kernel.Tensor{f32(shp(2, 0))}, "at least one class")
	inf := math.Inf(-1)
	wantErr(t, "Multinomial", nil, []*kernel.Tensor{f32(shp(2, 2), 0, 1, inf, inf)}, "row 1 is −Inf only")
	wantErr(t, "Multinomial", nil, []*kernel.Tensor{f32(shp(1, 2), 0, math.NaN())}, "class 1 is NaN")
	wantErr(t, "Multinomial", nil, []*kernel.Tensor{f32(shp(1, 2), math.Inf(1), 0)}, "class 0 is +Inf")
}

// TestSpecialRandom: the generators on special values: Bernoulli and
// Multinomial refuse what is no probability (checked in TestRandomErrors)
// and take the extremes exactly; the normal and uniform generators at the
// largest finite parameters stay finite or overflow to ±Inf only in a
// narrower output dtype.
func TestSpecialRandom(t *testing.T) {
	// Bernoulli of the smallest positive subnormal and of 1 − ε.
	for _, dt := range sweepFloats {
		tiny := refValue(dt, 1)
		out := mustRun(t, "Bernoulli", kernel.Attrs{"dtype": kernel.Bool, "seed": 1.0}, tensor(dt, shp(2), 0, 1))
		checkValues(t, "Bernoulli extremes", out, shp(2), []float64{0, 1})
		if _, err := runOp("Bernoulli", nil, tensor(dt, shp(1), tiny)); err != nil {
			t.Errorf("Bernoulli %v of %v: %v", dt, tiny, err)
		}
		if _, err := runOp("Bernoulli", nil, tensor(dt, shp(1), -tiny)); err == nil {
			t.Errorf("Bernoulli %v of %v: no error", dt, -tiny)
		}
	}
	out := mustRun(t, "RandomUniform", kernel.Attrs{"shape": []int64{64}, "dtype": kernel.Float64, "low": -math.MaxFloat64 / 2, "high": math.MaxFloat64 / 2})
	for _, v := range values(out) {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			t.Fatalf("RandomUniform over half the float64 range: %v", v)
		}
	}
	out = mustRun(t, "RandomNormal", kernel.Attrs{"shape": []int64{64}, "dtype": kernel.Float16, "mean": 1e6})
	for _, v := range values(out) {
		if !math.IsInf(v, 1) {
			t.Fatalf("RandomNormal of mean 1e6 in float16: %v, want +Inf", v)
		}
	}
}
