package fabric_test

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/fabric"
)

func model(t *testing.T, ranks int) *fabric.Model {
	t.Helper()
	m, err := fabric.NewModel(fabric.Config{Ranks: ranks, Link: fabricLink()})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// 1 GB/s and 1 µs: a byte is a nanosecond.
func fabricLink() device.Link { return device.Link{Latency: time.Microsecond, Bandwidth: 1e9} }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestModelStreamOrderAndHost(t *testing.T) {
	m := model(t, 1)
	m.LaunchLatency = 2 * time.Microsecond
	must(t, m.Add(0, fabric.Kernel{Name: "a", Host: 10 * time.Microsecond,
		Lanes: [][]fabric.Item{{{Work: 5 * time.Microsecond}}, {{Work: 8 * time.Microsecond}}}}))
	// b is issued at host 15 µs (10 + 5), starts at max(17, a's end 20).
	must(t, m.Add(0, fabric.Kernel{Name: "b", Host: 5 * time.Microsecond, Sync: true,
		Lanes: [][]fabric.Item{{{Work: time.Microsecond}}}}))
	// c: host waited for b (end 21), issues at 21 + 30, starts at 53.
	must(t, m.Add(0, fabric.Kernel{Name: "c", Host: 30 * time.Microsecond,
		Lanes: [][]fabric.Item{{{Work: time.Microsecond}}}}))
	r, err := m.Run()
	must(t, err)
	if r.Makespan != 54*time.Microsecond {
		t.Fatalf("makespan %v, want 54µs", r.Makespan)
	}
	if r.Ranks[0].DeviceBusy != 10*time.Microsecond || r.Ranks[0].HostBusy != 45*time.Microsecond {
		t.Fatalf("%+v", r.Ranks[0])
	}
}

func TestModelLinkSharedAndFlags(t *testing.T) {
	m := model(t, 2)
	f := m.Flag("ready", 1, 0)
	g := m.Flag("ready2", 1, 0)
	// Two lanes of rank 0 each send 1000 B to rank 1 at t=0 over one link:
	// first come first served, they end at 1 µs and 2 µs, arrive 1 µs later.
	must(t, m.Add(0, fabric.Kernel{Name: "send", Lanes: [][]fabric.Item{
		{{Dst: 1, Bytes: 1000, Set: f}},
		{{Dst: 1, Bytes: 1000, Set: g}},
	}}))
	must(t, m.Add(1, fabric.Kernel{Name: "recv", Lanes: [][]fabric.Item{
		{{Wait: f, Work: 100 * time.Nanosecond}},
		{{Wait: g, Work: 100 * time.Nanosecond}},
	}}))
	m.Trace = true
	r, err := m.Run()
	must(t, err)
	if r.Makespan != 3100*time.Nanosecond {
		t.Fatalf("makespan %v, want 3.1µs", r.Makespan)
	}
	if r.Ranks[1].FlagWait != 5*time.Microsecond { // 2 µs + 3 µs
		t.Fatalf("flag wait %v", r.Ranks[1].FlagWait)
	}
	if len(r.Flows) != 2 || r.Flows[1].SetAt != 3000 || r.Flows[1].Set.Rank != 0 {
		t.Fatalf("flows %+v", r.Flows)
	}
	if got := r.LinkBusy[m.Config().LinkOf(0, 1)]; got != 2*time.Microsecond {
		t.Fatalf("link busy %v", got)
	}
}

func TestModelRateBoundsALane(t *testing.T) {
	m := model(t, 2)
	// 1000 B at 0.5 GB/s per lane: 2 µs although the link needs 1 µs.
	must(t, m.Add(0, fabric.Kernel{Name: "send", Lanes: [][]fabric.Item{{{Dst: 1, Bytes: 1000, Rate: 0.5e9}}}}))
	r, err := m.Run()
	must(t, err)
	if r.Makespan != 2*time.Microsecond {
		t.Fatalf("makespan %v", r.Makespan)
	}
}

func TestModelDeterministic(t *testing.T) {
	build := func() *fabric.Model {
		m := model(t, 4)
		m.Trace = true
		flags := make([]fabric.FlagID, 4)
		for r := range 4 {
			flags[r] = m.Flag("f", (r+1)%4, r)
		}
		for r := range 4 {
			var lanes [][]fabric.Item
			for j := range 3 {
				lanes = append(lanes, []fabric.Item{{Work: time.Duration(100*j+r) * time.Nanosecond, Dst: (r + 1) % 4, Bytes: int64(300 + j)}})
			}
			lanes[0] = append(lanes[0], fabric.Item{Dst: (r + 1) % 4, Bytes: 10, Set: flags[r]})
			must(t, m.Add(r, fabric.Kernel{Name: "send", Lanes: lanes}))
			must(t, m.Add(r, fabric.Kernel{Name: "recv", Lanes: [][]fabric.Item{{{Wait: flags[(r+3)%4], Work: time.Microsecond}}}}))
		}
		return m
	}
	a, err := build().Run()
	must(t, err)
	for range 5 {
		b, err := build().Run()
		must(t, err)
		if !reflect.DeepEqual(a, b) {
			t.Fatal("two runs of the same model differ")
		}
	}
}

func TestModelWatchdog(t *testing.T) {
	m := model(t, 3)
	f := m.Flag("tok[7]", 1, 2)
	must(t, m.Add(1, fabric.Kernel{Name: "dispatch-recv", Lanes: [][]fabric.Item{{{Wait: f}}}}))
	_, err := m.Run()
	if !errors.Is(err, fabric.ErrWatchdog) {
		t.Fatalf("got %v", err)
	}
	for _, want := range []string{"tok[7]", "dispatch-recv", "rank 2 should have set it"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	// Set, but 20 ms after the wait began: over the 10 ms watchdog.
	m = model(t, 2)
	g := m.Flag("late", 1, 0)
	must(t, m.Add(0, fabric.Kernel{Name: "slow", Lanes: [][]fabric.Item{{{Work: 20 * time.Millisecond, Set: g}}}}))
	must(t, m.Add(1, fabric.Kernel{Name: "wait", Lanes: [][]fabric.Item{{{Wait: g}}}}))
	if _, err := m.Run(); !errors.Is(err, fabric.ErrWatchdog) {
		t.Fatalf("late flag: %v", err)
	}
	m.Watchdog = time.Second
	r, err := m.Run()
	if err != nil || r.Ranks[1].FlagWait != 20*time.Millisecond {
		t.Fatalf("with a longer watchdog: %v, wait %v", err, r.Ranks[1].FlagWait)
	}
}

func TestModelBadInput(t *testing.T) {
	m := model(t, 2)
	if err := m.Add(2, fabric.Kernel{Name: "x"}); !errors.Is(err, fabric.ErrConfig) {
		t.Errorf("rank out of range: %v", err)
	}
	if err := m.Add(0, fabric.Kernel{Name: "x", Lanes: [][]fabric.Item{{{Work: -1}}}}); !errors.Is(err, fabric.ErrConfig) {
		t.Errorf("negative work: %v", err)
	}
	if err := m.Add(0, fabric.Kernel{Name: "x", Lanes: [][]fabric.Item{{{Dst: 9, Bytes: 1}}}}); !errors.Is(err, fabric.ErrConfig) {
		t.Errorf("peer out of range: %v", err)
	}
	if err := m.Add(0, fabric.Kernel{Name: "x", Lanes: [][]fabric.Item{{{Wait: 3}}}}); !errors.Is(err, fabric.ErrConfig) {
		t.Errorf("undeclared flag: %v", err)
	}
	// A rate that is not a number, infinite, or so small that the bytes
	// would take more than a day (its nanoseconds overflow): errors, not
	// a transfer without a limit.
	for _, rate := range []float64{math.NaN(), math.Inf(1), 1e-300, 5e-324, 1} {
		err := m.Add(0, fabric.Kernel{Name: "x", Lanes: [][]fabric.Item{{{Dst: 1, Bytes: 1 << 20, Rate: rate}}}})
		if !errors.Is(err, fabric.ErrConfig) {
			t.Errorf("rate %v for 1 MiB: %v, want ErrConfig", rate, err)
		}
	}
	// Bytes whose crossing of their link takes more than a day (at the
	// fabric's bandwidth), and crossings that would add up past what Run's
	// clocks hold: errors, not a negative link time and a makespan of 0.
	slow, herr := fabric.NewModel(fabric.Config{Ranks: 2, Link: device.Link{Bandwidth: 1e-3}})
	if herr != nil {
		t.Fatal(herr)
	}
	if err := slow.Add(0, fabric.Kernel{Name: "x", Lanes: [][]fabric.Item{{{Dst: 1, Bytes: 64 << 20}}}}); !errors.Is(err, fabric.ErrConfig) {
		t.Errorf("64 MiB over a link of 1e-3 B/s: %v, want ErrConfig", err)
	}
	huge, herr := fabric.NewModel(fabric.Config{Ranks: 2})
	if herr != nil {
		t.Fatal(herr)
	}
	var lane []fabric.Item
	for range 100 {
		lane = append(lane, fabric.Item{Dst: 1, Bytes: 4e15}) // 17 hours each at 64 GB/s
	}
	if err := huge.Add(0, fabric.Kernel{Name: "x", Lanes: [][]fabric.Item{lane}}); err != nil {
		t.Fatal(err)
	}
	for n := 0; herr == nil && n < 2000; n++ { // about 740 fit
		herr = huge.Add(0, fabric.Kernel{Name: "x", Lanes: [][]fabric.Item{lane}})
	}
	if !errors.Is(herr, fabric.ErrConfig) {
		t.Errorf("crossings adding up past 146 years: %v, want ErrConfig", herr)
	}
	if res, err := huge.Run(); err != nil || res.Makespan <= 0 || res.LinkBusy[huge.Config().LinkOf(0, 1)] <= 0 {
		t.Errorf("the crossings added: makespan %v, link busy %v, %v", res.Makespan, res.LinkBusy, err)
	}
	// Work or host time of more than a day, and times that would add up
	// past what Run's clocks hold, are errors, not a wrapped makespan.
	const day = 24 * time.Hour
	if err := m.Add(0, fabric.Kernel{Name: "x", Lanes: [][]fabric.Item{{{Work: day + 1}}}}); !errors.Is(err, fabric.ErrConfig) {
		t.Errorf("work of more than a day: %v", err)
	}
	if err := m.Add(0, fabric.Kernel{Name: "x", Host: day + 1}); !errors.Is(err, fabric.ErrConfig) {
		t.Errorf("host time of more than a day: %v", err)
	}
	big := model(t, 1)
	var err error
	added := 0
	for ; err == nil && added < 200_000; added++ {
		err = big.Add(0, fabric.Kernel{Name: "day", Host: day, Lanes: [][]fabric.Item{{{Work: day}}}})
	}
	if !errors.Is(err, fabric.ErrConfig) {
		t.Fatalf("%d kernels of two days each: %v, want ErrConfig once they pass 146 years", added, err)
	}
	res, err := big.Run()
	if err != nil {
		t.Fatal(err)
	}
	if res.Makespan <= 0 {
		t.Errorf("makespan %v of the kernels added: overflowed", res.Makespan)
	}
	// A flag on a rank outside the fabric fails Run.
	bad := model(t, 2)
	bad.Flag("f", 5, 0)
	if _, err := bad.Run(); !errors.Is(err, fabric.ErrConfig) {
		t.Errorf("a flag owned by rank 5 of 2: Run = %v, want ErrConfig", err)
	}
	// An unchecked Config names its links without dividing by zero.
	if got := (fabric.Config{}).LinkName(3); got == "" {
		t.Errorf("LinkName of a zero Config: %q", got)
	}
}
