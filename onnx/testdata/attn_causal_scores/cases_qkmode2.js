// Cases for ../opset/gen.js (the format of its cases.js): Attention's
// qk_matmul_output in mode 2 (the scores plus bias, before the softmax)
// with is_causal. onnxruntime 1.30 writes the lowest float32 where the
// causal mask or a false bool mask masks; ONNX's text (and its reference)
// has −∞ there, and TestAttentionCausalScores reads those elements so.
// Build: CASESDIR=. NODE_PATH=… node ../opset/gen.js .
const f = 'float32', b = 'bool';
const qkv = (q, k, v) => [['q', f, q], ['k', f, k], ['v', f, v]];
const att = (name, opset, attrs, inputs, nodeInputs) => ({ name: `attention_${name}`, opset, op: 'Attention', attrs, inputs, nodeInputs,
  outputs: [['y', f], ['pko', f], ['pvo', f], ['qk', f]] });
module.exports = [
  att('23_qkmode2_causal', 23, { qk_matmul_output_mode: 2, is_causal: 1 }, qkv([1, 2, 3, 2], [1, 2, 3, 2], [1, 2, 3, 2]), ['q', 'k', 'v', '', '', '']),
  att('23_qkmode2_causal_cross', 23, { qk_matmul_output_mode: 2, is_causal: 1, scale: 0.4 }, qkv([2, 1, 2, 3], [2, 1, 3, 3], [2, 1, 3, 2]), ['q', 'k', 'v', '', '', '']),
  att('23_qkmode2_causal_bool_mask', 23, { qk_matmul_output_mode: 2, is_causal: 1 },
    [...qkv([1, 1, 3, 2], [1, 1, 3, 2], [1, 1, 3, 2]), ['m', b, [3, 3], [1, 0, 1, 1, 1, 1, 0, 1, 1]]], ['q', 'k', 'v', 'm', '', '']),
  att('24_qkmode2_causal_past_mask_softcap', 24, { qk_matmul_output_mode: 2, is_causal: 1, softcap: { f: 1 } },
    [...qkv([1, 1, 2, 2], [1, 1, 2, 2], [1, 1, 2, 2]), ['m', f, [2, 4]], ['pk', f, [1, 1, 2, 2]], ['pv', f, [1, 1, 2, 2]]], ['q', 'k', 'v', 'm', 'pk', 'pv']),
  att('24_qkmode2_causal_3d_gqa', 24, { qk_matmul_output_mode: 2, is_causal: 1, q_num_heads: 4, kv_num_heads: 2 },
    qkv([1, 3, 8], [1, 3, 4], [1, 3, 6]), ['q', 'k', 'v', '', '', '']),
];
