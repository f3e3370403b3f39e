package kernel

import (
	"context"
	"errors"
	"fmt"

	"github.com/pipert/pipert/device"
)

// Deps declares where a kernel makes the pipeline wait.
type Deps struct {
	// Value lists the inputs whose values InferShape reads (Reshape's shape,
	// ReduceSum's axes). The runtime copies them to Tensor.Host after their
	// producer completed, and before InferShape runs.
	Value []int
	// Compute is set when output shapes are known only after the kernel ran
	// (Unique, NonZero). InferShape then reports an upper bound, the runtime
	// allocates for it, and after completion asks OutputShapes.
	Compute bool
	// ShapeOnly is set when the kernel reads only its inputs' shapes (Shape):
	// its outputs are real even when its inputs are virtual.
	ShapeOnly bool
	// Volatile is set when InferShape or Resize does more than compute the
	// outputs' dtypes and shapes and the tiling from the operands' dtypes
	// and shapes, the kernel's attributes and the values of the Value
	// inputs (control flow evaluating a branch on the host): the runtime's
	// host caches then never reuse the kernel's results, and call
	// InferShape and Resize on every run.
	Volatile bool
}

// OutputsReal reports whether a kernel's outputs will have real contents:
// when it reads only shapes, or when every input has contents. The runtime
// materializes output buffers exactly then. A nil k reads its inputs.
func OutputsReal(k Kernel, in []*Tensor) bool {
	if k != nil && k.Deps().ShapeOnly {
		return true
	}
	for _, t := range in {
		if t.Data() == nil && t.NumElements() != 0 {
			return false
		}
	}
	return true
}

// Tiling is what Resize computes: the tiling data handed to the device with
// the kernel, and the size of the scratch workspace it needs. The runtime
// keeps one Tiling per node and hands it back to Resize run after run, so
// that Resize can write Data[:0] without allocating.
type Tiling struct {
	Data      []byte
	Workspace int64
}

// Kernel is one node's kernel: an op bound to its attributes. The runtime
// calls InferShape, Resize and then Compute (when the data is real) for each
// run of the node, each from one goroutine at a time (possibly different
// ones), with happens-before edges between the calls; a Kernel needs no
// locking.
//
// The runtime's host caches (plan.Caches) may skip InferShape and Resize
// on a run whose operands have the dtypes, shapes and value-dependency
// values of an earlier one, and reuse their results, even results computed
// by another node of the same op, Go type and attributes: both must be
// functions of those alone. A kernel for which they are not sets
// Deps.Volatile.
//
// A Kernel never touches the device: the runtime allocates its outputs and
// workspace, launches the modeled work described by Cost on the device, and
// calls Compute for the real results. The device knows nothing of kernels.
type Kernel interface {
	// Op is the op type name ("Add", "MatMul", ...).
	Op() string
	// Arity is the accepted number of inputs, minIn to maxIn (maxIn -1: no
	// limit, as for Concat), and the number of outputs.
	Arity() (minIn, maxIn, out int)
	// Deps declares value and compute dependencies; constant per kernel.
	Deps() Deps
	// InferShape sets Shape and DType of every out[i] from the inputs. It must
	// not read input contents except Host of the inputs in Deps().Value,
	// and must not write any input's contents.
	InferShape(in, out []*Tensor) error
	// Resize computes tiling data and workspace size from the shapes into t.
	// t holds the node's tiling of its previous run: Resize overwrites it,
	// reusing t.Data's memory.
	Resize(in, out []*Tensor, t *Tiling) error
	// Cost is the device work of one run on these shapes: the roofline input
	// of the device model, and the hint schedulers place kernels by.
	Cost(in, out []*Tensor) device.Cost
	// Compute computes the outputs from the inputs' contents. The runtime
	// calls it only when the outputs are real (OutputsReal), after a.Out
	// and a.Workspace were allocated, in stream order. It must not write
	// its inputs' contents: an input may be a constant of the graph, kept
	// on the device from run to run, or read by other kernels; the
	// runtime does not check this.
	Compute(a *Args) error
}

