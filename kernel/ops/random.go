package ops

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
	"sync"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// randomOps are ONNX's generators: RandomNormal and RandomUniform (shape
// attribute), RandomNormalLike and RandomUniformLike (shape of the input),
// Bernoulli and Multinomial. Their values are pipert's own, not those of
// another runtime (no two runtimes share a generator); what ONNX fixes,
// shapes, dtypes and distributions, they follow.
//
// The generator. Each kernel draws from a PCG stream of math/rand/v2 (the
// standard library's, fixed across Go releases), one stream per run of
// the executable: seeded with the float64 bits of attribute seed when the
// node has one (the same seed gives the same sequence, run after run, in
// every executable of the model), and otherwise with a hash of the node's
// name (Args.Node), so that unseeded nodes differ from one another and
// every executable of a model draws the same sequence; and mixed with the
// run's number in its executable (Args.Run), so that each run gives new
// numbers. The runtime numbers runs the same in every mode (KBK, Async,
// Pipeline, Replay, heterogeneous, the steps of Submit), failed runs
// included, so the n-th run's numbers are the same in every mode whatever
// failed before it (a failed run may stop before a node computes in one
// mode and after it in another). Draws within one run go on along the
// run's stream. The stream belongs to the executable: its runs, and the
// steps of Submit, draw from it in turn; a kernel of another executable
// (a new compilation, or a kernel the runner pool hands on, which resets
// it: kernel.Stateful) starts over, and a Compute outside a graph run (a placement
// policy timing the kernel on stand-in data, with no node name) draws
// from a stream of its own and leaves the node's alone. In the body of a
// Loop or Scan, whose kernels package control keeps from iteration to
// iteration and run to run, the body's kernels take the run's number of
// the Loop (kernel.RunNumbered): a run's iterations draw on along the
// run's stream.
//
// InferShape and Resize are functions of the shapes and attributes alone,
// as the host caches require (they cache nothing else): the kernels are
// not volatile, and replay runs their Compute as any other. The ONNX
// import never folds them into constants.
//
// Numbers are drawn in float64 and rounded once to the output dtype, one
// draw per output element in row-major order (Multinomial: one per
// sample, batch by batch).
var randomOps = []builtin{
	{"RandomNormal", newRandom(true, false)},
	{"RandomUniform", newRandom(false, false)},
	{"RandomNormalLike", newRandom(true, true)},
	{"RandomUniformLike", newRandom(false, true)},
	{"Bernoulli", newBernoulli},
	{"Multinomial", newMultinomial},
}

// streams is a kernel's generator: its seed, and the stream of the
// launches it serves.
type streams struct {
	seeded bool
	seed   uint64
	mu     sync.Mutex
	pcg    *rand.PCG  // r's source, reseeded for each run
	r      *rand.Rand // nil until the first draw, and after reset
	run    uint64     // the run r serves (kernel.Args.Run; 0: none)
}

// The second PCG seed words of seeded and unseeded streams.
const (
	seededStream   = 0x70697065_72742d72 // "pipert-r"
	unseededStream = 0x6e6f2d73_65656421 // "no-seed!"
)

// newStreams reads attribute seed (a float; absent: unseeded).
func newStreams(attrs kernel.Attrs) (*streams, error) {
	s := &streams{}
	if _, ok := attrs["seed"]; !ok {
		return s, nil
	}
	v, err := attrs.Float("seed", 0)
	if err != nil {
		return nil, err
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil, fmt.Errorf("attribute seed is %v: want a finite number", v)
	}
	if v == 0 {
		v = 0 // -0 seeds as 0
	}
	s.seeded, s.seed = true, math.Float64bits(v)
	return s, nil
}

// seeds are the PCG seed words of node name's stream in run run (0: of
// no run).
func (s *streams) seeds(name string, run uint64) (uint64, uint64) {
	mix := run * 0x9e3779b97f4a7c15
	if s.seeded {
		return s.seed ^ mix, seededStream
	}
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64() ^ mix, unseededStream
}

