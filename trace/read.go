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

// Read reads a whole trace from r; see ReadFile.
func Read(r io.Reader) (*Parsed, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	return Parse(data)
}

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

// pbReader is the state of parsing one Perfetto trace.
type pbReader struct {
	p        *Parsed
	names    map[uint32]map[uint64]string // interned event names, by sequence
	tracks   map[uint64]int               // track uuid → index in p.Tracks
	groups   map[uint64]string            // process track uuid → process name
	pids     map[int64]string             // pid → process name
	parent   map[int]uint64               // track index → parent uuid
	pid      map[int]int64                // track index → thread pid
	flowOccs []int                        // indices of flow events not yet classified
}

func parsePerfetto(data []byte) (*Parsed, error) {
	r := &pbReader{
		p:      &Parsed{Format: Perfetto},
		names:  map[uint32]map[uint64]string{},
		tracks: map[uint64]int{},
		groups: map[uint64]string{},
		pids:   map[int64]string{},
		parent: map[int]uint64{},
		pid:    map[int]int64{},
	}
	if err := r.trace(data, 0); err != nil {
		return nil, err
	}
	for i := range r.p.Tracks {
		t := &r.p.Tracks[i]
		if g, ok := r.groups[r.parent[i]]; ok {
			t.Group = g
		} else if g, ok := r.pids[r.pid[i]]; ok {
			t.Group = g
		}
	}
	r.classifyFlows()
	return r.p, nil
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
		zr, err := zlib.NewReader(bytes.NewReader(compressed))
		if err != nil {
			return fmt.Errorf("perfetto: compressed packets: %w", err)
		}
		inner, err := io.ReadAll(zr)
		if err != nil {
			return fmt.Errorf("perfetto: compressed packets: %w", err)
		}
		if err := r.trace(inner, depth+1); err != nil {
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
		flows, term       []uint64
	)
	for len(b) > 0 {
		num, wt, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("perfetto: track event: %w", protowire.ParseError(n))
		}
		b = b[n:]
		switch {
		case (num == fEventFlowIDs || num == fEventTerminatingFlowIDs) && (wt == protowire.Fixed64Type || wt == protowire.BytesType):
			var ids []uint64
			if wt == protowire.Fixed64Type {
				v, n := protowire.ConsumeFixed64(b)
				if n < 0 {
					return fmt.Errorf("perfetto: flow id: %w", protowire.ParseError(n))
				}
				b = b[n:]
				ids = append(ids, v)
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
					ids = append(ids, v)
				}
			}
			if num == fEventFlowIDs {
				flows = append(flows, ids...)
			} else {
				term = append(term, ids...)
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
			name, hasName = string(bs), true
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
	Ph   string                     `json:"ph"`
	Name string                     `json:"name"`
	Pid  int64                      `json:"pid"`
	Tid  int64                      `json:"tid"`
	Ts   json.Number                `json:"ts"`
	Dur  json.Number                `json:"dur"`
	ID   json.RawMessage            `json:"id"`
	Args map[string]json.RawMessage `json:"args"`
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
	p := &Parsed{Format: JSON}
	type threadKey struct{ pid, tid int64 }
	type counterKey struct {
		pid  int64
		name string
	}
	threads := map[threadKey]int{}
	counters := map[counterKey]int{}
	procs := map[int64]string{}
	trackPid := map[int]int64{}
	thread := func(pid, tid int64) int {
		k := threadKey{pid, tid}
		if i, ok := threads[k]; ok {
			return i
		}
		i := len(p.Tracks)
		threads[k] = i
		trackPid[i] = pid
		p.Tracks = append(p.Tracks, TrackInfo{Name: fmt.Sprintf("thread %d/%d", pid, tid), Kind: SliceTrack})
		return i
	}
	for n, je := range evs {
		if je.Ph == "M" {
			var name string
			if raw, ok := je.Args["name"]; ok {
				if err := json.Unmarshal(raw, &name); err != nil {
					return nil, fmt.Errorf("json: event %d: metadata name: %w", n, err)
				}
			}
			switch je.Name {
			case "process_name":
				procs[je.Pid] = name
			case "thread_name":
				p.Tracks[thread(je.Pid, je.Tid)].Name = name
			}
			continue
		}
		if len(je.Ph) != 1 || je.Ph[0] >= 128 || kindOfPhase[je.Ph[0]] == 0 {
			continue // a phase this package does not write
		}
		kind := kindOfPhase[je.Ph[0]]
		ts, err := parseMicros(je.Ts)
		if err != nil {
			return nil, fmt.Errorf("json: event %d (%s %q): ts: %w", n, je.Ph, je.Name, err)
		}
		ev := Event{Kind: kind, TS: ts, Name: je.Name}
		switch kind {
		case EvCounter:
			k := counterKey{je.Pid, je.Name}
			i, ok := counters[k]
			if !ok {
				i = len(p.Tracks)
				counters[k] = i
				trackPid[i] = je.Pid
				p.Tracks = append(p.Tracks, TrackInfo{Name: je.Name, Kind: CounterTrack})
			}
			ev.Track, ev.Name = i, ""
			ev.Kind, ev.Int, ev.Value = counterValue(je.Args)
		case EvFlowBegin, EvFlowStep, EvFlowEnd:
			ev.Track, ev.Name = thread(je.Pid, je.Tid), ""
			id, err := parseFlowID(je.ID)
			if err != nil {
				return nil, fmt.Errorf("json: event %d (%s): id: %w", n, je.Ph, err)
			}
			ev.Flow = id
		default:
			ev.Track = thread(je.Pid, je.Tid)
			if kind == EvSlice {
				if ev.Dur, err = parseMicros(je.Dur); err != nil {
					return nil, fmt.Errorf("json: event %d (X %q): dur: %w", n, je.Name, err)
				}
			}
		}
		p.Events = append(p.Events, ev)
	}
	for i := range p.Tracks {
		p.Tracks[i].Group = procs[trackPid[i]]
	}
	return p, nil
}

// counterValue reads the value of a "C" event: its "value" argument, or its
// only argument. A value that is not a number reads as NaN.
func counterValue(args map[string]json.RawMessage) (EventKind, int64, float64) {
	raw, ok := args["value"]
	if !ok && len(args) > 0 {
		keys := make([]string, 0, len(args))
		for k := range args {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		raw = args[keys[0]]
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
	s := strings.TrimSpace(string(raw))
	if s == "" {
		return 0, fmt.Errorf("missing")
	}
	if s[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, err
		}
		return strconv.ParseUint(s, 0, 64)
	}
	return strconv.ParseUint(s, 10, 64)
}

// parseMicros converts a JSON number of microseconds to integer nanoseconds
// exactly when it has at most three decimals, as this package writes them;
// further decimals are rounded half away from zero. An empty number is 0.
func parseMicros(num json.Number) (int64, error) {
	s := string(num)
	if s == "" {
		return 0, nil
	}
	if strings.ContainsAny(s, "eE") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, err
		}
		return int64(math.Round(f * 1000)), nil
	}
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" {
		whole = "0"
	}
	w, err := strconv.ParseUint(whole, 10, 63)
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
		for _, c := range frac[3:] {
			if c < '0' || c > '9' {
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
