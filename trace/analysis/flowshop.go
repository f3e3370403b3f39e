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
// execution, and the barrier before one of its stages, if any.
type Kernel struct {
	Prepare, Infer, Resize, Launch int64
	Device                         int64
	Barrier                        Barrier
	// Replayed marks a kernel a replay submitted together with others
	// (plan Replay): it crosses no boundary between workers on its own, so
	// no hand-off or spinning is charged for it, and the device takes it
	// at the rate of the submission (Machine.ReplayFirst, ReplayNext), not
	// a launch latency after its launch. Submission is its index in its
	// submission: the first (0) carries the submission's host cost in its
	// stages and starts it; the others follow it in kernel order.
	Replayed   bool
	Submission int
}

// Barrier is a kernel's wait for a value or compute dependency, before its
// InferShape (a value it needs) or, At Prepare, before its Prepare (the
// runner waiting, after issuing a compute-dependent kernel, for its
// shapes: under the drain policy until the queues below are empty and the
// device idle). The zero Barrier is none.
type Barrier struct {
	// On says the kernel has a barrier.
	On bool
	// At is the stage the barrier holds back: Infer (or zero) or Prepare.
	At Stage
	// Producer is the index, among the kernels predicted, of the earlier
	// kernel whose device completion releases the barrier under the
	// per-tensor policy; negative when the barrier waits for no kernel
	// (its producer had completed before it began).
	Producer int
	// Cost is the barrier's host work once released: staging the value to
	// the host.
	Cost int64
}

// stage is the stage the barrier holds back.
func (b Barrier) stage() Stage {
	if b.At == 0 {
		return Infer
	}
	return b.At
}

// host returns the kernel's host stage costs in stage order.
func (k Kernel) host() [NumStages]int64 {
	return [NumStages]int64{k.Prepare, k.Infer, k.Resize, k.Launch}
}

// Mode is an execution mode: which worker runs each host stage. Worker[s-1]
// is the worker of Stage s; workers are any non-negative numbers, and the
// stages of one worker must be consecutive.
//
// Drain is the barrier policy: a barrier waits until the queues after its
// worker are empty and the device idle (drain), instead of only its
// producer's device completion (per-tensor, the zero value).
type Mode struct {
	Name   string
	Worker [NumStages]int
	Drain  bool
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

// WorkerOf returns the worker of stage s, or -1 for a Stage that is none
// of the NumStages.
func (m Mode) WorkerOf(s Stage) int {
	if s < 1 || int(s) > NumStages {
		return -1
	}
	return m.Worker[s-1]
}

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
	// earliest start of its device execution. It is negative when the
	// device takes a kernel before the host's launch call returns (the
	// call goes on after it issued the kernel); a kernel then starts no
	// earlier than its launch stage began (Kernel.Launch before its end).
	LaunchLatency int64
	// Cores is the number of host cores; zero means as many as workers.
	Cores int
	// Handoff is the host time a kernel costs at each boundary between two
	// workers (the queue push and pop), charged to the receiving worker;
	// the wait for an idle receiver to take the kernel is Wake's. Zero:
	// hand-offs are free.
	Handoff int64
	// Wake is the time from the end of a kernel's operation on one worker
	// to the start of its next operation on the next worker when that
	// worker was idle, waiting for work: a waiting worker yields its core
	// between looks at its queue (or has parked) and has to be scheduled
	// again before it takes the kernel. It is wall time, not CPU: the
	// worker starts its operation Wake after the hand-off instead of at
	// once. A worker still busy with the kernel before takes the next one
	// as soon as it is done, and pays none. Zero: an idle worker starts
	// at once.
	Wake int64
	// Step is the host time the first worker spends per kernel outside
	// the kernel's stages (taking the next node, the run's bookkeeping),
	// charged to it for every kernel not replayed. Zero: none.
	Step int64
	// Spin is the CPU time a worker burns per kernel while it waits for
	// work before parking. It is charged, for every worker but the
	// busiest, only when the mode has more workers than Cores: then it
	// takes the cores from the working ones. Zero: waiting is free.
	Spin int64
	// ReplayFirst is the time from the start of a replay's submission (its
	// first kernel's operation on the last worker) to the earliest device
	// start of its first kernel, and ReplayNext the least time between the
	// device starts of consecutive kernels of one submission: kernel j of
	// a submission starts on the device no earlier than ReplayFirst + j ×
	// ReplayNext after the submission began (and not before the kernel
	// before it ended). Zero: at once.
	ReplayFirst, ReplayNext int64
	// DeviceGap is the device's idle time between two kernels launched
	// one after the other while it was busy (its fetch of the next
	// command): a kernel that waits for the one before it starts DeviceGap
	// after that one's end. Replayed kernels follow one another without
	// it. Zero: back to back.
	DeviceGap int64
	// QueueCapacity is the capacity of the queue in front of each worker
	// but the first: when the workers share the cores (Prediction.Shared),
	// a worker does not start a kernel while the worker after it has that
	// many kernels waiting, since its push would block. Zero: unbounded.
	QueueCapacity int
}

