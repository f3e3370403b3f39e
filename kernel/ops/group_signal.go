package ops

import (
	"fmt"
	"math"
	"slices"

	"github.com/pipert/pipert/kernel"
)

// signalOps are ONNX's linear-algebra and signal-processing ops, each a
// single pass (see simple) computed in float64 and rounded once to the
// output dtype:
//
//   - Det(X): the determinant of each [M, M] matrix of X [*, M, M]
//     (LU factorisation with partial pivoting; NaN when an element is
//     NaN or infinite and a pivot is zero, see det).
//   - HannWindow, HammingWindow, BlackmanWindow(size) (output_datatype
//     float32, periodic 1): the window of size elements, N = size when
//     periodic, else size − 1: Hann sin²(πn/N); Hamming α − β·cos(2πn/N)
//     with α = 25/46, β = 1 − α; Blackman 0.42 − 0.5·cos(2πn/N) +
//     0.08·cos(4πn/N). size is a value dependency. An integer
//     output_datatype truncates the values toward zero (the peak 1 stays
//     1).
//   - MelWeightMatrix(num_mel_bins, dft_length, sample_rate,
//     lower_edge_hertz, upper_edge_hertz) (output_datatype float32): the
//     [dft_length/2 + 1, num_mel_bins] triangular filter bank of ONNX's
//     definition (mel = 2595·log10(1 + hz/700), bin edges floored). The
//     two integer sizes are value dependencies.
//   - DFT(input[, dft_length]) (axis 1, inverse 0, onesided 0): the
//     discrete Fourier transform along axis of a real ([…, 1]) or complex
//     ([…, 2]) signal, zero-padded or truncated to dft_length; the inverse
//     divides by the length; onesided keeps the first length/2 + 1 bins
//     of a real signal (a complex one has no one-sided spectrum).
//     The output is complex, [… , bins, …, 2]. Up to opset 19 the first
//     axis is a batch axis (input rank 3 or more, axis 1 to rank − 2).
//     From opset 20 axis is the optional scalar int64 input 2 (default
//     −2, any axis but the last; input rank 2 or more). At every opset
//     onesided takes a real signal, and with inverse (IRFFT) a complex
//     one-sided spectrum of m bins, whose Hermitian completion to
//     dft_length (default 2·(m − 1)) it inverts into a real signal
//     [… , dft_length, …, 1] (ONNX spelled IRFFT out for opsets 17 and
//     20 alike in onnx/onnx#7574). As numpy's irfft, which ONNX's
//     reference calls, the inverse of length n reads the first n/2 + 1
//     bins, the spectrum truncated or zero-padded to them, at any n
//     (onnxruntime agrees for n = 2·(m − 1), for odd n ≥ 2·m − 1 and
//     for m = 1, and departs from the specification at most others).
//   - STFT(signal, frame_step[, window[, frame_length]]) (onesided 1): the
//     DFT of each frame of signal [B, L, 1|2] ([B, L] is real, as
//     onnxruntime takes it), frames starting every
//     frame_step samples, each frame_length long (default: the window's
//     length) and multiplied by the window; output [B, frames, bins, 2].
//     frame_step and frame_length are value dependencies.
var signalOps = []builtin{
	{"Det", newDet},
	{"HannWindow", newWindow("HannWindow")},
	{"HammingWindow", newWindow("HammingWindow")},
	{"BlackmanWindow", newWindow("BlackmanWindow")},
	{"MelWeightMatrix", newMelWeightMatrix},
	{"DFT", newDFT},
	{"STFT", newSTFT},
}

