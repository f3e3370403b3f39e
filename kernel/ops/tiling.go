package ops

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/pipert/pipert/kernel"
)

// The modeled core array that tiling data is computed for.
const (
	numCores  = 32        // cores sharing one kernel's work
	localMem  = 256 << 10 // bytes of local memory per core
	tileAlign = 64        // elements: tiles are multiples of this
)

var errTiling = errors.New("tiling data too short for the operands")

// encoder appends little-endian 64-bit words to a tiling's Data. Resize
// hands an op the node's tiling from its previous run as an encoder, its
// Data emptied, so a steady-state Resize writes its words without
// allocating. The op sets no Workspace through it: it returns the size.
type encoder kernel.Tiling

// grow makes room for n more words.
func (e *encoder) grow(n int) {
	if need := len(e.Data) + 8*n; need > cap(e.Data) {
		e.Data = append(make([]byte, 0, need), e.Data...)
	}
}

func (e *encoder) put(v int64) { e.Data = binary.LittleEndian.AppendUint64(e.Data, uint64(v)) }

func (e *encoder) putBool(v bool) {
	if v {
		e.put(1)
	} else {
		e.put(0)
	}
}

func (e *encoder) puts(v []int64) {
	for _, x := range v {
		e.put(x)
	}
}

// decoder reads the words of a tiling. Reading past the end yields zeros and
// marks the decoder bad; check err once after the reads.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) word() int64 {
	if len(d.b) < 8 {
		d.bad = true
		return 0
	}
	v := int64(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	return v
}

// words returns the next n words as a view.
func (d *decoder) words(n int64) words {
	if n < 0 || n > int64(len(d.b))/8 {
		d.bad = true
		return nil
	}
	w := words(d.b[:8*n])
	d.b = d.b[8*n:]
	return w
}

func (d *decoder) err() error {
	if d.bad {
		return errTiling
	}
	return nil
}

// words is a view of consecutive tiling words.
type words []byte

func (w words) at(i int) int64 { return int64(binary.LittleEndian.Uint64(w[8*i:])) }

func (w words) len() int { return len(w) / 8 }

// split is the five-word element split described in the package doc.
type split struct {
	total, tileLen, tiles, cores, tilesPerCore int64
}

// splitElems splits total elements of elemBytes bytes over the cores, for a
// kernel that keeps buffers tiles (its operands, double-buffered) in local
// memory at once.
func splitElems(total int64, elemBytes, buffers int) split {
	capacity := max(int64(localMem/buffers/max(elemBytes, 1))/tileAlign*tileAlign, tileAlign)
	share := roundUp(max(ceilDiv(total, numCores), 1), tileAlign)
	s := split{total: total, tileLen: min(share, capacity)}
	s.tiles = ceilDiv(total, s.tileLen)
	s.cores = min(s.tiles, numCores)
	if s.cores > 0 {
		s.tilesPerCore = ceilDiv(s.tiles, s.cores)
	}
	return s
}

const splitWords = 5

func (s split) put(e *encoder) {
	e.put(s.total)
	e.put(s.tileLen)
	e.put(s.tiles)
	e.put(s.cores)
	e.put(s.tilesPerCore)
}

// readSplit reads a split and checks its total against the element count
// the operands imply.
func readSplit(d *decoder, total int64) error {
	got := d.word()
	for range splitWords - 1 {
		d.word()
	}
	if err := d.err(); err != nil {
		return err
	}
	if got != total {
		return fmt.Errorf("tiling is for %d elements, operands have %d", got, total)
	}
	return nil
}

// rows is the split of a row-wise op (Softmax, LayerNorm) over the cores:
// whole rows per core, each row streamed through local memory in chunks.
type rows struct {
	rows, rowLen, rowsPerCore, cores, chunk int64
}

const rowsWords = 5

func splitRows(n, rowLen int64, elemBytes, buffers int) rows {
	capacity := max(int64(localMem/buffers/max(elemBytes, 1))/tileAlign*tileAlign, tileAlign)
	r := rows{rows: n, rowLen: rowLen, chunk: min(roundUp(max(rowLen, 1), tileAlign), capacity)}
	r.cores = min(n, numCores)
	if r.cores > 0 {
		r.rowsPerCore = ceilDiv(n, r.cores)
	}
	return r
}

func (r rows) put(e *encoder) {
	e.put(r.rows)
	e.put(r.rowLen)
	e.put(r.rowsPerCore)
	e.put(r.cores)
	e.put(r.chunk)
}

