package alloc

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// decodeShape describes a transformer decode run for decodeTrace.
type decodeShape struct {
	layers, hidden, heads, ffn, vocab int
	batch, prompt, steps              int
	kvChunk                           int // the KV cache grows by this many tokens at a time
}

// llama7B is a 7B-parameter decoder serving a batch of 8.
var llama7B = decodeShape{
	layers: 32, hidden: 4096, heads: 32, ffn: 11008, vocab: 32000,
	batch: 8, prompt: 500, steps: 64, kvChunk: 64,
}

// traceBuilder hands out dense IDs and records ops.
type traceBuilder struct {
	ops  []Op
	free []int
	next int
}

func (t *traceBuilder) alloc(size int) int {
	id := t.next
	if n := len(t.free); n > 0 {
		id, t.free = t.free[n-1], t.free[:n-1]
	} else {
		t.next++
	}
	t.ops = append(t.ops, Op{Alloc: true, Size: int64(size), ID: id})
	return id
}

func (t *traceBuilder) release(ids ...int) {
	for _, id := range ids {
		t.ops = append(t.ops, Op{ID: id})
		t.free = append(t.free, id)
	}
}

// decodeTrace returns the allocation trace of a decode run in the shape of
// what a framework does: weights allocated once; per step and layer the
// activations of attention and the MLP, each freed right after its last
// use; a KV cache per layer that is reallocated larger every kvChunk
// tokens; logits at the end of each step. Everything is freed at the end.
func decodeTrace(s decodeShape) []Op {
	var t traceBuilder
	const f16, f32 = 2, 4
	b, h := s.batch, s.hidden
	var weights []int
	weights = append(weights, t.alloc(s.vocab*h*f16)) // embedding
	for range s.layers {
		weights = append(weights,
			t.alloc(h*f16), t.alloc(3*h*h*f16), t.alloc(h*h*f16), // norm, qkv, o
			t.alloc(h*f16), t.alloc(2*h*s.ffn*f16), t.alloc(s.ffn*h*f16)) // norm, gate+up, down
	}
	weights = append(weights, t.alloc(h*s.vocab*f16)) // lm head
	kvCap := (s.prompt + s.kvChunk) / s.kvChunk * s.kvChunk
	kv := make([][2]int, s.layers)
	for l := range kv {
		kv[l] = [2]int{t.alloc(b * kvCap * h * f16), t.alloc(b * kvCap * h * f16)}
	}
	x := t.alloc(b * h * f16)
	for step := range s.steps {
		ctx := s.prompt + step + 1
		grow := ctx > kvCap
		if grow {
			kvCap += s.kvChunk
		}
		for l := range s.layers {
			if grow { // move this layer's cache into a larger one
				k, v := t.alloc(b*kvCap*h*f16), t.alloc(b*kvCap*h*f16)
				t.release(kv[l][0], kv[l][1])
				kv[l] = [2]int{k, v}
			}
			// Attention.
			rstd := t.alloc(b * f32)
			norm := t.alloc(b * h * f16)
			t.release(rstd)
			qkv := t.alloc(b * 3 * h * f16)
			t.release(norm)
			pos := t.alloc(b * 8)
			scores := t.alloc(b * s.heads * ctx * f32)
			t.release(pos)
			probs := t.alloc(b * s.heads * ctx * f32)
			t.release(scores)
			attn := t.alloc(b * h * f16)
			t.release(probs, qkv)
			o := t.alloc(b * h * f16)
			t.release(attn)
			x2 := t.alloc(b * h * f16)
			t.release(o, x)
			x = x2
			// MLP.
			rstd = t.alloc(b * f32)
			norm = t.alloc(b * h * f16)
			t.release(rstd)
			gate, up := t.alloc(b*s.ffn*f16), t.alloc(b*s.ffn*f16)
			t.release(norm)
			act := t.alloc(b * s.ffn * f16)
			t.release(gate, up)
			down := t.alloc(b * h * f16)
			t.release(act)
			x3 := t.alloc(b * h * f16)
			t.release(down, x)
			x = x3
		}
		logits := t.alloc(b * s.vocab * f32)
		tokens := t.alloc(b * 8)
		t.release(logits)
		next := t.alloc(b * h * f16) // embedding of the sampled tokens
		t.release(tokens, x)
		x = next
	}
	t.release(x)
	for _, p := range kv {
		t.release(p[0], p[1])
	}
	t.release(weights...)
	return t.ops
}

