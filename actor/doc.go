// Package actor runs kernel graphs: a KernelRunner takes each kernel through
// its host stages (prepare, InferShape, Resize, Launch) and a SuperKernelActor
// runs one graph's nodes in execution order on a device stream.
//
// # Modes
//
//   - KBK (kernel by kernel): every stage of every kernel runs on the calling
//     goroutine. The device still overlaps the host (launches are
//     asynchronous), but the host issues one kernel at a time. KBK is the
//     reference every other mode is checked against, bit for bit.
//
// # Dependencies
//
// A value dependency (Reshape's shape input) makes InferShape wait for the
// producing kernel to complete on the device and copies the tensor to the
// host. A compute dependency (Unique) makes the runner wait for the kernel to
// complete and read its real output shapes before the next kernel is issued.
//
// # Memory
//
// Output and workspace memory is allocated right before a kernel's launch and
// every tensor is freed right after the launch of its last user (stream
// ordered: later work on the same stream sees the reuse in order). Graph
// inputs are uploaded at the start of a run; constants once, at compile time.
//
// Dependency rule: actor imports subgraph, kernel, device and internal
// packages; it knows nothing of the facade or the scenarios.
package actor
