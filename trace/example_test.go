package trace_test

import (
	"bytes"
	"fmt"
	"io"
	"log"

	"github.com/pipert/pipert/trace"
)

// A kernel's infer stage and its execution on the device, joined by a flow,
// with a queue-depth counter, written in the Chrome JSON format (Perfetto's
// is binary) and read back.
func Example() {
	var out bytes.Buffer
	r, err := trace.New(&out, trace.Options{Format: trace.JSON})
	if err != nil {
		log.Fatal(err)
	}
	infer := r.Track("infer", trace.SliceTrack, trace.Host)
	stream := r.Track("stream 0", trace.SliceTrack, trace.Device)
	depth := r.Track("infer queue depth", trace.CounterTrack, trace.Host)
	add := r.Intern("Add")

	const kernel = 1 // the flow id: one per kernel
	infer.Slice(1_000, 250, add)
	infer.FlowBegin(kernel)
	depth.Counter(1_000, 3)
	stream.Slice(4_000, 1_500, add) // modeled on the device, later than its launch
	stream.FlowEnd(kernel)
	if err := r.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Print(out.String())

	p, err := trace.Parse(out.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("slices:", len(p.Slices()), "valid:", trace.Validate(p) == nil)
	// Output:
	// {"traceEvents":[
	// {"ph":"M","pid":1,"tid":0,"name":"process_name","args":{"name":"host"}},
	// {"ph":"M","pid":1,"tid":0,"name":"process_sort_index","args":{"sort_index":1}},
	// {"ph":"M","pid":1,"tid":1000,"name":"thread_name","args":{"name":"infer"}},
	// {"ph":"M","pid":1,"tid":1000,"name":"thread_sort_index","args":{"sort_index":0}},
	// {"ph":"M","pid":2,"tid":0,"name":"process_name","args":{"name":"device"}},
	// {"ph":"M","pid":2,"tid":0,"name":"process_sort_index","args":{"sort_index":2}},
	// {"ph":"M","pid":2,"tid":1001,"name":"thread_name","args":{"name":"stream 0"}},
	// {"ph":"M","pid":2,"tid":1001,"name":"thread_sort_index","args":{"sort_index":1}},
	// {"ph":"X","pid":1,"tid":1000,"ts":1.000,"dur":0.250,"name":"Add"},
	// {"ph":"s","pid":1,"tid":1000,"ts":1.000,"id":1,"cat":"flow","name":"flow"},
	// {"ph":"X","pid":2,"tid":1001,"ts":4.000,"dur":1.500,"name":"Add"},
	// {"ph":"f","pid":2,"tid":1001,"ts":4.000,"id":1,"cat":"flow","name":"flow","bp":"e"},
	// {"ph":"C","pid":1,"ts":1.000,"name":"infer queue depth","args":{"value":3}}
	// ],"displayTimeUnit":"ns"}
	// slices: 2 valid: true
}

// Validate names what is wrong with a trace.
func ExampleValidate() {
	var out bytes.Buffer
	r, err := trace.New(&out, trace.Options{})
	if err != nil {
		log.Fatal(err)
	}
	launch := r.Track("launch", trace.SliceTrack, trace.Host)
	k := r.Intern("kernel")
	launch.Slice(100, 50, k)
	launch.FlowBegin(9) // the device side never ends this flow
	launch.Slice(120, 50, k)
	if err := r.Close(); err != nil {
		log.Fatal(err)
	}
	p, err := trace.Parse(out.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(trace.Validate(p))
	// The Perfetto format cannot express the overlap: its slice ends come out
	// of time order, which Validate reports as well.

	// Output:
	// trace: 3 problem(s): timestamp goes backwards on track "launch" at 150 ns: End at 150 after an event at 170; partial overlap on track "launch" at 120 ns: "kernel" [120, 170] overlaps "kernel" [100, 150] without nesting; dangling flow at 100 ns: flow 9 has no terminating end
}

// A worker records inside Hold and Release, so that the Recorder may be
// closed while it works: Close waits for the worker's span to end, and a
// span begun after Close records nothing.
func ExampleRecorder_Hold() {
	r, err := trace.New(io.Discard, trace.Options{})
	if err != nil {
		log.Fatal(err)
	}
	track := r.Track("worker", trace.SliceTrack, trace.Host)
	step := r.Intern("step")
	held := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := int64(0); ; i++ {
			if !r.Hold() {
				return // closed: the tracks are Close's now
			}
			track.Slice(i, 1, step) // recorded only while r is enabled
			if i == 0 {
				close(held)
			}
			r.Release()
		}
	}()
	<-held
	if err := r.Close(); err != nil { // under the worker
		log.Fatal(err)
	}
	<-done
	fmt.Println("closed under a worker; Hold now:", r.Hold())
	// Output:
	// closed under a worker; Hold now: false
}