// readRows reads a rows block and checks it against the operands.
func readRows(d *decoder, n, rowLen int64) error {
	gotN, gotLen := d.word(), d.word()
	for range rowsWords - 2 {
		d.word()
	}
	if err := d.err(); err != nil {
		return err
	}
	if gotN != n || gotLen != rowLen {
		return fmt.Errorf("tiling is for %d rows of %d, operands have %d rows of %d", gotN, gotLen, n, rowLen)
	}
	return nil
}

func ceilDiv(a, b int64) int64 {
	if a <= 0 {
		return 0
	}
	return (a + b - 1) / b
}

func roundUp(a, m int64) int64 { return ceilDiv(a, m) * m }

// scratch returns buf[:n] if it fits, else a new slice: Resize keeps its
// stride arithmetic on the stack for ranks up to the size of buf.
func scratch(buf []int64, n int) []int64 {
	if n <= cap(buf) {
		return buf[:n]
	}
	return make([]int64, n)
}

// coalesce rewrites a loop nest (dims, with one or two stride lists for the
// operands it walks) to an equivalent shorter one: unit dimensions are
// dropped and a dimension is merged into its outer neighbour when every
// operand walks the pair as one run. It works in place and returns the new
// rank. s2 may be nil.
func coalesce(dims, s1, s2 []int64) int {
	n := 0
	for i, d := range dims {
		if d == 1 {
			continue
		}
		if n > 0 && s1[n-1] == s1[i]*d && (s2 == nil || s2[n-1] == s2[i]*d) {
			dims[n-1] *= d
			s1[n-1] = s1[i]
			if s2 != nil {
				s2[n-1] = s2[i]
			}
			continue
		}
		dims[n], s1[n] = d, s1[i]
		if s2 != nil {
			s2[n] = s2[i]
		}
		n++
	}
	return n
}

// bcastStrides fills dst (one entry per dimension of out) with the strides
// at which an operand of shape in is read when broadcast to out: 0 along
// broadcast dimensions. unit is the element count of one item of in (1 for
// elementwise ops, a matrix for batched matmul).
func bcastStrides(dst []int64, in, out kernel.Shape, unit int64) error {
	if len(in) > len(out) {
		return fmt.Errorf("shape %v does not broadcast to %v", in, out)
	}
	acc := unit
	off := len(out) - len(in)
	for i := len(out) - 1; i >= 0; i-- {
		j := i - off
		switch {
		case j < 0:
			dst[i] = 0
			continue
		case in[j] == out[i]:
			dst[i] = acc
		case in[j] == 1:
			dst[i] = 0
		default:
			return fmt.Errorf("shape %v does not broadcast to %v", in, out)
		}
		acc *= in[j]
	}
	return nil
}

// broadcastDim is the numpy broadcast of two dimensions known to
// broadcast: the one that is not 1 (0 with 1 is 0, not max's 1).
func broadcastDim(a, b int64) int64 {
	if a == 1 {
		return b
	}
	return a
}

// broadcastDims writes the numpy broadcast of a and b into dst, which has
// length max(len(a), len(b)).
func broadcastDims(dst []int64, a, b kernel.Shape) error {
	n := len(dst)
	for i := range n {
		da, db := int64(1), int64(1)
		if j := len(a) - n + i; j >= 0 {
			da = a[j]
		}
		if j := len(b) - n + i; j >= 0 {
			db = b[j]
		}
		switch {
		case da == db, db == 1:
			dst[i] = da
		case da == 1:
			dst[i] = db
		default:
			return fmt.Errorf("shapes %v and %v do not broadcast (dimension %d: %d vs %d)", a, b, i, da, db)
		}
	}
	return nil
}