// rng returns the stream launch a draws from: the kernel's, which its
// executable's runs, and steps of Submit on either of its lanes, draw
// from in turn (a kernel serves one executable; the runner pool resets it
// when it hands it on). A launch without a node name is not a node's (a
// placement policy timing the kernel on stand-in data): it draws from a
// stream of its own, leaving the node's as it was.
func (s *streams) rng(a *kernel.Args) *rand.Rand {
	if a.Node == "" {
		return rand.New(rand.NewPCG(s.seeds("", 0)))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.r == nil {
		s.pcg = rand.NewPCG(s.seeds(a.Node, a.Run))
		s.r, s.run = rand.New(s.pcg), a.Run
	} else if a.Run != s.run {
		s.pcg.Seed(s.seeds(a.Node, a.Run))
		s.run = a.Run
	}
	return s.r
}

// reset starts the stream over at the next draw.
func (s *streams) reset() {
	s.mu.Lock()
	s.r = nil
	s.mu.Unlock()
}

func (k *random) reset()      { k.s.reset() }
func (k *bernoulli) reset()   { k.s.reset() }
func (k *multinomial) reset() { k.s.reset() }

// floatOut reads the dtype attribute of a generator of floats: absent, def
// (0: the input's); else float32, float16, float64 or bfloat16.
func floatOut(attrs kernel.Attrs, def kernel.DType) (kernel.DType, error) {
	t, err := onnxTypeAttr(attrs, "dtype")
	if err != nil {
		return 0, err
	}
	if t.none() {
		if _, given := attrs["dtype"]; given {
			return 0, errors.New("attribute dtype is 0 (undefined): want float32 (1), float16 (10), float64 (11) or bfloat16 (16)")
		}
		return def, nil
	}
	for _, d := range onnxFloats {
		if t.dt == d {
			return d, nil
		}
	}
	return 0, fmt.Errorf("attribute dtype is %v: want float32 (1), float16 (10), float64 (11) or bfloat16 (16)", t)
}

// finiteAttr reads a float attribute that must be finite.
func finiteAttr(attrs kernel.Attrs, name string, def float64) (float64, error) {
	v, err := attrs.Float(name, def)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("attribute %s is %v: want a finite number", name, v)
	}
	return v, nil
}

// random is RandomNormal (mean 0, scale 1: the standard deviation, at
// least 0), RandomUniform (low 0, high 1, low ≤ high: values in [low,
// high), or low when they are equal) and their Like forms.
//
// RandomNormal and RandomUniform take no input: attribute shape (required,
// dimensions of at least 0) and dtype (default float32) give the output.
// The Like forms take one input of any dtype, whose shape the output has;
// its dtype is attribute dtype, or, absent, the input's, which must then
// be a float type. The output dtypes are float32, float16, float64 and
// bfloat16.
//
// A normal value is mean + scale·z, z of rand.Rand.NormFloat64; a uniform
// one low + (high−low)·u, u of Float64, and a value that rounds to high or
// above in the output dtype is replaced by the largest one below high.
//
// Tiling: split over the output elements (simple's words). Workspace:
// none. Cost: a few operations per element.
type random struct {
	normal, like bool
	shape        kernel.Shape // of the shape attribute (not like)
	dtype        kernel.DType // 0: the input's (like)
	a, b         float64      // mean and scale, or low and high
	s            *streams
}