// tracePeak returns the largest sum of live sizes along trace.
func tracePeak(trace []Op) int64 {
	sizes := map[int]int64{}
	var live, peak int64
	for _, op := range trace {
		if op.Alloc {
			sizes[op.ID] = op.Size
			live += op.Size
			peak = max(peak, live)
		} else {
			live -= sizes[op.ID]
		}
	}
	return peak
}

func TestReplayDecodeTrace(t *testing.T) {
	shape := llama7B
	shape.layers, shape.steps = 8, 80 // the KV cache grows twice
	trace := decodeTrace(shape)
	allocs := 0
	for _, op := range trace {
		if op.Alloc {
			allocs++
		}
	}
	for _, al := range allocators(t, 8<<30) {
		t.Run(al.name, func(t *testing.T) {
			rs, err := Replay(al.a, trace)
			if err != nil {
				t.Fatal(err)
			}
			if rs.Ops != len(trace) || rs.Allocs != allocs || rs.Frees != allocs {
				t.Errorf("ops %d allocs %d frees %d; trace has %d ops, %d allocs", rs.Ops, rs.Allocs, rs.Frees, len(trace), allocs)
			}
			if rs.Final.InUse != 0 || rs.PeakInUse != tracePeak(trace) || rs.PeakReserved < rs.PeakInUse {
				t.Errorf("in use %d, peak %d (trace peak %d), peak reserved %d",
					rs.Final.InUse, rs.PeakInUse, tracePeak(trace), rs.PeakReserved)
			}
			if rs.Elapsed <= 0 || rs.NsPerOp <= 0 || rs.MaxFragmentation < rs.Fragmentation {
				t.Errorf("elapsed %v, ns/op %v, fragmentation mean %v max %v",
					rs.Elapsed, rs.NsPerOp, rs.Fragmentation, rs.MaxFragmentation)
			}
			if c, ok := al.a.(interface{ check() error }); ok {
				if err := c.check(); err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("%d ops, peak in use %d MiB, peak reserved %d MiB, fragmentation mean %.3f max %.3f",
				rs.Ops, rs.PeakInUse>>20, rs.PeakReserved>>20, rs.Fragmentation, rs.MaxFragmentation)
		})
	}
}

func TestReplayErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		trace []Op
		want  error
		ops   int // ops done before the error
	}{
		{"negative ID", []Op{{Alloc: true, Size: 1, ID: -1}}, ErrTrace, 0},
		{"sparse ID", []Op{{Alloc: true, Size: 10, ID: 1 << 40}}, ErrTrace, 0},
		{"free of unknown ID", []Op{{Alloc: true, Size: 1, ID: 0}, {ID: 1}}, ErrTrace, 1},
		{"double free", []Op{{Alloc: true, Size: 1, ID: 0}, {ID: 0}, {ID: 0}}, ErrTrace, 2},
		{"alloc of live ID", []Op{{Alloc: true, Size: 1, ID: 0}, {Alloc: true, Size: 1, ID: 0}}, ErrTrace, 1},
		{"out of memory", []Op{{Alloc: true, Size: 1 << 20, ID: 0}, {Alloc: true, Size: 1 << 30, ID: 1}}, ErrOutOfMemory, 1},
		{"bad size", []Op{{Alloc: true, Size: 0, ID: 0}}, ErrBadSize, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, al := range allocators(t, 64<<20) {
				rs, err := Replay(al.a, tc.trace)
				if !errors.Is(err, tc.want) || rs.Ops != tc.ops {
					t.Errorf("%s: %d ops, %v; want %d ops, %v", al.name, rs.Ops, err, tc.ops, tc.want)
				}
			}
		})
	}
}

