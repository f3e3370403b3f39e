package trace

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"strconv"

	"github.com/klauspost/compress/zlib"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Perfetto protobuf field numbers: the only place they are written down.
// Sources, all in github.com/google/perfetto:
//
//	protos/perfetto/trace/trace.proto                              Trace
//	protos/perfetto/trace/trace_packet.proto                       TracePacket, SequenceFlags
//	protos/perfetto/trace/track_event/track_event.proto            TrackEvent, TrackEvent.Type, EventName
//	protos/perfetto/trace/interned_data/interned_data.proto        InternedData
//	protos/perfetto/trace/track_event/track_descriptor.proto       TrackDescriptor
//	protos/perfetto/trace/track_event/process_descriptor.proto     ProcessDescriptor
//	protos/perfetto/trace/track_event/thread_descriptor.proto      ThreadDescriptor
//	protos/perfetto/trace/track_event/counter_descriptor.proto     CounterDescriptor
const (
	// Trace
	fTracePacket = 1 // repeated TracePacket packet

	// TracePacket
	fPacketTimestamp       = 8  // optional uint64 timestamp (ns)
	fPacketSequenceID      = 10 // uint32 trusted_packet_sequence_id
	fPacketTrackEvent      = 11 // TrackEvent track_event
	fPacketInternedData    = 12 // optional InternedData interned_data
	fPacketSequenceFlags   = 13 // optional uint32 sequence_flags
	fPacketCompressed      = 50 // bytes compressed_packets (zlib; a Trace inside)
	fPacketTrackDescriptor = 60 // TrackDescriptor track_descriptor

	// TracePacket.SequenceFlags
	seqIncrementalStateCleared = 1 // SEQ_INCREMENTAL_STATE_CLEARED
	seqNeedsIncrementalState   = 2 // SEQ_NEEDS_INCREMENTAL_STATE

	// TrackEvent
	fEventType               = 9  // optional Type type
	fEventNameIID            = 10 // uint64 name_iid (interned EventName)
	fEventTrackUUID          = 11 // optional uint64 track_uuid
	fEventName               = 23 // string name (not interned)
	fEventCounterValue       = 30 // int64 counter_value
	fEventDoubleCounterValue = 44 // double double_counter_value
	fEventFlowIDs            = 47 // repeated fixed64 flow_ids
	fEventTerminatingFlowIDs = 48 // repeated fixed64 terminating_flow_ids

	// TrackEvent.Type
	pbTypeSliceBegin = 1 // TYPE_SLICE_BEGIN
	pbTypeSliceEnd   = 2 // TYPE_SLICE_END
	pbTypeInstant    = 3 // TYPE_INSTANT
	pbTypeCounter    = 4 // TYPE_COUNTER

	// InternedData
	fInternedEventNames = 2 // repeated EventName event_names

	// EventName
	fEventNameEntryIID  = 1 // optional uint64 iid
	fEventNameEntryName = 2 // optional string name

	// TrackDescriptor
	fTrackUUID       = 1 // optional uint64 uuid
	fTrackName       = 2 // optional string name
	fTrackProcess    = 3 // optional ProcessDescriptor process
	fTrackThread     = 4 // optional ThreadDescriptor thread
	fTrackParentUUID = 5 // optional uint64 parent_uuid
	fTrackCounter    = 8 // optional CounterDescriptor counter

	// ProcessDescriptor
	fProcessPID  = 1 // optional int32 pid
	fProcessName = 6 // optional string process_name

	// ThreadDescriptor
	fThreadPID  = 1 // optional int32 pid
	fThreadTID  = 2 // optional int32 tid
	fThreadName = 5 // optional string thread_name
)

// Identities in a Perfetto trace written here. Track uuids are small, so
// that the track_uuid of every event is a one-byte varint for the first 127
// tracks; groups (processes) are numbered far above them.
const (
	sequenceID    = 1       // the one packet sequence of the trace
	groupUUIDBase = 1 << 40 // uuid of group g is groupUUIDBase + g
	tidBase       = 1000    // tid of track i is tidBase + i; pid of group g is g
)

func trackUUID(track int) uint64 { return uint64(track) + 1 }
func groupUUID(g Group) uint64   { return groupUUIDBase + uint64(g) }

// batchBytes is how many bytes of packets go into one compressed_packets
// packet; Perfetto asks that one stay under 512 KB.
const batchBytes = 256 << 10

