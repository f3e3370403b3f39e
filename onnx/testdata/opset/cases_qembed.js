// Cases for gen.js (the format of cases.js): onnxruntime's contrib op
// QEmbedLayerNormalization (domain com.microsoft), the EmbedLayerNormalization
// of BERT-like models its dynamic quantization writes: uint8 and int8
// tables, with and without segments (DistilBERT), with and without a mask,
// scales and zero points scalars or 1-element vectors.
const M = 'com.microsoft', f = 'float32', i32 = 'int32';
const K = (name, dtype, shape, data) => [name, dtype, shape, data, true];
const cases = [];
const lcg = (s) => () => { s = (Math.imul(s, 1103515245) + 12345) >>> 0; return s / 4294967296; };
function qe(name, { dt = 'uint8', B = 2, S = 5, H = 8, V = 11, P = 6, G = 2, segs = true, mask = true, vec = false, eps = 1e-12 }) {
  const r = lcg(name.length * 131 + B * 7 + S);
  const q = (n) => Array.from({ length: n }, () => (dt === 'int8' ? Math.floor(256 * r()) - 128 : Math.floor(256 * r())));
  const ids = (n, m) => Array.from({ length: n }, () => Math.floor(m * r()));
  const sh = vec ? [1] : [];
  const sc = () => [Math.fround(0.002 + 0.03 * r())];
  const zp = () => [dt === 'int8' ? Math.floor(20 * r()) - 10 : 100 + Math.floor(50 * r())];
  const inputs = [K('ids', i32, [B, S], ids(B * S, V))];
  const node = ['ids', segs ? 'seg' : '', 'we', 'pe', segs ? 'se' : '', 'g', 'b', mask ? 'm' : ''];
  if (segs) inputs.push(K('seg', i32, [B, S], ids(B * S, G)));
  inputs.push(K('we', dt, [V, H], q(V * H)), K('pe', dt, [P, H], q(P * H)));
  if (segs) inputs.push(K('se', dt, [G, H], q(G * H)));
  inputs.push(K('g', dt, [H], q(H)), K('b', dt, [H], q(H)));
  if (mask) inputs.push(['m', i32, [B, S], Array.from({ length: B * S }, (_, i) => (i % S < S - (i / S | 0) - 1 ? 1 : (i % 3 === 0 ? 2 : 0)))]);
  for (const n of ['we', 'pe', 'se', 'g', 'b']) { if (n === 'se' && !segs) { node.push(''); continue; } inputs.push(K(`${n}_s`, f, sh, sc())); node.push(`${n}_s`); }
  for (const n of ['we', 'pe', 'se', 'g', 'b']) { if (n === 'se' && !segs) { node.push(''); continue; } inputs.push(K(`${n}_z`, dt, sh, zp())); node.push(`${n}_z`); }
  cases.push({ name: `qembed_${name}`, opset: 17, inputs,
    nodes: [{ op: 'QEmbedLayerNormalization', domain: M, attrs: { epsilon: eps }, inputs: node, outputs: ['y', 'mi'] }],
    outputs: [['y', f], ['mi', i32]] });
}
qe('u8_segments_mask', {});
qe('i8_segments_mask', { dt: 'int8' });
qe('u8_distilbert', { segs: false, vec: true });
qe('i8_no_mask', { dt: 'int8', mask: false, B: 1, S: 6, H: 16, eps: 1e-5 });
module.exports = cases;
