package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// A Handler receives a trace from Scan, in the order of the file.
type Handler interface {
	// Track reports track i when the reader learns of it, and again when
	// it learns more (a name, a group). Tracks are numbered from 0 in the
	// order they appear, as in Parsed.Tracks.
	Track(i int, t TrackInfo)
	// Event reports one event, on a track already reported. ev is valid
	// only during the call.
	Event(ev *Event)
}

// Scan reads a trace in either format from r in one pass and hands its
// tracks and events to h as it reads them. Its memory is bounded by the
// trace's tracks and names, not by its length: it holds one Perfetto packet
// (or one batch of compressed packets), or one JSON event, at a time.
//
// The events are those Parse returns, in the same order, with one
// difference: the Perfetto format marks only the terminating end of a flow,
// and Parse makes the earliest other occurrence of each flow id its
// EvFlowBegin, which needs the whole trace; Scan reports every occurrence
// that does not terminate its flow as EvFlowStep.
//
// On an error — a truncated file, bytes that are not a trace — the tracks
// and events before it have been handed over; the error says where the
// reading stopped. A nil r is an error wrapping ErrMisuse.
func Scan(r io.Reader, h Handler) (Format, error) {
	if r == nil {
		return 0, errNilReader
	}
	br := bufio.NewReaderSize(r, 256<<10)
	// As Parse: JSON if the first byte that is not white space opens an
	// object or an array, else Perfetto (whose first byte may well be a
	// newline, 0x0a, the tag of a packet).
detect:
	for n := 1; n <= br.Size(); n++ {
		b, err := br.Peek(n)
		if len(b) < n {
			if err == io.EOF {
				return Perfetto, scanPerfetto(br, h)
			}
			return 0, fmt.Errorf("trace: %w", err)
		}
		switch c := b[n-1]; c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{', '[':
			return JSON, scanJSON(br, h)
		}
		break detect
	}
	return Perfetto, scanPerfetto(br, h)
}

// ScanFile scans the trace file at path; see Scan.
func ScanFile(path string, h Handler) (Format, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("trace: %w", err)
	}
	defer f.Close()
	format, err := Scan(f, h)
	if err != nil {
		return format, fmt.Errorf("trace: %s: %w", path, err)
	}
	return format, nil
}

// maxPacket bounds the size of one top-level Perfetto packet Scan accepts.
const maxPacket = 64 << 20

// maxInflated bounds what one compressed_packets field inflates to, so that
// a small file cannot make a reader hold gigabytes (zlib compresses zeros
// about 1000:1). pipert writes batches of 256 KiB; Perfetto's own are of
// the same order.
const maxInflated = 8 << 20

