// Cases for gen.js (the format of cases.js): the ops of domain ai.onnx.ml
// (classic machine learning), which a case imports at the version its
// domains give. Float attributes are given as {floats: [...]} (a list of
// integers would be written as ints); _as_tensor attributes as
// {t: dtype, data}.
const ML = 'ai.onnx.ml', f = 'float32', d = 'float64';
const F = (a) => ({ floats: a });
// Two trees over 3 features: tree 0 splits on feature 0 then 2 (node ids
// not in listing order), tree 5 on feature 1 with NaN sent to the true
// branch.
const trees = (modes = ['BRANCH_LEQ', 'BRANCH_LT', 'BRANCH_GTE']) => ({
  nodes_treeids: [0, 0, 0, 0, 0, 5, 5, 5],
  nodes_nodeids: [0, 2, 1, 3, 4, 0, 1, 2],
  nodes_featureids: [0, 2, 0, 0, 0, 1, 0, 0],
  nodes_modes: [modes[0], modes[1], 'LEAF', 'LEAF', 'LEAF', modes[2], 'LEAF', 'LEAF'],
  nodes_values: F([0.25, -0.5, 0, 0, 0, 0.5, 0, 0]),
  nodes_truenodeids: [1, 3, 0, 0, 0, 1, 0, 0],
  nodes_falsenodeids: [2, 4, 0, 0, 0, 2, 0, 0],
  nodes_missing_value_tracks_true: [0, 1, 0, 0, 0, 1, 0, 0],
});
const X = (dt) => [['x', dt, [6, 3], dt === 'int64' ? [-1, 1, 2, 1, 0, 3, 0, -1, -1, 2, 1, 0, 0, 1, -1, 1, 0, -2]
  : [-1, 0.5, 2, 1, -0.5, 3, 0.25, NaN, -0.5, 2, 0.5, NaN, NaN, 1, -1, 0.3, 0.6, -0.6]]];
