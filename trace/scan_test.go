package trace

import (
	"bytes"
	"compress/zlib"
	"errors"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// collector is a Handler that keeps what Scan hands it.
type collector struct {
	tracks []TrackInfo
	events []Event
}

func (c *collector) Track(i int, t TrackInfo) {
	for len(c.tracks) <= i {
		c.tracks = append(c.tracks, TrackInfo{})
	}
	c.tracks[i] = t
}

func (c *collector) Event(ev *Event) { c.events = append(c.events, *ev) }

// workloadTrace records kernels of the synthetic workload in format f.
func workloadTrace(t testing.TB, o Options, kernels int) []byte {
	var buf bytes.Buffer
	r, err := New(&buf, o)
	if err != nil {
		t.Fatal(err)
	}
	w := newWorkload(r, 7)
	for range kernels {
		w.kernel()
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// scanEqualsParse checks that Scan hands over what Parse returns: the same
// tracks, and the same events but for flow begins in the Perfetto format.
func scanEqualsParse(t *testing.T, data []byte) {
	t.Helper()
	p, perr := Parse(data)
	var c collector
	f, serr := Scan(bytes.NewReader(data), &c)
	if (perr == nil) != (serr == nil) {
		t.Fatalf("Parse: %v; Scan: %v", perr, serr)
	}
	if perr != nil {
		return
	}
	if f != p.Format {
		t.Fatalf("Scan says %v, Parse %v", f, p.Format)
	}
	want := slicesClone(p.Events)
	if f == Perfetto {
		for i := range want {
			if want[i].Kind == EvFlowBegin {
				want[i].Kind = EvFlowStep
			}
		}
	}
	if len(c.events) != len(want) {
		t.Fatalf("Scan: %d events, Parse %d", len(c.events), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(c.events[i], want[i]) && !(c.events[i].Value != c.events[i].Value && want[i].Value != want[i].Value) {
			t.Fatalf("event %d: Scan %+v, Parse %+v", i, c.events[i], want[i])
		}
	}
	if !reflect.DeepEqual(c.tracks, p.Tracks) && !(len(c.tracks) == 0 && len(p.Tracks) == 0) {
		t.Fatalf("tracks: Scan %+v, Parse %+v", c.tracks, p.Tracks)
	}
}

func slicesClone(evs []Event) []Event { return append([]Event(nil), evs...) }

func TestScanEqualsParse(t *testing.T) {
	for _, o := range []Options{{}, {NoCompression: true}, {Format: JSON}} {
		scanEqualsParse(t, workloadTrace(t, o, 3000))
	}
	for _, s := range []string{
		`{"traceEvents":[{"ph":"X","pid":1,"tid":2,"ts":1,"dur":2,"name":"k"}]}`,
		`[{"ph":"B","pid":1,"tid":1,"ts":0,"name":"a"}, {"ph":"E","pid":1,"tid":1,"ts":"2.5"}]`,
		`{"other":[1,{"a":"]"}],"traceEvents":[{"PH":"C","pid":1,"name":"c","ts":1,"args":{"b":2,"a":"x"}},` +
			`{"ph":"M","pid":1,"name":"process_name","args":{"name":"p\u00e9"}},{"ph":"s","pid":1,"tid":3,"ts":1,"id":"0x10"}],"displayTimeUnit":"ns"}`,
		`{"traceEvents":[{"ph":"C","pid":1,"name":"c","ts":1,"args":{"value":"str"}}]}`,
		`  {"traceEvents": [ ] }  `,
	} {
		scanEqualsParse(t, []byte(s))
	}
}

// TestScanBadInput: truncated traces and bytes from elsewhere end with an
// error saying where, after every complete event before it.
func TestScanBadInput(t *testing.T) {
	for _, o := range []Options{{}, {NoCompression: true}, {Format: JSON}} {
		data := workloadTrace(t, o, 2000)
		p, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, cut := range []int{1, len(data) / 3, len(data) - 3} {
			var c collector
			_, err := Scan(bytes.NewReader(data[:cut]), &c)
			if err == nil || !strings.Contains(err.Error(), "truncated") {
				t.Errorf("%v cut at %d of %d: error %v, want truncated", o, cut, len(data), err)
			}
			if len(c.events) > len(p.Events) {
				t.Errorf("%v cut at %d: %d events, more than the whole trace's %d", o, cut, len(c.events), len(p.Events))
			}
		}
	}
	for _, s := range []string{"\xff\xff\xff", "hello world", `{"traceEvents":[{"ph":"X","ts":"soon"}]}`, `{"traceEvents":[{"ph":"X","pid":1.5}]}`, "{]"} {
		var c collector
		if _, err := Scan(strings.NewReader(s), &c); err == nil {
			t.Errorf("Scan(%q) succeeded", s)
		}
	}
}

// TestNilReaderIsMisuse: Read and Scan given a nil reader fail with
// ErrMisuse instead of panicking.
func TestNilReaderIsMisuse(t *testing.T) {
	if _, err := Read(nil); !errors.Is(err, ErrMisuse) || !strings.Contains(err.Error(), "nil reader") {
		t.Errorf("Read(nil): %v, want ErrMisuse naming the nil reader", err)
	}
	var c collector
	if _, err := Scan(nil, &c); !errors.Is(err, ErrMisuse) || !strings.Contains(err.Error(), "nil reader") {
		t.Errorf("Scan(nil): %v, want ErrMisuse naming the nil reader", err)
	}
}

// TestScanAllocs: reading events in steady state allocates nothing.
func TestScanAllocs(t *testing.T) {
	for _, o := range []Options{{}, {Format: JSON}} {
		data := workloadTrace(t, o, 5000)
		var h nopHandler
		rd := bytes.NewReader(data)
		// Per event: the few allocations of a Scan's setup are spread over
		// some 60 000 events.
		allocs := testing.AllocsPerRun(2, func() {
			rd.Reset(data)
			if _, err := Scan(rd, &h); err != nil {
				t.Fatal(err)
			}
		})
		if perEvent := allocs / float64(h.n/3); perEvent > 0.01 {
			t.Errorf("format %v: %.0f allocations a scan, %.4f an event", o.Format, allocs, perEvent)
		}
	}
}

type nopHandler struct{ n int }

func (*nopHandler) Track(int, TrackInfo) {}
func (h *nopHandler) Event(*Event)       { h.n++ }

func BenchmarkScan(b *testing.B) {
	for _, o := range []Options{{}, {Format: JSON}} {
		data := workloadTrace(b, o, 20000)
		b.Run(o.Format.String(), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Scan(bytes.NewReader(data), &nopHandler{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var _ io.Reader = (*bytes.Reader)(nil)

// TestInflateBound: a compressed_packets field that inflates past
// maxInflated (here a 64 KiB file of 64 MiB of zeros) is an error of
// Scan and Parse, not gigabytes of memory.
func TestInflateBound(t *testing.T) {
	var z bytes.Buffer
	w, err := zlib.NewWriterLevel(&z, zlib.BestSpeed) // 81 KiB: the fastest to make, under the race detector too
	if err != nil {
		t.Fatal(err)
	}
	zeros := make([]byte, 1<<20)
	for range 64 {
		w.Write(zeros)
	}
	w.Close()
	inner := protowire.AppendBytes(protowire.AppendTag(nil, fPacketCompressed, protowire.BytesType), z.Bytes())
	data := protowire.AppendBytes(protowire.AppendTag(nil, fTracePacket, protowire.BytesType), inner)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = Scan(bytes.NewReader(data), &collector{})
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "inflate to more than") {
		t.Errorf("Scan of a %d KiB bomb: %v, want an error that it inflates too far", len(data)>>10, err)
	}
	// TotalAlloc counts every allocation of the process, the inflating
	// buffer's growth included (and more under the race detector): the
	// bound is loose, the unbounded read took 256 MiB.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16*maxInflated {
		t.Errorf("Scan of a %d KiB bomb allocated %d MiB", len(data)>>10, grew>>20)
	}
	if _, err := Parse(data); err == nil || !strings.Contains(err.Error(), "inflate to more than") {
		t.Errorf("Parse of the bomb: %v, want an error that it inflates too far", err)
	}
}
