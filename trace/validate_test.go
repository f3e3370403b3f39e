package trace

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// expectProblems checks that err is a *ValidationError whose problems are of
// exactly the given kinds, in any order and number, and that its message
// names each of them.
func expectProblems(t *testing.T, err error, kinds ...ProblemKind) {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Validate = %v, want a *ValidationError with %v", err, kinds)
	}
	var got []ProblemKind
	for _, p := range ve.Problems {
		if !slices.Contains(got, p.Kind) {
			got = append(got, p.Kind)
		}
	}
	slices.Sort(got)
	want := slices.Clone(kinds)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("problems %v, want kinds %v", ve.Problems, want)
	}
	for _, k := range kinds {
		if !ve.Has(k) || !strings.Contains(err.Error(), k.String()) {
			t.Errorf("error %q does not name %q", err, k)
		}
	}
}

// TestValidateRecorded records broken traces through the Recorder, writes
// them in each format, reads them back and expects Validate to name the
// problem.
func TestValidateRecorded(t *testing.T) {
	// The Perfetto format cannot express an overlap: the ends come out of
	// time order, and Validate reports that too.
	overlap := map[Format][]ProblemKind{Perfetto: {PartialOverlap, Backwards}, JSON: {PartialOverlap}}
	cases := []struct {
		name string
		rec  func(r *Recorder, s, c *Track, n Name)
		want any // []ProblemKind, or map[Format][]ProblemKind
	}{
		{"partial overlap of complete slices", func(r *Recorder, s, c *Track, n Name) {
			s.Slice(0, 10, n)
			s.Slice(5, 10, r.Intern("late"))
		}, overlap},
		{"partial overlap of equally named slices", func(r *Recorder, s, c *Track, n Name) {
			s.Slice(0, 10, n)
			s.Slice(5, 10, n)
		}, overlap},
		{"complete slice outliving its Begin/End parent", func(r *Recorder, s, c *Track, n Name) {
			s.Begin(0, n)
			s.Slice(5, 10, n)
			s.End(10)
		}, overlap},
		{"flow without end", func(r *Recorder, s, c *Track, n Name) {
			s.Slice(0, 10, n)
			s.FlowBegin(7)
		}, []ProblemKind{DanglingFlow}},
		{"flow without begin", func(r *Recorder, s, c *Track, n Name) {
			s.Slice(0, 10, n)
			s.FlowEnd(7)
		}, []ProblemKind{DanglingFlow}},
		{"timestamps backwards", func(r *Recorder, s, c *Track, n Name) {
			s.Slice(100, 10, n)
			s.Slice(50, 10, n)
		}, []ProblemKind{Backwards}},
		{"counter backwards", func(r *Recorder, s, c *Track, n Name) {
			c.Counter(100, 1)
			c.Counter(99, 2)
		}, []ProblemKind{Backwards}},
		{"NaN counter", func(r *Recorder, s, c *Track, n Name) {
			c.CounterFloat(1, 0.5)
			c.CounterFloat(2, math.NaN())
		}, []ProblemKind{BadCounter}},
		{"infinite counter", func(r *Recorder, s, c *Track, n Name) {
			c.CounterFloat(1, math.Inf(-1))
		}, []ProblemKind{BadCounter}},
		{"slice never ends", func(r *Recorder, s, c *Track, n Name) {
			s.Begin(1, n)
		}, []ProblemKind{Unterminated}},
		{"end without begin", func(r *Recorder, s, c *Track, n Name) {
			s.Slice(1, 1, n)
			s.End(5)
		}, []ProblemKind{UnmatchedEnd}},
	}
	both(t, func(t *testing.T, opts Options) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				p := roundTrip(t, opts, func(r *Recorder) {
					s := r.Track("s", SliceTrack, Host)
					c := r.Track("c", CounterTrack, Device)
					tc.rec(r, s, c, r.Intern("n"))
				})
				want, ok := tc.want.([]ProblemKind)
				if !ok {
					want = tc.want.(map[Format][]ProblemKind)[opts.Format]
				}
				expectProblems(t, Validate(p), want...)
			})
		}
	})
}

