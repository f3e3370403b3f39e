package trace

import (
	"bufio"
	"math"
	"strconv"
	"unicode/utf8"
)

// jsonEncoder writes the Chrome JSON trace-event format:
//
//	{"traceEvents":[
//	{"ph":"M","pid":1,"tid":0,"name":"process_name","args":{"name":"host"}},
//	{"ph":"X","pid":1,"tid":1000,"ts":12.345,"dur":0.250,"name":"infer"},
//	...
//	],"displayTimeUnit":"ns"}
//
// Groups are processes (pid = group), slice tracks are threads (tid =
// tidBase + track), counter tracks are "C" events named after the track; a
// counter track appears with its first sample, as the format has no way to
// declare one. The format knows a counter by its process and name, so the
// second, third… counter track of a group named alike (two executables
// traced under one name) is written as "name #2", "name #3"…, in the order
// their first samples come.
// Timestamps and durations are microseconds with exactly three decimals,
// formatted from integer nanoseconds. Flows are "s", "t" and "f" events at
// the start of the slice they belong to; "f" carries "bp":"e" so that it
// binds to that enclosing slice. Each event is one line.
type jsonEncoder struct {
	r      *Recorder
	w      *bufio.Writer
	buf    []byte
	events int      // events written, for the separators
	names  [][]byte // by Name: the name as a JSON string, quotes included
	groups []bool   // by Group: described already
	tracks []jsonTrack
	known  int // tracks 0…known-1 are described
	// counters counts the counter tracks described, by group and name.
	counters map[counterKey]int
}

// counterKey is what the format knows a counter track by.
type counterKey struct {
	group Group
	name  string
}

// jsonTrack is the encoder's state for one track.
type jsonTrack struct {
	described bool
	pid, tid  int
	name      []byte // the track's name as a JSON string
	open      []Name // slices opened by Begin and not ended, innermost last
	hasSlice  bool   // the previous record began a slice, at sliceTS
	sliceTS   int64
}

func newJSONEncoder(r *Recorder, w *bufio.Writer) *jsonEncoder {
	return &jsonEncoder{r: r, w: w}
}

func (e *jsonEncoder) start() error {
	_, err := e.w.WriteString(`{"traceEvents":[` + "\n")
	return err
}

func (e *jsonEncoder) finish() error {
	n := e.r.numTracks()
	for i := 0; i < n; i++ {
		if _, err := e.track(i); err != nil {
			return err
		}
	}
	_, err := e.w.WriteString("\n" + `],"displayTimeUnit":"ns"}` + "\n")
	return err
}

// describeNew describes every track made since the last chunk, not only
// the tracks that hold events: a reader that analyses the trace as it
// streams (Scan) then learns of a track before the events of other tracks
// that it must match with that track's.
func (e *jsonEncoder) describeNew() error {
	for n := e.r.numTracks(); e.known < n; e.known++ {
		if _, err := e.track(e.known); err != nil {
			return err
		}
	}
	return nil
}

func (e *jsonEncoder) chunk(c *chunk) error {
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
			k := rec.kind()
			if specs[k].FlowField != 0 {
				if !st.hasSlice {
					e.r.orphans.Add(1)
					continue
				}
				b := e.head(specs[k].Phase, st)
				b = appendField(b, "ts")
				b = appendMicros(b, st.sliceTS)
				b = append(b, `,"id":`...)
				b = strconv.AppendUint(b, rec.arg, 10)
				b = append(b, `,"cat":"flow","name":"flow"`...)
				if k == EvFlowEnd {
					b = append(b, `,"bp":"e"`...)
				}
				if err := e.write(b); err != nil {
					return err
				}
				continue
			}
			st.hasSlice = false
			b := e.head(specs[k].Phase, st)
			b = appendField(b, "ts")
			b = appendMicros(b, rec.ts)
			switch k {
			case EvBegin:
				st.open = append(st.open, rec.name)
				st.hasSlice, st.sliceTS = true, rec.ts
				b = e.appendName(b, rec.name)
			case EvSlice:
				st.hasSlice, st.sliceTS = true, rec.ts
				b = appendField(b, "dur")
				b = appendMicros(b, int64(rec.arg))
				b = e.appendName(b, rec.name)
			case EvEnd:
				if n := len(st.open); n > 0 {
					name := st.open[n-1]
					st.open = st.open[:n-1]
					b = e.appendName(b, name)
				}
			case EvInstant:
				b = append(b, `,"s":"t"`...)
				b = e.appendName(b, rec.name)
			case EvCounter, EvCounterFloat:
				b = append(b, `,"name":`...)
				b = append(b, st.name...)
				b = append(b, `,"args":{"value":`...)
				if k == EvCounter {
					b = strconv.AppendInt(b, int64(rec.arg), 10)
				} else {
					b = appendFloat(b, math.Float64frombits(rec.arg))
				}
				b = append(b, '}')
			}
			if err := e.write(b); err != nil {
				return err
			}
		}
	}
	return nil
}