// checkWalk checks that walking dims with strides from base, and reading
// extent elements at each point, stays inside an operand of n elements. It
// also returns the number of points walked. The arithmetic cannot overflow
// whatever the words hold.
func checkWalk(dims, strides words, base, extent, n int64) (int64, error) {
	if dims.len() != strides.len() {
		return 0, errTiling
	}
	points := int64(1)
	for i := range dims.len() {
		d := dims.at(i)
		if d < 0 {
			return 0, fmt.Errorf("tiling has negative dimension %d", d)
		}
		if d == 0 {
			return 0, nil
		}
		if points > math.MaxInt64/d {
			return 0, errTiling
		}
		points *= d
	}
	if extent <= 0 {
		return points, nil
	}
	if base < 0 || base > n {
		return 0, fmt.Errorf("tiling starts at element %d of an operand of %d", base, n)
	}
	lo, hi := base, base
	for i := range dims.len() {
		d, s := dims.at(i), strides.at(i)
		if s == 0 || d == 1 {
			continue
		}
		// (d-1)·|s| ≤ n, checked without overflow, or the walk leaves the
		// operand anyway.
		if s < -n || s > n || d-1 > n/max(s, -s) {
			return 0, fmt.Errorf("tiling walks %d steps of %d through an operand of %d", d, s, n)
		}
		if s > 0 {
			hi += (d - 1) * s
		} else {
			lo += (d - 1) * s
		}
		if lo < 0 || hi > n {
			break
		}
	}
	if lo < 0 || hi+extent > n {
		return 0, fmt.Errorf("tiling reads elements %d to %d of an operand of %d", lo, hi+extent-1, n)
	}
	return points, nil
}

// shapeOf returns a shape of rank r for t, reusing t.Shape's array when it
// is large enough.
func shapeOf(t *kernel.Tensor, r int) kernel.Shape {
	if cap(t.Shape) >= r && t.Shape != nil {
		return t.Shape[:r]
	}
	return make(kernel.Shape, r)
}

// setShape sets t's shape to a copy of s and its dtype to dt.
func setShape(t *kernel.Tensor, s kernel.Shape, dt kernel.DType) {
	d := shapeOf(t, len(s))
	copy(d, s)
	t.Shape, t.DType = d, dt
}

func checkNumeric(t *kernel.Tensor, name string) error {
	switch t.DType {
	case kernel.Float32, kernel.Float16, kernel.Int32, kernel.Int64:
		return nil
	}
	return fmt.Errorf("input %s has dtype %v, want float32, float16, int32 or int64", name, t.DType)
}

func checkFloat(t *kernel.Tensor, name string) error {
	if t.DType == kernel.Float32 || t.DType == kernel.Float16 || t.DType == kernel.BFloat16 {
		return nil
	}
	return fmt.Errorf("input %s has dtype %v, want float32, float16 or bfloat16", name, t.DType)
}

func checkSameDType(t *kernel.Tensor, name string, ref *kernel.Tensor, refName string) error {
	if t.DType != ref.DType {
		return fmt.Errorf("input %s has dtype %v, input %s has %v: they must match", name, t.DType, refName, ref.DType)
	}
	return nil
}

// ints is a list of integers held in an attribute or in the contents of an
// int32 or int64 tensor; reading it allocates nothing.
type ints struct {
	attr []int64
	b    []byte
	dt   kernel.DType
	n    int
}

func attrInts(v []int64) ints { return ints{attr: v, n: len(v)} }

func (l ints) at(i int) int64 {
	if l.b == nil {
		return l.attr[i]
	}
	if l.dt == kernel.Int32 {
		return int64(int32(binary.LittleEndian.Uint32(l.b[4*i:])))
	}
	return int64(binary.LittleEndian.Uint64(l.b[8*i:]))
}

// valueInts reads the values of integer input t, named name in errors: from
// Host, where the runtime puts value-dependency inputs, else from the device
// contents. The input must have rank at most maxRank.
func valueInts(t *kernel.Tensor, name string, maxRank int) (ints, error) {
	if !isIndex(t.DType) {
		return ints{}, fmt.Errorf("input %s has dtype %v, want int64 or int32", name, t.DType)
	}
	if t.Shape.Rank() > maxRank {
		return ints{}, fmt.Errorf("input %s has rank %d, want at most %d", name, t.Shape.Rank(), maxRank)
	}
	n := t.NumElements()
	b := t.Host
	if b == nil && t.Buf.Data != nil {
		if err := checkSize(t); err != nil {
			return ints{}, fmt.Errorf("input %s: %w", name, err)
		}
		b = t.Data()
	}
	if n > 0 && b == nil {
		return ints{}, fmt.Errorf("values of input %s are not available: it is virtual", name)
	}
	if int64(len(b)) < t.Bytes() {
		return ints{}, fmt.Errorf("input %s has %d bytes of values, want %d", name, len(b), t.Bytes())
	}
	return ints{b: b, dt: t.DType, n: int(n)}, nil
}

// mix is the splitmix64 finalizer: it turns a run seed into well-spread bits
// for the compute-dependent size models.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// isIndex reports whether dt is an index dtype: int32 or int64.
func isIndex(dt kernel.DType) bool { return dt == kernel.Int32 || dt == kernel.Int64 }