func TestMeasure(t *testing.T) {
	for _, al := range allocators(t, 1<<30) {
		keep, err := al.a.Alloc(3000)
		if err != nil {
			t.Fatal(err)
		}
		before := al.a.Stats()
		d, err := Measure(al.a, 256<<10, 5)
		if err != nil || d <= 0 {
			t.Fatalf("%s: Measure = %v, %v", al.name, d, err)
		}
		after := al.a.Stats()
		if after.InUse != before.InUse || after.Allocs == before.Allocs || after.Allocs-before.Allocs != after.Frees-before.Frees {
			t.Errorf("%s: stats %+v -> %+v", al.name, before, after)
		}
		if _, err := Measure(al.a, 2<<30, 5); !errors.Is(err, ErrOutOfMemory) {
			t.Errorf("%s: Measure of more than the capacity: %v", al.name, err)
		}
		if err := al.a.Free(keep); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkDecodeTrace replays the 7B decode trace and reports the measured
// host time per trace op, the peak reserved memory and the mean
// fragmentation. A cold replay runs on a fresh allocator, so it includes
// first touches of the allocator's own metadata and, for caching, creating
// its segments; a warm replay runs the trace a second time on the same
// allocator (the trace frees everything it allocates), the steady state of
// a long-lived device. The compare sub-benchmarks report caching time per
// op over multilevel time per op.
func BenchmarkDecodeTrace(b *testing.B) {
	trace := decodeTrace(llama7B)
	replay := func(b *testing.B, name string, warm bool) ReplayStats {
		b.StopTimer()
		a := newBenchAllocator(b, name)
		if warm {
			if _, err := Replay(a, trace); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC() // collect earlier garbage outside the replay
		b.StartTimer()
		rs, err := Replay(a, trace)
		if err != nil {
			b.Fatal(err)
		}
		return rs
	}
	for _, mode := range []string{"cold", "warm"} {
		warm := mode == "warm"
		for _, name := range []string{"multilevel", "caching"} {
			b.Run(name+"/"+mode, func(b *testing.B) {
				var rs ReplayStats
				for b.Loop() {
					rs = replay(b, name, warm)
				}
				b.ReportMetric(rs.NsPerOp, "ns/allocop")
				b.ReportMetric(float64(rs.PeakReserved>>20), "MiB-peak-reserved")
				b.ReportMetric(rs.Fragmentation, "frag-mean")
			})
		}
		b.Run("compare/"+mode, func(b *testing.B) {
			var ml, ca float64
			n := 0
			for b.Loop() {
				ml += replay(b, "multilevel", warm).NsPerOp
				ca += replay(b, "caching", warm).NsPerOp
				n++
			}
			b.ReportMetric(ml/float64(n), "ns/allocop-multilevel")
			b.ReportMetric(ca/float64(n), "ns/allocop-caching")
			b.ReportMetric(ca/ml, "caching/multilevel")
		})
	}
}

// TestMeasureAll checks that every point is sampled n times on its own
// allocator, which ends as it began, and that a failing point names its
// size.
func TestMeasureAll(t *testing.T) {
	als := allocators(t, 1<<30)
	points := make([]Point, len(als))
	before := make([]Stats, len(als))
	for i, al := range als {
		points[i] = Point{al.a, int64(1000 << (4 * i))}
		before[i] = al.a.Stats()
	}
	const n = 7
	ds, err := MeasureAll(points, n)
	if err != nil || len(ds) != len(points) {
		t.Fatalf("MeasureAll = %v, %v", ds, err)
	}
	for i, al := range als {
		after := al.a.Stats()
		if ds[i] <= 0 || after.InUse != before[i].InUse || after.Allocs-before[i].Allocs < n ||
			after.Allocs-before[i].Allocs != after.Frees-before[i].Frees {
			t.Errorf("%s: %v per pair, stats %+v -> %+v", al.name, ds[i], before[i], after)
		}
	}
	points = append(points, Point{als[0].a, 2 << 30})
	if _, err := MeasureAll(points, n); !errors.Is(err, ErrOutOfMemory) || !strings.Contains(err.Error(), "2147483648-byte") {
		t.Errorf("MeasureAll with a point over the capacity: %v", err)
	}
}

// MeasureAll samples several allocators in interleaved rounds, so that the
// ratio of their times holds on a shared machine: here the multilevel
// allocator's 1 GiB pair against its 1 KiB pair (its flatness).
func ExampleMeasureAll() {
	var points []Point
	for _, size := range []int64{1 << 10, 1 << 30} {
		m, err := NewMultilevel(4 << 30)
		if err != nil {
			panic(err)
		}
		points = append(points, Point{A: m, Size: size})
	}
	d, err := MeasureAll(points, 20)
	if err != nil {
		panic(err)
	}
	flatness := float64(d[1]) / float64(d[0])
	fmt.Println(len(d), flatness > 0)
	// Output: 2 true
}

// TestNilAllocatorIsAnError: Replay, Measure and MeasureAll of a nil
// allocator fail instead of panicking.
func TestNilAllocatorIsAnError(t *testing.T) {
	if _, err := Replay(nil, []Op{{ID: 0, Size: 64}}); err == nil {
		t.Error("Replay(nil) = nil error")
	}
	if _, err := Measure(nil, 64, 1); err == nil {
		t.Error("Measure(nil) = nil error")
	}
	if _, err := MeasureAll([]Point{{A: nil, Size: 64}}, 1); err == nil {
		t.Error("MeasureAll of a nil allocator = nil error")
	}
}
