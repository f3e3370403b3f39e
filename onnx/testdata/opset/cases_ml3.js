// Cases for gen.js (the format of cases.js): SVMRegressor and
// SVMClassifier of domain ai.onnx.ml. Float attributes are given as
// {floats: [...]}.
const ML = 'ai.onnx.ml', f = 'float32', d = 'float64', i64 = 'int64', i32 = 'int32';
const F = (a) => ({ floats: a });
const c = (name, op, attrs, inputs, outputs, tol = 1e-5) => ({ name: `ml3_${name}`, opset: 17, domains: { [ML]: 1 }, domain: ML, op, attrs, inputs, outputs, tol });
const X = (dt = f, n = 4) => [['x', dt, [n, 3], dt.startsWith('int') ? [-2, 1, 3, 0, 0, 1, 1, -1, -3, 2, 2, 2].slice(0, 3 * n)
  : [-1, 0.5, 2, 1, -0.5, 3, 0.25, 0.75, -0.5, 2, 0.5, 0].slice(0, 3 * n)]];
// Five support vectors of three features.
const sv5 = F([1, 0, -1, 0.5, 0.5, 0.5, -1, 2, 0, 0, -0.5, 1, 2, 1, 0.25]);
const Y = [['y', f]], LZ = [['label', i64], ['z', f]];
// Three classes of 2, 1 and 2 vectors: coefficients [2, 5].
const svc3 = { support_vectors: sv5, vectors_per_class: [2, 1, 2], classlabels_ints: [10, 20, 30],
  coefficients: F([0.5, -1, 0.75, 0.25, -0.5, 1, -0.25, 0.5, -0.75, 0.3]), rho: F([0.1, -0.2, 0.3]) };
// Four classes of 1, 2, 1 and 1 vectors: coefficients [3, 5].
const svc4 = { support_vectors: sv5, vectors_per_class: [1, 2, 1, 1], classlabels_ints: [1, 2, 3, 4],
  coefficients: F([0.5, -1, 0.75, 0.25, -0.5, 1, -0.25, 0.5, -0.75, 0.3, 0.2, -0.4, 0.6, -0.8, 1]), rho: F([0.1, -0.2, 0.3, -0.1, 0.2, 0.05]),
  prob_a: F([-1.5, -2, -0.5, -1, -3, -1.2]), prob_b: F([0.1, -0.2, 0, 0.3, -0.1, 0.05]) };
