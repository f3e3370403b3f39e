package ops

import (
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// LSTM is ONNX's long short-term memory layer (opsets 7 to 17) on
// float32, float64, float16 and bfloat16, with every attribute: direction
// (forward, reverse, bidirectional), hidden_size, layout (from opset 14: 0
// is [seq, batch, …], 1 is [batch, seq, …]), input_forget, clip,
// activations with activation_alpha and activation_beta.
//
// Inputs X [seq,batch,in], W [dirs,4h,in], R [dirs,4h,h] and the optional
// B [dirs,8h], sequence_lens [batch] (int32 or int64), initial_h and
// initial_c [dirs,batch,h], P [dirs,3h]; gates in the order i, o, f, c.
// Outputs Y [seq,dirs,batch,h], Y_h and Y_c [dirs,batch,h] (layout 1
// puts batch first in every one of them). Per step, with f, g, h the
// direction's three activations (Sigmoid, Tanh, Tanh by default):
//
//	i = f(X·Wiᵀ + H·Riᵀ + Pi⊙C + Wbi + Rbi)
//	f = f(X·Wfᵀ + H·Rfᵀ + Pf⊙C + Wbf + Rbf)   (1 − i with input_forget)
//	c̃ = g(X·Wcᵀ + H·Rcᵀ + Wbc + Rbc)
//	C = f⊙C + i⊙c̃
//	o = f(X·Woᵀ + H·Roᵀ + Po⊙C + Wbo + Rbo)
//	H = o⊙h(C)
//
// clip limits every gate's input to [−clip, clip]. A batch entry stops after
// its sequence length: its Y rows beyond are zero and Y_h, Y_c hold its last
// state; the reverse direction starts at its last valid step. An entry of
// sequence length 0 has zero Y_h and Y_c in every direction, whatever
// initial_h and initial_c hold (onnxruntime's result; layout 1, which
// onnxruntime's CPU kernels refuse, is the same). Products
// accumulate in the compute type: float32 and float64 compute in their own
// type, float16 and bfloat16 in float32 (its results rounded once to their
// type). Activations evaluate in float64 and round once to the compute type.
//
// Tiling (words):
//
//	0 seq  1 batch  2 input  3 hidden  4 directions
//
// GRU and RNN share the kernel. GRU (gates z, r, h; activations f, g;
// linear_before_reset) computes z = f(X·Wzᵀ + H·Rzᵀ + Wbz + Rbz), r
// likewise, h̃ = g(X·Whᵀ + (r⊙H)·Rhᵀ + Rbh + Wbh) — or with
// linear_before_reset g(X·Whᵀ + r⊙(H·Rhᵀ + Rbh) + Wbh) — and
// H = (1−z)⊙h̃ + z⊙H; RNN (activation f, Tanh by default) computes
// H = f(X·Wᵀ + H·Rᵀ + Wb + Rb). Both have outputs Y and Y_h, and no
// initial_c or P.
//
// Workspace: none (the kernel's state buffers). Cost: 2·G·seq·batch·h·(in+h)
// operations per direction (G gates), plus the activations; bytes of every
// operand.
type lstm struct {
	cell         string // LSTM, GRU or RNN
	gates        int64  // gate rows per hidden unit: 4, 3 or 1
	nact         int    // activations per direction: 3, 2 or 1
	linearBefore bool   // GRU: linear_before_reset
	hidden       int64
	dirs         int
	reverse      bool // direction "reverse"
	layout       int64
	inputForget  bool
	clip         float64
	act          [2][3]activation
	f32          floats[float32] // float32, float16 and bfloat16 operands, and the state
	f64          floats[float64] // float64 operands, and the state
}

// activation is one of ONNX's RNN activation functions with its alpha and
// beta.
type activation struct {
	name        string
	alpha, beta float64
}

// activationDefaults gives, per activation, whether it takes alpha and
// beta and their defaults.
var activationDefaults = map[string]struct {
	alpha, beta       bool
	defAlpha, defBeta float64
}{
	"sigmoid": {}, "tanh": {}, "relu": {}, "softsign": {}, "softplus": {},
	"affine":          {alpha: true, beta: true, defAlpha: 1, defBeta: 0},
	"leakyrelu":       {alpha: true, defAlpha: 0.01},
	"thresholdedrelu": {alpha: true, defAlpha: 1},
	"scaledtanh":      {alpha: true, beta: true, defAlpha: 1, defBeta: 1},
	"hardsigmoid":     {alpha: true, beta: true, defAlpha: 0.2, defBeta: 0.5},
	"elu":             {alpha: true, defAlpha: 1},
}

func (a activation) apply(x float64) float64 {
	switch a.name {
	case "sigmoid":
		return 1 / (1 + expF(-x))
	case "tanh":
		return math.Tanh(x)
	case "relu":
		return math.Max(x, 0)
	case "softsign":
		return x / (1 + math.Abs(x))
	case "softplus":
		return math.Log1p(expF(x))
	case "affine":
		return mul64(a.alpha, x) + a.beta
	case "leakyrelu":
		if x < 0 {
			return a.alpha * x
		}
		return x
	case "thresholdedrelu":
		if x > a.alpha {
			return x
		}
		return 0
	case "scaledtanh":
		return a.alpha * math.Tanh(a.beta*x)
	case "hardsigmoid":
		return math.Max(0, math.Min(1, mul64(a.alpha, x)+a.beta))
	case "elu":
		if x < 0 {
			return a.alpha * (expF(x) - 1)
		}
		return x
	}
	return x
}

func newRecurrent(cell string) kernel.Factory {
	return func(attrs kernel.Attrs) (kernel.Kernel, error) { return newCell(cell, attrs) }
}

func newCell(cell string, attrs kernel.Attrs) (kernel.Kernel, error) {
	k, err := cellOf(cell, cell, attrs)
	if err != nil {
		return nil, err
	}
	if cell == "LSTM" {
		return newKernel(sig{op: cell, minIn: 3, maxIn: 8, nOut: 3}, k), nil
	}
	return newKernel(sig{op: cell, minIn: 3, maxIn: 6, nOut: 2}, k), nil
}

// cellOf reads the attributes of an LSTM, GRU or RNN of op op (named in
// errors); extra names attributes of a variant's own, checked by the
// caller.
func cellOf(op, cell string, attrs kernel.Attrs, extra ...string) (*lstm, error) {
	opset, err := attrs.Opset(17)
	if err != nil {
		return nil, wrapAttr(err)
	}
	known := append([]string{"activation_alpha", "activation_beta", "activations", "clip", "direction", "hidden_size"}, extra...)
	k := &lstm{cell: cell, dirs: 1}
	var defaults []string
	switch cell {
	case "LSTM":
		known = append(known, "input_forget")
		k.gates, k.nact, defaults = 4, 3, []string{"Sigmoid", "Tanh", "Tanh"}
	case "GRU":
		known = append(known, "linear_before_reset")
		k.gates, k.nact, defaults = 3, 2, []string{"Sigmoid", "Tanh"}
	default:
		k.gates, k.nact, defaults = 1, 1, []string{"Tanh"}
	}
	if opset >= 14 {
		known = append(known, "layout")
	}
	if err := attrs.Check(known...); err != nil {
		return nil, wrapAttr(err)
	}
	lbr, err := attrs.Int("linear_before_reset", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	k.linearBefore = lbr != 0
	if k.hidden, err = attrs.Int("hidden_size", 0); err != nil {
		return nil, wrapAttr(err)
	}
	if k.hidden <= 0 {
		return nil, fmt.Errorf("ops: %s: attribute hidden_size is required and must be positive, have %d", op, k.hidden)
	}
	dir, err := attrs.String("direction", "forward")
	if err != nil {
		return nil, wrapAttr(err)
	}
	switch dir {
	case "forward":
	case "reverse":
		k.reverse = true
	case "bidirectional":
		k.dirs = 2
	default:
		return nil, fmt.Errorf("ops: %s: direction %q (want forward, reverse or bidirectional)", op, dir)
	}
	if k.layout, err = attrs.Int("layout", 0); err != nil {
		return nil, wrapAttr(err)
	}
	if k.layout != 0 && k.layout != 1 {
		return nil, fmt.Errorf("ops: %s: layout %d (want 0 or 1)", op, k.layout)
	}
	f, err := attrs.Int("input_forget", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	k.inputForget = f != 0
	if k.clip, err = attrs.Float("clip", math.Inf(1)); err != nil {
		return nil, wrapAttr(err)
	}
	if !(k.clip > 0) {
		return nil, fmt.Errorf("ops: %s: clip %g must be positive", op, k.clip)
	}
	k.clip = float64(float32(k.clip))
	names, err := attrs.Strings("activations", nil)
	if err != nil {
		return nil, wrapAttr(err)
	}
	if names == nil {
		for range k.dirs {
			names = append(names, defaults...)
		}
	}
	if len(names) != k.nact*k.dirs {
		return nil, fmt.Errorf("ops: %s: activations %v: want %d per direction", op, names, k.nact)
	}
	alphas, err := attrs.Floats("activation_alpha", nil)
	if err != nil {
		return nil, wrapAttr(err)
	}
	betas, err := attrs.Floats("activation_beta", nil)
	if err != nil {
		return nil, wrapAttr(err)
	}
	ai, bi := 0, 0
	for i, name := range names {
		d, ok := activationDefaults[strings.ToLower(name)]
		if !ok {
			return nil, fmt.Errorf("ops: %s: activation %q is not an ONNX RNN activation", op, name)
		}
		a := activation{name: strings.ToLower(name), alpha: d.defAlpha, beta: d.defBeta}
		if d.alpha && ai < len(alphas) {
			a.alpha = float64(float32(alphas[ai]))
			ai++
		}
		if d.beta && bi < len(betas) {
			a.beta = float64(float32(betas[bi]))
			bi++
		}
		k.act[i/k.nact][i%k.nact] = a
	}
	return k, nil
}

// dims returns seq, batch and input size of x.
func (k *lstm) dims(x kernel.Shape) (seq, batch, in int64) {
	if k.layout == 1 {
		return x[1], x[0], x[2]
	}
	return x[0], x[1], x[2]
}

func (k *lstm) infer(in, out []*kernel.Tensor) error {
	x := in[0]
	if err := dtypeIn(x, "X", onnxFloats...); err != nil {
		return err
	}
	if x.Shape.Rank() != 3 {
		return fmt.Errorf("input X has shape %v, want rank 3", x.Shape)
	}
	seq, batch, inSize := k.dims(x.Shape)
	h, dirs := k.hidden, int64(k.dirs)
	state := kernel.Shape{dirs, batch, h}
	if k.layout == 1 {
		state = kernel.Shape{batch, dirs, h}
	}
	want := []struct {
		name  string
		shape kernel.Shape
	}{{"X", nil}, {"W", kernel.Shape{dirs, k.gates * h, inSize}}, {"R", kernel.Shape{dirs, k.gates * h, h}}, {"B", kernel.Shape{dirs, 2 * k.gates * h}},
		{"sequence_lens", kernel.Shape{batch}}, {"initial_h", state}, {"initial_c", state}, {"P", kernel.Shape{dirs, 3 * h}}}
	for i := 1; i < len(in); i++ {
		t := in[i]
		if i > 2 && t.NumElements() == 0 {
			continue // absent
		}
		if !t.Shape.Equal(want[i].shape) {
			return fmt.Errorf("input %s has shape %v, want %v", want[i].name, t.Shape, want[i].shape)
		}
		if i == 4 {
			if !isIndex(t.DType) {
				return fmt.Errorf("input sequence_lens has dtype %v, want int32 or int64", t.DType)
			}
		} else if err := checkSameDType(t, want[i].name, x, "X"); err != nil {
			return err
		}
	}
	y := kernel.Shape{seq, dirs, batch, h}
	if k.layout == 1 {
		y = kernel.Shape{batch, seq, dirs, h}
	}
	for i, s := range []kernel.Shape{y, state, state}[:len(out)] {
		setShape(out[i], s, x.DType)
	}
	return nil
}

func (k *lstm) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	seq, batch, inSize := k.dims(in[0].Shape)
	e.grow(5)
	e.puts([]int64{seq, batch, inSize, k.hidden, int64(k.dirs)})
	return 0, nil
}

func (k *lstm) cost(in, out []*kernel.Tensor) device.Cost {
	if in[0].Shape.Rank() != 3 {
		return device.Cost{}
	}
	seq, batch, inSize := k.dims(in[0].Shape)
	f := float64(k.dirs) * float64(seq*batch) * (mul64(2*float64(k.gates*k.hidden), float64(inSize+k.hidden)) + mul64(30, float64(k.hidden)))
	return device.Cost{FLOPs: f, Bytes: ioBytes(in, out)}
}

// lstmStep updates the hidden and cell state from the gate
// pre-activations (i, o, f, c).
func lstmStep[T float32 | float64](k *lstm, act [3]activation, gates, hs, cs, Pd []T) {
	H := k.hidden
	for j := range H {
		cPrev := cs[j]
		gi, gOut, gf, gc := gates[j], gates[H+j], gates[2*H+j], gates[3*H+j]
		if Pd != nil {
			gi += mul(Pd[j], cPrev)
			gf += mul(Pd[2*H+j], cPrev)
		}
		i := T(act[0].apply(k.clipped(float64(gi))))
		var f T
		if k.inputForget {
			f = 1 - i
		} else {
			f = T(act[0].apply(k.clipped(float64(gf))))
		}
		ct := T(act[1].apply(k.clipped(float64(gc))))
		c := mul(f, cPrev) + mul(i, ct)
		if Pd != nil {
			gOut += mul(Pd[H+j], c)
		}
		o := T(act[0].apply(k.clipped(float64(gOut))))
		cs[j] = c
		hs[j] = o * T(act[2].apply(float64(c)))
	}
}

// gruStep updates the hidden state from the gate pre-activations (z, r
// complete; h without its recurrent term), rh being scratch of H.
func gruStep[T float32 | float64](k *lstm, act [3]activation, gates, hs, rh, Rd, Bd []T) {
	H := k.hidden
	for j := range H {
		rh[j] = T(act[0].apply(k.clipped(float64(gates[H+j])))) // the reset gate
	}
	// The hidden gate's recurrent term: (r⊙H)·Rhᵀ + Rbh, or with
	// linear_before_reset r⊙(H·Rhᵀ + Rbh).
	for j := range H {
		row := Rd[(2*H+j)*H:][:H]
		var acc T
		if k.linearBefore {
			for q, v := range hs {
				acc += mul(v, row[q])
			}
			if Bd != nil {
				acc += Bd[3*H+2*H+j]
			}
			acc *= rh[j]
		} else {
			for q, v := range hs {
				acc += mul(rh[q]*v, row[q])
			}
			if Bd != nil {
				acc += Bd[3*H+2*H+j]
			}
		}
		gates[2*H+j] += acc
	}
	for j := range H {
		z := T(act[0].apply(k.clipped(float64(gates[j]))))
		h := T(act[1].apply(k.clipped(float64(gates[2*H+j]))))
		hs[j] = mul(1-z, h) + mul(z, hs[j])
	}
}

// clipped limits a gate's input to [−clip, clip].
func (k *lstm) clipped(v float64) float64 {
	return math.Max(-k.clip, math.Min(k.clip, v))
}

func (k *lstm) compute(a *kernel.Args) error {
	d := decoder{b: a.Tiling.Data}
	w := d.words(5)
	if err := d.err(); err != nil {
		return err
	}
	x := a.In[0]
	seq, batch, inSize := k.dims(x.Shape)
	H := k.hidden
	if w.at(0) != seq || w.at(1) != batch || w.at(2) != inSize || w.at(3) != H || w.at(4) != int64(k.dirs) {
		return errTiling
	}
	if a.Out[0].DType == kernel.Float64 {
		return recurrentRun(k, &k.f64, a, seq, batch, inSize)
	}
	return recurrentRun(k, &k.f32, a, seq, batch, inSize)
}

// recurrentRun computes an LSTM, GRU or RNN in T, the compute type, on
// operands of the checked dimensions.
func recurrentRun[T float32 | float64](k *lstm, c *floats[T], a *kernel.Args, seq, batch, inSize int64) error {
	H := k.hidden
	opt := func(i int) []T {
		if t := optional(a.In, i); t != nil {
			return c.in(i, t)
		}
		return nil
	}
	xs, W, R := c.in(0, a.In[0]), c.in(1, a.In[1]), c.in(2, a.In[2])
	B, h0, c0, P := opt(3), opt(5), opt(6), opt(7)
	lens := optional(a.In, 4)
	Y, Yh := c.out(8, a.Out[0]), c.out(9, a.Out[1])
	defer flush(a.Out[0], Y)
	defer flush(a.Out[1], Yh)
	var Yc []T
	if len(a.Out) > 2 {
		Yc = c.out(10, a.Out[2])
		defer flush(a.Out[2], Yc)
	}
	clear(Y)
	G := k.gates
	buf, hAll, cAll := c.buf(11, G*H+H), c.buf(12, batch*H), c.buf(13, batch*H)
	gates, rh := buf[:G*H], buf[G*H:G*H+H]
	rows := int(G * H) // the gate rows whose recurrent term preacts adds
	if k.cell == "GRU" {
		rows = int(2 * H)
	}
	dirs := int64(k.dirs)
	// Offsets of element (t, dir, b) of Y and (dir, b) of the states.
	yAt := func(t, dir, b int64) int64 {
		if k.layout == 1 {
			return ((b*seq+t)*dirs + dir) * H
		}
		return ((t*dirs+dir)*batch + b) * H
	}
	stAt := func(dir, b int64) int64 {
		if k.layout == 1 {
			return (b*dirs + dir) * H
		}
		return (dir*batch + b) * H
	}
	xAt := func(t, b int64) int64 {
		if k.layout == 1 {
			return (b*seq + t) * inSize
		}
		return (t*batch + b) * inSize
	}
	// With the assembly row updates (float32), the pre-activations are
	// computed from the weights transposed: a row update per input
	// element instead of a dot product per gate row, the same sums. The
	// weights are transposed on every Compute, which costs about as much
	// as a few steps of dot products: a streaming model's one step (a
	// voice-activity detector's chunk) takes the dot products.
	transposed := useSIMD && unsafe.Sizeof(T(0)) == 4 && G*H >= simdMin && seq*batch >= transposeSteps
	var WT, RT, rsum []T
	if transposed {
		WT, RT, rsum = c.buf(14, G*H*inSize), c.buf(15, int64(rows)*H), c.buf(16, int64(rows))
	}
	for dir := range dirs {
		reverse := k.reverse || dir == 1
		act := k.act[dir]
		Wd, Rd := W[dir*G*H*inSize:(dir+1)*G*H*inSize], R[dir*G*H*H:(dir+1)*G*H*H]
		if transposed {
			transposeMat(WT, Wd, G*H, inSize)
			transposeMat(RT, Rd[:int64(rows)*H], int64(rows), H)
		}
		var Bd, Pd []T
		if B != nil {
			Bd = B[dir*2*G*H : (dir+1)*2*G*H]
		}
		if P != nil && k.cell == "LSTM" {
			Pd = P[dir*3*H : (dir+1)*3*H]
		}
		for b := range batch {
			n := seq
			if lens != nil {
				n = loadI(lens.DType, lens.Data(), b)
				if n < 0 || n > seq {
					return fmt.Errorf("sequence_lens[%d] is %d, want 0 to %d", b, n, seq)
				}
			}
			hs, cs := hAll[b*H:(b+1)*H], cAll[b*H:(b+1)*H]
			// An empty sequence (length 0) has zero final states, as
			// onnxruntime gives it, whatever initial_h and initial_c hold.
			if h0 != nil && n > 0 {
				copy(hs, h0[stAt(dir, b):][:H])
			} else {
				clear(hs)
			}
			if c0 != nil && k.cell == "LSTM" && n > 0 {
				copy(cs, c0[stAt(dir, b):][:H])
			} else {
				clear(cs)
			}
			for s := range n {
				if err := a.Err(); err != nil {
					return err // the run ended (kernel.Args.Ctx)
				}
				t := s
				if reverse {
					t = n - 1 - s
				}
				if transposed {
					preactsT(gates, rsum, xs[xAt(t, b):][:inSize], hs, WT, RT, Bd)
				} else {
					preacts(gates, xs[xAt(t, b):][:inSize], hs, Wd, Rd, Bd, rows)
				}
				switch k.cell {
				case "LSTM":
					lstmStep(k, act, gates, hs, cs, Pd)
				case "GRU":
					gruStep(k, act, gates, hs, rh, Rd, Bd)
				default:
					for j := range H {
						hs[j] = T(act[0].apply(k.clipped(float64(gates[j]))))
					}
				}
				copy(Y[yAt(t, dir, b):][:H], hs)
			}
			copy(Yh[stAt(dir, b):][:H], hs)
			if Yc != nil {
				copy(Yc[stAt(dir, b):][:H], cs)
			}
		}
	}
	return nil
}

// preacts writes the gate pre-activations of one step, [G·H]: X·Wᵀ + Wb
// for every gate row, then H·Rᵀ + Rb added to the first rows (all but
// GRU's hidden gate, which needs the reset gate first). Two loops, each
// with few live values, so that the dot products keep their registers;
// every sum is the same sequence of roundings as in one loop.
func preacts[T float32 | float64](gates, xt, hs, Wd, Rd, Bd []T, rows int) {
	in, H, GH := len(xt), len(hs), len(gates)
	for g := range gates {
		gates[g] = dot(xt, Wd[g*in:][:in])
		if Bd != nil {
			gates[g] += Bd[g]
		}
	}
	for g := range rows {
		gates[g] += dot(hs, Rd[g*H:][:H])
		if Bd != nil {
			gates[g] += Bd[GH+g]
		}
	}
}

// preactsT is preacts from the weights transposed, WT [in, G·H] and RT
// [H, rows], with rsum [rows] as scratch: each gate row's sum is built by
// row updates over the input elements ascending, from +0, so every sum is
// dot's sequence of roundings; the recurrent sums are added to the gates
// after the bias, as preacts adds them.
func preactsT[T float32 | float64](gates, rsum, xt, hs, WT, RT, Bd []T) {
	GH, rows := len(gates), len(rsum)
	clear(gates)
	for j, v := range xt {
		axpy1(gates, WT[j*GH:][:GH], v)
	}
	if Bd != nil {
		for g := range gates {
			gates[g] += Bd[g]
		}
	}
	clear(rsum)
	for j, v := range hs {
		axpy1(rsum, RT[j*rows:][:rows], v)
	}
	for g := range rsum {
		gates[g] += rsum[g]
		if Bd != nil {
			gates[g] += Bd[GH+g]
		}
	}
}

// transposeMat writes the r×c row-major matrix m into t as c×r, a tile
// of transposeTile×transposeTile at a time, so that neither side is walked
// a cache line an element.
func transposeMat[T float32 | float64](t, m []T, r, c int64) {
	for i0 := int64(0); i0 < r; i0 += transposeTile {
		i1 := min(i0+transposeTile, r)
		for j0 := int64(0); j0 < c; j0 += transposeTile {
			j1 := min(j0+transposeTile, c)
			for i := i0; i < i1; i++ {
				for j := j0; j < j1; j++ {
					t[j*r+i] = m[i*c+j]
				}
			}
		}
	}
}

// transposeSteps is the fewest steps (sequence length × batch) for which
// recurrentRun transposes the weights: with fewer, transposing costs more
// than the row updates save (BenchmarkLSTMOneStep, an LSTM of input and
// hidden size 128 on 2 cores: transposing about 0.85 ms, a step 65 µs
// transposed, 120–190 µs from dot products; at 8 steps 1.35 ms against
// 1.5 ms).
const transposeSteps = 8

// transposeTile is transposeMat's tile side: 32 float64 rows of 256 bytes
// each side, 16 KiB, in L1.
const transposeTile = 32

// dot is the sum over j ascending of the rounded products x[j]·w[j].
func dot[T float32 | float64](x, w []T) T {
	var acc T
	w = w[:len(x)]
	for j, v := range x {
		acc += T(v * w[j]) // mul, written out: rounded, never fused
	}
	return acc
}
