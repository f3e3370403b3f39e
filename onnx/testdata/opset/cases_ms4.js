// Cases for gen.js (the format of cases.js): onnxruntime's com.microsoft
// Attention, the self-attention of BERT-family models fused by
// onnxruntime's transformer optimizer: input·weights + bias split in Q, K
// and V (equal sizes or qkv_hidden_sizes), mask_index as end positions,
// end and start positions, a 2-D key mask, a 3-D mask; past and present
// in the [2, batch, heads, past, head_size] form; unidirectional,
// attention_bias, scale, mask_filter_value; float32 and float16. And
// MultiHeadAttention, the attention of encoder-decoder exports: 3-D or
// 4-D (cross attention) key and value, bias, key_padding_mask, past_key,
// past_value and the present outputs, output_qk, unidirectional with more
// keys than queries, attention_bias; float32 and float16. And QAttention,
// its quantized form.
const M = 'com.microsoft', f = 'float32', h = 'float16';
const cases = [];
// vals returns n deterministic values in [−sc, sc], multiples of 1/64.
const vals = (seed, n, sc) => {
  let s = seed >>> 0 || 1;
  return Array.from({ length: n }, () => {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    return Math.round((s / 4294967296 * 2 - 1) * sc * 64) / 64;
  });
};
// attn adds an Attention case: batch B, sequence S, input hidden size Hin,
// N heads, Q/K hidden size D and V hidden size Dv (qkv_hidden_sizes when
// they differ), past of P tokens (0: none), mask [shape, values], ab the
// attention_bias shape; present is an output unless D and Dv differ.
const attn = (name, { B, S, Hin, N, D, Dv = D, P = 0, dt = f, attrs = {}, mask, ab }) => {
  const C = 2 * D + Dv, T = P + S;
  const ins = [['input', dt, [B, S, Hin], vals(1, B * S * Hin, 1)], ['weights', dt, [Hin, C], vals(2, Hin * C, 0.7)], ['bias', dt, [C], vals(3, C, 0.5)]];
  const names = ['input', 'weights', 'bias'];
  if (mask) {
    ins.push(['mask_index', 'int32', mask[0], mask[1]]);
    names.push('mask_index');
  } else names.push('');
  if (P) {
    ins.push(['past', dt, [2, B, N, P, D / N], vals(4, 2 * B * P * D, 2)]);
    names.push('past');
  } else names.push('');
  if (ab) {
    ins.push(['attention_bias', dt, ab, vals(5, ab.reduce((a, b) => a * b, 1), 2)]);
    names.push('attention_bias');
  }
  while (names[names.length - 1] === '') names.pop();
  const a = { num_heads: N, ...attrs };
  if (Dv !== D) a.qkv_hidden_sizes = [D, D, Dv];
  const outputs = [['output', dt]];
  if (Dv === D) outputs.push(['present', dt]);
  cases.push({ name: `ms4_attn_${name}`, opset: 17, domain: M, op: 'Attention', attrs: a, inputs: ins, nodeInputs: names, outputs });
  return T;
};

attn('basic', { B: 2, S: 3, Hin: 8, N: 2, D: 8 });
attn('end_start_unidirectional_past', { B: 2, S: 3, Hin: 6, N: 2, D: 4, P: 2, mask: [[4], [5, 3, 1, 0]], attrs: { unidirectional: 1 } });
attn('key_mask_fully_masked_row', { B: 2, S: 2, Hin: 4, N: 1, D: 4, mask: [[2, 2], [1, 0, 0, 0]], attrs: { scale: { f: 0.25 }, mask_filter_value: { f: -30 } } });
attn('mask3d_bias_unidirectional', { B: 1, S: 3, Hin: 5, N: 2, D: 6, mask: [[1, 3, 3], [1, 0, 1, 1, 1, 0, 0, 1, 1]], ab: [1, 2, 3, 3], attrs: { unidirectional: 1 } });
attn('qkv_hidden_sizes', { B: 2, S: 2, Hin: 4, N: 2, D: 4, Dv: 6, mask: [[2], [1, 2]] });
attn('float16_past', { B: 1, S: 2, Hin: 4, N: 2, D: 4, P: 3, dt: h, mask: [[1, 5], [1, 1, 0, 1, 1]] });

