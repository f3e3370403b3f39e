package devtrace_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pipert/pipert/internal/clock"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/devtrace"
	"github.com/pipert/pipert/device/host"
	"github.com/pipert/pipert/trace"
)

func TestObserverRecordsStreamsAndEndsFlows(t *testing.T) {
	rec, buf := newJSON(t)
	host := rec.Track("runner", trace.SliceTrack, trace.Host)
	d, _ := device.NewSim(device.SimOptions{Observer: devtrace.New(rec, "dev")})
	s0, s1 := d.NewStream(), d.NewStream()
	for i := uint64(1); i <= 3; i++ {
		host.Slice(clock.Now(), 10, rec.Intern("launch"))
		host.FlowBegin(i)
		if err := s0.Launch(device.Kernel{Name: "k", Flow: i}); err != nil {
			t.Fatal(err)
		}
	}
	b, err := d.Alloc(8, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := s1.CopyH2D(b, make([]byte, 8)); err != nil {
		t.Fatal(err)
	}
	p := closeAndRead(t, rec, buf)
	if err := trace.Validate(p); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"dev stream 0", "dev stream 1"} {
		if _, ok := p.TrackIndex(name); !ok {
			t.Fatalf("no track %q", name)
		}
	}
	ends := 0
	for _, e := range p.Events {
		if e.Kind == trace.EvFlowEnd {
			ends++
		}
	}
	if ends != 3 {
		t.Fatalf("%d flows end on the device, want 3", ends)
	}
}

func TestObserverAllocatesNothingPerEvent(t *testing.T) {
	var buf bytes.Buffer
	rec, _ := trace.New(&buf, trace.Options{})
	o := devtrace.New(rec, "dev")
	w := device.Work{Kind: "kernel", Name: "MatMul"}
	ts := int64(1)
	o.OnWork(w) // creates the track
	if n := testing.AllocsPerRun(1000, func() {
		w.Start, w.End = ts, ts+5
		ts += 10
		o.OnWork(w)
	}); n != 0 {
		t.Fatalf("%v allocations per event", n)
	}
	rec.Close()
	var off *devtrace.Observer = devtrace.New(nil, "x")
	if n := testing.AllocsPerRun(100, func() { off.OnWork(w) }); n != 0 {
		t.Fatalf("disabled observer: %v allocations", n)
	}
}

