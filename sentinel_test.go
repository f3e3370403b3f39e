package pipert_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

// TestInputMisuseMatchesSentinels: in every mode, Run, RunInto and Submit
// reject inputs that do not match the graph's declarations with an error
// wrapping ErrBadInput, outputs RunInto cannot fill with one wrapping
// ErrBadOutput, and a nil context with one wrapping ErrInvalid — before
// anything runs — and the executable then runs correctly.
func TestInputMisuseMatchesSentinels(t *testing.T) {
	good := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{-1, 2, -3, 4}, 2, 2)}
	badInputs := map[string]map[string]*kernel.Tensor{
		"nil map":                         nil,
		"nil tensor":                      {"x": nil},
		"unknown input":                   {"x": good["x"], "y": good["x"]},
		"wrong dtype":                     {"x": kernel.New(kernel.Int64, 2, 2)},
		"invalid dtype":                   {"x": {DType: 99, Shape: kernel.Shape{2, 2}}},
		"wrong rank":                      {"x": kernel.New(kernel.Float32, 4)},
		"wrong dim":                       {"x": kernel.New(kernel.Float32, 2, 3)},
		"short data":                      {"x": {DType: kernel.Float32, Shape: kernel.Shape{2, 2}, Host: make([]byte, 3)}},
		"negative dim":                    {"x": {DType: kernel.Float32, Shape: kernel.Shape{-2, 2}}},
		"huge shape":                      {"x": {DType: kernel.Float32, Shape: kernel.Shape{1 << 62, 2}}},
		"device buffer without host data": {"x": {DType: kernel.Float32, Shape: kernel.Shape{2, 2}, Buf: device.Buffer{Addr: 1 << 20, Size: 16}}},
	}
	for _, m := range everyMode() {
		exe, err := pipert.Compile(reluGraph(), m.opts...)
		if err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
		for what, in := range badInputs {
			if _, err := exe.Run(context.Background(), in); !errors.Is(err, pipert.ErrBadInput) {
				t.Errorf("%s: Run, %s: %v, want ErrBadInput", m.name, what, err)
			}
			out := map[string]*kernel.Tensor{"relu_0:0": kernel.New(kernel.Float32, 2, 2)}
			if _, err := exe.RunInto(context.Background(), in, out); !errors.Is(err, pipert.ErrBadInput) {
				t.Errorf("%s: RunInto, %s: %v, want ErrBadInput", m.name, what, err)
			}
			if p, err := exe.Submit(context.Background(), in); !errors.Is(err, pipert.ErrBadInput) {
				t.Errorf("%s: Submit, %s: %v, want ErrBadInput", m.name, what, err)
				if p != nil {
					p.Wait()
				}
			}
		}
		for what, out := range map[string]map[string]*kernel.Tensor{
			"no outputs":      {},
			"nil output":      {"relu_0:0": nil},
			"unknown output":  {"relu_0:0": kernel.New(kernel.Float32, 2, 2), "y": kernel.New(kernel.Float32, 2, 2)},
			"input as output": {"relu_0:0": good["x"]},
		} {
			if _, err := exe.RunInto(context.Background(), good, out); !errors.Is(err, pipert.ErrBadOutput) {
				t.Errorf("%s: RunInto, %s: %v, want ErrBadOutput", m.name, what, err)
			}
		}
		//lint:ignore SA1012 a nil context is the misuse under test
		if _, err := exe.Run(nil, good); !errors.Is(err, pipert.ErrInvalid) { //nolint:staticcheck
			t.Errorf("%s: Run with a nil context: %v, want ErrInvalid", m.name, err)
		}
		//lint:ignore SA1012 a nil context is the misuse under test
		if _, err := exe.Submit(nil, good); !errors.Is(err, pipert.ErrInvalid) { //nolint:staticcheck
			t.Errorf("%s: Submit with a nil context: %v, want ErrInvalid", m.name, err)
		}
		res, err := exe.Run(context.Background(), good)
		if err != nil {
			t.Fatalf("%s: run after misuse: %v", m.name, err)
		}
		if got := kernel.Float32s(res.Outputs["relu_0:0"].Host); got[0] != 0 || got[1] != 2 || got[2] != 0 || got[3] != 4 {
			t.Errorf("%s: run after misuse gave %v", m.name, got)
		}
		if err := exe.Close(); err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
	}
}

