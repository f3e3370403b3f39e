// Cases for gen.js (the format of cases.js): a second probe of the edge
// forms exporters write (prefix p2_), over the signal, vision, attention,
// normalization, indexing, bitwise, quantization and Cast ops. Edges where
// pipert once differed from onnxruntime:
//   - Shrink on integer tensors (every integer type): computed in float32
//     and truncated, as onnxruntime does (pipert refused them).
//   - Einsum with an index of extent 1 in one operand and more in another
//     (broadcast, as numpy, PyTorch and onnxruntime do; pipert refused it).
//   - GatherND with indices [..., 0], an empty index tuple gathering whole
//     slices (pipert refused it).
//   - BlackmanWindow with an integer output_datatype: the peak is 1
//     (pipert's float64 sum gave 0.99999… and truncated it to 0).
// Left out on purpose (onnxruntime wrong, or a deliberate departure):
// complex STFT (onnxruntime misreads a complex signal), Unique of NaN
// (onnxruntime merges every value with a NaN), integer fmod and Range of
// 64-bit values beyond 2^53 (onnxruntime goes through double), GridSample
// at non-finite points, floats out of an integer type's range in Cast and
// integer Shrink (pipert saturates).
const f = 'float32', d = 'float64', h = 'float16', i64 = 'int64', i32 = 'int32', b = 'bool';
const K = (name, dtype, shape, data) => [name, dtype, shape, data, true];
const cases = [];
const one = (name, opset, op, attrs, inputs, outputs, nodeInputs) => cases.push({ name: `p2_${name}`, opset, op, attrs, inputs, outputs, ...(nodeInputs ? { nodeInputs } : {}) });

// DFT.
const dft = (name, opset, x, attrs, len, axis, dt = f) => {
  const inputs = [['x', dt, x]];
  if (len !== undefined) inputs.push(K('len', i64, [], [len]));
  if (axis !== undefined) inputs.push(K('axis', i64, [], [axis]));
  const ni = ['x', len === undefined ? '' : 'len', ...(axis === undefined ? [] : ['axis'])];
  while (ni[ni.length - 1] === '') ni.pop();
  one(`dft_${name}`, opset, 'DFT', attrs, inputs, [['y', dt]], ni);
};
dft('17_onesided_real', 17, [2, 6, 1], { onesided: 1 });
dft('17_onesided_odd', 17, [2, 7, 1], { onesided: 1 });
dft('17_inverse_complex', 17, [2, 5, 2], { inverse: 1 });
dft('17_axis2', 17, [2, 3, 4, 2], { axis: 2 });
dft('17_axis_neg', 17, [2, 3, 4, 1], { axis: -2 });
dft('17_len_pad', 17, [1, 4, 1], {}, 6);
dft('17_len_trunc', 17, [1, 6, 2], {}, 3);
dft('17_len1', 17, [2, 5, 1], {}, 1);
dft('17_size1', 17, [3, 1, 2], {});
dft('17_f64', 17, [2, 5, 2], { inverse: 1 }, undefined, undefined, d);
dft('20_onesided_axis0', 20, [6, 3, 1], { onesided: 1 }, undefined, 0);
dft('20_onesided_len_odd', 20, [2, 6, 1], { onesided: 1 }, 5, 1);
dft('20_inverse_onesided', 20, [2, 4, 2], { inverse: 1, onesided: 1 }, 6, 1);
dft('20_inverse_onesided_odd', 20, [2, 4, 2], { inverse: 1, onesided: 1 }, 7, 1);
dft('20_inverse_real', 20, [2, 5, 1], { inverse: 1 }, undefined, -2);
dft('20_axis_neg3', 20, [3, 4, 2], {}, undefined, -3);
dft('20_len_pad_axis0', 20, [3, 2, 2], {}, 5, 0);
dft('20_f64_onesided', 20, [1, 8, 1], { onesided: 1 }, undefined, undefined, d);
dft('20_size1_onesided', 20, [2, 1, 1], { onesided: 1 });
// IRFFT at the lengths where onnxruntime follows the specification (numpy's
// irfft): one bin to any length (dft_length 1 among them), odd lengths past
// 2·m − 1 (zero-padded), and opset 17's form with its axis attribute, as
// onnx2tf writes irfft. (At the other lengths kernel/ops'
// TestDFTIrfftLengths checks the specification's values.)
dft('17_irfft', 17, [2, 4, 3, 2], { inverse: 1, onesided: 1, axis: 1 });
dft('17_irfft_len1', 17, [2, 1, 2], { inverse: 1, onesided: 1 }, 1);
dft('17_irfft_one_bin_len4', 17, [2, 1, 2], { inverse: 1, onesided: 1 }, 4);
dft('17_irfft_odd_pad', 17, [2, 3, 2], { inverse: 1, onesided: 1 }, 9);
dft('20_irfft_len1', 20, [1, 2], { inverse: 1, onesided: 1 }, 1, 0);
dft('20_irfft_one_bin_len3', 20, [3, 1, 2], { inverse: 1, onesided: 1 }, 3, -2);
dft('20_irfft_odd_pad_axis0', 20, [2, 3, 2], { inverse: 1, onesided: 1 }, 7, 0);

// STFT: signal [batch, len, 1 or 2], frame_step, window, frame_length.
const stft = (name, opset, sig, step, win, flen, attrs = {}, dt = f) => {
  const inputs = [['s', dt, sig], K('step', i64, [], [step])];
  const ni = ['s', 'step', '', ''];
  if (win) { inputs.push(['w', dt, [win]]); ni[2] = 'w'; }
  if (flen) { inputs.push(K('fl', i64, [], [flen])); ni[3] = 'fl'; }
  while (ni[ni.length - 1] === '') ni.pop();
  one(`stft_${name}`, opset, 'STFT', attrs, inputs, [['y', dt]], ni);
};
stft('win_onesided', 17, [2, 16, 1], 4, 8, undefined, { onesided: 1 });
stft('win_full', 17, [1, 12, 1], 3, 6, undefined, { onesided: 0 });
stft('len_only', 17, [1, 10, 1], 2, undefined, 4);
stft('len_odd_onesided', 17, [1, 11, 1], 3, undefined, 5, { onesided: 1 });
stft('one_frame', 17, [2, 8, 1], 8, 8, undefined);
stft('f64', 17, [1, 10, 1], 3, 4, undefined, {}, d);

// Windows.
for (const op of ['HannWindow', 'HammingWindow', 'BlackmanWindow']) {
  const s = op.replace('Window', '').toLowerCase();
  for (const n of [1, 2, 7, 8]) for (const p of [0, 1]) one(`${s}_${n}_p${p}`, 17, op, { periodic: p }, [K('n', i64, [], [n])], [['y', f]]);
  one(`${s}_f64`, 17, op, { output_datatype: 11 }, [K('n', i32, [], [5])], [['y', d]]);
  one(`${s}_f16`, 17, op, { output_datatype: 10, periodic: 0 }, [K('n', i64, [], [6])], [['y', h]]);
  one(`${s}_i32out`, 17, op, { output_datatype: 6 }, [K('n', i64, [], [6])], [['y', i32]]);
  one(`${s}_u8out`, 17, op, { output_datatype: 2 }, [K('n', i64, [], [9])], [['y', 'uint8']]);
  one(`${s}_i64out_sym`, 17, op, { output_datatype: 7, periodic: 0 }, [K('n', i64, [], [7])], [['y', i64]]);
  one(`${s}_u8out_sym`, 17, op, { output_datatype: 2, periodic: 0 }, [K('n', i64, [], [9])], [['y', 'uint8']]);
  one(`${s}_i32out_12`, 17, op, { output_datatype: 6 }, [K('n', i64, [], [12])], [['y', i32]]);
}

// MelWeightMatrix: num_mel_bins, dft_length, sample_rate, lower, upper.
const mel = (name, nb, dl, sr, lo, up, attrs = {}, out = f) => one(`mel_${name}`, 17, 'MelWeightMatrix', attrs,
  [K('nb', i64, [], [nb]), K('dl', i64, [], [dl]), K('sr', i64, [], [sr]), K('lo', f, [], [lo]), K('up', f, [], [up])], [['y', out]]);
mel('basic', 8, 16, 8000, 0, 4000);
mel('odd', 5, 15, 16000, 100, 7000);
mel('narrow', 10, 32, 16000, 300, 600);
mel('f64', 4, 16, 8000, 20, 3000, { output_datatype: 11 }, d);
mel('one_bin', 1, 8, 8000, 0, 4000);
mel('i32', 4, 16, 8000, 0, 4000, { output_datatype: 6 }, i32);

// Col2Im.
const col2im = (name, x, img, blk, attrs = {}) => one(`col2im_${name}`, 18, 'Col2Im', attrs,
  [['x', f, x], K('img', i64, [img.length], img), K('blk', i64, [blk.length], blk)], [['y', f]]);
col2im('basic', [1, 4, 9], [4, 4], [2, 2]);
col2im('strides', [1, 4, 4], [4, 4], [2, 2], { strides: [2, 2] });
col2im('pads_dil', [1, 6, 12], [5, 4], [3, 2], { pads: [1, 0, 1, 1], dilations: [2, 1] });
col2im('1d', [2, 3, 4], [6], [3]);
col2im('3d', [1, 8, 8], [3, 3, 3], [2, 2, 2]);
col2im('block1', [1, 3, 6], [2, 3], [1, 1]);

// CenterCropPad.
const ccp = (name, x, shape, attrs = {}, dt = f) => one(`ccp_${name}`, 18, 'CenterCropPad', attrs, [['x', dt, x], K('s', i64, [shape.length], shape)], [['y', dt]]);
ccp('crop_odd', [5, 7, 1], [2, 4, 1]);
ccp('pad_odd', [2, 3, 1], [5, 6, 1]);
ccp('mixed', [4, 3], [3, 6]);
ccp('axes', [2, 5, 4], [3, 2], { axes: [-1, 0] });
ccp('axes_neg', [3, 4, 5], [2], { axes: [-2] });
ccp('int', [5, 5], [2, 8], {}, i32);
ccp('same', [3, 3], [3, 3]);
ccp('zero', [3, 4], [0, 4]);

