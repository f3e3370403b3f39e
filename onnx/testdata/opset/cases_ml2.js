// Cases for gen.js (the format of cases.js): the linear models, the
// feature preprocessing ops and LabelEncoder of domain ai.onnx.ml. Float
// attributes are given as {floats: [...]} (a list of integers would be
// written as ints), tensor attributes as {t: dtype, data}.
const ML = 'ai.onnx.ml', f = 'float32', d = 'float64', i64 = 'int64', i32 = 'int32';
const F = (a) => ({ floats: a });
const c = (name, v, op, attrs, inputs, outputs, tol = 0) => ({ name: `ml2_${name}`, opset: 17, domains: { [ML]: v }, domain: ML, op, attrs, inputs, outputs, tol });
const X = (dt = f) => [['x', dt, [4, 3], dt.startsWith('int') ? [-2, 1, 3, 0, 0, 1, 4, -1, -3, 2, 2, 2]
  : [-1, 0.5, 2, 1, -0.5, 3, 0.25, NaN, -0.5, 2, 0.5, 0]]];
const coef3 = F([0.5, -1, 0.25, 1, 0.75, -0.5, -0.25, 0.5, 1]);
const lc = [['label', i64], ['z', f]];
module.exports = [
  // The linear models (scores within float32 rounding of onnxruntime's GEMM).
  c('linclass_3_softmax', 1, 'LinearClassifier', { coefficients: coef3, intercepts: F([0.1, -0.2, 0.3]), classlabels_ints: [5, 6, 7], post_transform: 'SOFTMAX' }, X(), lc, 1e-6),
  c('linclass_3_logistic_i64', 1, 'LinearClassifier', { coefficients: coef3, intercepts: F([0, 0.5, -0.5]), classlabels_ints: [1, 2, 3], post_transform: 'LOGISTIC', multi_class: 1 }, X(i64), lc, 1e-6),
  c('linclass_bin_logistic', 1, 'LinearClassifier', { coefficients: F([1, -1, 0.5]), intercepts: F([0.25]), classlabels_ints: [3, 7], post_transform: 'LOGISTIC' }, X(d), lc, 1e-6),
  c('linclass_bin_none', 1, 'LinearClassifier', { coefficients: F([1, -1, 0.5]), intercepts: F([-0.25]), classlabels_ints: [0, 1] }, X(), lc, 1e-6),
  c('linclass_one_nolabels', 1, 'LinearClassifier', { coefficients: F([1, -1, 0.5]), intercepts: F([0.25]), post_transform: 'PROBIT' }, [['x', f, [3, 3], [0.1, 0.2, 0.3, -0.1, 0.05, 0.2, 0, 0, 0.5]]], lc, 1e-5),
  c('linreg_2', 1, 'LinearRegressor', { coefficients: F([0.5, -1, 0.25, 1, 0.75, -0.5]), intercepts: F([1, -1]), targets: 2 }, X(), [['y', f]], 1e-6),
  c('linreg_1_1d', 1, 'LinearRegressor', { coefficients: F([0.5, -1, 0.25]), intercepts: F([2]) }, [['x', f, [3], [1, 2, 3]]], [['y', f]], 1e-6),
  // Preprocessing.
  c('scaler_per_feature_f64', 1, 'Scaler', { scale: F([2, 0.5, -1]), offset: F([0.5, 0.25, 1]) }, X(d), [['y', f]]),
  c('scaler_one_i32', 1, 'Scaler', { scale: F([0.3]), offset: F([1.5]) }, X(i32), [['y', f]]),
  c('normalizer_max', 1, 'Normalizer', { norm: 'MAX' }, [['x', f, [3, 3], [1, -2, 4, -1, -2, -4, 0, 0, 0]]], [['y', f]]),
  c('normalizer_l1_i64', 1, 'Normalizer', { norm: 'L1' }, X(i64), [['y', f]]),
  c('normalizer_l2_f64', 1, 'Normalizer', { norm: 'L2' }, [['x', d, [2, 3], [3, -4, 0, 0, 0, 0]]], [['y', f]]),
  c('binarizer', 1, 'Binarizer', { threshold: { f: 0.5 } }, [['x', f, [2, 3], [0.5, 0.75, -1, 2, 0, 0.5000001]]], [['y', f]]),
  c('imputer_nan_per_feature', 1, 'Imputer', { imputed_value_floats: F([10, 20, 30]), replaced_value_float: { f: NaN } }, X(), [['y', f]]),
  c('imputer_int64', 1, 'Imputer', { imputed_value_int64s: [99], replaced_value_int64: 2 }, X(i64), [['y', i64]]),
  c('afe_3d', 1, 'ArrayFeatureExtractor', {}, [['x', f, [2, 2, 3]], ['i', i64, [2], [2, 0]]], [['y', f]]),
  c('afe_1d_i32', 1, 'ArrayFeatureExtractor', {}, [['x', i32, [4]], ['i', i64, [1, 3], [3, 3, 1]]], [['y', i32]]),
  c('onehot_float', 1, 'OneHotEncoder', { cats_int64s: [0, 2, -1, 2], zeros: 1 }, [['x', f, [2, 3], [2.9, -1.5, 0.5, 7, -0.9, 2]]], [['y', f]]),
  c('featvec', 1, 'FeatureVectorizer', { inputdimensions: [2, 3, 1] }, [['a', d, [2, 3]], ['b', d, [2, 2]], ['c', d, [2, 1]]], [['y', f]]),
  // LabelEncoder.
  c('labelenc_v2_int_float', 2, 'LabelEncoder', { keys_int64s: [1, 3, 1], values_floats: F([0.5, -2, 9]), default_float: { f: 7.5 } }, [['x', i64, [2, 3], [1, 2, 3, -1, 3, 1]]], [['y', f]]),
  c('labelenc_v3_float_int', 3, 'LabelEncoder', { keys_floats: F([0.5, -0, NaN]), values_int64s: [10, 20, 30] }, [['x', f, [5], [0.5, 0, NaN, 1, -0.5]]], [['y', i64]]),
  c('labelenc_v4_tensors_f64', 4, 'LabelEncoder', { keys_tensor: { t: d, data: [0.1, NaN, 2] }, values_tensor: { t: d, data: [1.5, 2.5, 3.5] }, default_tensor: { t: d, data: [-9] } },
    [['x', d, [5], [0.1, NaN, 2, 3, 0.1]]], [['y', d]]),
  c('labelenc_v4_int_int_tensor', 4, 'LabelEncoder', { keys_tensor: { t: i64, data: [4, 5] }, values_int64s: [40, 50], default_tensor: { t: i64, data: [-7] } },
    [['x', i64, [4], [4, 5, 6, 4]]], [['y', i64]]),
];
