package swai

import (
	"math"
	"testing"
	"time"
)

// The paper's section 4.4: an empty kernel, launched synchronously, takes
// 2.3 µs with the fast method and 883.6 µs with the traditional one.
func TestLaunchCalibration(t *testing.T) {
	p := Default()
	fast := p.KLL(FastLaunch, 0)
	traditional := p.KLL(TraditionalLaunch, 0)
	within := func(name string, got time.Duration, want float64) {
		t.Helper()
		if r := float64(got) / want; r < 0.9 || r > 1.1 {
			t.Errorf("%s = %v, want %v ±10%%", name, got, time.Duration(want))
		}
	}
	within("fast", fast, 2300)
	within("traditional", traditional, 883600)
	ratio := float64(fast) / float64(traditional)
	if want := 2.3 / 883.6; math.Abs(ratio/want-1) > 0.1 {
		t.Errorf("fast/traditional = %.5f, want %.5f ±10%%", ratio, want)
	}

	g := GPU()
	if kll := g.KLL(g.Launch.Method, 0); kll < 5*time.Microsecond || kll > 8*time.Microsecond {
		t.Errorf("gpu sync launch = %v, want 5-8 µs", kll)
	}
	if fast >= g.KLL(g.Launch.Method, 0) {
		t.Errorf("fast sync launch %v not faster than the gpu's %v (figure 13)", fast, g.KLL(g.Launch.Method, 0))
	}
}

func TestLaunchEquations(t *testing.T) {
	p := Default()
	l := p.Launch
	// Equation 14.
	if got, want := p.DeviceOverhead(FastLaunch), l.Command+l.Start+l.Query; got != want {
		t.Errorf("fast O_device = %v, want %v", got, want)
	}
	if got, want := p.DeviceOverhead(TraditionalLaunch), l.Command+l.Init+32*(l.Start+l.Query); got != want {
		t.Errorf("traditional O_device = %v, want %v", got, want)
	}
	// Equations 13 and 12.
	if got, want := p.KLO(FastLaunch), l.CPU+l.CmdTransfer+p.DeviceOverhead(FastLaunch); got != want {
		t.Errorf("KLO = %v, want %v", got, want)
	}
	if got, want := p.KLL(FastLaunch, 7*time.Microsecond), 7*time.Microsecond+p.KLO(FastLaunch); got != want {
		t.Errorf("KLL = %v, want %v", got, want)
	}
	// A two-level queue reads the ring entry first.
	g := GPU()
	if got, want := g.DeviceOverhead(FastLaunch), g.Queue.RingFetch+g.Launch.Command+g.Launch.Start+g.Launch.Query; got != want {
		t.Errorf("gpu O_device = %v, want %v", got, want)
	}
	if got, want := p.AsyncReturn(), l.CPU+l.CmdTransfer; got != want {
		t.Errorf("AsyncReturn = %v, want %v", got, want)
	}
}

func TestBurst(t *testing.T) {
	p := Default()
	// Fast, on the serial MPE: the dispatcher holds each command from its
	// parse to the kernel's completion, O_command + O_start + O_query,
	// longer than the host's O_cpu + O_cmd-tran, so the mean tends to the
	// dispatcher's rate; the head of the first launch is spread over the
	// 100 launches.
	per := p.Launch.Command + p.Launch.Start + p.Launch.Query
	if per <= p.AsyncReturn() {
		t.Fatalf("the MPE's hold %v is not above the host side %v", per, p.AsyncReturn())
	}
	fast := p.Burst(FastLaunch, 100, 0)
	if hi := per + p.KLL(FastLaunch, 0)/100 + time.Nanosecond; fast < per || fast > hi {
		t.Errorf("fast burst = %v, want in [%v, %v]", fast, per, hi)
	}
	// Traditional: O_command + O_init + 32 × (O_start + O_query) per
	// launch.
	per = p.Launch.Command + p.Launch.Init + 32*(p.Launch.Start+p.Launch.Query)
	trad := p.Burst(TraditionalLaunch, 100, 0)
	if trad < per || trad > per+p.KLL(TraditionalLaunch, 0)/100+time.Nanosecond {
		t.Errorf("traditional burst = %v, want about %v", trad, per)
	}
	// The GPU's pipelined front end: the host side is the slowest stage.
	g := GPU()
	if got, lo := g.Burst(FastLaunch, 100, 0), g.AsyncReturn(); got < lo || got > lo+g.KLL(FastLaunch, 0)/100+time.Nanosecond {
		t.Errorf("gpu burst = %v, want about %v", got, lo)
	}
	// A long kernel: the device is the bottleneck.
	if got := p.Burst(FastLaunch, 100, time.Millisecond); got < time.Millisecond {
		t.Errorf("burst of 1 ms kernels = %v per launch, less than a kernel", got)
	}
	if p.Burst(FastLaunch, 0, 0) != 0 {
		t.Error("burst of no launches is not 0")
	}
	// One launch is a synchronous launch.
	if got, want := p.Burst(FastLaunch, 1, 0), p.KLL(FastLaunch, 0); got != want {
		t.Errorf("burst of one = %v, want KLL %v", got, want)
	}
	if got, want := g.Burst(FastLaunch, 1, 0), g.KLL(FastLaunch, 0); got != want {
		t.Errorf("gpu burst of one = %v, want KLL %v", got, want)
	}
}

// Figure 13's ordering: synchronous launches are faster on the SW-AI card,
// asynchronous ones on the GPU.
func TestFigure13Ordering(t *testing.T) {
	p, g := Default(), GPU()
	if s, c := p.KLL(FastLaunch, 0), g.KLL(FastLaunch, 0); s >= c {
		t.Errorf("sync: SDAA %v, CUDA %v; want SDAA faster", s, c)
	}
	if s, c := p.Burst(FastLaunch, 100, 0), g.Burst(FastLaunch, 100, 0); s <= c {
		t.Errorf("async: SDAA %v, CUDA %v per launch; want CUDA faster", s, c)
	}
}

func TestMethodText(t *testing.T) {
	for _, m := range []Method{FastLaunch, TraditionalLaunch} {
		b, err := m.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Method
		if err := back.UnmarshalText(b); err != nil || back != m {
			t.Errorf("%v: round trip gave %v, %v", m, back, err)
		}
	}
	if _, err := Method(0).MarshalText(); err == nil {
		t.Error("zero method marshals")
	}
	if Method(9).String() != "Method(9)" {
		t.Error(Method(9).String())
	}
}
