// Package zerovalue_test calls the methods of the zero value of every
// exported type of the module, and of a nil pointer of the types that take
// one: misuse is an error or nothing, never a panic or a wait without end.
package zerovalue_test

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/actor"
	"github.com/pipert/pipert/cache"
	"github.com/pipert/pipert/control"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/alloc"
	"github.com/pipert/pipert/device/devtrace"
	"github.com/pipert/pipert/device/fabric"
	"github.com/pipert/pipert/device/fault"
	"github.com/pipert/pipert/device/host"
	"github.com/pipert/pipert/device/mt3000"
	"github.com/pipert/pipert/device/swai"
	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/internal/leaktest"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/moe"
	"github.com/pipert/pipert/onnx"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/queues"
	"github.com/pipert/pipert/scenarios"
	"github.com/pipert/pipert/subgraph"
	"github.com/pipert/pipert/sync/ready"
	"github.com/pipert/pipert/trace"
	"github.com/pipert/pipert/trace/analysis"
)

// The test binary links ants through heterog; see leaktest.
func TestMain(m *testing.M) { leaktest.Main(m) }

// zeroValues holds a pointer to the zero value of every exported type with
// exported methods outside internal and cmd (TestZeroValuesListed keeps
// the list whole).
var zeroValues = []any{
	new(pipert.Executable),
	new(pipert.Pending),
	new(actor.KernelRunner),
	new(actor.Memory),
	new(actor.PanicError),
	new(actor.Runners),
	new(actor.SuperKernelActor),
	new(cache.Global),
	new(cache.LRU),
	new(cache.Op),
	new(cache.Pool[int]),
	new(control.If),
	new(control.Loop),
	new(control.Resolver),
	new(control.Scan),
	new(device.Buffer),
	new(device.ClockEvent),
	new(device.Cost),
	new(device.Link),
	new(device.Profile),
	new(device.ReplayError),
	new(device.Sim),
	new(device.Stats),
	new(device.StreamStats),
	new(alloc.Caching),
	new(alloc.Kind),
	new(alloc.Multilevel),
	new(alloc.Recording),
	new(alloc.Reference),
	new(devtrace.Observer),
	new(fabric.Config),
	new(fabric.Flags),
	new(fabric.Heap),
	new(fabric.Model),
	new(fabric.Result),
	new(fabric.Topology),
	new(fault.Device),
	new(fault.Kind),
	new(host.Device),
	new(host.Mapped),
	new(mt3000.Chip),
	new(mt3000.Cluster),
	new(mt3000.Profile),
	new(swai.D2DTable),
	new(swai.Device),
	new(swai.Engine),
	new(swai.Method),
	new(swai.Path),
	new(swai.Profile),
	new(swai.Ring),
	new(heterog.Capability),
	new(heterog.Cost),
	new(heterog.Executable),
	new(heterog.Group),
	new(heterog.Manager),
	new(heterog.Size),
	new(kernel.Args),
	new(kernel.Attrs),
	new(kernel.DType),
	new(kernel.Error),
	new(kernel.Shape),
	new(kernel.Stage),
	new(kernel.Tensor),
	new(ops.Registry),
	new(moe.Costs),
	new(moe.Input),
	new(moe.Problem),
	new(moe.Routing),
	new(moe.Variant),
	new(onnx.AttrType),
	new(onnx.Case),
	new(onnx.DataType),
	new(onnx.Node),
	new(onnx.Tensor),
	new(plan.BarrierPolicy),
	new(plan.CacheKinds),
	new(plan.CacheStats),
	new(plan.Config),
	new(plan.Costs),
	new(plan.Mode),
	new(plan.Plan),
	new(plan.PlanStats),
	new(plan.ReplayStats),
	new(plan.Schedule),
	new(plan.Stats),
	new(plan.TilingCopy),
	new(plan.TilingStats),
	new(queues.Pipeline[int]),
	new(queues.Queue[int]),
	new(queues.Stage),
	new(scenarios.Workload),
	new(subgraph.Builder),
	new(subgraph.Checked),
	new(subgraph.Error),
	new(subgraph.Graph),
	new(subgraph.Node),
	new(subgraph.Partitioning),
	new(subgraph.Placement),
	new(ready.Counter),
	new(ready.Flag),
	new(trace.EventKind),
	new(trace.Format),
	new(trace.Parsed),
	new(trace.Problem),
	new(trace.ProblemKind),
	new(trace.Recorder),
	new(trace.Slice),
	new(trace.Track),
	new(trace.TrackKind),
	new(trace.ValidationError),
	new(analysis.Interval),
	new(analysis.Mode),
	new(analysis.Path),
	new(analysis.Stage),
}

