package analysis

import (
	"fmt"
	"math"
)

// Stage is a host stage of a kernel.
type Stage uint8

// The host stages, in the order every kernel passes them. The zero Stage is
// invalid.
const (
	Prepare Stage = iota + 1 // find the inputs, reference counts
	Infer                    // InferShape
	Resize                   // tiling data and workspace sizes
	Launch                   // allocate, launch, free
)

// NumStages is the number of host stages.
const NumStages = 4

func (s Stage) String() string {
	switch s {
	case Prepare:
		return "prepare"
	case Infer:
		return "infer"
	case Resize:
		return "resize"
	case Launch:
		return "launch"
	}
	return fmt.Sprintf("Stage(%d)", s)
}

// Kernel is one kernel's costs in ns: its host stages and its device
// execution.
type Kernel struct {
	Prepare, Infer, Resize, Launch int64
	Device                         int64
}

// host returns the kernel's host stage costs in stage order.
func (k Kernel) host() [NumStages]int64 {
	return [NumStages]int64{k.Prepare, k.Infer, k.Resize, k.Launch}
}

// Mode is an execution mode: which worker runs each host stage. Worker[s-1]
// is the worker of Stage s; workers are any non-negative numbers, and the
// stages of one worker must be consecutive.
type Mode struct {
	Name   string
	Worker [NumStages]int
}

// The execution modes of pipert.
var (
	// KBK runs every stage of a kernel on one worker, kernel by kernel.
	KBK = Mode{Name: "kbk", Worker: [NumStages]int{0, 0, 0, 0}}
	// Async runs prepare, infer and resize on one worker and hands launches
	// to a second.
	Async = Mode{Name: "async", Worker: [NumStages]int{0, 0, 0, 1}}
	// Pipeline runs each stage on a worker of its own.
	Pipeline = Mode{Name: "pipeline", Worker: [NumStages]int{0, 1, 2, 3}}
)

// WorkerOf returns the worker of stage s.
func (m Mode) WorkerOf(s Stage) int { return m.Worker[s-1] }

// machines returns, for each stage, the index of its machine in the flow
// shop (its worker's position in stage order), and the number of machines.
func (m Mode) machines() ([NumStages]int, int, error) {
	var mach [NumStages]int
	n := 0
	for s := range NumStages {
		w := m.Worker[s]
		if w < 0 {
			return mach, 0, fmt.Errorf("analysis: mode %q: stage %v has negative worker %d", m.Name, Stage(s+1), w)
		}
		if s > 0 && w == m.Worker[s-1] {
			mach[s] = mach[s-1]
			continue
		}
		for p := range s {
			if m.Worker[p] == w {
				return mach, 0, fmt.Errorf("analysis: mode %q: worker %d runs %v and %v but not the stages between", m.Name, w, Stage(p+1), Stage(s+1))
			}
		}
		mach[s] = n
		n++
	}
	return mach, n, nil
}

// Machine is what the kernels run on.
type Machine struct {
	// LaunchLatency is the time from the end of a kernel's launch to the
	// earliest start of its device execution.
	LaunchLatency int64
	// Cores is the number of host cores; zero means as many as workers.
	Cores int
}

// Prediction is Predict's answer, in ns.
type Prediction struct {
	// Makespan is the prediction: max(FlowShop, Shared, CoreBound).
	Makespan int64
	// FlowShop is the makespan of the flow-shop recurrence, each worker on
	// a core of its own.
	FlowShop int64
	// CoreBound is HostWork / Cores (rounded up) + LaunchLatency + the last
	// kernel's device time; zero when Machine.Cores is zero.
	CoreBound int64
	// Shared is the flow shop with the workers sharing the cores: when the
	// mode has more workers than Machine.Cores and the host work does not
	// fit the cores while the busiest worker runs, every host cost is
	// stretched by HostWork / (Cores × Busiest), the slowdown of workers
	// that share the cores in proportion to their work. Zero otherwise.
	Shared int64
	// HostWork is the total host work, DeviceBusy the total device time.
	HostWork, DeviceBusy int64
	// Busiest is the total work of the busiest worker.
	Busiest int64
}

// Predict computes the makespan the mode should reach on the machine for
// kernels run in the given order, starting at time 0 with every kernel
// ready. See the package documentation for the model.
func Predict(ks []Kernel, m Mode, mc Machine) (Prediction, error) {
	var pr Prediction
	mach, nm, err := m.machines()
	if err != nil {
		return pr, err
	}
	if mc.LaunchLatency < 0 || mc.Cores < 0 {
		return pr, fmt.Errorf("analysis: invalid machine %+v", mc)
	}
	for i, k := range ks {
		for s, c := range k.host() {
			if c < 0 {
				return pr, fmt.Errorf("analysis: kernel %d: negative %v cost %d", i, Stage(s+1), c)
			}
			pr.HostWork += c
		}
		if k.Device < 0 {
			return pr, fmt.Errorf("analysis: kernel %d: negative device cost %d", i, k.Device)
		}
		pr.DeviceBusy += k.Device
	}
	work := make([]int64, nm)
	for _, k := range ks {
		for s, c := range k.host() {
			work[mach[s]] += c
		}
	}
	for _, w := range work {
		pr.Busiest = max(pr.Busiest, w)
	}
	pr.FlowShop = int64(math.Round(flowShop(ks, mach, nm, mc.LaunchLatency, 1)))
	if mc.Cores > 0 && len(ks) > 0 {
		cores := int64(mc.Cores)
		pr.CoreBound = (pr.HostWork+cores-1)/cores + mc.LaunchLatency + ks[len(ks)-1].Device
		if nm > mc.Cores && pr.Busiest > 0 {
			if s := float64(pr.HostWork) / (float64(cores) * float64(pr.Busiest)); s > 1 {
				pr.Shared = int64(math.Round(flowShop(ks, mach, nm, mc.LaunchLatency, s)))
			}
		}
	}
	pr.Makespan = max(pr.FlowShop, pr.Shared, pr.CoreBound)
	return pr, nil
}

// flowShop runs the recurrence with every host cost multiplied by scale.
func flowShop(ks []Kernel, mach [NumStages]int, nm int, lat int64, scale float64) float64 {
	done := make([]float64, nm) // C[i-1][w], then C[i][w]
	var dev float64             // D[i-1]
	for _, k := range ks {
		var p [NumStages]float64
		for s, c := range k.host() {
			p[mach[s]] += float64(c) * scale
		}
		var prev float64 // C[i][w-1]
		for w := range nm {
			done[w] = max(done[w], prev) + p[w]
			prev = done[w]
		}
		dev = max(dev, prev+float64(lat)) + float64(k.Device)
	}
	return dev
}
