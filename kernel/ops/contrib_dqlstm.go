package ops

import (
	"fmt"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// NoYAttr is the pipert attribute of DynamicQuantizeLSTM saying that the
// model omits its output Y: onnxruntime then quantizes, at each step, the
// hidden state a finished sequence kept rather than its zero output row.
// The ONNX importer sets it.
const NoYAttr = "pipert_no_y"

// dqLSTM is onnxruntime's DynamicQuantizeLSTM (domain com.microsoft), the
// LSTM its dynamic quantization writes: LSTM's attributes (no layout) and
// inputs, but W [dirs, input, 4h] and R [dirs, h, 4h] transposed and of
// int8 or uint8, with W_scale, W_zero_point, R_scale and R_zero_point
// (inputs 8 to 11, required) per direction ([dirs]) or per gate column
// ([dirs, 4h]). The products are onnxruntime's quantized GEMMs: per
// direction, X's rows of the steps up to the longest sequence quantized
// at once to uint8 as DynamicQuantizeMatMul quantizes A, and, at each
// step, the previous hidden state of the whole batch (initial_h at the
// first step, then each sequence's last output, or zeros for a finished
// one; its kept state with NoYAttr); int32 sums of (a − a_zp)·(w − w_zp),
// w_zp the direction's first zero point (onnxruntime requires a 2-D zero
// point to be constant, and zero for int8); each times the float32
// a_scale·w_scale, the recurrent term added to the input term. Then
// Wb + Rb, and the gates as LSTM computes them. onnxruntime's CPU kernel
// may split a batch of several sequences across its threads, each part
// quantizing its own hidden rows; pipert quantizes the batch whole, as
// onnxruntime does on one thread and always for one sequence.
type dqLSTM struct {
	*lstm
	noY bool
	// Scratch, grown to the largest run.
	xproj, hq, gates, bsum []float32
	hAll, cAll             []float32
	qx, qh                 []byte
	multW, multR           []float32
	wT, rT                 []int32 // a direction's weights, by widenT
}

func newDynamicQuantizeLSTM(attrs kernel.Attrs) (kernel.Kernel, error) {
	// LSTM's attributes before opset 14: no layout.
	a := kernel.Attrs{}
	for name, v := range attrs {
		a[name] = v
	}
	a[kernel.OpsetAttr] = int64(7)
	k, err := cellOf("DynamicQuantizeLSTM", "LSTM", a, NoYAttr)
	if err != nil {
		return nil, err
	}
	noY, err := attrs.Int(NoYAttr, 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	return newKernel(sig{op: "DynamicQuantizeLSTM", minIn: 12, maxIn: 12, nOut: 3}, &dqLSTM{lstm: k, noY: noY != 0}), nil
}

// check validates the operands beyond X and returns seq, batch, input.
func (k *dqLSTM) check(in []*kernel.Tensor) (seq, batch, inSize int64, err error) {
	x := in[0]
	if err := dtypeIn(x, "X", kernel.Float32); err != nil {
		return 0, 0, 0, err
	}
	if x.Shape.Rank() != 3 {
		return 0, 0, 0, fmt.Errorf("input X has shape %v, want rank 3", x.Shape)
	}
	seq, batch, inSize = x.Shape[0], x.Shape[1], x.Shape[2]
	h, dirs := k.hidden, int64(k.dirs)
	state := kernel.Shape{dirs, batch, h}
	for i, w := range []struct {
		name  string
		shape kernel.Shape
	}{{"W", kernel.Shape{dirs, inSize, 4 * h}}, {"R", kernel.Shape{dirs, h, 4 * h}}} {
		t := in[1+i]
		if err := dtypeIn(t, w.name, qTypes...); err != nil {
			return 0, 0, 0, err
		}
		if !t.Shape.Equal(w.shape) {
			return 0, 0, 0, fmt.Errorf("input %s has shape %v, want %v", w.name, t.Shape, w.shape)
		}
	}
	if in[2].DType != in[1].DType {
		return 0, 0, 0, fmt.Errorf("input R has dtype %v, want W's %v", in[2].DType, in[1].DType)
	}
	for i, o := range []struct {
		name  string
		shape kernel.Shape
	}{{"B", kernel.Shape{dirs, 8 * h}}, {"sequence_lens", kernel.Shape{batch}}, {"initial_h", state}, {"initial_c", state}, {"P", kernel.Shape{dirs, 3 * h}}} {
		t := optional(in, 3+i)
		if t == nil {
			continue
		}
		if !t.Shape.Equal(o.shape) {
			return 0, 0, 0, fmt.Errorf("input %s has shape %v, want %v", o.name, t.Shape, o.shape)
		}
		want := kernel.Float32
		if i == 1 {
			want = kernel.Int32
		}
		if err := dtypeIn(t, o.name, want); err != nil {
			return 0, 0, 0, err
		}
	}
	for i, name := range []string{"W_scale", "W_zero_point", "R_scale", "R_zero_point"} {
		t := in[8+i]
		want := kernel.Float32
		if i%2 == 1 {
			want = in[1].DType
		}
		if err := dtypeIn(t, name, want); err != nil {
			return 0, 0, 0, err
		}
		if !t.Shape.Equal(kernel.Shape{dirs}) && !t.Shape.Equal(kernel.Shape{dirs, 4 * h}) {
			return 0, 0, 0, fmt.Errorf("input %s has shape %v, want [%d] (per direction) or [%d %d] (per column)", name, t.Shape, dirs, dirs, 4*h)
		}
	}
	return seq, batch, inSize, nil
}

func (k *dqLSTM) infer(in, out []*kernel.Tensor) error {
	seq, batch, _, err := k.check(in)
	if err != nil {
		return err
	}
	dirs, h := int64(k.dirs), k.hidden
	state := kernel.Shape{dirs, batch, h}
	for i, s := range []kernel.Shape{{seq, dirs, batch, h}, state, state}[:len(out)] {
		setShape(out[i], s, kernel.Float32)
	}
	return nil
}

func (k *dqLSTM) cost(in, out []*kernel.Tensor) device.Cost {
	if in[0].Shape.Rank() != 3 {
		return device.Cost{}
	}
	seq, batch, inSize := in[0].Shape[0], in[0].Shape[1], in[0].Shape[2]
	f := float64(k.dirs) * float64(seq*batch) * (mul64(8*float64(k.hidden), float64(inSize+k.hidden)) + mul64(30, float64(k.hidden)))
	return device.Cost{FLOPs: f, Bytes: ioBytes(in, out)}
}

// dqZeroPoint returns direction dir's zero point of the weights of input
// i (W_zero_point or R_zero_point): its first value, after checking, as
// onnxruntime does, that a per-column one is constant, and zero for int8.
func dqZeroPoint(in []*kernel.Tensor, i int, dir int64) (int64, error) {
	t := in[i]
	n := t.NumElements() / t.Shape[0]
	zps := t.Data()
	z := loadI(t.DType, zps, dir*n)
	for j := range n {
		v := loadI(t.DType, zps, dir*n+j)
		if t.DType == kernel.Int8 && t.Shape.Rank() == 2 && v != 0 {
			return 0, fmt.Errorf("input %s: an int8 zero point per column must be 0, have %d", []string{"W_zero_point", "R_zero_point"}[(i-9)/2], v)
		}
		if v != z {
			return 0, fmt.Errorf("input %s: a zero point per column must be the same for every column, have %d and %d", []string{"W_zero_point", "R_zero_point"}[(i-9)/2], z, v)
		}
	}
	return z, nil
}

// multipliers sets m to a_scale·w_scale for each of the 4h columns of
// direction dir, w_scale input i (W_scale or R_scale).
func multipliers(m []float32, in []*kernel.Tensor, i int, dir int64, aScale float32) {
	t := in[i]
	sc := kernel.Float32s(t.Data())
	n := t.NumElements() / t.Shape[0]
	for j := range m {
		m[j] = float32(aScale * sc[dir*n+int64(j)%n])
	}
}

// widenT writes the weights w [K, N] (dtype dt) less their zero point zw
// into t transposed, [N, K], for qGemmRows.
func widenT(t []int32, w []byte, dt kernel.DType, zw, K, N int64) {
	for kk := range K {
		for n := range N {
			t[n*K+kk] = int32(loadI(dt, w, kk*N+n) - zw)
		}
	}
}

// qGemmRows adds, or with set writes, to dst [rows, N] the float32
// products of the quantized rows q [rows, K] (zero point za) and the
// weights wT [N, K] (widened, zero point taken off, by widenT):
// float32(Σ (a − za)·w) · mult[column], the sum in int32 as onnxruntime's.
func qGemmRows(dst []float32, q []byte, za int64, wT []int32, mult []float32, rows, K int64, set bool) {
	N := int64(len(mult))
	for r := range rows {
		qr := q[r*K : (r+1)*K]
		d := dst[r*N : (r+1)*N]
		for n := range N {
			wr := wT[n*K : (n+1)*K]
			var acc int32
			for kk, a := range qr {
				acc += (int32(a) - int32(za)) * wr[kk]
			}
			v := mul(float32(acc), mult[n])
			if set {
				d[n] = v
			} else {
				d[n] += v
			}
		}
	}
}

func (k *dqLSTM) compute(a *kernel.Args) error {
	d := decoder{b: a.Tiling.Data}
	w := d.words(5)
	if err := d.err(); err != nil {
		return err
	}
	seq, batch, inSize, err := k.check(a.In)
	if err != nil {
		return err
	}
	H, G := k.hidden, int64(4)
	if w.at(0) != seq || w.at(1) != batch || w.at(2) != inSize || w.at(3) != H || w.at(4) != int64(k.dirs) {
		return errTiling
	}
	in := a.In
	xs := kernel.Float32s(in[0].Data())[:seq*batch*inSize]
	W, R := in[1].Data(), in[2].Data()
	opt := func(i int) []float32 {
		if t := optional(in, i); t != nil {
			return kernel.Float32s(t.Data())[:t.NumElements()]
		}
		return nil
	}
	B, h0, c0, P := opt(3), opt(5), opt(6), opt(7)
	lens := make([]int64, batch)
	maxLen := int64(0)
	for b := range batch {
		lens[b] = seq
		if t := optional(in, 4); t != nil {
			lens[b] = loadI(t.DType, t.Data(), b)
			if lens[b] < 0 || lens[b] > seq {
				return fmt.Errorf("sequence_lens[%d] is %d, want 0 to %d", b, lens[b], seq)
			}
		}
		maxLen = max(maxLen, lens[b])
	}
	var Y, Yh, Yc []float32
	if len(a.Out) > 0 {
		Y = kernel.Float32s(a.Out[0].Data())[:a.Out[0].NumElements()]
		clear(Y)
	}
	if len(a.Out) > 1 {
		Yh = kernel.Float32s(a.Out[1].Data())[:a.Out[1].NumElements()]
	}
	if len(a.Out) > 2 {
		Yc = kernel.Float32s(a.Out[2].Data())[:a.Out[2].NumElements()]
	}
	GH := G * H
	rows := maxLen * batch
	k.xproj = grow(k.xproj, rows*GH)
	k.qx = grow(k.qx, rows*inSize)
	k.hq = grow(k.hq, batch*H)
	k.qh = grow(k.qh, batch*H)
	k.hAll, k.cAll = grow(k.hAll, batch*H), grow(k.cAll, batch*H)
	k.gates, k.bsum = grow(k.gates, GH), grow(k.bsum, GH)
	k.multW, k.multR = grow(k.multW, GH), grow(k.multR, GH)
	k.wT, k.rT = grow(k.wT, inSize*GH), grow(k.rT, H*GH)
	dirs := int64(k.dirs)
	// The input term of every step of the sequences, quantized once: the
	// same rows, in reverse order or not.
	xScale, xZero := dynQuantParams(xs[:rows*inSize])
	for i, v := range xs[:rows*inSize] {
		k.qx[i] = byte(mlasQuantize(kernel.Uint8, v, xScale, xZero))
	}
	wSize, rSize := inSize*GH*int64(in[1].DType.Size()), H*GH*int64(in[2].DType.Size())
	for dir := range dirs {
		reverse := k.reverse || dir == 1
		act := k.act[dir]
		wz, err := dqZeroPoint(in, 9, dir)
		if err != nil {
			return err
		}
		rz, err := dqZeroPoint(in, 11, dir)
		if err != nil {
			return err
		}
		multipliers(k.multW, in, 8, dir, xScale)
		widenT(k.wT, W[dir*wSize:(dir+1)*wSize], in[1].DType, wz, inSize, GH)
		widenT(k.rT, R[dir*rSize:(dir+1)*rSize], in[2].DType, rz, H, GH)
		qGemmRows(k.xproj, k.qx, xZero, k.wT, k.multW, rows, inSize, true)
		clear(k.bsum)
		if B != nil {
			Bd := B[dir*2*GH : (dir+1)*2*GH]
			for g := range GH {
				k.bsum[g] = Bd[g] + Bd[GH+g]
			}
		}
		var Pd []float32
		if P != nil {
			Pd = P[dir*3*H : (dir+1)*3*H]
		}
		if h0 != nil {
			copy(k.hAll, h0[dir*batch*H:(dir+1)*batch*H])
		} else {
			clear(k.hAll)
		}
		if c0 != nil {
			copy(k.cAll, c0[dir*batch*H:(dir+1)*batch*H])
		} else {
			clear(k.cAll)
		}
		// hq is the previous hidden state of the whole batch as
		// onnxruntime's recurrent product reads it.
		copy(k.hq, k.hAll)
		for s := range maxLen {
			if err := a.Err(); err != nil {
				return err // the run ended (kernel.Args.Ctx)
			}
			hScale, hZero := dynQuantParams(k.hq)
			for i, v := range k.hq {
				k.qh[i] = byte(mlasQuantize(kernel.Uint8, v, hScale, hZero))
			}
			multipliers(k.multR, in, 10, dir, hScale)
			for b := range batch {
				n := lens[b]
				if s >= n {
					continue
				}
				t := s
				if reverse {
					t = n - 1 - s
				}
				copy(k.gates, k.xproj[(t*batch+b)*GH:][:GH])
				qGemmRows(k.gates, k.qh[b*H:(b+1)*H], hZero, k.rT, k.multR, 1, H, false)
				for g := range k.gates {
					k.gates[g] += k.bsum[g]
				}
				hs, cs := k.hAll[b*H:(b+1)*H], k.cAll[b*H:(b+1)*H]
				lstmStep(k.lstm, act, k.gates, hs, cs, Pd)
				if Y != nil {
					copy(Y[((t*dirs+dir)*batch+b)*H:][:H], hs)
				}
			}
			for b := range batch {
				row := k.hq[b*H : (b+1)*H]
				switch {
				case s < lens[b]:
					copy(row, k.hAll[b*H:(b+1)*H])
				case !k.noY || lens[b] == 0:
					clear(row) // a finished sequence's output row
				}
			}
		}
		for b := range batch {
			st := (dir*batch + b) * H
			if lens[b] == 0 {
				// An empty sequence has zero final states, as
				// onnxruntime gives it.
				clear(k.hAll[b*H : (b+1)*H])
				clear(k.cAll[b*H : (b+1)*H])
			}
			if Yh != nil {
				copy(Yh[st:st+H], k.hAll[b*H:(b+1)*H])
			}
			if Yc != nil {
				copy(Yc[st:st+H], k.cAll[b*H:(b+1)*H])
			}
		}
	}
	return nil
}
