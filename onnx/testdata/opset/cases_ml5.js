// Cases for gen.js (the format of cases.js): TreeEnsemble, version 5 of
// domain ai.onnx.ml. Its tensor attributes are given as {t: dtype, data}
// (nodes_modes a uint8 tensor; leaf_weights, nodes_splits,
// membership_values and nodes_hitrates of X's dtype).
//
// pipert follows the spec where onnxruntime 1.30 departs from it, so no
// case here has an output that follows onnxruntime's bugs: no
// post_transform 1 or 2 (onnxruntime reads 1 as LOGISTIC and 2 as
// SOFTMAX), no post_transform but 0 and 4 with one target (onnxruntime
// applies only PROBIT then), and a large member set tested with integers
// only (onnxruntime truncates x to an int32 for it). The unit tests of
// kernel/ops/ml_tree5_test.go cover those.
const ML = 'ai.onnx.ml', f = 'float32', d = 'float64';
const T = (t, data) => ({ t, data });
// Four trees over 3 features (node indices):
//   root 0: f0 m[0] 0.25 → node 1 | leaf 0;  node 1: f2 m[1] −0.5 → leaf 1 | leaf 2 (NaN true)
//   root 2: f1 m[2] 0.5 → leaf 3 | node 3;   node 3: f0 m[3] −0.5 → leaf 4 | leaf 5 (NaN true)
//   root 4: one leaf (leaf 6: both children)
//   root 5: f1 ∈ {0.5, 1, 3} → leaf 7 | node 6 (NaN true; a small set: equality);
//           node 6: f2 ∈ {−1, 2, 40} → leaf 8 | leaf 9 (a large set for onnxruntime:
//           the inputs reaching it are integers, which it does not truncate)
const trees = (dt, n, { modes = [0, 1, 2, 3], miss = true, hit = false } = {}) => {
  const a = {
    n_targets: n, tree_roots: [0, 2, 4, 5],
    nodes_modes: T('uint8', [modes[0], modes[1], modes[2], modes[3], 0, 6, 6]),
    nodes_featureids: [0, 2, 1, 0, 0, 1, 2],
    nodes_splits: T(dt, [0.25, -0.5, 0.5, -0.5, 0, NaN, 0]),
    nodes_truenodeids: [1, 1, 3, 4, 6, 7, 8], nodes_trueleafs: [0, 1, 1, 1, 1, 1, 1],
    nodes_falsenodeids: [0, 2, 3, 5, 6, 6, 9], nodes_falseleafs: [1, 1, 0, 1, 1, 0, 1],
    membership_values: T(dt, [0.5, 1, 3, NaN, -1, 2, 40, NaN]),
    leaf_targetids: [...Array(10).keys()].map((i) => (i * 2) % n),
    leaf_weights: T(dt, [...Array(10).keys()].map((i) => 0.5 * i - 1.75 + (i % 3) * 0.125)),
  };
  if (miss) a.nodes_missing_value_tracks_true = [0, 1, 0, 1, 0, 1, 0];
  if (hit) a.nodes_hitrates = T(dt, [1, 0.5, 1, 0.25, 1, 1, 0.5]);
  return a;
};
const NaN_ = NaN;
const X = [
  -1, 0.5, 2, /**/ 1, -0.5, 3, /**/ 0.25, NaN_, -0.5, /**/ NaN_, 1, -1, /**/ -0.5, 3, NaN_,
  0.3, 0.6, -1, /**/ -2, 2.5, 2, /**/ 0, 0, 41, /**/ -0.5, 1.5, -2, /**/ 5, NaN_, NaN_,
  0.1, 2, 40, /**/ -0.75, -3, 1,
];
const te = (name, dt, n, attrs = {}, opts = {}) => ({
  name: `ml5_${name}`, opset: 21, domains: { [ML]: 5 }, domain: ML, op: 'TreeEnsemble',
  attrs: { ...trees(dt, n, opts), ...attrs }, inputs: [['x', dt, [12, 3], X]], outputs: [['y', dt]],
});
module.exports = [
  te('sum', f, 1),
  te('avg_eq_neq', f, 1, { aggregate_function: 0 }, { modes: [4, 5, 4, 5] }),
  te('min3', f, 3, { aggregate_function: 2 }, { modes: [1, 0, 3, 2] }),
  te('max2', f, 2, { aggregate_function: 3 }, { modes: [2, 3, 0, 1] }),
  te('sum3_hitrates', f, 3, { aggregate_function: 1 }, { hit: true }),
  te('nomiss', f, 2, {}, { miss: false }),
  te('avg3', f, 3, { aggregate_function: 0 }),
  // post_transform 3 (SOFTMAX_ZERO) and 4 (PROBIT), where onnxruntime
  // follows the spec (3 with several targets only).
  te('post3_3', f, 3, { post_transform: 3 }),
  te('post4_3', f, 3, { post_transform: 4 }),
  te('post4_1', f, 1, { post_transform: 4 }),
  te('f64_sum', d, 1),
  te('f64_avg3', d, 3, { aggregate_function: 0 }, { modes: [5, 4, 3, 2] }),
  te('f64_min2', d, 2, { aggregate_function: 2 }),
  te('f64_post4_1', d, 1, { post_transform: 4 }),
  // The spec's example of BRANCH_MEMBER (test_ai_onnx_ml_tree_ensemble_set_membership).
  {
    name: 'ml5_set_membership', opset: 21, domains: { [ML]: 5 }, domain: ML, op: 'TreeEnsemble',
    attrs: {
      n_targets: 4, aggregate_function: 1, post_transform: 0, tree_roots: [0],
      membership_values: T(f, [1.2, 3.7, 8, 9, NaN, 12, 7, NaN]),
      nodes_modes: T('uint8', [0, 6, 6]), nodes_featureids: [0, 0, 0], nodes_splits: T(f, [11, 232344.0, NaN]),
      nodes_trueleafs: [0, 1, 1], nodes_truenodeids: [1, 0, 1], nodes_falseleafs: [1, 0, 1], nodes_falsenodeids: [2, 2, 3],
      leaf_targetids: [0, 1, 2, 3], leaf_weights: T(f, [1, 10, 1000, 100]),
    },
    inputs: [['x', f, [6, 1], [1.2, 3.4, -0.12, NaN, 12, 7]]], outputs: [['y', f]],
  },
];
