package ops

import (
	"fmt"
	"math"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// TfIdfVectorizer(X) → Y (from opset 9), computed as onnxruntime's CPU
// kernel computes it:
//
//   - Attributes (all required but weights): mode TF, IDF or TFIDF;
//     min_gram_length ≥ 1, max_gram_length ≥ min_gram_length, both at
//     most the length of ngram_counts; max_skip_count ≥ 0; ngram_counts
//     (non-empty) the start in pool_int64s of the 1-grams, 2-grams, and so
//     on, each n-gram size a range [ngram_counts[n−1], ngram_counts[n])
//     (the last ending at the pool's end) of a multiple of n items inside
//     the pool; ngram_indexes (non-empty, ≥ 0) the output index of each
//     n-gram of the pool, in pool order; weights (optional) one float per
//     entry of ngram_indexes. Only the n-grams of the sizes from
//     min_gram_length to max_gram_length are looked for; one of them
//     given twice, or one with no entry in ngram_indexes, is an error.
//     pool_strings is refused: pipert has no string tensors.
//   - X is int32 or int64, [C] (one row) or [N, C] with N ≥ 1 (N = 0 is an
//     error, as in onnxruntime). Y is float32 [O] or [N, O], O =
//     max(ngram_indexes) + 1, zero where no n-gram counts, and all zero
//     for C = 0.
//   - In each row, for each skip s from 0 to max_skip_count and each start
//     position, the n-grams of the sizes min_gram_length to
//     max_gram_length made of every (s+1)-th item from the start are
//     counted when in the pool; 1-grams, which skips do not change, are
//     counted in the first pass (s = 0) only.
//   - Each n-gram found, in that order (skip, start position, size),
//     weighs on its output index i: TF adds 1; IDF sets i to the n-gram's
//     weight (the last found's when n-grams share i; 1 without weights);
//     TFIDF adds the n-gram's weight (1 without weights), in float32, once
//     per occurrence. The k-th n-gram of the pool (from 0, all sizes
//     numbered) has output index ngram_indexes[k] and weight weights[k].
type tfidf struct {
	idf        bool // IDF mode: an n-gram sets its weight (else it adds it)
	minN, maxN int64
	maxSkip    int64
	outSize    int64
	weighted   bool // weights given, in IDF or TFIDF mode (else the weight is 1)
	root       tfidfMap
}

// tfidfMap is a level of the pool's n-gram trie: the node reached by an
// item after the items of the levels above.
type tfidfMap map[int64]*tfidfNode

type tfidfNode struct {
	out  int64   // output index of the n-gram ending here, −1 if none
	w    float32 // its weight (weights[k] of the pool's k-th n-gram)
	next tfidfMap
}

func newTfIdf(attrs kernel.Attrs) (kernel.Kernel, error) {
	k, err := parseTfIdf(attrs)
	if err != nil {
		return nil, fmt.Errorf("ops: TfIdfVectorizer: %w", err)
	}
	return newKernel(sig{op: "TfIdfVectorizer", minIn: 1, maxIn: 1, nOut: 1}, k), nil
}

func parseTfIdf(attrs kernel.Attrs) (*tfidf, error) {
	if err := attrs.Check("mode", "min_gram_length", "max_gram_length", "max_skip_count", "ngram_counts", "ngram_indexes",
		"pool_int64s", "pool_strings", "weights"); err != nil {
		return nil, err
	}
	if _, ok := attrs["pool_strings"]; ok {
		return nil, notImplemented("attribute \"pool_strings\": string n-grams are not implemented (pipert has no string tensors; pool_int64s is)")
	}
	for _, name := range []string{"mode", "min_gram_length", "max_gram_length", "max_skip_count", "ngram_counts", "ngram_indexes", "pool_int64s"} {
		if _, ok := attrs[name]; !ok {
			return nil, fmt.Errorf("attribute %q is required", name)
		}
	}
	mode, err := attrs.String("mode", "")
	if err != nil {
		return nil, err
	}
	if mode != "TF" && mode != "IDF" && mode != "TFIDF" {
		return nil, fmt.Errorf("attribute \"mode\" %q: want TF, IDF or TFIDF", mode)
	}
	m := &tfidf{idf: mode == "IDF"}
	if m.minN, err = attrs.Int("min_gram_length", 0); err != nil {
		return nil, err
	}
	if m.maxN, err = attrs.Int("max_gram_length", 0); err != nil {
		return nil, err
	}
	if m.maxSkip, err = attrs.Int("max_skip_count", 0); err != nil {
		return nil, err
	}
	switch {
	case m.minN < 1:
		return nil, fmt.Errorf("min_gram_length %d: want at least 1", m.minN)
	case m.maxN < m.minN:
		return nil, fmt.Errorf("max_gram_length %d is below min_gram_length %d", m.maxN, m.minN)
	case m.maxSkip < 0:
		return nil, fmt.Errorf("max_skip_count %d: want at least 0", m.maxSkip)
	}
	counts, err := attrs.Ints("ngram_counts", nil)
	if err != nil {
		return nil, err
	}
	if len(counts) == 0 {
		return nil, fmt.Errorf("ngram_counts is empty")
	}
	if m.maxN > int64(len(counts)) {
		return nil, fmt.Errorf("max_gram_length %d: ngram_counts %v has no %d-grams", m.maxN, counts, m.maxN)
	}
	indexes, err := attrs.Ints("ngram_indexes", nil)
	if err != nil {
		return nil, err
	}
	if len(indexes) == 0 {
		return nil, fmt.Errorf("ngram_indexes is empty")
	}
	for _, i := range indexes {
		if i < 0 {
			return nil, fmt.Errorf("ngram_indexes holds %d: want indexes of at least 0", i)
		}
		if i == math.MaxInt64 {
			return nil, fmt.Errorf("ngram_indexes holds %d: the output size overflows", i)
		}
		m.outSize = max(m.outSize, i+1)
	}
	var weights []float64
	if _, ok := attrs["weights"]; ok {
		if weights, err = attrs.Floats("weights", nil); err != nil {
			return nil, err
		}
		if len(weights) != len(indexes) {
			return nil, fmt.Errorf("weights has %d values, ngram_indexes %d: want one weight per index", len(weights), len(indexes))
		}
		m.weighted = mode != "TF"
	}
	pool, err := attrs.Ints("pool_int64s", nil)
	if err != nil {
		return nil, err
	}
	if len(pool) == 0 {
		return nil, fmt.Errorf("pool_int64s is empty")
	}
	if err := m.load(counts, indexes, weights, pool); err != nil {
		return nil, err
	}
	return m, nil
}

// load builds the trie of the pool's n-grams of the sizes looked for.
// weights, when given, has one value per index.
func (m *tfidf) load(counts, indexes []int64, weights []float64, pool []int64) error {
	m.root = tfidfMap{}
	total := int64(len(pool))
	id := int64(0) // the n-gram's number in the pool, all sizes counted
	for i, start := range counts {
		n := int64(i) + 1
		end := total
		if i+1 < len(counts) {
			end = counts[i+1]
		}
		if start < 0 || end < start || end > total {
			return fmt.Errorf("ngram_counts %v: the %d-grams, items [%d, %d), are not a range of the pool's %d items", counts, n, start, end, total)
		}
		if (end-start)%n != 0 {
			return fmt.Errorf("ngram_counts %v: the %d-grams have %d items, not a multiple of %d", counts, n, end-start, n)
		}
		if n < m.minN || n > m.maxN {
			id += (end - start) / n
			continue
		}
		for g := start; g < end; g, id = g+n, id+1 {
			gram := pool[g : g+n]
			if id >= int64(len(indexes)) {
				return fmt.Errorf("ngram_indexes has %d entries, too few: the %d-gram %v of pool_int64s is n-gram %d (from 0)", len(indexes), n, gram, id)
			}
			w := float32(1)
			if m.weighted {
				w = float32(weights[id])
			}
			level := m.root
			for j, v := range gram {
				node := level[v]
				if node == nil {
					node = &tfidfNode{out: -1}
					level[v] = node
				}
				if j == len(gram)-1 {
					if node.out >= 0 {
						return fmt.Errorf("pool_int64s holds the %d-gram %v twice", n, gram)
					}
					node.out, node.w = indexes[id], w
					break
				}
				if node.next == nil {
					node.next = tfidfMap{}
				}
				level = node.next
			}
		}
	}
	return nil
}

// check checks X and returns its rows and row length.
func (m *tfidf) check(x *kernel.Tensor) (rows, c int64, err error) {
	if x.DType != kernel.Int32 && x.DType != kernel.Int64 {
		return 0, 0, fmt.Errorf("input X has dtype %v, want int32 or int64 (pipert has no string tensors)", x.DType)
	}
	switch x.Shape.Rank() {
	case 1:
		rows, c = 1, x.Shape[0]
	case 2:
		rows, c = x.Shape[0], x.Shape[1]
		if rows == 0 {
			return 0, 0, fmt.Errorf("input X %v: want [C] or [N, C] with N > 0, as onnxruntime does", x.Shape)
		}
	default:
		return 0, 0, fmt.Errorf("input X %v has rank %d, want 1 ([C]) or 2 ([N, C])", x.Shape, x.Shape.Rank())
	}
	if rows > math.MaxInt64/4/m.outSize {
		return 0, 0, fmt.Errorf("output of %d rows of %d: too large", rows, m.outSize)
	}
	return rows, c, nil
}

func (m *tfidf) infer(in, out []*kernel.Tensor) error {
	x := in[0]
	rows, _, err := m.check(x)
	if err != nil {
		return err
	}
	if x.Shape.Rank() == 1 {
		setShape(out[0], kernel.Shape{m.outSize}, kernel.Float32)
	} else {
		setShape(out[0], kernel.Shape{rows, m.outSize}, kernel.Float32)
	}
	return nil
}

func (m *tfidf) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	_, _, err := m.check(in[0])
	return 0, err
}