// Prediction is Predict's answer, in ns.
type Prediction struct {
	// Makespan is the prediction: max(FlowShop, Shared, CoreBound).
	Makespan int64
	// FlowShop is the makespan of the flow-shop recurrence, each worker on
	// a core of its own.
	FlowShop int64
	// CoreBound is HostWork / Cores (rounded up) + the last kernel's launch
	// latency (LaunchLatency, but no earlier than its launch began) and
	// device time, if together they are positive; zero when Machine.Cores
	// is zero.
	CoreBound int64
	// Shared is the flow shop with the workers sharing the cores: when
	// the mode has more workers than Machine.Cores, an event simulation of
	// the same operations on Cores cores, each running an operation to its
	// end and then taking the one ready the longest, a worker waiting while
	// its next queue is full (Machine.QueueCapacity). Zero otherwise.
	Shared int64
	// HostWork is the total host work (stages, hand-offs and barrier
	// costs), DeviceBusy the total device time.
	HostWork, DeviceBusy int64
	// DeviceSpan is the device's time for the kernels when it never waits
	// for the host and they follow other work on it (as the kernels of a
	// step submitted while the step before still runs): DeviceBusy plus
	// Machine.DeviceGap before each kernel that is not replayed, the first
	// included. Replayed kernels follow each other with no gap.
	DeviceSpan int64
	// Busiest is the total work of the busiest worker.
	Busiest int64
	// HostEnd is when the host is done with the kernels: the end of the
	// last kernel's last host operation, the latest of the flow shops' and
	// of HostWork / Cores (spinning included). A caller that submits the
	// kernels is free again then, while the device may still run them
	// until Makespan.
	HostEnd int64
	// Handoff and Steps are the hand-off and step time included in
	// HostWork; Spin the CPU of
	// spinning workers the Shared simulation and CoreBound count besides
	// HostWork; BarrierCost the barriers' own host work in HostWork;
	// BarrierWait the time the flow shop that gives Makespan spends
	// waiting at barriers beyond the worker's own readiness.
	Handoff, Steps, Spin, BarrierCost, BarrierWait int64
	// Wake is the wake-up time (Machine.Wake) the flow shop that gives
	// Makespan charged: Machine.Wake for each operation whose worker was
	// idle when its kernel was handed to it.
	Wake int64
	// HostGap is the time, summed over the operations, that operations
	// ready to run waited for a core in the shared flow shop, when it
	// gives Makespan; zero otherwise (the flow shop gives each worker a
	// core of its own).
	HostGap int64
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
	if mc.Cores < 0 || mc.Handoff < 0 || mc.Step < 0 || mc.Spin < 0 || mc.Wake < 0 || mc.ReplayFirst < 0 || mc.ReplayNext < 0 || mc.DeviceGap < 0 || mc.QueueCapacity < 0 {
		return pr, fmt.Errorf("analysis: invalid machine %+v", mc)
	}
	work := make([]int64, nm)
	handed := int64(0) // kernels that cross the boundaries between workers
	for i, k := range ks {
		if !k.Replayed {
			handed++
		}
		for s, c := range k.host() {
			if c < 0 {
				return pr, fmt.Errorf("analysis: kernel %d: negative %v cost %d", i, Stage(s+1), c)
			}
			work[mach[s]] += c
		}
		if k.Device < 0 {
			return pr, fmt.Errorf("analysis: kernel %d: negative device cost %d", i, k.Device)
		}
		if k.Submission < 0 || k.Submission > 0 && (!k.Replayed || i == 0 || !ks[i-1].Replayed) {
			return pr, fmt.Errorf("analysis: kernel %d: index %d in a replay's submission, after a kernel not replayed", i, k.Submission)
		}
		if b := k.Barrier; b.On {
			if b.Cost < 0 || b.Producer >= i || b.At != 0 && b.At != Infer && b.At != Prepare {
				return pr, fmt.Errorf("analysis: kernel %d: invalid barrier %+v", i, b)
			}
			work[mach[b.stage()-1]] += b.Cost
			pr.BarrierCost += b.Cost
		}
		pr.DeviceBusy += k.Device
		pr.DeviceSpan += k.Device
		if !k.Replayed {
			pr.DeviceSpan += mc.DeviceGap
		}
	}
	if total := costSum(ks, mc, nm); total >= maxNs {
		return pr, fmt.Errorf("analysis: the kernels' costs and the machine's add up to %g ns, past %g (they would overflow int64 nanoseconds)", total, maxNs)
	}
	for w := 1; w < nm; w++ {
		work[w] += mc.Handoff * handed
		pr.Handoff += mc.Handoff * handed
	}
	pr.Steps = mc.Step * handed
	work[0] += pr.Steps
	for _, w := range work {
		pr.HostWork += w
		pr.Busiest = max(pr.Busiest, w)
	}
	fs := flowShop(ks, m, mach, nm, mc, 1)
	pr.FlowShop, pr.BarrierWait, pr.Wake = int64(math.Round(fs.makespan)), int64(math.Round(fs.wait)), int64(math.Round(fs.wake))
	pr.HostEnd = int64(math.Round(fs.hostEnd))
	if mc.Cores > 0 && len(ks) > 0 {
		cores := int64(mc.Cores)
		cpu := pr.HostWork
		if nm > mc.Cores {
			pr.Spin = mc.Spin * handed * int64(nm-1)
			cpu += pr.Spin
		}
		pr.CoreBound = (cpu+cores-1)/cores + max(mc.latency(ks[len(ks)-1])+ks[len(ks)-1].Device, 0)
		pr.HostEnd = max(pr.HostEnd, (cpu+cores-1)/cores)
		if nm > mc.Cores && pr.Busiest > 0 {
			busiest := 0
			for w := range work {
				if work[w] > work[busiest] {
					busiest = w
				}
			}
			sh := sharedFlowShop(ks, m, mach, nm, mc, busiest)
			pr.Shared = int64(math.Round(sh.makespan))
			pr.HostEnd = max(pr.HostEnd, int64(math.Round(sh.hostEnd)))
			if pr.Shared > pr.FlowShop {
				pr.BarrierWait, pr.Wake = int64(math.Round(sh.wait)), int64(math.Round(sh.wake))
			}
			if pr.Shared >= pr.FlowShop && pr.Shared >= pr.CoreBound {
				pr.HostGap = int64(math.Round(sh.gap))
			}
		}
	}
	pr.Makespan = max(pr.FlowShop, pr.Shared, pr.CoreBound)
	return pr, nil
}