// head starts an event of phase ph on a track, in e.buf.
func (e *jsonEncoder) head(ph byte, st *jsonTrack) []byte {
	b := append(e.buf[:0], `{"ph":"`...)
	b = append(b, ph, '"')
	b = appendField(b, "pid")
	b = strconv.AppendInt(b, int64(st.pid), 10)
	if st.tid != 0 {
		b = appendField(b, "tid")
		b = strconv.AppendInt(b, int64(st.tid), 10)
	}
	return b
}

// write ends the event in b and writes it.
func (e *jsonEncoder) write(b []byte) error {
	b = append(b, '}')
	e.buf = b
	if e.events > 0 {
		if _, err := e.w.WriteString(",\n"); err != nil {
			return err
		}
	}
	e.events++
	_, err := e.w.Write(b)
	return err
}

// appendName appends ,"name":"..." for an interned name.
func (e *jsonEncoder) appendName(b []byte, n Name) []byte {
	for len(e.names) <= int(n) {
		e.names = append(e.names, nil)
	}
	q := e.names[n]
	if q == nil {
		q = appendJSONString(nil, e.r.nameOf(n))
		e.names[n] = q
	}
	b = append(b, `,"name":`...)
	return append(b, q...)
}

// track returns the state of a track, writing its metadata events (and its
// group's) on its first appearance.
func (e *jsonEncoder) track(i int) (*jsonTrack, error) {
	for len(e.tracks) <= i {
		e.tracks = append(e.tracks, jsonTrack{})
	}
	st := &e.tracks[i]
	if st.described {
		return st, nil
	}
	st.described = true
	m := e.r.trackMeta(i)
	st.pid = int(m.group)
	st.name = appendJSONString(nil, m.name)
	if m.kind == CounterTrack {
		if e.counters == nil {
			e.counters = map[counterKey]int{}
		}
		k := counterKey{m.group, m.name}
		e.counters[k]++
		if n := e.counters[k]; n > 1 {
			st.name = appendJSONString(nil, m.name+" #"+strconv.Itoa(n))
		}
	}
	for len(e.groups) <= int(m.group) {
		e.groups = append(e.groups, false)
	}
	if !e.groups[m.group] {
		e.groups[m.group] = true
		g := appendJSONString(nil, e.r.groupName(m.group))
		if err := e.meta(st.pid, 0, "process_name", "name", g); err != nil {
			return nil, err
		}
		if err := e.meta(st.pid, 0, "process_sort_index", "sort_index", strconv.AppendInt(nil, int64(m.group), 10)); err != nil {
			return nil, err
		}
	}
	if m.kind == SliceTrack {
		st.tid = tidBase + i
		if err := e.meta(st.pid, st.tid, "thread_name", "name", st.name); err != nil {
			return nil, err
		}
		if err := e.meta(st.pid, st.tid, "thread_sort_index", "sort_index", strconv.AppendInt(nil, int64(i), 10)); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// meta writes one "M" metadata event whose single argument key has the JSON
// value val.
func (e *jsonEncoder) meta(pid, tid int, name, key string, val []byte) error {
	b := append(e.buf[:0], `{"ph":"M","pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(tid), 10)
	b = append(b, `,"name":"`...)
	b = append(b, name...)
	b = append(b, `","args":{"`...)
	b = append(b, key...)
	b = append(b, `":`...)
	b = append(b, val...)
	b = append(b, '}')
	return e.write(b)
}

func appendField(b []byte, key string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

// appendMicros appends ns nanoseconds as microseconds with exactly three
// decimals, using integer arithmetic only: 12345 → 12.345, -5 → -0.005.
func appendMicros(b []byte, ns int64) []byte {
	u := uint64(ns)
	if ns < 0 {
		b = append(b, '-')
		u = -u
	}
	b = strconv.AppendUint(b, u/1000, 10)
	f := u % 1000
	return append(b, '.', byte('0'+f/100), byte('0'+f/10%10), byte('0'+f%10))
}

// appendFloat appends v as a JSON number that reads back as a float (it
// always has a '.' or an exponent), or null when v is not finite, which JSON
// cannot spell.
func appendFloat(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	n := len(b)
	b = strconv.AppendFloat(b, v, 'g', -1, 64)
	for _, c := range b[n:] {
		if c == '.' || c == 'e' || c == 'E' {
			return b
		}
	}
	return append(b, '.', '0')
}

// appendJSONString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

func floatBits(v float64) uint64 { return math.Float64bits(v) }
