// Cases for gen.js (the format of cases.js): edges where pipert once
// differed from onnxruntime, and neighbouring edges that agree.
//   - OneHot with float indices: an index (plus depth when negative,
//     added in float32 for float32 and float16 indices) matches a position
//     only when it equals it exactly, so 1.5, 0.9 or -1.2 match none;
//     whole-number float indices select as integers do.
//   - RNN, GRU and LSTM with a sequence length of 0 in sequence_lens:
//     that batch entry's Y_h (and Y_c) are zero, whatever initial_h (and
//     initial_c) hold, in every direction; without initial states too.
//   - RoiAlign on float32: the sampling coordinates are computed in
//     float32, so a sample that lands exactly on the image's edge (or on
//     −1) in float32 is kept where float64 arithmetic would drop it (and
//     the reverse), and an adaptive grid takes ⌈size/bins⌉ in float32.
const f = 'float32', i64 = 'int64';
const cases = [];
const K = (name, dtype, shape, data) => [name, dtype, shape, data, true];

// OneHot: indices (a graph input), then depth and values (initializers).
const oneHot = (name, opset, idx, depth, values, attrs = {}) => cases.push({ name: `onehot_fidx_${name}`, opset, op: 'OneHot', attrs,
  inputs: [idx, K('depth', depth[0], [], [depth[1]]), K('values', values[0], [2], values[1])], outputs: [['y', values[0]]] });
const frac = [0, 1.5, -1, 0.9, -1.2, 2.5, 2, -0.5, 1e-7, -2.9999998, 3, -4];
oneHot('11_f32_frac', 11, ['i', f, [12], frac], [i64, 3], [i64, [0, 5]]);
oneHot('11_f32_frac_float_out', 11, ['i', f, [3], [0, 1.5, -1]], [f, 3], [f, [0, 5]]);
oneHot('9_f32_frac', 9, ['i', f, [12], frac], [i64, 3], [i64, [-1, 7]]);
oneHot('11_f32_frac_axis0', 11, ['i', f, [2, 3], [0.5, 1, -1, 2.0000002, -0.0000001, -2]], [i64, 3], [i64, [0, 1]], { axis: 0 });
oneHot('11_f16_frac', 11, ['i', 'float16', [12], frac], [i64, 3], [i64, [0, 5]]);
// -1.5 + 1026 is 1024.5 in float32, no position (in float16 it would
// round to 1024).
oneHot('11_f16_depth1026', 11, ['i', 'float16', [3], [-1.5, 1024, -2]], [i64, 1026], [i64, [0, 1]]);
// Whole-number float indices, in and out of range.
oneHot('11_f32_whole', 11, ['i', f, [8], [0, 1, 2, -1, -2, -3, 3, -4]], [i64, 3], [i64, [0, 5]]);
oneHot('11_f32_whole_float_out', 11, ['i', f, [2, 3], [2, 0, -3, 4, -1, 1]], [f, 4], [f, [0.5, -2]], { axis: 1 });
oneHot('11_f16_whole', 11, ['i', 'float16', [6], [0, 1, 2, -1, -3, 3]], [i64, 3], [i64, [0, 5]]);

