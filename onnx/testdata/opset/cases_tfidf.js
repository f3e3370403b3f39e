// Cases for gen.js (the format of cases.js): TfIdfVectorizer over int32
// and int64 rows (onnxruntime takes strings too; pipert has no string
// tensors). Weights are given as {floats: [...]}. The first cases follow
// the ONNX backend tests' pool and input.
const i32 = 'int32', i64 = 'int64';
const F = (a) => ({ floats: a });
const one = (name, opset, attrs, inputs) => ({ name: `tfidf_${name}`, opset, op: 'TfIdfVectorizer', attrs, inputs, outputs: [['y', 'float32']] });
const tf = (min, max, skip, extra) => ({ mode: 'TF', min_gram_length: min, max_gram_length: max, max_skip_count: skip, ...extra });
// The backend tests' pool: four 1-grams and three 2-grams.
const pool = { ngram_counts: [0, 4], ngram_indexes: [0, 1, 2, 3, 4, 5, 6], pool_int64s: [2, 3, 5, 4, 5, 6, 7, 8, 6, 7] };
const row = [1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8];
const X = (dt, shape, data) => [['x', dt, shape, data]];
// A pool of 1-, 2- and 3-grams over small values.
const pool3 = { ngram_counts: [0, 3, 9], ngram_indexes: [0, 1, 2, 3, 4, 5, 6, 7, 8],
  pool_int64s: [1, 2, 3, 1, 2, 2, 1, 3, 3, 1, 2, 3, 2, 1, 3] };
const row3 = [1, 2, 3, 1, 2, 1, 3, 3, 2, 1, 3, 2, 2, 1, 2, 3];
const w9 = F([0.1, 0.25, 0.7, 1.5, -0.3, 0.2, 3.3, 0.125, 2]);