func newRandom(normal, like bool) kernel.Factory {
	op, p1, p2, d1, d2 := "RandomUniform", "low", "high", 0.0, 1.0
	if normal {
		op, p1, p2, d1, d2 = "RandomNormal", "mean", "scale", 0, 1
	}
	if like {
		op += "Like"
	}
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		known := []string{"dtype", p1, p2, "seed"}
		if !like {
			known = append(known, "shape")
		}
		if err := attrs.Check(known...); err != nil {
			return nil, wrapAttr(err)
		}
		fail := func(err error) (kernel.Kernel, error) { return nil, fmt.Errorf("ops: %s: %w", op, err) }
		k := &random{normal: normal, like: like}
		var err error
		def := kernel.Float32
		if like {
			def = 0
		}
		if k.dtype, err = floatOut(attrs, def); err != nil {
			return fail(err)
		}
		if k.a, err = finiteAttr(attrs, p1, d1); err != nil {
			return fail(err)
		}
		if k.b, err = finiteAttr(attrs, p2, d2); err != nil {
			return fail(err)
		}
		switch {
		case normal && k.b < 0:
			return fail(fmt.Errorf("attribute scale is %v: the standard deviation must be at least 0", k.b))
		case !normal && k.b < k.a:
			return fail(fmt.Errorf("attribute high (%v) is below low (%v)", k.b, k.a))
		}
		if !like {
			if _, ok := attrs["shape"]; !ok {
				return fail(errors.New("attribute shape is required"))
			}
			dims, err := attrs.Ints("shape", nil)
			if err != nil {
				return fail(err)
			}
			for _, d := range dims {
				if d < 0 {
					return fail(fmt.Errorf("attribute shape is %v: want dimensions of at least 0", dims))
				}
			}
			k.shape = kernel.Shape(dims)
			if err := checkElems(k.shape); err != nil {
				return fail(err)
			}
		}
		if k.s, err = newStreams(attrs); err != nil {
			return fail(err)
		}
		n := 0
		if like {
			n = 1
		}
		return newKernel(sig{op: op, minIn: n, maxIn: n, nOut: 1}, k), nil
	}
}

func (k *random) infer(in, out []*kernel.Tensor) error {
	if !k.like {
		setShape(out[0], k.shape, k.dtype)
		return nil
	}
	dt := k.dtype
	if dt == 0 {
		if err := dtypeIn(in[0], "input", onnxFloats...); err != nil {
			return fmt.Errorf("%w (without attribute dtype the output takes the input's dtype, which must be a float type)", err)
		}
		dt = in[0].DType
	}
	setShape(out[0], in[0].Shape, dt)
	return nil
}

func (k *random) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	e.grow(splitWords)
	splitElems(out[0].NumElements(), out[0].DType.Size(), 2).put(e)
	return 0, nil
}

func (k *random) cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{FLOPs: 8 * float64(out[0].NumElements()), Bytes: float64(out[0].Bytes())}
}

func (k *random) compute(a *kernel.Args) error {
	o := a.Out[0]
	d := decoder{b: a.Tiling.Data}
	if err := readSplit(&d, o.NumElements()); err != nil {
		return err
	}
	r := k.s.rng(a)
	ob := o.Data()
	for i := range o.NumElements() {
		if k.normal {
			storeF(o.DType, ob, i, k.a+float64(k.b*r.NormFloat64())) // no fused multiply-add: the same bits on every machine
			continue
		}
		v := k.a + float64((k.b-k.a)*r.Float64())
		storeF(o.DType, ob, i, v)
		for range 4 { // a value rounded up to high steps below it
			got := loadF(o.DType, ob, i)
			if got < k.b || got <= k.a {
				break
			}
			storeBelow(o.DType, ob, i, got)
		}
	}
	return nil
}

// storeBelow stores the largest value of float dtype dt below v, a value
// of dt.
func storeBelow(dt kernel.DType, b []byte, i int64, v float64) {
	switch dt {
	case kernel.Float64:
		kernel.Float64s(b)[i] = math.Nextafter(v, math.Inf(-1))
	case kernel.Float32:
		kernel.Float32s(b)[i] = math.Nextafter32(float32(v), float32(math.Inf(-1)))
	case kernel.Float16, kernel.BFloat16:
		h := kernel.Uint16s(b)[i]
		switch {
		case h == 0 || h == 0x8000: // ±0: the smallest negative subnormal
			h = 0x8001
		case h&0x8000 != 0:
			h++
		default:
			h--
		}
		kernel.Uint16s(b)[i] = h
	}
}

