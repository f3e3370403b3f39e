package actor

import (
	"encoding/binary"
	"math"
	"reflect"
	"sort"

	"github.com/pipert/pipert/cache"
	"github.com/pipert/pipert/kernel"
)

// keyHash hashes cache keys (a variable so that tests can make every key
// collide: the caches must still tell keys apart).
var keyHash = cache.Hash

// attrKey encodes what a node's kernel computes its tiling from besides
// its operands: the op and the kernel's Go type (key[:opLen], the node's
// entry in the global cache), then its attributes in name order. ok is
// false when an attribute's value has a type attrKey cannot encode; the
// node is then kept out of the global cache (its local cache needs no
// attributes: they are the node's own). The key is appended to key.
func attrKey(key []byte, op string, k kernel.Kernel, attrs kernel.Attrs) (_ []byte, opLen int, ok bool) {
	key = append(key, op...)
	key = append(key, 0)
	key = append(key, typeName(k)...)
	key = append(key, 0)
	opLen = len(key)
	names := make([]string, 0, len(attrs))
	for n := range attrs {
		names = append(names, n)
	}
	sort.Strings(names)
	ok = true
	for _, n := range names {
		key = appendBytes(key, []byte(n))
		var good bool
		key, good = appendValue(key, attrs[n])
		ok = ok && good
	}
	return key, opLen, ok
}

// typeName is k's Go type as %T prints it.
func typeName(k kernel.Kernel) string {
	if k == nil {
		return "<nil>"
	}
	return reflect.TypeOf(k).String()
}

func appendInt(b []byte, v int64) []byte { return binary.AppendVarint(b, v) }

func appendBytes(b, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

func appendFloat(b []byte, f float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
}

// appendValue encodes an attribute value with its type, false for a type
// it does not know.
func appendValue(b []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case int64:
		return appendInt(append(b, 'i'), x), true
	case int:
		return appendInt(append(b, 'i'), int64(x)), true
	case int32:
		return appendInt(append(b, 'i'), int64(x)), true
	case float64:
		return appendFloat(append(b, 'f'), x), true
	case float32:
		return appendFloat(append(b, 'f'), float64(x)), true
	case kernel.DType: // Cast's "to", as the ONNX importer sets it
		return append(b, 'd', byte(x)), true
	case bool:
		if x {
			return append(b, 'b', 1), true
		}
		return append(b, 'b', 0), true
	case string:
		return appendBytes(append(b, 's'), []byte(x)), true
	case []int64:
		b = binary.AppendUvarint(append(b, 'I'), uint64(len(x)))
		for _, e := range x {
			b = appendInt(b, e)
		}
		return b, true
	case []int:
		b = binary.AppendUvarint(append(b, 'I'), uint64(len(x)))
		for _, e := range x {
			b = appendInt(b, int64(e))
		}
		return b, true
	case []float64:
		b = binary.AppendUvarint(append(b, 'F'), uint64(len(x)))
		for _, e := range x {
			b = appendFloat(b, e)
		}
		return b, true
	case []float32:
		b = binary.AppendUvarint(append(b, 'F'), uint64(len(x)))
		for _, e := range x {
			b = appendFloat(b, float64(e))
		}
		return b, true
	case []string:
		b = binary.AppendUvarint(append(b, 'S'), uint64(len(x)))
		for _, e := range x {
			b = appendBytes(b, []byte(e))
		}
		return b, true
	case *kernel.Tensor:
		if x == nil {
			return append(b, 'n'), true
		}
		b = appendOperand(append(b, 't'), x)
		return appendBytes(b, x.Host), true
	case nil:
		return append(b, 'n'), true
	}
	return append(b, '?'), false
}

// appendOperand encodes a tensor's dtype and shape.
func appendOperand(b []byte, t *kernel.Tensor) []byte {
	if len(t.Shape) < 0x80 {
		b = append(b, byte(t.DType), byte(len(t.Shape)))
	} else {
		b = binary.AppendUvarint(append(b, byte(t.DType)), uint64(len(t.Shape)))
	}
	for _, d := range t.Shape {
		// appendInt's one or two bytes, without its loop.
		switch u := uint64(d) << 1; {
		case d < 0 || d >= 0x2000:
			b = appendInt(b, d)
		case u < 0x80:
			b = append(b, byte(u))
		default:
			b = append(b, byte(u)|0x80, byte(u>>7))
		}
	}
	return b
}

// inferKey appends to b what node pos's InferShape computes from: its
// inputs' dtypes and shapes, and the host values of its value-dependency
// inputs (views refreshed).
func (r *KernelRunner) inferKey(pos int, b []byte) []byte {
	nd := &r.prog.nodes[pos]
	in := r.in(pos)
	for _, t := range in {
		b = appendOperand(b, t)
	}
	for _, j := range nd.valueDeps() {
		v := in[j]
		if v.Host == nil {
			b = append(b, 0) // a virtual value: InferShape does without
			continue
		}
		n := min(int64(len(v.Host)), v.Bytes())
		b = appendBytes(append(b, 1), v.Host[:n])
	}
	return b
}

// tilingKey appends to b what node pos's Resize computes from: the
// node's attributes (for the global cache), its operands' dtypes and
// shapes, and its value-dependency inputs' values.
func (r *KernelRunner) tilingKey(pos int, b []byte) []byte {
	b = append(b, r.prog.nodes[pos].key.attrs...)
	if r.ikey != nil && r.iok[pos] {
		// This run's Infer found or kept its key: the operands are
		// the same (Resize follows Infer, and a run's stages end
		// before the next run's begin).
		b = append(b, r.keyOf(pos)...)
	} else {
		b = r.inferKey(pos, b)
	}
	for _, t := range r.out(pos) {
		b = appendOperand(b, t)
	}
	return b
}

// appendOutputs encodes node pos's output dtypes and shapes, which
// restoreOutputs sets back.
func (r *KernelRunner) appendOutputs(pos int, b []byte) []byte {
	for _, t := range r.out(pos) {
		b = append(b, byte(t.DType))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(t.Shape)))
		for _, d := range t.Shape {
			b = binary.LittleEndian.AppendUint64(b, uint64(d))
		}
	}
	return b
}

// restoreOutputs sets node pos's outputs to the dtypes and shapes b
// encodes (appendOutputs).
func (r *KernelRunner) restoreOutputs(pos int, b []byte) {
	for _, t := range r.out(pos) {
		t.DType = kernel.DType(b[0])
		n := int(binary.LittleEndian.Uint32(b[1:]))
		b = b[5:]
		t.Shape = t.Shape[:0]
		for i := 0; i < n; i++ {
			t.Shape = append(t.Shape, int64(binary.LittleEndian.Uint64(b)))
			b = b[8:]
		}
	}
}