// GridSample.
const gs = (name, opset, x, grid, attrs, gdata) => one(`gs_${name}`, opset, 'GridSample', attrs, [['x', f, x], ['g', f, grid, gdata]], [['y', f]]);
const gridPts = (n) => Array.from({ length: n }, (_, i) => [-1.7, -1, -0.6, 0, 0.33, 1, 1.4, 2.6, -2.2, 0.999][i % 10]);
for (const opset of [16, 20]) {
  const modes = opset === 16 ? ['bilinear', 'nearest', 'bicubic'] : ['linear', 'nearest', 'cubic'];
  for (const mode of modes) for (const pm of ['zeros', 'border', 'reflection']) for (const ac of [0, 1]) {
    gs(`${opset}_${mode}_${pm}_ac${ac}`, opset, [1, 2, 3, 4], [1, 3, 5, 2], { mode, padding_mode: pm, align_corners: ac }, gridPts(30));
  }
}
for (const mode of ['linear', 'nearest']) for (const pm of ['zeros', 'border', 'reflection']) for (const ac of [0, 1]) {
  gs(`20_5d_${mode}_${pm}_ac${ac}`, 20, [1, 2, 3, 2, 4], [1, 2, 2, 3, 3], { mode, padding_mode: pm, align_corners: ac }, gridPts(36));
}
// Bicubic border before opset 20 clamps each pixel, not the point, as at
// 20 (pipert clamped the point, as ONNX's reference does): points just
// outside the image, within two pixels of it, and far out.
const nearEdge = [-1, -1, 1, 1, -1.5, 0.3, 1.2, -1.7, 0, 0, 0.999, -0.999, 0.1, 0.5, 0.25, -0.1, 3.5, 2.1, -0.5, 0.5, 1, -1, 0.3333, 0.6667, 1.1, 0.9, -1.05, -1.1, 1.3, 1.01];
for (const opset of [16, 19]) for (const ac of [0, 1]) {
  gs(`${opset}_bicubic_border_edge_ac${ac}`, opset, [1, 2, 3, 4], [1, 3, 5, 2], { mode: 'bicubic', padding_mode: 'border', align_corners: ac }, nearEdge);
}
gs('16_size1', 16, [1, 1, 1, 1], [1, 2, 2, 2], { mode: 'bilinear', padding_mode: 'reflection', align_corners: 0 }, [0.3, -0.9, 1.5, 2, -3, 0, 0.1, 0.9]);
gs('16_size1_ac', 16, [1, 1, 1, 3], [1, 1, 3, 2], { mode: 'bicubic', padding_mode: 'reflection', align_corners: 1 }, [0.3, -0.9, 1.5, 2, -3, 0]);
gs('16_nearest_half', 16, [1, 1, 2, 4], [1, 1, 4, 2], { mode: 'nearest', align_corners: 0 }, [-0.75, -0.5, -0.25, 0.5, 0.25, 0, 0.75, -1]);
gs('20_nearest_half_ac', 20, [1, 1, 3, 3], [1, 1, 4, 2], { mode: 'nearest', align_corners: 1 }, [-0.5, 0.5, 0.5, -0.5, 0, 0, 1, -1]);
gs('20_far_reflect', 20, [1, 1, 2, 3], [1, 1, 4, 2], { mode: 'cubic', padding_mode: 'reflection' }, [5.3, -7.1, 9.9, 3.2, -4.4, 6.6, 11, -13]);

// AffineGrid.
one('affinegrid_size1_ac0', 20, 'AffineGrid', { align_corners: 0 }, [['t', f, [2, 2, 3]], K('s', i64, [4], [2, 1, 1, 3])], [['y', f]]);
one('affinegrid_size1_ac1', 20, 'AffineGrid', { align_corners: 1 }, [['t', f, [1, 2, 3]], K('s', i64, [4], [1, 1, 1, 1])], [['y', f]]);
one('affinegrid_3d_size1', 20, 'AffineGrid', { align_corners: 1 }, [['t', f, [1, 3, 4]], K('s', i64, [5], [1, 1, 1, 2, 3])], [['y', f]]);

// DeformConv.
const dc = (name, x, w, off, attrs, extra = {}) => {
  const inputs = [['x', f, x], ['w', f, w], ['o', f, off]];
  const ni = ['x', 'w', 'o'];
  if (extra.b) { inputs.push(['b', f, [w[0]]]); ni.push('b'); } else if (extra.m) ni.push('');
  if (extra.m) { inputs.push(['m', f, extra.m]); ni.push('m'); }
  one(`deformconv_${name}`, 19, 'DeformConv', attrs, inputs, [['y', f]], ni);
};
dc('basic', [1, 2, 4, 4], [3, 2, 2, 2], [1, 8, 3, 3], {});
dc('pads_strides', [1, 2, 5, 5], [2, 2, 3, 3], [1, 18, 3, 3], { pads: [1, 1, 1, 1], strides: [2, 2] }, { b: 1 });
dc('group_offgroup', [1, 4, 4, 4], [4, 2, 2, 2], [1, 16, 3, 3], { group: 2, offset_group: 2 }, { m: [1, 8, 3, 3] });
dc('dil', [2, 1, 5, 5], [1, 1, 2, 2], [2, 8, 3, 3], { dilations: [2, 2] }, { b: 1, m: [2, 4, 3, 3] });

// GroupNormalization.
const gn = (name, opset, x, g, attrs = {}) => {
  const C = x[1], n = opset >= 21 ? C : g;
  one(`groupnorm_${name}`, opset, 'GroupNormalization', { num_groups: g, ...attrs }, [['x', f, x], ['s', f, [n]], ['b', f, [n]]], [['y', f]]);
};
gn('18_basic', 18, [2, 4, 3], 2);
gn('18_g1', 18, [1, 3, 2, 2], 1, { epsilon: 0.01 });
gn('18_gC', 18, [1, 4, 3], 4);
gn('21_basic', 21, [2, 6, 2, 2], 3);
gn('21_g1', 21, [1, 4, 5], 1);
gn('21_gC', 21, [2, 3, 4], 3, { epsilon: 1e-2 });
gn('21_rank2', 21, [3, 4], 2);
gn('21_size1', 21, [1, 2, 1], 2);

// RMSNormalization.
const rms = (name, x, sc, attrs = {}) => one(`rms_${name}`, 23, 'RMSNormalization', attrs, [['x', f, x], ['s', f, sc]], [['y', f]]);
rms('default', [2, 3, 4], [4]);
rms('axis1', [2, 3, 4], [3, 4], { axis: 1 });
rms('axis_neg2', [2, 3, 4], [3, 4], { axis: -2 });
rms('axis0', [2, 3], [2, 3], { axis: 0, epsilon: 0.1 });
rms('bcast_scale', [2, 3, 4], [1, 4], { axis: 1 });
rms('rank1', [5], [5]);

// Attention.
const att = (name, opset, attrs, inputs, ni, nOut = 1) => one(`attention_${name}`, opset, 'Attention', attrs, inputs,
  [['y', f], ['pko', f], ['pvo', f], ['qk', f]].slice(0, nOut), ni);
const qkv = (q, k, v) => [['q', f, q], ['k', f, k], ['v', f, v]];
att('23_softcap', 23, { softcap: 0.5 }, qkv([1, 2, 3, 4], [1, 2, 5, 4], [1, 2, 5, 3]));
att('23_softcap_causal_scale', 23, { softcap: { f: 2 }, is_causal: 1, scale: 0.3 }, qkv([1, 1, 4, 4], [1, 1, 4, 4], [1, 1, 4, 2]));
att('23_causal_q_longer', 23, { is_causal: 1 }, qkv([1, 1, 4, 2], [1, 1, 2, 2], [1, 1, 2, 2]));
att('23_gqa3_mask_bool4d', 23, {}, [...qkv([2, 6, 2, 2], [2, 2, 3, 2], [2, 2, 3, 2]), ['m', b, [2, 1, 2, 3]]], ['q', 'k', 'v', 'm']);
att('23_mask_bcast_2d_float', 23, {}, [...qkv([1, 2, 3, 2], [1, 2, 4, 2], [1, 2, 4, 2]), ['m', f, [3, 4]]], ['q', 'k', 'v', 'm']);
att('23_past_mask_full', 23, {}, [...qkv([1, 2, 2, 2], [1, 2, 2, 2], [1, 2, 2, 2]), ['m', f, [2, 5]], ['pk', f, [1, 2, 3, 2]], ['pv', f, [1, 2, 3, 2]]], ['q', 'k', 'v', 'm', 'pk', 'pv'], 3);
att('23_qkmode1', 23, { qk_matmul_output_mode: 1 }, [...qkv([1, 1, 2, 2], [1, 1, 3, 2], [1, 1, 3, 2]), ['m', f, [2, 3]]], ['q', 'k', 'v', 'm', '', ''], 4);
att('23_qkmode2', 23, { qk_matmul_output_mode: 2, softcap: { f: 1 } }, [...qkv([1, 1, 2, 2], [1, 1, 3, 2], [1, 1, 3, 2]), ['m', f, [2, 3]]], ['q', 'k', 'v', 'm', '', ''], 4);
att('23_qkmode3', 23, { qk_matmul_output_mode: 3 }, [...qkv([1, 1, 2, 2], [1, 1, 3, 2], [1, 1, 3, 2]), ['m', f, [2, 3]]], ['q', 'k', 'v', 'm', '', ''], 4);
att('23_qkmode0_causal', 23, { qk_matmul_output_mode: 0, is_causal: 1 }, qkv([1, 1, 3, 2], [1, 1, 3, 2], [1, 1, 3, 2]), ['q', 'k', 'v', '', '', ''], 4);
att('24_3d_gqa_past', 24, { q_num_heads: 4, kv_num_heads: 1, is_causal: 1 }, [...qkv([1, 2, 8], [1, 2, 2], [1, 2, 3]), ['pk', f, [1, 1, 3, 2]], ['pv', f, [1, 1, 3, 3]]], ['q', 'k', 'v', '', 'pk', 'pv'], 3);
att('24_causal_past_mask', 24, { is_causal: 1 }, [...qkv([1, 1, 2, 2], [1, 1, 2, 2], [1, 1, 2, 2]), ['m', b, [2, 4], [1, 0, 1, 1, 0, 1, 1, 1]], ['pk', f, [1, 1, 2, 2]], ['pv', f, [1, 1, 2, 2]]], ['q', 'k', 'v', 'm', 'pk', 'pv'], 3);
att('24_mask_allfalse_row', 24, {}, [...qkv([1, 1, 2, 2], [1, 1, 3, 2], [1, 1, 3, 2]), ['m', b, [2, 3], [0, 0, 0, 1, 0, 1]]], ['q', 'k', 'v', 'm']);

