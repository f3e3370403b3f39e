package actor

import (
	"fmt"
	"time"

	"github.com/pipert/pipert/trace"
)

func (o *Options) name(graph string) string {
	if o.Name != "" {
		return o.Name
	}
	return graph
}

// Mode selects how the host stages of consecutive kernels are scheduled.
type Mode uint8

// Execution modes.
const (
	// KBK runs every stage of every kernel on the calling goroutine.
	KBK Mode = iota + 1
	// Async runs prepare, InferShape and Resize on the calling goroutine and
	// hands allocation, launch and free to a Launch queue with its own
	// goroutine.
	Async
	// Pipeline runs prepare on the calling goroutine and InferShape, Resize
	// and Launch on three queues with a goroutine each.
	Pipeline
)

var modeNames = map[Mode]string{KBK: "kbk", Async: "async", Pipeline: "pipeline"}

func (m Mode) String() string {
	if s, ok := modeNames[m]; ok {
		return s
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// ParseMode returns the mode named s.
func ParseMode(s string) (Mode, error) {
	for m, n := range modeNames {
		if n == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("actor: unknown mode %q", s)
}

// Modes lists every mode in order.
func Modes() []Mode { return []Mode{KBK, Async, Pipeline} }

// Policy selects how the queued modes wait at value and compute dependencies.
type Policy uint8

// Barrier policies.
const (
	// Drain is the faithful baseline. For a value read the stage that needs
	// the value waits for every queue below it to drain and for the stream
	// to go idle, then copies the tensor to the host. After a
	// compute-dependent kernel the runner drains all queues and the stream
	// before it issues the next kernel.
	Drain Policy = iota + 1
	// PerTensor waits only for the producing kernel: for its launch task to
	// have run and for its completion event, and copies only that tensor. A
	// compute-dependent kernel holds back only the consumers of its outputs;
	// independent kernels keep flowing.
	PerTensor
)

func (p Policy) String() string {
	switch p {
	case Drain:
		return "drain"
	case PerTensor:
		return "per-tensor"
	}
	return fmt.Sprintf("Policy(%d)", uint8(p))
}

// ParsePolicy returns the policy named s ("drain", "per-tensor").
func ParsePolicy(s string) (Policy, error) {
	for _, p := range []Policy{Drain, PerTensor} {
		if p.String() == s {
			return p, nil
		}
	}
	return 0, fmt.Errorf("actor: unknown barrier policy %q", s)
}

// Costs are synthetic host costs added to each stage of every kernel: a busy
// spin standing in for a framework's own per-kernel work.
type Costs struct {
	Prepare, Infer, Resize, Launch time.Duration
}

// Total is the host work per kernel.
func (c Costs) Total() time.Duration { return c.Prepare + c.Infer + c.Resize + c.Launch }

// DefaultQueueCapacity is the stage queues' default capacity. It is small on
// purpose. The stage goroutines outnumber the cores (four on two), and every
// stage's work is CPU work: a deep queue lets the upstream stages run far
// ahead of the slowest one and take CPU from it, so the slowest stage, which
// sets the pace, loses its core a third of the time and finishes alone. A
// queue of 8 makes a stage that runs ahead park on the full queue, and the
// bottleneck keeps a core (pipebench -queue-capacity measures the effect:
// on smallops with 2 cores, efficiency rose from about 0.82 at 1024 to about
// 0.92 at 8). The queues hold task indices, so depth costs no memory to
// speak of either way.
const DefaultQueueCapacity = 8

// Options configure an Actor. The zero value is valid: KBK, per-tensor
// barriers, no synthetic cost, queues of DefaultQueueCapacity.
type Options struct {
	Mode   Mode   // zero means KBK
	Policy Policy // zero means PerTensor; KBK has no queues to drain
	Costs  Costs  // synthetic host cost per stage
	// QueueCapacity is the capacity of each stage queue (0:
	// DefaultQueueCapacity).
	QueueCapacity int
	// Trace, when not nil, records every stage of every kernel on host
	// tracks named after Name (default: the graph's name), with one flow per
	// kernel. Give the device a devtrace observer on the same recorder so the
	// flows end on the device slices.
	Trace *trace.Recorder
	Name  string
	// Seed varies the data-dependent results kernels model on virtual data
	// (the output size of Unique); runs with equal seeds are identical.
	Seed uint64
}

func (o *Options) fill() error {
	if o.Mode == 0 {
		o.Mode = KBK
	}
	if _, ok := modeNames[o.Mode]; !ok {
		return fmt.Errorf("actor: invalid mode %d", o.Mode)
	}
	if o.Policy == 0 {
		o.Policy = PerTensor
	}
	if o.Policy != Drain && o.Policy != PerTensor {
		return fmt.Errorf("actor: invalid barrier policy %d", o.Policy)
	}
	if o.QueueCapacity == 0 {
		o.QueueCapacity = DefaultQueueCapacity
	}
	if o.QueueCapacity < 0 || o.QueueCapacity > 1<<20 {
		return fmt.Errorf("actor: queue capacity %d outside [0, 1<<20]", o.QueueCapacity)
	}
	if o.Costs.Prepare < 0 || o.Costs.Infer < 0 || o.Costs.Resize < 0 || o.Costs.Launch < 0 {
		return fmt.Errorf("actor: negative synthetic host cost %+v", o.Costs)
	}
	return nil
}
