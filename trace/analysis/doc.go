// Package analysis explains the makespan of a stream of kernels: Predict
// gives the makespan an execution mode should reach from per-kernel stage
// costs (a flow-shop model with a core-count bound), and Bubbles lists the
// device's idle intervals with the host stage that was busiest during each,
// the likely cause of the bubble.
//
// Both are pure functions of plain data; FromTrace extracts that data from a
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
//	D[i]    = max(D[i-1], C[i][last] + launch latency) + device[i]
//
// where p[i][w] is kernel i's work on worker w, C its completion, D the end
// of its device execution, and the makespan is D[n-1]. The recurrence gives
// each worker a core of its own. With fewer cores than workers, the host
// cannot finish before HostWork / Cores, and the last kernel's launch is the
// last host operation, so the makespan is at least
//
//	HostWork / Cores + launch latency + device[n-1].
//
// Both numbers are lower bounds of any run of the mode on that machine. When
// the mode has more workers than cores, the workers also slow one another
// down: a third figure, the shared flow shop, runs the recurrence with every
// host cost stretched by HostWork / (Cores × Busiest) — the slowdown of
// workers sharing the cores in proportion to their work, which keeps the
// device chain behind the stretched launches. Predict returns the largest of
// the three. It does not charge the hand-offs between workers or the CPU of
// workers that spin while they wait, so it stays optimistic.
package analysis