// bernoulli is Bernoulli(input) (dtype, seed): 1 with probability p, 0
// otherwise, for each element p of input (float32, float16, float64 or
// bfloat16, each in [0, 1]: another value, NaN included, is an error). The
// output has input's shape and dtype attribute dtype (default: input's),
// any numeric dtype or bool. An element is 1 when a draw u of Float64, in
// [0, 1), is below p: p 0 is never 1, p 1 always.
type bernoulli struct {
	dtype kernel.DType // 0: the input's
	s     *streams
}

func newBernoulli(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("dtype", "seed"); err != nil {
		return nil, wrapAttr(err)
	}
	t, err := onnxTypeAttr(attrs, "dtype")
	if err != nil {
		return nil, err
	}
	k := &bernoulli{dtype: t.dt}
	if _, given := attrs["dtype"]; given && dtypeIn(&kernel.Tensor{DType: t.dt}, "", onnxAll...) != nil {
		return nil, fmt.Errorf("ops: Bernoulli: attribute dtype is %v: want a numeric dtype or bool", t)
	}
	if k.s, err = newStreams(attrs); err != nil {
		return nil, fmt.Errorf("ops: Bernoulli: %w", err)
	}
	return newKernel(sig{op: "Bernoulli", minIn: 1, maxIn: 1, nOut: 1}, k), nil
}

func (k *bernoulli) infer(in, out []*kernel.Tensor) error {
	if err := dtypeIn(in[0], "input", onnxFloats...); err != nil {
		return err
	}
	dt := k.dtype
	if dt == 0 {
		dt = in[0].DType
	}
	setShape(out[0], in[0].Shape, dt)
	return nil
}

func (k *bernoulli) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	e.grow(splitWords)
	splitElems(out[0].NumElements(), max(in[0].DType.Size(), out[0].DType.Size()), 4).put(e)
	return 0, nil
}

func (k *bernoulli) cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{FLOPs: 4 * float64(out[0].NumElements()), Bytes: float64(in[0].Bytes() + out[0].Bytes())}
}

func (k *bernoulli) compute(a *kernel.Args) error {
	x, o := a.In[0], a.Out[0]
	d := decoder{b: a.Tiling.Data}
	if err := readSplit(&d, o.NumElements()); err != nil {
		return err
	}
	if x.NumElements() != o.NumElements() {
		return fmt.Errorf("output %v differs from the inferred one", o)
	}
	xb, ob := x.Data(), o.Data()
	for i := range x.NumElements() {
		if p := loadF(x.DType, xb, i); !(p >= 0 && p <= 1) {
			return fmt.Errorf("input element %d is %v: a probability must be in [0, 1]", i, p)
		}
	}
	r := k.s.rng(a)
	for i := range x.NumElements() {
		var v int64
		if r.Float64() < loadF(x.DType, xb, i) {
			v = 1
		}
		storeI(o.DType, ob, i, v)
	}
	return nil
}

// multinomial is Multinomial(input) (sample_size 1, dtype int32, seed):
// input [batch, class] (float32, float16, float64 or bfloat16) holds
// unnormalized log-probabilities; the output, [batch, sample_size] of
// int32 or int64, holds sample_size class indices drawn independently
// for each row with probabilities softmax(row). A class of −Inf is never
// drawn; a row of −Inf only, or with a NaN or +Inf, is an error. Each
// draw is u·Σ exp(x−max) with u of Float64, and the class is the first
// whose running sum of exp(x−max), in class order, exceeds it.
//
// Tiling: split over the output elements (simple's words). Workspace:
// none (the kernel keeps a float64 buffer of one row). Cost: a
// logarithmic search per sample and an exponential per logit.
type multinomial struct {
	samples int64
	dtype   kernel.DType
	s       *streams
	cum     []float64
}