// RotaryEmbedding (23): X, cos_cache, sin_cache, position_ids.
const rope = (name, x, cache, pos, attrs = {}) => {
  const inputs = [['x', f, x], ['c', f, cache], ['s', f, cache]];
  const ni = ['x', 'c', 's'];
  if (pos) { inputs.push(['p', i64, pos[0], pos[1]]); ni.push('p'); }
  one(`rope_${name}`, 23, 'RotaryEmbedding', attrs, inputs, [['y', f]], ni);
};
rope('4d_pos', [1, 2, 3, 4], [5, 2], [[1, 3], [4, 0, 2]]);
rope('4d_nopos', [2, 2, 3, 4], [2, 3, 2]);
rope('3d_heads', [1, 3, 8], [6, 2], [[1, 3], [0, 1, 5]], { num_heads: 2 });
rope('interleaved', [1, 2, 3, 4], [5, 2], [[1, 3], [1, 2, 3]], { interleaved: 1 });
rope('partial', [1, 1, 3, 6], [4, 2], [[1, 3], [3, 2, 1]], { rotary_embedding_dim: 4 });
rope('partial_interleaved', [2, 3, 12], [2, 3, 2], undefined, { rotary_embedding_dim: 4, interleaved: 1, num_heads: 2 });

// Det.
one('det_2x2', 11, 'Det', {}, [['x', f, [2, 2]]], [['y', f]]);
one('det_batch', 11, 'Det', {}, [['x', f, [2, 3, 3, 3]]], [['y', f]]);
one('det_singular', 11, 'Det', {}, [['x', f, [3, 3], [1, 2, 3, 2, 4, 6, 1, 0, 1]]], [['y', f]]);
one('det_1x1', 11, 'Det', {}, [['x', f, [3, 1, 1]]], [['y', f]]);
one('det_pivot', 11, 'Det', {}, [['x', f, [3, 3], [0, 1, 2, 1, 0, 3, 4, -3, 8]]], [['y', f]]);

// Unique: four outputs.
const uq = (name, x, dt, data, attrs) => one(`unique_${name}`, 11, 'Unique', attrs, [['x', dt, x, data]], [['y', dt], ['idx', i64], ['inv', i64], ['cnt', i64]]);
const udata = [2, 1, 1, 3, 4, 3, 2, 1, 0, 2, 1, 1];
uq('sorted_flat', [12], f, udata, {});
uq('unsorted_flat', [12], f, udata, { sorted: 0 });
uq('sorted_axis0', [4, 3], i64, udata.map((v, i) => (i < 6 ? v : udata[i - 6])), { axis: 0 });
uq('unsorted_axis0', [4, 3], i64, [1, 2, 3, 0, 1, 1, 1, 2, 3, 0, 0, 1], { axis: 0, sorted: 0 });
uq('sorted_axis1', [2, 4], i64, [3, 1, 3, 1, 2, 0, 2, 0], { axis: 1 });
uq('unsorted_axis_neg', [2, 4], i64, [3, 1, 3, 1, 2, 0, 2, 0], { axis: -1, sorted: 0 });
uq('axis_3d', [2, 3, 2], f, [1, 2, 1, 2, 0, 0, 1, 2, 1, 2, 0, 1], { axis: 1 });
uq('empty', [0], f, [], {});
uq('empty_axis', [2, 0], f, [], { axis: 1 });
uq('negzero', [4], f, [-0, 0, 1, -0], { sorted: 0 });
uq('int8', [6], 'int8', [-128, 127, -1, -128, 0, 127], {});

// NonMaxSuppression.
const nms = (name, boxes, scores, mo, iou, st, attrs = {}) => {
  const inputs = [['b', f, boxes[0], boxes[1]], ['s', f, scores[0], scores[1]]];
  const ni = ['b', 's'];
  if (mo !== undefined) { inputs.push(K('mo', i64, [1], [mo])); ni.push('mo'); }
  if (iou !== undefined) { inputs.push(K('iou', f, [1], [iou])); ni.push('iou'); }
  if (st !== undefined) { inputs.push(K('st', f, [1], [st])); ni.push('st'); }
  one(`nms_${name}`, 11, 'NonMaxSuppression', attrs, inputs, [['y', i64]], ni);
};
const bx = [0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, -0.1, 1, 0.9, 0, 10, 1, 11, 0, 10.1, 1, 11.1, 0, 100, 1, 101];
const bxc = [0.5, 0.5, 1, 1, 0.5, 0.6, 1, 1, 0.5, 0.4, 1, 1, 0.5, 10.5, 1, 1, 0.5, 10.6, 1, 1, 0.5, 100.5, 1, 1];
const sc = [0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.1, 0.2, 0.8, 0.7, 0.85, 0.4];
nms('corner', [[1, 6, 4], bx], [[1, 2, 6], sc], 3, 0.5, 0);
nms('center', [[1, 6, 4], bxc], [[1, 2, 6], sc], 3, 0.5, 0, { center_point_box: 1 });
nms('max0', [[1, 6, 4], bx], [[1, 2, 6], sc], 0, 0.5, 0);
nms('no_max', [[1, 6, 4], bx], [[1, 2, 6], sc]);
nms('thresh', [[1, 6, 4], bx], [[1, 2, 6], sc], 10, 0.5, 0.6);
nms('thresh_eq', [[1, 6, 4], bx], [[1, 2, 6], sc], 10, 0.5, 0.75);
nms('iou0', [[1, 6, 4], bx], [[1, 2, 6], sc], 10, 0);
nms('iou1', [[1, 6, 4], bx], [[1, 2, 6], sc], 10, 1);
nms('flipped', [[1, 3, 4], [1, 1, 0, 0, 0, 0.1, 1, 1.1, 0, 10, 1, 11]], [[1, 1, 3], [0.9, 0.8, 0.7]], 5, 0.5);
nms('batch2', [[2, 3, 4], [...bx.slice(0, 12), ...bx.slice(12)]], [[2, 1, 3], [0.5, 0.5, 0.4, 0.1, 0.9, 0.9]], 2, 0.3);
nms('ties', [[1, 4, 4], [0, 0, 1, 1, 5, 5, 6, 6, 0, 0, 1, 1, 7, 7, 8, 8]], [[1, 1, 4], [0.5, 0.5, 0.5, 0.5]], 4, 0.5);
nms('empty', [[1, 0, 4], []], [[1, 2, 0], []], 3, 0.5);
nms('center_neg_wh', [[1, 2, 4], [0, 0, -2, -2, 0.1, 0.1, 2, 2]], [[1, 1, 2], [0.9, 0.8]], 5, 0.5, undefined, { center_point_box: 1 });

// Einsum.
const es = (name, eq, ins, dt = f) => one(`einsum_${name}`, 12, 'Einsum', { equation: eq }, ins.map((s, i) => [`x${i}`, dt, s]), [['y', dt]]);
es('diag', 'ii->i', [[3, 3]]);
es('trace', 'ii', [[4, 4]]);
es('diag_batch', 'bii->bi', [[2, 3, 3]]);
es('repeat3', 'iii->i', [[2, 2, 2]]);
es('implicit_matmul', 'ij,jk', [[2, 3], [3, 4]]);
es('implicit_sorted', 'ba', [[2, 3]]);
es('implicit_outer', 'i,j', [[2], [3]]);
es('ellipsis_matmul', '...ij,...jk->...ik', [[2, 2, 3], [2, 3, 2]]);
es('ellipsis_bcast', '...ij,...jk', [[1, 2, 3], [3, 3, 2]]);
es('ellipsis_mid', 'a...b->b...a', [[2, 3, 4, 5]]);
es('ellipsis_empty', '...i,...i->...', [[4], [4]]);
es('sum_all', 'ij->', [[3, 4]]);
es('bilinear', 'bn,anm,bm->ba', [[2, 3], [4, 3, 2], [2, 2]]);
es('spaces', 'i j , j k -> i k', [[2, 3], [3, 2]]);
es('int', 'ij,jk->ik', [[2, 3], [3, 2]], i64);
es('diag_two_inputs', 'ii,i->i', [[3, 3], [3]]);
es('size1_bcast', 'ij,ij->ij', [[1, 3], [2, 3]]);
es('size1_bcast_reduced', 'ij,jk->ik', [[2, 1], [3, 2]]);
es('size1_bcast_both', 'ij,ij->j', [[2, 1], [1, 3]]);
es('size1_bcast_int', 'bij,bjk->bik', [[1, 2, 3], [2, 3, 2]], i64);
es('transpose_repeat', 'iij->ji', [[2, 2, 3]]);

