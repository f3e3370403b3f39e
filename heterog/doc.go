// Package heterog runs a kernel graph on the host CPU and an accelerator at
// once: a policy places every node, subgraph.Partition cuts the graph into
// single-placement parts, each part becomes a SuperKernelActor (CPU parts on
// the host device, kernel by kernel; device parts on the accelerator, in
// the configured mode), and each actor runs on its device's worker group as
// soon as the parts it reads from are done (drain) or have started
// (per-tensor: tensors are handed over one by one, and the accelerator's
// parts are merged into as few as stay acyclic, subgraph's
// Partitioning.Merged).
//
// # Placement policies
//
//   - Labels: the node's label; Unplaced goes to the accelerator.
//   - Capability: ops the accelerator lacks go to the CPU.
//   - Size: MTTorch's rule, nodes on tensors below a threshold of elements
//     run on the CPU; the threshold is configured or measured at start-up
//     (MeasureThreshold) by timing a CPU kernel against the device model.
//   - Cost: per node with static shapes, the device profile's modeled
//     kernel time and launch overhead against the kernel's measured CPU time.
//   - Fixed: everything on one side.
//
// The automatic policies decide where they can and defer to a fallback
// (Labels unless set) elsewhere.
//
// # Virtual operators
//
// An op named in plan.Config.Virtual is registered for the accelerator but
// computed by the CPU: placed on the device, it stays in its device part
// (no cut, no actor hand-off) and its launch computes on the host, in place,
// over host-mapped device memory (host.Map) with no copy — MTTorch's
// virtual operators on the MT-3000, whose CPU addresses the DSPs' DDR.
//
// # Devices and worker groups
//
// Devices returns the process-wide Manager: the host CPU and the default
// accelerator, opened once. A Manager caches worker groups (ants pools) by
// device and size; an executable takes its groups at compile time and every
// run reuses them, so no group is ever created per run or per kernel.
//
// # Running
//
// Cross-part edges synchronise per tensor under the per-tensor barrier
// policy: a part starts when the parts it reads from have started, awaits
// each tensor it reads when its first reader is prepared
// (actor.Feed.Await), and hands each tensor other parts read over as soon
// as its producing kernel completed (actor.Feed.Publish), not when the
// whole part finished. Under the drain policy a part starts when the last
// part it reads from finished, and gets its outputs then: the baseline.
// CPU parts compute on the host's processors, at most two per processor at
// once (a running part also waits for inputs and transfers); when more are
// ready, the earliest in the graph's order goes first (the order the joins
// into device parts need), and CPU actors yield the processor after every
// kernel so that device actors' stages keep running beside them. Tensors
// cross as host tensors; real tensors are copied by the actors
// (device-to-host and host-to-device, with the accelerator's modeled
// costs), and for virtual tensors the same modeled transfer time is waited
// for. Every part runs under recover; the first error cancels the run and
// is returned naming the part and, inside, the node, and a run whose
// caller's context ends returns within 100 ms even if a part ignores the
// cancellation (the part is left to finish before the next run starts).
//
// The Serial schedule runs the same placed graph on one actor, the CPU nodes
// computed on the host inside its Launch stage: the single-launch-thread
// runtime that Concurrent is measured against. Its runs end as an actor's
// do: at the first kernel boundary after the context ends, so a kernel
// that blocks (which the kernel contract forbids) holds the run until it
// returns.
//
// # Host costs
//
// plan.Config.Costs are the synthetic host costs of a kernel placed on the
// accelerator; a kernel placed on the CPU pays, unless Config.HostCost
// says otherwise (plan.Node.OnCPU tells it where the node is), the prepare
// and InferShape costs: its launch is its real computation. Both schedules
// charge every node the same costs, so that they differ only in how the
// work is scheduled.
//
// Dependency rule: heterog imports actor, plan, subgraph, kernel,
// kernel/ops, device, device/host, sync/ready, trace and internal
// packages; the facade and the scenarios
// import it, never the reverse.
package heterog
