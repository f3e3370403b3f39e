package trace_test

import (
	"bytes"
	"testing"

	"github.com/pipert/pipert/trace"
)

// seedTrace is a small trace in format f: slices, a flow, a counter.
func seedTrace(f trace.Format, compress bool) []byte {
	var out bytes.Buffer
	r, err := trace.New(&out, trace.Options{Format: f, NoCompression: !compress})
	if err != nil {
		panic(err)
	}
	infer := r.Track("infer", trace.SliceTrack, trace.Host)
	stream := r.Track("stream 0", trace.SliceTrack, trace.Device)
	depth := r.Track("depth", trace.CounterTrack, trace.Host)
	add := r.Intern("Add")
	infer.Slice(1_000, 250, add)
	infer.FlowBegin(1)
	depth.Counter(1_000, 3)
	depth.CounterFloat(2_000, 0.5)
	stream.Slice(4_000, 1_500, add)
	stream.FlowEnd(1)
	if err := r.Close(); err != nil {
		panic(err)
	}
	return out.Bytes()
}

// FuzzParse: both readers (Perfetto protobuf, compressed or not, and
// Chrome JSON) take any bytes without panicking or hanging; what they
// accept validates or is reported, and reads the same again.
func FuzzParse(f *testing.F) {
	f.Add(seedTrace(trace.Perfetto, true))
	f.Add(seedTrace(trace.Perfetto, false))
	f.Add(seedTrace(trace.JSON, false))
	f.Add([]byte(`{"traceEvents":[{"ph":"X","pid":1,"tid":2,"ts":1,"dur":2,"name":"k"}]}`))
	f.Add([]byte(`[{"ph":"B","pid":1,"tid":1,"ts":0,"name":"a"}]`))
	f.Add([]byte{0x0a, 0x02, 0x08, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := trace.Parse(data)
		if err != nil {
			return
		}
		_ = trace.Validate(p)
		_ = p.Slices()
		q, err := trace.Parse(data)
		if err != nil || len(q.Slices()) != len(p.Slices()) {
			t.Fatalf("the same bytes read twice differ: %v", err)
		}
	})
}

// FuzzScan: the streaming reader takes any bytes without panicking or
// hanging, hands over no more events than Parse finds in a trace Parse
// accepts, and reads the same bytes the same way twice.
func FuzzScan(f *testing.F) {
	f.Add(seedTrace(trace.Perfetto, true))
	f.Add(seedTrace(trace.Perfetto, false))
	f.Add(seedTrace(trace.JSON, false))
	f.Add([]byte(`{"traceEvents":[{"ph":"X","pid":1,"tid":2,"ts":1,"dur":2,"name":"k"}]}`))
	f.Add([]byte(`[{"ph":"B","pid":1,"tid":1,"ts":0,"name":"a"}]`))
	f.Add([]byte(`{"a":[{"b":"}"}],"traceEvents":[{"ph":"C","ts":"1","args":{"v":1.5}}]}`))
	f.Add([]byte{0x0a, 0x02, 0x08, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		var a, b countHandler
		_, errA := trace.Scan(bytes.NewReader(data), &a)
		_, errB := trace.Scan(bytes.NewReader(data), &b)
		if a != b || (errA == nil) != (errB == nil) {
			t.Fatalf("the same bytes scanned twice differ: %+v %v, %+v %v", a, errA, b, errB)
		}
		if p, err := trace.Parse(data); err == nil && errA == nil && a.events != len(p.Events) {
			t.Fatalf("Scan: %d events, Parse: %d", a.events, len(p.Events))
		}
	})
}

type countHandler struct{ tracks, events int }

func (h *countHandler) Track(int, trace.TrackInfo) { h.tracks++ }
func (h *countHandler) Event(*trace.Event)         { h.events++ }
