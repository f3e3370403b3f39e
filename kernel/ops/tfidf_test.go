package ops

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "TfIdfVectorizer")
}

// tfidfAttrs is a TfIdfVectorizer node's attributes: mode, the n-gram
// sizes looked for, the skips, the pool.
func tfidfAttrs(mode string, minN, maxN, skip int64, counts, indexes, pool []int64) kernel.Attrs {
	return kernel.Attrs{"mode": mode, "min_gram_length": minN, "max_gram_length": maxN, "max_skip_count": skip,
		"ngram_counts": counts, "ngram_indexes": indexes, "pool_int64s": pool}
}

// checkTfIdf runs TfIdfVectorizer and requires Y of shape and values want,
// bit for bit.
func checkTfIdf(t *testing.T, name string, a kernel.Attrs, x *kernel.Tensor, shape []int64, want ...float32) {
	t.Helper()
	y := mustRun(t, "TfIdfVectorizer", a, x)
	got := kernel.Float32s(y.Data())[:y.NumElements()]
	same := y.DType == kernel.Float32 && slices.Equal(y.Shape, kernel.Shape(shape)) && len(got) == len(want)
	for i := 0; same && i < len(got); i++ {
		same = math.Float32bits(got[i]) == math.Float32bits(want[i])
	}
	if !same {
		t.Errorf("%s: Y %v %v %v, want %v %v", name, y.DType, y.Shape, got, shape, want)
	}
}

// The ONNX backend tests' pool: the 1-grams 2, 3, 5, 4 and the 2-grams
// (5, 6), (7, 8), (6, 7).
var (
	tfidfCounts  = []int64{0, 4}
	tfidfIndexes = []int64{0, 1, 2, 3, 4, 5, 6}
	tfidfPool    = []int64{2, 3, 5, 4, 5, 6, 7, 8, 6, 7}
	tfidfX       = []int64{1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8}
)

// TestTfIdfBackendPatterns checks the ONNX backend tests' cases, int32 and
// int64, one row and two.
func TestTfIdfBackendPatterns(t *testing.T) {
	for _, dt := range []kernel.DType{kernel.Int32, kernel.Int64} {
		x := intsT(dt, shp(12), tfidfX...)
		batch := intsT(dt, shp(2, 6), tfidfX...)
		checkTfIdf(t, "bigrams skip 0", tfidfAttrs("TF", 2, 2, 0, tfidfCounts, tfidfIndexes, tfidfPool), x, shp(7), 0, 0, 0, 0, 1, 1, 1)
		checkTfIdf(t, "batch bigrams skip 0", tfidfAttrs("TF", 2, 2, 0, tfidfCounts, tfidfIndexes, tfidfPool), batch, shp(2, 7),
			0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1)
		checkTfIdf(t, "bigrams skip 5", tfidfAttrs("TF", 2, 2, 5, tfidfCounts, tfidfIndexes, tfidfPool), x, shp(7), 0, 0, 0, 0, 1, 3, 1)
		checkTfIdf(t, "batch bigrams skip 5", tfidfAttrs("TF", 2, 2, 5, tfidfCounts, tfidfIndexes, tfidfPool), batch, shp(2, 7),
			0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1)
		checkTfIdf(t, "1- and 2-grams skip 5", tfidfAttrs("TF", 1, 2, 5, tfidfCounts, tfidfIndexes, tfidfPool), x, shp(7), 0, 3, 1, 0, 1, 3, 1)
		checkTfIdf(t, "batch 1- and 2-grams skip 5", tfidfAttrs("TF", 1, 2, 5, tfidfCounts, tfidfIndexes, tfidfPool), batch, shp(2, 7),
			0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1)
		checkTfIdf(t, "no 1-grams in the pool", tfidfAttrs("TF", 2, 2, 0, []int64{0, 0}, []int64{0, 1, 2}, []int64{5, 6, 7, 8, 6, 7}), x, shp(3), 1, 1, 1)
	}
}