// TestZeroValuesAreErrors: the methods of a nil or zero Executable or
// Pending, which Compile and Submit did not make, return errors wrapping
// ErrInvalid at once: no panic, no wait forever.
func TestZeroValuesAreErrors(t *testing.T) {
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, 2, 3, 4}, 2, 2)}
	for name, e := range map[string]*pipert.Executable{"nil": nil, "zero": {}} {
		calls := map[string]func() error{
			"Run": func() error { _, err := e.Run(context.Background(), in); return err },
			"RunInto": func() error {
				_, err := e.RunInto(context.Background(), in, map[string]*kernel.Tensor{"y": kernel.New(kernel.Float32, 2, 2)})
				return err
			},
			"Submit":        func() error { _, err := e.Submit(context.Background(), in); return err },
			"WorkspaceSize": func() error { _, err := e.WorkspaceSize(); return err },
			"UseWorkspace":  func() error { return e.UseWorkspace(device.Buffer{}) },
			"Close":         func() error { return e.Close() },
		}
		for call, f := range calls {
			if err := f(); !errors.Is(err, pipert.ErrInvalid) {
				t.Errorf("%s Executable: %s: %v, want ErrInvalid", name, call, err)
			}
		}
		if c := e.Config(); e.Device() != nil || c.Checked() {
			t.Errorf("%s Executable: Device or Config not zero", name)
		}
	}
	for name, p := range map[string]*pipert.Pending{"nil": nil, "zero": {}} {
		done := make(chan error, 1)
		go func() { _, err := p.Wait(); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, pipert.ErrInvalid) {
				t.Errorf("%s Pending: Wait: %v, want ErrInvalid", name, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s Pending: Wait blocks", name)
		}
		select {
		case <-p.Done():
		default:
			t.Errorf("%s Pending: Done is not closed", name)
		}
	}
}

// TestClosedHeterogeneousWorkspace: WorkspaceSize and UseWorkspace of a
// heterogeneous executable are unsupported (errors.ErrUnsupported), as is
// UseWorkspace of an executable without the memory plan, and after Close,
// of any executable, they fail with ErrClosed.
func TestClosedHeterogeneousWorkspace(t *testing.T) {
	for _, het := range []bool{false, true} {
		var opts []pipert.Option
		if het {
			opts = append(opts, pipert.WithHeterogeneous(nil))
		}
		b := reluGraph()
		b.Inputs[0].Shape[0] = 2 // static, so that the workspace size is known
		exe, err := pipert.Compile(b, opts...)
		if err != nil {
			t.Fatal(err)
		}
		buf, err := exe.Device().Alloc(1<<10, true)
		if err != nil {
			t.Fatal(err)
		}
		if het {
			if _, err := exe.WorkspaceSize(); !errors.Is(err, errors.ErrUnsupported) {
				t.Errorf("heterogeneous WorkspaceSize: %v, want errors.ErrUnsupported", err)
			}
			if err := exe.UseWorkspace(buf); !errors.Is(err, errors.ErrUnsupported) {
				t.Errorf("heterogeneous UseWorkspace: %v, want errors.ErrUnsupported", err)
			}
		} else if err := exe.UseWorkspace(buf); !errors.Is(err, errors.ErrUnsupported) || !strings.Contains(err.Error(), "memory plan") {
			t.Errorf("UseWorkspace without the memory plan: %v, want errors.ErrUnsupported naming the memory plan", err)
		}
		exe.Close()
		if _, err := exe.WorkspaceSize(); !errors.Is(err, pipert.ErrClosed) {
			t.Errorf("het=%v: WorkspaceSize after Close: %v, want ErrClosed", het, err)
		}
		if err := exe.UseWorkspace(buf); !errors.Is(err, pipert.ErrClosed) {
			t.Errorf("het=%v: UseWorkspace after Close: %v, want ErrClosed", het, err)
		}
		exe.Device().Free(buf)
	}
}

