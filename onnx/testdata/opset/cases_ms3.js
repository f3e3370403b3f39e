// Cases for gen.js (the format of cases.js): onnxruntime's attention
// contrib ops of domain com.microsoft. GroupQueryAttention: query, key and
// value separate or packed in query; past_key and past_value in BNSH
// layout, seqlens_k (per batch, its total length − 1) and
// total_sequence_length; prompts with right-padded batches, token
// generation, a prompt after past context; rotary embedding (cos_cache and
// sin_cache), position_ids, attention_bias, head_sink, local_window_size,
// softcap, scale, smooth_softmax; float32 and float16.
const M = 'com.microsoft', f = 'float32', h = 'float16';
const cases = [];
// rotary returns cos_cache and sin_cache inputs of n positions and d
// frequencies (θ_i = 100^(−i/d)).
const rotary = (dt, n, d) => {
  const ang = [];
  for (let p = 0; p < n; p++) for (let i = 0; i < d; i++) ang.push(p / 100 ** (i / d));
  return [['cos', dt, [n, d], ang.map(Math.cos)], ['sin', dt, [n, d], ang.map(Math.sin)]];
};
// gqa adds a GroupQueryAttention case: batch B, new tokens S, N query and
// Nkv key/value heads of size H, past of P tokens (0: none), lens the
// seqlens_k values, total the total_sequence_length; rot the rotary caches'
// positions (0: none); pos, bias (its shape; biasData its values, random
// when absent) and sink optional inputs.
const gqa = (name, { B, S, N, Nkv, H, P = 0, lens, total, dt = f, attrs = {}, packed = false, rot = 0, pos, bias, biasData, sink }) => {
  const ins = [], names = [];
  if (packed) {
    ins.push(['query', dt, [B, S, (N + 2 * Nkv) * H]]);
    names.push('query', '', '');
  } else {
    ins.push(['query', dt, [B, S, N * H]], ['key', dt, [B, S, Nkv * H]], ['value', dt, [B, S, Nkv * H]]);
    names.push('query', 'key', 'value');
  }
  if (P) {
    ins.push(['past_key', dt, [B, Nkv, P, H]], ['past_value', dt, [B, Nkv, P, H]]);
    names.push('past_key', 'past_value');
  } else names.push('', '');
  ins.push(['seqlens_k', 'int32', [B], lens], ['total_sequence_length', 'int32', [], [total]]);
  names.push('seqlens_k', 'total_sequence_length');
  if (rot) {
    ins.push(...rotary(dt, rot, H / 2));
    names.push('cos', 'sin');
  } else names.push('', '');
  if (pos) {
    ins.push(['position_ids', 'int64', [B, S], pos]);
    names.push('position_ids');
  } else names.push('');
  if (bias) {
    ins.push(['attention_bias', dt, bias, biasData]);
    names.push('attention_bias');
  } else names.push('');
  if (sink) {
    ins.push(['head_sink', dt, [N], sink]);
    names.push('head_sink');
  } else names.push('');
  while (names[names.length - 1] === '') names.pop();
  cases.push({ name: `ms3_gqa_${name}`, opset: 17, domain: M, op: 'GroupQueryAttention', attrs: { num_heads: N, kv_num_heads: Nkv, ...attrs },
    inputs: ins, nodeInputs: names, outputs: [['output', dt], ['present_key', dt], ['present_value', dt]] });
};

gqa('prompt_padded', { B: 2, S: 4, N: 2, Nkv: 1, H: 8, lens: [3, 1], total: 4 });
gqa('packed_token', { B: 2, S: 1, N: 2, Nkv: 1, H: 8, P: 4, lens: [4, 2], total: 5, packed: true });
gqa('rotary_prompt', { B: 1, S: 3, N: 2, Nkv: 1, H: 16, lens: [2], total: 3, rot: 4, attrs: { do_rotary: 1 } });
gqa('rotary_interleaved_token_pos', { B: 2, S: 1, N: 2, Nkv: 1, H: 16, P: 3, lens: [3, 1], total: 4, rot: 6, pos: [5, 2],
  attrs: { do_rotary: 1, rotary_interleaved: 1 } });
gqa('window_softcap_scale', { B: 1, S: 5, N: 2, Nkv: 1, H: 8, lens: [4], total: 5, attrs: { local_window_size: 2, softcap: { f: 1.5 }, scale: 0.5 } });
gqa('smooth_softmax', { B: 2, S: 1, N: 3, Nkv: 1, H: 8, P: 3, lens: [3, 0], total: 4, attrs: { smooth_softmax: 1 } });
gqa('sink_bias', { B: 1, S: 3, N: 2, Nkv: 1, H: 8, lens: [2], total: 3, bias: [1, 2, 3, 3], sink: [0.5, -1] });
gqa('after_past_context', { B: 1, S: 3, N: 2, Nkv: 1, H: 8, P: 6, lens: [6], total: 7 });
gqa('float16_rotary_token', { B: 2, S: 1, N: 2, Nkv: 1, H: 16, P: 2, lens: [2, 1], total: 3, dt: h, rot: 4, attrs: { do_rotary: 1 } });
// Rows whose every key is masked by attention_bias (−∞, or the lowest
// float32 exporters write for it): onnxruntime gives them zero
// probabilities, so a zero output, with or without a head sink; the other
// rows are softmaxes as usual.
const I = -Infinity, L = -3.4028234663852886e38;
const masked = [0.1, 0.2, 0.3, I, I, I, 0.5, -0.5, 1, 0, 0, 0, L, L, 0.2, L, I, L];
gqa('masked_rows_prompt', { B: 1, S: 3, N: 2, Nkv: 1, H: 8, lens: [2], total: 3, bias: [1, 2, 3, 3], biasData: masked });
gqa('masked_rows_prompt_sink', { B: 1, S: 3, N: 2, Nkv: 1, H: 8, lens: [2], total: 3, bias: [1, 2, 3, 3], biasData: masked, sink: [0.5, -1] });
gqa('masked_rows_token', { B: 2, S: 1, N: 2, Nkv: 1, H: 8, P: 3, lens: [3, 1], total: 4, bias: [2, 2, 1, 4],
  biasData: [I, I, I, I, 1, 2, 3, 4, 0, 0, I, I, L, I, 0, 0] });
gqa('float16_prompt_packed', { B: 2, S: 3, N: 2, Nkv: 1, H: 8, lens: [2, 1], total: 3, dt: h, packed: true });

module.exports = cases;