// Trusted is implemented by kernels known to keep the contract of the
// Kernel methods: InferShape leaves its inputs' dtypes and shapes alone;
// Resize and Compute leave the output tensors, their dtypes, shapes and
// buffers as InferShape and the runtime made them. Every other kernel reads
// its inputs, and writes its outputs in Resize and Compute, through tensors
// of its own (views of the runtime's, with dims of their own, and in
// InferShape the values of its value-dependency inputs copied; at compile
// time, static shape inference and constant folding hand it copies too),
// so that a kernel that breaks the contract races with no other stage in
// any mode and writes no caller's tensor or constant through them;
// the runtime checks the contract around its stages, at a few tens of
// nanoseconds a kernel, and fails a run that breaks it. The built-in ops
// and control flow implement Trusted. A kernel of the caller's should implement it
// only once tested to keep the contract.
type Trusted interface {
	Kernel
	Trusted()
}

// Stateful is implemented by kernels that keep state from run to run (the
// random generators' streams). A kernel serves one executable at a time;
// the runtime calls Reset when it hands a kernel on to another (the runner
// pool), which then sees it as a new kernel.
type Stateful interface {
	Kernel
	Reset()
}

// ComputeDependent is implemented by kernels with Deps().Compute set.
type ComputeDependent interface {
	// OutputShapes returns the real output shapes after the kernel ran with
	// args a: of InferShape's ranks, each within the bytes of InferShape's
	// bound. It may read the outputs' device contents.
	OutputShapes(a *Args) ([]Shape, error)
}

// Args are the operands of one launch. The runtime fills an Args for each
// call it hands one to (Compute, OutputShapes) in memory of its own, reused
// call after call, so that a launch allocates nothing: a kernel does not
// keep the pointer past the call, and what it writes to the fields (other
// than through In and Out, whose tensors the runtime owns) is not seen by
// later calls.
type Args struct {
	In, Out   []*Tensor
	Workspace device.Buffer
	Tiling    Tiling
	// Node names the node in errors; Seed varies per run and per node, for
	// kernels that model data-dependent results on virtual data. Run is
	// the run's number in its executable, from 1 (0 outside a run): every
	// Run, RunInto and Submit step given valid inputs counts once it has
	// its turn, failed or not (its context already ended, its kernels
	// failing), in every mode, so that Seed and Run are the same for a
	// node of the n-th run however the executable runs it.
	Node string
	Seed uint64
	Run  uint64
	// Flow is the kernel's trace flow id in this run (0: not traced).
	Flow uint64
	// Ctx is the run's context while the runtime has the kernel compute
	// (nil outside a run, as when the partitioner folds constants). A
	// Compute that can run long on legal inputs (large matrix products
	// and convolutions) polls Err between blocks of its work and returns
	// its error once the run ended, so that a run's caller is not held
	// by one kernel; the runtime reports it naming the node, op and stage.
	Ctx context.Context
}

// Err returns the error of a's run's context once it ended (nil while the
// run goes on, and outside a run).
func (a *Args) Err() error {
	if a == nil || a.Ctx == nil {
		return nil
	}
	return a.Ctx.Err()
}

// Real reports whether every input has contents, so that the kernel computes
// real results. Outputs of a kernel with a virtual input are virtual. A
// nil Args has no inputs.
func (a *Args) Real() bool {
	if a == nil {
		return true
	}
	for _, t := range a.In {
		if t.Data() == nil && t.NumElements() != 0 {
			return false
		}
	}
	return true
}

// RunNumbered is implemented by kernels that run other kernels within
// their InferShape (a Loop's or Scan's body): the runtime gives them the
// run's number (Args.Run) before each InferShape, and the kernels they
// run see it as their Args.Run.
type RunNumbered interface {
	SetRun(run uint64)
}

