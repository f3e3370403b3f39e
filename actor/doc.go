// Package actor runs kernel graphs on one device stream.
//
// A KernelRunner is the per-kernel core, MindSpore's KernelRunner: for each
// kernel of a lowered graph, in execution order, it prepares the inputs,
// reports what InferShape must wait for (value and compute dependencies),
// stages values to the host, runs InferShape and Resize, and launches
// (allocation, the real computation, the modeled launch, the frees). It
// starts no goroutines and never waits: the engine, its goroutine shell,
// runs its steps on the goroutines a plan.Plan names and performs the
// waits. A SuperKernelActor owns one runner and its engine and serialises
// runs.
//
// # Modes
//
// The mode is data (plan.PlanOf): KBK runs every step on the calling
// goroutine, the reference every other mode must match bit for bit; Async
// hands Launch to a goroutine of its own; Pipeline gives InferShape, Resize
// and Launch a goroutine each, chained by queues.Pipeline.
//
// # Control flow
//
// A runtime If (a Brancher) is spliced into the execution order in every
// mode: its condition node, then both branches' nodes, then a merge of the
// taken branch's outputs. The condition's value barrier is an ordinary
// value dependency; the goroutine running InferShape then skips the nodes
// of the branch not taken, so the taken branch's kernels flow through the
// same stage queues as the rest of the graph (in KBK, one by one like the
// rest). Evaluating the graph on the host (control.Eval) is the reference
// the spliced runs are checked against.
//
// # Dependencies
//
// A value dependency (Reshape's shape input) makes InferShape wait for the
// producing kernel: under plan.PerTensor for its launch and completion
// event only, under plan.Drain for the queues after InferShape and the
// stream to drain; then the tensor is copied to the host. A compute
// dependency (Unique) is resolved by the first consumer under PerTensor,
// and right after the producer is issued, by draining everything, under
// Drain.
//
// # Failures
//
// Every call into a kernel runs under recover; a panic, an error, or an
// answer that cannot be right (a negative or overflowing shape, a replaced
// output) fails the run with a *kernel.Error naming node, op and stage.
// The first failure halts the run and cancels its waits; every buffer the
// run allocated is freed, and the next run starts clean.
//
// # Memory
//
// Output and workspace memory is allocated right before a kernel's launch and
// every tensor is freed right after the launch of its last user (stream
// ordered: later work on the same stream sees the reuse in order). Graph
// inputs are uploaded at the start of a run; constants once, when the actor
// is made.
//
// Dependency rule: actor imports plan, subgraph, kernel, device, cache,
// queues, sync/ready, trace and internal packages; it knows nothing of the facade,
// heterog or the scenarios.
package actor
