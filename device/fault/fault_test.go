package fault_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/fault"
	"github.com/pipert/pipert/internal/leaktest"
)

func TestMain(m *testing.M) { leaktest.Main(m) }

func sim(t *testing.T) device.Device {
	t.Helper()
	d, err := device.NewSim(device.SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestFaultsFollowTheirRules: each effect at each kind of call, on the
// n-th matching call only, with the sentinel errors; an asynchronous fault
// surfaces at the next synchronisation and sticks until Reset, which
// frees every buffer and moves the epoch.
func TestFaultsFollowTheirRules(t *testing.T) {
	ctx := context.Background()
	d := fault.New(sim(t), 1, fault.Rule{Kind: fault.Launch, Op: "bad", Nth: 2})
	s := d.NewStream()
	for i, want := range []error{nil, nil, nil, device.ErrLaunchFailed, nil} {
		name := "good"
		if i%2 == 1 {
			name = "bad"
		}
		if err := s.Launch(device.Kernel{Name: name}); !errors.Is(err, want) || want == nil && err != nil {
			t.Fatalf("launch %d (%s): %v, want %v", i, name, err, want)
		}
	}
	if d.Injected() != 1 {
		t.Fatalf("%d faults injected", d.Injected())
	}
	for _, c := range []struct {
		rule fault.Rule
		call func(s device.Stream) error
		want error
	}{
		{fault.Rule{Kind: fault.Alloc, Nth: 1}, func(device.Stream) error { _, err := d.Alloc(8, false); return err }, device.ErrOutOfMemory},
		{fault.Rule{Kind: fault.CopyH2D, Nth: 1}, func(s device.Stream) error { return s.CopyH2D(mustAlloc(t, d), make([]byte, 8)) }, device.ErrCopyFailed},
		{fault.Rule{Kind: fault.CopyD2H, Nth: 1}, func(s device.Stream) error { return s.CopyD2H(ctx, make([]byte, 8), mustAlloc(t, d)) }, device.ErrCopyFailed},
		{fault.Rule{Kind: fault.CopyD2D, Nth: 1}, func(s device.Stream) error { return s.CopyD2D(mustAlloc(t, d), mustAlloc(t, d)) }, device.ErrCopyFailed},
		{fault.Rule{Kind: fault.Sync, Nth: 1}, func(s device.Stream) error { return s.Synchronize(ctx) }, device.ErrKernelFault},
		{fault.Rule{Kind: fault.Launch, Effect: fault.Lost, Nth: 1}, func(s device.Stream) error { return s.Launch(device.Kernel{}) }, device.ErrDeviceLost},
	} {
		d.SetRules(c.rule)
		if err := c.call(d.NewStream()); !errors.Is(err, c.want) {
			t.Errorf("%v: %v, want %v", c.rule, err, c.want)
		}
		if err := d.Reset(); err != nil {
			t.Fatal(err)
		}
	}
	// Asynchronous: the launch succeeds, the next sync fails, and so does
	// every call after it until Reset; frees still work.
	d.SetRules(fault.Rule{Kind: fault.Launch, Effect: fault.Async, Nth: 1})
	b := mustAlloc(t, d)
	s = d.NewStream()
	if err := s.Launch(device.Kernel{}); err != nil {
		t.Fatalf("the faulting launch itself: %v", err)
	}
	ev := d.NewEvent()
	s.Record(ev)
	if err := ev.Synchronize(ctx); !errors.Is(err, device.ErrKernelFault) {
		t.Fatalf("sync after an asynchronous fault: %v", err)
	}
	if _, err := d.Alloc(8, false); !errors.Is(err, device.ErrKernelFault) {
		t.Fatalf("alloc on a faulted device: %v", err)
	}
	if err := s.Launch(device.Kernel{}); !errors.Is(err, device.ErrKernelFault) {
		t.Fatalf("launch on a faulted device: %v", err)
	}
	if err := d.Free(b); err != nil {
		t.Fatalf("free on a faulted device: %v", err)
	}
	if d.Faulted() == nil {
		t.Fatal("Faulted is nil on a faulted device")
	}
	// Reset: healthy again, every buffer freed, a new epoch; a buffer held
	// from before is not freed twice.
	d.SetRules()
	if err := d.Reset(); err != nil {
		t.Fatal(err)
	}
	held := mustAlloc(t, d)
	d.SetRules(fault.Rule{Kind: fault.Sync, Nth: 1})
	_ = s.Synchronize(ctx)
	epoch := d.Epoch()
	if err := d.Reset(); err != nil {
		t.Fatal(err)
	}
	if d.Epoch() != epoch+1 || d.Faulted() != nil || d.Stats().MemInUse != 0 {
		t.Fatalf("after Reset: epoch %d (was %d), faulted %v, %d bytes in use", d.Epoch(), epoch, d.Faulted(), d.Stats().MemInUse)
	}
	if err := d.Free(held); err == nil {
		t.Fatal("a buffer Reset freed was freed again")
	}
	if err := d.NewStream().Launch(device.Kernel{}); err != nil {
		t.Fatalf("launch after Reset: %v", err)
	}
}

// TestProbabilisticRulesAreSeeded: the same seed injects at the same calls.
func TestProbabilisticRulesAreSeeded(t *testing.T) {
	run := func(seed uint64) []int {
		d := fault.New(sim(t), seed, fault.Rule{Kind: fault.Launch, Prob: 0.3})
		s := d.NewStream()
		var at []int
		for i := range 50 {
			if s.Launch(device.Kernel{}) != nil {
				at = append(at, i)
			}
		}
		return at
	}
	a, b := run(7), run(7)
	if len(a) == 0 || len(a) == 50 || len(a) != len(b) {
		t.Fatalf("seeded runs: %v and %v", a, b)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("seeded runs differ: %v and %v", a, b)
		}
	}
}

func mustAlloc(t *testing.T, d device.Device) device.Buffer {
	t.Helper()
	b, err := d.Alloc(8, true)
	if err != nil {
		t.Fatalf("alloc: %v", err)
	}
	return b
}

// pinned is a Sim with pinned host memory.
type pinned struct {
	*device.Sim
	freed int
}

func (p *pinned) MallocHost(size int64) ([]byte, time.Duration, error) {
	return make([]byte, size), time.Microsecond, nil
}

func (p *pinned) FreeHost([]byte) error { p.freed++; return nil }

// TestHostAllocatorForwarded: the wrapper forwards pinned host memory to
// a device that has it and says errors.ErrUnsupported otherwise.
func TestHostAllocatorForwarded(t *testing.T) {
	sim, err := device.NewSim(device.SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := &pinned{Sim: sim}
	b, d, err := fault.New(in, 1).MallocHost(64)
	if err != nil || len(b) != 64 || d != time.Microsecond {
		t.Fatalf("forwarded MallocHost: %d bytes, %v, %v", len(b), d, err)
	}
	if err := fault.New(in, 1).FreeHost(b); err != nil || in.freed != 1 {
		t.Fatalf("forwarded FreeHost: %v, %d frees", err, in.freed)
	}
	if _, _, err := fault.New(sim, 1).MallocHost(64); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("MallocHost on a device without pinned memory: %v, want ErrUnsupported", err)
	}
	if err := fault.New(sim, 1).FreeHost(b); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("FreeHost on a device without pinned memory: %v, want ErrUnsupported", err)
	}
}

// TestSyncRuleOfAStreamSparesOtherStreamsEvents checks that a Sync rule
// for stream 2 fires at the Synchronize of an event stream 2 recorded, not
// at one stream 1 recorded.
func TestSyncRuleOfAStreamSparesOtherStreamsEvents(t *testing.T) {
	d := fault.New(sim(t), 1, fault.Rule{Kind: fault.Sync, Stream: 2, Nth: 1})
	s1, s2 := d.NewStream(), d.NewStream()
	e1, e2 := d.NewEvent(), d.NewEvent()
	s1.Record(e1)
	if err := e1.Synchronize(t.Context()); err != nil {
		t.Fatalf("stream 1's event: %v (the rule is for stream 2)", err)
	}
	if err := s1.Synchronize(t.Context()); err != nil {
		t.Fatalf("stream 1: %v", err)
	}
	s2.Record(e2)
	if err := e2.Synchronize(t.Context()); !errors.Is(err, device.ErrKernelFault) {
		t.Fatalf("stream 2's event: %v, want ErrKernelFault", err)
	}
}