// TestValidateConstructed builds models directly, for problems no writer in
// this package produces.
func TestValidateConstructed(t *testing.T) {
	tracks := []TrackInfo{{"s", SliceTrack, "host"}, {"c", CounterTrack, "host"}, {"d", SliceTrack, "device"}}
	cases := []struct {
		name   string
		events []Event
		want   []ProblemKind
	}{
		{"valid: nested, following, zero-length, cross-track flow", []Event{
			{Kind: EvSlice, Track: 0, TS: 0, Dur: 10, Name: "a"},
			{Kind: EvFlowBegin, Track: 0, TS: 0, Flow: 1},
			{Kind: EvSlice, Track: 0, TS: 0, Dur: 4, Name: "b"},
			{Kind: EvSlice, Track: 0, TS: 4, Dur: 0, Name: "c"},
			{Kind: EvBegin, Track: 0, TS: 4, Name: "d"},
			{Kind: EvEnd, Track: 0, TS: 10},
			{Kind: EvSlice, Track: 0, TS: 10, Dur: 5, Name: "e"},
			{Kind: EvCounter, Track: 1, TS: 3, Int: 1, Value: 1},
			{Kind: EvSlice, Track: 2, TS: 20, Dur: 5, Name: "k"},
			{Kind: EvFlowEnd, Track: 2, TS: 20, Flow: 1},
		}, nil},
		{"partial overlap", []Event{
			{Kind: EvSlice, Track: 0, TS: 0, Dur: 10, Name: "a"},
			{Kind: EvSlice, Track: 0, TS: 2, Dur: 2, Name: "b"},
			{Kind: EvSlice, Track: 0, TS: 3, Dur: 2, Name: "c"},
		}, []ProblemKind{PartialOverlap}},
		{"named end closes an outer slice", []Event{
			{Kind: EvBegin, Track: 0, TS: 0, Name: "a"},
			{Kind: EvBegin, Track: 0, TS: 5, Name: "b"},
			{Kind: EvEnd, Track: 0, TS: 10, Name: "a"},
			{Kind: EvEnd, Track: 0, TS: 15, Name: "b"},
		}, []ProblemKind{PartialOverlap}},
		{"slice on a counter track", []Event{
			{Kind: EvSlice, Track: 1, TS: 0, Dur: 1, Name: "a"},
		}, []ProblemKind{WrongTrack}},
		{"counter on a slice track", []Event{
			{Kind: EvCounter, Track: 0, TS: 0, Int: 1, Value: 1},
		}, []ProblemKind{WrongTrack}},
		{"negative duration", []Event{
			{Kind: EvSlice, Track: 0, TS: 5, Dur: -1, Name: "a"},
		}, []ProblemKind{NegativeDur}},
		{"flow outside every slice", []Event{
			{Kind: EvSlice, Track: 0, TS: 0, Dur: 5, Name: "a"},
			{Kind: EvFlowBegin, Track: 0, TS: 6, Flow: 3},
			{Kind: EvSlice, Track: 2, TS: 7, Dur: 5, Name: "k"},
			{Kind: EvFlowEnd, Track: 2, TS: 7, Flow: 3},
		}, []ProblemKind{UnboundFlow}},
		{"flow ends before it begins", []Event{
			{Kind: EvSlice, Track: 2, TS: 0, Dur: 5, Name: "k"},
			{Kind: EvFlowEnd, Track: 2, TS: 0, Flow: 3},
			{Kind: EvSlice, Track: 0, TS: 7, Dur: 5, Name: "a"},
			{Kind: EvFlowBegin, Track: 0, TS: 7, Flow: 3},
		}, []ProblemKind{DanglingFlow}},
		{"flow with two begins", []Event{
			{Kind: EvSlice, Track: 0, TS: 0, Dur: 5, Name: "a"},
			{Kind: EvFlowBegin, Track: 0, TS: 0, Flow: 3},
			{Kind: EvSlice, Track: 0, TS: 6, Dur: 5, Name: "a"},
			{Kind: EvFlowBegin, Track: 0, TS: 6, Flow: 3},
			{Kind: EvFlowEnd, Track: 0, TS: 6, Flow: 3},
		}, []ProblemKind{DanglingFlow}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(&Parsed{Tracks: tracks, Events: tc.events})
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			expectProblems(t, err, tc.want...)
		})
	}
}

func TestSliceDepths(t *testing.T) {
	p := &Parsed{
		Tracks: []TrackInfo{{"s", SliceTrack, "host"}},
		Events: []Event{
			{Kind: EvSlice, Track: 0, TS: 0, Dur: 10, Name: "a"},
			{Kind: EvBegin, Track: 0, TS: 1, Name: "b"},
			{Kind: EvSlice, Track: 0, TS: 2, Dur: 1, Name: "c"},
			{Kind: EvEnd, Track: 0, TS: 4},
			{Kind: EvSlice, Track: 0, TS: 10, Dur: 1, Name: "d"},
		},
	}
	want := []Slice{
		{Track: 0, Name: "a", Start: 0, End: 10, Depth: 0},
		{Track: 0, Name: "b", Start: 1, End: 4, Depth: 1},
		{Track: 0, Name: "c", Start: 2, End: 3, Depth: 2},
		{Track: 0, Name: "d", Start: 10, End: 11, Depth: 0},
	}
	if got := p.Slices(); !slices.Equal(got, want) {
		t.Fatalf("Slices() = %+v, want %+v", got, want)
	}
}

// TestNilTrace: a nil trace is an error to Validate, and has no tracks
// and no slices, never a nil dereference.
func TestNilTrace(t *testing.T) {
	var p *Parsed
	if err := Validate(p); err == nil {
		t.Error("Validate(nil) = nil")
	}
	if i, ok := p.TrackIndex("x"); ok || i != -1 {
		t.Errorf("TrackIndex on nil = %d, %v", i, ok)
	}
	if s := p.Slices(); s != nil {
		t.Errorf("Slices on nil = %v", s)
	}
}
