package control

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

// Attribute names of a Scan node beyond its body (LoopBody): the number of
// state values (LoopCarried) and of scan inputs, and ONNX's axes and
// directions ([]int64, one per scan input or output; default 0).
const (
	ScanInputs           = "num_scan_inputs"
	ScanInputAxes        = "scan_input_axes"
	ScanInputDirections  = "scan_input_directions"
	ScanOutputAxes       = "scan_output_axes"
	ScanOutputDirections = "scan_output_directions"
	// ScanBatched marks opset 8's Scan (int64 1): every state and scan
	// input has a leading batch axis, the scan runs along axis 1 of each
	// batch element; ScanSequenceLens (int64 1) says the node's first
	// input is its optional sequence_lens.
	ScanBatched      = "pipert_scan_batched"
	ScanSequenceLens = "pipert_scan_sequence_lens"
)

// ErrScan is the cause of a Scan's failure that comes from its body or its
// inputs: scan inputs of different lengths, a failing body, scan outputs
// that change shape between iterations.
var ErrScan = errors.New("control: Scan")

// Scan is the kernel of an ONNX Scan node: inputs the
// N initial state values, the M scan inputs, then the outer tensors the
// body reads (its captures); outputs the N final states and the K scan
// outputs. Iteration t hands the body the states, the t-th slice of each
// scan input along its axis (from the end with direction 1) and the
// captures; the body returns the next states and one slice per scan
// output, which are stacked along the output's axis (in reverse with
// direction 1). A sequence of no step returns the initial states and
// empty scan outputs, their element dtype and shape from the body's
// static inference (an error when it gives none).
//
// Opset 8's form (ScanBatched) puts a batch axis first on every state and
// scan input and scans along axis 1, each batch element on its own, after
// an optional sequence_lens input (ScanSequenceLens): a shorter sequence
// (of no step too) stops early and its scan outputs end in zeros.
//
// Like Loop, every input is a value dependency and InferShape runs the
// iterations on the host (Eval), on real data only. NewScan makes one:
// the zero Scan has no body, and its InferShape fails with ErrScan; a nil
// *Scan (NewScan's on an error) answers as the zero Scan.
type Scan struct {
	body             *subgraph.Graph
	res              kernel.Resolver
	run              *body // the body validated, its kernels kept
	cur              runOf // the run's number and context (kernel.RunNumbered, Interruptible)
	batched, lens    bool  // opset 8: a batch axis; a sequence_lens input
	states, scans    int
	nIn              int // captures
	inAxes, inDirs   []int64
	outAxes, outDirs []int64
	outs             []*kernel.Tensor
	cost             device.Cost
}

// NewScan makes a Scan kernel from its attributes; res resolves the body's
// ops.
func NewScan(attrs kernel.Attrs, res kernel.Resolver) (*Scan, error) {
	if err := attrs.Check(LoopBody, LoopCarried, ScanInputs, ScanInputAxes, ScanInputDirections, ScanOutputAxes, ScanOutputDirections, ScanBatched, ScanSequenceLens); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrScan, err)
	}
	g, ok := attrs[LoopBody].(*subgraph.Graph)
	if !ok || g == nil {
		return nil, graphAttrErr(ErrScan, LoopBody, attrs[LoopBody])
	}
	if err := knownOps(g, res); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrScan, LoopBody, err)
	}
	n, err := attrs.Int(LoopCarried, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrScan, err)
	}
	m, err := attrs.Int(ScanInputs, -1)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrScan, err)
	}
	k := &Scan{body: g, res: res, states: int(n), scans: int(m)}
	k.run = &body{g: g, res: res}
	for _, f := range []struct {
		name string
		dst  *bool
	}{{ScanBatched, &k.batched}, {ScanSequenceLens, &k.lens}} {
		v, err := attrs.Int(f.name, 0)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrScan, err)
		}
		*f.dst = v != 0
	}
	if k.lens && !k.batched {
		return nil, fmt.Errorf("%w: sequence_lens needs the batched form (opset 8)", ErrScan)
	}
	if n < 0 || m < 1 || len(g.Inputs) < k.states+k.scans || len(g.Outputs) < k.states {
		return nil, fmt.Errorf("%w: body %q with %d inputs and %d outputs cannot take %d states and %d scan inputs", ErrScan, g.Name, len(g.Inputs), len(g.Outputs), n, m)
	}
	k.nIn = len(g.Inputs) - k.states - k.scans
	nOut := len(g.Outputs) - k.states
	for _, a := range []struct {
		name string
		dst  *[]int64
		n    int
	}{{ScanInputAxes, &k.inAxes, k.scans}, {ScanInputDirections, &k.inDirs, k.scans}, {ScanOutputAxes, &k.outAxes, nOut}, {ScanOutputDirections, &k.outDirs, nOut}} {
		v, err := attrs.Ints(a.name, nil)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrScan, err)
		}
		if v == nil {
			v = make([]int64, a.n)
		}
		if len(v) != a.n {
			return nil, fmt.Errorf("%w: %s %v: want %d values", ErrScan, a.name, v, a.n)
		}
		if a.name == ScanInputDirections || a.name == ScanOutputDirections {
			for _, d := range v {
				if d != 0 && d != 1 {
					return nil, fmt.Errorf("%w: %s %v: want 0 (forward) or 1 (reverse) each", ErrScan, a.name, v)
				}
			}
		}
		*a.dst = v
	}
	return k, nil
}