// BitShift and bitwise.
const u = ['uint8', 'uint32', 'uint64'];
const maxs = { uint8: 255, uint16: 65535, uint32: 4294967295, uint64: '18446744073709551615' };
const bits = { uint8: 8, uint16: 16, uint32: 32, uint64: 64 };
for (const t of u) for (const dir of ['LEFT', 'RIGHT']) {
  one(`bitshift_${t}_${dir}`, 11, 'BitShift', { direction: dir }, [['x', t, [6], [maxs[t], 1, 3, maxs[t], 0, 5]], ['y', t, [6], [1, 0, bits[t] - 1, bits[t], 3, bits[t] + 3]]], [['z', t]]);
  one(`bitshift_${t}_${dir}_bcast`, 11, 'BitShift', { direction: dir }, [['x', t, [2, 3]], ['y', t, [], [2]]], [['z', t]]);
}
for (const op of ['BitwiseAnd', 'BitwiseOr', 'BitwiseXor']) for (const t of ['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64']) {
  one(`${op.toLowerCase()}_${t}`, 18, op, {}, [['a', t, [2, 3]], ['b', t, [3]]], [['c', t]]);
}
for (const t of ['int8', 'uint8', 'int32', 'uint64', 'int64']) one(`bitwisenot_${t}`, 18, 'BitwiseNot', {}, [['a', t, [5]]], [['c', t]]);
one('bitwiseand_empty', 18, 'BitwiseAnd', {}, [['a', i32, [0, 3]], ['b', i32, [1, 3]]], [['c', i32]]);

// Mod.
const modA = { int8: [-128, 127, -7, 7, -7, 7, 0, -1], int16: [-32768, 32767, -7, 7, -7, 7, 0, -1], int32: [-2147483648, 2147483647, -7, 7, -7, 7, 0, -1], int64: ['-9223372036854775808', '9223372036854775807', -7, 7, -7, 7, 0, -1],
  uint8: [255, 0, 7, 200, 13, 7, 1, 3], uint16: [65535, 0, 7, 200, 13, 7, 1, 3], uint32: [4294967295, 0, 7, 200, 13, 7, 1, 3], uint64: ['18446744073709551615', 0, 7, 200, 13, 7, 1, 3] };
const modB = { s: [3, -3, 3, -3, -3, 3, -5, 5], u: [7, 5, 3, 9, 4, 7, 2, 255] };
for (const t of Object.keys(modA)) {
  const bb = t.startsWith('u') ? modB.u : modB.s;
  one(`mod_${t}_fmod0`, 13, 'Mod', {}, [['a', t, [8], modA[t]], ['b', t, [8], bb]], [['c', t]]);
  // onnxruntime's integer fmod goes through double: 64-bit values beyond
  // 2^53 lose their low bits there (pipert's is exact), so not those.
  const a1 = t.endsWith('64') ? modA[t].map((v) => (typeof v === 'string' ? (v.startsWith('-') ? '-9007199254740992' : '9007199254740992') : v)) : modA[t];
  one(`mod_${t}_fmod1`, 13, 'Mod', { fmod: 1 }, [['a', t, [8], a1], ['b', t, [8], bb]], [['c', t]]);
}
one('mod_int32_bcast_neg', 13, 'Mod', {}, [['a', i32, [2, 3], [-5, 5, -6, 6, 0, -1]], ['b', i32, [], [-4]]], [['c', i32]]);
one('mod_float_fmod1', 13, 'Mod', { fmod: 1 }, [['a', f, [6], [-5.5, 5.5, -0, 3, -3, 1e10]], ['b', f, [6], [2, -2, 3, -0.7, 0.7, 3]]], [['c', f]]);
one('mod_f16_fmod1', 13, 'Mod', { fmod: 1 }, [['a', h, [4], [-5.5, 5.5, 7, -7]], ['b', h, [4], [2, -2, 3, 3]]], [['c', h]]);
one('mod_int8_min_neg1', 10, 'Mod', {}, [['a', 'int8', [2], [-128, 127]], ['b', 'int8', [2], [-1, -1]]], [['c', 'int8']]);

// CumSum.
const cs = (name, x, axis, attrs, dt = f, data) => one(`cumsum_${name}`, 14, 'CumSum', attrs, [['x', dt, x, data], K('a', i64, [], [axis])], [['y', dt]]);
cs('excl', [2, 4], 1, { exclusive: 1 });
cs('rev', [2, 4], 1, { reverse: 1 });
cs('excl_rev', [3, 2, 3], -2, { exclusive: 1, reverse: 1 });
cs('neg_axis', [2, 3, 2], -3, {});
cs('int32', [5], 0, { exclusive: 1, reverse: 1 }, i32);
cs('size1', [1, 3], 0, { exclusive: 1 });
cs('empty', [0, 3], 0, { reverse: 1 });
cs('int64', [2, 3], -1, {}, i64);
cs('axis_i32', [2, 3], 1, { exclusive: 1 });

// Trilu.
const tr = (name, x, k, attrs, dt = f) => {
  const inputs = [['x', dt, x]];
  if (k !== undefined) inputs.push(K('k', i64, [], [k]));
  one(`trilu_${name}`, 14, 'Trilu', attrs, inputs, [['y', dt]]);
};
for (const k of [-5, -3, -1, 0, 2, 4, 7, undefined]) for (const up of [0, 1]) tr(`${up ? 'up' : 'lo'}_k${k === undefined ? 'none' : k < 0 ? `m${-k}` : k}`, [2, 3, 4], k, { upper: up });
tr('int_tall', [5, 2], -2, { upper: 1 }, i64);
tr('bool', [3, 3], 1, { upper: 0 }, b);
tr('empty', [0, 3], 0, {});

// ReverseSequence.
one('revseq_batch1', 10, 'ReverseSequence', { batch_axis: 1, time_axis: 0 }, [['x', f, [4, 3, 2]], K('l', i64, [3], [4, 1, 0])], [['y', f]]);
one('revseq_batch0', 10, 'ReverseSequence', { batch_axis: 0, time_axis: 1 }, [['x', f, [3, 4]], K('l', i64, [3], [2, 4, 1])], [['y', f]]);
one('revseq_int', 10, 'ReverseSequence', { batch_axis: 0, time_axis: 1 }, [['x', i32, [2, 3, 2]], K('l', i64, [2], [3, 2])], [['y', i32]]);

// Compress.
const cp = (name, x, cond, attrs) => one(`compress_${name}`, 11, 'Compress', attrs, [['x', f, x], K('c', b, [cond.length], cond)], [['y', f]]);
cp('noaxis', [2, 3], [1, 0, 1, 1, 0, 1], {});
cp('noaxis_short', [2, 3], [0, 1, 1], {});
cp('axis0_short', [3, 2], [0, 1], { axis: 0 });
cp('axis_neg_short', [2, 4], [1, 0, 1], { axis: -1 });
cp('all_false', [2, 3], [0, 0, 0], { axis: 1 });
cp('empty_cond', [2, 3], [], { axis: 1 });

// Range.
const rg = (name, dt, s, l, dd) => one(`range_${name}`, 11, 'Range', {}, [K('s', dt, [], [s]), K('l', dt, [], [l]), K('d', dt, [], [dd])], [['y', dt]]);
rg('neg_delta', f, 10, 1, -2.5);
rg('empty', f, 1, 10, -1);
rg('empty_eq', i64, 3, 3, 1);
rg('int32_neg', i32, 5, -6, -3);
rg('frac', f, 0, 1, 0.3);
rg('f64', d, -1, 1, 0.25);
rg('int16', 'int16', -3, 4, 2);
// a graph-input form too
one('range_inputs', 11, 'Range', {}, [['s', f, [], [0.5]], ['l', f, [], [-2]], ['d', f, [], [-0.5]]], [['y', f]]);

// EyeLike.
const eye = (name, x, attrs, dt, out) => one(`eyelike_${name}`, 9, 'EyeLike', attrs, [['x', dt, x]], [['y', out || dt]]);
eye('k2', [3, 4], { k: 2 }, f);
eye('k_neg', [4, 3], { k: -2 }, f);
eye('k_beyond', [3, 3], { k: 5 }, f);
eye('k_beyond_neg', [3, 3], { k: -4 }, f);
eye('dtype_i64', [2, 3], { dtype: 7 }, f, i64);
eye('dtype_f64', [2, 2], { dtype: 11 }, i32, d);
eye('int', [3, 3], { k: 1 }, i32);
eye('empty', [0, 3], {}, f);

// Shrink, Celu, Mish, Gelu.
one('shrink_default', 9, 'Shrink', {}, [['x', f, [7], [-1, -0.5, -0.4, 0, 0.4, 0.5, 1]]], [['y', f]]);
one('shrink_bias', 9, 'Shrink', { lambd: 1.5, bias: 0.5 }, [['x', f, [7], [-2, -1.5, -1, 0, 1, 1.5, 2]]], [['y', f]]);
one('shrink_int8', 9, 'Shrink', { lambd: 0.5, bias: 1.75 }, [['x', 'int8', [7], [-128, -2, -1, 0, 1, 2, 127]]], [['y', 'int8']]);
one('shrink_int64', 9, 'Shrink', { lambd: { f: 2 }, bias: 0.5 }, [['x', i64, [7], [-5, -3, -2, 0, 2, 3, '1000000000000']]], [['y', i64]]);
one('shrink_int16_default', 9, 'Shrink', {}, [['x', 'int16', [5], [-3, -1, 0, 1, 3]]], [['y', 'int16']]);
one('shrink_uint16', 9, 'Shrink', { lambd: { f: 10 }, bias: 2.5 }, [['x', 'uint16', [5], [0, 10, 11, 12, 65535]]], [['y', 'uint16']]);
one('shrink_uint32', 9, 'Shrink', { lambd: 0.5, bias: { f: 1 } }, [['x', 'uint32', [4], [0, 1, 7, 16777216]]], [['y', 'uint32']]);
one('shrink_int32_frac', 9, 'Shrink', { lambd: 1.5, bias: 0.75 }, [['x', i32, [7], [-4, -2, -1, 0, 1, 2, 4]]], [['y', i32]]);
one('shrink_int', 9, 'Shrink', { lambd: 1.5, bias: { f: 1 } }, [['x', i32, [7], [-3, -2, -1, 0, 1, 2, 3]]], [['y', i32]]);
one('shrink_uint8', 9, 'Shrink', { lambd: { f: 1 }, bias: { f: 2 } }, [['x', 'uint8', [5], [0, 1, 2, 3, 255]]], [['y', 'uint8']]);
one('celu_default', 12, 'Celu', {}, [['x', f, [6], [-10, -1, -0.1, 0, 1, 5]]], [['y', f]]);
one('celu_alpha', 12, 'Celu', { alpha: 0.3 }, [['x', f, [6], [-10, -1, -0.1, 0, 1, 5]]], [['y', f]]);
one('celu_alpha_big', 12, 'Celu', { alpha: { f: 3 } }, [['x', f, [2, 3]]], [['y', f]]);
one('mish', 18, 'Mish', {}, [['x', f, [8], [-100, -20, -1, 0, 1, 20, 100, -0.5]]], [['y', f]]);
one('mish_f64', 18, 'Mish', {}, [['x', d, [5], [-30, -1, 0, 1, 30]]], [['y', d]]);
one('mish_f16', 18, 'Mish', {}, [['x', h, [5], [-8, -1, 0, 1, 8]]], [['y', h]]);
one('gelu_none', 20, 'Gelu', {}, [['x', f, [8], [-6, -3, -1, -0.5, 0, 0.5, 1, 3]]], [['y', f]]);
one('gelu_tanh', 20, 'Gelu', { approximate: 'tanh' }, [['x', f, [8], [-6, -3, -1, -0.5, 0, 0.5, 1, 3]]], [['y', f]]);
one('gelu_tanh_f64', 20, 'Gelu', { approximate: 'tanh' }, [['x', d, [2, 3]]], [['y', d]]);
one('gelu_f16', 20, 'Gelu', { approximate: 'tanh' }, [['x', h, [2, 3]]], [['y', h]]);

