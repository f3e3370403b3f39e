// Package analysis explains the makespan of a stream of kernels: Predict
// gives the makespan an execution mode should reach from per-kernel stage
// costs (a flow-shop model with a core-count bound), and Bubbles lists the
// device's idle intervals with the host stage that was busiest during each,
// the likely cause of the bubble. Share predicts how long jobs that share
// the host's cores take (the parts of a heterogeneous run).
//
// All are pure functions of plain data; FromTrace extracts that data from a
// trace read with trace.ReadFile.
//
// Dependency rule: analysis imports trace and the standard library only.
//
// # The flow-shop model
//
// Every kernel passes the host stages Prepare, Infer, Resize and Launch, in
// that order, then runs on the device. A Mode assigns each host stage to a
// worker (a goroutine); a worker serves its stages for one kernel after
// another, in kernel order. Consecutive stages on one worker merge into one
// operation, so the workers form a flow shop whose machines are the workers
// in stage order, followed by the device:
//
//	C[i][w] = max(C[i-1][w], C[i][w-1]) + p[i][w]
//	D[i]    = max(D[i-1] + device gap, C[i][last] + launch latency) + device[i]
//
// where p[i][w] is kernel i's work on worker w, C its completion, D the end
// of its device execution, and the makespan is D[n-1], or C[n-1][last] if
// the host ends later. The launch latency is negative when the device takes
// a kernel before the launch call returns (the SW-AI card's fast launch
// issues the kernel early in the call), but never reaches back before the
// launch stage began. The recurrence gives each worker a core of its own.
// With fewer cores than workers, the host cannot finish before HostWork /
// Cores, and the last kernel's launch is the last host operation, so the
// makespan is at least
//
//	HostWork / Cores + max(launch latency + device[n-1], 0).
//
// Both numbers are lower bounds of any run of the mode on that machine. When
// the mode has more workers than cores, the workers also slow one another
// down: a third figure, the shared flow shop, plays the same operations as
// an event simulation on Cores cores that run an operation to its end (Go
// does not preempt a goroutine that does not yield for about 10 ms), a free
// core taking the operation ready the longest (on a tie the later worker's,
// the goroutine a hand-off woke); a worker waiting for work or at a barrier
// takes no core, and one whose next queue holds Machine.QueueCapacity
// kernels waits for room. Predict returns the largest of the three.
//
// Five terms of the runtime itself join the stage costs, each measured,
// none fitted to the run predicted:
//
//   - hand-offs: Machine.Handoff per kernel at each boundary between two
//     workers (queue push and pop), charged to the receiving worker;
//   - wake-ups: a worker that was idle when a kernel was handed to it
//     (done with the kernel before earlier) starts the kernel's operation
//     Machine.Wake after the hand-off, the time a waiting worker takes to
//     be scheduled again; wall time, not CPU, measured from the trace
//     like the launch latency;
//   - spinning: Machine.Spin per kernel for each worker but one, the CPU a
//     waiting worker burns before it parks; it counts in CPU (besides
//     HostWork) only when the workers outnumber the cores;
//   - the device's gap: Machine.DeviceGap between two kernels of which the
//     second was launched while the first ran (the device's fetch of the
//     next command), measured from the trace like the launch latency;
//   - barriers: a kernel with a value or compute dependency (Kernel.Barrier)
//     starts its operation on the infer worker only once its producer's
//     device execution has ended (per-tensor) or once every earlier kernel's
//     has (Mode.Drain: the queues below are empty and the device idle), then
//     pays the barrier's own cost, the staging of the value.
//
// pipebench measures Handoff and Spin once per machine on the zerocost
// scenario and stores them in the trace.
package analysis
