// Package trace records what pipert's host goroutines and simulated devices
// do, and writes it as a trace to open in Perfetto (ui.perfetto.dev) or any
// viewer of the Chrome JSON trace-event format. It also reads both formats
// back into one model and checks the invariants a well-formed trace keeps.
//
// Dependency rule: trace is a leaf. It imports nothing of pipert; only the
// standard library, google.golang.org/protobuf/encoding/protowire, and
// github.com/klauspost/compress/zlib (a faster writer of the zlib format).
// Analyses of traces live in trace/analysis.
//
// # Recording
//
// A Recorder streams to one output. Callers register tracks — one per host
// goroutine (a runner, a stage worker, a pool worker), one per device
// stream, one per counter (a queue's depth, device memory, utilisation) —
// in a Group that the viewer shows as a process: Host, Device, or one made
// with Recorder.Group. Names of events are interned once with Intern and
// recorded by their Name:
//
//	r, err := trace.Create("run.pftrace", trace.Options{})
//	infer := r.Track("infer", trace.SliceTrack, trace.Host)
//	stream := r.Track("stream 0", trace.SliceTrack, trace.Device)
//	depth := r.Track("infer queue depth", trace.CounterTrack, trace.Host)
//	matmul := r.Intern("MatMul")
//	...
//	if infer.Enabled() { // on the infer worker's goroutine
//		infer.Slice(t0, t1-t0, matmul)
//		infer.FlowStep(kernelID)
//	}
//	...
//	err = r.Close()
//
// Timestamps are int64 nanoseconds on the runtime's monotonic clock, given by
// the caller; device slices may be recorded before they happen (their
// modeled start and end lie in the future). Each track has one writer, and
// its timestamps do not go backwards.
//
// A nil *Recorder and a nil *Track record nothing, so code can trace
// unconditionally; Enabled is the cheap check to make before computing
// anything only the trace needs. Recording an event allocates nothing.
//
// # Design
//
// Each Track fills a chunk (1 MiB by default, 256 KiB with Options.Defer)
// of fixed-size 24-byte event records, with no lock and no allocation. A
// full chunk goes to the writer goroutine, which encodes it to the output
// (or, with Options.Defer, appends it raw to a spill file that Close
// encodes) and returns it to a pool. The
// pool holds at most one chunk per track plus Options.SpareChunks, so memory
// is bounded; a track that finds the pool empty waits for the writer (or,
// with Options.NoBlock, drops events and counts them). This is the design of
// Go's runtime tracer: per-thread buffers of binary records, flushed whole.
//
// Events are described by one spec table (EventKind.Spec), shared by the
// recorder, the two writers and the two readers:
//
//	kind          track    record fields      JSON ph   Perfetto
//	Begin         slices   ts, name           B         SLICE_BEGIN
//	End           slices   ts                 E         SLICE_END
//	Slice         slices   ts, name, dur      X         SLICE_BEGIN + SLICE_END
//	Instant       slices   ts, name           i         INSTANT
//	Counter       counter  ts, int64 value    C         COUNTER, counter_value
//	CounterFloat  counter  ts, float64 value  C         COUNTER, double_counter_value
//	FlowBegin     slices   flow id            s         flow_ids
//	FlowStep      slices   flow id            t         flow_ids
//	FlowEnd       slices   flow id            f (bp e)  terminating_flow_ids
//
// A flow event attaches to the slice recorded just before it on the same
// track. One flow joins a kernel's prepare, infer, resize and launch slices
// and its device slice; others join the two ends of a cross-subgraph edge.
//
// # Output formats
//
// The Perfetto format (files *.pftrace, *.perfetto-trace, *.pb) is a stream
// of Trace.packet TracePackets written with protowire: a TrackDescriptor per
// group (a process) and per track (a thread, or a counter), then TrackEvents
// whose names are interned (InternedData.event_names, name_iid) on one
// packet sequence. The field numbers, and the .proto files they come from,
// are listed in one table in perfetto.go. Packets are zlib-compressed in
// batches of 256 KiB (TracePacket.compressed_packets), as Perfetto's own
// service does; Options.NoCompression turns that off. A kernel traced as
// four host slices, a device slice, a five-step flow and two or three
// counter samples costs about 66 bytes compressed and 270 bytes
// uncompressed, so a million-kernel run writes about 66 MB. The writer
// goroutine spends about 2.2 µs a kernel encoding and compressing (0.7 µs
// without compression); recording costs the traced goroutine some 10 to 20
// ns an event.
//
// Perfetto has no complete-slice event: a Slice is written as a SLICE_BEGIN
// and a SLICE_END, the end held back until the track's next event starts at
// or after it, so that a track's packets stay in time order.
//
// The JSON format (*.json) is {"traceEvents":[...],"displayTimeUnit":"ns"}
// with one event per line: "M" events name processes and threads and give
// their sort order; timestamps and durations are microseconds with exactly
// three decimals, formatted from integer nanoseconds.
//
// Both writers stream: what a chunk held is on its way to the output as soon
// as the chunk is handed over, and Close writes what remains.
//
// # Opening a trace in Perfetto
//
// Go to https://ui.perfetto.dev and choose "Open trace file" (or drop the
// file on the page); both formats open as they are, nothing leaves the
// browser. Host goroutines appear as threads of the "host" process, device
// streams as threads of the "device" process, counters as counter tracks in
// their process. Click a slice and follow its flow arrows to see one
// kernel's path from prepare to device execution. For large traces the
// Perfetto format loads faster and is several times smaller; the
// trace_processor tool (perfetto.dev/docs/analysis/trace-processor) runs SQL
// over it, for instance
//
//	select name, count(*), sum(dur) from slice group by name;
//
// # Reading and validating
//
// ReadFile reads either format into a Parsed model: tracks and events in
// file order, from which Slices are rebuilt. Validate checks that timestamps
// never go backwards on a track, slices nest or follow each other and never
// partially overlap, every flow has a begin and a terminating end, and
// counter values are finite numbers; it names every problem it finds.
package trace
