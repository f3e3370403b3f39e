package swai

import (
	"fmt"
	"time"
)

// Method is how the dispatcher starts a kernel on the compute cores
// (section 3.3).
type Method int

// Launch methods.
const (
	// FastLaunch: the cores already run Slave_Daemon in light sleep, so
	// there is no initialisation (O_init = 0); the dispatcher rings one
	// doorbell, and row and column synchronisation lets it query core 0
	// alone (Num = 1). Algorithm 3, figure 7.
	FastLaunch Method = 1
	// TraditionalLaunch: the dispatcher initialises the core groups
	// (O_init) and starts and polls all Num cores one by one.
	TraditionalLaunch Method = 2
)

func (m Method) valid() bool { return m == FastLaunch || m == TraditionalLaunch }

func (m Method) String() string {
	switch m {
	case FastLaunch:
		return "fast"
	case TraditionalLaunch:
		return "traditional"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// MarshalText implements encoding.TextMarshaler.
func (m Method) MarshalText() ([]byte, error) {
	if !m.valid() {
		return nil, fmt.Errorf("swai: invalid launch method %d", int(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (m *Method) UnmarshalText(b []byte) error {
	switch string(b) {
	case "fast":
		*m = FastLaunch
	case "traditional":
		*m = TraditionalLaunch
	default:
		return fmt.Errorf("swai: unknown launch method %q (want fast or traditional)", b)
	}
	return nil
}

// launchTerms returns O_init and Num of equation 14 for method m.
func (p Profile) launchTerms(m Method) (oinit time.Duration, num int) {
	if m == TraditionalLaunch {
		return p.Launch.Init, p.Launch.Cores
	}
	return 0, 1
}

// command is O_command: parsing, plus reading the ring entry first on a
// two-level queue.
func (p Profile) command() time.Duration {
	if p.Queue.Levels == 2 {
		return p.Queue.RingFetch + p.Launch.Command
	}
	return p.Launch.Command
}

// DeviceOverhead is O_device of equation 14: O_command + O_init +
// Num × (O_start + O_query).
func (p Profile) DeviceOverhead(m Method) time.Duration {
	oinit, num := p.launchTerms(m)
	return p.command() + oinit + time.Duration(num)*(p.Launch.Start+p.Launch.Query)
}

// KLO is the kernel launch overhead of equation 13: O_cpu + O_cmd-tran +
// O_device.
func (p Profile) KLO(m Method) time.Duration {
	return p.Launch.CPU + p.Launch.CmdTransfer + p.DeviceOverhead(m)
}

// KLL is the kernel launch latency of equation 12, T_exec + KLO: how long a
// synchronous launch of a kernel running exec takes, from the call to the
// host seeing completion.
func (p Profile) KLL(m Method, exec time.Duration) time.Duration {
	return exec + p.KLO(m)
}

// AsyncReturn is how long an asynchronous launch call takes when a command
// slot is free: O_cpu + O_cmd-tran.
func (p Profile) AsyncReturn() time.Duration {
	return p.Launch.CPU + p.Launch.CmdTransfer
}

// Burst models the paper's asynchronous launch measurement (section 4.4): n
// launches of a kernel running exec, issued back to back from one host
// thread onto one stream through the command queue (Ring), then one
// synchronisation. It returns the mean time per launch: the time until the
// host has seen the last completion, over n. Host waits for full command
// slots are included; the model is deterministic. Per launch it tends to
// the slowest stage: the host's O_cpu + O_cmd-tran, or the dispatcher's
// hold on each command (see Ring: the whole serial O_device plus T_exec on
// the SW-AI card, one stage on the GPU), or the kernel.
func (p Profile) Burst(m Method, n int, exec time.Duration) time.Duration {
	if n <= 0 {
		return 0
	}
	r := NewRing(p, m)
	_, num := p.launchTerms(m)
	kernel := exec + time.Duration(num)*p.Launch.Query
	var host, end int64
	for range n {
		ready, start := r.IssueKernel(host, end, 0, kernel)
		host = ready
		end = start + int64(kernel)
	}
	return time.Duration(max(host, end) / int64(n))
}