// LpPool.
const lp = (name, opset, x, attrs) => one(`lppool_${name}`, opset, 'LpPool', attrs, [['x', f, x]], [['y', f]]);
lp('p1', 11, [1, 2, 5, 5], { kernel_shape: [2, 2], p: 1 });
lp('p3', 11, [1, 1, 4, 4], { kernel_shape: [3, 3], p: 3, pads: [1, 1, 1, 1] });
lp('p2_stride', 11, [1, 1, 6], { kernel_shape: [2], strides: [2] });
lp('18_ceil', 18, [1, 1, 5, 5], { kernel_shape: [2, 2], strides: [2, 2], ceil_mode: 1 });
lp('18_ceil_pads', 18, [1, 2, 6], { kernel_shape: [3], strides: [2], pads: [1, 1], ceil_mode: 1, p: 1 });
lp('18_dil', 18, [1, 1, 6, 6], { kernel_shape: [2, 2], dilations: [2, 2], p: 4 });
lp('18_same_upper', 18, [1, 1, 5, 4], { kernel_shape: [2, 3], strides: [2, 2], auto_pad: 'SAME_UPPER' });
lp('18_same_lower', 18, [1, 1, 5, 4], { kernel_shape: [2, 3], strides: [2, 2], auto_pad: 'SAME_LOWER' });
lp('18_3d', 18, [1, 1, 3, 3, 3], { kernel_shape: [2, 2, 2], p: 2 });
lp('18_valid', 18, [1, 1, 5], { kernel_shape: [2], strides: [2], auto_pad: 'VALID', p: 3 });

// MaxUnpool.
one('maxunpool_basic', 11, 'MaxUnpool', { kernel_shape: [2, 2], strides: [2, 2] }, [['x', f, [1, 1, 2, 2]], K('i', i64, [1, 1, 2, 2], [5, 3, 8, 15])], [['y', f]]);
one('maxunpool_shape', 11, 'MaxUnpool', { kernel_shape: [2, 2], strides: [2, 2] }, [['x', f, [1, 1, 2, 2]], K('i', i64, [1, 1, 2, 2], [5, 3, 8, 24]), K('s', i64, [4], [1, 1, 5, 5])], [['y', f]]);
one('maxunpool_pads', 11, 'MaxUnpool', { kernel_shape: [3], strides: [2], pads: [1, 1] }, [['x', f, [1, 2, 3]], K('i', i64, [1, 2, 3], [0, 2, 4, 1, 3, 4])], [['y', f]]);
one('maxunpool_dup', 11, 'MaxUnpool', { kernel_shape: [2], strides: [1] }, [['x', f, [1, 1, 3]], K('i', i64, [1, 1, 3], [1, 1, 3])], [['y', f]]);

// SpaceToDepth, DepthToSpace.
one('s2d_b2', 13, 'SpaceToDepth', { blocksize: 2 }, [['x', f, [1, 2, 4, 6]]], [['y', f]]);
one('s2d_b1', 13, 'SpaceToDepth', { blocksize: 1 }, [['x', f, [1, 2, 2, 2]]], [['y', f]]);
one('s2d_b3_f64', 13, 'SpaceToDepth', { blocksize: 3 }, [['x', d, [2, 1, 3, 6]]], [['y', d]]);
one('d2s_dcr', 13, 'DepthToSpace', { blocksize: 2 }, [['x', f, [1, 8, 2, 3]]], [['y', f]]);
one('d2s_crd', 13, 'DepthToSpace', { blocksize: 2, mode: 'CRD' }, [['x', f, [2, 8, 2, 1]]], [['y', f]]);
one('d2s_b1', 13, 'DepthToSpace', { blocksize: 1, mode: 'CRD' }, [['x', f, [1, 3, 2, 2]]], [['y', f]]);
one('d2s_11', 11, 'DepthToSpace', { blocksize: 3, mode: 'DCR' }, [['x', f, [1, 9, 1, 2]]], [['y', f]]);

// ScatterElements, ScatterND.
for (const red of ['none', 'add', 'mul', 'max', 'min']) {
  const dup = red !== 'none';
  one(`scatterel_${red}`, 18, 'ScatterElements', { axis: 1, reduction: red }, [['x', f, [2, 4]], K('i', i64, [2, 3], dup ? [0, 0, -1, 3, 3, 1] : [0, 2, -1, 3, 0, 1]), ['u', f, [2, 3]]], [['y', f]]);
  one(`scatterel_${red}_negaxis_int`, 18, 'ScatterElements', { axis: -2, reduction: red }, [['x', i32, [3, 2]], K('i', i64, [2, 2], dup ? [1, 1, 1, 1] : [2, 0, 1, 1]), ['u', i32, [2, 2]]], [['y', i32]]);
  one(`scatternd_${red}`, 18, 'ScatterND', { reduction: red }, [['x', f, [3, 2, 2]], K('i', i64, [3, 1], dup ? [1, 1, -1] : [2, 0, 1]), ['u', f, [3, 2, 2]]], [['y', f]]);
  one(`scatternd_${red}_scalar_idx`, 18, 'ScatterND', { reduction: red }, [['x', i64, [2, 3]], K('i', i64, [4, 2], dup ? [0, 1, 0, 1, 1, 2, 0, 1] : [0, 1, 1, 0, 1, 2, 0, 0]), ['u', i64, [4]]], [['y', i64]]);
}
one('scatterel_16_add', 16, 'ScatterElements', { axis: 0, reduction: 'add' }, [['x', f, [3]], K('i', i64, [4], [0, 0, 2, 0]), ['u', f, [4]]], [['y', f]]);
one('scatterel_empty_idx', 18, 'ScatterElements', { axis: 0 }, [['x', f, [3, 2]], K('i', i64, [0, 2], []), ['u', f, [0, 2]]], [['y', f]]);
one('scatternd_empty_idx', 18, 'ScatterND', {}, [['x', f, [3, 2]], K('i', i64, [0, 1], []), ['u', f, [0, 2]]], [['y', f]]);
one('scatternd_full_idx', 16, 'ScatterND', { reduction: 'mul' }, [['x', f, [2, 2]], K('i', i64, [2, 2, 2], [0, 0, 1, 1, 0, 0, 1, 0]), ['u', f, [2, 2]]], [['y', f]]);
one('scatterel_bool', 18, 'ScatterElements', { axis: 0 }, [['x', b, [4]], K('i', i64, [2], [3, 0]), ['u', b, [2], [1, 0]]], [['y', b]]);

// GatherND.
const gnd = (name, x, idxShape, idx, bd, dt = f) => one(`gathernd_${name}`, 13, 'GatherND', { batch_dims: bd }, [['x', dt, x], K('i', i64, idxShape, idx)], [['y', dt]]);
gnd('bd1', [2, 3, 4], [2, 2, 1], [1, -1, 0, 2], 1);
gnd('bd1_full', [2, 3, 4], [2, 1, 2], [1, 3, 2, -4], 1);
gnd('bd2', [2, 2, 3, 2], [2, 2, 1], [2, 0, 1, -1], 2);
gnd('bd2_empty_last', [2, 2, 3], [2, 2, 0], [], 2);
gnd('bd0_empty_last', [2, 3], [2, 0], [], 0);
gnd('bd1_empty_last', [2, 3, 2], [2, 1, 0], [], 1);
gnd('bd0_neg', [3, 3], [2, 2], [-1, -1, 0, 2], 0, i64);
gnd('bd1_scalar_out', [3, 2], [3, 1], [1, 0, 1], 1);
gnd('bd1_int', [2, 2, 2], [2, 3, 1], [0, 1, 0, 1, 1, 0], 1, i32);