type flowShopRun struct {
	makespan float64 // D[n-1]
	hostEnd  float64 // C[n-1][last]: the last kernel's last host operation ended
	wait     float64 // time barriers held their worker beyond its readiness
	gap      float64 // time operations ready waited for a core (shared only)
	wake     float64 // Machine.Wake charged to operations of idle workers
}

// flowShop runs the recurrence with every host cost multiplied by scale.
// A hand-off joins the receiving worker's operation; a barrier delays the
// start of its kernel's operation on the worker of its stage (infer or
// prepare) until its producer has completed (per-tensor) or every earlier
// kernel has (drain: the queues below are empty and the device idle),
// then adds its cost. An operation handed to a worker that was idle (done
// with the kernel before it earlier) starts Machine.Wake after the
// hand-off. A kernel completes when its launch has returned (a
// replayed one's: its submission's) and its device execution ended (a
// device may end a kernel before the launch call returns: a negative
// launch latency).
func flowShop(ks []Kernel, m Mode, mach [NumStages]int, nm int, mc Machine, scale float64) flowShopRun {
	var r flowShopRun
	done := make([]float64, nm) // C[i-1][w], then C[i][w]
	var dev float64             // D[i-1]
	var sub float64             // the start of the last replay submission
	var completed []float64     // by kernel, for the per-tensor producers
	var complete float64        // kernel i-1's completion
	for _, k := range ks {
		if k.Barrier.On && k.Barrier.Producer >= 0 && !m.Drain {
			completed = make([]float64, len(ks))
			break
		}
	}
	for i, k := range ks {
		bw := mach[k.Barrier.stage()-1]
		var p [NumStages]float64
		for s, c := range k.host() {
			p[mach[s]] += float64(c) * scale
		}
		for w := 1; w < nm && !k.Replayed; w++ {
			p[w] += float64(mc.Handoff) * scale
		}
		if !k.Replayed {
			p[0] += float64(mc.Step) * scale
		}
		var prev float64 // C[i][w-1]
		for w := range nm {
			start := max(done[w], prev)
			if wakes(w, k, mc) && (i == 0 || done[w] < prev) {
				start = prev + float64(mc.Wake)
				r.wake += float64(mc.Wake)
			}
			if b := k.Barrier; b.On && w == bw {
				rel := start
				switch {
				case m.Drain && i > 0:
					rel = max(rel, complete)
				case !m.Drain && b.Producer >= 0:
					rel = max(rel, completed[b.Producer])
				}
				r.wait += rel - start
				start = rel + float64(b.Cost)*scale
			}
			if w == nm-1 && k.Replayed && k.Submission == 0 {
				sub = start
			}
			done[w] = start + p[w]
			prev = done[w]
		}
		dev = mc.deviceEnd(k, i, dev, prev, sub)
		r.hostEnd = prev
		complete = max(dev, prev)
		if completed != nil {
			completed[i] = complete
		}
	}
	r.makespan = max(dev, r.hostEnd) // the host's, when the device took the last kernel before its launch ended
	return r
}