// RNN, GRU, LSTM: X [3, batch, 2], hidden size 2, sequence_lens (int32)
// lens; init says which initial states are graph inputs ('h', 'c').
const G = { RNN: 1, GRU: 3, LSTM: 4 };
function recurrent(cell, opset, dir, lens, init) {
  const T = 3, B = lens.length, H = 2, I = 2, D = dir === 'bidirectional' ? 2 : 1, g = G[cell];
  const inputs = [['x', f, [T, B, I]], K('w', f, [D, g * H, I]), K('r', f, [D, g * H, H]), K('b', f, [D, 2 * g * H]), K('sl', 'int32', [B], lens)];
  const nodeInputs = ['x', 'w', 'r', 'b', 'sl', init.includes('h') ? 'h0' : ''];
  if (init.includes('h')) inputs.push(['h0', f, [D, B, H]]);
  if (cell === 'LSTM') {
    nodeInputs.push(init.includes('c') ? 'c0' : '');
    if (init.includes('c')) inputs.push(['c0', f, [D, B, H]]);
  }
  while (nodeInputs[nodeInputs.length - 1] === '') nodeInputs.pop();
  const outputs = [['Y', f], ['Y_h', f]];
  if (cell === 'LSTM') outputs.push(['Y_c', f]);
  const short = { forward: 'fwd', reverse: 'rev', bidirectional: 'bidir' }[dir];
  cases.push({ name: `seqlen0_${cell.toLowerCase()}_${opset}_${short}_${init || 'noinit'}`, opset, op: cell,
    attrs: { hidden_size: H, direction: dir }, inputs, nodeInputs, outputs });
}
for (const cell of ['RNN', 'GRU', 'LSTM']) {
  const all = cell === 'LSTM' ? 'hc' : 'h';
  recurrent(cell, 7, 'forward', [0, 3, 2], all);
  recurrent(cell, 14, 'reverse', [2, 0, 3], all);
  recurrent(cell, 22, 'bidirectional', [3, 0, 1], all);
  recurrent(cell, 7, 'bidirectional', [0, 0], all);
  recurrent(cell, 14, 'forward', [0, 3, 2], '');
  recurrent(cell, 7, 'bidirectional', [2, 0, 3], '');
}
recurrent('LSTM', 7, 'forward', [0, 3, 2], 'h');
recurrent('LSTM', 7, 'reverse', [3, 0, 1], 'c');

// RoiAlign: X [2, 2, 6, 7]; rois near the edges, each [x1, y1, x2, y2,
// batch index]: in one configuration or another, every one has a sample
// that float32 and float64 arithmetic put on different sides of y = −1,
// y = 6, x = −1 or x = 7 (or an adaptive grid of another size); the last
// three lie inside the image.
const rois = [
  [0, 0.4, 10, 3.3, 0], [0.3, 0, 3.1, 10, 0], [-2, 0.4, 0, 3.3, 0], [0.3, -2, 3.1, -0.5, 0], [0.3, -2, 3.1, 1, 0],
  [0.3, 2.5, 3.1, 10, 0], [-2, 0.4, 4, 3.3, 0], [-1.2, 0.4, 3.8, 3.3, 1], [0.3, -1.7, 3.1, 3.7, 0], [0.3, -2, 3.1, 0, 0],
  [0.3, -2, 3.1, 3.5, 0], [0.3, -1.2, 3.1, 3.8, 0], [-2, 0.4, 0.5, 3.3, 0], [-2, 0.4, 9, 3.3, 0], [-1.6, 0.4, 1, 3.3, 0],
  [-1.5, 0.4, 5.5, 3.3, 0], [0.3, -2, 3.1, 5.5, 0], [-1, 2, 3, 8, 1],
  [0, 0, 4, 3, 0], [1.2, 0.5, 5.5, 5.7, 1], [2, 1, 3, 2.5, 1],
];
function roiAlign(name, opset, dtype, attrs) {
  cases.push({ name: `roialign_edge_${name}`, opset, op: 'RoiAlign', attrs,
    inputs: [['x', dtype, [2, 2, 6, 7]], K('rois', dtype, [rois.length, 4], rois.flatMap((r) => r.slice(0, 4))), K('bi', i64, [rois.length], rois.map((r) => r[4]))],
    outputs: [['y', dtype]] });
}
for (const mode of ['avg', 'max']) {
  const base = { mode, output_height: 3, output_width: 2, sampling_ratio: 2, spatial_scale: 0.8 };
  roiAlign(`10_${mode}`, 10, f, base);
  roiAlign(`16_${mode}_output_half_pixel`, 16, f, { ...base, coordinate_transformation_mode: 'output_half_pixel' });
  roiAlign(`16_${mode}_half_pixel`, 16, f, base);
  // Adaptive grids: ⌈size/bins⌉ of a float32 size.
  roiAlign(`16_${mode}_adaptive`, 16, f, { mode, output_height: 3, output_width: 3, sampling_ratio: 0, spatial_scale: 0.6, coordinate_transformation_mode: 'output_half_pixel' });
  roiAlign(`10_${mode}_adaptive`, 10, f, { mode, output_height: 3, output_width: 2, sampling_ratio: 0, spatial_scale: 0.8 });
  // float64 computes in float64.
  roiAlign(`16_${mode}_double`, 16, 'float64', { ...base, coordinate_transformation_mode: 'output_half_pixel' });
}
module.exports = cases;
