package trace

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// ProblemKind classifies what Validate found wrong with a trace.
type ProblemKind uint8

// Problem kinds. The zero ProblemKind is invalid.
const (
	Backwards      ProblemKind = iota + 1 // a timestamp earlier than the one before it on its track
	PartialOverlap                        // two slices on one track overlap without nesting
	UnmatchedEnd                          // an end with no open slice to close
	Unterminated                          // a slice that never ends
	NegativeDur                           // a complete slice with a negative duration
	DanglingFlow                          // a flow without a begin or without a terminating end
	UnboundFlow                           // a flow event outside every slice of its track
	BadCounter                            // a counter value that is not a finite number
	WrongTrack                            // an event on the wrong kind of track
)

var problemNames = [...]string{
	Backwards:      "timestamp goes backwards",
	PartialOverlap: "partial overlap",
	UnmatchedEnd:   "unmatched end",
	Unterminated:   "unterminated slice",
	NegativeDur:    "negative duration",
	DanglingFlow:   "dangling flow",
	UnboundFlow:    "flow not bound to a slice",
	BadCounter:     "counter value not a finite number",
	WrongTrack:     "event on the wrong kind of track",
}

func (k ProblemKind) String() string {
	if k > 0 && int(k) < len(problemNames) {
		return problemNames[k]
	}
	return fmt.Sprintf("ProblemKind(%d)", k)
}

// Problem is one invariant a trace breaks.
type Problem struct {
	Kind   ProblemKind
	Track  string // the track's name; empty for a flow's problem
	TS     int64  // where on the track, in ns
	Detail string
}

func (p Problem) String() string {
	if p.Track == "" {
		return fmt.Sprintf("%v at %d ns: %s", p.Kind, p.TS, p.Detail)
	}
	return fmt.Sprintf("%v on track %q at %d ns: %s", p.Kind, p.Track, p.TS, p.Detail)
}

// ValidationError lists the problems Validate found, in the order of the
// checks and, within a check, of the file.
type ValidationError struct {
	Problems []Problem
}