// Where, Expand.
one('where_scalar_all', 9, 'Where', {}, [['c', b, [], [1]], ['a', f, []], ['b', f, [2, 3]]], [['y', f]]);
one('where_empty', 9, 'Where', {}, [['c', b, [0, 1]], ['a', f, [1, 3]], ['b', f, []]], [['y', f]]);
one('where_bcast3', 16, 'Where', {}, [['c', b, [2, 1, 1]], ['a', i64, [1, 3, 1]], ['b', i64, [1, 1, 4]]], [['y', i64]]);
one('where_uint8', 16, 'Where', {}, [['c', b, [3]], ['a', 'uint8', [3]], ['b', 'uint8', [1]]], [['y', 'uint8']]);
one('expand_scalar', 13, 'Expand', {}, [['x', f, []], K('s', i64, [2], [2, 3])], [['y', f]]);
one('expand_to_empty', 13, 'Expand', {}, [['x', f, [1, 3]], K('s', i64, [2], [0, 1])], [['y', f]]);
one('expand_smaller_shape', 13, 'Expand', {}, [['x', f, [2, 1, 3]], K('s', i64, [2], [4, 1])], [['y', f]]);
one('expand_ones', 13, 'Expand', {}, [['x', i32, [3]], K('s', i64, [3], [1, 1, 1])], [['y', i32]]);
one('expand_empty_shape', 13, 'Expand', {}, [['x', f, [2, 2]], K('s', i64, [0], [])], [['y', f]]);

// Size, Shape.
one('size_empty', 13, 'Size', {}, [['x', f, [3, 0, 2]]], [['y', i64]]);
one('size_scalar', 13, 'Size', {}, [['x', f, []]], [['y', i64]]);
const shp = (name, x, attrs) => one(`shape_${name}`, 15, 'Shape', attrs, [['x', f, x]], [['y', i64]]);
shp('start1', [2, 3, 4, 5], { start: 1 });
shp('end_neg', [2, 3, 4, 5], { end: -1 });
shp('start_neg_end', [2, 3, 4, 5], { start: -3, end: 3 });
shp('start_big', [2, 3, 4], { start: 10 });
shp('end_small', [2, 3, 4], { end: -10 });
shp('start_gt_end', [2, 3, 4], { start: 2, end: 1 });
shp('start_neg_big', [2, 3, 4], { start: -10, end: 2 });
shp('scalar', [], { start: 0 });
shp('21_empty_dim', [0, 3], { start: -1 });

// Cast.
const castData = {
  float32: [0, -0, 1.5, -1.5, 2.5, -2.5, 127.9, -128.9, 255.5, 65504, 65520, 1e10, -1e10, 3.4e38, 1e-8, 0.49999997, Infinity, -Infinity, NaN],
  float64: [0, -0, 1.5, -1.5, 2.5, -2.5, 127.9, -128.9, 255.5, 65504, 65520, 1e10, -1e10, 1e300, 1e-8, 3.4028235677973366e38, Infinity, -Infinity, NaN],
  float16: [0, -0, 1.5, -1.5, 2.5, -2.5, 127.9, -128.9, 255.5, 65504, -65504, 6e-8, 1e-4, 0.1, 1000, -1000, Infinity, -Infinity, NaN],
  int8: [0, 1, -1, 127, -128, 100, -100],
  uint8: [0, 1, 255, 128, 127, 200, 10],
  int16: [0, 1, -1, 32767, -32768, 2049, -2049],
  uint16: [0, 1, 65535, 32768, 2049, 4097, 10],
  int32: [0, 1, -1, 2147483647, -2147483648, 16777217, -16777217],
  uint32: [0, 1, 4294967295, 2147483648, 16777217, 65535, 65536],
  int64: [0, 1, -1, '9223372036854775807', '-9223372036854775808', '9007199254740993', '-4294967296'],
  uint64: [0, 1, '18446744073709551615', '9223372036854775808', '9007199254740993', '4294967296', 65535],
  bool: [0, 1, 1, 0],
};
const ints = ['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64'];
const toEnum = { float32: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6, int64: 7, bool: 9, float16: 10, float64: 11, uint32: 12, uint64: 13 };
for (const from of Object.keys(castData)) for (const to of Object.keys(toEnum)) {
  if (from === to) continue;
  // Floats out of an integer type's range are documented as saturating
  // (onnxruntime gives the x86 conversion): keep those to in-range values.
  let data = castData[from];
  if (from.startsWith('float') && ints.includes(to)) data = [0, -0, 1.5, -1.5, 2.5, -2.5, 0.9, -0.9, 100.7, -100.7, 127, 0.49999997].filter((v) => !(to.startsWith('u') && v < 0) || v > -1);
  one(`cast_${from}_to_${to}`, 19, 'Cast', { to: toEnum[to] }, [['x', from, [data.length], data]], [['y', to]]);
}
// bfloat16: through a graph.
const bfIn = [0, -0, 1.5, -2.5, 3.0039062, 65504, 1e30, -1e-30, 3.4e38, Infinity, -Infinity, NaN, 1.00390625, 1.01171875, 257, 32769];
cases.push({ name: 'p2_cast_bf16_roundtrip_f32', opset: 19, inputs: [['x', f, [bfIn.length], bfIn]], outputs: [['y', f]],
  nodes: [{ op: 'Cast', inputs: ['x'], outputs: ['t'], attrs: { to: 16 } }, { op: 'Cast', inputs: ['t'], outputs: ['y'], attrs: { to: 1 } }] });
cases.push({ name: 'p2_cast_bf16_roundtrip_f64', opset: 19, inputs: [['x', d, [bfIn.length], bfIn]], outputs: [['y', d]],
  nodes: [{ op: 'Cast', inputs: ['x'], outputs: ['t'], attrs: { to: 16 } }, { op: 'Cast', inputs: ['t'], outputs: ['y'], attrs: { to: 11 } }] });
for (const to of ['int32', 'int64', 'uint8', 'bool', 'float16']) {
  // (negative values to uint8 saturate in pipert, a documented departure)
  const data = to === 'uint8' ? [0, -0, 1.5, 0.5, 2.5, 100.5, 0.4, 127] : [0, -0, 1.5, -2.5, 2.5, 100.5, 0.4, 127];
  cases.push({ name: `p2_cast_bf16_to_${to}`, opset: 19, inputs: [K('x', 'bfloat16', [8], data)], outputs: [['y', to]],
    nodes: [{ op: 'Cast', inputs: ['x'], outputs: ['y'], attrs: { to: toEnum[to] } }] });
}
for (const from of ['int32', 'int64', 'uint64', 'float16', 'bool']) {
  cases.push({ name: `p2_cast_${from}_to_bf16`, opset: 19, inputs: [['x', from, [castData[from].length], castData[from]]], outputs: [['y', f]],
    nodes: [{ op: 'Cast', inputs: ['x'], outputs: ['t'], attrs: { to: 16 } }, { op: 'Cast', inputs: ['t'], outputs: ['y'], attrs: { to: 1 } }] });
}

// QuantizeLinear / DequantizeLinear.
one('dql_21_int4', 21, 'DequantizeLinear', {}, [K('x', 'int4', [8], [-8, -7, -1, 0, 1, 3, 7, 5]), K('s', f, [], [0.5]), K('z', 'int4', [], [-2])], [['y', f]]);
one('dql_21_uint4', 21, 'DequantizeLinear', {}, [K('x', 'uint4', [7], [0, 1, 7, 8, 15, 3, 9]), K('s', f, [], [0.25]), K('z', 'uint4', [], [8])], [['y', f]]);
one('dql_21_int4_axis', 21, 'DequantizeLinear', { axis: 0 }, [K('x', 'int4', [3, 3], [-8, 7, 1, 2, 3, -4, 0, 5, -6]), K('s', f, [3], [0.5, 2, 0.1]), K('z', 'int4', [3], [1, -1, 0])], [['y', f]]);
one('dql_21_uint4_block', 21, 'DequantizeLinear', { axis: 1, block_size: 2 }, [K('x', 'uint4', [2, 5], [0, 1, 15, 8, 3, 4, 5, 6, 7, 9]), K('s', f, [2, 3], [0.5, 2, 0.1, 1, 3, 0.25]), K('z', 'uint4', [2, 3], [8, 0, 15, 1, 2, 3])], [['y', f]]);
one('dql_21_int8_axis_neg', 21, 'DequantizeLinear', { axis: -1 }, [['x', 'int8', [2, 3]], K('s', f, [3], [0.5, 2, 0.1]), K('z', 'int8', [3], [1, -128, 127])], [['y', f]]);
one('dql_13_int32', 13, 'DequantizeLinear', {}, [['x', i32, [4], [2147483647, -2147483648, 0, 5]], K('s', f, [], [0.5])], [['y', f]]);
one('dql_19_f16_scale', 19, 'DequantizeLinear', { axis: 1 }, [['x', 'uint8', [2, 2]], K('s', h, [2], [0.5, 0.1]), K('z', 'uint8', [2], [128, 3])], [['y', h]]);
one('ql_21_axis_neg', 21, 'QuantizeLinear', { axis: -2 }, [['x', f, [2, 3, 2]], K('s', f, [3], [0.01, 0.5, 2]), K('z', 'int8', [3], [0, -5, 127])], [['y', 'int8']]);
one('ql_21_block', 21, 'QuantizeLinear', { axis: 1, block_size: 3 }, [['x', f, [2, 5]], K('s', f, [2, 2], [0.01, 0.5, 2, 0.1]), K('z', 'uint8', [2, 2], [0, 5, 255, 128])], [['y', 'uint8']]);
one('ql_21_ties', 21, 'QuantizeLinear', {}, [['x', f, [8], [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 1000, -1000]], K('s', f, [], [1]), K('z', 'int16', [], [0])], [['y', 'int16']]);
one('ql_21_uint16', 21, 'QuantizeLinear', { output_dtype: 4 }, [['x', f, [5], [0, 1, -1, 70000, 3.5]], K('s', f, [], [1])], [['y', 'uint16']]);
one('ql_13_nozp', 13, 'QuantizeLinear', {}, [['x', f, [5], [0, 1, -1, 300, 2.5]], K('s', f, [], [1])], [['y', 'uint8']]);
one('ql_19_f16', 19, 'QuantizeLinear', {}, [['x', h, [4], [0.5, 1.5, -3.5, 200]], K('s', h, [], [0.5]), K('z', 'int8', [], [1])], [['y', 'int8']]);

