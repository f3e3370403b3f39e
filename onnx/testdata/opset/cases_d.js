// Cases for gen.js (the format of cases.js): Attention (opsets 23 to 25;
// nonpad_kv_seqlen from 24). Outputs are Y, then present_key,
// present_value and qk_matmul_output when a case lists them.
const f = 'float32';
const outs = (dt, n) => [['y', dt], ['present_key', dt], ['present_value', dt], ['qk', dt]].slice(0, n);
function att(name, opset, attrs, inputs, nodeInputs, nOut = 1, dt = f) {
  return { name, opset, op: 'Attention', attrs, inputs, nodeInputs, outputs: outs(dt, nOut) };
}
const qkv = (dt, q, k, v) => [['q', dt, q], ['k', dt, k], ['v', dt, v]];
const past = (dt, pk, pv) => [['', dt, []], ['pk', dt, pk], ['pv', dt, pv]];
const withPast = ['q', 'k', 'v', '', 'pk', 'pv'];
const withMaskPast = ['q', 'k', 'v', 'm', 'pk', 'pv'];
const withNonpad = ['q', 'k', 'v', '', '', '', 'n'];
const inf = Infinity;
// A 3×3 bool mask whose second row is all false, and a float one whose
// second row is all −∞.
const boolMask = [1, 0, 1, 0, 0, 0, 1, 1, 0];
const floatMask = [0, -inf, 0.5, -inf, -inf, -inf, -1.25, 0, 2];

const cases = [];
for (const o of [23, 24, 25]) {
  cases.push(
    att(`attention_${o}_cross`, o, {}, qkv(f, [1, 2, 3, 4], [1, 2, 5, 4], [1, 2, 5, 3])),
    att(`attention_${o}_3d_gqa`, o, { q_num_heads: 4, kv_num_heads: 2 }, qkv(f, [2, 3, 8], [2, 5, 4], [2, 5, 6]), undefined, 4),
    att(`attention_${o}_gqa_4d`, o, {}, qkv(f, [1, 6, 2, 2], [1, 2, 3, 2], [1, 2, 3, 3])),
    att(`attention_${o}_causal_past`, o, { is_causal: 1 }, [...qkv(f, [1, 2, 3, 2], [1, 2, 3, 2], [1, 2, 3, 2]), ...past(f, [1, 2, 2, 2], [1, 2, 2, 2])], withPast, 4),
    att(`attention_${o}_causal_cross`, o, { is_causal: 1 }, qkv(f, [1, 1, 3, 2], [1, 1, 5, 2], [1, 1, 5, 2])),
    att(`attention_${o}_bool_mask`, o, {}, [...qkv(f, [1, 2, 3, 2], [1, 2, 3, 2], [1, 2, 3, 2]), ['m', 'bool', [3, 3], boolMask]]),
    att(`attention_${o}_float_mask_causal`, o, { is_causal: 1 }, [...qkv(f, [2, 1, 3, 2], [2, 1, 3, 2], [2, 1, 3, 2]), ['m', f, [2, 1, 3, 3], [...floatMask, ...floatMask.slice().reverse()]]]),
  );
}
for (const o of [24, 25]) {
  cases.push(
    att(`attention_${o}_nonpad`, o, {}, [...qkv(f, [2, 1, 3, 2], [2, 1, 4, 2], [2, 1, 4, 2]), ['n', 'int64', [2], [2, 4]]], withNonpad),
    att(`attention_${o}_nonpad_causal`, o, { is_causal: 1 }, [...qkv(f, [2, 2, 3, 2], [2, 2, 4, 2], [2, 2, 4, 2]), ['n', 'int64', [2], [2, 4]]], withNonpad),
    att(`attention_${o}_nonpad_mask`, o, { is_causal: 1 }, [...qkv(f, [2, 1, 2, 2], [2, 1, 4, 2], [2, 1, 4, 2]), ['m', 'bool', [2, 4]], ['', f, []], ['', f, []], ['n', 'int64', [2], [0, 3]]],
      ['q', 'k', 'v', 'm', '', '', 'n']),
  );
}
cases.push(
  att('attention_23_mask_heads', 23, {}, [...qkv(f, [1, 2, 3, 2], [1, 2, 4, 2], [1, 2, 4, 2]), ['m', f, [2, 3, 4]]]),
  att('attention_23_mask_full', 23, {}, [...qkv(f, [2, 2, 2, 2], [2, 2, 3, 2], [2, 2, 3, 2]), ['m', 'bool', [2, 2, 2, 3], [1, 1, 0, 0, 0, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 0]]]),
  att('attention_23_scale', 23, { scale: 0.3 }, qkv(f, [1, 2, 3, 4], [1, 2, 3, 4], [1, 2, 3, 4])),
  att('attention_23_softcap', 23, { softcap: 1.5, scale: { f: 2 } }, qkv(f, [1, 1, 3, 4], [1, 1, 3, 4], [1, 1, 3, 2])),
  att('attention_23_mode0', 23, { qk_matmul_output_mode: 0, softcap: 0.75 }, [...qkv(f, [1, 2, 3, 2], [1, 2, 2, 2], [1, 2, 2, 2]), ['m', f, [3, 4]], ...past(f, [1, 2, 2, 2], [1, 2, 2, 2]).slice(1)], withMaskPast, 4),
  att('attention_23_mode1', 23, { qk_matmul_output_mode: 1, softcap: 0.75 }, [...qkv(f, [1, 2, 3, 2], [1, 2, 3, 2], [1, 2, 3, 2]), ['m', f, [3, 3]]], undefined, 4),
  att('attention_23_mode2', 23, { qk_matmul_output_mode: 2, softcap: 0.75 }, [...qkv(f, [1, 2, 3, 2], [1, 2, 3, 2], [1, 2, 3, 2]), ['m', f, [3, 3], floatMask]], undefined, 4),
  att('attention_23_mode3', 23, { qk_matmul_output_mode: 3 }, [...qkv(f, [1, 2, 3, 2], [1, 2, 3, 2], [1, 2, 3, 2]), ['m', 'bool', [3, 3], boolMask]], undefined, 4),
  att('attention_24_mode3_3d', 24, { qk_matmul_output_mode: 3, q_num_heads: 2, kv_num_heads: 1, is_causal: 1 }, [...qkv(f, [1, 3, 4], [1, 2, 2], [1, 2, 3]), ...past(f, [1, 1, 1, 2], [1, 1, 1, 3])], withPast, 4),
  att('attention_23_precision_float', 23, { softmax_precision: 1 }, qkv(f, [1, 1, 3, 2], [1, 1, 3, 2], [1, 1, 3, 2])),
  att('attention_23_precision_double', 23, { softmax_precision: 11 }, qkv(f, [1, 1, 3, 2], [1, 1, 3, 2], [1, 1, 3, 2])),
  att('attention_23_special', 23, {}, [
    ['q', f, [1, 1, 4, 2], [1, 0, inf, 0, 0.5, 0.5, NaN, 1]], ['k', f, [1, 1, 3, 2], [1, 0, -1, 2, 0.5, -0.5]],
    ['v', f, [1, 1, 3, 2], [1, 2, inf, 4, 5, 6]], ['m', f, [4, 3], [0, 0, 0, -inf, -inf, -inf, 0, NaN, 0, -inf, -inf, -inf]]]),
  att('attention_23_special_scores', 23, {}, [
    ['q', f, [1, 1, 3, 2], [-inf, 0, inf, 0, 1e30, 0]], ['k', f, [1, 1, 3, 2], [1, 0, 2, 0, 3, 0]], ['v', f, [1, 1, 3, 2]]]),
);
module.exports = cases;