func newDet(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check(); err != nil {
		return nil, wrapAttr(err)
	}
	var lu []float64
	k := &simple{}
	k.inferF = func(in, out []*kernel.Tensor) error {
		x := in[0]
		if err := dtypeIn(x, "X", onnxFloats...); err != nil {
			return err
		}
		r := x.Shape.Rank()
		if r < 2 || x.Shape[r-1] != x.Shape[r-2] {
			return fmt.Errorf("input X %v: want [*, M, M]", x.Shape)
		}
		setShape(out[0], x.Shape[:r-2], x.DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x, o := a.In[0], a.Out[0]
		m := x.Shape[x.Shape.Rank()-1]
		xb, ob := x.Data(), o.Data()
		if int64(cap(lu)) < m*m {
			lu = make([]float64, m*m)
		}
		lu = lu[:m*m]
		for mat := range o.NumElements() {
			for i := range m * m {
				lu[i] = loadF(x.DType, xb, mat*m*m+i)
			}
			storeF(o.DType, ob, mat, det(lu, m))
		}
		return nil
	}
	k.flops = 1
	return newKernel(sig{op: "Det", minIn: 1, maxIn: 1, nOut: 1}, k), nil
}

// det returns the determinant of the m×m row-major matrix a, which it
// overwrites with its LU factors: the product of U's diagonal, the sign
// flipped at each row swap. The pivot is the first largest magnitude of
// its column (a NaN is never the largest). A zero pivot makes the matrix
// singular: det is then +0, as numpy.linalg.det (ONNX's reference) gives,
// when every element of a is finite. When one is NaN or infinite, every term of
// the determinant's expansion holding it is NaN (0·NaN, 0·Inf) and so is
// the determinant: the factorisation then goes on past the zero pivot as
// LAPACK's does, the column left unscaled, so that the NaN or infinity
// reaches the diagonal and the product.
func det(a []float64, m int64) float64 {
	d := 1.0
	finite, singular := allFinite(a), false
	for c := range m {
		p := c
		for r := c + 1; r < m; r++ {
			if math.Abs(a[r*m+c]) > math.Abs(a[p*m+c]) {
				p = r
			}
		}
		if a[p*m+c] == 0 {
			if finite {
				return 0
			}
			singular = true
		}
		if p != c {
			for j := range m {
				a[p*m+j], a[c*m+j] = a[c*m+j], a[p*m+j]
			}
			d = -d
		}
		piv := a[c*m+c]
		d *= piv
		for r := c + 1; r < m; r++ {
			f := a[r*m+c]
			if piv != 0 {
				f /= piv
			}
			for j := c + 1; j < m; j++ {
				a[r*m+j] -= mul64(f, a[c*m+j])
			}
		}
	}
	if singular && d == d {
		return 0
	}
	return d
}

// allFinite reports whether no element of v is NaN or infinite.
func allFinite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// outputDType reads attribute output_datatype (default float32): a pipert
// dtype, which the ONNX importer maps from the TensorProto enum.
func outputDType(attrs kernel.Attrs, op string) (kernel.DType, error) {
	dt, err := attrs.DType("output_datatype", kernel.Float32)
	if err != nil {
		return 0, wrapAttr(err)
	}
	if slices.Contains(onnxNumeric, dt) {
		return dt, nil
	}
	return 0, fmt.Errorf("ops: %s: output_datatype %v is not numeric", op, dt)
}

// valueInt reads the single value of integer input t.
func valueInt(t *kernel.Tensor, name string) (int64, error) {
	l, err := valueInts(t, name, 1)
	if err != nil {
		return 0, err
	}
	if l.n != 1 {
		return 0, fmt.Errorf("input %s has %d elements, want 1", name, l.n)
	}
	return l.at(0), nil
}

func newWindow(op string) kernel.Factory {
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		if err := attrs.Check("output_datatype", "periodic"); err != nil {
			return nil, wrapAttr(err)
		}
		dt, err := outputDType(attrs, op)
		if err != nil {
			return nil, err
		}
		periodic, err := flagAttr(attrs, "periodic", true)
		if err != nil {
			return nil, wrapAttr(err)
		}
		k := &simple{flops: 4}
		k.inferF = func(in, out []*kernel.Tensor) error {
			n, err := valueInt(in[0], "size")
			if err != nil {
				return err
			}
			if n < 0 {
				return fmt.Errorf("size %d is negative", n)
			}
			setShape(out[0], kernel.Shape{n}, dt)
			return nil
		}
		k.computeF = func(a *kernel.Args) error {
			o := a.Out[0]
			size := o.Shape[0]
			n := float64(size)
			if !periodic {
				n--
			}
			ob := o.Data()
			p := poller{a: a}
			for i := range size {
				if err := p.add(1); err != nil {
					return err
				}
				x := float64(i)
				var v float64
				switch op {
				case "HannWindow":
					s := math.Sin(math.Pi * x / n)
					v = s * s
				case "HammingWindow":
					const alpha = 25.0 / 46
					v = alpha - mul64(1-alpha, math.Cos(2*math.Pi*x/n))
				default:
					// 0.42 + 0.08 first: their sum rounds to 0.5, so the
					// window's peak is exactly 1 and its ends exactly 0
					// (an integer output_datatype then holds 1 at the
					// peak, as onnxruntime's does).
					v = (0.42 + mul64(0.08, math.Cos(4*math.Pi*x/n))) - mul64(0.5, math.Cos(2*math.Pi*x/n))
				}
				storeF(dt, ob, i, v)
			}
			return nil
		}
		return newKernel(sig{op: op, minIn: 1, maxIn: 1, nOut: 1, deps: kernel.Deps{Value: []int{0}}}, k), nil
	}
}

