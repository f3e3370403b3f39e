package fault_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/alloc"
	"github.com/pipert/pipert/device/fault"
)

// TestNoDeviceFailsEveryCall: a Device of a nil device, and the zero
// Device, answer Name, Profile and Stats and fail every other call with
// device.ErrNoDevice, instead of panicking; so do they with a
// probabilistic rule to draw for (one that never fires).
func TestNoDeviceFailsEveryCall(t *testing.T) {
	for name, d := range map[string]*fault.Device{"New(nil)": fault.New(nil, 1), "zero": {}} {
		t.Run(name, func(t *testing.T) { noDevice(t, d) })
		t.Run(name+"/rules", func(t *testing.T) {
			if err := d.SetRules(fault.Rule{Kind: fault.Alloc, Prob: 1e-300}); err != nil {
				t.Fatal(err)
			}
			noDevice(t, d)
		})
	}
}

func noDevice(t *testing.T, d *fault.Device) {
	ctx := context.Background()
	if d.Name() == "" {
		t.Error("no name: a Config's check would not say the device is none")
	}
	if d.Profile() != (device.Profile{}) || d.Stats() != (device.Stats{}) {
		t.Errorf("Profile %+v, Stats %+v of no device", d.Profile(), d.Stats())
	}
	if _, err := d.Alloc(8, true); !errors.Is(err, device.ErrNoDevice) {
		t.Errorf("Alloc: %v", err)
	}
	if err := d.Free(device.Buffer{Addr: 1, Size: 8}); err == nil {
		t.Errorf("Free: %v", err)
	}
	if _, _, err := d.MallocHost(8); !errors.Is(err, device.ErrNoDevice) {
		t.Errorf("MallocHost: %v", err)
	}
	s, e := d.NewStream(), d.NewEvent()
	buf := device.Buffer{Addr: 1, Size: 8}
	for name, err := range map[string]error{
		"Launch":      s.Launch(device.Kernel{Name: "k"}),
		"CopyH2D":     s.CopyH2D(buf, make([]byte, 8)),
		"CopyD2H":     s.CopyD2H(ctx, make([]byte, 8), buf),
		"CopyD2D":     s.CopyD2D(buf, buf),
		"Synchronize": s.Synchronize(ctx),
		"event Sync":  e.Synchronize(ctx),
	} {
		if !errors.Is(err, device.ErrNoDevice) {
			t.Errorf("%s: %v", name, err)
		}
	}
	s.Record(e)
	s.WaitEvent(e)
	_, _, _ = s.Query(), s.Stats(), e.Query()
	d.ReleaseStream(s)
	if err := d.Reset(); err != nil {
		t.Errorf("Reset: %v", err)
	}
}

// TestBadRulesAreErrors: a rule out of range is an ErrBadRule error of
// SetRules and of every call but Free until valid rules are set, from New
// as from SetRules.
func TestBadRulesAreErrors(t *testing.T) {
	for _, r := range []fault.Rule{
		{Kind: 0, Nth: 1},
		{Kind: 99, Nth: 1},
		{Kind: fault.Launch, Effect: 99, Nth: 1},
		{Kind: fault.Launch, Prob: 1.5},
		{Kind: fault.Launch, Prob: -0.1},
		{Kind: fault.Launch, Prob: math.NaN()},
		{Kind: fault.Launch, Nth: -1},
		{Kind: fault.Launch, Stream: -1, Nth: 1},
		{Kind: fault.Alloc, Op: "MatMul", Nth: 1},
	} {
		d := fault.New(sim(t), 1, fault.Rule{Kind: fault.Sync, Nth: 5}, r)
		if _, err := d.Alloc(8, false); !errors.Is(err, fault.ErrBadRule) {
			t.Errorf("%+v: Alloc after New: %v", r, err)
		}
		if err := d.SetRules(); err != nil {
			t.Fatalf("SetRules(): %v", err)
		}
		b, err := d.Alloc(8, false)
		if err != nil {
			t.Fatalf("%+v: Alloc after valid rules: %v", r, err)
		}
		if err := d.SetRules(r); !errors.Is(err, fault.ErrBadRule) {
			t.Errorf("%+v: SetRules: %v", r, err)
		}
		if err := d.NewStream().Launch(device.Kernel{Name: "MatMul"}); !errors.Is(err, fault.ErrBadRule) {
			t.Errorf("%+v: Launch after SetRules: %v", r, err)
		}
		if err := d.Free(b); err != nil {
			t.Errorf("%+v: Free under bad rules: %v", r, err)
		}
	}
}

// TestFreeOfNoBufferOfTheDevice: Free of a buffer the Device did not
// allocate, or already freed, is an alloc.ErrForeign error.
func TestFreeOfNoBufferOfTheDevice(t *testing.T) {
	d := fault.New(sim(t), 1)
	b, err := d.Alloc(64, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Free(b); err != nil {
		t.Fatal(err)
	}
	for _, b := range []device.Buffer{b, {Addr: 12345, Size: 8}} {
		if err := d.Free(b); !errors.Is(err, alloc.ErrForeign) {
			t.Errorf("Free(%+v) = %v, want alloc.ErrForeign", b, err)
		}
	}
}
