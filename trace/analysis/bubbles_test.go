package analysis

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipert/pipert/trace"
)

func TestBubblesByHand(t *testing.T) {
	device := []Interval{{50, 60}, {10, 20}, {25, 30}, {30, 40}, {70, 80}, {12, 15}}
	stages := []Busy{
		{Name: "infer", Intervals: []Interval{{0, 12}, {20, 23}}},
		{Name: "launch", Intervals: []Interval{{5, 9}, {21, 26}, {40, 52}}},
	}
	want := []Bubble{
		{Interval{0, 10}, "infer", 10},   // infer 10, launch 4
		{Interval{20, 25}, "launch", 4},  // infer 3, launch 4
		{Interval{40, 50}, "launch", 10}, // launch only
		{Interval{60, 70}, "", 0},        // nobody busy
	}
	if got := Bubbles(device, stages); !slices.Equal(got, want) {
		t.Fatalf("Bubbles = %+v, want %+v", got, want)
	}
	// A tie goes to the stage listed first.
	tie := Bubbles([]Interval{{10, 20}}, []Busy{{"a", []Interval{{0, 5}}}, {"b", []Interval{{5, 10}}}})
	if len(tie) != 1 || tie[0] != (Bubble{Interval{0, 10}, "a", 5}) {
		t.Fatalf("tie: %+v", tie)
	}
	if got := Bubbles(nil, stages); got != nil {
		t.Fatalf("no device intervals: %+v", got)
	}
}

// TestBubblesMatchesBruteForce compares with a count over every nanosecond.
func TestBubblesMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	ivs := func(n int) []Interval {
		out := make([]Interval, n)
		for i := range out {
			s := rng.Int64N(200)
			out[i] = Interval{s, s + rng.Int64N(15)}
		}
		return out
	}
	for trial := range 2000 {
		device := ivs(1 + rng.IntN(12))
		stages := []Busy{{"a", ivs(rng.IntN(10))}, {"b", ivs(rng.IntN(10))}, {"c", ivs(rng.IntN(10))}}
		covered := func(list []Interval, t int64) bool {
			for _, iv := range list {
				if iv.Start <= t && t < iv.End {
					return true
				}
			}
			return false
		}
		from, to := int64(1<<62), int64(-1)
		for _, iv := range device {
			if iv.Len() > 0 {
				from, to = min(from, iv.Start), max(to, iv.End)
			}
		}
		for _, s := range stages {
			for _, iv := range s.Intervals {
				if iv.Len() > 0 {
					from = min(from, iv.Start)
				}
			}
		}
		var want []Bubble
		for ts := from; ts < to; ts++ {
			if covered(device, ts) {
				continue
			}
			if n := len(want); n > 0 && want[n-1].End == ts {
				want[n-1].End++
			} else {
				want = append(want, Bubble{Interval: Interval{ts, ts + 1}})
			}
		}
		for i := range want {
			b := &want[i]
			for _, s := range stages {
				var busy int64
				for ts := b.Start; ts < b.End; ts++ {
					if covered(s.Intervals, ts) {
						busy++
					}
				}
				if busy > b.BottleneckBusy {
					b.Bottleneck, b.BottleneckBusy = s.Name, busy
				}
			}
		}
		if got := Bubbles(device, stages); !slices.Equal(got, want) {
			t.Fatalf("trial %d: device %v stages %v:\nBubbles = %+v\nwant      %+v", trial, device, stages, got, want)
		}
	}
}

func TestFromTrace(t *testing.T) {
	var buf bytes.Buffer
	r, err := trace.New(&buf, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	infer := r.Track("infer", trace.SliceTrack, trace.Host)
	launch := r.Track("launch", trace.SliceTrack, trace.Host)
	stream := r.Track("stream 0", trace.SliceTrack, trace.Device)
	k := r.Intern("k")
	infer.Slice(0, 10, k)
	infer.Slice(2, 3, k) // nested: not counted twice
	launch.Slice(10, 5, k)
	stream.Slice(17, 10, k)
	infer.Slice(10, 20, k)
	launch.Slice(30, 5, k)
	stream.Slice(37, 10, k)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	p, err := trace.Parse(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	dev, busy, err := FromTrace(p, "stream 0", "infer", "launch")
	if err != nil {
		t.Fatal(err)
	}
	if want := []Interval{{17, 27}, {37, 47}}; !slices.Equal(dev, want) {
		t.Fatalf("device %v, want %v", dev, want)
	}
	got := Bubbles(dev, busy)
	want := []Bubble{{Interval{0, 17}, "infer", 17}, {Interval{27, 37}, "launch", 5}}
	if !slices.Equal(got, want) {
		t.Fatalf("Bubbles = %+v, want %+v", got, want)
	}
	if _, _, err := FromTrace(p, "stream 9"); err == nil {
		t.Fatal("FromTrace with a missing track succeeded")
	}
}

// TestFromNilTrace: a nil trace has no device track: an error, not a
// nil dereference.
func TestFromNilTrace(t *testing.T) {
	if _, _, err := FromTrace(nil, "dev", "infer"); err == nil {
		t.Error("FromTrace(nil) gave no error")
	}
}