// compressionLevel trades the writer's CPU for size. Measured on the
// synthetic kernel workload of the tests (12 events a kernel) with the
// standard library's zlib, the writer spent about 2.2 µs a kernel for 66
// bytes at level 1, 7 µs for 58 bytes at the default level 6, and 0.7 µs for
// 271 bytes without compression. klauspost/compress's zlib writes the same
// format about 1.75 times faster at level 1 with a slightly better ratio
// (measured on a pipebench trace: 327 against 186 MB/s, ratio 0.249 against
// 0.254): on two cores the writer shares the CPU with the traced pipeline,
// so its speed is the tracing overhead.
const compressionLevel = zlib.BestSpeed

// pbEncoder writes the Perfetto protobuf format: a Trace message streamed
// packet by packet. All packets share one sequence, so that interned names
// are written once for the whole trace; the first packet clears incremental
// state, and packets that refer to interned names say they need it.
//
// A complete slice becomes a SLICE_BEGIN packet and a SLICE_END packet. The
// end is held back until the track's next event starts at or after it, so
// that the packets of a track are in time order, as the trace processor's
// slice nesting expects. A SLICE_END always closes the innermost open slice
// of its track (it carries no name): when slices overlap without nesting,
// which the format cannot express, the ends come out of time order, and a
// reader that closes the innermost slice at each end rebuilds the true
// intervals and sees both the overlap and the backwards timestamp.
type pbEncoder struct {
	r        *Recorder
	w        *bufio.Writer
	compress bool
	first    bool   // no packet written yet
	named    []bool // by Name: interned in the output already
	groups   []bool // by Group: described already
	tracks   []pbTrack
	known    int    // tracks 0…known-1 are described
	ev, pkt  []byte // scratch for one TrackEvent and one TracePacket
	sub      []byte // scratch for nested descriptors and interned data
	hdr      []byte // scratch for framing
	batch    []byte // framed packets waiting to be compressed
	zbuf     bytes.Buffer
	zw       *zlib.Writer
}

// pbTrack is the encoder's state for one track.
type pbTrack struct {
	described bool
	hasHead   bool     // a slice begin is held back to collect its flows:
	headTS    int64    // its time
	headName  Name     // and its name
	flows     []uint64 // flow_ids of the held-back begin
	term      []uint64 // terminating_flow_ids of the held-back begin
	open      []pbOpen // slices begun and not yet ended, innermost last
}

// pbOpen is a slice open on a track: a complete slice, whose end is known
// and pending, or one opened by Begin, which waits for its End.
type pbOpen struct {
	end      int64
	complete bool
}

func newPerfettoEncoder(r *Recorder, w *bufio.Writer, compress bool) *pbEncoder {
	return &pbEncoder{r: r, w: w, compress: compress, first: true}
}

func (e *pbEncoder) start() error { return nil }

// describeNew describes every track made since the last chunk, not only
// the tracks that hold events: a reader that analyses the trace as it
// streams (Scan) then learns of a track before the events of other tracks
// that it must match with that track's.
func (e *pbEncoder) describeNew() error {
	for n := e.r.numTracks(); e.known < n; e.known++ {
		if _, err := e.track(e.known); err != nil {
			return err
		}
	}
	return nil
}

