package trace

import (
	"cmp"
	"fmt"
	"slices"
)

// Parsed is a trace read back from a file, in either format: its tracks and
// its events in the order the file holds them. It is the common model the
// readers produce and Validate checks.
type Parsed struct {
	Format Format
	Tracks []TrackInfo
	Events []Event
}

// TrackInfo describes one track of a parsed trace.
type TrackInfo struct {
	Name  string
	Kind  TrackKind
	Group string // the process the track belongs to: "host", "device", ...
}

// Event is one event of a parsed trace. A complete slice appears as EvSlice
// in the JSON format and as an EvBegin, EvEnd pair in the Perfetto format.
// Flow events follow the event of the slice they are attached to, with its
// timestamp. In the Perfetto format, which marks only the terminating end of
// a flow, the earliest other occurrence of a flow id is its EvFlowBegin and
// the rest are EvFlowStep.
type Event struct {
	Kind  EventKind
	Track int   // index into Parsed.Tracks
	TS    int64 // ns
	Dur   int64 // EvSlice
	Name  string
	Int   int64   // EvCounter
	Value float64 // EvCounter (as a float) and EvCounterFloat; NaN if the file held no number
	Flow  uint64  // flow kinds
}

// Slice is a slice reconstructed from a parsed trace's events.
type Slice struct {
	Track      int
	Name       string
	Start, End int64 // ns
	Depth      int   // 0 for a top-level slice
}

// Dur returns the slice's duration.
func (s Slice) Dur() int64 { return s.End - s.Start }

// TrackIndex returns the index of the first track named name (a nil
// trace has none).
func (p *Parsed) TrackIndex(name string) (int, bool) {
	if p == nil {
		return -1, false
	}
	for i, t := range p.Tracks {
		if t.Name == name {
			return i, true
		}
	}
	return -1, false
}

// Slices reconstructs the slices of every track, sorted by track, then start,
// then outermost first. Begins are matched with ends as Validate matches
// them; unmatched ones are left out. A nil trace has none.
func (p *Parsed) Slices() []Slice {
	if p == nil {
		return nil
	}
	ss, _ := p.slices()
	return ss
}

// sliceProblem is a defect found while reconstructing slices.
type sliceProblem struct {
	kind   ProblemKind
	track  int
	ts     int64
	detail string
}

// slices matches begins with ends on every track. An end that names its
// slice closes the innermost open slice of that name; an unnamed end closes
// the innermost open slice. Depth is assigned from the intervals; a slice
// that starts inside another and ends after it is a partial overlap.
func (p *Parsed) slices() ([]Slice, []sliceProblem) {
	var out []Slice
	var probs []sliceProblem
	type open struct {
		name string
		ts   int64
	}
	stacks := make([][]open, len(p.Tracks))
	for _, ev := range p.Events {
		switch ev.Kind {
		case EvBegin:
			stacks[ev.Track] = append(stacks[ev.Track], open{ev.Name, ev.TS})
		case EvSlice:
			out = append(out, Slice{Track: ev.Track, Name: ev.Name, Start: ev.TS, End: ev.TS + ev.Dur})
		case EvEnd:
			st := stacks[ev.Track]
			i := len(st) - 1
			if ev.Name != "" {
				for i >= 0 && st[i].name != ev.Name {
					i--
				}
			}
			if i < 0 {
				probs = append(probs, sliceProblem{UnmatchedEnd, ev.Track, ev.TS, fmt.Sprintf("end %q closes no open slice", ev.Name)})
				continue
			}
			out = append(out, Slice{Track: ev.Track, Name: st[i].name, Start: st[i].ts, End: ev.TS})
			stacks[ev.Track] = append(st[:i], st[i+1:]...)
		}
	}
	for tr, st := range stacks {
		for _, o := range st {
			probs = append(probs, sliceProblem{Unterminated, tr, o.ts, fmt.Sprintf("slice %q never ends", o.name)})
		}
	}
	slices.SortStableFunc(out, func(a, b Slice) int {
		if c := cmp.Compare(a.Track, b.Track); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Start, b.Start); c != 0 {
			return c
		}
		return cmp.Compare(b.End, a.End)
	})
	var stack []int // indices of the enclosing slices, innermost last
	for i := range out {
		if i == 0 || out[i].Track != out[i-1].Track {
			stack = stack[:0]
		}
		for len(stack) > 0 && out[stack[len(stack)-1]].End <= out[i].Start {
			stack = stack[:len(stack)-1]
		}
		if n := len(stack); n > 0 && out[i].End > out[stack[n-1]].End {
			o := out[stack[n-1]]
			probs = append(probs, sliceProblem{PartialOverlap, out[i].Track, out[i].Start,
				fmt.Sprintf("%q [%d, %d] overlaps %q [%d, %d] without nesting", out[i].Name, out[i].Start, out[i].End, o.Name, o.Start, o.End)})
		}
		out[i].Depth = len(stack)
		stack = append(stack, i)
	}
	return out, probs
}