func newMelWeightMatrix(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("output_datatype"); err != nil {
		return nil, wrapAttr(err)
	}
	dt, err := outputDType(attrs, "MelWeightMatrix")
	if err != nil {
		return nil, err
	}
	k := &simple{flops: 1}
	k.inferF = func(in, out []*kernel.Tensor) error {
		bins, err := valueInt(in[0], "num_mel_bins")
		if err != nil {
			return err
		}
		dft, err := valueInt(in[1], "dft_length")
		if err != nil {
			return err
		}
		if err := dtypeIn(in[3], "lower_edge_hertz", onnxFloats...); err != nil {
			return err
		}
		if err := dtypeIn(in[4], "upper_edge_hertz", onnxFloats...); err != nil {
			return err
		}
		if !isIndex(in[2].DType) {
			return fmt.Errorf("input sample_rate has dtype %v, want int32 or int64", in[2].DType)
		}
		for j, name := range [...]string{"sample_rate", "lower_edge_hertz", "upper_edge_hertz"} {
			if t := in[2+j]; t.NumElements() != 1 {
				return fmt.Errorf("input %s has shape %v: want a scalar", name, t.Shape)
			}
		}
		if bins <= 0 || dft <= 0 {
			return fmt.Errorf("num_mel_bins %d and dft_length %d must be positive", bins, dft)
		}
		setShape(out[0], kernel.Shape{dft/2 + 1, bins}, dt)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		o := a.Out[0]
		spec, bins := o.Shape[0], o.Shape[1]
		dft := 2 * (spec - 1)
		if n, err := valueInt(a.In[1], "dft_length"); err == nil {
			dft = n
		}
		rate := float64(loadI(a.In[2].DType, a.In[2].Data(), 0))
		lo := loadF(a.In[3].DType, a.In[3].Data(), 0)
		hi := loadF(a.In[4].DType, a.In[4].Data(), 0)
		if rate <= 0 {
			return fmt.Errorf("sample_rate %g is not positive", rate)
		}
		mel := func(hz float64) float64 { return mul64(2595, math.Log10(1+hz/700)) }
		loMel, hiMel := mel(lo), mel(hi)
		step := (hiMel - loMel) / float64(bins+2)
		edge := make([]int64, bins+2)
		for i := range edge {
			hz := 700 * (math.Pow(10, (mul64(float64(i), step)+loMel)/2595) - 1)
			edge[i] = int64(math.Floor(float64(dft+1) * hz / rate))
		}
		ob := o.Data()
		clear(ob)
		at := func(j, i int64, v float64) error {
			if j < 0 || j >= spec {
				return fmt.Errorf("filter %d reaches bin %d of %d", i, j, spec)
			}
			storeF(dt, ob, j*bins+i, v)
			return nil
		}
		for i := range bins {
			l, c, h := edge[i], edge[i+1], edge[i+2]
			if c == l {
				if err := at(c, i, 1); err != nil {
					return err
				}
			} else {
				for j := l; j <= c; j++ {
					if err := at(j, i, float64(j-l)/float64(c-l)); err != nil {
						return err
					}
				}
			}
			if h > c {
				for j := c; j < h; j++ {
					if err := at(j, i, float64(h-j)/float64(h-c)); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	return newKernel(sig{op: "MelWeightMatrix", minIn: 5, maxIn: 5, nOut: 1, deps: kernel.Deps{Value: []int{0, 1}}}, k), nil
}

// dftInto writes the n-point DFT (or inverse DFT) of the complex sequence
// x (re, im pairs, len(x)/2 ≤ n points, zero beyond) into y, bins pairs.
// It checks that a's run goes on as it goes (poller), and returns its
// context's error when it ended. w keeps the factors between calls.
func dftInto(a *kernel.Args, w *twiddles, y, x []float64, n, bins int64, inverse bool) error {
	sign := -1.0
	if inverse {
		sign = 1
	}
	table := w.of(n, sign)
	m := int64(len(x) / 2)
	// The sums start from −0, the identity of IEEE addition: from +0, a
	// bin whose terms are all −0 (a signal of −0s) would come out +0.
	negZero := math.Copysign(0, -1)
	p := poller{a: a}
	for k := range bins {
		if err := p.add(min(m, n)); err != nil {
			return err
		}
		re, im := negZero, negZero
		j, step := int64(0), k%n // j = k·t mod n
		for t := range min(m, n) {
			var c, s float64
			if table {
				c, s = w.cos[j], w.sin[j]
			} else {
				c, s = twiddle(sign, j, n)
			}
			re += mul64(x[2*t], c) - mul64(x[2*t+1], s)
			im += mul64(x[2*t], s) + mul64(x[2*t+1], c)
			if j += step; j >= n {
				j -= n
			}
		}
		if inverse {
			re, im = re/float64(n), im/float64(n)
		}
		y[2*k], y[2*k+1] = re, im
	}
	return nil
}

// twiddle is the DFT factor of exponent j of n points: the cosine and
// sine of sign·2π·j/n. The angle reduced mod n first (j < n) keeps it
// exact for large k·t.
func twiddle(sign float64, j, n int64) (c, s float64) {
	ang := sign * 2 * math.Pi * float64(j) / float64(n)
	return math.Cos(ang), math.Sin(ang)
}

// twiddles caches the factors of one transform length and direction, the
// last one asked, computed by twiddle (the same bits).
type twiddles struct {
	n        int64
	sign     float64
	cos, sin []float64
}

// maxTwiddles is the longest transform whose factors are cached (16 MiB).
const maxTwiddles = 1 << 20

// of makes w hold the factors of n points in direction sign; it reports
// false, and holds none, when n is too long to cache.
func (w *twiddles) of(n int64, sign float64) bool {
	if n > maxTwiddles {
		return false
	}
	if w.n == n && w.sign == sign && w.cos != nil {
		return true
	}
	w.n, w.sign = n, sign
	w.cos, w.sin = grow(w.cos, n), grow(w.sin, n)
	for j := range n {
		w.cos[j], w.sin[j] = twiddle(sign, j, n)
	}
	return true
}

func newDFT(attrs kernel.Attrs) (kernel.Kernel, error) {
	opset, err := attrs.Opset(17)
	if err != nil {
		return nil, wrapAttr(err)
	}
	known := []string{"inverse", "onesided"}
	if opset < 20 {
		known = append(known, "axis")
	}
	if err := attrs.Check(known...); err != nil {
		return nil, wrapAttr(err)
	}
	axisAttr, err := attrs.Int("axis", 1)
	if err != nil {
		return nil, wrapAttr(err)
	}
	inverse, err := flagAttr(attrs, "inverse", false)
	if err != nil {
		return nil, wrapAttr(err)
	}
	onesided, err := flagAttr(attrs, "onesided", false)
	if err != nil {
		return nil, wrapAttr(err)
	}
	irfft := inverse && onesided
	// geometry returns the signal axis, its input length, the DFT length
	// and the output length along the axis.
	geometry := func(in []*kernel.Tensor) (axis int, m, n, bins int64, err error) {
		x := in[0]
		r := x.Shape.Rank()
		minRank, first := 3, int64(1)
		if opset >= 20 {
			minRank, first = 2, 0
		}
		if r < minRank || (x.Shape[r-1] != 1 && x.Shape[r-1] != 2) {
			if opset >= 20 {
				return 0, 0, 0, 0, fmt.Errorf("input %v: want [signal dimensions…, 1 or 2]", x.Shape)
			}
			return 0, 0, 0, 0, fmt.Errorf("input %v: want [batch, …, 1 or 2]", x.Shape)
		}
		a := axisAttr
		if opset >= 20 {
			a = -2
			if len(in) > 2 && in[2].NumElements() > 0 {
				t := in[2]
				if t.DType != kernel.Int64 || t.Shape.Rank() != 0 {
					return 0, 0, 0, 0, fmt.Errorf("input axis %v %v: want an int64 scalar", t.DType, t.Shape)
				}
				if a, err = valueInt(t, "axis"); err != nil {
					return 0, 0, 0, 0, err
				}
			}
		}
		given := a
		if a < 0 {
			a += int64(r)
		}
		if a < first || a > int64(r-2) {
			return 0, 0, 0, 0, fmt.Errorf("axis %d of input %v: want a signal axis", given, x.Shape)
		}
		axis, m = int(a), x.Shape[a]
		n = m
		if irfft {
			n = 2 * (m - 1)
		}
		if len(in) > 1 && in[1].NumElements() > 0 {
			if n, err = valueInt(in[1], "dft_length"); err != nil {
				return 0, 0, 0, 0, err
			}
		}
		if n <= 0 {
			return 0, 0, 0, 0, fmt.Errorf("dft_length %d is not positive", n)
		}
		bins = n
		switch {
		case irfft:
			if x.Shape[r-1] != 2 {
				return 0, 0, 0, 0, fmt.Errorf("inverse onesided DFT of input %v: want a complex input [… , 2]", x.Shape)
			}
		case onesided:
			if x.Shape[r-1] != 1 {
				return 0, 0, 0, 0, fmt.Errorf("onesided DFT of input %v: want a real input [… , 1] (a complex signal has no one-sided spectrum)", x.Shape)
			}
			bins = n/2 + 1
		}
		return axis, m, n, bins, nil
	}
	var xs, ys []float64
	var tw twiddles
	k := &simple{flops: 8}
	k.inferF = func(in, out []*kernel.Tensor) error {
		if err := dtypeIn(in[0], "input", onnxFloats...); err != nil {
			return err
		}
		axis, _, _, bins, err := geometry(in)
		if err != nil {
			return err
		}
		s := in[0].Shape.Clone()
		s[axis], s[len(s)-1] = bins, 2
		if irfft {
			s[len(s)-1] = 1
		}
		setShape(out[0], s, in[0].DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x, o := a.In[0], a.Out[0]
		axis, m, n, bins, err := geometry(a.In)
		if err != nil {
			return err
		}
		r := x.Shape.Rank()
		comp := x.Shape[r-1]
		outer := x.Shape[:axis].NumElements()
		inner := x.Shape[axis+1 : r-1].NumElements()
		// IRFFT reads the first n/2 + 1 of the m bins (zero beyond m)
		// and completes them to n points.
		pts, read := m, m
		if irfft {
			pts, read = n, min(m, n/2+1)
		}
		if int64(cap(xs)) < 2*pts {
			xs = make([]float64, 2*pts)
		}
		if int64(cap(ys)) < 2*bins {
			ys = make([]float64, 2*bins)
		}
		xs, ys = xs[:2*pts], ys[:2*bins]
		xb, ob := x.Data(), o.Data()
		for p := range outer {
			for q := range inner {
				for t := range read {
					i := ((p*m+t)*inner + q) * comp
					xs[2*t], xs[2*t+1] = loadF(x.DType, xb, i), 0
					if comp == 2 {
						xs[2*t+1] = loadF(x.DType, xb, i+1)
					}
				}
				if !irfft {
					if err := dftInto(a, &tw, ys, xs, n, bins, inverse); err != nil {
						return err
					}
					for f := range bins {
						j := ((p*bins+f)*inner + q) * 2
						storeF(o.DType, ob, j, ys[2*f])
						storeF(o.DType, ob, j+1, ys[2*f+1])
					}
					continue
				}
				// Bins read… n/2 are zero; points n/2 + 1… are the
				// conjugates of bins n − t; the real part of the inverse
				// ignores the imaginary parts of bin 0 and, n even, n/2.
				clear(xs[2*read : 2*(n/2+1)])
				for t := n/2 + 1; t < n; t++ {
					xs[2*t], xs[2*t+1] = xs[2*(n-t)], -xs[2*(n-t)+1]
				}
				if err := dftInto(a, &tw, ys, xs, n, n, true); err != nil {
					return err
				}
				for t := range n {
					storeF(o.DType, ob, (p*n+t)*inner+q, ys[2*t])
				}
			}
		}
		return nil
	}
	s := sig{op: "DFT", minIn: 1, maxIn: 2, nOut: 1, deps: kernel.Deps{Value: []int{1}}}
	if opset >= 20 {
		s.maxIn, s.deps.Value = 3, []int{1, 2}
	}
	return newKernel(s, k), nil
}

// stftComponents returns the components of each sample of STFT's signal
// x: [batch, length, 1] is real, [batch, length, 2] complex, and
// [batch, length], which PyTorch's exporter writes for torch.stft, real,
// as onnxruntime takes it.
func stftComponents(x *kernel.Tensor) (int64, error) {
	switch {
	case x.Shape.Rank() == 2:
		return 1, nil
	case x.Shape.Rank() == 3 && (x.Shape[2] == 1 || x.Shape[2] == 2):
		return x.Shape[2], nil
	}
	return 0, fmt.Errorf("signal %v: want [batch, length], or [batch, length, 1 or 2]", x.Shape)
}

func newSTFT(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("onesided"); err != nil {
		return nil, wrapAttr(err)
	}
	onesided, err := flagAttr(attrs, "onesided", true)
	if err != nil {
		return nil, wrapAttr(err)
	}
	// geometry returns the frame step and length, the frame count and the
	// output bins.
	geometry := func(in []*kernel.Tensor) (step, length, frames, bins int64, err error) {
		x := in[0]
		if _, err := stftComponents(x); err != nil {
			return 0, 0, 0, 0, err
		}
		if step, err = valueInt(in[1], "frame_step"); err != nil {
			return 0, 0, 0, 0, err
		}
		length = -1
		if len(in) > 2 && in[2].NumElements() > 0 {
			if in[2].Shape.Rank() != 1 {
				return 0, 0, 0, 0, fmt.Errorf("window %v: want rank 1", in[2].Shape)
			}
			length = in[2].Shape[0]
		}
		if len(in) > 3 && in[3].NumElements() > 0 {
			fl, err := valueInt(in[3], "frame_length")
			if err != nil {
				return 0, 0, 0, 0, err
			}
			if length >= 0 && fl != length {
				return 0, 0, 0, 0, fmt.Errorf("frame_length %d differs from the window's length %d", fl, length)
			}
			length = fl
		}
		switch {
		case length < 0:
			return 0, 0, 0, 0, fmt.Errorf("neither a window nor frame_length gives the frame length")
		case length == 0 || length > x.Shape[1]:
			return 0, 0, 0, 0, fmt.Errorf("frame length %d does not fit the signal's %d samples", length, x.Shape[1])
		case step <= 0:
			return 0, 0, 0, 0, fmt.Errorf("frame_step %d is not positive", step)
		}
		frames = (x.Shape[1]-length)/step + 1
		bins = length
		if onesided {
			bins = length/2 + 1
		}
		return step, length, frames, bins, nil
	}
	var xs, ys []float64
	var tw twiddles
	k := &simple{flops: 8}
	k.inferF = func(in, out []*kernel.Tensor) error {
		if err := dtypeIn(in[0], "signal", onnxFloats...); err != nil {
			return err
		}
		if len(in) > 2 && in[2].NumElements() > 0 {
			if err := dtypeIn(in[2], "window", onnxFloats...); err != nil {
				return err
			}
		}
		_, _, frames, bins, err := geometry(in)
		if err != nil {
			return err
		}
		setShape(out[0], kernel.Shape{in[0].Shape[0], frames, bins, 2}, in[0].DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x, o := a.In[0], a.Out[0]
		step, length, frames, bins, err := geometry(a.In)
		if err != nil {
			return err
		}
		var win *kernel.Tensor
		if len(a.In) > 2 && a.In[2].NumElements() > 0 {
			win = a.In[2]
		}
		comp, err := stftComponents(x)
		if err != nil {
			return err
		}
		l := x.Shape[1]
		if int64(cap(xs)) < 2*length {
			xs = make([]float64, 2*length)
		}
		if int64(cap(ys)) < 2*bins {
			ys = make([]float64, 2*bins)
		}
		xs, ys = xs[:2*length], ys[:2*bins]
		xb, ob := x.Data(), o.Data()
		for b := range x.Shape[0] {
			for f := range frames {
				for t := range length {
					w := 1.0
					if win != nil {
						w = loadF(win.DType, win.Data(), t)
					}
					i := (b*l + f*step + t) * comp
					xs[2*t], xs[2*t+1] = w*loadF(x.DType, xb, i), 0
					if comp == 2 {
						xs[2*t+1] = w * loadF(x.DType, xb, i+1)
					}
				}
				if err := dftInto(a, &tw, ys, xs, length, bins, false); err != nil {
					return err
				}
				for k := range bins {
					j := ((b*frames+f)*bins + k) * 2
					storeF(o.DType, ob, j, ys[2*k])
					storeF(o.DType, ob, j+1, ys[2*k+1])
				}
			}
		}
		return nil
	}
	return newKernel(sig{op: "STFT", minIn: 2, maxIn: 4, nOut: 1, deps: kernel.Deps{Value: []int{1, 3}}}, k), nil
}