const leaves = [[0, 1], [0, 3], [0, 4], [5, 1], [5, 2]];
const reg = (name, v, attrs, dt = f) => {
  const w = { target_treeids: [], target_nodeids: [], target_ids: [], target_weights: [] };
  leaves.forEach(([t, n], i) => {
    for (let j = 0; j < (attrs.n_targets || 1); j++) {
      w.target_treeids.push(t); w.target_nodeids.push(n); w.target_ids.push(j); w.target_weights.push(0.5 * i - 0.75 + j);
    }
  });
  w.target_weights = F(w.target_weights);
  return { name: `ml_${name}`, opset: 17, domains: { [ML]: v }, domain: ML, op: 'TreeEnsembleRegressor', attrs: { ...trees(attrs.modes), ...w, ...attrs, modes: undefined },
    inputs: X(dt), outputs: [['y', f]] };
};
const cls = (name, v, attrs, dt = f, ids = null, neg = false) => {
  const n = attrs.classlabels_int64s.length;
  const w = { class_treeids: [], class_nodeids: [], class_ids: [], class_weights: [] };
  leaves.forEach(([t, nd], i) => {
    for (const j of ids || [...Array(n).keys()]) {
      w.class_treeids.push(t); w.class_nodeids.push(nd); w.class_ids.push(j); w.class_weights.push(neg ? 0.4 * i - 0.8 + 0.1 * j : 0.1 + 0.15 * ((i + j) % 5));
    }
  });
  w.class_weights = F(w.class_weights);
  return { name: `ml_${name}`, opset: 17, domains: { [ML]: v }, domain: ML, op: 'TreeEnsembleClassifier', attrs: { ...trees(attrs.modes), ...w, ...attrs, modes: undefined },
    inputs: X(dt), outputs: [['label', 'int64'], ['z', f]] };
};
const cases = [
  reg('treereg_sum', 3, { n_targets: 1, base_values: F([0.5]) }),
  reg('treereg_avg_probit_v1', 1, { n_targets: 1, aggregate_function: 'AVERAGE', post_transform: 'PROBIT', modes: ['BRANCH_GT', 'BRANCH_EQ', 'BRANCH_NEQ'] }),
  reg('treereg_min3', 3, { n_targets: 3, aggregate_function: 'MIN', base_values: F([1, -1, 0.5]) }),
  reg('treereg_max2_softmax', 3, { n_targets: 2, aggregate_function: 'MAX', post_transform: 'SOFTMAX' }),
  reg('treereg_sum2_logistic_f64', 3, { n_targets: 2, post_transform: 'LOGISTIC', base_values: F([0.25, -0.25]) }, d),
  reg('treereg_tensor_f64', 3, { n_targets: 2, post_transform: 'SOFTMAX_ZERO', nodes_values: undefined,
    nodes_values_as_tensor: { t: d, data: [0.25, -0.5, 0, 0, 0, 0.5, 0, 0] }, base_values_as_tensor: { t: d, data: [0.1, 0.2] } }, d),
  cls('treecls_3_softmax', 3, { classlabels_int64s: [4, 8, 15], post_transform: 'SOFTMAX', base_values: F([0.1, 0, -0.1]) }),
  cls('treecls_3_int64_v1', 1, { classlabels_int64s: [1, 2, 3], post_transform: 'SOFTMAX_ZERO', modes: ['BRANCH_LEQ', 'BRANCH_LEQ', 'BRANCH_LEQ'] }, 'int64'),
  cls('treecls_bin_logistic', 3, { classlabels_int64s: [0, 1], post_transform: 'LOGISTIC' }, f, [1], true),
  cls('treecls_bin_pos', 3, { classlabels_int64s: [10, 20] }, f, [1]),
  cls('treecls_bin_base1', 3, { classlabels_int64s: [10, 20], base_values: F([0.25]) }, f, [0]),
  cls('treecls_two_ids', 3, { classlabels_int64s: [7, 9], post_transform: 'LOGISTIC' }, f, [0, 1], true),
  cls('treecls_tensor_f64', 3, { classlabels_int64s: [7, 9, 11], class_weights: undefined, class_weights_as_tensor: { t: d, data: [] } }, d),
];
// The classifier of float64 weights as a tensor: the weights its builder
// made, moved to the tensor form.
for (const c of cases) {
  if (c.attrs.class_weights_as_tensor) {
    const w = cls('x', 3, { classlabels_int64s: [7, 9, 11] }).attrs.class_weights.floats;
    c.attrs.class_weights_as_tensor = { t: d, data: w };
  }
  for (const k of Object.keys(c.attrs)) if (c.attrs[k] === undefined) delete c.attrs[k];
}
// Classifiers with string labels whose label output nothing reads (the
// scores alone are the graph's output, as when a ZipMap after them is left
// out): pipert has no string tensors, but the scores do not depend on the
// labels.
for (const [name, base] of [
  ['treecls_strings_3', cls('x', 3, { classlabels_int64s: [0, 1, 2], post_transform: 'SOFTMAX' })],
  ['treecls_strings_bin', cls('x', 3, { classlabels_int64s: [0, 1], post_transform: 'LOGISTIC' }, f, [1], true)],
]) {
  const attrs = { ...base.attrs, classlabels_strings: base.attrs.classlabels_int64s.length === 3 ? ['cat', 'dog', 'eel'] : ['no', 'yes'] };
  delete attrs.classlabels_int64s;
  for (const k of Object.keys(attrs)) if (attrs[k] === undefined) delete attrs[k];
  cases.push({ name: `ml_${name}`, opset: 17, domains: { [ML]: 3 }, inputs: base.inputs,
    nodes: [{ op: 'TreeEnsembleClassifier', domain: ML, inputs: ['x'], outputs: ['label', 'z'], attrs }], outputs: [['z', f]] });
}
cases.push({ name: 'ml_linearcls_strings', opset: 17, domains: { [ML]: 1 }, inputs: X(f),
  nodes: [{ op: 'LinearClassifier', domain: ML, inputs: ['x'], outputs: ['label', 'z'], attrs: {
    coefficients: F([0.5, -1, 0.25, 1, 0.75, -0.5, -0.25, 0.5, 1]), intercepts: F([0.1, -0.2, 0.3]),
    classlabels_strings: ['a', 'b', 'c'], multi_class: 1, post_transform: 'LOGISTIC' } }],
  outputs: [['z', f]] });
module.exports = cases;
