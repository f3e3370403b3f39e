package heterog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/host"
	"github.com/pipert/pipert/internal/clock"
	"github.com/pipert/pipert/kernel"
)

// ErrNotHostMapped is the cause of a virtual operator's failure on memory
// the host cannot address in place.
var ErrNotHostMapped = errors.New("device memory is not host-mapped")

// nodeKernel is a node's kernel as a device actor runs it when the node is
// computed on the host (a virtual operator, or a CPU node of the serial
// schedule): the op's kernel with a Launch that does so. It implements
// kernel.ComputeDependent whatever the op; the actor asks only when the
// op's Deps say so.
type nodeKernel struct {
	kernel.Kernel
	cpu *onHost // nil: launched on the device stream
	// The wrapped kernel as it takes the run's number and context (nil:
	// it does not), found once, not at every InferShape.
	numbered  kernel.RunNumbered
	stoppable kernel.Interruptible
}

// newNodeKernel wraps k.
func newNodeKernel(k kernel.Kernel) *nodeKernel {
	nk := &nodeKernel{Kernel: k}
	nk.numbered, _ = k.(kernel.RunNumbered)
	nk.stoppable, _ = k.(kernel.Interruptible)
	return nk
}

// SetRun hands the run's number on to the kernel when it takes it
// (kernel.RunNumbered).
func (k *nodeKernel) SetRun(run uint64) {
	if k.numbered != nil {
		k.numbered.SetRun(run)
	}
}

// SetContext passes the run's context to the wrapped kernel, if it takes
// it (kernel.Interruptible).
func (k *nodeKernel) SetContext(ctx context.Context) {
	if k.stoppable != nil {
		k.stoppable.SetContext(ctx)
	}
}

// LaunchOn implements actor.Launcher.
func (k *nodeKernel) LaunchOn(s device.Stream, a *kernel.Args, real bool) error {
	if k.cpu == nil {
		dk, err := computed(k.Kernel, a, real)
		if err != nil {
			return err
		}
		return s.Launch(dk)
	}
	return k.cpu.launch(k.Kernel, s, a, real)
}

// computed computes k's results when the data is real and returns its
// launch, with the host interval of the computation.
func computed(k kernel.Kernel, a *kernel.Args, real bool) (device.Kernel, error) {
	dk := device.Kernel{Name: k.Op(), Cost: k.Cost(a.In, a.Out), Flow: a.Flow}
	if real {
		t0 := clock.Now()
		if err := k.Compute(a); err != nil {
			return dk, err
		}
		dk.Computed = device.Interval{Start: t0, End: clock.Now()}
	}
	return dk, nil
}

// OutputShapes implements kernel.ComputeDependent.
func (k *nodeKernel) OutputShapes(a *kernel.Args) ([]kernel.Shape, error) {
	cd, ok := k.Kernel.(kernel.ComputeDependent)
	if !ok {
		return nil, fmt.Errorf("heterog: op %s is not compute dependent", k.Op())
	}
	return cd.OutputShapes(a)
}

// onHost computes a node of a device actor on the host, on a stream of the
// host device, over the operands' device buffers.
//
// A virtual operator (virtual set) is an op registered for the device that
// the CPU computes over host-mapped device memory: it needs every operand
// host-mapped, waits for the device stream's earlier work (its inputs) and
// computes in place, with no copy, as MTTorch's virtual operators do on the
// MT-3000's shared DDR.
//
// A CPU node of the serial schedule runs where a single-launch-thread
// runtime runs it: on the launch goroutine, in execution order. It waits for
// the device stream when an input comes from a device node, and when memory
// is not host-mapped it pays the modeled copies a real runtime makes at the
// edges between CPU and device nodes: device-to-host for such inputs before
// it computes, host-to-device for outputs that device nodes read after.
// The simulated device's memory is host memory, so the bytes stay put;
// only the copies' time is charged, as a wait on the launching goroutine.
type onHost struct {
	stream  device.Stream // of the host device; used by the launching goroutine only
	virtual bool
	// Serial schedule: by input, produced by a device node; by output, read
	// by a device node; copies is set when memory is not host-mapped.
	fromDevice, toDevice []bool
	copies               bool
	d2h, h2d             device.Link
}

func (h *onHost) launch(k kernel.Kernel, s device.Stream, a *kernel.Args, real bool) error {
	ctx := context.Background()
	if h.virtual {
		if err := checkMapped(s, a); err != nil {
			return fmt.Errorf("heterog: virtual operator %s: %w", k.Op(), err)
		}
		if err := s.Synchronize(ctx); err != nil {
			return err
		}
		dk, err := computed(k, a, real)
		if err != nil {
			return err
		}
		return h.stream.Launch(dk)
	}
	var copyTime time.Duration
	wait := false
	for j, t := range a.In {
		if h.fromDevice[j] {
			wait = true
			if h.copies {
				copyTime += h.d2h.Time(t.Bytes())
			}
		}
	}
	if wait {
		if err := s.Synchronize(ctx); err != nil {
			return err
		}
	}
	if err := pause(ctx, copyTime); err != nil {
		return err
	}
	dk, err := computed(k, a, real)
	if err != nil {
		return err
	}
	if err := h.stream.Launch(dk); err != nil {
		return err
	}
	copyTime = 0
	for o, t := range a.Out {
		if h.toDevice[o] && h.copies {
			copyTime += h.h2d.Time(t.Bytes())
		}
	}
	return pause(ctx, copyTime)
}

// checkMapped reports the first operand of a that the host cannot address in
// place through stream s.
func checkMapped(s device.Stream, a *kernel.Args) error {
	m, ok := s.(host.Mapper)
	if !ok {
		return ErrNotHostMapped
	}
	for i, t := range a.In {
		if !t.Buf.IsZero() && !m.HostMapped(t.Buf) {
			return fmt.Errorf("input %d: %w", i, ErrNotHostMapped)
		}
	}
	for i, t := range a.Out {
		if !t.Buf.IsZero() && !m.HostMapped(t.Buf) {
			return fmt.Errorf("output %d: %w", i, ErrNotHostMapped)
		}
	}
	if !a.Workspace.IsZero() && !m.HostMapped(a.Workspace) {
		return fmt.Errorf("workspace: %w", ErrNotHostMapped)
	}
	return nil
}

// pause waits for d: a modeled transfer the caller is blocked on.
func pause(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	return clock.WaitUntil(ctx, clock.Now()+int64(d))
}