func (m *tfidf) cost(in, out []*kernel.Tensor) device.Cost {
	x := in[0]
	// Each start position of each skip walks up to max_gram_length items.
	passes := float64(min(m.maxSkip, x.Shape.NumElements())) + 1
	return device.Cost{FLOPs: float64(x.NumElements()) * passes * float64(m.maxN), Bytes: ioBytes(in, out)}
}

func (m *tfidf) compute(a *kernel.Args) error {
	x, y := a.In[0], a.Out[0]
	rows, c, err := m.check(x)
	if err != nil {
		return err
	}
	out := kernel.Float32s(y.Data())[:rows*m.outSize]
	clear(out)
	if c == 0 {
		return nil
	}
	for r := range rows {
		o := out[r*m.outSize : (r+1)*m.outSize]
		if x.DType == kernel.Int32 {
			tfidfRow(m, kernel.Int32s(x.Data())[r*c:(r+1)*c], o)
		} else {
			tfidfRow(m, kernel.Int64s(x.Data())[r*c:(r+1)*c], o)
		}
	}
	return nil
}

// tfidfRow counts the n-grams of row x (not empty) into out, zeroed.
func tfidfRow[T int32 | int64](m *tfidf, x []T, out []float32) {
	c := int64(len(x))
	start := m.minN // the smallest n-gram size this pass counts
	for d := int64(1); d-1 <= m.maxSkip; d++ {
		// d is the distance between the items of an n-gram. Past this
		// distance no n-gram of start items fits in the row.
		if start > 1 && d > (c-1)/(start-1) {
			break
		}
		for s := int64(0); s < c; s++ {
			if s+d*(start-1) >= c {
				break
			}
			level := m.root
			for n, j := int64(1), s; n <= m.maxN && j < c && len(level) > 0; n, j = n+1, j+d {
				node := level[int64(x[j])]
				if node == nil {
					break
				}
				if n >= start && node.out >= 0 {
					m.add(out, node)
				}
				level = node.next
			}
		}
		// 1-grams do not depend on the distance: they count once.
		if start == 1 {
			if start++; start > m.maxN {
				break
			}
		}
	}
}

// add weighs one occurrence of the n-gram ending at node.
func (m *tfidf) add(out []float32, node *tfidfNode) {
	if m.idf {
		out[node.out] = node.w
	} else {
		out[node.out] += node.w
	}
}
