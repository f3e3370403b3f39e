package trace

import (
	"bytes"
	"compress/zlib"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// ReadFile reads a trace file in either format into the common model. The
// format is recognised from the contents: a JSON trace starts with '{' or
// '[', a Perfetto trace with a TracePacket field.
func ReadFile(path string) (*Parsed, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	p, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("trace: %s: %w", path, err)
	}
	return p, nil
}

// Read reads a whole trace from r; see ReadFile. A nil r is an error
// wrapping ErrMisuse.
func Read(r io.Reader) (*Parsed, error) {
	if r == nil {
		return nil, errNilReader
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	return Parse(data)
}

// errNilReader is the error of Read and Scan given no reader.
var errNilReader = fmt.Errorf("%w: nil reader", ErrMisuse)

// Parse parses a trace held in memory; see ReadFile.
func Parse(data []byte) (*Parsed, error) {
	t := bytes.TrimLeft(data, " \t\r\n")
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return parseJSON(t)
	}
	return parsePerfetto(data)
}

// kindOfPerfettoType maps a TrackEvent.type to the event kind a reader makes
// of it: the first kind in the spec table written with that type. A
// SLICE_BEGIN reads as EvBegin, a COUNTER as EvCounter (refined to
// EvCounterFloat when it holds a double).
var kindOfPerfettoType = func() map[uint64]EventKind {
	m := map[uint64]EventKind{}
	for k := EvBegin; k < numEventKinds; k++ {
		if t := specs[k].PerfettoType; t != 0 {
			if _, ok := m[t]; !ok {
				m[t] = k
			}
		}
	}
	return m
}()

// pbReader is the state of parsing one Perfetto trace. Parse collects its
// events in p.Events; Scan hands each to a Handler instead (h non-nil), and
// keeps only the tracks and the interned names.
type pbReader struct {
	p        *Parsed
	h        Handler                      // Scan's handler, or nil
	names    map[uint32]map[uint64]string // interned event names, by sequence
	tracks   map[uint64]int               // track uuid → index in p.Tracks
	groups   map[uint64]string            // process track uuid → process name
	pids     map[int64]string             // pid → process name
	parent   map[int]uint64               // track index → parent uuid
	pid      map[int]int64                // track index → thread pid
	flowOccs []int                        // indices of flow events not yet classified
	ev       Event                        // scratch for the handler
	flows    []uint64                     // scratch: a track event's flow ids
	term     []uint64                     // and its terminating flow ids
	zr       io.ReadCloser                // reused zlib reader
	zsrc     bytes.Reader                 // its input
	inner    bytes.Buffer                 // decompressed packets
	strs     map[string]string            // see intern
}

func newPBReader(h Handler) *pbReader {
	return &pbReader{
		p:      &Parsed{Format: Perfetto},
		h:      h,
		names:  map[uint32]map[uint64]string{},
		tracks: map[uint64]int{},
		groups: map[uint64]string{},
		pids:   map[int64]string{},
		parent: map[int]uint64{},
		pid:    map[int]int64{},
	}
}

func parsePerfetto(data []byte) (*Parsed, error) {
	r := newPBReader(nil)
	if err := r.trace(data, 0); err != nil {
		return nil, err
	}
	for i := range r.p.Tracks {
		r.resolveGroup(i)
	}
	r.classifyFlows()
	return r.p, nil
}

// resolveGroup sets the group of track i from its parent process track or
// its thread's pid, as far as they are known.
func (r *pbReader) resolveGroup(i int) {
	t := &r.p.Tracks[i]
	if g, ok := r.groups[r.parent[i]]; ok {
		t.Group = g
	} else if g, ok := r.pids[r.pid[i]]; ok {
		t.Group = g
	}
}

// trace parses a Trace message: a sequence of packet fields.
func (r *pbReader) trace(b []byte, depth int) error {
	var perr error // a packet's own error, already described
	err := eachField(b, func(num protowire.Number, _ uint64, pkt []byte) error {
		if num == fTracePacket && pkt != nil {
			perr = r.packet(pkt, depth)
		}
		return perr
	})
	switch {
	case perr != nil:
		return perr
	case err != nil:
		return fmt.Errorf("perfetto: trace: %w", err)
	}
	return nil
}

