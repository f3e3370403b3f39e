// Package plan is how pipert executes a graph, written down as data: the
// one Config every layer receives (declared, defaulted and validated here
// and nowhere else), the execution modes as stage plans (which goroutine
// runs each host step of a kernel, which barrier policy applies), the
// synthetic host costs per node, and the one Stats every mode reports.
//
// The facade (package pipert) re-exports Config and its vocabulary; the
// runtime (package actor) and the heterogeneous scheduler (package heterog)
// take a validated Config and read it, they declare no settings of their
// own.
//
// Dependency rule: plan imports kernel, kernel/ops, control, subgraph,
// device, device/host and trace.
package plan
