package ops

import (
	"fmt"
	"sync"

	"github.com/pipert/pipert/kernel"
)

// builtins lists every op of the package with its factory.
var builtins = [...]struct {
	op string
	f  kernel.Factory
}{
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

// Register adds every built-in op to r. Like kernel.Registry.Register, it
// panics if one of them is already registered.
func Register(r *kernel.Registry) {
	for _, b := range builtins {
		r.Register(b.op, b.f)
	}
}

var registry = sync.OnceValue(func() *kernel.Registry {
	r := new(kernel.Registry)
	Register(r)
	return r
})

// Registry returns the process-wide registry of the built-in ops, built on
// first use. Registering more ops in it is allowed.
func Registry() *kernel.Registry { return registry() }

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