// Op implements kernel.Kernel.
func (k *Scan) Op() string { return "Scan" }

// Arity implements kernel.Kernel.
func (k *Scan) Arity() (minIn, maxIn, nOut int) {
	if k == nil || k.body == nil {
		return 0, 0, 0 // the zero Scan: InferShape fails
	}
	n := k.states + k.scans + k.nIn
	if k.lens {
		n++
	}
	return n, n, len(k.body.Outputs)
}

// Deps implements kernel.Kernel: every input is read by InferShape, which
// computes the outputs (volatile).
func (k *Scan) Deps() kernel.Deps {
	n, _, _ := k.Arity()
	v := make([]int, n)
	for i := range v {
		v[i] = i
	}
	return kernel.Deps{Value: v, Volatile: true} // InferShape evaluates the body
}

// normAxis normalizes axis a of a rank-r tensor.
func normAxis(a int64, r int) (int, error) {
	if a < -int64(r) || a >= int64(r) {
		return 0, fmt.Errorf("axis %d of a rank-%d tensor", a, r)
	}
	if a < 0 {
		a += int64(r)
	}
	return int(a), nil
}

// sliceAt returns slice i of t along axis a, a new host tensor.
func sliceAt(t *kernel.Tensor, a int, i int64) *kernel.Tensor {
	outer, n, inner := t.Shape[:a].NumElements(), t.Shape[a], t.Shape[a+1:].NumElements()
	sh := append(t.Shape[:a:a].Clone(), t.Shape[a+1:]...)
	s := kernel.New(t.DType, sh...)
	es := int64(t.DType.Size())
	for o := range outer {
		copy(s.Host[o*inner*es:(o+1)*inner*es], t.Host[(o*n+i)*inner*es:(o*n+i+1)*inner*es])
	}
	return s
}

// InferShape implements kernel.Kernel: it runs the scan.
func (k *Scan) InferShape(in, out []*kernel.Tensor) error {
	if k == nil || k.body == nil {
		return fmt.Errorf("%w: the zero Scan, not made by NewScan, has no body", ErrScan)
	}
	if err := checkArity("Scan", k, in, out); err != nil {
		return err
	}
	for i, t := range in {
		if t.Host == nil && t.NumElements() != 0 {
			return fmt.Errorf("Scan: input %d (%v) has no value (a Scan runs on real data)", i, t)
		}
	}
	var lens *kernel.Tensor
	if k.lens {
		lens, in = in[0], in[1:]
	}
	states := in[:k.states]
	scanIn := in[k.states : k.states+k.scans]
	caps := in[k.states+k.scans:]
	k.cost = device.Cost{}
	var err error
	if k.batched {
		err = k.batch(lens, states, scanIn, caps)
	} else {
		k.outs, err = k.scan(states, scanIn, caps, k.inAxes, k.outAxes, k.outDirs, -1)
	}
	if err != nil {
		return err
	}
	for i, o := range k.outs {
		out[i].DType, out[i].Shape = o.DType, append(out[i].Shape[:0], o.Shape...)
	}
	return nil
}

