// Cases for gen.js (the format of cases.js): ReduceLogSumExp of integers,
// computed in the type as onnxruntime does: the maximum plus the logarithm
// of the count of elements equal to it, truncated toward zero as a whole
// (−5 + ln 2 is −4, not −5).
const i32 = 'int32', i64 = 'int64';
const x = [-5, -5, -9, -5, -5, -5, -1, -1, -7, 5, 5, -9];
module.exports = [
  { name: 'intlse_int64_negmax_tie', opset: 18, op: 'ReduceLogSumExp', attrs: { keepdims: 0 }, inputs: [['x', i64, [4, 3], x], ['ax', i64, [1], [1], true]], outputs: [['y', i64]] },
  { name: 'intlse_int32_negmax_tie', opset: 13, op: 'ReduceLogSumExp', attrs: { keepdims: 0, axes: [1] }, inputs: [['x', i32, [4, 3], x]], outputs: [['y', i32]] },
];
