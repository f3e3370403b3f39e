package ops

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/pipert/pipert/kernel"
)

// builtin is one op of the package with its factory.
type builtin struct {
	op string
	f  kernel.Factory
}

// builtinGroups lists every op of the package, one list per family; each
// family's list lives beside its ops. An op name appears once across all
// lists (TestBuiltinNamesAreUnique).
var builtinGroups = [...][]builtin{coreOps, elemOps, spatialOps, seqOps, visionOps, signalOps, quantOps, lossOps, opset18Ops, opset23Ops, attentionOps, vision18Ops, lpOps, opset26Ops, opset27Ops, opset28Ops, col2imOps, randomOps, contribOps, mlOps, experimentalOps}

// opset18Ops are ONNX's ops of opsets 18 to 21 with no earlier form.
var opset18Ops = append(bitwiseOps, builtin{"GroupNormalization", newGroupNorm})

// coreOps are the ops pipert's own scenarios are built from.
var coreOps = []builtin{
	{"Add", newBinary(opAdd, "Add")},
	{"Sub", newBinary(opSub, "Sub")},
	{"Mul", newBinary(opMul, "Mul")},
	{"Div", newBinary(opDiv, "Div")},
	{"MatMul", newMatMul(false)},
	{"BatchMatMul", newMatMul(true)},
	{"Softmax", newSoftmax(false)},
	{"LogSoftmax", newSoftmax(true)},
	{"LayerNorm", newLayerNorm},
	{"ReLU", newReLU},
	{"GELU", newGELU},
	{"ReduceSum", newReduceSum},
	{"Transpose", newTranspose},
	{"Concat", newConcat},
	{"Slice", newSlice},
	{"Gather", newGather},
	{"Cast", newCast},
	{"Shape", newShape},
	{"Reshape", newReshape},
	{"Unique", newUnique},
	{"NonZero", newNonZero},
}

// Registry maps op names to kernel factories: it implements
// kernel.Resolver. The zero Registry is empty and ready to use, a nil one
// empty and closed to Register; it is safe for concurrent use. Builtins is the registry of pipert's own ops;
// NewRegistry makes one to extend with ops of your own.
type Registry struct {
	mu       sync.RWMutex
	m        map[string]kernel.Factory
	readOnly bool
}

// ErrDuplicateOp is the cause of Register's failure on an op already
// registered; ErrReadOnly of its failure on Builtins.
var (
	ErrDuplicateOp = errors.New("ops: op registered twice")
	ErrReadOnly    = errors.New("ops: the built-in registry is read-only (use NewRegistry)")
)

// NewRegistry returns a registry holding every built-in op, to which more
// ops can be added.
func NewRegistry() *Registry {
	r := &Registry{m: make(map[string]kernel.Factory)}
	for _, g := range builtinGroups {
		for _, b := range g {
			r.m[b.op] = b.f
		}
	}
	return r
}

// Builtins returns the process-wide registry of the built-in ops. It is
// read-only: Register fails with ErrReadOnly.
func Builtins() *Registry { return builtinRegistry() }

var builtinRegistry = sync.OnceValue(func() *Registry {
	r := NewRegistry()
	r.readOnly = true
	return r
})

// Register adds op built by f. It fails if op is already registered, f is
// nil, or r is Builtins.
func (r *Registry) Register(op string, f kernel.Factory) error {
	if strings.TrimSpace(op) != op || op == "" || f == nil {
		return fmt.Errorf("ops: register %q: empty op name, a name with surrounding spaces, or nil factory", op)
	}
	if r == nil {
		return fmt.Errorf("ops: register %q: nil Registry", op)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.readOnly {
		return fmt.Errorf("register %q: %w", op, ErrReadOnly)
	}
	if r.m == nil {
		r.m = make(map[string]kernel.Factory)
	}
	if _, dup := r.m[op]; dup {
		return fmt.Errorf("register %q: %w", op, ErrDuplicateOp)
	}
	r.m[op] = f
	return nil
}

// New implements kernel.Resolver. A factory's panic, or a factory that
// returns neither a kernel nor an error, is an error naming the op.
func (r *Registry) New(op string, attrs kernel.Attrs) (k kernel.Kernel, err error) {
	f, ok := r.factory(op)
	if !ok {
		return nil, fmt.Errorf("op %q: %w", op, kernel.ErrUnknownOp)
	}
	defer func() {
		if p := recover(); p != nil {
			k, err = nil, fmt.Errorf("op %s: factory: %w: %v", op, kernel.ErrPanic, p)
		}
	}()
	k, err = f(attrs)
	if err != nil {
		return nil, fmt.Errorf("op %s: %w", op, err)
	}
	if k == nil {
		return nil, fmt.Errorf("op %s: factory returned no kernel", op)
	}
	return k, nil
}

// Has implements kernel.Resolver.
func (r *Registry) Has(op string) bool {
	_, ok := r.factory(op)
	return ok
}

// factory returns op's factory. Builtins' registry is never written once
// made (readOnly is set before it is published), so its lookups, one or
// two a node of every Compile, take no lock.
func (r *Registry) factory(op string) (kernel.Factory, bool) {
	if r == nil {
		return nil, false
	}
	if r.readOnly {
		f, ok := r.m[op]
		return f, ok
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	f, ok := r.m[op]
	return f, ok
}

// Ops lists the registered op names in order.
func (r *Registry) Ops() []string {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.m))
	for k := range r.m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// wrapAttr prefixes an attribute error from a factory.
func wrapAttr(err error) error { return fmt.Errorf("ops: %w", err) }

// flagAttr reads a boolean attribute given as a bool or, as ONNX stores
// them, an integer 0 or 1.
func flagAttr(attrs kernel.Attrs, name string, def bool) (bool, error) {
	v, ok := attrs[name]
	if !ok {
		return def, nil
	}
	if _, isBool := v.(bool); isBool {
		return attrs.Bool(name, def)
	}
	i, err := attrs.Int(name, 0)
	if err != nil {
		return false, fmt.Errorf("attribute %q: want a bool or 0/1, have %T", name, v)
	}
	switch i {
	case 0:
		return false, nil
	case 1:
		return true, nil
	}
	return false, fmt.Errorf("attribute %q is %d, want 0 or 1", name, i)
}
