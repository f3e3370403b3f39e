package control

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/internal/hostmem"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

// Attribute names of a Loop node: its body, a *subgraph.Graph, the
// number of loop-carried values, an int64, and (optional) the dtypes of
// the scan outputs as the body declares them, an []int64 of kernel.DType
// (0 where it declares none), which a loop of no iteration gives its
// empty stacks when the body's static inference cannot tell them; and
// (optional) the shape of one element of each scan output as a loop of no
// iteration gives its empty stack, an []int64 holding, scan output by scan
// output, a rank r followed by r dimensions, or -1 alone for none (the
// stack is then of shape [0]). Without it, a loop of no iteration gives
// each stack the element shape the body's static inference gives on the
// loop's inputs, when it gives one.
const (
	LoopBody       = "body"
	LoopCarried    = "carried"
	LoopScanTypes  = "scan_dtypes"
	LoopScanShapes = "scan_shapes"
)

// ErrLoop is the cause of a Loop's failure that comes from its body or its
// trip: the body fails, returns a condition that is not one boolean, or
// its scan outputs change shape between iterations.
var ErrLoop = errors.New("control: Loop")

// Loop is the kernel of an ONNX Loop node: inputs M (the trip count, int64,
// or a zero-element tensor: no limit), cond (bool, or zero elements: true),
// the N initial loop-carried values, then the outer tensors the body reads
// (its captures); outputs the N final loop-carried values, then the K scan
// outputs, each the per-iteration values stacked on a new first axis. The
// body declares as inputs the iteration number (int64 scalar), the
// condition (bool scalar), the N carried values and the captures; as
// outputs the next condition, the N carried values and the K scan values.
//
// Every input is a value dependency: the runtime stages them to the host,
// and InferShape runs the loop there, each iteration evaluating the body
// kernel by kernel (Eval); Compute hands the outputs over. The trip count
// is known only on real data: on virtual data a Loop fails. Its modeled
// device work is the sum of its iterations'. A Loop stops between
// iterations once the run's context ended (kernel.Interruptible): a loop
// with no trip limit may never end by itself. NewLoop makes one: the zero
// Loop has no body, and its InferShape fails with ErrLoop; a nil *Loop
// (NewLoop's on an error) answers as the zero Loop.
type Loop struct {
	body    *subgraph.Graph
	res     kernel.Resolver
	run     *body // the body validated, its kernels kept
	cur     runOf // the run's number and context (kernel.RunNumbered, Interruptible)
	carried int
	scanDT  []kernel.DType // declared scan output dtypes (LoopScanTypes; 0: none)
	// scanSh holds the scan outputs' element shapes of a loop of no
	// iteration (LoopScanShapes; nil: the attribute is absent, nil
	// element: none).
	scanSh []kernel.Shape
	nIn    int // captures
	nOut   int // carried + scan outputs
	outs   []*kernel.Tensor
	cost   device.Cost
}

// NewLoop makes a Loop kernel from its attributes; res resolves the body's
// ops.
func NewLoop(attrs kernel.Attrs, res kernel.Resolver) (*Loop, error) {
	if err := attrs.Check(LoopBody, LoopCarried, LoopScanTypes, LoopScanShapes); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrLoop, err)
	}
	g, ok := attrs[LoopBody].(*subgraph.Graph)
	if !ok || g == nil {
		return nil, graphAttrErr(ErrLoop, LoopBody, attrs[LoopBody])
	}
	if err := knownOps(g, res); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrLoop, LoopBody, err)
	}
	n, err := attrs.Int(LoopCarried, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrLoop, err)
	}
	k := &Loop{body: g, res: res, carried: int(n)}
	k.run = &body{g: g, res: res}
	if n < 0 || len(g.Inputs) < 2+k.carried || len(g.Outputs) < 1+k.carried {
		return nil, fmt.Errorf("%w: body %q with %d inputs and %d outputs cannot carry %d values", ErrLoop, g.Name, len(g.Inputs), len(g.Outputs), n)
	}
	k.nIn = len(g.Inputs) - 2 - k.carried
	k.nOut = len(g.Outputs) - 1
	ts, err := attrs.Ints(LoopScanTypes, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrLoop, err)
	}
	if ts != nil && len(ts) != k.nOut-k.carried {
		return nil, fmt.Errorf("%w: attribute %q has %d dtypes for %d scan outputs", ErrLoop, LoopScanTypes, len(ts), k.nOut-k.carried)
	}
	for j, t := range ts {
		if dt := kernel.DType(t); t != 0 && (t < 0 || t > 255 || !dt.Valid()) {
			return nil, fmt.Errorf("%w: attribute %q: scan output %d has dtype %d", ErrLoop, LoopScanTypes, j, t)
		}
		k.scanDT = append(k.scanDT, kernel.DType(t))
	}
	sh, err := attrs.Ints(LoopScanShapes, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrLoop, err)
	}
	if sh != nil {
		if k.scanSh, err = scanShapes(sh, k.nOut-k.carried); err != nil {
			return nil, fmt.Errorf("%w: attribute %q: %w", ErrLoop, LoopScanShapes, err)
		}
	}
	return k, nil
}

