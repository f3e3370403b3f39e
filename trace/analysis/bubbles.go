package analysis

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/pipert/pipert/trace"
)

// Interval is a half-open time interval [Start, End) in ns.
type Interval struct {
	Start, End int64
}

// Len returns the interval's length.
func (iv Interval) Len() int64 { return iv.End - iv.Start }

// Busy is when one host stage's worker was busy.
type Busy struct {
	Name      string
	Intervals []Interval
}

// Bubble is an interval in which the device was idle, with the host stage
// that was busy for the longest part of it: the stage the device waited on.
type Bubble struct {
	Interval
	// Bottleneck is the name of the busiest stage during the bubble; empty
	// when no stage was busy in it. Ties go to the stage listed first.
	Bottleneck string
	// BottleneckBusy is how long the bottleneck was busy within the bubble.
	BottleneckBusy int64
}

// Bubbles lists the device's idle intervals, in time order, each with its
// bottleneck stage. The device is considered from the earliest start of any
// interval given (device or host: a device waiting for the first kernel is
// idle) to the end of its last busy interval. Intervals may be given in any
// order and may overlap; empty ones are ignored.
func Bubbles(device []Interval, stages []Busy) []Bubble {
	dev := merge(device)
	if len(dev) == 0 {
		return nil
	}
	from := dev[0].Start
	merged := make([][]Interval, len(stages))
	for i, st := range stages {
		merged[i] = merge(st.Intervals)
		if len(merged[i]) > 0 {
			from = min(from, merged[i][0].Start)
		}
	}
	var out []Bubble
	prev := from
	for _, d := range dev {
		if d.Start > prev {
			out = append(out, Bubble{Interval: Interval{prev, d.Start}})
		}
		prev = max(prev, d.End)
	}
	for i := range out {
		b := &out[i]
		for s, ivs := range merged {
			if busy := overlap(ivs, b.Interval); busy > b.BottleneckBusy {
				b.Bottleneck, b.BottleneckBusy = stages[s].Name, busy
			}
		}
	}
	return out
}

// merge returns the union of the non-empty intervals, sorted and disjoint.
func merge(ivs []Interval) []Interval {
	out := make([]Interval, 0, len(ivs))
	for _, iv := range ivs {
		if iv.End > iv.Start {
			out = append(out, iv)
		}
	}
	slices.SortFunc(out, func(a, b Interval) int { return cmp.Compare(a.Start, b.Start) })
	n := 0
	for _, iv := range out {
		if n > 0 && iv.Start <= out[n-1].End {
			out[n-1].End = max(out[n-1].End, iv.End)
			continue
		}
		out[n] = iv
		n++
	}
	return out[:n]
}

// overlap returns how much of w the sorted disjoint intervals cover.
func overlap(ivs []Interval, w Interval) int64 {
	i, _ := slices.BinarySearchFunc(ivs, w.Start, func(iv Interval, t int64) int {
		if iv.End <= t {
			return -1
		}
		return 1
	})
	var sum int64
	for ; i < len(ivs) && ivs[i].Start < w.End; i++ {
		sum += min(ivs[i].End, w.End) - max(ivs[i].Start, w.Start)
	}
	return sum
}

// FromTrace extracts the busy intervals of a device track and of host stage
// tracks, by track name, from a parsed trace: the top-level slices of each.
// The stages come back in the order named.
func FromTrace(p *trace.Parsed, device string, stages ...string) ([]Interval, []Busy, error) {
	idx := func(name string) (int, error) {
		i, ok := p.TrackIndex(name)
		if !ok {
			return 0, fmt.Errorf("analysis: trace has no track %q", name)
		}
		return i, nil
	}
	di, err := idx(device)
	if err != nil {
		return nil, nil, err
	}
	want := map[int]int{} // track → position in stages
	for n, name := range stages {
		i, err := idx(name)
		if err != nil {
			return nil, nil, err
		}
		want[i] = n
	}
	var dev []Interval
	busy := make([]Busy, len(stages))
	for n, name := range stages {
		busy[n].Name = name
	}
	for _, s := range p.Slices() {
		if s.Depth != 0 {
			continue
		}
		iv := Interval{s.Start, s.End}
		if s.Track == di {
			dev = append(dev, iv)
		}
		if n, ok := want[s.Track]; ok {
			busy[n].Intervals = append(busy[n].Intervals, iv)
		}
	}
	return dev, busy, nil
}