// TestObserverNames: kernels of many names, some alike in length and in
// their first and last letters (the name cache's hash) and some built at
// run time (equal strings at other addresses), each keep their own name.
func TestObserverNames(t *testing.T) {
	rec, buf := newJSON(t)
	o := devtrace.New(rec, "dev")
	var want []string
	for i := range 500 {
		name := fmt.Sprintf("A%cB", 'a'+i%26) // same length, first and last letter
		switch i % 3 {
		case 1:
			name = fmt.Sprintf("op%d", i%97)
		case 2:
			name = strings.Repeat("x", i%7)
		}
		want = append(want, name)
		o.OnWork(device.Work{Kind: "kernel", Name: string([]byte(name)), Start: int64(10 * i), End: int64(10*i + 5)})
	}
	p := closeAndRead(t, rec, buf)
	var got []string
	for _, e := range p.Events {
		if e.Kind == trace.EvSlice {
			got = append(got, e.Name)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("slice names differ from the kernels':\n got %q\nwant %q", got, want)
	}
}

// TestObserverTracesEveryStream: a device's streams are numbered over its
// life, so a process compiling many executables on one device reaches
// high numbers; each stream's work gets its track and ends its flow, the
// first stream to work being the last made.
func TestObserverTracesEveryStream(t *testing.T) {
	rec, buf := newJSON(t)
	d, _ := device.NewSim(device.SimOptions{Observer: devtrace.New(rec, "dev")})
	const n = 300
	streams := make([]device.Stream, n)
	for i := range streams {
		streams[i] = d.NewStream()
	}
	host := rec.Track("runner", trace.SliceTrack, trace.Host)
	for i := n - 1; i >= 0; i -= 7 {
		flow := uint64(i + 1)
		host.Slice(clock.Now(), 10, rec.Intern("launch"))
		host.FlowBegin(flow)
		if err := streams[i].Launch(device.Kernel{Name: "k", Flow: flow}); err != nil {
			t.Fatal(err)
		}
		if err := streams[i].Synchronize(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	p := closeAndRead(t, rec, buf)
	ends := map[uint64]bool{}
	for _, e := range p.Events {
		if e.Kind == trace.EvFlowEnd {
			ends[e.Flow] = true
		}
	}
	for i := n - 1; i >= 0; i -= 7 {
		if _, ok := p.TrackIndex(fmt.Sprintf("dev stream %d", i)); !ok {
			t.Errorf("no track for stream %d", i)
		}
		if !ends[uint64(i+1)] {
			t.Errorf("stream %d: its kernel's flow does not end on the device", i)
		}
	}
}

// TestObserverClose: Close closes every stream's track: the work recorded
// before is in the trace, and work after it is a misuse of the recorder.
func TestObserverClose(t *testing.T) {
	rec, buf := newJSON(t)
	obs := devtrace.New(rec, "dev")
	d, _ := device.NewSim(device.SimOptions{Observer: obs})
	s0, s1 := d.NewStream(), d.NewStream()
	for _, s := range []device.Stream{s0, s1} {
		if err := s.Launch(device.Kernel{Name: "k"}); err != nil {
			t.Fatal(err)
		}
	}
	obs.Close()
	obs.Close()
	if err := s1.Launch(device.Kernel{Name: "late"}); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); !errors.Is(err, trace.ErrMisuse) {
		t.Fatalf("work after the observer's Close: recorder Close = %v, want ErrMisuse", err)
	}
	p, err := trace.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range p.Slices() {
		if p.Tracks[s.Track].Name == "dev stream 0" || p.Tracks[s.Track].Name == "dev stream 1" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d device slices in the trace, want the 2 before Close", n)
	}
}

// TestObserverStreamReleased: a released stream's track is closed (work on
// it after is a misuse of the recorder); the others record on.
func TestObserverStreamReleased(t *testing.T) {
	rec, buf := newJSON(t)
	d, _ := device.NewSim(device.SimOptions{Observer: devtrace.New(rec, "dev")})
	s0, s1 := d.NewStream(), d.NewStream()
	for _, s := range []device.Stream{s0, s1} {
		if err := s.Launch(device.Kernel{Name: "k"}); err != nil {
			t.Fatal(err)
		}
	}
	d.ReleaseStream(s0)
	if err := s1.Launch(device.Kernel{Name: "k"}); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatalf("work on the stream not released: %v", err)
	}
	p, err := trace.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, s := range p.Slices() {
		per[p.Tracks[s.Track].Name]++
	}
	if per["dev stream 0"] != 1 || per["dev stream 1"] != 2 {
		t.Errorf("slices per stream %v, want 1 on stream 0 and 2 on stream 1", per)
	}
}

// TestObserverTracksStreamsAtCreation: a stream's track is registered
// when the device makes the stream, recorder enabled or not, so that an
// executable's device tracks (and their buffers) are ready before its
// first traced run; they used to be made by that run.
func TestObserverTracksStreamsAtCreation(t *testing.T) {
	rec, buf := newJSON(t)
	rec.SetEnabled(false)
	sim, err := device.NewSim(device.SimOptions{Observer: devtrace.New(rec, "sim")})
	if err != nil {
		t.Fatal(err)
	}
	cpu, err := host.New(host.Options{Observer: devtrace.New(rec, "cpu")})
	if err != nil {
		t.Fatal(err)
	}
	streams := []device.Stream{sim.NewStream(), cpu.NewStream()}
	// A track registered after the streams were made, before any work.
	marker := rec.Track("marker", trace.SliceTrack, trace.Host)
	rec.SetEnabled(true)
	marker.Slice(clock.Now(), 1, rec.Intern("m"))
	for _, s := range streams {
		if err := s.Launch(device.Kernel{Name: "k"}); err != nil {
			t.Fatal(err)
		}
	}
	p := closeAndRead(t, rec, buf)
	m, ok := p.TrackIndex("marker")
	if !ok {
		t.Fatal("no marker track")
	}
	for _, name := range []string{"sim stream 0", "cpu stream 0"} {
		if i, ok := p.TrackIndex(name); !ok || i > m {
			t.Errorf("track %q: index %d (found %v), want one registered before the marker's %d", name, i, ok, m)
		}
	}
}

// newJSON returns a recorder writing a Chrome JSON trace into the buffer.
func newJSON(t *testing.T) (*trace.Recorder, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	rec, err := trace.New(&buf, trace.Options{Format: trace.JSON})
	if err != nil {
		t.Fatal(err)
	}
	return rec, &buf
}

// closeAndRead closes rec and reads back the trace it wrote into buf.
func closeAndRead(t *testing.T, rec *trace.Recorder, buf *bytes.Buffer) *trace.Parsed {
	t.Helper()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	p, err := trace.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