// TestForeignWorkspace: UseWorkspace refuses a buffer of another device
// or a freed one (ErrInvalid) and the executable then runs with a
// workspace of its own;
// a device whose Owns panics fails UseWorkspace with ErrPanic.
func TestForeignWorkspace(t *testing.T) {
	g := reluGraph()
	g.Inputs[0].Shape[0] = 2 // static, so that the workspace size is known
	exe, err := pipert.Compile(g, pipert.WithCaches(pipert.Caches{Kinds: pipert.MemoryPlan}))
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	n, err := exe.WorkspaceSize()
	if err != nil {
		t.Fatal(err)
	}
	other, err := device.NewSim(device.SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := exe.UseWorkspace(workspace(t, other, n)); !errors.Is(err, pipert.ErrInvalid) {
		t.Fatalf("UseWorkspace of another device's buffer: %v, want ErrInvalid", err)
	}
	freed, err := exe.Device().Alloc(n, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := exe.Device().Free(freed); err != nil {
		t.Fatal(err)
	}
	if err := exe.UseWorkspace(freed); !errors.Is(err, pipert.ErrInvalid) {
		t.Fatalf("UseWorkspace of a freed buffer: %v, want ErrInvalid", err)
	}
	if err := exe.UseWorkspace(workspace(t, exe.Device(), n)); err != nil {
		t.Fatalf("UseWorkspace of the device's own buffer: %v", err)
	}
	res, err := exe.Run(context.Background(), map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{-1, 2, -3, 4}, 2, 2)})
	if err != nil {
		t.Fatal(err)
	}
	if got := kernel.Float32s(res.Outputs["relu_0:0"].Host); got[0] != 0 || got[1] != 2 || got[2] != 0 || got[3] != 4 {
		t.Errorf("run in the own workspace gave %v", got)
	}

	sim, err := device.NewSim(device.SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bad, err := pipert.Compile(g, pipert.WithCaches(pipert.Caches{Kinds: pipert.MemoryPlan}), pipert.WithDevice(panickyOwner{sim}))
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	if err := bad.UseWorkspace(workspace(t, sim, n)); !errors.Is(err, pipert.ErrPanic) {
		t.Errorf("UseWorkspace on a device whose Owns panics: %v, want ErrPanic", err)
	}
}

// workspace allocates n materialized bytes of d, freed when the test ends
// (after the executables the test closes with defer).
func workspace(t *testing.T, d device.Device, n int64) device.Buffer {
	t.Helper()
	b, err := d.Alloc(n, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Free(b); err != nil {
			t.Error(err)
		}
	})
	return b
}

// panickyOwner is a simulator whose Owns panics.
type panickyOwner struct{ *device.Sim }

func (panickyOwner) Owns(device.Buffer) bool { panic("owns") }

// TestUnknownInputThatIsAConstant: a run given an input named like one of
// the graph's constants fails with ErrBadInput saying so.
func TestUnknownInputThatIsAConstant(t *testing.T) {
	b := subgraph.NewBuilder("g")
	x := b.Input("x", kernel.Float32, 2)
	b.Output(b.Op("Add", x, b.Const("w", kernel.FromFloat32([]float32{1, 2}, 2))))
	exe, err := pipert.Compile(b.Graph())
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, 1}, 2), "w": kernel.FromFloat32([]float32{0, 0}, 2)}
	_, err = exe.Run(context.Background(), in)
	if !errors.Is(err, pipert.ErrBadInput) || !strings.Contains(err.Error(), "it is a constant of the graph") {
		t.Fatalf("Run: %v", err)
	}
	p, err := exe.Submit(context.Background(), in)
	if err == nil {
		_, err = p.Wait()
	}
	if !errors.Is(err, pipert.ErrBadInput) || !strings.Contains(err.Error(), "it is a constant of the graph") {
		t.Fatalf("Submit: %v", err)
	}
}