// scan runs the iterations over scanIn (along inAxes, inDirs) from the
// states, and returns the final states and the scan outputs stacked
// (along outAxes, reversed by outDirs); with pad ≥ 0 the scan outputs are
// stacked along axis 0 and zero-padded to pad steps (a batch element of
// opset 8 shorter than the longest).
func (k *Scan) scan(states, scanIn, caps []*kernel.Tensor, inAxes, outAxes, outDirs []int64, pad int64) ([]*kernel.Tensor, error) {
	axes := make([]int, k.scans)
	steps := int64(-1)
	for j, t := range scanIn {
		a, err := normAxis(inAxes[j], t.Shape.Rank())
		if err != nil {
			return nil, fmt.Errorf("%w: scan input %d: %v", ErrScan, j, err)
		}
		axes[j] = a
		if steps >= 0 && t.Shape[a] != steps {
			return nil, fmt.Errorf("%w: scan input %d has %d steps along axis %d, an earlier one %d", ErrScan, j, t.Shape[a], a, steps)
		}
		steps = t.Shape[a]
	}
	nOut := len(k.body.Outputs) - k.states
	stacks := make([][]*kernel.Tensor, nOut)
	bound := make([]*kernel.Tensor, len(k.body.Inputs))
	for t := range steps {
		if err := k.cur.stopped(); err != nil {
			return nil, fmt.Errorf("%w: iteration %d of body %q: %w", ErrScan, t, k.body.Name, err)
		}
		copy(bound, states)
		for j, x := range scanIn {
			i := t
			if k.inDirs[j] != 0 {
				i = steps - 1 - t
			}
			bound[k.states+j] = sliceAt(x, axes[j], i)
		}
		copy(bound[k.states+k.scans:], caps)
		outs, cost, err := k.run.eval(bound, k.cur)
		if err != nil {
			return nil, fmt.Errorf("%w: iteration %d of body %q: %w", ErrScan, t, k.body.Name, err)
		}
		k.cost.FLOPs += cost.FLOPs
		k.cost.Bytes += cost.Bytes
		states = outs[:k.states]
		for j, s := range outs[k.states:] {
			if len(stacks[j]) > 0 && (s.DType != stacks[j][0].DType || !s.Shape.Equal(stacks[j][0].Shape)) {
				return nil, fmt.Errorf("%w: iteration %d: scan output %d is %v, earlier %v", ErrScan, t, j, s, stacks[j][0])
			}
			stacks[j] = append(stacks[j], s)
		}
	}
	var res []*kernel.Tensor
	for _, s := range states {
		res = append(res, &kernel.Tensor{DType: s.DType, Shape: s.Shape.Clone(), Host: s.Host})
	}
	for j, ss := range stacks {
		if len(ss) == 0 {
			// No iteration: the dtype and element shape of the body's
			// static inference.
			dt, elem, err := k.scanMeta(states, scanIn, caps, axes, j)
			if err != nil {
				return nil, fmt.Errorf("%w: no iteration, and scan output %d: %v", ErrScan, j, err)
			}
			if pad <= 0 {
				a := int64(0)
				if pad < 0 {
					na, err := normAxis(outAxes[j], elem.Rank()+1)
					if err != nil {
						return nil, fmt.Errorf("%w: scan output %d: %v", ErrScan, j, err)
					}
					a = int64(na)
				}
				sh := append(append(elem[:a:a], 0), elem[a:]...)
				res = append(res, &kernel.Tensor{DType: dt, Shape: sh, Host: []byte{}})
				continue
			}
			ss = append(ss, kernel.New(dt, elem...))
		}
		for pad > int64(len(ss)) { // zeros after a short sequence
			ss = append(ss, kernel.New(ss[0].DType, ss[0].Shape...))
		}
		st, err := stack(ss, outAxes[j], outDirs[j] != 0)
		if err != nil {
			return nil, fmt.Errorf("%w: scan output %d: %v", ErrScan, j, err)
		}
		res = append(res, st)
	}
	return res, nil
}

// scanMeta is the dtype and element shape of scan output j, from the
// body's static inference on the states, the scan inputs' elements (their
// scan axes, axes, taken out) and the captures; every dimension must be
// known.
func (k *Scan) scanMeta(states, scanIn, caps []*kernel.Tensor, axes []int, j int) (kernel.DType, kernel.Shape, error) {
	bound := make([]*kernel.Tensor, 0, len(k.body.Inputs))
	for _, s := range states {
		bound = append(bound, &kernel.Tensor{DType: s.DType, Shape: s.Shape.Clone()})
	}
	for i, x := range scanIn {
		sh := slices.Delete(x.Shape.Clone(), axes[i], axes[i]+1)
		bound = append(bound, &kernel.Tensor{DType: x.DType, Shape: sh})
	}
	for _, c := range caps {
		bound = append(bound, &kernel.Tensor{DType: c.DType, Shape: c.Shape.Clone()})
	}
	outs, err := shapesOf(k.body, bound, k.res)
	if err != nil {
		return 0, nil, err
	}
	o := outs[k.states+j]
	if o.Shape == nil || !o.Shape.Known() {
		return 0, nil, fmt.Errorf("the body's static inference gives no shape")
	}
	return o.DType, o.Shape.Clone(), nil
}