// scanShapes decodes the LoopScanShapes attribute enc of a loop of n scan
// outputs.
func scanShapes(enc []int64, n int) ([]kernel.Shape, error) {
	shapes := make([]kernel.Shape, 0, n)
	for len(enc) > 0 && len(shapes) < n {
		r := enc[0]
		enc = enc[1:]
		if r == -1 {
			shapes = append(shapes, nil)
			continue
		}
		if r < 0 || r > int64(len(enc)) {
			return nil, fmt.Errorf("scan output %d has rank %d with %d values left", len(shapes), r, len(enc))
		}
		s := kernel.Shape(slices.Clone(enc[:r]))
		if !s.Known() {
			return nil, fmt.Errorf("scan output %d has shape %v", len(shapes), s)
		}
		shapes = append(shapes, s)
		enc = enc[r:]
	}
	if len(shapes) != n || len(enc) != 0 {
		return nil, fmt.Errorf("%d shapes and %d values left for %d scan outputs", len(shapes), len(enc), n)
	}
	return shapes, nil
}

// Op implements kernel.Kernel.
func (k *Loop) Op() string { return "Loop" }

// Arity implements kernel.Kernel: M, cond, the carried values and the
// captures; the carried values and the scan outputs.
func (k *Loop) Arity() (minIn, maxIn, nOut int) {
	if k == nil {
		return 2, 2, 0
	}
	n := 2 + k.carried + k.nIn
	return n, n, k.nOut
}

// Deps implements kernel.Kernel: every input is read by InferShape, which
// computes the outputs (volatile).
func (k *Loop) Deps() kernel.Deps {
	n, _, _ := k.Arity()
	v := make([]int, n)
	for i := range v {
		v[i] = i
	}
	return kernel.Deps{Value: v, Volatile: true} // InferShape evaluates the body
}

// InferShape implements kernel.Kernel: it runs the loop.
func (k *Loop) InferShape(in, out []*kernel.Tensor) error {
	if k == nil || k.body == nil {
		return fmt.Errorf("%w: the zero Loop, not made by NewLoop, has no body", ErrLoop)
	}
	if err := checkArity("Loop", k, in, out); err != nil {
		return err
	}
	for i, t := range in {
		if t.Host == nil && t.NumElements() != 0 {
			return fmt.Errorf("Loop: input %d (%v) has no value (a Loop runs on real data)", i, t)
		}
	}
	trip := int64(math.MaxInt64)
	if m := in[0]; m.NumElements() > 0 {
		if m.DType != kernel.Int64 || m.NumElements() != 1 {
			return fmt.Errorf("%w: trip count M %v: want one int64", ErrLoop, m)
		}
		trip = kernel.Int64s(m.Host)[0]
	}
	cond := true
	if c := in[1]; c.NumElements() > 0 {
		if c.DType != kernel.Bool || c.NumElements() != 1 {
			return fmt.Errorf("%w: condition %v: want one bool", ErrLoop, c)
		}
		cond = c.Host[0] != 0
	}
	carried := in[2 : 2+k.carried]
	caps := in[2+k.carried:]
	scans := make([][]*kernel.Tensor, k.nOut-k.carried)
	k.cost = device.Cost{}
	bound := make([]*kernel.Tensor, len(k.body.Inputs))
	iter := 0
	// The scan outputs kept so far, and the size at which the host's
	// memory is next asked whether they and their stack still fit: a loop
	// whose trip count or condition comes from its inputs may ask for any
	// number of iterations.
	var scanBytes, nextCheck int64 = 0, scanCheckEvery
	for i := int64(0); i < trip && cond; i++ {
		if err := k.cur.stopped(); err != nil {
			return fmt.Errorf("%w: iteration %d of body %q: %w", ErrLoop, i, k.body.Name, err)
		}
		it := kernel.New(kernel.Int64)
		kernel.Int64s(it.Host)[0] = i
		c := kernel.New(kernel.Bool)
		c.Host[0] = 1
		bound[0], bound[1] = it, c
		copy(bound[2:], carried)
		copy(bound[2+k.carried:], caps)
		outs, cost, err := k.run.eval(bound, k.cur)
		if err != nil {
			return fmt.Errorf("%w: iteration %d of body %q: %w", ErrLoop, i, k.body.Name, err)
		}
		k.cost.FLOPs += cost.FLOPs
		k.cost.Bytes += cost.Bytes
		co := outs[0]
		if co.DType != kernel.Bool || co.NumElements() != 1 {
			return fmt.Errorf("%w: iteration %d: the body's condition %v is not one bool", ErrLoop, i, co)
		}
		cond = co.Host[0] != 0
		carried = outs[1 : 1+k.carried]
		for j, s := range outs[1+k.carried:] {
			if len(scans[j]) > 0 && (s.DType != scans[j][0].DType || !s.Shape.Equal(scans[j][0].Shape)) {
				return fmt.Errorf("%w: iteration %d: scan output %d is %v, earlier %v", ErrLoop, i, j, s, scans[j][0])
			}
			scans[j] = append(scans[j], s)
			scanBytes += s.Bytes()
		}
		if scanBytes >= nextCheck {
			// The stack at the end needs as much again.
			if err := hostCheck(2 * scanBytes); err != nil {
				return fmt.Errorf("%w: iteration %d of body %q: its scan outputs hold %d bytes: %w", ErrLoop, i, k.body.Name, scanBytes, err)
			}
			nextCheck = scanBytes + scanCheckEvery
		}
		iter++
	}
	k.outs = k.outs[:0]
	for _, t := range carried {
		k.outs = append(k.outs, &kernel.Tensor{DType: t.DType, Shape: t.Shape.Clone(), Host: t.Host})
	}
	for j, s := range scans {
		if len(s) == 0 {
			// No iteration: an empty stack of the dtype and element
			// shape the body's static inference gives (when it gives
			// none, a rank-1 [0] of the dtype the body declares, else
			// float32), the element shape LoopScanShapes gives if set.
			dt, elem := k.scanMeta(in, j)
			if k.scanSh != nil {
				elem = k.scanSh[j]
			}
			k.outs = append(k.outs, &kernel.Tensor{DType: dt, Shape: append(kernel.Shape{0}, elem...), Host: []byte{}})
			continue
		}
		sh := append(kernel.Shape{int64(len(s))}, s[0].Shape...)
		if err := hostmem.Check(int64(len(s)) * s[0].Bytes()); err != nil {
			return fmt.Errorf("scan output %d: %w", j, err)
		}
		st := &kernel.Tensor{DType: s[0].DType, Shape: sh, Host: make([]byte, 0, int64(len(s))*s[0].Bytes())}
		for _, t := range s {
			st.Host = append(st.Host, t.Host[:t.Bytes()]...)
		}
		k.outs = append(k.outs, st)
	}
	for i, o := range k.outs {
		out[i].DType, out[i].Shape = o.DType, append(out[i].Shape[:0], o.Shape...)
	}
	return nil
}

