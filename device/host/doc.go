// Package host is the host CPU seen as a device.Device, so that a CPU
// subgraph runs through the same actor machinery as a device subgraph.
//
// Unlike device.Sim, nothing here is modeled on real data: the runtime
// computes a kernel's results on the host right before it launches it on a
// host Stream, and the interval that took (device.Kernel.Computed: real CPU
// time on the host's monotonic clock) is the kernel's interval on the
// stream's timeline, its busy time in Stats and what an Observer sees.
// Memory is Go memory with accounting: an alloc.Allocator hands out
// addresses (peak and in-use bytes, double frees) and materialized buffers
// get zeroed backings from a size-class pool.
//
// Virtual data has nothing to compute, so a kernel launched with no
// computed interval burns, on the calling goroutine, the time the device's
// Profile gives for its cost: a benchmark on shape-only tensors still pays
// the CPU time the work would take. The Default profile holds magnitudes
// measured for the built-in ops on a 2-core x86 host.
//
// # Streams and events
//
// A host stream is synchronous: Launch and the copies return when the work
// is done; a stream told to wait for an event (WaitEvent) starts its next
// copy or burn no earlier than the event's time. Events are clock events
// (device.ClockEvent): they record the time at which the recorded work
// finished, so a simulated device's stream can wait for a host event and a
// host stream for a simulated one.
//
// # Host-mapped memory
//
// Map wraps an accelerator whose memory the CPU can read and write in place
// (the MT-3000's DDR, shared by its CPU and DSP clusters). Buffers it
// allocates are host-mapped: a CPU kernel may compute on them without a
// device-to-host copy. Its streams implement Mapper, which is how a kernel
// launched on one learns that it may run on the host over device memory —
// the virtual operators of package heterog.
//
// Dependency rule: host imports device, device/alloc, device/internal/account,
// internal/clock and the standard library only.
package host
