package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/pipert/pipert/trace"
)

// FuzzAnalyze: the trace analysis takes any bytes, as a Perfetto or JSON
// trace, without panicking or hanging, and analyses the same bytes the same
// way twice. Seeds: pipebench traces of a queued and a replayed scenario in
// both formats, cut short too, and hand-written traces.
func FuzzAnalyze(f *testing.F) {
	dir := f.TempDir()
	for _, run := range [][]string{
		{"x.pftrace", "-scenario", "vad", "-mode", "pipeline,replay"},
		{"x.json", "-scenario", "smallops", "-mode", "async,replay"},
	} {
		path := filepath.Join(dir, run[0])
		if code, _, stderr := runArgs(f, append([]string{"-real", "-reps", "1", "-analyze=false", "-trace", path}, run[1:]...)...); code != 0 {
			f.Fatalf("%s: exit %d: %s", run[0], code, stderr)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	f.Add([]byte(`[{"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"a runner"}},{"ph":"B","pid":1,"tid":1,"ts":0,"name":"run"},{"ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"name":"Add prepare"},{"ph":"s","pid":1,"tid":1,"ts":1,"id":1},{"ph":"s","pid":1,"tid":1,"ts":1,"id":0},{"ph":"s","pid":1,"tid":1,"ts":1,"id":2},{"ph":"E","pid":1,"tid":1,"ts":5}]`))
	f.Add([]byte(`{"traceEvents":[{"ph":"X","pid":1,"tid":2,"ts":1,"dur":2,"name":"k"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		analyze := func() ([]actorSummary, []string, error) {
			return analyzeScan(func(h trace.Handler) error {
				_, err := trace.Scan(bytes.NewReader(data), h)
				return err
			}, 2)
		}
		a, wa, ea := analyze()
		b, wb, eb := analyze()
		var pa, pb bytes.Buffer
		writeAnalysis(&pa, a)
		writeAnalysis(&pb, b)
		if pa.String() != pb.String() || len(wa) != len(wb) || (ea == nil) != (eb == nil) {
			t.Fatalf("the same bytes analysed twice differ:\n%s%v %v\n%s%v %v", pa.String(), wa, ea, pb.String(), wb, eb)
		}
	})
}