func (e *pbEncoder) chunk(c *chunk) error {
	if err := e.describeNew(); err != nil {
		return err
	}
	st, err := e.track(c.track)
	if err != nil {
		return err
	}
	var pair [2]record
	for i := range c.recs[:c.n] {
		for _, rec := range c.recs[i].expand(&pair) {
			if fl := specs[rec.kind()].FlowField; fl != 0 {
				switch {
				case !st.hasHead:
					e.r.orphans.Add(1)
				case fl == fEventTerminatingFlowIDs:
					st.term = append(st.term, rec.arg)
				default:
					st.flows = append(st.flows, rec.arg)
				}
				continue
			}
			if err := e.flushHead(c.track, st); err != nil {
				return err
			}
			if err := e.endsUpTo(c.track, st, rec.ts); err != nil {
				return err
			}
			switch rec.kind() {
			case EvBegin:
				st.open = append(st.open, pbOpen{})
				st.hasHead, st.headTS, st.headName = true, rec.ts, rec.name
			case EvSlice:
				st.open = append(st.open, pbOpen{end: rec.ts + int64(rec.arg), complete: true})
				st.hasHead, st.headTS, st.headName = true, rec.ts, rec.name
			case EvEnd:
				// Complete slices still open inside the one this End closes
				// outlive it: end them first, late (see pbEncoder).
				n := len(st.open)
				for n > 0 && st.open[n-1].complete {
					if err := e.event(c.track, st.open[n-1].end, pbTypeSliceEnd, 0, 0, 0, nil, nil); err != nil {
						return err
					}
					n--
				}
				if n > 0 {
					n--
				}
				st.open = st.open[:n]
				err = e.event(c.track, rec.ts, pbTypeSliceEnd, 0, 0, 0, nil, nil)
			case EvInstant, EvCounter, EvCounterFloat:
				sp := &specs[rec.kind()]
				err = e.event(c.track, rec.ts, sp.PerfettoType, rec.name, sp.Arg, rec.arg, nil, nil)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// flushHead writes the held-back slice begin of a track with its flows.
func (e *pbEncoder) flushHead(track int, st *pbTrack) error {
	if !st.hasHead {
		return nil
	}
	st.hasHead = false
	err := e.event(track, st.headTS, pbTypeSliceBegin, st.headName, 0, 0, st.flows, st.term)
	st.flows, st.term = st.flows[:0], st.term[:0]
	return err
}

// endsUpTo writes the ends of the innermost complete slices that end at or
// before ts.
func (e *pbEncoder) endsUpTo(track int, st *pbTrack, ts int64) error {
	for n := len(st.open); n > 0 && st.open[n-1].complete && st.open[n-1].end <= ts; n-- {
		end := st.open[n-1].end
		st.open = st.open[:n-1]
		if err := e.event(track, end, pbTypeSliceEnd, 0, 0, 0, nil, nil); err != nil {
			return err
		}
	}
	return nil
}

// track returns the state of a track, describing the track first if this is
// its first appearance.
func (e *pbEncoder) track(i int) (*pbTrack, error) {
	for len(e.tracks) <= i {
		e.tracks = append(e.tracks, pbTrack{})
	}
	st := &e.tracks[i]
	if !st.described {
		st.described = true
		if err := e.describe(i); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// describe writes the TrackDescriptor of track i, and of its group first if
// the group has not been described.
func (e *pbEncoder) describe(i int) error {
	m := e.r.trackMeta(i)
	for len(e.groups) <= int(m.group) {
		e.groups = append(e.groups, false)
	}
	if !e.groups[m.group] {
		e.groups[m.group] = true
		name := e.r.groupName(m.group)
		p := e.sub[:0]
		p = protowire.AppendTag(p, fProcessPID, protowire.VarintType)
		p = protowire.AppendVarint(p, uint64(m.group))
		p = protowire.AppendTag(p, fProcessName, protowire.BytesType)
		p = protowire.AppendString(p, name)
		e.sub = p
		td := e.ev[:0]
		td = protowire.AppendTag(td, fTrackUUID, protowire.VarintType)
		td = protowire.AppendVarint(td, groupUUID(m.group))
		td = protowire.AppendTag(td, fTrackName, protowire.BytesType)
		td = protowire.AppendString(td, name)
		td = protowire.AppendTag(td, fTrackProcess, protowire.BytesType)
		td = protowire.AppendBytes(td, p)
		e.ev = td
		if err := e.descriptor(td); err != nil {
			return err
		}
	}
	td := e.ev[:0]
	td = protowire.AppendTag(td, fTrackUUID, protowire.VarintType)
	td = protowire.AppendVarint(td, trackUUID(i))
	td = protowire.AppendTag(td, fTrackParentUUID, protowire.VarintType)
	td = protowire.AppendVarint(td, groupUUID(m.group))
	td = protowire.AppendTag(td, fTrackName, protowire.BytesType)
	td = protowire.AppendString(td, m.name)
	switch m.kind {
	case SliceTrack:
		t := e.sub[:0]
		t = protowire.AppendTag(t, fThreadPID, protowire.VarintType)
		t = protowire.AppendVarint(t, uint64(m.group))
		t = protowire.AppendTag(t, fThreadTID, protowire.VarintType)
		t = protowire.AppendVarint(t, uint64(tidBase+i))
		t = protowire.AppendTag(t, fThreadName, protowire.BytesType)
		t = protowire.AppendString(t, m.name)
		e.sub = t
		td = protowire.AppendTag(td, fTrackThread, protowire.BytesType)
		td = protowire.AppendBytes(td, t)
	case CounterTrack:
		td = protowire.AppendTag(td, fTrackCounter, protowire.BytesType)
		td = protowire.AppendBytes(td, nil)
	}
	e.ev = td
	return e.descriptor(td)
}

// descriptor writes a packet holding the TrackDescriptor td.
func (e *pbEncoder) descriptor(td []byte) error {
	p := e.pkt[:0]
	p = protowire.AppendTag(p, fPacketSequenceID, protowire.VarintType)
	p = protowire.AppendVarint(p, sequenceID)
	if e.first {
		e.first = false
		p = protowire.AppendTag(p, fPacketSequenceFlags, protowire.VarintType)
		p = protowire.AppendVarint(p, seqIncrementalStateCleared)
	}
	p = protowire.AppendTag(p, fPacketTrackDescriptor, protowire.BytesType)
	p = protowire.AppendBytes(p, td)
	e.pkt = p
	return e.emit(p)
}

// event writes one TrackEvent packet. val is a counter value when arg is
// ArgInt or ArgFloat, and unused otherwise.
func (e *pbEncoder) event(track int, ts int64, typ uint64, name Name, arg Arg, val uint64, flows, term []uint64) error {
	// The tags of the fields every event has are constants of one byte
	// (field numbers below 16), and most values are below 128: written
	// without a call each (as protowire calls they took a third of the
	// encoder's time).
	ev := append(e.ev[:0], tagEventType)
	ev = appendSmall(ev, typ)
	ev = append(ev, tagEventTrackUUID)
	ev = appendSmall(ev, trackUUID(track))
	if name != 0 {
		ev = append(ev, tagEventNameIID)
		ev = appendSmall(ev, uint64(name))
	}
	switch arg {
	case ArgInt:
		ev = protowire.AppendTag(ev, fEventCounterValue, protowire.VarintType)
		ev = protowire.AppendVarint(ev, val)
	case ArgFloat:
		ev = protowire.AppendTag(ev, fEventDoubleCounterValue, protowire.Fixed64Type)
		ev = protowire.AppendFixed64(ev, val)
	}
	for _, id := range flows {
		ev = append(ev, tagEventFlowIDs[:]...)
		ev = binary.LittleEndian.AppendUint64(ev, id)
	}
	for _, id := range term {
		ev = append(ev, tagEventTerminatingFlowIDs[:]...)
		ev = binary.LittleEndian.AppendUint64(ev, id)
	}
	e.ev = ev

	p := append(e.pkt[:0], tagPacketTimestamp)
	p = protowire.AppendVarint(p, uint64(ts))
	p = append(p, tagPacketSequenceID, sequenceID)
	var flags byte
	if e.first {
		e.first = false
		flags |= seqIncrementalStateCleared
	}
	if name != 0 {
		flags |= seqNeedsIncrementalState
	}
	if flags != 0 {
		p = append(p, tagPacketSequenceFlags, flags)
	}
	if name != 0 {
		for len(e.named) <= int(name) {
			e.named = append(e.named, false)
		}
		if !e.named[name] {
			e.named[name] = true
			s := e.r.nameOf(name)
			en := e.sub[:0]
			en = protowire.AppendTag(en, fEventNameEntryIID, protowire.VarintType)
			en = protowire.AppendVarint(en, uint64(name))
			en = protowire.AppendTag(en, fEventNameEntryName, protowire.BytesType)
			en = protowire.AppendString(en, s)
			p = protowire.AppendTag(p, fPacketInternedData, protowire.BytesType)
			p = protowire.AppendVarint(p, uint64(protowire.SizeTag(fInternedEventNames)+protowire.SizeBytes(len(en))))
			p = protowire.AppendTag(p, fInternedEventNames, protowire.BytesType)
			p = protowire.AppendBytes(p, en)
			e.sub = en
		}
	}
	p = append(p, tagPacketTrackEvent)
	p = appendSmall(p, uint64(len(ev)))
	e.pkt = p
	return e.emitParts(p, ev)
}

// The one-byte tags event writes (each field number below 16), and the
// two-byte tags of the flow ids.
const (
	tagEventType           = fEventType<<3 | byte(protowire.VarintType)
	tagEventNameIID        = fEventNameIID<<3 | byte(protowire.VarintType)
	tagEventTrackUUID      = fEventTrackUUID<<3 | byte(protowire.VarintType)
	tagPacketTimestamp     = fPacketTimestamp<<3 | byte(protowire.VarintType)
	tagPacketSequenceID    = fPacketSequenceID<<3 | byte(protowire.VarintType)
	tagPacketSequenceFlags = fPacketSequenceFlags<<3 | byte(protowire.VarintType)
	tagPacketTrackEvent    = fPacketTrackEvent<<3 | byte(protowire.BytesType)
	tagTracePacket         = fTracePacket<<3 | byte(protowire.BytesType)
)

var (
	tagEventFlowIDs            = tag2(fEventFlowIDs, protowire.Fixed64Type)
	tagEventTerminatingFlowIDs = tag2(fEventTerminatingFlowIDs, protowire.Fixed64Type)
)

// tag2 is the tag of field num of wire type t, for a field number from 16
// to 2047: two bytes.
func tag2(num protowire.Number, t protowire.Type) [2]byte {
	var b [2]byte
	if n := len(protowire.AppendTag(b[:0], num, t)); n != 2 {
		panic("trace: a two-byte tag takes " + strconv.Itoa(n))
	}
	return b
}

// appendSmall appends v as a varint, without a call when it is below 128.
func appendSmall(b []byte, v uint64) []byte {
	if v < 0x80 {
		return append(b, byte(v))
	}
	return protowire.AppendVarint(b, v)
}

// emit writes one TracePacket, framed as a Trace.packet field, to the output
// or to the batch waiting for compression.
func (e *pbEncoder) emit(packet []byte) error {
	if e.compress {
		e.batch = protowire.AppendTag(e.batch, fTracePacket, protowire.BytesType)
		e.batch = protowire.AppendBytes(e.batch, packet)
		if len(e.batch) >= batchBytes {
			return e.flushBatch()
		}
		return nil
	}
	h := protowire.AppendTag(e.hdr[:0], fTracePacket, protowire.BytesType)
	h = protowire.AppendVarint(h, uint64(len(packet)))
	e.hdr = h
	if _, err := e.w.Write(h); err != nil {
		return err
	}
	_, err := e.w.Write(packet)
	return err
}

// emitParts is emit of the packet whose bytes are head then body, framed
// without copying them into one first when they go into a batch.
func (e *pbEncoder) emitParts(head, body []byte) error {
	if !e.compress {
		e.pkt = append(head, body...)
		return e.emit(e.pkt)
	}
	e.batch = append(e.batch, tagTracePacket)
	e.batch = appendSmall(e.batch, uint64(len(head)+len(body)))
	e.batch = append(append(e.batch, head...), body...)
	if len(e.batch) >= batchBytes {
		return e.flushBatch()
	}
	return nil
}

// flushBatch compresses the batch into one compressed_packets packet.
func (e *pbEncoder) flushBatch() error {
	if len(e.batch) == 0 {
		return nil
	}
	e.zbuf.Reset()
	if e.zw == nil {
		e.zw, _ = zlib.NewWriterLevel(&e.zbuf, compressionLevel)
	} else {
		e.zw.Reset(&e.zbuf)
	}
	if _, err := e.zw.Write(e.batch); err != nil {
		return err
	}
	if err := e.zw.Close(); err != nil {
		return err
	}
	e.batch = e.batch[:0]
	z := e.zbuf.Len()
	h := protowire.AppendTag(e.hdr[:0], fTracePacket, protowire.BytesType)
	h = protowire.AppendVarint(h, uint64(protowire.SizeTag(fPacketCompressed)+protowire.SizeBytes(z)))
	h = protowire.AppendTag(h, fPacketCompressed, protowire.BytesType)
	h = protowire.AppendVarint(h, uint64(z))
	e.hdr = h
	if _, err := e.w.Write(h); err != nil {
		return err
	}
	_, err := e.w.Write(e.zbuf.Bytes())
	return err
}

// finish describes the tracks that recorded nothing, writes every held-back
// begin and pending end, and flushes the last batch.
func (e *pbEncoder) finish() error {
	n := e.r.numTracks()
	for i := 0; i < n; i++ {
		st, err := e.track(i)
		if err != nil {
			return err
		}
		if err := e.flushHead(i, st); err != nil {
			return err
		}
		if err := e.endsUpTo(i, st, math.MaxInt64); err != nil {
			return err
		}
	}
	if e.compress {
		return e.flushBatch()
	}
	return nil
}
