package actor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/internal/spin"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
	"github.com/pipert/pipert/sync/ready"
)

// Stats describe one run.
type Stats struct {
	Mode     Mode
	Kernels  int
	Makespan time.Duration // from the start of Run to outputs on the host
	// Stage is the host busy time of each stage, summed over kernels,
	// indexed by kernel.Stage (Stage[0] is unused).
	Stage [kernel.StageLaunch + 1]time.Duration
	// Wait is the host time spent blocked on value and compute barriers.
	Wait time.Duration
	// DeviceBusy is the modeled time the device had work.
	DeviceBusy time.Duration
	// PeakDeviceBytes is the high-water mark of device memory during the run,
	// constants included.
	PeakDeviceBytes int64
}

// HostBusy is the host work of all stages.
func (s *Stats) HostBusy() time.Duration {
	var t time.Duration
	for _, d := range s.Stage {
		t += d
	}
	return t
}

// SuperKernelActor runs one validated graph on one device stream, in the
// graph's execution order. Runs are serialised: Run may be called from any
// goroutine, one run at a time; Close ends the actor.
type SuperKernelActor struct {
	p          *plan
	dev        device.Device
	opt        Options
	stream     device.Stream // kernels, in execution order
	copyStream device.Stream // value copies of the queued modes
	// launched counts launches over the actor's life; see queued.
	launched flag.Counter

	mu      sync.Mutex // serialises runs
	closed  bool
	tensors []kernel.Tensor // by slot
	args    []kernel.Args   // by node position
	fns     []computeFunc   // by node position: the device Func of its launch
	events  []device.Event  // by node position, for watched nodes
	live    []bool          // by slot: holds device memory
	staging [][]byte        // by slot: host copies of value-dependency inputs
	ws      []device.Buffer // by node position: workspace of the launch in flight
	tr      *tracer         // nil when not tracing
	q       *queued         // the queued modes' workers, kept across runs
	// resolved marks compute-dependent nodes whose real output shapes are
	// set in this run; written only by the goroutine that runs barriers.
	resolved []bool
	runSeed  uint64
}

// New lowers a validated graph for dev. Constants are uploaded now and stay
// resident until Close.
func New(c *subgraph.Checked, dev device.Device, opt Options) (*SuperKernelActor, error) {
	if err := opt.fill(); err != nil {
		return nil, err
	}
	p, err := newPlan(c)
	if err != nil {
		return nil, err
	}
	a := &SuperKernelActor{
		p: p, dev: dev, opt: opt, stream: dev.NewStream(), copyStream: dev.NewStream(),
		resolved: make([]bool, len(p.nodes)),
		tr:       newTracer(opt.Trace, opt.name(c.Graph.Name), opt.Mode, p),
		tensors:  make([]kernel.Tensor, len(p.slots)),
		args:     make([]kernel.Args, len(p.nodes)),
		fns:      make([]computeFunc, len(p.nodes)),
		events:   make([]device.Event, len(p.nodes)),
		live:     make([]bool, len(p.slots)),
		staging:  make([][]byte, len(p.slots)),
		ws:       make([]device.Buffer, len(p.nodes)),
	}
	for pos := range p.nodes {
		nd := &p.nodes[pos]
		ar := &a.args[pos]
		ar.Node = nd.name
		ar.In = make([]*kernel.Tensor, len(nd.in))
		for i, s := range nd.in {
			ar.In[i] = &a.tensors[s]
		}
		ar.Out = make([]*kernel.Tensor, len(nd.out))
		for i, s := range nd.out {
			ar.Out[i] = &a.tensors[s]
		}
		if nd.watched {
			a.events[pos] = dev.NewEvent()
		}
		a.fns[pos] = computeFunc{k: nd.k, a: ar}
	}
	for i, s := range p.consts {
		k := c.Graph.Consts[i].Tensor
		t := &a.tensors[s]
		t.Shape, t.DType, t.Host = k.Shape.Clone(), k.DType, k.Host
		buf, err := dev.Alloc(t.Bytes(), k.Host != nil)
		if err != nil {
			a.Close()
			return nil, fmt.Errorf("actor: upload constant %q: %w", p.slots[s].name, err)
		}
		t.Buf = buf
		a.live[s] = true
		if k.Host != nil {
			if err := a.stream.CopyH2D(buf, k.Host); err != nil {
				a.Close()
				return nil, fmt.Errorf("actor: upload constant %q: %w", p.slots[s].name, err)
			}
		}
	}
	if err := a.stream.Synchronize(context.Background()); err != nil {
		return nil, err
	}
	return a, nil
}

// Mode reports the actor's execution mode.
func (a *SuperKernelActor) Mode() Mode { return a.opt.Mode }

// Kernels is the number of kernels one run launches.
func (a *SuperKernelActor) Kernels() int { return len(a.p.nodes) }

