package heterog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/host"
	"github.com/pipert/pipert/internal/spin"
	"github.com/pipert/pipert/kernel"
)

// ErrNotHostMapped is the cause of a virtual operator's failure on memory
// the host cannot address in place.
var ErrNotHostMapped = errors.New("device memory is not host-mapped")

// nodeKernel is a node's kernel as an executable runs it: the op's kernel
// plus the synthetic host cost of each stage for the node's placement, and,
// for a node that a device actor computes on the host (a virtual operator,
// or a CPU node of the serial schedule), a Launch that does so. It
// implements kernel.ComputeDependent whatever the op; the actor asks only
// when the op's Deps say so.
type nodeKernel struct {
	kernel.Kernel
	infer, resize, launch time.Duration
	cpu                   *onHost // nil: launched on the device stream
}

// InferShape implements kernel.Kernel.
func (k *nodeKernel) InferShape(in, out []*kernel.Tensor) error {
	err := k.Kernel.InferShape(in, out)
	spin.For(k.infer)
	return err
}

// Resize implements kernel.Kernel.
func (k *nodeKernel) Resize(in, out []*kernel.Tensor, t *kernel.Tiling) error {
	err := k.Kernel.Resize(in, out, t)
	spin.For(k.resize)
	return err
}

// LaunchOn implements actor.Launcher.
func (k *nodeKernel) LaunchOn(s device.Stream, a *kernel.Args, fn device.Func) error {
	var err error
	if k.cpu == nil {
		err = s.Launch(k.Op(), k.Cost(a.In, a.Out), fn)
	} else {
		err = k.cpu.launch(k.Kernel, s, a, fn)
	}
	spin.For(k.launch)
	return err
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

func (h *onHost) launch(k kernel.Kernel, s device.Stream, a *kernel.Args, fn device.Func) error {
	ctx := context.Background()
	if h.virtual {
		if err := checkMapped(s, a); err != nil {
			return fmt.Errorf("heterog: virtual operator %s: %w", k.Op(), err)
		}
		if err := s.Synchronize(ctx); err != nil {
			return err
		}
		return h.stream.Launch(k.Op(), k.Cost(a.In, a.Out), fn)
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
	if err := h.stream.Launch(k.Op(), k.Cost(a.In, a.Out), fn); err != nil {
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
	return device.WaitUntil(ctx, device.Now()+int64(d))
}