func newMultinomial(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("dtype", "sample_size", "seed"); err != nil {
		return nil, wrapAttr(err)
	}
	k := &multinomial{dtype: kernel.Int32}
	var err error
	if k.samples, err = attrs.Int("sample_size", 1); err != nil {
		return nil, wrapAttr(err)
	}
	if k.samples < 1 {
		return nil, fmt.Errorf("ops: Multinomial: attribute sample_size is %d: want at least 1", k.samples)
	}
	t, err := onnxTypeAttr(attrs, "dtype")
	if err != nil {
		return nil, err
	}
	if _, given := attrs["dtype"]; given {
		if t.dt != kernel.Int32 && t.dt != kernel.Int64 {
			return nil, fmt.Errorf("ops: Multinomial: attribute dtype is %v: want int32 (6) or int64 (7)", t)
		}
		k.dtype = t.dt
	}
	if k.s, err = newStreams(attrs); err != nil {
		return nil, fmt.Errorf("ops: Multinomial: %w", err)
	}
	return newKernel(sig{op: "Multinomial", minIn: 1, maxIn: 1, nOut: 1}, k), nil
}

func (k *multinomial) infer(in, out []*kernel.Tensor) error {
	x := in[0]
	if err := dtypeIn(x, "input", onnxFloats...); err != nil {
		return err
	}
	if x.Shape.Rank() != 2 || x.Shape[1] < 1 {
		return fmt.Errorf("input has shape %v: want [batch_size, class_size] with at least one class", x.Shape)
	}
	setShape(out[0], kernel.Shape{x.Shape[0], k.samples}, k.dtype)
	return nil
}

func (k *multinomial) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	e.grow(splitWords)
	splitElems(out[0].NumElements(), out[0].DType.Size(), 2).put(e)
	return 0, nil
}

func (k *multinomial) cost(in, out []*kernel.Tensor) device.Cost {
	classes := float64(in[0].Shape[in[0].Shape.Rank()-1])
	return device.Cost{FLOPs: float64(4*float64(in[0].NumElements())) + float64(float64(out[0].NumElements())*(2+math.Log2(classes+1))),
		Bytes: float64(in[0].Bytes() + out[0].Bytes())}
}

func (k *multinomial) compute(a *kernel.Args) error {
	x, o := a.In[0], a.Out[0]
	d := decoder{b: a.Tiling.Data}
	if err := readSplit(&d, o.NumElements()); err != nil {
		return err
	}
	batch, classes := x.Shape[0], x.Shape[1]
	if o.NumElements() != batch*k.samples {
		return fmt.Errorf("output %v differs from the inferred one", o)
	}
	xb, ob := x.Data(), o.Data()
	k.cum = grow(k.cum, classes)
	// Check every row first, so that a failing run draws nothing.
	for b := range batch {
		m := math.Inf(-1)
		for c := range classes {
			v := loadF(x.DType, xb, b*classes+c)
			if math.IsNaN(v) || math.IsInf(v, 1) {
				return fmt.Errorf("input row %d, class %d is %v: want finite log-probabilities (or −Inf)", b, c, v)
			}
			m = max(m, v)
		}
		if math.IsInf(m, -1) {
			return fmt.Errorf("input row %d is −Inf only: no class has a probability", b)
		}
	}
	r := k.s.rng(a)
	for b := range batch {
		row := b * classes
		m := math.Inf(-1)
		for c := range classes {
			m = max(m, loadF(x.DType, xb, row+c))
		}
		sum := 0.0
		last := int64(0) // the last class of non-zero weight
		for c := range classes {
			w := expF(loadF(x.DType, xb, row+c) - m)
			if w > 0 {
				last = c
			}
			sum += w
			k.cum[c] = sum
		}
		for j := range k.samples {
			u := r.Float64() * sum
			c := int64(sort.SearchFloat64s(k.cum, math.Nextafter(u, math.Inf(1))))
			if c > last {
				c = last // u rounded up to the total
			}
			storeI(o.DType, ob, b*k.samples+j, c)
		}
	}
	return nil
}