// Close frees the constants. Closing twice is a no-op.
func (a *SuperKernelActor) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil
	}
	a.closed = true
	if a.q != nil {
		a.q.close()
		a.q = nil
	}
	var errs []error
	for _, s := range a.p.consts {
		if a.live[s] {
			errs = append(errs, a.dev.Free(a.tensors[s].Buf))
			a.live[s] = false
		}
	}
	return errors.Join(errs...)
}

// ErrClosed is returned by Run after Close.
var ErrClosed = errors.New("actor: closed")

// Run executes the graph once with inputs in the order of the graph's
// declared inputs. Inputs with Host data run on real data; virtual inputs
// run on shapes only. The returned outputs are new host tensors (virtual
// where the computation was).
func (a *SuperKernelActor) Run(ctx context.Context, inputs []*kernel.Tensor) ([]*kernel.Tensor, Stats, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, Stats{}, ErrClosed
	}
	if err := a.checkInputs(inputs); err != nil {
		return nil, Stats{}, err
	}
	a.runSeed++
	a.dev.ResetStats()
	st := Stats{Mode: a.opt.Mode, Kernels: len(a.p.nodes)}
	start := time.Now()
	a.runBegin()
	err := a.upload(inputs)
	if err == nil {
		if a.opt.Mode == KBK {
			err = a.runKBK(ctx, &st)
		} else {
			err = a.runQueued(ctx, &st)
		}
	}
	var outs []*kernel.Tensor
	if err == nil {
		outs, err = a.download(ctx)
	}
	if err == nil {
		err = a.stream.Synchronize(ctx)
	}
	st.Makespan = time.Since(start)
	a.runEnd()
	if ferr := a.release(); err == nil {
		err = ferr
	}
	ds := a.dev.Stats()
	st.DeviceBusy = time.Duration(ds.BusyNs)
	st.PeakDeviceBytes = ds.MemPeak
	if err != nil {
		return nil, st, err
	}
	return outs, st, nil
}

func (a *SuperKernelActor) checkInputs(inputs []*kernel.Tensor) error {
	decl := a.p.g.Inputs
	if len(inputs) != len(decl) {
		return fmt.Errorf("actor: graph %q takes %d inputs, got %d", a.p.g.Name, len(decl), len(inputs))
	}
	for i, t := range inputs {
		d := decl[i]
		switch {
		case t == nil:
			return fmt.Errorf("actor: input %q is nil", d.Name)
		case t.DType != d.DType:
			return fmt.Errorf("actor: input %q: dtype %v, declared %v", d.Name, t.DType, d.DType)
		case len(t.Shape) != len(d.Shape):
			return fmt.Errorf("actor: input %q: shape %v, declared %v", d.Name, t.Shape, d.Shape)
		case !t.Shape.Known():
			return fmt.Errorf("actor: input %q: shape %v has unknown dimensions", d.Name, t.Shape)
		case t.Host != nil && int64(len(t.Host)) != t.Bytes():
			return fmt.Errorf("actor: input %q: %d bytes of data for %v", d.Name, len(t.Host), t.Shape)
		}
		for j, dim := range d.Shape {
			if dim != kernel.Dynamic && dim != t.Shape[j] {
				return fmt.Errorf("actor: input %q: shape %v, declared %v", d.Name, t.Shape, d.Shape)
			}
		}
	}
	return nil
}

// upload resets the per-run state and copies the inputs to the device.
func (a *SuperKernelActor) upload(inputs []*kernel.Tensor) error {
	for s := range a.tensors {
		if a.p.slots[s].isConst {
			continue
		}
		t := &a.tensors[s]
		t.Host, t.Buf, t.DType = nil, device.Buffer{}, 0
		t.Shape = t.Shape[:0]
	}
	clear(a.resolved)
	var flow uint64
	if a.tr.on() {
		n := uint64(len(a.args))
		flow = flowSeq.Add(n) - n
	}
	for pos := range a.args {
		a.args[pos].Seed = a.opt.Seed ^ (a.runSeed * 0x9e3779b97f4a7c15) ^ uint64(pos)*0xbf58476d1ce4e5b9
		a.args[pos].Flow = 0
		if a.tr.on() {
			a.args[pos].Flow = flow + uint64(pos) + 1
		}
	}
	for i, s := range a.p.inputs {
		in := inputs[i]
		t := &a.tensors[s]
		t.Shape = append(t.Shape, in.Shape...)
		t.DType, t.Host = in.DType, in.Host
		buf, err := a.dev.Alloc(t.Bytes(), in.Host != nil)
		if err != nil {
			return fmt.Errorf("actor: upload input %q: %w", a.p.slots[s].name, err)
		}
		t.Buf = buf
		a.live[s] = true
		if in.Host != nil {
			if err := a.stream.CopyH2D(buf, in.Host); err != nil {
				return fmt.Errorf("actor: upload input %q: %w", a.p.slots[s].name, err)
			}
		}
	}
	return nil
}