// Interruptible is implemented by kernels whose InferShape can run long
// on legal inputs (a Loop's iterations, whose number the data decides):
// the runtime gives them the run's context before each InferShape, and
// they return an error wrapping its Err soon after it ends, so that a
// run's caller can stop such a run. The context is valid until that
// InferShape returns.
type Interruptible interface {
	SetContext(ctx context.Context)
}

// Stage names a host stage of the kernel life cycle, for errors and traces.
type Stage uint8

// The host stages, in the order the runtime runs them.
const (
	StagePrepare Stage = iota + 1
	StageInfer
	StageResize
	StageLaunch
)

var stageNames = [...]string{StagePrepare: "prepare", StageInfer: "infer", StageResize: "resize", StageLaunch: "launch"}

func (s Stage) String() string {
	if s < StagePrepare || s > StageLaunch {
		return fmt.Sprintf("Stage(%d)", uint8(s))
	}
	return stageNames[s]
}

// Error is a kernel failure in a run, naming the node, op and stage.
//
// A nil *Error is safe to use as an error (a kernel that returns one as
// a typed nil has still returned a non-nil error): it says so and wraps
// nothing.
type Error struct {
	Node  string
	Op    string
	Stage Stage
	Err   error
}

func (e *Error) Error() string {
	if e == nil {
		return "nil *kernel.Error"
	}
	return fmt.Sprintf("node %q (op %s) stage %s: %v", e.Node, e.Op, e.Stage, e.Err)
}

func (e *Error) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// Factory builds a kernel from a node's attributes, or reports invalid ones.
type Factory func(attrs Attrs) (Kernel, error)

// ErrUnknownOp is the cause of a Resolver's failure on an op it does not
// know.
var ErrUnknownOp = errors.New("unknown op")

// ErrNotImplemented is the cause of a kernel's refusal of valid operands
// or attributes it does not implement (a dtype the op takes in ONNX but
// the kernel does not compute, a mode it leaves out): unlike other errors
// of InferShape, the model is not at fault.
var ErrNotImplemented = errors.New("not implemented")

// ErrBadAnswer is the cause of a failure when a kernel's answer breaks
// the Kernel contract: InferShape replacing an output tensor, giving it
// an invalid dtype or a negative (or overflowing) shape, or changing an
// input's; a later stage changing the outputs InferShape made, or
// replacing an output's buffer; a negative workspace; OutputShapes
// giving another number of shapes than outputs, a negative one, one of
// another rank than InferShape's or of more bytes than its bound. The
// error names the node, op and stage (a *Error).
var ErrBadAnswer = errors.New("kernel broke its contract")

// ErrGoexit is the cause of a failure when user code called
// runtime.Goexit (as testing's FailNow and Fatal do): the goroutine it ran
// on ends, as Goexit asks, and the run fails with an error matching both
// ErrGoexit and ErrPanic. On a goroutine of pipert's, a new one takes its
// work over; on the caller's own goroutine (a KBK run, say), the call
// never returns, but the executable is left usable for other goroutines.
var ErrGoexit = errors.New("runtime.Goexit in user code")

// ErrPanic is the cause of a failure when user code panicked: a kernel's
// method, an op factory or resolver, a placement policy, a host-cost
// hook, a device's method. The error names where, and holds the panic
// value (and, where recovered on a stage goroutine, the stack).
var ErrPanic = errors.New("panic in user code")

// Resolver builds the kernels of a graph's nodes from their op names:
// what validation and compilation need of an op registry. Package
// kernel/ops holds pipert's registry and its built-in ops.
type Resolver interface {
	// New builds a kernel for op with attrs. An op it does not know is an
	// error wrapping ErrUnknownOp.
	New(op string, attrs Attrs) (Kernel, error)
	// Has reports whether op is known.
	Has(op string) bool
}