// mha adds a MultiHeadAttention case: batch B, S queries, L new keys, N
// heads of size H (Hv for V), past of P tokens (0: none), key and value
// 3-D or 4-D (bnsh), bias, mask [shape, values], ab the attention_bias
// shape; outs the outputs wanted (1, 3 or 4).
const mha = (name, { B, S, L, N, H, Hv = H, P = 0, dt = f, attrs = {}, bnsh = false, bias = false, mask, ab, outs = 1 }) => {
  const D = N * H, Dv = N * Hv;
  const ins = [['query', dt, [B, S, D], vals(6, B * S * D, 2)],
    ['key', dt, bnsh ? [B, N, L, H] : [B, L, D], vals(7, B * L * D, 2)], ['value', dt, bnsh ? [B, N, L, Hv] : [B, L, Dv], vals(8, B * L * Dv, 2)]];
  const names = ['query', 'key', 'value'];
  if (bias) {
    ins.push(['bias', dt, [2 * D + Dv], vals(9, 2 * D + Dv, 1)]);
    names.push('bias');
  } else names.push('');
  if (mask) {
    ins.push(['key_padding_mask', 'int32', mask[0], mask[1]]);
    names.push('key_padding_mask');
  } else names.push('');
  if (ab) {
    ins.push(['attention_bias', dt, ab, vals(10, ab.reduce((a, b) => a * b, 1), 2)]);
    names.push('attention_bias');
  } else names.push('');
  if (P) {
    ins.push(['past_key', dt, [B, N, P, H], vals(11, B * N * P * H, 2)], ['past_value', dt, [B, N, P, H], vals(12, B * N * P * H, 2)]);
    names.push('past_key', 'past_value');
  }
  while (names[names.length - 1] === '') names.pop();
  const outputs = [['output', dt]];
  if (outs >= 3) outputs.push(['present_key', dt], ['present_value', dt]);
  if (outs === 4) outputs.push(['output_qk', dt]);
  cases.push({ name: `ms4_mha_${name}`, opset: 17, domain: M, op: 'MultiHeadAttention', attrs: { num_heads: N, ...attrs }, inputs: ins, nodeInputs: names, outputs });
};

mha('cross_bias_key_mask', { B: 2, S: 3, L: 5, N: 2, H: 4, Hv: 3, bias: true, mask: [[2, 5], [1, 1, 0, 1, 0, 0, 1, 1, 1, 1]] });
mha('past_unidirectional_qk', { B: 1, S: 3, L: 3, N: 2, H: 4, P: 2, ab: [1, 2, 3, 5], outs: 4, attrs: { unidirectional: 1 } });
mha('bnsh_cross_end_positions', { B: 2, S: 2, L: 4, N: 2, H: 3, bnsh: true, bias: true, mask: [[2], [3, 1]], outs: 3, attrs: { scale: { f: 0.4 } } });
mha('unidirectional_more_keys', { B: 2, S: 2, L: 4, N: 1, H: 4, mask: [[8], [4, 2, 0, 0, 0, 0, 0, 0]], outs: 4, attrs: { unidirectional: 1, mask_filter_value: { f: -100 } } });
mha('float16_past_mask3d', { B: 1, S: 2, L: 2, N: 2, H: 4, P: 2, dt: h, bias: true, mask: [[1, 2, 4], [1, 0, 1, 1, 0, 1, 1, 0]], outs: 3 });

// qattn adds a QAttention case, what onnxruntime's quantize_dynamic makes
// of the Attention above: uint8 input, uint8 or int8 weight (wt), each
// with scale and zero point (weight's per column when ws has 3·D values),
// float32 bias; mask [shape, values], past of P tokens.
const qattn = (name, { B, S, Hin, N, D, P = 0, wt = 'int8', ws = [0.02], wz = [0], iz = 128, attrs = {}, mask }) => {
  const C = 3 * D, wlo = wt === 'uint8' ? 0 : -128, q = (seed, n, lo, hi) => vals(seed, n, 1).map((v) => Math.round(lo + (v + 1) / 2 * (hi - lo)));
  const ins = [['input', 'uint8', [B, S, Hin], q(21, B * S * Hin, 0, 255)], ['weight', wt, [Hin, C], q(22, Hin * C, wlo, wlo + 255)],
    ['bias', f, [C], vals(23, C, 0.5)], ['input_scale', f, [], [0.03]], ['weight_scale', f, ws.length > 1 ? [C] : [], ws]];
  const names = ['input', 'weight', 'bias', 'input_scale', 'weight_scale'];
  if (mask) {
    ins.push(['mask_index', 'int32', mask[0], mask[1]]);
    names.push('mask_index');
  } else names.push('');
  ins.push(['input_zero_point', 'uint8', [], [iz]], ['weight_zero_point', wt, wz.length > 1 ? [C] : [], wz]);
  names.push('input_zero_point', 'weight_zero_point');
  if (P) {
    ins.push(['past', f, [2, B, N, P, D / N], vals(24, 2 * B * P * D, 2)]);
    names.push('past');
  }
  cases.push({ name: `ms4_qattn_${name}`, opset: 17, domain: M, op: 'QAttention', attrs: { num_heads: N, ...attrs }, inputs: ins, nodeInputs: names,
    outputs: [['output', f], ['present', f]] });
};
qattn('u8s8_per_tensor', { B: 2, S: 3, Hin: 8, N: 2, D: 8 });
qattn('u8u8_end_start_mask', { B: 2, S: 3, Hin: 6, N: 2, D: 4, wt: 'uint8', wz: [131], mask: [[4], [3, 2, 1, 0]] });
qattn('u8s8_per_column_past_unidirectional', { B: 1, S: 3, Hin: 5, N: 2, D: 4, P: 2,
  ws: Array.from({ length: 12 }, (_, i) => 0.01 + i / 400), wz: Array.from({ length: 12 }, (_, i) => (i % 5) - 2), mask: [[1, 5], [1, 1, 1, 0, 1]],
  attrs: { unidirectional: 1 } });
qattn('u8s8_pruned_hidden_scale', { B: 1, S: 4, Hin: 12, N: 4, D: 8, iz: 0, attrs: { scale: { f: 0.3 }, mask_filter_value: { f: -50 } }, mask: [[1], [3]] });

module.exports = cases;