// packet parses one TracePacket.
func (r *pbReader) packet(b []byte, depth int) error {
	var (
		ts, seq, flags        uint64
		interned, event, desc []byte
		compressed            []byte
		hasEvent, hasDesc     bool
	)
	err := eachField(b, func(num protowire.Number, v uint64, bs []byte) error {
		switch num {
		case fPacketTimestamp:
			ts = v
		case fPacketSequenceID:
			seq = v
		case fPacketSequenceFlags:
			flags = v
		case fPacketInternedData:
			interned = bs
		case fPacketTrackEvent:
			event, hasEvent = bs, true
		case fPacketTrackDescriptor:
			desc, hasDesc = bs, true
		case fPacketCompressed:
			compressed = bs
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("perfetto: packet: %w", err)
	}
	sq := uint32(seq)
	if flags&seqIncrementalStateCleared != 0 {
		r.names[sq] = map[uint64]string{}
	}
	if interned != nil {
		if err := r.internedData(sq, interned); err != nil {
			return err
		}
	}
	if hasDesc {
		if err := r.descriptor(desc); err != nil {
			return err
		}
	}
	if hasEvent {
		if err := r.trackEvent(sq, int64(ts), event); err != nil {
			return err
		}
	}
	if compressed != nil {
		if depth > 0 {
			return fmt.Errorf("perfetto: compressed packets nested in compressed packets")
		}
		r.zsrc.Reset(compressed)
		var err error
		if r.zr == nil {
			r.zr, err = zlib.NewReader(&r.zsrc)
		} else {
			err = r.zr.(zlib.Resetter).Reset(&r.zsrc, nil)
		}
		if err != nil {
			return fmt.Errorf("perfetto: compressed packets: %w", err)
		}
		r.inner.Reset()
		if _, err := r.inner.ReadFrom(io.LimitReader(r.zr, maxInflated+1)); err != nil {
			return fmt.Errorf("perfetto: compressed packets: %w", err)
		}
		if r.inner.Len() > maxInflated {
			return fmt.Errorf("perfetto: compressed packets inflate to more than %d bytes", maxInflated)
		}
		if err := r.trace(r.inner.Bytes(), depth+1); err != nil {
			return err
		}
	}
	return nil
}

// internedData records the event names of an InternedData message.
func (r *pbReader) internedData(seq uint32, b []byte) error {
	m := r.names[seq]
	if m == nil {
		m = map[uint64]string{}
		r.names[seq] = m
	}
	return eachField(b, func(num protowire.Number, _ uint64, bs []byte) error {
		if num != fInternedEventNames {
			return nil
		}
		var iid uint64
		var name string
		err := eachField(bs, func(num protowire.Number, v uint64, s []byte) error {
			switch num {
			case fEventNameEntryIID:
				iid = v
			case fEventNameEntryName:
				name = string(s)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("perfetto: interned event name: %w", err)
		}
		m[iid] = name
		return nil
	})
}

// descriptor records a TrackDescriptor: a process becomes a group, a thread
// or a counter becomes a track.
func (r *pbReader) descriptor(b []byte) error {
	var (
		uuid, parent        uint64
		name                string
		process, thread     []byte
		isCounter, isThread bool
		isProcess           bool
	)
	err := eachField(b, func(num protowire.Number, v uint64, bs []byte) error {
		switch num {
		case fTrackUUID:
			uuid = v
		case fTrackParentUUID:
			parent = v
		case fTrackName:
			name = string(bs)
		case fTrackProcess:
			process, isProcess = bs, true
		case fTrackThread:
			thread, isThread = bs, true
		case fTrackCounter:
			isCounter = true
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("perfetto: track descriptor: %w", err)
	}
	if isProcess {
		var pid int64
		pname := name
		err := eachField(process, func(num protowire.Number, v uint64, bs []byte) error {
			switch num {
			case fProcessPID:
				pid = int64(int32(v))
			case fProcessName:
				pname = string(bs)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("perfetto: process descriptor: %w", err)
		}
		r.groups[uuid] = pname
		r.pids[pid] = pname
		if r.h != nil { // tracks described before their process
			for i := range r.p.Tracks {
				old := r.p.Tracks[i].Group
				if r.resolveGroup(i); r.p.Tracks[i].Group != old {
					r.h.Track(i, r.p.Tracks[i])
				}
			}
		}
		return nil
	}
	kind := SliceTrack
	if isCounter {
		kind = CounterTrack
	}
	i := r.trackIndex(uuid, kind)
	t := &r.p.Tracks[i]
	t.Kind = kind
	if name != "" {
		t.Name = name
	}
	r.parent[i] = parent
	if isThread {
		err := eachField(thread, func(num protowire.Number, v uint64, bs []byte) error {
			switch num {
			case fThreadPID:
				r.pid[i] = int64(int32(v))
			case fThreadName:
				if t.Name == "" {
					t.Name = string(bs)
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("perfetto: thread descriptor: %w", err)
		}
	}
	if r.h != nil {
		r.resolveGroup(i)
		r.h.Track(i, *t)
	}
	return nil
}

// trackIndex returns the index of the track with the given uuid, adding a
// track if the uuid is new (events may precede their descriptor).
func (r *pbReader) trackIndex(uuid uint64, kind TrackKind) int {
	if i, ok := r.tracks[uuid]; ok {
		return i
	}
	i := len(r.p.Tracks)
	r.tracks[uuid] = i
	r.p.Tracks = append(r.p.Tracks, TrackInfo{Name: fmt.Sprintf("track %d", uuid), Kind: kind})
	if r.h != nil {
		r.h.Track(i, r.p.Tracks[i])
	}
	return i
}

// trackEvent parses one TrackEvent into events.
func (r *pbReader) trackEvent(seq uint32, ts int64, b []byte) error {
	var (
		typ, uuid, iid    uint64
		name              string
		hasName, hasIID   bool
		ival              int64
		fval              float64
		hasInt, hasDouble bool
	)
	flows, term := r.flows[:0], r.term[:0]
	defer func() { r.flows, r.term = flows[:0], term[:0] }()
	for len(b) > 0 {
		num, wt, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("perfetto: track event: %w", protowire.ParseError(n))
		}
		b = b[n:]
		switch {
		case (num == fEventFlowIDs || num == fEventTerminatingFlowIDs) && (wt == protowire.Fixed64Type || wt == protowire.BytesType):
			ids := &flows
			if num != fEventFlowIDs {
				ids = &term
			}
			if wt == protowire.Fixed64Type {
				v, n := protowire.ConsumeFixed64(b)
				if n < 0 {
					return fmt.Errorf("perfetto: flow id: %w", protowire.ParseError(n))
				}
				b = b[n:]
				*ids = append(*ids, v)
			} else { // packed
				bs, n := protowire.ConsumeBytes(b)
				if n < 0 {
					return fmt.Errorf("perfetto: flow ids: %w", protowire.ParseError(n))
				}
				b = b[n:]
				for len(bs) > 0 {
					v, n := protowire.ConsumeFixed64(bs)
					if n < 0 {
						return fmt.Errorf("perfetto: flow ids: %w", protowire.ParseError(n))
					}
					bs = bs[n:]
					*ids = append(*ids, v)
				}
			}
			continue
		case num == fEventDoubleCounterValue && wt == protowire.Fixed64Type:
			v, n := protowire.ConsumeFixed64(b)
			if n < 0 {
				return fmt.Errorf("perfetto: counter value: %w", protowire.ParseError(n))
			}
			b = b[n:]
			fval, hasDouble = math.Float64frombits(v), true
			continue
		case wt == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return fmt.Errorf("perfetto: track event field %d: %w", num, protowire.ParseError(n))
			}
			b = b[n:]
			switch num {
			case fEventType:
				typ = v
			case fEventTrackUUID:
				uuid = v
			case fEventNameIID:
				iid, hasIID = v, true
			case fEventCounterValue:
				ival, hasInt = int64(v), true
			}
			continue
		case num == fEventName && wt == protowire.BytesType:
			bs, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return fmt.Errorf("perfetto: event name: %w", protowire.ParseError(n))
			}
			b = b[n:]
			name, hasName = r.intern(bs), true
			continue
		}
		n = protowire.ConsumeFieldValue(num, wt, b)
		if n < 0 {
			return fmt.Errorf("perfetto: track event field %d: %w", num, protowire.ParseError(n))
		}
		b = b[n:]
	}
	kind, ok := kindOfPerfettoType[typ]
	if !ok {
		return fmt.Errorf("perfetto: track event at %d: unsupported type %d", ts, typ)
	}
	if hasIID && !hasName {
		s, ok := r.names[seq][iid]
		if !ok {
			return fmt.Errorf("perfetto: track event at %d: name iid %d not interned on sequence %d", ts, iid, seq)
		}
		name = s
	}
	trackKind := SliceTrack
	if kind == EvCounter {
		trackKind = CounterTrack
	}
	ev := Event{Kind: kind, Track: r.trackIndex(uuid, trackKind), TS: ts, Name: name}
	if kind == EvCounter {
		switch {
		case hasDouble:
			ev.Kind, ev.Value = EvCounterFloat, fval
		case hasInt:
			ev.Int, ev.Value = ival, float64(ival)
		default:
			ev.Value = math.NaN()
		}
	}
	if r.h != nil {
		r.ev = ev
		r.h.Event(&r.ev)
		for _, id := range flows {
			r.ev = Event{Kind: EvFlowStep, Track: ev.Track, TS: ts, Flow: id}
			r.h.Event(&r.ev)
		}
		for _, id := range term {
			r.ev = Event{Kind: EvFlowEnd, Track: ev.Track, TS: ts, Flow: id}
			r.h.Event(&r.ev)
		}
		return nil
	}
	r.p.Events = append(r.p.Events, ev)
	for _, id := range flows {
		r.flowOccs = append(r.flowOccs, len(r.p.Events))
		r.p.Events = append(r.p.Events, Event{Kind: EvFlowStep, Track: ev.Track, TS: ts, Flow: id})
	}
	for _, id := range term {
		r.p.Events = append(r.p.Events, Event{Kind: EvFlowEnd, Track: ev.Track, TS: ts, Flow: id})
	}
	return nil
}

// intern returns b as a string, the same string for the same bytes while
// the table has room: names not interned in the format (a JSON trace's, an
// uninterned Perfetto name) repeat, and a string each would be an
// allocation per event.
func (r *pbReader) intern(b []byte) string { return internBytes(&r.strs, b) }

// classifyFlows makes the earliest non-terminating occurrence of each flow id
// its EvFlowBegin; ties go to the one first in the file.
func (r *pbReader) classifyFlows() {
	first := map[uint64]int{}
	for _, i := range r.flowOccs {
		ev := &r.p.Events[i]
		j, ok := first[ev.Flow]
		if !ok || ev.TS < r.p.Events[j].TS {
			first[ev.Flow] = i
		}
	}
	for _, i := range first {
		r.p.Events[i].Kind = EvFlowBegin
	}
}

// eachField calls f for every field of a message: v for varint and fixed
// fields, bs for length-delimited ones.
func eachField(b []byte, f func(num protowire.Number, v uint64, bs []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		var v uint64
		var bs []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.Fixed64Type:
			v, n = protowire.ConsumeFixed64(b)
		case protowire.Fixed32Type:
			var v32 uint32
			v32, n = protowire.ConsumeFixed32(b)
			v = uint64(v32)
		case protowire.BytesType:
			bs, n = protowire.ConsumeBytes(b)
			if bs == nil && n >= 0 {
				bs = []byte{}
			}
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if err := f(num, v, bs); err != nil {
			return err
		}
	}
	return nil
}

// jsonEvent is one event of the Chrome JSON format, as far as this package
// reads it.
type jsonEvent struct {
	Ph   string          `json:"ph"`
	Name string          `json:"name"`
	Pid  int64           `json:"pid"`
	Tid  int64           `json:"tid"`
	Ts   json.Number     `json:"ts"`
	Dur  json.Number     `json:"dur"`
	ID   json.RawMessage `json:"id"`
	Args json.RawMessage `json:"args"`
	// ts and dur are Ts and Dur as Scan reads them, without a copy.
	ts, dur []byte
}

// micros returns the event's ts or dur in ns.
func (je *jsonEvent) micros(num json.Number, raw []byte) (int64, error) {
	if raw != nil {
		return parseMicros(raw)
	}
	return parseMicros(num)
}

func parseJSON(data []byte) (*Parsed, error) {
	var evs []jsonEvent
	if data[0] == '[' {
		if err := json.Unmarshal(data, &evs); err != nil {
			return nil, fmt.Errorf("json: %w", err)
		}
	} else {
		var f struct {
			TraceEvents []jsonEvent `json:"traceEvents"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			return nil, fmt.Errorf("json: %w", err)
		}
		evs = f.TraceEvents
	}
	st := newJSONState(nil)
	for n := range evs {
		if err := st.add(n, &evs[n]); err != nil {
			return nil, err
		}
	}
	for i := range st.p.Tracks {
		st.p.Tracks[i].Group = st.procs[st.trackPid[i]]
	}
	return st.p, nil
}

// jsonState turns Chrome JSON events into the common model: threads and
// counters become tracks. Parse collects the events in p.Events; Scan hands
// each to a Handler instead (h non-nil).
type jsonState struct {
	p        *Parsed
	h        Handler
	threads  map[jsonThread]int
	counters map[jsonCounter]int
	procs    map[int64]string
	trackPid []int64 // by track
	ev       Event   // scratch for the handler
}

type jsonThread struct{ pid, tid int64 }

type jsonCounter struct {
	pid  int64
	name string
}

func newJSONState(h Handler) *jsonState {
	return &jsonState{p: &Parsed{Format: JSON}, h: h, threads: map[jsonThread]int{},
		counters: map[jsonCounter]int{}, procs: map[int64]string{}}
}

// newTrack adds a track of process pid.
func (st *jsonState) newTrack(t TrackInfo, pid int64) int {
	i := len(st.p.Tracks)
	if st.h != nil {
		t.Group = st.procs[pid]
	}
	st.p.Tracks = append(st.p.Tracks, t)
	st.trackPid = append(st.trackPid, pid)
	if st.h != nil {
		st.h.Track(i, t)
	}
	return i
}

func (st *jsonState) thread(pid, tid int64) int {
	k := jsonThread{pid, tid}
	if i, ok := st.threads[k]; ok {
		return i
	}
	i := st.newTrack(TrackInfo{Name: fmt.Sprintf("thread %d/%d", pid, tid), Kind: SliceTrack}, pid)
	st.threads[k] = i
	return i
}

// add reads the n-th event of the file.
func (st *jsonState) add(n int, je *jsonEvent) error {
	p := st.p
	if je.Ph == "M" {
		var name string
		if raw := argOf(je.Args, "name"); raw != nil {
			if err := json.Unmarshal(raw, &name); err != nil {
				return fmt.Errorf("json: event %d: metadata name: %w", n, err)
			}
		}
		switch je.Name {
		case "process_name":
			st.procs[je.Pid] = name
			if st.h != nil {
				for i, pid := range st.trackPid {
					if pid == je.Pid && p.Tracks[i].Group != name {
						p.Tracks[i].Group = name
						st.h.Track(i, p.Tracks[i])
					}
				}
			}
		case "thread_name":
			i := st.thread(je.Pid, je.Tid)
			p.Tracks[i].Name = name
			if st.h != nil {
				st.h.Track(i, p.Tracks[i])
			}
		}
		return nil
	}
	if len(je.Ph) != 1 || je.Ph[0] >= 128 || kindOfPhase[je.Ph[0]] == 0 {
		return nil // a phase this package does not write
	}
	kind := kindOfPhase[je.Ph[0]]
	ts, err := je.micros(je.Ts, je.ts)
	if err != nil {
		return fmt.Errorf("json: event %d (%s %q): ts: %w", n, je.Ph, je.Name, err)
	}
	ev := Event{Kind: kind, TS: ts, Name: je.Name}
	switch kind {
	case EvCounter:
		k := jsonCounter{je.Pid, je.Name}
		i, ok := st.counters[k]
		if !ok {
			i = st.newTrack(TrackInfo{Name: je.Name, Kind: CounterTrack}, je.Pid)
			st.counters[k] = i
		}
		ev.Track, ev.Name = i, ""
		ev.Kind, ev.Int, ev.Value = counterValue(je.Args)
	case EvFlowBegin, EvFlowStep, EvFlowEnd:
		ev.Track, ev.Name = st.thread(je.Pid, je.Tid), ""
		id, err := parseFlowID(je.ID)
		if err != nil {
			return fmt.Errorf("json: event %d (%s): id: %w", n, je.Ph, err)
		}
		ev.Flow = id
	default:
		ev.Track = st.thread(je.Pid, je.Tid)
		if kind == EvSlice {
			if ev.Dur, err = je.micros(je.Dur, je.dur); err != nil {
				return fmt.Errorf("json: event %d (X %q): dur: %w", n, je.Name, err)
			}
		}
	}
	if st.h != nil {
		st.ev = ev
		st.h.Event(&st.ev)
		return nil
	}
	p.Events = append(p.Events, ev)
	return nil
}

// argOf returns the raw value of one argument of an event's "args" object,
// or nil. Arguments that are not an object have no value.
func argOf(args json.RawMessage, key string) json.RawMessage {
	if v, ok := simpleArg(args, key); ok {
		return v
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return nil
	}
	return m[key]
}

// simpleArg is the fast path of argOf and counterValue for the form this
// package writes, {"key":value} with a value that is a number or a string
// without escapes; ok is false for any other form.
func simpleArg(args json.RawMessage, key string) (json.RawMessage, bool) {
	b := bytes.TrimSpace(args)
	if len(b) < len(key)+5 || b[0] != '{' || b[1] != '"' || string(b[2:2+len(key)]) != key || b[2+len(key)] != '"' || b[len(b)-1] != '}' {
		return nil, false
	}
	v := bytes.TrimSpace(b[3+len(key) : len(b)-1])
	if len(v) == 0 || v[0] != ':' {
		return nil, false
	}
	v = bytes.TrimSpace(v[1:])
	if len(v) == 0 || bytes.ContainsAny(v, "\\,{}[]:") {
		return nil, false
	}
	if v[0] == '"' {
		if len(v) < 2 || v[len(v)-1] != '"' || bytes.IndexByte(v[1:len(v)-1], '"') >= 0 {
			return nil, false
		}
		return v, true
	}
	for _, c := range v {
		if !(c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
			return nil, false
		}
	}
	return v, true
}

// counterValue reads the value of a "C" event: its "value" argument, or its
// only argument. A value that is not a number reads as NaN.
func counterValue(rawArgs json.RawMessage) (EventKind, int64, float64) {
	raw, ok := simpleArg(rawArgs, "value")
	if !ok {
		var args map[string]json.RawMessage
		_ = json.Unmarshal(rawArgs, &args) // arguments that are not an object: no value
		raw, ok = args["value"]
		if !ok && len(args) > 0 {
			keys := make([]string, 0, len(args))
			for k := range args {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			raw = args[keys[0]]
		}
	}
	s := strings.TrimSpace(string(raw))
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return EvCounter, i, float64(i)
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && s != "" && (s[0] == '-' || s[0] >= '0' && s[0] <= '9') {
		return EvCounterFloat, 0, f
	}
	return EvCounterFloat, 0, math.NaN()
}

// parseFlowID reads a flow id: a JSON number, or a string holding a decimal
// or 0x-prefixed hexadecimal number.
func parseFlowID(raw json.RawMessage) (uint64, error) {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 {
		return 0, fmt.Errorf("missing")
	}
	if b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return 0, err
		}
		return strconv.ParseUint(s, 0, 64)
	}
	return strconv.ParseUint(string(b), 10, 64)
}

// parseMicros converts a JSON number of microseconds to integer nanoseconds
// exactly when it has at most three decimals, as this package writes them;
// further decimals are rounded half away from zero. An empty number is 0.
func parseMicros[T ~string | ~[]byte](num T) (int64, error) {
	s := num
	if len(s) == 0 {
		return 0, nil
	}
	dot := len(s)
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 'e', 'E':
			f, err := strconv.ParseFloat(string(s), 64)
			if err != nil {
				return 0, err
			}
			// Beyond int64's range the time saturates (the conversion of
			// such a float is undefined: MinInt64 on amd64, a duration
			// of 1e18 µs read as a negative one); a reader flags times
			// that far out as absurd.
			switch ns := math.Round(f * 1000); {
			case ns >= math.MaxInt64:
				return math.MaxInt64, nil
			case ns <= math.MinInt64:
				return math.MinInt64, nil
			default:
				return int64(ns), nil
			}
		case '.':
			dot = min(dot, i)
		}
	}
	neg := s[0] == '-'
	if neg {
		s, dot = s[1:], dot-1
	}
	whole, frac := s[:dot], s[min(dot+1, len(s)):]
	w, err := uint64(0), error(nil)
	if len(whole) > 0 {
		w, err = strconv.ParseUint(string(whole), 10, 63)
	}
	if err != nil {
		return 0, fmt.Errorf("bad number %q", string(num))
	}
	var f uint64
	for i := 0; i < 3; i++ {
		f *= 10
		if i < len(frac) {
			c := frac[i]
			if c < '0' || c > '9' {
				return 0, fmt.Errorf("bad number %q", string(num))
			}
			f += uint64(c - '0')
		}
	}
	if len(frac) > 3 {
		for i := 3; i < len(frac); i++ {
			if c := frac[i]; c < '0' || c > '9' {
				return 0, fmt.Errorf("bad number %q", string(num))
			}
		}
		if frac[3] >= '5' {
			f++
		}
	}
	if w > (math.MaxInt64-f)/1000 {
		return 0, fmt.Errorf("number %q out of range", string(num))
	}
	ns := int64(w*1000 + f)
	if neg {
		ns = -ns
	}
	return ns, nil
}
