package plan

import (
	"fmt"

	"github.com/pipert/pipert/kernel"
)

// Mode is an execution mode: how the host stages of consecutive kernels are
// spread over goroutines. The zero Mode is invalid; Config's default is KBK.
type Mode uint8

// Execution modes.
const (
	// KBK runs every stage of every kernel on the goroutine calling Run:
	// the reference every other mode must match bit for bit.
	KBK Mode = iota + 1
	// Async runs prepare, InferShape and Resize on the calling goroutine
	// and hands allocation, launch and free to a Launch goroutine.
	Async
	// Pipeline runs prepare on the calling goroutine and InferShape,
	// Resize and Launch on a goroutine each.
	Pipeline
	// Replay captures a run of a static graph — its kernels, their
	// tilings, their planned addresses — and replays later runs whose
	// inputs have the same dtypes and shapes as one submission to the
	// device (device.Replayer), skipping every per-kernel host stage. A
	// run it cannot replay runs as Pipeline.
	Replay

	lastMode = Replay
)

var modeNames = [...]string{KBK: "kbk", Async: "async", Pipeline: "pipeline", Replay: "replay"}

func (m Mode) String() string {
	if m.Valid() {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// Valid reports whether m is one of the modes.
func (m Mode) Valid() bool { return m >= KBK && m <= lastMode }

// ParseMode returns the mode named s ("kbk", "async", "pipeline", "replay");
// another name is an error wrapping ErrConfig.
func ParseMode(s string) (Mode, error) {
	for m := KBK; m <= lastMode; m++ {
		if modeNames[m] == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("plan: %w: unknown mode %q (have kbk, async, pipeline, replay)", ErrConfig, s)
}

// Modes lists every mode, KBK first.
func Modes() []Mode { return []Mode{KBK, Async, Pipeline, Replay} }

// BarrierPolicy selects how a kernel waits for the values and shapes other
// kernels compute on the device (its value and compute dependencies). The
// zero value is invalid; Config's default is PerTensor.
type BarrierPolicy uint8

// Barrier policies.
const (
	// Drain is the faithful baseline. For a value read, the goroutine that
	// needs the value waits for every stage queue below it to drain and for
	// the stream to go idle, then copies the tensor to the host. After a
	// compute-dependent kernel, the calling goroutine drains every queue
	// and the stream before it issues the next kernel. Across the parts of
	// a heterogeneous run, a part starts when the parts it reads from have
	// finished.
	Drain BarrierPolicy = iota + 1
	// PerTensor waits only for the producing kernel: for its launch to
	// have happened and for its completion event, and copies only that
	// tensor. A compute-dependent kernel holds back only the consumers of
	// its outputs; independent kernels keep flowing. Across the parts of a
	// heterogeneous run, each tensor is handed over as soon as its producer
	// completed.
	PerTensor

	lastBarrier = PerTensor
)

var barrierNames = [...]string{Drain: "drain", PerTensor: "per-tensor"}

func (p BarrierPolicy) String() string {
	if p.Valid() {
		return barrierNames[p]
	}
	return fmt.Sprintf("BarrierPolicy(%d)", uint8(p))
}

// Valid reports whether p is one of the policies.
func (p BarrierPolicy) Valid() bool { return p >= Drain && p <= lastBarrier }

// ParseBarrierPolicy returns the policy named s ("drain", "per-tensor");
// another name is an error wrapping ErrConfig.
func ParseBarrierPolicy(s string) (BarrierPolicy, error) {
	for p := Drain; p <= lastBarrier; p++ {
		if barrierNames[p] == s {
			return p, nil
		}
	}
	return 0, fmt.Errorf("plan: %w: unknown barrier policy %q (have drain, per-tensor)", ErrConfig, s)
}

// Plan is a mode as data, what the runtime's one engine reads: which
// goroutine runs each host step of a kernel, and which barrier policy
// applies. Goroutine 0 is the one calling Run; goroutines 1, 2, … are
// stage workers fed by a queue each. A kernel's steps run in stage order
// on non-decreasing goroutines, so each goroutine runs a contiguous range of
// steps for every kernel, in execution order:
//
//	KBK       prepare infer resize launch → goroutines 0 0 0 0
//	Async     prepare infer resize launch → goroutines 0 0 0 1
//	Pipeline  prepare infer resize launch → goroutines 0 1 2 3
//	Replay    as Pipeline, when a run is not replayed
//
// Where the barriers apply follows: a value dependency is waited for by the
// goroutine running the kernel's InferShape, before it; a compute
// dependency by the first consumer's InferShape (PerTensor) or by
// goroutine 0 right after it issued the producer (Drain).
type Plan struct {
	Mode    Mode
	Barrier BarrierPolicy
	// Worker is the goroutine running each stage, indexed by kernel.Stage
	// (Worker[0] is unused).
	Worker [kernel.StageLaunch + 1]uint8
	// YieldAfterLaunch makes the goroutine running Launch yield its
	// processor after each kernel, outside the kernel's timed interval:
	// for actors whose launches are real computations on the host CPU, so
	// that Go's 10 ms preemption does not let a few long CPU actors hold
	// every processor.
	YieldAfterLaunch bool
	// Replay captures a run and replays later ones (mode Replay); the
	// stages run as Worker says when a run is not replayed.
	Replay bool
}

// PlanOf returns the stage plan of mode m under barrier policy b; an
// invalid m or b is an error wrapping ErrConfig.
func PlanOf(m Mode, b BarrierPolicy) (Plan, error) {
	p := Plan{Mode: m, Barrier: b}
	switch m {
	case KBK:
	case Async:
		p.Worker[kernel.StageLaunch] = 1
	case Pipeline, Replay:
		p.Worker[kernel.StageInfer], p.Worker[kernel.StageResize], p.Worker[kernel.StageLaunch] = 1, 2, 3
		p.Replay = m == Replay
	default:
		return Plan{}, fmt.Errorf("plan: %w: invalid mode %d", ErrConfig, uint8(m))
	}
	if !b.Valid() {
		return Plan{}, fmt.Errorf("plan: %w: invalid barrier policy %d", ErrConfig, uint8(b))
	}
	return p, nil
}

// Workers is the number of goroutines the plan runs kernels on, the
// calling one included.
func (p Plan) Workers() int { return int(p.Worker[kernel.StageLaunch]) + 1 }

// Validate reports a plan the engine cannot run: prepare not on the
// calling goroutine, a stage on an earlier goroutine than the one before
// it, a goroutine skipped, or an invalid barrier policy: an error
// wrapping ErrConfig.
func (p Plan) Validate() error {
	if p.Worker[kernel.StagePrepare] != 0 {
		return fmt.Errorf("plan: %w: prepare runs on goroutine %d, want 0 (the caller)", ErrConfig, p.Worker[kernel.StagePrepare])
	}
	for s := kernel.StageInfer; s <= kernel.StageLaunch; s++ {
		if d := int(p.Worker[s]) - int(p.Worker[s-1]); d < 0 || d > 1 {
			return fmt.Errorf("plan: %w: %v on goroutine %d after %v on goroutine %d", ErrConfig, s, p.Worker[s], s-1, p.Worker[s-1])
		}
	}
	if !p.Barrier.Valid() {
		return fmt.Errorf("plan: %w: invalid barrier policy %d", ErrConfig, uint8(p.Barrier))
	}
	return nil
}

// String describes the plan as its mode, policy and goroutine per stage:
// "pipeline/per-tensor 0123".
func (p Plan) String() string {
	b := []byte(p.Mode.String() + "/" + p.Barrier.String() + " ")
	for s := kernel.StagePrepare; s <= kernel.StageLaunch; s++ {
		b = append(b, '0'+p.Worker[s])
	}
	return string(b)
}