module.exports = [
  // The backend tests' patterns.
  one('tf_bigrams_skip0', 9, tf(2, 2, 0, pool), X(i32, [12], row)),
  one('tf_batch_bigrams_skip0', 9, tf(2, 2, 0, pool), X(i32, [2, 6], row)),
  one('tf_bigrams_skip5', 9, tf(2, 2, 5, pool), X(i32, [12], row)),
  one('tf_batch_bigrams_skip5', 9, tf(2, 2, 5, pool), X(i32, [2, 6], row)),
  one('tf_uniandbigrams_skip5', 9, tf(1, 2, 5, pool), X(i32, [12], row)),
  one('tf_batch_uniandbigrams_skip5', 9, tf(1, 2, 5, pool), X(i32, [2, 6], row)),
  one('tf_levelempty', 9, tf(2, 2, 0, { ngram_counts: [0, 0], ngram_indexes: [0, 1, 2], pool_int64s: [5, 6, 7, 8, 6, 7] }), X(i32, [12], row)),
  one('tf_unigrams_int64', 9, tf(1, 1, 3, pool), X(i64, [2, 6], row)),
  // IDF and TFIDF, with and without weights.
  one('idf_unigrams', 9, { ...tf(1, 1, 0, pool), mode: 'IDF' }, X(i64, [12], row)),
  one('idf_uniandbigrams_weights', 9, { ...tf(1, 2, 2, pool), mode: 'IDF', weights: F([0.5, 1.5, 2.25, -1, 3, 0.1, 7]) }, X(i32, [2, 6], row)),
  one('tfidf_uniandbigrams_weights', 9, { ...tf(1, 2, 5, pool), mode: 'TFIDF', weights: F([0.5, 1.5, 2.25, -1, 0.1, 0.3, 7]) }, X(i64, [12], row)),
  one('tfidf_noweights', 9, { ...tf(1, 2, 1, pool), mode: 'TFIDF' }, X(i32, [12], row)),
  // 3-grams, skips 0 to 5, rows of one to three.
  one('tf_trigrams_skip0', 9, tf(3, 3, 0, pool3), X(i64, [16], row3)),
  one('tf_trigrams_skip2', 9, tf(3, 3, 2, pool3), X(i64, [16], row3)),
  one('tf_1to3_skip3', 9, tf(1, 3, 3, pool3), X(i64, [2, 8], row3)),
  one('tf_2to3_skip4', 11, tf(2, 3, 4, pool3), X(i32, [16], row3)),
  one('tfidf_1to3_skip1_weights', 9, { ...tf(1, 3, 1, pool3), mode: 'TFIDF', weights: w9 }, X(i32, [16], row3)),
  one('tfidf_2to3_skip5_weights_batch', 20, { ...tf(2, 3, 5, pool3), mode: 'TFIDF', weights: w9 }, X(i64, [4, 4], row3)),
  one('idf_1to3_skip2_weights', 9, { ...tf(1, 3, 2, pool3), mode: 'IDF', weights: w9 }, X(i64, [16], row3)),
  // Several n-grams to one output index, gaps in the output.
  one('tf_shared_indexes', 9, tf(1, 3, 2, { ...pool3, ngram_indexes: [4, 0, 4, 1, 1, 2, 0, 3, 2] }), X(i64, [16], row3)),
  one('tf_sparse_indexes', 9, tf(1, 2, 1, { ...pool, ngram_indexes: [9, 1, 5, 3, 12, 0, 7] }), X(i32, [12], row)),
  one('idf_sparse_weights', 9, { ...tf(2, 2, 1, pool), mode: 'IDF', ngram_indexes: [0, 1, 2, 3, 6, 5, 4, 30], weights: F([1, 2, 3, 4, 5, 6, 7, 8]) }, X(i32, [12], row)),
  one('tfidf_weights_in_tf_mode', 9, tf(1, 2, 0, { ...pool, weights: F([9, 9, 9, 9, 9, 9, 9]) }), X(i64, [12], row)),
  // The pool: sizes outside [min, max] skipped (but numbered), items
  // before ngram_counts[0] unused.
  one('tf_pool_sizes_outside', 9, tf(2, 2, 1, pool3), X(i64, [16], row3)),
  one('tf_counts_offset', 9, tf(1, 2, 0, { ngram_counts: [2, 4], ngram_indexes: [0, 1, 2, 3, 4], pool_int64s: [7, 8, 5, 6, 5, 6, 7, 8] }), X(i32, [12], row)),
  // Empty rows, rows shorter than an n-gram, values far apart (the pool's
  // within 2^53, which gen.js writes exactly).
  one('tf_empty_row', 9, tf(1, 2, 2, pool), X(i32, [0], [])),
  one('tfidf_empty_rows_batch', 9, { ...tf(1, 2, 2, pool), mode: 'TFIDF', weights: F([1, 2, 3, 4, 5, 6, 7]) }, X(i64, [3, 0], [])),
  one('tf_short_rows', 9, tf(2, 3, 3, pool3), X(i64, [3, 1], [1, 2, 3])),
  one('tf_large_values', 9, tf(1, 2, 1, { ngram_counts: [0, 3], ngram_indexes: [0, 1, 2, 3, 4],
    pool_int64s: [-9007199254740991, 4294967296, -1, 4294967296, -1, -1, 9007199254740991] }),
  X(i64, [10], ['4294967296', '-1', '-1', '9007199254740991', '-9007199254740991', '4294967296', '-1', '9223372036854775807', '-9223372036854775808', '-1'])),
  one('tf_int32_beyond', 9, tf(1, 1, 0, { ngram_counts: [0], ngram_indexes: [0, 1, 2], pool_int64s: [4294967297, -2147483648, 2147483647] }),
    X(i32, [6], [1, -2147483648, 2147483647, 2147483647, 0, 1])),
  // Generated rows (values in [-10, 10)) against a pool of small values.
  one('tfidf_random_1to3_skip2', 9, { mode: 'TFIDF', min_gram_length: 1, max_gram_length: 3, max_skip_count: 2, ngram_counts: [0, 4, 10],
    ngram_indexes: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], pool_int64s: [0, 1, -1, 2, 0, 1, 1, 0, -1, 2, 0, 1, 0, 1, 0, -1, 2, -1, 0],
    weights: F([0.3, 0.1, 0.2, 0.7, 1.1, 0.9, 0.35, 0.6, 0.45, 1.25, 0.8, 0.05, 2.5]) }, [['x', i64, [5, 40]]]),
  one('tf_random_2_skip4', 9, tf(2, 2, 4, { ngram_counts: [0, 0], ngram_indexes: [0, 1, 2, 3, 4, 5], pool_int64s: [0, 1, 1, 0, -1, 2, 2, -1, 3, 3, -5, 4] }), [['x', i32, [3, 50]]]),
];