// Extremes: int64 attribute and input limits, non-finite values.
const I64MAX = '9223372036854775807', I64MIN = '-9223372036854775808';
for (const [n, k] of [['max', I64MAX], ['min', I64MIN], ['big', '4294967296'], ['negbig', '-4294967297']]) {
  for (const up of [0, 1]) one(`trilu_k${n}_${up ? 'up' : 'lo'}`, 14, 'Trilu', { upper: up }, [['x', f, [3, 4]], K('k', i64, [], [k])], [['y', f]]);
}
one('shape_start_min', 15, 'Shape', { start: -4611686018427387904, end: 2 }, [['x', f, [2, 3, 4]]], [['y', i64]]);
one('lppool_p7', 11, 'LpPool', { kernel_shape: [2], p: 7 }, [['x', f, [1, 1, 5], [-1, 2, -0.5, 1.5, -2]]], [['y', f]]);
one('lppool_p1_neg', 18, 'LpPool', { kernel_shape: [3], p: 1, pads: [2, 2], strides: [2], ceil_mode: 1 }, [['x', f, [1, 2, 6]]], [['y', f]]);
const nonfin = [NaN, Infinity, -Infinity, 0, -0, 1e-40, -1e38, 88.8];
for (const op of ['Celu', 'Mish', 'Shrink', 'Softsign', 'Elu', 'Selu', 'HardSwish', 'Softplus']) {
  const opset = op === 'Mish' ? 18 : op === 'HardSwish' ? 14 : op === 'Celu' ? 12 : 13;
  one(`nonfinite_${op.toLowerCase()}`, opset, op, {}, [['x', f, [8], nonfin]], [['y', f]]);
}
one('nonfinite_gelu', 20, 'Gelu', {}, [['x', f, [8], nonfin]], [['y', f]]);
one('nonfinite_gelu_tanh', 20, 'Gelu', { approximate: 'tanh' }, [['x', f, [8], nonfin]], [['y', f]]);
one('celu_alpha_neg', 12, 'Celu', { alpha: -0.5 }, [['x', f, [6], [-1.2, -1, -0.1, 0, 1, 3]]], [['y', f]]);
for (const to of ['bool', 'float16', 'float64']) {
  one(`cast_nonfinite_f32_to_${to}`, 19, 'Cast', { to: toEnum[to] }, [['x', f, [8], [NaN, Infinity, -Infinity, -0, 1e-45, 65519.99, -65520, 5.96e-8]]], [['y', to]]);
}
one('cast_nonfinite_f16_to_bool', 19, 'Cast', { to: 9 }, [['x', h, [5], [NaN, Infinity, -0, 6e-8, -Infinity]]], [['y', b]]);
one('cast_f64_to_f32_round', 19, 'Cast', { to: 1 }, [['x', d, [6], [1.0000000596046448, 1.0000000596046449, 3.4028235677973366e38, 3.4028235677973362e38, 1e-46, -7.006492321624087e-46]]], [['y', f]]);
one('cast_f32_to_f16_subnormal', 19, 'Cast', { to: 10 }, [['x', f, [6], [2.980232238769531e-8, 2.9802326e-8, 8.940697e-8, 6.1035156e-5, 65504, 65519]]], [['y', h]]);
one('cast_i64_to_f16', 19, 'Cast', { to: 10 }, [['x', i64, [5], [65504, 65519, 65520, 2049, I64MIN]]], [['y', h]]);
one('cast_u64_to_f32_round', 19, 'Cast', { to: 1 }, [['x', 'uint64', [3], ['18446744073709551615', '16777217', '9223372311732682752']]], [['y', f]]);
one('cast_i64_to_f64_round', 19, 'Cast', { to: 11 }, [['x', i64, [3], ['9007199254740993', '-9007199254740995', I64MAX]]], [['y', d]]);
one('range_f32_many', 11, 'Range', {}, [K('s', f, [], [0]), K('l', f, [], [10]), K('d', f, [], [0.1])], [['y', f]]);
one('range_i64_neg_big', 11, 'Range', {}, [K('s', i64, [], ['9007199254740000']), K('l', i64, [], ['9007199254739990']), K('d', i64, [], [-3])], [['y', i64]]);
one('cumsum_f16', 14, 'CumSum', { reverse: 1 }, [['x', h, [2, 5]], K('a', i32, [], [-1])], [['y', h]]);
one('cumsum_i32_axis_i32', 14, 'CumSum', { exclusive: 1 }, [['x', i32, [3, 2]], K('a', i32, [], [0])], [['y', i32]]);
es('upper_implicit', 'aB,Bc', [[2, 3], [3, 2]]);
es('upper_mixed_sort', 'bA,Ab', [[2, 3], [3, 2]]);
es('scalar_operand', ',ij->ij', [[], [2, 3]]);
one('det_nan', 11, 'Det', {}, [['x', f, [2, 2, 2], [NaN, 1, 2, 3, Infinity, 1, 1, 1]]], [['y', f]]);
one('det_empty_batch', 11, 'Det', {}, [['x', f, [0, 3, 3]]], [['y', f]]);
one('eyelike_kmax', 9, 'EyeLike', { k: 4611686018427387904 }, [['x', f, [2, 2]]], [['y', f]]);
one('scatternd_dup_none', 16, 'ScatterND', {}, [['x', f, [4]], K('i', i64, [1, 1], [2]), ['u', f, [1]]], [['y', f]]);
one('gathernd_bd1_neg_last', 13, 'GatherND', { batch_dims: 1 }, [['x', f, [2, 3]], K('i', i64, [2, 1], [-3, -1])], [['y', f]]);
one('where_f16_bcast', 16, 'Where', {}, [['c', b, [2, 1]], ['a', h, [3]], ['b', h, [2, 3]]], [['y', h]]);
one('size_15', 15, 'Size', {}, [['x', i64, [2, 5, 1]]], [['y', i64]]);
one('dql_21_int4_odd_axis1', 21, 'DequantizeLinear', { axis: 1 }, [K('x', 'int4', [3, 3], [-8, 7, 1, 2, 3, -4, 0, 5, -6]), K('s', f, [3], [0.5, 2, 0.1]), K('z', 'int4', [3], [7, -8, 0])], [['y', f]]);
one('dql_21_uint4_noz', 21, 'DequantizeLinear', {}, [K('x', 'uint4', [5], [0, 15, 1, 14, 8]), K('s', f, [], [3])], [['y', f]]);
one('ql_21_u16_block_neg_axis', 21, 'QuantizeLinear', { axis: -1, block_size: 2 }, [['x', f, [2, 4]], K('s', f, [2, 2], [0.001, 0.01, 0.1, 1]), K('z', 'uint16', [2, 2], [0, 65535, 32768, 1])], [['y', 'uint16']]);