// scanPerfetto reads a Perfetto trace packet by packet.
func scanPerfetto(br *bufio.Reader, h Handler) error {
	r := newPBReader(h)
	var (
		off  int64 // bytes read
		buf  []byte
		pkts int
	)
	for {
		start := off
		tag, n, err := readVarint(br)
		off += int64(n)
		if err == io.EOF && n == 0 {
			return nil
		}
		if err != nil {
			return fmt.Errorf("perfetto: truncated after %d packets, at byte %d: %w", pkts, start, err)
		}
		num, typ := protowire.DecodeTag(tag)
		if num <= 0 {
			return fmt.Errorf("perfetto: not a trace: bad field tag at byte %d", start)
		}
		var size uint64
		switch typ {
		case protowire.VarintType:
			_, n, err = readVarint(br)
		case protowire.Fixed64Type:
			n, err = br.Discard(8)
		case protowire.Fixed32Type:
			n, err = br.Discard(4)
		case protowire.BytesType:
			size, n, err = readVarint(br)
		default:
			return fmt.Errorf("perfetto: not a trace: field %d of wire type %d at byte %d", num, typ, start)
		}
		off += int64(n)
		if err != nil {
			return fmt.Errorf("perfetto: truncated after %d packets, at byte %d: %w", pkts, start, unexpected(err))
		}
		if typ != protowire.BytesType {
			continue
		}
		if size > maxPacket {
			return fmt.Errorf("perfetto: packet at byte %d of %d bytes, more than %d", start, size, maxPacket)
		}
		if num != fTracePacket {
			m, err := br.Discard(int(size))
			off += int64(m)
			if err != nil {
				return fmt.Errorf("perfetto: truncated after %d packets, at byte %d: %w", pkts, start, unexpected(err))
			}
			continue
		}
		// Grown as the bytes arrive: a truncated or foreign file may
		// announce far more than it holds.
		buf = buf[:0]
		for uint64(len(buf)) < size {
			n := int(min(size-uint64(len(buf)), 1<<20))
			buf = slices.Grow(buf, n)
			m, err := io.ReadFull(br, buf[len(buf):len(buf)+n])
			buf = buf[:len(buf)+m]
			off += int64(m)
			if err != nil {
				return fmt.Errorf("perfetto: truncated after %d packets: packet at byte %d has %d of its %d bytes: %w", pkts, start, len(buf), size, unexpected(err))
			}
		}
		if err := r.packet(buf, 0); err != nil {
			return fmt.Errorf("packet at byte %d: %w", start, err)
		}
		pkts++
	}
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// readVarint reads a protobuf varint; n is the number of bytes read.
func readVarint(br *bufio.Reader) (v uint64, n int, err error) {
	for shift := uint(0); ; shift += 7 {
		c, err := br.ReadByte()
		if err != nil {
			if n > 0 {
				err = unexpected(err)
			}
			return 0, n, err
		}
		n++
		if shift == 63 && c > 1 {
			return 0, n, errors.New("varint overflows 64 bits")
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, n, nil
		}
	}
}

// maxInterned bounds the strings internBytes keeps.
const maxInterned = 1 << 16

// internBytes returns b as a string, the same string for the same bytes as
// long as the table m has room.
func internBytes(m *map[string]string, b []byte) string {
	if s, ok := (*m)[string(b)]; ok {
		return s
	}
	s := string(b)
	if *m == nil {
		*m = map[string]string{}
	}
	if len(*m) < maxInterned {
		(*m)[s] = s
	}
	return s
}

// maxJSONEvent bounds the size of one JSON event Scan accepts.
const maxJSONEvent = 16 << 20

// jsonScanner reads the Chrome JSON format one event at a time: the
// top-level object (or array) is walked byte by byte, each element of
// traceEvents is copied whole into obj and decoded from there.
type jsonScanner struct {
	br   *bufio.Reader
	off  int64 // bytes read
	obj  []byte
	st   *jsonState
	je   jsonEvent
	strs map[string]string
}

func scanJSON(br *bufio.Reader, h Handler) error {
	s := &jsonScanner{br: br, st: newJSONState(h)}
	c, err := s.ws()
	if err != nil {
		return err
	}
	if c == '[' {
		return s.events()
	}
	// An object: find "traceEvents", skip the rest.
	s.next()
	for first := true; ; first = false {
		c, err := s.ws()
		if err != nil {
			return err
		}
		if c == '}' {
			s.next()
			return nil
		}
		if !first {
			if c != ',' {
				return s.syntax("',' or '}' after an object member")
			}
			s.next()
			if c, err = s.ws(); err != nil {
				return err
			}
		}
		if c != '"' {
			return s.syntax("an object key")
		}
		s.obj = s.obj[:0]
		if err := s.copyValue(); err != nil {
			return err
		}
		var key string
		if err := json.Unmarshal(s.obj, &key); err != nil {
			return fmt.Errorf("json: key at byte %d: %w", s.off, err)
		}
		if c, err = s.ws(); err != nil {
			return err
		}
		if c != ':' {
			return s.syntax("':' after a key")
		}
		s.next()
		if c, err = s.ws(); err != nil {
			return err
		}
		if strings.EqualFold(key, "traceEvents") && c == '[' {
			if err := s.events(); err != nil {
				return err
			}
			continue
		}
		s.obj = s.obj[:0]
		if err := s.copyValue(); err != nil {
			return err
		}
	}
}

// events reads an array of events, the reader at its '['.
func (s *jsonScanner) events() error {
	s.next()
	for n := 0; ; n++ {
		c, err := s.ws()
		if err != nil {
			return err
		}
		if c == ']' {
			s.next()
			return nil
		}
		if n > 0 {
			if c != ',' {
				return s.syntax("',' or ']' after an event")
			}
			s.next()
			if _, err := s.ws(); err != nil {
				return err
			}
		}
		s.obj = s.obj[:0]
		if err := s.copyValue(); err != nil {
			return err
		}
		if s.obj[0] != '{' {
			continue
		}
		if err := s.decodeEvent(n); err != nil {
			return err
		}
		if err := s.st.add(n, &s.je); err != nil {
			return err
		}
	}
}

// window returns the bytes buffered at the reader, reading more if there
// are none; it is empty at the end of the input.
func (s *jsonScanner) window() ([]byte, error) {
	if s.br.Buffered() == 0 {
		if _, err := s.br.Peek(1); err != nil {
			return nil, err
		}
	}
	b, _ := s.br.Peek(s.br.Buffered())
	return b, nil
}

// ws skips white space and returns the next byte, unread.
func (s *jsonScanner) ws() (byte, error) {
	for {
		b, err := s.window()
		if err != nil {
			return 0, fmt.Errorf("json: truncated at byte %d: %w", s.off, unexpected(err))
		}
		i := skipWS(b, 0)
		_, _ = s.br.Discard(i)
		s.off += int64(i)
		if i < len(b) {
			return b[i], nil
		}
	}
}

// next consumes the byte ws returned.
func (s *jsonScanner) next() {
	_, _ = s.br.Discard(1)
	s.off++
}

func (s *jsonScanner) syntax(want string) error {
	return fmt.Errorf("json: syntax error at byte %d: want %s", s.off, want)
}

// copyValue appends the JSON value at the reader to s.obj: a string, an
// object or array (balanced, strings respected), or a literal running to
// the next delimiter, which stays unread.
func (s *jsonScanner) copyValue() error {
	var (
		kind            byte // '"', '{' (an object or array) or 'l' (a literal)
		depth           int
		inStr, esc, end bool
	)
	for !end {
		b, err := s.window()
		if err != nil {
			return fmt.Errorf("json: truncated at byte %d: %w", s.off, unexpected(err))
		}
		i := 0
		if kind == 0 {
			switch b[0] {
			case '"':
				kind, inStr, i = '"', true, 1
			case '{', '[':
				kind, depth, i = '{', 1, 1
			default:
				kind = 'l'
			}
		}
	scan:
		for ; i < len(b); i++ {
			c := b[i]
			switch {
			case kind == 'l':
				switch c {
				case ',', '}', ']', ':', ' ', '\t', '\r', '\n':
					end = true
					break scan
				}
			case inStr:
				switch {
				case esc:
					esc = false
				case c == '\\':
					esc = true
				case c == '"':
					inStr = false
					if depth == 0 {
						i++
						end = true
						break scan
					}
				}
			case c == '"':
				inStr = true
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				depth--
				if depth == 0 {
					i++
					end = true
					break scan
				}
			}
		}
		s.obj = append(s.obj, b[:i]...)
		_, _ = s.br.Discard(i)
		s.off += int64(i)
		if len(s.obj) > maxJSONEvent {
			return fmt.Errorf("json: value at byte %d longer than %d bytes", s.off, maxJSONEvent)
		}
	}
	if len(s.obj) == 0 {
		return s.syntax("a value")
	}
	return nil
}

// decodeEvent decodes the object in s.obj into s.je.
func (s *jsonScanner) decodeEvent(n int) error {
	je := &s.je
	*je = jsonEvent{}
	b := s.obj
	bad := func(what string) error { return badEvent(n, what, s.obj) }
	i := skipWS(b, 1)
	if i < len(b) && b[i] == '}' {
		return nil
	}
	for {
		i = skipWS(b, i)
		ks, ke, ok := stringAt(b, i)
		if !ok {
			return bad("bad key")
		}
		key := b[ks+1 : ke-1]
		i = skipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return bad("no ':' after a key")
		}
		i = skipWS(b, i+1)
		vs := i
		ve, ok := valueEnd(b, vs)
		if !ok {
			return bad("bad value")
		}
		v := b[vs:ve]
		null := string(v) == "null"
		field := fieldOf(key)
		switch {
		case null || field == "":
		case field == "ph" || field == "name":
			str, err := s.str(v)
			if err != nil {
				return bad(field + ": " + err.Error())
			}
			if field == "ph" {
				je.Ph = str
			} else {
				je.Name = str
			}
		case field == "pid" || field == "tid":
			x, err := strconv.ParseInt(string(v), 10, 64)
			if err != nil {
				return bad(field + " is not an integer")
			}
			if field == "pid" {
				je.Pid = x
			} else {
				je.Tid = x
			}
		case field == "ts" || field == "dur":
			num := v
			if v[0] == '"' && bytes.IndexByte(v, '\\') < 0 {
				num = v[1 : len(v)-1]
			}
			if !isNumber(num) {
				return bad(field + " is not a number")
			}
			if field == "ts" {
				je.ts = num
			} else {
				je.dur = num
			}
		case field == "id":
			je.ID = v
		case field == "args":
			je.Args = v
		}
		i = skipWS(b, ve)
		if i < len(b) && b[i] == '}' {
			return nil
		}
		if i >= len(b) || b[i] != ',' {
			return bad("no ',' between members")
		}
		i++
	}
}