// download copies the graph outputs to new host tensors.
func (a *SuperKernelActor) download(ctx context.Context) ([]*kernel.Tensor, error) {
	outs := make([]*kernel.Tensor, len(a.p.outputs))
	for i, s := range a.p.outputs {
		t := &a.tensors[s]
		o := &kernel.Tensor{Shape: t.Shape.Clone(), DType: t.DType}
		if t.Buf.Data != nil {
			o.Host = make([]byte, o.Bytes())
			if err := a.stream.CopyD2H(ctx, o.Host, t.Buf); err != nil {
				return nil, fmt.Errorf("actor: download output %q: %w", a.p.slots[s].name, err)
			}
		}
		outs[i] = o
	}
	return outs, nil
}

// release frees every non-constant buffer still held after a run (outputs,
// unused inputs, and everything when the run failed).
func (a *SuperKernelActor) release() error {
	var errs []error
	for s := range a.live {
		if a.live[s] && !a.p.slots[s].isConst {
			errs = append(errs, a.dev.Free(a.tensors[s].Buf))
			a.live[s] = false
		}
	}
	for pos, b := range a.ws {
		if !b.IsZero() {
			errs = append(errs, a.dev.Free(b))
			a.ws[pos] = device.Buffer{}
		}
	}
	return errors.Join(errs...)
}

// stageErr wraps a kernel failure with its node, op and stage.
func (a *SuperKernelActor) stageErr(pos int, st kernel.Stage, err error) error {
	nd := &a.p.nodes[pos]
	return fmt.Errorf("actor: %w", &kernel.Error{Node: nd.name, Op: nd.op, Stage: st, Err: err})
}

// prepare gathers a node's inputs. Inputs are bound at construction, so the
// stage is the synthetic framework cost only.
func (a *SuperKernelActor) prepare(pos int) {
	spin.For(a.opt.Costs.Prepare)
}

// infer runs InferShape; value-dependency inputs have been made available on
// the host by readValues.
func (a *SuperKernelActor) infer(pos int) error {
	nd := &a.p.nodes[pos]
	ar := &a.args[pos]
	if err := nd.k.InferShape(ar.In, ar.Out); err != nil {
		return a.stageErr(pos, kernel.StageInfer, err)
	}
	spin.For(a.opt.Costs.Infer)
	return nil
}

func (a *SuperKernelActor) resize(pos int) error {
	nd := &a.p.nodes[pos]
	ar := &a.args[pos]
	if err := nd.k.Resize(ar.In, ar.Out, &ar.Tiling); err != nil {
		return a.stageErr(pos, kernel.StageResize, err)
	}
	if ar.Tiling.Workspace < 0 {
		return a.stageErr(pos, kernel.StageResize, fmt.Errorf("negative workspace %d", ar.Tiling.Workspace))
	}
	spin.For(a.opt.Costs.Resize)
	return nil
}

// launch allocates outputs and workspace, launches, records the node's event
// if someone waits on it, and frees what dies here.
func (a *SuperKernelActor) launch(pos int) error {
	nd := &a.p.nodes[pos]
	ar := &a.args[pos]
	real := kernel.OutputsReal(nd.k, ar.In)
	for i, s := range nd.out {
		t := ar.Out[i]
		if !t.DType.Valid() || !t.Shape.Known() {
			return a.stageErr(pos, kernel.StageLaunch, fmt.Errorf("output %d has no valid dtype or shape after InferShape (%v)", i, t))
		}
		buf, err := a.dev.Alloc(t.Bytes(), real)
		if err != nil {
			return a.stageErr(pos, kernel.StageLaunch, err)
		}
		t.Buf = buf
		a.live[s] = true
	}
	ar.Workspace = device.Buffer{}
	if n := ar.Tiling.Workspace; n > 0 {
		buf, err := a.dev.Alloc(n, real)
		if err != nil {
			return a.stageErr(pos, kernel.StageLaunch, err)
		}
		ar.Workspace = buf
		a.ws[pos] = buf
	}
	fn := &a.fns[pos]
	fn.real = real
	var err error
	if l, ok := nd.k.(Launcher); ok {
		err = l.LaunchOn(a.stream, ar, fn)
	} else {
		err = a.stream.Launch(nd.op, nd.k.Cost(ar.In, ar.Out), fn)
	}
	if err != nil {
		return a.stageErr(pos, kernel.StageLaunch, err)
	}
	if nd.watched {
		a.stream.Record(a.events[pos])
	}
	if b := a.ws[pos]; !b.IsZero() {
		a.ws[pos] = device.Buffer{}
		if err := a.dev.Free(b); err != nil {
			return a.stageErr(pos, kernel.StageLaunch, err)
		}
	}
	for _, s := range nd.free {
		if a.live[s] {
			a.live[s] = false
			if err := a.dev.Free(a.tensors[s].Buf); err != nil {
				return a.stageErr(pos, kernel.StageLaunch, err)
			}
		}
	}
	spin.For(a.opt.Costs.Launch)
	return nil
}