// batch is opset 8's Scan: each element of the leading batch axis scans
// its own states and inputs (along their axis 1), for sequence_lens[b]
// steps when given (a shorter sequence's scan outputs end in zeros), and
// the results are stacked back along the batch axis.
func (k *Scan) batch(lens *kernel.Tensor, states, scanIn, caps []*kernel.Tensor) error {
	var n int64 = -1
	for i, t := range append(slices.Clone(states), scanIn...) {
		if t.Shape.Rank() < 1 || i >= k.states && t.Shape.Rank() < 2 {
			return fmt.Errorf("%w: input %v has no batch (and sequence) axis", ErrScan, t.Shape)
		}
		if n >= 0 && t.Shape[0] != n {
			return fmt.Errorf("%w: batch sizes %d and %d differ", ErrScan, n, t.Shape[0])
		}
		n = t.Shape[0]
	}
	seq := scanIn[0].Shape[1]
	var lv []int64
	if lens != nil && lens.NumElements() > 0 {
		if lens.DType != kernel.Int32 && lens.DType != kernel.Int64 || lens.NumElements() != n {
			return fmt.Errorf("%w: sequence_lens %v for a batch of %d", ErrScan, lens, n)
		}
		for i := range n {
			v := int64(0)
			if lens.DType == kernel.Int32 {
				v = int64(kernel.Int32s(lens.Host)[i])
			} else {
				v = kernel.Int64s(lens.Host)[i]
			}
			if v < 0 || v > seq {
				return fmt.Errorf("%w: sequence_lens[%d] = %d outside [0, %d]", ErrScan, i, v, seq)
			}
			lv = append(lv, v)
		}
	}
	nOut := len(k.body.Outputs) - k.states
	zeros := make([]int64, max(k.scans, nOut))
	per := make([][]*kernel.Tensor, len(k.body.Outputs)) // by output, by batch element
	bs, bx := make([]*kernel.Tensor, k.states), make([]*kernel.Tensor, k.scans)
	for b := range n {
		for j, t := range states {
			bs[j] = sliceAt(t, 0, b)
		}
		steps := seq
		if lv != nil {
			steps = lv[b]
		}
		for j, t := range scanIn {
			bx[j] = sliceRange(sliceAt(t, 0, b), steps) // its sequence only
		}
		outs, err := k.scan(bs, bx, caps, zeros[:k.scans], zeros[:nOut], zeros[:nOut], seq)
		if err != nil {
			return fmt.Errorf("batch element %d: %w", b, err)
		}
		for i, o := range outs {
			per[i] = append(per[i], o)
		}
	}
	k.outs = k.outs[:0]
	for i, ps := range per {
		st, err := stack(ps, 0, false)
		if err != nil {
			return fmt.Errorf("%w: output %d: %v", ErrScan, i, err)
		}
		k.outs = append(k.outs, st)
	}
	return nil
}

// sliceRange returns the first n entries of t along axis 0 (t itself when
// that is all of them).
func sliceRange(t *kernel.Tensor, n int64) *kernel.Tensor {
	if n == t.Shape[0] {
		return t
	}
	sh := t.Shape.Clone()
	sh[0] = n
	s := kernel.New(t.DType, sh...)
	copy(s.Host, t.Host[:len(s.Host)])
	return s
}

// stack stacks the slices ss along a new axis (reversed when reverse).
func stack(ss []*kernel.Tensor, axis int64, reverse bool) (*kernel.Tensor, error) {
	s0 := ss[0]
	a, err := normAxis(axis, s0.Shape.Rank()+1)
	if err != nil {
		return nil, err
	}
	n := int64(len(ss))
	sh := append(append(s0.Shape[:a:a].Clone(), n), s0.Shape[a:]...)
	st := kernel.New(s0.DType, sh...)
	outer, inner := s0.Shape[:a].NumElements(), s0.Shape[a:].NumElements()
	es := int64(s0.DType.Size())
	for t, s := range ss {
		p := int64(t)
		if reverse {
			p = n - 1 - p
		}
		for o := range outer {
			copy(st.Host[(o*n+p)*inner*es:(o*n+p+1)*inner*es], s.Host[o*inner*es:(o+1)*inner*es])
		}
	}
	return st, nil
}

// Resize implements kernel.Kernel: a Scan has no tiling of its own.
func (k *Scan) Resize(in, out []*kernel.Tensor, t *kernel.Tiling) error {
	return noTiling(t)
}

// Cost implements kernel.Kernel: the iterations' work.
func (k *Scan) Cost(in, out []*kernel.Tensor) device.Cost {
	if k == nil {
		return device.Cost{}
	}
	return k.cost
}

// Compute implements kernel.Kernel: it hands over the outputs InferShape
// computed.
func (k *Scan) Compute(a *kernel.Args) error {
	if k == nil {
		return handOver("Scan", nil, a)
	}
	return handOver("Scan", k.outs, a)
}

// Trusted implements kernel.Trusted.
func (k *Scan) Trusted() {}

// SetRun implements kernel.RunNumbered: the body's kernels see run as
// their Args.Run.
func (k *Scan) SetRun(run uint64) {
	if k != nil {
		k.cur.no = run
	}
}

// SetContext implements kernel.Interruptible: the scan stops between
// iterations once ctx ended.
func (k *Scan) SetContext(ctx context.Context) {
	if k != nil {
		k.cur.ctx = ctx
	}
}