// wakes reports whether kernel k may wait for worker w to wake up:
// Machine.Wake is set, w receives it from another worker, and k crosses
// the workers (a replayed kernel does not: its submission's).
func wakes(w int, k Kernel, mc Machine) bool { return mc.Wake > 0 && w > 0 && !k.Replayed }

// latency is k's launch latency: LaunchLatency, but no earlier than its
// launch stage began.
func (mc Machine) latency(k Kernel) int64 { return max(mc.LaunchLatency, -k.Launch) }

// deviceEnd is the end of kernel i's device execution, k, after the
// kernel before ended at prev: launched (its last host operation ended) at
// launched, or, replayed, in a submission that began at sub.
func (mc Machine) deviceEnd(k Kernel, i int, prev, launched, sub float64) float64 {
	ready := launched + float64(mc.latency(k))
	after := prev // the earliest start behind the kernel before
	if k.Replayed {
		ready = sub + float64(mc.ReplayFirst) + float64(k.Submission)*float64(mc.ReplayNext)
	} else if i > 0 {
		after += float64(mc.DeviceGap)
	}
	return max(after, ready) + float64(k.Device)
}

// costSum is, in float64, every cost Predict adds up for ks on nm workers
// of mc: the kernels' stages, device times and barriers, and per kernel
// the machine's hand-offs, step, spinning, replay and launch terms. The
// prediction's times are at most about this, so that below maxNs none of
// its int64 sums overflows.
func costSum(ks []Kernel, mc Machine, nm int) float64 {
	per := (float64(mc.Handoff)+float64(mc.Wake))*float64(nm) + float64(mc.Step) + float64(mc.Spin)*float64(nm) +
		float64(mc.ReplayFirst) + float64(mc.ReplayNext) + float64(mc.DeviceGap) + math.Abs(float64(mc.LaunchLatency))
	total := per * float64(len(ks))
	for _, k := range ks {
		for _, c := range k.host() {
			total += float64(c)
		}
		total += float64(k.Device) + float64(k.Barrier.Cost)
	}
	return total
}