func (e *ValidationError) Error() string {
	if e == nil {
		return "<nil>"
	}
	const show = 8
	var b strings.Builder
	fmt.Fprintf(&b, "trace: %d problem(s): ", len(e.Problems))
	for i, p := range e.Problems {
		if i == show {
			fmt.Fprintf(&b, "; and %d more", len(e.Problems)-show)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// Has reports whether the error lists a problem of kind k.
func (e *ValidationError) Has(k ProblemKind) bool {
	if e == nil {
		return false
	}
	for _, p := range e.Problems {
		if p.Kind == k {
			return true
		}
	}
	return false
}

// Validate checks the invariants of a trace and returns a *ValidationError
// listing every problem, or nil:
//
//   - on each track, timestamps never go backwards in the order written
//     (a complete slice counts at its start);
//   - each event is on the kind of track its kind belongs to;
//   - slices on one track nest or follow each other, never partially
//     overlap; every end closes an open slice and every slice ends;
//   - every flow has one begin and one terminating end, no earlier than the
//     begin, on any tracks, and each flow event lies inside a slice of its
//     track;
//   - counter values are finite numbers.
//
// A nil trace is an error: there is nothing to check.
func Validate(p *Parsed) error {
	if p == nil {
		return errors.New("trace: Validate of a nil trace")
	}
	var probs []Problem
	add := func(k ProblemKind, track int, ts int64, format string, args ...any) {
		pr := Problem{Kind: k, TS: ts, Detail: fmt.Sprintf(format, args...)}
		if track >= 0 {
			pr.Track = p.Tracks[track].Name
		}
		probs = append(probs, pr)
	}

	last := make([]int64, len(p.Tracks))
	seen := make([]bool, len(p.Tracks))
	for _, ev := range p.Events {
		tr := ev.Track
		if seen[tr] && ev.TS < last[tr] {
			add(Backwards, tr, ev.TS, "%v at %d after an event at %d", ev.Kind, ev.TS, last[tr])
		}
		if !seen[tr] || ev.TS > last[tr] {
			last[tr], seen[tr] = ev.TS, true
		}
		if want := specs[ev.Kind].Track; p.Tracks[tr].Kind != want {
			add(WrongTrack, tr, ev.TS, "%v event on a %v track", ev.Kind, p.Tracks[tr].Kind)
		}
		switch ev.Kind {
		case EvSlice:
			if ev.Dur < 0 {
				add(NegativeDur, tr, ev.TS, "slice %q lasts %d ns", ev.Name, ev.Dur)
			}
		case EvCounter, EvCounterFloat:
			if math.IsNaN(ev.Value) || math.IsInf(ev.Value, 0) {
				add(BadCounter, tr, ev.TS, "value %v", ev.Value)
			}
		}
	}

	ss, sprobs := p.slices()
	for _, sp := range sprobs {
		add(sp.kind, sp.track, sp.ts, "%s", sp.detail)
	}

	probs = append(probs, checkFlows(p, ss)...)
	if len(probs) > 0 {
		return &ValidationError{Problems: probs}
	}
	return nil
}

// checkFlows checks that every flow has exactly one begin and one
// terminating end, the end no earlier than the begin, and that every flow
// event lies within a slice of its track. ss is sorted by track and start.
func checkFlows(p *Parsed, ss []Slice) []Problem {
	type flow struct {
		begins, ends   int
		beginTS, endTS int64
		firstTS        int64
		order          int
	}
	flows := map[uint64]*flow{}
	var probs []Problem

	// Per track: slices by start, and the running maximum of their ends, so
	// that "is ts inside some slice" is one binary search.
	type span struct{ lo, hi int } // ss[lo:hi] is the track's slices
	spans := make([]span, len(p.Tracks))
	maxEnd := make([]int64, len(ss))
	for i, s := range ss {
		if i == 0 || ss[i-1].Track != s.Track {
			spans[s.Track].lo = i
			maxEnd[i] = s.End
		} else {
			maxEnd[i] = max(maxEnd[i-1], s.End)
		}
		spans[s.Track].hi = i + 1
	}
	inside := func(track int, ts int64) bool {
		sp := spans[track]
		if sp.hi == 0 {
			return false
		}
		// The last slice of the track starting at or before ts.
		j, _ := slices.BinarySearchFunc(ss[sp.lo:sp.hi], ts, func(s Slice, t int64) int {
			if s.Start <= t {
				return -1
			}
			return 1
		})
		return j > 0 && maxEnd[sp.lo+j-1] >= ts
	}

	for _, ev := range p.Events {
		if !ev.Kind.IsFlow() {
			continue
		}
		f := flows[ev.Flow]
		if f == nil {
			f = &flow{firstTS: ev.TS, order: len(flows)}
			flows[ev.Flow] = f
		}
		switch ev.Kind {
		case EvFlowBegin:
			f.begins++
			f.beginTS = ev.TS
		case EvFlowEnd:
			f.ends++
			f.endTS = ev.TS
		}
		if !inside(ev.Track, ev.TS) {
			probs = append(probs, Problem{Kind: UnboundFlow, Track: p.Tracks[ev.Track].Name, TS: ev.TS,
				Detail: fmt.Sprintf("%v of flow %d is inside no slice", ev.Kind, ev.Flow)})
		}
	}
	ids := make([]uint64, 0, len(flows))
	for id := range flows {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b uint64) int { return cmp.Compare(flows[a].order, flows[b].order) })
	for _, id := range ids {
		f := flows[id]
		switch {
		case f.begins == 0:
			probs = append(probs, Problem{Kind: DanglingFlow, TS: f.firstTS, Detail: fmt.Sprintf("flow %d has no begin", id)})
		case f.begins > 1:
			probs = append(probs, Problem{Kind: DanglingFlow, TS: f.firstTS, Detail: fmt.Sprintf("flow %d has %d begins", id, f.begins)})
		}
		switch {
		case f.ends == 0:
			probs = append(probs, Problem{Kind: DanglingFlow, TS: f.firstTS, Detail: fmt.Sprintf("flow %d has no terminating end", id)})
		case f.ends > 1:
			probs = append(probs, Problem{Kind: DanglingFlow, TS: f.firstTS, Detail: fmt.Sprintf("flow %d has %d terminating ends", id, f.ends)})
		}
		if f.begins == 1 && f.ends == 1 && f.endTS < f.beginTS {
			probs = append(probs, Problem{Kind: DanglingFlow, TS: f.endTS, Detail: fmt.Sprintf("flow %d ends at %d before it begins at %d", id, f.endTS, f.beginTS)})
		}
	}
	return probs
}