// stageValue copies value-dependency input j of node pos to the host, after
// its producer completed (the caller has waited for that).
func (a *SuperKernelActor) stageValue(ctx context.Context, s device.Stream, pos, j int) error {
	ar := &a.args[pos]
	t := ar.In[j]
	if t.Host != nil {
		return nil // a constant, a host input, or staged by an earlier reader
	}
	if t.Buf.Data == nil {
		return a.stageErr(pos, kernel.StageInfer, fmt.Errorf("value dependency input %d (%v) has no real contents", j, t))
	}
	slot := a.p.nodes[pos].in[j]
	n := t.Bytes()
	if int64(cap(a.staging[slot])) < n {
		a.staging[slot] = make([]byte, n)
	}
	h := a.staging[slot][:n]
	if err := s.CopyD2H(ctx, h, t.Buf); err != nil {
		return a.stageErr(pos, kernel.StageInfer, err)
	}
	t.Host = h
	return nil
}

// resolve sets the real output shapes of compute-dependent node pos, after
// it completed (the caller has waited for that).
func (a *SuperKernelActor) resolve(pos int) error {
	nd := &a.p.nodes[pos]
	ar := &a.args[pos]
	shapes, err := nd.cd.OutputShapes(ar)
	if err != nil {
		return a.stageErr(pos, kernel.StageLaunch, err)
	}
	if len(shapes) != len(ar.Out) {
		return a.stageErr(pos, kernel.StageLaunch, fmt.Errorf("OutputShapes returned %d shapes for %d outputs", len(shapes), len(ar.Out)))
	}
	for i, sh := range shapes {
		t := ar.Out[i]
		if sh.NumElements()*int64(t.DType.Size()) > t.Buf.Size && sh.NumElements() > 0 {
			return a.stageErr(pos, kernel.StageLaunch, fmt.Errorf("real output shape %v exceeds the %d bytes allocated", sh, t.Buf.Size))
		}
		t.Shape = append(t.Shape[:0], sh...)
	}
	a.resolved[pos] = true
	return nil
}

// runKBK runs every stage of every node on the calling goroutine.
func (a *SuperKernelActor) runKBK(ctx context.Context, st *Stats) error {
	for pos := range a.p.nodes {
		if err := ctx.Err(); err != nil {
			return err
		}
		nd := &a.p.nodes[pos]
		t := device.Now()
		a.prepare(pos)
		t = a.account(&st.Stage[kernel.StagePrepare], kernel.StagePrepare, pos, t)
		if len(nd.valueDeps) > 0 {
			for _, j := range nd.valueDeps {
				if j < len(nd.in) {
					// A synchronous copy on the stream waits for the producer.
					if err := a.stageValue(ctx, a.stream, pos, j); err != nil {
						return err
					}
				}
			}
			t = a.waited(&st.Wait, kernel.StageInfer, t)
		}
		if err := a.infer(pos); err != nil {
			return err
		}
		t = a.account(&st.Stage[kernel.StageInfer], kernel.StageInfer, pos, t)
		if err := a.resize(pos); err != nil {
			return err
		}
		t = a.account(&st.Stage[kernel.StageResize], kernel.StageResize, pos, t)
		if err := a.launch(pos); err != nil {
			return err
		}
		t = a.account(&st.Stage[kernel.StageLaunch], kernel.StageLaunch, pos, t)
		if nd.compute {
			if err := a.stream.Synchronize(ctx); err != nil {
				return err
			}
			if err := a.resolve(pos); err != nil {
				return err
			}
			a.waited(&st.Wait, kernel.StageLaunch, t)
		}
	}
	return nil
}

// computeFunc is the device Func of a node's launch: the kernel's real
// computation, when its outputs are real.
type computeFunc struct {
	k    kernel.Kernel
	a    *kernel.Args
	real bool
}

// Run implements device.Func.
func (f *computeFunc) Run() error {
	if !f.real {
		return nil
	}
	return f.k.Compute(f.a)
}

// FlowID returns the kernel's trace flow id, for device tracers.
func (f *computeFunc) FlowID() uint64 { return f.a.Flow }

// Launcher is implemented by kernels that launch themselves somewhere other
// than on the actor's stream (heterog's nodes computed on the host): LaunchOn
// gets the actor's stream and the Func computing the node.
type Launcher interface {
	LaunchOn(s device.Stream, a *kernel.Args, fn device.Func) error
}
