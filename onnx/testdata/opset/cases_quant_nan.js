// Cases for gen.js (the format of cases.js): DynamicQuantizeLinear and
// DynamicQuantizeMatMul with NaN and infinities in x (A). onnxruntime on
// x86 finds the range with MLAS's AVX kernel: a NaN that is the last of
// its eight lanes' elements makes the range NaN, one a later element of
// its lane replaces, or among the elements after the last eight, is
// skipped. Subnormal ranges give a scale of 0.
const f = 'float32', M = 'com.microsoft', u8 = 'uint8', i8 = 'int8';
const seq = (n, nan) => Array.from({ length: n }, (_, i) => (nan.includes(i) ? NaN : ((i * 37) % 17) / 4 - 2));
const dql = (tag, x) => ({ name: `qnan_dql_${tag}`, opset: 13, op: 'DynamicQuantizeLinear', inputs: [['x', f, [x.length], x]], outputs: [['y', u8], ['ys', f], ['yz', u8]] });
const sets = { n8_last: [8, [7]], n8_first: [8, [0]], n8_mid: [8, [2]], n9_tail: [9, [8]], n16_replaced: [16, [7]], n16_kept: [16, [15]],
  n32_replaced: [32, [7]], n32_kept: [32, [31]], n40: [40, [31, 35]], n64_mixed: [64, [3, 27, 63]], n5: [5, [0, 4]] };
module.exports = [
  ...Object.entries(sets).map(([tag, [n, nan]]) => dql(tag, seq(n, nan))),
  dql('specials', [NaN, Infinity, -Infinity, 1, -1, 0.5, 2, -0]),
  dql('inf', [1, Infinity, -2, 3]),
  dql('subnormal', [-1e-45, 0, 1e-45]),
  ...[['kept', [15]], ['replaced', [7]]].map(([tag, nan]) => ({ name: `qnan_dqmm_${tag}`, opset: 17, domain: M, op: 'DynamicQuantizeMatMul',
    inputs: [['a', f, [2, 8], seq(16, nan)], ['b', i8, [8, 3], null, true], ['bs', f, [], [0.05], true]], outputs: [['y', f]] })),
];