// TestTfIdfSkips checks the skip-grams by hand: the n-grams of each
// distance, 1-grams counted once, n-grams within a row only.
func TestTfIdfSkips(t *testing.T) {
	// ONNX's example: with 2 skips, [94, 17, 36, 12, 28] has the 2-grams
	// (94, 12) and (17, 28).
	x := i64(shp(5), 94, 17, 36, 12, 28)
	pool := []int64{94, 12, 17, 28, 94, 17}
	for skip, want := range [][]float32{{0, 0, 1}, {0, 0, 1}, {1, 1, 1}, {1, 1, 1}} {
		checkTfIdf(t, "spec example", tfidfAttrs("TF", 2, 2, int64(skip), []int64{0, 0}, []int64{0, 1, 2}, pool), x, shp(3), want...)
	}
	// [1, 1, 2]: the 1-grams once whatever the skips; the 2-gram (1, 2)
	// at distance 1 and 2.
	a := tfidfAttrs("TF", 1, 2, 2, []int64{0, 2}, []int64{0, 1, 2}, []int64{1, 2, 1, 2})
	checkTfIdf(t, "1-grams once", a, intsT[int32](kernel.Int32, shp(3), 1, 1, 2), shp(3), 2, 1, 2)
	// 3-grams: [1, 2, 1, 2, 1] has (1, 2, 1) twice at distance 1, once at
	// distance 2; (1, 1, 1) once at distance 2.
	a = tfidfAttrs("TF", 3, 3, 1, []int64{0, 0, 0}, []int64{0, 1}, []int64{1, 2, 1, 1, 1, 1})
	checkTfIdf(t, "3-grams", a, i64(shp(5), 1, 2, 1, 2, 1), shp(2), 2, 1)
	// Rows: (3, 3) only across the rows of [[1, 2, 3], [3, 1, 2]].
	a = tfidfAttrs("TF", 2, 2, 0, []int64{0, 0}, []int64{0, 1, 2}, []int64{2, 3, 3, 3, 1, 2})
	checkTfIdf(t, "rows", a, i64(shp(2, 3), 1, 2, 3, 3, 1, 2), shp(2, 3), 1, 0, 1, 0, 0, 1)
	// Rows shorter than the n-grams, and skips beyond every row.
	checkTfIdf(t, "short rows", a, i64(shp(3, 1), 2, 3, 1), shp(3, 3), 0, 0, 0, 0, 0, 0, 0, 0, 0)
	a = tfidfAttrs("TF", 2, 2, math.MaxInt64, []int64{0, 0}, []int64{0}, []int64{1, 2})
	checkTfIdf(t, "any skip", a, i64(shp(4), 1, 2, 1, 2), shp(1), 3)
	a = tfidfAttrs("TF", 1, 1, math.MaxInt64, []int64{0}, []int64{0}, []int64{1})
	checkTfIdf(t, "any skip, 1-grams", a, i64(shp(4), 1, 2, 1, 2), shp(1), 2)
}

