package trace

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// TestAppendMicros checks the integer formatting against math/big.
func TestAppendMicros(t *testing.T) {
	rng := newRand(1)
	cases := []int64{0, 1, -1, 999, 1000, 1001, -999, -1000, 123456789, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	for range 20000 {
		x := int64(rng.Uint64() >> uint(rng.IntN(64)))
		if rng.IntN(2) == 0 {
			x = -x
		}
		cases = append(cases, x)
	}
	for _, ns := range cases {
		want := new(big.Rat).SetFrac(big.NewInt(ns), big.NewInt(1000)).FloatString(3)
		if ns < 0 && ns > -1000 {
			want = "-" + strings.TrimPrefix(want, "-") // FloatString keeps the sign of -0.xxx
		}
		if got := string(appendMicros(nil, ns)); got != want {
			t.Fatalf("appendMicros(%d) = %s, want %s", ns, got, want)
		}
		if ns == math.MinInt64 {
			continue // its magnitude is out of parseMicros's range
		}
		back, err := parseMicros(json.Number(appendMicros(nil, ns)))
		if err != nil || back != ns {
			t.Fatalf("parseMicros(appendMicros(%d)) = %d, %v", ns, back, err)
		}
	}
}

func TestParseMicros(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"", 0}, {"0", 0}, {"12", 12000}, {"12.3", 12300}, {"12.345", 12345},
		{"12.3454", 12345}, {"12.3455", 12346}, {"-0.5", -500}, {".25", 250},
		{"1e3", 1000000}, {"1.5E-3", 2},
		{"1e18", math.MaxInt64}, {"-1e18", math.MinInt64}, // saturated
	} {
		got, err := parseMicros(json.Number(c.in))
		if err != nil || got != c.want {
			t.Errorf("parseMicros(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"abc", "1.2.3", "1.x", "99999999999999999999"} {
		if _, err := parseMicros(json.Number(bad)); err == nil {
			t.Errorf("parseMicros(%q) succeeded", bad)
		}
	}
}

func TestAppendJSONString(t *testing.T) {
	rng := newRand(2)
	alphabet := []string{"a", "\"", "\\", "\n", "\x00", "\x1f", "é", "世", "\xff", "\xe4\xb8", "/", "<"}
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		var got, want string
		if err := json.Unmarshal(appendJSONString(nil, s), &got); err != nil {
			t.Fatalf("appendJSONString(%q) = %s: %v", s, appendJSONString(nil, s), err)
		}
		ref, _ := json.Marshal(s) // replaces each invalid byte with U+FFFD, as we do
		if err := json.Unmarshal(ref, &want); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("appendJSONString(%q) reads back as %q, want %q", s, got, want)
		}
	}
}

func TestAppendFloat(t *testing.T) {
	for _, v := range []float64{0, 1, -2, 0.5, 1e300, 5e-324, 123456789, math.MaxFloat64} {
		s := string(appendFloat(nil, v))
		if !strings.ContainsAny(s, ".eE") {
			t.Errorf("appendFloat(%v) = %s reads back as an integer", v, s)
		}
		if back, err := strconv.ParseFloat(s, 64); err != nil || back != v {
			t.Errorf("appendFloat(%v) = %s reads back as %v, %v", v, s, back, err)
		}
	}
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if s := string(appendFloat(nil, v)); s != "null" {
			t.Errorf("appendFloat(%v) = %s, want null", v, s)
		}
	}
}

// TestOneByteTags: the tags pbEncoder.event writes as single bytes are the
// tags protowire writes (a field number of 16 or more would need two), and
// the values it writes as single bytes are varints of one byte.
func TestOneByteTags(t *testing.T) {
	for _, c := range []struct {
		tag byte
		num protowire.Number
		typ protowire.Type
	}{
		{tagEventType, fEventType, protowire.VarintType},
		{tagEventNameIID, fEventNameIID, protowire.VarintType},
		{tagEventTrackUUID, fEventTrackUUID, protowire.VarintType},
		{tagPacketTimestamp, fPacketTimestamp, protowire.VarintType},
		{tagPacketSequenceID, fPacketSequenceID, protowire.VarintType},
		{tagPacketSequenceFlags, fPacketSequenceFlags, protowire.VarintType},
		{tagPacketTrackEvent, fPacketTrackEvent, protowire.BytesType},
		{tagTracePacket, fTracePacket, protowire.BytesType},
	} {
		if want := protowire.AppendTag(nil, c.num, c.typ); len(want) != 1 || want[0] != c.tag {
			t.Errorf("field %d: tag %#x, protowire writes %x", c.num, c.tag, want)
		}
	}
	for _, v := range []uint64{sequenceID, seqIncrementalStateCleared | seqNeedsIncrementalState} {
		if n := protowire.SizeVarint(v); n != 1 {
			t.Errorf("%d takes %d bytes as a varint, want 1", v, n)
		}
	}
	for v := range uint64(300) {
		if got, want := appendSmall(nil, v), protowire.AppendVarint(nil, v); !bytes.Equal(got, want) {
			t.Errorf("appendSmall(%d) = %x, want %x", v, got, want)
		}
	}
}