// More geometry.
// (a NaN point samples NaN in pipert, deliberately: onnxruntime's result
// depends on the architecture's float-to-integer conversion)
// (so does an infinite one; far finite points instead)
const grid5 = [-1, -1, 1, 1, 0.5, -0.25, 0.3, 0, 1e6, 0.5, -3e5, -1, 0.999999, 1.000001];
for (const pm of ['zeros', 'border', 'reflection']) {
  gs(`20_far_${pm}`, 20, [1, 1, 3, 3], [1, 1, 7, 2], { mode: 'linear', padding_mode: pm }, grid5);
}
gs('20_cubic_zeros_edge', 20, [1, 2, 2, 2], [1, 2, 2, 2], { mode: 'cubic', padding_mode: 'zeros', align_corners: 1 }, [-1, -1, 1, 1, 0.2, -0.7, 1.3, 0.9]);
gs('20_5d_empty_out', 20, [1, 1, 2, 2, 2], [1, 0, 2, 2, 3], { mode: 'linear' }, []);
gs('16_batch2', 16, [2, 1, 3, 2], [2, 2, 1, 2], { mode: 'nearest', padding_mode: 'reflection' }, [1.5, -1.5, 0.5, 0.5, -2.5, 3, 0, 0]);
col2im('strides_dil_pads', [1, 4, 6], [5, 6], [2, 2], { strides: [2, 2], dilations: [2, 1], pads: [1, 0, 0, 1] });
col2im('batch_channels', [2, 8, 4], [3, 3], [2, 2]);
ccp('crop_and_pad_odd', [4, 5], [7, 2]);
ccp('neg_axis_only', [2, 3, 6], [3], { axes: [-1] });
mel('low_high_close', 6, 64, 16000, 1000, 1200);
mel('lower_nonzero_odd_dft', 3, 9, 22050, 500, 11000);
dft('20_inverse_onesided_axis0', 20, [3, 2, 2], { inverse: 1, onesided: 1 }, 4, 0);
dft('20_len_trunc_onesided', 20, [1, 9, 1], { onesided: 1 }, 4, -2);
dft('17_len_pad_complex_inverse', 17, [2, 3, 2], { inverse: 1 }, 5);
stft('win_and_len', 17, [2, 10, 1], 3, 5, 5, { onesided: 1 });
stft('step_big', 17, [1, 10, 1], 7, 4, undefined, { onesided: 0 });
dc('offsets_far', [1, 1, 3, 3], [1, 1, 2, 2], [1, 8, 2, 2], {}, { b: 1 });
dc('offgroup2_group1', [1, 2, 4, 4], [2, 2, 3, 3], [1, 36, 2, 2], { offset_group: 2 }, { m: [1, 18, 2, 2] });
rope('4d_interleaved_nopos', [1, 2, 2, 8], [1, 2, 4], undefined, { interleaved: 1 });
rope('3d_nopos_partial', [2, 2, 8], [2, 2, 1], undefined, { num_heads: 2, rotary_embedding_dim: 2 });
att('23_3d_past_scale', 23, { q_num_heads: 2, kv_num_heads: 2, scale: 0.125 }, [...qkv([1, 2, 4], [1, 1, 4], [1, 1, 6]), ['m', f, [2, 4]], ['pk', f, [1, 2, 3, 2]], ['pv', f, [1, 2, 3, 3]]], ['q', 'k', 'v', 'm', 'pk', 'pv'], 3);
att('23_softcap_mask_gqa', 23, { softcap: 0.7 }, [...qkv([2, 4, 3, 2], [2, 2, 5, 2], [2, 2, 5, 3]), ['m', b, [2, 1, 3, 5]]], ['q', 'k', 'v', 'm']);
att('23_qkmode1_gqa', 23, { qk_matmul_output_mode: 1 }, [...qkv([1, 4, 2, 2], [1, 2, 3, 2], [1, 2, 3, 2]), ['m', b, [2, 3], [1, 1, 0, 1, 0, 1]]], ['q', 'k', 'v', 'm', '', ''], 4);
att('23_causal_q1_past', 23, { is_causal: 1 }, [...qkv([1, 1, 1, 4], [1, 1, 1, 4], [1, 1, 1, 4]), ['pk', f, [1, 1, 4, 4]], ['pv', f, [1, 1, 4, 4]]], ['q', 'k', 'v', '', 'pk', 'pv'], 3);
att('24_mask_float_bcast_heads', 24, {}, [...qkv([2, 3, 2, 4], [2, 3, 3, 4], [2, 3, 3, 4]), ['m', f, [1, 1, 2, 3], [0, -Infinity, 1, -2, 0, -Infinity]]], ['q', 'k', 'v', 'm']);
gn('21_eps_big', 21, [2, 4, 3], 2, { epsilon: { f: 10 } });
gn('18_rank5', 18, [1, 4, 2, 2, 2], 2);
rms('scale_full_rank', [2, 3], [2, 3], { axis: -1 });
rms('eps', [3, 4], [4], { epsilon: 0.5 });
uq('axis0_f_sorted_ties', [3, 2], f, [1, -0, 1, 0, -1, 2], { axis: 0 });
uq('unsorted_3d_axis2', [2, 2, 3], i64, [1, 2, 1, 3, 4, 3, 5, 6, 5, 7, 8, 7], { axis: 2, sorted: 0 });
nms('iou_eq', [[1, 2, 4], [0, 0, 2, 2, 1, 0, 3, 2]], [[1, 1, 2], [0.9, 0.8]], 5, 1 / 3);
nms('neg_thresh', [[1, 3, 4], [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]], [[1, 1, 3], [-0.5, 0.2, -0.1]], 5, 0.5, -0.2);
nms('zero_area', [[1, 3, 4], [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1]], [[1, 1, 3], [0.9, 0.8, 0.7]], 5, 0);
one('maxunpool_3d', 11, 'MaxUnpool', { kernel_shape: [2, 2, 2], strides: [2, 2, 2] }, [['x', f, [1, 1, 1, 1, 2]], K('i', i64, [1, 1, 1, 1, 2], [0, 15])], [['y', f]]);
one('maxunpool_shape_bigger', 11, 'MaxUnpool', { kernel_shape: [2], strides: [2] }, [['x', f, [1, 1, 2]], K('i', i64, [1, 1, 2], [1, 6]), K('s', i64, [3], [1, 1, 7])], [['y', f]]);
one('revseq_len_eq_time', 10, 'ReverseSequence', { batch_axis: 1, time_axis: 0 }, [['x', f, [3, 2, 2]], K('l', i64, [2], [3, 1])], [['y', f]]);
one('compress_axis_neg_3d', 11, 'Compress', { axis: -2 }, [['x', i64, [2, 3, 2]], K('c', b, [2], [0, 1])], [['y', i64]]);
one('d2s_crd_big', 13, 'DepthToSpace', { blocksize: 3, mode: 'CRD' }, [['x', f, [1, 18, 1, 2]]], [['y', f]]);
one('s2d_rect', 13, 'SpaceToDepth', { blocksize: 2 }, [['x', f, [2, 1, 2, 8]]], [['y', f]]);

// Other dtypes exporters write (float16 models, small integers).
for (const red of ['add', 'mul', 'max', 'min']) {
  // (onnxruntime has float16 ScatterElements with max and min only)
  if (red === 'max' || red === 'min') one(`scatterel_${red}_f16`, 18, 'ScatterElements', { axis: 0, reduction: red }, [['x', h, [3, 2]], K('i', i64, [2, 2], [1, 1, 1, 0]), ['u', h, [2, 2]]], [['y', h]]);
  one(`scatternd_${red}_i8`, 18, 'ScatterND', { reduction: red }, [['x', 'int8', [3], [100, -100, 5]], K('i', i64, [3, 1], [0, 0, 1]), ['u', 'int8', [3], [100, 2, -100]]], [['y', 'int8']]);
  one(`scatterel_${red}_u8_i32idx`, 18, 'ScatterElements', { axis: 0, reduction: red }, [['x', 'uint8', [3], [200, 1, 5]], K('i', i32, [3], [0, 0, 2]), ['u', 'uint8', [3], [100, 2, 255]]], [['y', 'uint8']]);
}
one('cumsum_f64_excl', 14, 'CumSum', { exclusive: 1 }, [['x', d, [4]], K('a', i64, [], [0])], [['y', d]]);
one('einsum_f16', 12, 'Einsum', { equation: 'ij,jk->ik' }, [['x0', h, [2, 3]], ['x1', h, [3, 2]]], [['y', h]]);
one('einsum_f64_diag', 12, 'Einsum', { equation: 'ii->' }, [['x0', d, [3, 3]]], [['y', d]]);
one('einsum_i32', 12, 'Einsum', { equation: 'i,i' }, [['x0', i32, [4]], ['x1', i32, [4]]], [['y', i32]]);
one('trilu_f16', 14, 'Trilu', {}, [['x', h, [2, 3]]], [['y', h]]);
one('range_i16', 11, 'Range', {}, [K('s', 'int16', [], [10]), K('l', 'int16', [], [-10]), K('d', 'int16', [], [-7])], [['y', 'int16']]);
one('range_f64_neg', 11, 'Range', {}, [K('s', d, [], [1]), K('l', d, [], [-1]), K('d', d, [], [-0.3])], [['y', d]]);
one('mod_f16_fmod1_neg', 13, 'Mod', { fmod: 1 }, [['x', h, [4], [-7.5, 7.5, -0, 1]], ['y', h, [4], [-2, 2, 3, -0.25]]], [['z', h]]);
one('mod_i8_bcast', 13, 'Mod', {}, [['x', 'int8', [2, 3], [-7, 7, -8, 8, 0, 127]], ['y', 'int8', [3], [3, -3, -128]]], [['z', 'int8']]);
one('mod_u16', 13, 'Mod', {}, [['x', 'uint16', [4], [65535, 7, 0, 300]], ['y', 'uint16', [4], [7, 65535, 3, 256]]], [['z', 'uint16']]);
one('gathernd_i8', 13, 'GatherND', {}, [['x', 'int8', [2, 2]], K('i', i64, [2, 1], [1, 0])], [['y', 'int8']]);
one('gathernd_bool_bd1', 13, 'GatherND', { batch_dims: 1 }, [['x', b, [2, 3]], K('i', i64, [2, 1], [2, 0])], [['y', b]]);
one('expand_bool', 13, 'Expand', {}, [['x', b, [3, 1]], K('s', i64, [3], [2, 1, 4])], [['y', b]]);
one('compress_bool', 11, 'Compress', { axis: 0 }, [['x', b, [4]], K('c', b, [3], [1, 0, 1])], [['y', b]]);
one('revseq_f16', 10, 'ReverseSequence', {}, [['x', h, [3, 2]], K('l', i64, [2], [2, 3])], [['y', h]]);
one('eyelike_f16', 9, 'EyeLike', { k: 1 }, [['x', h, [2, 3]]], [['y', h]]);
one('eyelike_u64', 9, 'EyeLike', { dtype: 13 }, [['x', f, [2, 2]]], [['y', 'uint64']]);
one('depth2space_f16', 13, 'DepthToSpace', { blocksize: 2, mode: 'CRD' }, [['x', h, [1, 4, 1, 2]]], [['y', h]]);
one('shrink_f16', 9, 'Shrink', { lambd: 0.25, bias: 0.1 }, [['x', h, [5]]], [['y', h]]);
one('shrink_f64', 9, 'Shrink', { lambd: 0.25, bias: 0.1 }, [['x', d, [5]]], [['y', d]]);
one('lppool_f16', 18, 'LpPool', { kernel_shape: [2, 2] }, [['x', h, [1, 1, 3, 3]]], [['y', h]]);
one('det_f16', 11, 'Det', {}, [['x', h, [2, 2]]], [['y', h]]);
one('groupnorm_21_f16', 21, 'GroupNormalization', { num_groups: 2 }, [['x', h, [1, 4, 3]], ['s', h, [4]], ['b', h, [4]]], [['y', h]]);
one('rms_f16', 23, 'RMSNormalization', {}, [['x', h, [2, 4]], ['s', h, [4]]], [['y', h]]);
one('rms_f64', 23, 'RMSNormalization', {}, [['x', d, [2, 4]], ['s', d, [4]]], [['y', d]]);
one('unique_f64_axis', 11, 'Unique', { axis: 0 }, [['x', d, [3, 2], [1, 2, 0, 1, 1, 2]]], [['y', d], ['idx', i64], ['inv', i64], ['cnt', i64]]);
one('bitwiseand_bool_like_u8', 18, 'BitwiseXor', {}, [['a', 'uint8', []], ['b', 'uint8', [4]]], [['c', 'uint8']]);

// A model whose opset_import lists the default domain twice: onnxruntime
// follows the last entry ("ai.onnx" naming the default domain too).
// Softmax tells the versions apart: over axis 1 alone from 13, over the
// axes from 1 on, flattened, before.
const dupSoftmax = (name, opset, domains) => cases.push({ name: `p2_opset_dup_${name}`, opset, domains, op: 'Softmax', attrs: { axis: 1 },
  inputs: [['x', f, [2, 3, 4]]], outputs: [['y', f]] });
dupSoftmax('13_then_11', 13, { '': 11 });
dupSoftmax('11_then_13', 11, { '': 13 });
dupSoftmax('13_then_alias_11', 13, { 'ai.onnx': 11 });

module.exports = cases;
