// Cases for gen.js (the format of cases.js): more of onnxruntime's contrib
// ops of domain com.microsoft. MatMulNBits: B (and, where given, scales,
// zero points and g_idx) are initializers, as in exported models, so that
// onnxruntime prepacks B and accuracy_level 4 takes its int8 path.
const M = 'com.microsoft', f = 'float32', h = 'float16';
const cases = [];
// det fills n values from a seed: v(i) maps [0, 1) to a value.
const det = (n, seed, v) => {
  let s = seed >>> 0 || 1;
  return Array.from({ length: n }, () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return v(s / 4294967296); });
};
// nbits adds a MatMulNBits case: A of shape a ([..., K]), N outputs,
// bits, block_size bs; zp: 'u8' (packed), 'float' (A's type) or none;
// gidx and bias optional; scales in [lo, lo + 0.1·lo·10).
const nbits = (name, { a, n, bits = 4, bs = 16, dt = f, zp, gidx, bias, acc = 0, lo = 0.02 }) => {
  const K = a[a.length - 1], kb = Math.ceil(K / bs), blob = bs * bits / 8, seed = name.length * 7919 + K * 31 + n;
  const ins = [['a', dt, a], ['b', 'uint8', [n, kb, blob], null, true],
    ['scales', dt, [n * kb], det(n * kb, seed, (u) => Math.round((lo + u * 5 * lo) * 4096) / 4096), true]];
  const names = ['a', 'b', 'scales'];
  if (zp === 'u8') {
    const per = Math.ceil(kb * bits / 8);
    ins.push(['zp', 'uint8', [n, per], null, true]);
    names.push('zp');
  } else if (zp === 'float') {
    ins.push(['zp', dt, [n * kb], det(n * kb, seed + 1, (u) => Math.round(u * 15 * 4) / 4), true]);
    names.push('zp');
  } else names.push('');
  if (gidx) {
    ins.push(['g_idx', 'int32', [K], det(K, seed + 2, (u) => Math.floor(u * kb)), true]);
    names.push('g_idx');
  } else names.push('');
  if (bias) {
    ins.push(['bias', dt, [n]]);
    names.push('bias');
  }
  while (names[names.length - 1] === '') names.pop();
  cases.push({ name: `ms2_matmulnbits_${name}`, opset: 17, domain: M, op: 'MatMulNBits', attrs: { K, N: n, bits, block_size: bs, accuracy_level: acc },
    inputs: ins, nodeInputs: names, outputs: [['y', dt]] });
};

// MatMulNBits: 4 and 8 bits; a last block padded (K not a multiple of
// block_size); zero points absent (2^(bits−1)), packed uint8 or of A's
// type; g_idx (with which onnxruntime reads uint8 zero points as 8);
// bias; a 1-D A; float16; accuracy_level 4 (A quantized to int8 per
// block).
nbits('4bit', { a: [2, 3, 32], n: 3, bias: true });
nbits('4bit_zp_kpad', { a: [2, 40], n: 5, zp: 'u8' });
nbits('4bit_fzp', { a: [3, 32], n: 4, zp: 'float', bias: true });
nbits('4bit_gidx', { a: [2, 48], n: 3, zp: 'u8', gidx: true });
nbits('4bit_1d', { a: [64], n: 4, bs: 32, zp: 'u8' });
nbits('8bit_zp', { a: [2, 2, 64], n: 3, bits: 8, bs: 32, zp: 'u8', bias: true, lo: 0.001 });
nbits('8bit_kpad', { a: [3, 20], n: 2, bits: 8, bs: 16, lo: 0.001 });
nbits('acc4_4bit', { a: [2, 64], n: 3, zp: 'u8', bias: true, acc: 4 });
nbits('acc4_8bit', { a: [3, 32], n: 2, bits: 8, acc: 4, lo: 0.001 });
nbits('acc1_4bit_float16', { a: [2, 32], n: 3, dt: h, zp: 'u8', bias: true, acc: 1 });
nbits('4bit_fzp_float16', { a: [2, 32], n: 2, dt: h, zp: 'float' });
nbits('acc4_4bit_float16', { a: [2, 32], n: 3, dt: h, acc: 4 });

module.exports = cases;