// TestTfIdfPool checks the pool's layout: sizes outside [min, max] not
// looked for but numbered, items before ngram_counts[0] unused, indexes
// with gaps and shared.
func TestTfIdfPool(t *testing.T) {
	// 1-grams 1, 2; 2-gram (1, 2); 3-gram (1, 2, 1): n-gram 3 only.
	a := tfidfAttrs("TFIDF", 3, 3, 0, []int64{0, 2, 4}, []int64{0, 1, 2, 3}, []int64{1, 2, 1, 2, 1, 2, 1})
	a["weights"] = []float64{1, 2, 3, 0.5}
	checkTfIdf(t, "3-grams of a larger pool", a, i64(shp(5), 1, 2, 1, 2, 1), shp(4), 0, 0, 0, 1)
	// The 1-grams 5, 6 (items 2 and 3) and 2-grams (5, 6), (7, 8).
	a = tfidfAttrs("TF", 1, 2, 0, []int64{2, 4}, []int64{0, 1, 2, 3}, []int64{7, 8, 5, 6, 5, 6, 7, 8})
	checkTfIdf(t, "ngram_counts from 2", a, intsT[int32](kernel.Int32, shp(4), 7, 8, 5, 6), shp(4), 1, 1, 1, 1)
	// Output indexes with gaps; a duplicate outside the sizes looked for.
	a = tfidfAttrs("TF", 2, 2, 0, []int64{0, 2}, []int64{0, 1, 9}, []int64{4, 4, 4, 5})
	checkTfIdf(t, "gaps", a, i64(shp(3), 4, 5, 4), shp(10), 0, 0, 0, 0, 0, 0, 0, 0, 0, 1)
	// Several n-grams to one output index: IDF sets the weight of the last
	// one found, TFIDF adds each one's.
	x := i64(shp(4), 2, 1, 3, 3)
	a = tfidfAttrs("IDF", 1, 1, 0, []int64{0}, []int64{0, 0, 1}, []int64{1, 2, 3})
	checkTfIdf(t, "IDF", a, x, shp(2), 1, 1)
	a["weights"] = []float64{0.5, 0.25, 4}
	checkTfIdf(t, "IDF weights", a, x, shp(2), 0.5, 4)
	a["mode"] = "TFIDF"
	checkTfIdf(t, "TFIDF weights", a, x, shp(2), 0.75, 8)
	a["mode"] = "TF"
	checkTfIdf(t, "TF ignores weights", a, x, shp(2), 2, 2)
	delete(a, "weights")
	a["mode"] = "TFIDF"
	checkTfIdf(t, "TFIDF", a, x, shp(2), 2, 2)
	// TFIDF adds in float32, once per occurrence.
	a = tfidfAttrs("TFIDF", 1, 1, 0, []int64{0}, []int64{0}, []int64{7})
	a["weights"] = []float64{0.1}
	w := float32(0.1)
	checkTfIdf(t, "sum of weights", a, i64(shp(3), 7, 7, 7), shp(1), w+w+w)
	// Values far apart; int32 X never matches a value beyond its range.
	big := tfidfAttrs("TF", 1, 1, 0, []int64{0}, []int64{0, 1, 2, 3}, []int64{math.MinInt64, math.MaxInt64, math.MinInt32, 1 << 32})
	checkTfIdf(t, "int64 extremes", big, intsT[int64](kernel.Int64, shp(5), math.MaxInt64, math.MinInt32, math.MinInt64, 0, math.MaxInt64), shp(4), 1, 2, 1, 0)
	checkTfIdf(t, "int32", big, intsT[int32](kernel.Int32, shp(3), math.MinInt32, 0, math.MinInt32), shp(4), 0, 0, 2, 0)
}

// TestTfIdfSpecialValues checks weights of −0, ±Inf and NaN (IDF copies
// them, TFIDF adds them to +0) and empty rows.
func TestTfIdfSpecialValues(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	negZero := float32(math.Copysign(0, -1))
	a := tfidfAttrs("IDF", 1, 1, 0, []int64{0}, []int64{0, 1, 2, 3}, []int64{1, 2, 3, 4})
	a["weights"] = []float64{math.Copysign(0, -1), inf, nan, -inf}
	x := i64(shp(2, 4), 1, 2, 3, 4, 1, 1, 2, 9)
	fInf, fNaN := float32(inf), float32(nan)
	checkTfIdf(t, "IDF", a, x, shp(2, 4), negZero, fInf, fNaN, -fInf, negZero, fInf, 0, 0)
	a["mode"] = "TFIDF"
	checkTfIdf(t, "TFIDF", a, x, shp(2, 4), 0, fInf, fNaN, -fInf, 0, fInf, 0, 0)
	// Empty rows: zeros (whatever the weights).
	checkTfIdf(t, "C = 0", a, i64(shp(0)), shp(4), 0, 0, 0, 0)
	checkTfIdf(t, "N×0", a, intsT[int32](kernel.Int32, shp(2, 0)), shp(2, 4), 0, 0, 0, 0, 0, 0, 0, 0)
}

