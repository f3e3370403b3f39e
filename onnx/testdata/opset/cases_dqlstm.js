// Cases for gen.js (the format of cases.js): onnxruntime's contrib op
// DynamicQuantizeLSTM (domain com.microsoft), the LSTM its dynamic
// quantization writes: int8 or uint8 weights W [dirs, input, 4h] and R
// [dirs, h, 4h] (initializers, as a quantized model holds them) with
// scales and zero points per direction or per gate column; X, initial_h
// and initial_c graph inputs. onnxruntime runs on one thread: on more it
// may split a batch of several sequences, each part quantizing its own
// hidden rows, where pipert quantizes the batch whole.
const M = 'com.microsoft', f = 'float32';
const K = (name, dtype, shape, data) => [name, dtype, shape, data, true];
const cases = [];
// lcg returns deterministic numbers in [0, 1), seeded by s.
const lcg = (s) => () => { s = (Math.imul(s, 1103515245) + 12345) >>> 0; return s / 4294967296; };
// dq adds a case: T steps, batch B, input I, hidden H, direction dir,
// weights of dtype wdt with scales per column (col) or per direction,
// sequence_lens lens (or none), initial states init ('h', 'c'), peepholes
// peep, and Y omitted (noY).
function dq(name, { T = 4, B = 1, I = 3, H = 2, dir = 'forward', wdt = 'int8', col = false, lens = null, init = '', peep = false, noY = false, attrs = {} }) {
  const D = dir === 'bidirectional' ? 2 : 1, r = lcg(name.length * 7919 + T * 31 + B);
  const weights = (n) => Array.from({ length: n }, () => (wdt === 'int8' ? Math.floor(255 * r()) - 127 : Math.floor(256 * r())));
  const sn = col ? D * 4 * H : D, sshape = col ? [D, 4 * H] : [D];
  const scales = () => Array.from({ length: sn }, () => Math.fround(0.004 + 0.02 * r()));
  const zps = () => { const z = wdt === 'int8' ? 0 : 100 + Math.floor(56 * r()); return Array(sn).fill(z); };
  const inputs = [['x', f, [T, B, I]], K('w', wdt, [D, I, 4 * H], weights(D * I * 4 * H)), K('r', wdt, [D, H, 4 * H], weights(D * H * 4 * H)),
    K('b', f, [D, 8 * H], Array.from({ length: D * 8 * H }, () => Math.fround(r() - 0.5)))];
  const nodeInputs = ['x', 'w', 'r', 'b', '', '', '', ''];
  if (lens) { inputs.push(K('sl', 'int32', [B], lens)); nodeInputs[4] = 'sl'; }
  if (init.includes('h')) { inputs.push(['h0', f, [D, B, H]]); nodeInputs[5] = 'h0'; }
  if (init.includes('c')) { inputs.push(['c0', f, [D, B, H]]); nodeInputs[6] = 'c0'; }
  if (peep) { inputs.push(K('p', f, [D, 3 * H], Array.from({ length: D * 3 * H }, () => Math.fround(r() - 0.5)))); nodeInputs[7] = 'p'; }
  inputs.push(K('ws', f, sshape, scales()), K('wz', wdt, sshape, zps()), K('rs', f, sshape, scales()), K('rz', wdt, sshape, zps()));
  nodeInputs.push('ws', 'wz', 'rs', 'rz');
  const outs = noY ? [['Y_h', f], ['Y_c', f]] : [['Y', f], ['Y_h', f], ['Y_c', f]];
  cases.push({ name: `dqlstm_${name}`, opset: 17, threads: 1, inputs, outputs: outs,
    nodes: [{ op: 'DynamicQuantizeLSTM', domain: M, attrs: { hidden_size: H, direction: dir, ...attrs }, inputs: nodeInputs, outputs: noY ? ['', 'Y_h', 'Y_c'] : ['Y', 'Y_h', 'Y_c'] }] });
}
dq('fwd_int8', {});
dq('fwd_uint8', { wdt: 'uint8' });
dq('fwd_int8_col', { col: true, I: 5, H: 4, T: 6 });
dq('fwd_uint8_col_init', { wdt: 'uint8', col: true, init: 'hc' });
dq('rev_int8_init', { dir: 'reverse', init: 'hc', H: 3 });
dq('bidir_int8_col', { dir: 'bidirectional', col: true, init: 'hc' });
dq('bidir_uint8', { dir: 'bidirectional', wdt: 'uint8', T: 5, I: 4, H: 3 });
dq('fwd_peep_clip', { peep: true, attrs: { clip: 0.7 }, init: 'hc' });
dq('fwd_input_forget_acts', { attrs: { input_forget: 1, activations: ['HardSigmoid', 'Tanh', 'Softsign'] } });
dq('fwd_long', { T: 24, I: 8, H: 8, col: true, init: 'hc' });
dq('fwd_noY', { noY: true, init: 'hc' });
// Batches of several sequences, of equal and unequal lengths.
dq('fwd_batch2', { B: 2, init: 'hc' });
dq('fwd_batch3_lens', { B: 3, lens: [4, 2, 3], init: 'hc' });
dq('rev_batch3_lens', { B: 3, dir: 'reverse', lens: [1, 4, 3], init: 'hc' });
dq('bidir_batch2_lens_noY', { B: 2, dir: 'bidirectional', lens: [2, 4], init: 'hc', noY: true });
dq('fwd_batch3_len0', { B: 3, lens: [3, 0, 2], init: 'hc' });
module.exports = cases;