func badEvent(n int, what string, obj []byte) error {
	return fmt.Errorf("json: event %d: %s: %.80s", n, what, obj)
}

// str decodes a JSON string value.
func (s *jsonScanner) str(v []byte) (string, error) {
	if len(v) < 2 || v[0] != '"' {
		return "", errors.New("not a string")
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return internBytes(&s.strs, v[1:len(v)-1]), nil
	}
	var str string
	err := json.Unmarshal(v, &str)
	return str, err
}

// fieldOf names the jsonEvent field a key sets, matched as encoding/json
// matches it (exactly, else without regard to case), or "".
func fieldOf(key []byte) string {
	for _, f := range [...]string{"ph", "name", "pid", "tid", "ts", "dur", "id", "args"} {
		if string(key) == f {
			return f
		}
	}
	for _, f := range [...]string{"ph", "name", "pid", "tid", "ts", "dur", "id", "args"} {
		if strings.EqualFold(string(key), f) {
			return f
		}
	}
	return ""
}

// isNumber reports whether b is a JSON number.
func isNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() bool {
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > j
	}
	if !digits() {
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(b)
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// stringAt returns the bounds of the JSON string starting at b[i], quotes
// included.
func stringAt(b []byte, i int) (int, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return i, j + 1, true
		}
	}
	return 0, 0, false
}

// valueEnd returns the end of the JSON value starting at b[i]: a string, a
// balanced object or array, or a literal running to the next delimiter.
func valueEnd(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		_, e, ok := stringAt(b, i)
		return e, ok
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				_, e, ok := stringAt(b, j)
				if !ok {
					return 0, false
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\r' && b[j] != '\n' {
		j++
	}
	return j, j > i
}