// TestTfIdfErrors checks that every invalid node or input is an error.
func TestTfIdfErrors(t *testing.T) {
	ok := func() kernel.Attrs {
		return tfidfAttrs("TF", 1, 2, 1, []int64{0, 4}, []int64{0, 1, 2, 3, 4, 5, 6}, []int64{2, 3, 5, 4, 5, 6, 7, 8, 6, 7})
	}
	for _, c := range []struct {
		name   string
		edit   func(a kernel.Attrs)
		phrase string
	}{
		{"strings", func(a kernel.Attrs) { delete(a, "pool_int64s"); a["pool_strings"] = []string{"a", "b"} }, "no string tensors"},
		{"strings and ints", func(a kernel.Attrs) { a["pool_strings"] = []string{"a"} }, "no string tensors"},
		{"no mode", func(a kernel.Attrs) { delete(a, "mode") }, `"mode" is required`},
		{"no min", func(a kernel.Attrs) { delete(a, "min_gram_length") }, `"min_gram_length" is required`},
		{"no max", func(a kernel.Attrs) { delete(a, "max_gram_length") }, `"max_gram_length" is required`},
		{"no skip", func(a kernel.Attrs) { delete(a, "max_skip_count") }, `"max_skip_count" is required`},
		{"no counts", func(a kernel.Attrs) { delete(a, "ngram_counts") }, `"ngram_counts" is required`},
		{"no indexes", func(a kernel.Attrs) { delete(a, "ngram_indexes") }, `"ngram_indexes" is required`},
		{"no pool", func(a kernel.Attrs) { delete(a, "pool_int64s") }, `"pool_int64s" is required`},
		{"unknown mode", func(a kernel.Attrs) { a["mode"] = "BM25" }, "want TF, IDF or TFIDF"},
		{"lower-case mode", func(a kernel.Attrs) { a["mode"] = "tf" }, "want TF, IDF or TFIDF"},
		{"mode not a string", func(a kernel.Attrs) { a["mode"] = int64(1) }, "mode"},
		{"min 0", func(a kernel.Attrs) { a["min_gram_length"] = int64(0) }, "min_gram_length 0"},
		{"min > max", func(a kernel.Attrs) { a["min_gram_length"] = int64(3) }, "below min_gram_length"},
		{"negative skip", func(a kernel.Attrs) { a["max_skip_count"] = int64(-1) }, "max_skip_count -1"},
		{"max beyond ngram_counts", func(a kernel.Attrs) { a["max_gram_length"] = int64(3) }, "no 3-grams"},
		{"empty ngram_counts", func(a kernel.Attrs) { a["ngram_counts"] = []int64{} }, "ngram_counts is empty"},
		{"ngram_counts decreasing", func(a kernel.Attrs) { a["ngram_counts"] = []int64{4, 2} }, "not a range"},
		{"ngram_counts beyond the pool", func(a kernel.Attrs) { a["ngram_counts"] = []int64{0, 12} }, "not a range"},
		{"negative ngram_counts", func(a kernel.Attrs) { a["ngram_counts"] = []int64{-2, 4} }, "not a range"},
		{"not whole 2-grams", func(a kernel.Attrs) { a["ngram_counts"] = []int64{0, 3} }, "not a multiple of 2"},
		{"not whole 3-grams, not looked for", func(a kernel.Attrs) { a["ngram_counts"] = []int64{0, 4, 6} }, "not a multiple of 3"},
		{"empty ngram_indexes", func(a kernel.Attrs) { a["ngram_indexes"] = []int64{} }, "ngram_indexes is empty"},
		{"negative index", func(a kernel.Attrs) { a["ngram_indexes"] = []int64{0, 1, 2, 3, 4, -5, 6} }, "ngram_indexes holds -5"},
		{"index overflow", func(a kernel.Attrs) { a["ngram_indexes"] = []int64{0, 1, 2, 3, 4, 5, math.MaxInt64} }, "overflows"},
		{"too few indexes", func(a kernel.Attrs) { a["ngram_indexes"] = []int64{0, 1, 2, 3, 4, 5} }, "too few"},
		{"too few weights", func(a kernel.Attrs) { a["weights"] = []float64{1, 2, 3} }, "weights has 3 values"},
		{"empty weights", func(a kernel.Attrs) { a["weights"] = []float64{} }, "weights has 0 values"},
		{"weights not numbers", func(a kernel.Attrs) { a["weights"] = "1" }, "weights"},
		{"empty pool", func(a kernel.Attrs) { a["pool_int64s"] = []int64{} }, "pool_int64s is empty"},
		{"duplicate 1-gram", func(a kernel.Attrs) { a["pool_int64s"] = []int64{2, 3, 5, 2, 5, 6, 7, 8, 6, 7} }, "1-gram [2] twice"},
		{"duplicate 2-gram", func(a kernel.Attrs) { a["pool_int64s"] = []int64{2, 3, 5, 4, 5, 6, 7, 8, 5, 6} }, "2-gram [5 6] twice"},
	} {
		a := ok()
		c.edit(a)
		if _, err := Builtins().New("TfIdfVectorizer", a); err == nil {
			t.Errorf("%s: no error", c.name)
		} else if !strings.Contains(err.Error(), "TfIdfVectorizer") || !strings.Contains(err.Error(), c.phrase) {
			t.Errorf("%s: error %q does not say %q", c.name, err, c.phrase)
		}
	}
	// A duplicate among the sizes not looked for is no error.
	a := ok()
	a["min_gram_length"] = int64(2)
	a["pool_int64s"] = []int64{2, 2, 2, 2, 5, 6, 7, 8, 6, 7}
	if _, err := Builtins().New("TfIdfVectorizer", a); err != nil {
		t.Errorf("duplicate 1-grams, 2-grams looked for: %v", err)
	}
	// Nor are indexes missing for n-grams not looked for.
	a = tfidfAttrs("TF", 1, 1, 0, []int64{0, 2}, []int64{0, 1}, []int64{1, 2, 1, 2})
	checkTfIdf(t, "no index for the 2-grams", a, i64(shp(2), 2, 1), shp(2), 1, 1)

	// The input.
	wantErr(t, "TfIdfVectorizer", ok(), []*kernel.Tensor{f32(shp(3), 1, 2, 3)}, "int32 or int64")
	wantErr(t, "TfIdfVectorizer", ok(), []*kernel.Tensor{tensor(kernel.Int16, shp(3), 1, 2, 3)}, "int32 or int64")
	wantErr(t, "TfIdfVectorizer", ok(), []*kernel.Tensor{i64(shp(1, 2, 2), 1, 2, 3, 4)}, "rank 3")
	wantErr(t, "TfIdfVectorizer", ok(), []*kernel.Tensor{i64(nil, 2)}, "rank 0")
	wantErr(t, "TfIdfVectorizer", ok(), []*kernel.Tensor{i64(shp(0, 3))}, "N > 0")
	wantErr(t, "TfIdfVectorizer", ok(), []*kernel.Tensor{i64(shp(0, 0))}, "N > 0")
	wantErr(t, "TfIdfVectorizer", ok(), []*kernel.Tensor{i64(shp(2)), i64(shp(2))}, "want 1 inputs")
	big := tfidfAttrs("TF", 1, 1, 0, []int64{0}, []int64{1 << 60}, []int64{1})
	wantErr(t, "TfIdfVectorizer", big, []*kernel.Tensor{i64(shp(16, 1))}, "too large")
}
