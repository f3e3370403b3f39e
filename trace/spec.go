package trace

import "fmt"

// EventKind identifies one kind of event. The spec table (see Spec) says
// which fields each kind carries and how every output format spells it; the
// Recorder, both writers and both readers all work from that one table.
type EventKind uint8

// Event kinds. The zero EventKind is invalid.
const (
	EvBegin        EventKind = iota + 1 // a slice opens at ts
	EvEnd                               // the innermost open slice closes at ts
	EvSlice                             // a complete slice: ts and dur
	EvInstant                           // a point event
	EvCounter                           // an integer counter sample
	EvCounterFloat                      // a floating-point counter sample
	EvFlowBegin                         // a flow starts at the slice just recorded
	EvFlowStep                          // a flow passes through the slice just recorded
	EvFlowEnd                           // a flow terminates at the slice just recorded
	numEventKinds
)

// Arg says what the 64-bit argument of an event record holds. The zero Arg
// means the kind carries no argument.
type Arg uint8

// Record arguments.
const (
	ArgDur   Arg = iota + 1 // a duration in ns (int64)
	ArgInt                  // an int64 counter value
	ArgFloat                // a float64 counter value, as its IEEE-754 bits
	ArgFlow                 // a flow id (uint64)
)

// Spec describes one event kind: the fields of its record and its spelling in
// each output format.
type Spec struct {
	Name  string    // short name, for errors and String
	Track TrackKind // the kind of track it is recorded on
	Named bool      // the record carries an interned name
	Arg   Arg       // the meaning of the record's argument; zero if none

	// Phase is the Chrome JSON "ph" of the event.
	Phase byte

	// PerfettoType is the TrackEvent.type the event is written as (a complete
	// slice is written as a SLICE_BEGIN and a SLICE_END packet). Flow kinds
	// have none: they ride on the slice's packet as FlowField.
	PerfettoType uint64
	// FlowField is the TrackEvent field a flow id is written to: flow_ids or
	// terminating_flow_ids. Zero for kinds that are not flows.
	FlowField uint64
}

// specs is the spec table, indexed by EventKind.
var specs = [numEventKinds]Spec{
	EvBegin:        {Name: "Begin", Track: SliceTrack, Named: true, Phase: 'B', PerfettoType: pbTypeSliceBegin},
	EvEnd:          {Name: "End", Track: SliceTrack, Phase: 'E', PerfettoType: pbTypeSliceEnd},
	EvSlice:        {Name: "Slice", Track: SliceTrack, Named: true, Arg: ArgDur, Phase: 'X', PerfettoType: pbTypeSliceBegin},
	EvInstant:      {Name: "Instant", Track: SliceTrack, Named: true, Phase: 'i', PerfettoType: pbTypeInstant},
	EvCounter:      {Name: "Counter", Track: CounterTrack, Arg: ArgInt, Phase: 'C', PerfettoType: pbTypeCounter},
	EvCounterFloat: {Name: "CounterFloat", Track: CounterTrack, Arg: ArgFloat, Phase: 'C', PerfettoType: pbTypeCounter},
	EvFlowBegin:    {Name: "FlowBegin", Track: SliceTrack, Arg: ArgFlow, Phase: 's', FlowField: fEventFlowIDs},
	EvFlowStep:     {Name: "FlowStep", Track: SliceTrack, Arg: ArgFlow, Phase: 't', FlowField: fEventFlowIDs},
	EvFlowEnd:      {Name: "FlowEnd", Track: SliceTrack, Arg: ArgFlow, Phase: 'f', FlowField: fEventTerminatingFlowIDs},
}

// Spec returns the spec of k, and the zero Spec (no Name) if k is not a
// valid kind.
func (k EventKind) Spec() Spec {
	if !k.valid() {
		return Spec{}
	}
	return specs[k]
}

// IsFlow reports whether k is one of the flow kinds.
func (k EventKind) IsFlow() bool { return k.valid() && specs[k].FlowField != 0 }

func (k EventKind) valid() bool { return k > 0 && k < numEventKinds }

func (k EventKind) String() string {
	if !k.valid() {
		return fmt.Sprintf("EventKind(%d)", k)
	}
	return specs[k].Name
}

// kindOfPhase maps a Chrome JSON phase to its event kind. 'C' maps to
// EvCounter; a reader refines it to EvCounterFloat from the value's form.
var kindOfPhase = func() [128]EventKind {
	var m [128]EventKind
	for k := EvBegin; k < numEventKinds; k++ {
		if p := specs[k].Phase; m[p] == 0 {
			m[p] = k
		}
	}
	return m
}()

// TrackKind is the kind of a track: what it can hold.
type TrackKind uint8

// Track kinds. The zero TrackKind is invalid.
const (
	// SliceTrack is a timeline of slices, instants and flows: a host
	// goroutine (a runner, a stage worker, a pool worker) or a device stream.
	SliceTrack TrackKind = iota + 1
	// CounterTrack is a series of counter samples: a queue's depth, device
	// memory in use, device utilisation.
	CounterTrack
)

func (k TrackKind) String() string {
	switch k {
	case SliceTrack:
		return "slices"
	case CounterTrack:
		return "counter"
	}
	return fmt.Sprintf("TrackKind(%d)", k)
}