// TestZeroValues calls every exported method of the zero value of every
// exported type (through a pointer, so value and pointer methods alike),
// with the zero value of each argument (context.Background() for a
// context): a value its constructor did not make, with arguments of
// nothing, is misuse, and misuse is an error or nothing, never a panic
// or a wait without end.
func TestZeroValues(t *testing.T) { callAll(t, zeroValues, "(*%s).%s of the zero value") }

// TestZeroValuesListed holds zeroValues to the source: every exported
// type declaring an exported method, in every package outside internal,
// cmd and testdata, is in it.
func TestZeroValuesListed(t *testing.T) {
	listed := map[string]bool{}
	for _, z := range zeroValues {
		ty := reflect.TypeOf(z).Elem()
		name, _, _ := strings.Cut(ty.Name(), "[") // a generic type's instance
		listed[ty.PkgPath()+"."+name] = true
	}
	const module = "github.com/pipert/pipert"
	found := 0
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (n == "internal" || n == "cmd" || n == "testdata" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := module
		if dir := filepath.ToSlash(rel); dir != "." {
			pkg += "/" + dir
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || !fd.Name.IsExported() {
				continue
			}
			recv := fd.Recv.List[0].Type
			if s, ok := recv.(*ast.StarExpr); ok {
				recv = s.X
			}
			switch x := recv.(type) {
			case *ast.IndexExpr:
				recv = x.X
			case *ast.IndexListExpr:
				recv = x.X
			}
			id, ok := recv.(*ast.Ident)
			if !ok || !id.IsExported() {
				continue
			}
			found++
			if key := pkg + "." + id.Name; !listed[key] {
				listed[key] = true // report each type once
				t.Errorf("%s: exported type %s has exported methods (%s) and is not in zeroValues", path, key, fd.Name.Name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatalf("no exported method found under %s", root)
	}
}

// TestZeroValueErrors holds the zero values (and nil handles) whose calls
// are errors to the sentinels they match.
func TestZeroValueErrors(t *testing.T) {
	ctx := context.Background()
	second := func(_ any, err error) error { return err }
	cases := []struct {
		call string
		err  error
		want error
	}{
		{"SuperKernelActor.Run", func() error { _, _, err := new(actor.SuperKernelActor).Run(ctx, nil); return err }(), actor.ErrMisuse},
		{"SuperKernelActor.RunInto", second(new(actor.SuperKernelActor).RunInto(ctx, nil, nil)), actor.ErrMisuse},
		{"SuperKernelActor.Lane", second(new(actor.SuperKernelActor).Lane(ctx, "l", nil)), actor.ErrMisuse},
		{"nil SuperKernelActor.Run", func() error { _, _, err := (*actor.SuperKernelActor)(nil).Run(ctx, nil); return err }(), actor.ErrMisuse},
		{"nil SuperKernelActor.RunInto", second((*actor.SuperKernelActor)(nil).RunInto(ctx, nil, nil)), actor.ErrMisuse},
		{"nil SuperKernelActor.Lane", second((*actor.SuperKernelActor)(nil).Lane(ctx, "l", nil)), actor.ErrMisuse},
		{"nil SuperKernelActor.WorkspaceSize", second((*actor.SuperKernelActor)(nil).WorkspaceSize()), actor.ErrMisuse},
		{"nil SuperKernelActor.UseWorkspace", (*actor.SuperKernelActor)(nil).UseWorkspace(device.Buffer{}), actor.ErrMisuse},
		{"KernelRunner.Begin", new(actor.KernelRunner).Begin(nil, 0), actor.ErrMisuse},
		{"KernelRunner.Infer", new(actor.KernelRunner).Infer(0), actor.ErrMisuse},
		{"KernelRunner.Launch", new(actor.KernelRunner).Launch(0), actor.ErrMisuse},
		{"Runners.New", second(new(actor.Runners).New("Add", nil)), actor.ErrMisuse},
		{"swai.Device.Alloc", second(new(swai.Device).Alloc(64, false)), device.ErrNoDevice},
		{"swai.Device.MallocHost", func() error { _, _, err := new(swai.Device).MallocHost(64); return err }(), device.ErrNoDevice},
		{"host.Device.Alloc", second(new(host.Device).Alloc(64, false)), device.ErrNoDevice},
		{"alloc.Caching.Alloc", second(new(alloc.Caching).Alloc(64)), alloc.ErrOutOfMemory},
		{"queues.Queue.Push", new(queues.Queue[int]).Push(1), queues.ErrClosed},
		{"queues.Pipeline.Push", new(queues.Pipeline[int]).Push(1), queues.ErrClosed},
		{"nil queues.Queue.Push", (*queues.Queue[int])(nil).Push(1), queues.ErrClosed},
		{"nil queues.Queue.TryPush", second((*queues.Queue[int])(nil).TryPush(1)), queues.ErrClosed},
		{"nil queues.Queue.WaitTicket", (*queues.Queue[int])(nil).WaitTicket(1), queues.ErrTicket},
		{"nil queues.Pipeline.Push", (*queues.Pipeline[int])(nil).Push(1), queues.ErrClosed},
		{"nil queues.Pipeline.PushYield", second((*queues.Pipeline[int])(nil).PushYield(1)), queues.ErrClosed},
		{"control.If.InferShape", new(control.If).InferShape(nil, nil), control.ErrBranch},
		{"control.Loop.InferShape", new(control.Loop).InferShape(nil, nil), control.ErrLoop},
		{"control.Scan.InferShape", new(control.Scan).InferShape(nil, nil), control.ErrScan},
		{"nil control.If.InferShape", (*control.If)(nil).InferShape(nil, nil), control.ErrBranch},
		{"nil control.Loop.InferShape", (*control.Loop)(nil).InferShape(nil, nil), control.ErrLoop},
		{"nil control.Scan.InferShape", (*control.Scan)(nil).InferShape(nil, nil), control.ErrScan},
		{"nil host.Device.Alloc", second((*host.Device)(nil).Alloc(64, false)), device.ErrNoDevice},
		{"nil host.Device.Free", (*host.Device)(nil).Free(device.Buffer{Addr: 1, Size: 1}), device.ErrNoDevice},
		{"nil swai.Device.Alloc", second((*swai.Device)(nil).Alloc(64, false)), device.ErrNoDevice},
		{"nil swai.Device.Free", (*swai.Device)(nil).Free(device.Buffer{Addr: 1, Size: 1}), device.ErrNoDevice},
		{"nil swai.Device.MemcpyH2D", second((*swai.Device)(nil).MemcpyH2D(ctx, device.Buffer{}, nil, swai.Path(0))), device.ErrNoDevice},
		{"nil mt3000.Cluster.Alloc", second((*mt3000.Cluster)(nil).Alloc(64, false)), device.ErrNoDevice},
		{"nil mt3000.Chip.Cluster", second((*mt3000.Chip)(nil).Cluster(0)), mt3000.ErrNoCluster},
		{"nil alloc.Multilevel.Alloc", second((*alloc.Multilevel)(nil).Alloc(64)), alloc.ErrOutOfMemory},
		{"nil alloc.Multilevel.Free", (*alloc.Multilevel)(nil).Free(alloc.Base), alloc.ErrForeign},
		{"nil fabric.Heap.Alloc", second((*fabric.Heap)(nil).Alloc(0, "a", 8)), fabric.ErrConfig},
		{"nil fabric.Model.Add", (*fabric.Model)(nil).Add(0, fabric.Kernel{}), fabric.ErrConfig},
		{"nil fabric.Flags.Set", (*fabric.Flags)(nil).Set(0, 1), fabric.ErrConfig},
		{"nil fabric.Config.Check", (*fabric.Config)(nil).Check(), fabric.ErrConfig},
		{"nil actor.KernelRunner.Begin", (*actor.KernelRunner)(nil).Begin(nil, 0), actor.ErrMisuse},
		{"nil actor.KernelRunner.Launch", (*actor.KernelRunner)(nil).Launch(0), actor.ErrMisuse},
		{"nil actor.Runners.New", second((*actor.Runners)(nil).New("Add", nil)), actor.ErrMisuse},
		{"nil fault.Device.Alloc", second((*fault.Device)(nil).Alloc(64, false)), device.ErrNoDevice},
		{"nil fault.Device.SetRules", (*fault.Device)(nil).SetRules(), device.ErrNoDevice},
		{"nil host.Mapped.Alloc", second((*host.Mapped)(nil).Alloc(64, false)), device.ErrNoDevice},
		{"nil alloc.Reference.Alloc", second((*alloc.Reference)(nil).Alloc(64)), alloc.ErrOutOfMemory},
		{"nil alloc.Caching.Alloc", second((*alloc.Caching)(nil).Alloc(64)), alloc.ErrOutOfMemory},
		{"nil alloc.Recording.Alloc", second((*alloc.Recording)(nil).Alloc(64)), alloc.ErrOutOfMemory},
		{"control.Resolver.New", second(control.Resolver{}.New("Add", nil)), kernel.ErrUnknownOp},
		{"heterog.Capability.Place", second(heterog.Capability{}.Place(nil, heterog.Target{})), heterog.ErrInvalid},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s of the zero value: %v, want an error matching %v", c.call, c.err, c.want)
		}
	}
}

// TestNilReceivers calls every exported method with a pointer receiver of
// a nil pointer of every type of zeroValues, with zero arguments, as
// TestZeroValues calls the zero values': a nil handle (one an integrator
// holds before making it, or a constructor's after its error) is misuse,
// an error or nothing. A method with a value receiver is not called: Go
// itself dereferences the nil pointer to call it, in the caller's code.
func TestNilReceivers(t *testing.T) {
	n := 0
	for _, z := range zeroValues {
		pt := reflect.TypeOf(z)
		v := reflect.Zero(pt)
		for i := range v.NumMethod() {
			m := pt.Method(i)
			if _, byValue := pt.Elem().MethodByName(m.Name); byValue {
				continue
			}
			n++
			name := fmt.Sprintf("(%s)(nil).%s", pt, m.Name)
			if p, ok := call(v.Method(i)); !ok {
				t.Fatalf("%s, zero arguments: no return in 10s", name)
			} else if p != nil {
				t.Errorf("%s, zero arguments: panic: %v", name, p)
			}
		}
	}
	if n == 0 {
		t.Fatal("no method with a pointer receiver found")
	}
}

// callAll calls every exported method of each of values (pointers) with
// call, and fails on a panic or a call that does not return; what names a
// call from its type's and method's names.
func callAll(t *testing.T, values []any, what string) {
	t.Helper()
	for _, z := range values {
		v := reflect.ValueOf(z)
		for i := range v.NumMethod() {
			name := fmt.Sprintf(what, v.Type().Elem(), v.Type().Method(i).Name)
			if p, ok := call(v.Method(i)); !ok {
				t.Fatalf("%s, zero arguments: no return in 10s", name)
			} else if p != nil {
				t.Errorf("%s, zero arguments: panic: %v", name, p)
			}
		}
	}
}

// call calls m with the zero value of each argument (context.Background()
// for a context) and returns what it panicked with, or false when it had
// not returned after 10 s.
func call(m reflect.Value) (panicked any, returned bool) {
	ctxType := reflect.TypeFor[context.Context]()
	args := make([]reflect.Value, m.Type().NumIn())
	for j := range args {
		if at := m.Type().In(j); at == ctxType {
			args[j] = reflect.ValueOf(context.Background())
		} else {
			args[j] = reflect.Zero(at)
		}
	}
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		if m.Type().IsVariadic() {
			m.CallSlice(args)
		} else {
			m.Call(args)
		}
	}()
	select {
	case p := <-done:
		return p, true
	case <-time.After(10 * time.Second):
		return nil, false
	}
}