// Two classes of 3 and 2 vectors.
const svc2 = { support_vectors: sv5, vectors_per_class: [3, 2], classlabels_ints: [7, 9], coefficients: F([0.5, -1, 0.75, 0.25, -0.5]), rho: F([0.1]) };
module.exports = [
  // SVMRegressor.
  c('svmreg_linear', 'SVMRegressor', { kernel_type: 'LINEAR', kernel_params: F([0.5, 1, 3]), support_vectors: sv5, n_supports: 5, coefficients: F([0.5, -1, 0.75, 0.25, -0.5]), rho: F([0.3]) }, X(), Y),
  c('svmreg_poly3', 'SVMRegressor', { kernel_type: 'POLY', kernel_params: F([0.5, 1, 3]), support_vectors: sv5, n_supports: 5, coefficients: F([0.5, -1, 0.75, 0.25, -0.5]), rho: F([-0.2]) }, X(), Y),
  c('svmreg_poly4', 'SVMRegressor', { kernel_type: 'POLY', kernel_params: F([0.25, 2, 4]), support_vectors: sv5, n_supports: 5, coefficients: F([0.5, -1, 0.75, 0.25, -0.5]), rho: F([0]) }, X(), Y),
  c('svmreg_rbf_oneclass', 'SVMRegressor', { kernel_type: 'RBF', kernel_params: F([0.5, 0, 0]), support_vectors: sv5, n_supports: 5, coefficients: F([0.5, -1, 0.75, 0.25, -0.5]), rho: F([0.1]), one_class: 1 }, X(), Y),
  c('svmreg_rbf', 'SVMRegressor', { kernel_type: 'RBF', kernel_params: F([0.3, 0, 0]), support_vectors: sv5, n_supports: 5, coefficients: F([0.5, -1, 0.75, 0.25, -0.5]), rho: F([0.1]) }, X(), Y),
  c('svmreg_sigmoid', 'SVMRegressor', { kernel_type: 'SIGMOID', kernel_params: F([0.5, -0.25, 0]), support_vectors: sv5, n_supports: 5, coefficients: F([0.5, -1, 0.75, 0.25, -0.5]), rho: F([0.1]), post_transform: 'LOGISTIC' }, X(), Y),
  c('svmreg_nosv_1d', 'SVMRegressor', { kernel_type: 'RBF', kernel_params: F([0.5, 1, 2]), coefficients: F([0.5, -1, 0.25]), rho: F([2]) }, [['x', f, [3], [1, 2, 3]]], Y),
  // SVMClassifier with support vectors.
  c('svmclass_3_rbf', 'SVMClassifier', { ...svc3, kernel_type: 'RBF', kernel_params: F([0.5, 0, 0]) }, X(), LZ),
  c('svmclass_3_linear_softmax', 'SVMClassifier', { ...svc3, kernel_type: 'LINEAR', kernel_params: F([0.5, 0, 0]), post_transform: 'SOFTMAX' }, X(d), LZ),
  c('svmclass_4_poly_proba', 'SVMClassifier', { ...svc4, kernel_type: 'POLY', kernel_params: F([0.5, 0.5, 2]) }, X(), LZ),
  c('svmclass_4_sigmoid_proba_logistic', 'SVMClassifier', { ...svc4, kernel_type: 'SIGMOID', kernel_params: F([0.5, 0.1, 0]), post_transform: 'LOGISTIC' }, X(i64), LZ),
  c('svmclass_3_rbf_proba_1d', 'SVMClassifier', { ...svc3, prob_a: F([-2, -1, -0.5]), prob_b: F([0, 0.1, -0.1]), kernel_type: 'RBF', kernel_params: F([0.5, 0, 0]) }, [['x', f, [3], [0.5, -1, 2]]], LZ),
  c('svmclass_bin_none', 'SVMClassifier', { ...svc2, kernel_type: 'RBF', kernel_params: F([0.5, 0, 0]) }, X(), LZ),
  c('svmclass_bin_logistic_i32', 'SVMClassifier', { ...svc2, kernel_type: 'LINEAR', kernel_params: F([0, 0, 0]), post_transform: 'LOGISTIC' }, X(i32), LZ),
  c('svmclass_bin_probit', 'SVMClassifier', { ...svc2, kernel_type: 'RBF', kernel_params: F([0.5, 0, 0]), coefficients: F([0.1, -0.2, 0.15, 0.05, -0.1]), rho: F([0.05]), post_transform: 'PROBIT' }, X(), LZ),
  c('svmclass_bin_proba', 'SVMClassifier', { ...svc2, kernel_type: 'POLY', kernel_params: F([0.5, 1, 3]), prob_a: F([-1.5]), prob_b: F([0.2]) }, X(), LZ),
  // SVMClassifier without support vectors (linear mode).
  c('svmclass_lin_bin_allpos', 'SVMClassifier', { kernel_params: F([0.5, 1, 3]), kernel_type: 'RBF', coefficients: F([0.1, 0.2, 0, 0.3, 0.05, 0.1]), rho: F([0.1]), classlabels_ints: [3, 8] }, X(), LZ),
  c('svmclass_lin_bin_mixed_softmax', 'SVMClassifier', { kernel_params: F([0.5, 1, 3]), coefficients: F([0.1, -0.2, 0, 0.3, 0.05, -0.1]), rho: F([-0.1]), classlabels_ints: [3, 8], post_transform: 'SOFTMAX' }, X(), LZ),
  c('svmclass_lin_bin_proba', 'SVMClassifier', { kernel_params: F([0.5, 1, 3]), coefficients: F([0.1, 0.2, 0, 0.3, 0.05, 0.1]), rho: F([0.1]), classlabels_ints: [3, 8], prob_a: F([1]), prob_b: F([0]) }, X(), LZ),
  c('svmclass_lin_3_probit', 'SVMClassifier', { kernel_params: F([0, 0, 0]), coefficients: F([0.1, -0.2, 0.1, 0.3, 0.05, -0.1, 0, 0.1, 0.2]), rho: F([0.05]), classlabels_ints: [1, 2, 3], post_transform: 'PROBIT' }, X(), LZ),
  c('svmclass_lin_one', 'SVMClassifier', { kernel_params: F([0, 0, 0]), coefficients: F([0.5, -1, 0.25]), rho: F([0.1]), classlabels_ints: [4], post_transform: 'PROBIT' }, [['x', f, [2, 3], [0.1, 0.2, 0.3, 0.4, -0.2, 0]]], LZ),
];
