package trace

import (
	"bytes"
	"compress/zlib"
	"io"
	"os/exec"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/pipert/pipert/internal/race"
)

// TestBytesPerKernel traces 200 000 synthetic kernels — four host slices, a
// device slice, a five-step flow and two or three counter samples each — and
// checks the size of the Perfetto output per kernel, and that the recorder
// never held more chunks than its bound.
func TestBytesPerKernel(t *testing.T) {
	for _, c := range []struct {
		opts    Options
		kernels int
		max     float64 // bytes per kernel
	}{
		{Options{}, 200_000, 120},
		// Uncompressed, a kernel is 12 packets with flow ids; this bound
		// only guards against the encoding growing.
		{Options{NoCompression: true}, 20_000, 300},
	} {
		kernels := c.kernels
		if race.Enabled {
			// The encoding is the same; .ci/run runs the full count, whose
			// chunks rotate many times, without the race detector.
			kernels /= 10
		}
		r, err := New(io.Discard, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		w := newWorkload(r, 1)
		for range kernels {
			w.kernel()
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		st := r.Stats()
		per := float64(st.Bytes) / float64(kernels)
		t.Logf("compression %v: %d kernels, %d events, %d bytes, %.1f bytes/kernel, %d chunks made",
			!c.opts.NoCompression, kernels, st.Events, st.Bytes, per, r.x.made)
		if per > c.max {
			t.Errorf("%.1f bytes per kernel, want at most %v", per, c.max)
		}
		if limit := r.numTracks() + defaultSpareChunks; r.x.made > limit {
			t.Errorf("%d chunks made, bound is %d", r.x.made, limit)
		}
	}
}

// TestProtocDecodeRaw checks the Perfetto output with protoc, independently
// of this package's reader: every packet parses, the expected number of
// track events is there, and each interned name is written once.
func TestProtocDecodeRaw(t *testing.T) {
	protoc, err := exec.LookPath("protoc")
	if err != nil {
		t.Skip("protoc is not on PATH; install protobuf-compiler to run this check")
	}
	decode := func(t *testing.T, data []byte) string {
		t.Helper()
		cmd := exec.Command(protoc, "--decode_raw")
		cmd.Stdin = bytes.NewReader(data)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("protoc --decode_raw: %v: %s", err, stderr.String())
		}
		return string(out)
	}
	const kernels = 100
	for _, compress := range []bool{false, true} {
		var buf bytes.Buffer
		r, err := New(&buf, Options{NoCompression: !compress})
		if err != nil {
			t.Fatal(err)
		}
		w := newWorkload(r, 3)
		for range kernels {
			w.kernel()
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		text := decode(t, buf.Bytes())
		if compress {
			// The top level holds only compressed_packets; each one is a
			// zlib stream of packets framed as a Trace.
			if strings.Contains(text, "\n  11 {") || !strings.Contains(text, "\n  50: ") {
				t.Fatalf("compressed output does not hold compressed_packets only:\n%.2000s", text)
			}
			var inner strings.Builder
			for _, z := range compressedPayloads(t, buf.Bytes()) {
				zr, err := zlib.NewReader(bytes.NewReader(z))
				if err != nil {
					t.Fatal(err)
				}
				raw, err := io.ReadAll(zr)
				if err != nil {
					t.Fatal(err)
				}
				inner.WriteString(decode(t, raw))
			}
			text = inner.String()
		}
		// Track events: 2 packets per slice, 5 slices per kernel, 2 int
		// counter samples per kernel and one float sample per 64 kernels.
		wantEvents := kernels*(5*2+2) + kernels/utilisationEach
		if n := strings.Count(text, "\n  11 {"); n != wantEvents {
			t.Errorf("compression %v: %d track events, want %d", compress, n, wantEvents)
		}
		if n := strings.Count(text, "\n  60 {"); n != 8+2 {
			t.Errorf("compression %v: %d track descriptors, want 8 tracks and 2 processes", compress, n)
		}
		// (Op names only: protoc prints a string that happens to parse as a
		// message, like "prepare", as a message.)
		for _, name := range []string{"MatMul", "Softmax", "LayerNorm"} {
			if n := strings.Count(text, `"`+name+`"`); n != 1 {
				t.Errorf("compression %v: name %q written %d times, want once", compress, name, n)
			}
		}
		// The flow ids, fixed64, of kernel 1: a begin, three steps, an end.
		if n := strings.Count(text, "47: 0x0000000000000001"); n != 4 {
			t.Errorf("compression %v: flow 1 in flow_ids %d times, want 4", compress, n)
		}
		if n := strings.Count(text, "48: 0x0000000000000001"); n != 1 {
			t.Errorf("compression %v: flow 1 in terminating_flow_ids %d times, want 1", compress, n)
		}
	}
}

// compressedPayloads returns the compressed_packets fields of a trace.
func compressedPayloads(t *testing.T, b []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for len(b) > 0 {
		_, _, n := protowire.ConsumeTag(b)
		pkt, m := protowire.ConsumeBytes(b[n:])
		if n < 0 || m < 0 {
			t.Fatal("bad packet framing")
		}
		b = b[n+m:]
		num, _, n := protowire.ConsumeTag(pkt)
		z, m := protowire.ConsumeBytes(pkt[n:])
		if num != fPacketCompressed || m < 0 {
			t.Fatalf("packet field %d, want compressed_packets", num)
		}
		out = append(out, z)
	}
	return out
}

func BenchmarkRecord(b *testing.B) {
	for _, o := range []Options{{}, {NoCompression: true}, {Format: JSON}} {
		name := o.Format.String()
		if name == "Format(0)" {
			name = "perfetto"
		}
		if o.NoCompression {
			name += "-raw"
		}
		b.Run(name, func(b *testing.B) {
			r, err := New(io.Discard, o)
			if err != nil {
				b.Fatal(err)
			}
			w := newWorkload(r, 1)
			b.ReportAllocs()
			for b.Loop() {
				w.kernel()
			}
			if err := r.Close(); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(r.Stats().Bytes)/float64(b.N), "B/kernel")
			b.ReportMetric(float64(r.Stats().Events)/float64(b.N), "events/kernel")
		})
	}
}