// scanMeta is scan output j's dtype and the shape of one of its elements
// from the body's static inference on the loop's inputs in: when it has
// none, the dtype the body declares (float32 if it declares none) and no
// shape; no shape either unless every dimension is known.
func (k *Loop) scanMeta(in []*kernel.Tensor, j int) (kernel.DType, kernel.Shape) {
	bound := append([]*kernel.Tensor{kernel.New(kernel.Int64), kernel.New(kernel.Bool)}, in[2:]...)
	outs, err := shapesOf(k.body, bound, k.res)
	if err != nil {
		if j < len(k.scanDT) && k.scanDT[j] != 0 {
			return k.scanDT[j], nil
		}
		return kernel.Float32, nil
	}
	o := outs[1+k.carried+j]
	if o.Shape == nil || !o.Shape.Known() {
		return o.DType, nil
	}
	return o.DType, o.Shape.Clone()
}

// Resize implements kernel.Kernel: a Loop has no tiling of its own.
func (k *Loop) Resize(in, out []*kernel.Tensor, t *kernel.Tiling) error {
	return noTiling(t)
}

// Cost implements kernel.Kernel: the iterations' work.
func (k *Loop) Cost(in, out []*kernel.Tensor) device.Cost {
	if k == nil {
		return device.Cost{}
	}
	return k.cost
}

// Compute implements kernel.Kernel: it hands over the outputs InferShape
// computed.
func (k *Loop) Compute(a *kernel.Args) error {
	if k == nil {
		return handOver("Loop", nil, a)
	}
	return handOver("Loop", k.outs, a)
}

// Trusted implements kernel.Trusted.
func (k *Loop) Trusted() {}

// SetRun implements kernel.RunNumbered: the body's kernels see run as
// their Args.Run.
func (k *Loop) SetRun(run uint64) {
	if k != nil {
		k.cur.no = run
	}
}

// SetContext implements kernel.Interruptible: the loop stops between
// iterations once ctx ended (an ONNX Loop may have no trip limit and run
// until its body's condition is false, which it may never be).
func (k *Loop) SetContext(ctx context.Context) {
	if k != nil {
		k.cur.ctx = ctx
	}
}

// scanCheckEvery is how many bytes of scan outputs a Loop keeps between
// two looks at the host's available memory, with hostCheck (variables for
// the package's tests).
var (
	scanCheckEvery int64 = 64 << 20
	hostCheck            = hostmem.Check
)
