// Builds small ONNX models (one node, or a few) and their reference
// outputs, computed by onnxruntime (CPU), for pipert's importer tests.
// Setup: npm install --ignore-scripts onnxruntime-node@1.30.0 onnx-proto@8.0.1
// Usage: NODE_PATH=…/node_modules node gen.js [DIR]   (default: this folder)
// (CASES=regexp builds only the cases it matches; CASESDIR=folder reads the
// cases*.js files of that folder instead of this one's.)
// Each case of cases.js becomes NAME.onnx and NAME.golden.json (onnx.Golden:
// one case, "ort", the graph inputs and the outputs onnxruntime computed).
// Inputs are deterministic (xorshift32, seeded by the case name). A case's
// threads, when set, is onnxruntime's intra-op thread count (default: the
// cores), for the kernels whose results depend on it.
const ort = require('onnxruntime-node');
const { onnx } = require('onnx-proto');
const fs = require('fs'), path = require('path');

const TYPES = { // name: [TensorProto.DataType, typed array, ort type]
  float32: [1, Float32Array, 'float32'], uint8: [2, Uint8Array, 'uint8'], int8: [3, Int8Array, 'int8'],
  int32: [6, Int32Array, 'int32'], int64: [7, BigInt64Array, 'int64'], bool: [9, Uint8Array, 'bool'],
  float64: [11, Float64Array, 'float64'], float16: [10, Uint16Array, 'float16'],
  uint16: [4, Uint16Array, 'uint16'], int16: [5, Int16Array, 'int16'], uint32: [12, Uint32Array, 'uint32'],
  uint64: [13, BigUint64Array, 'uint64'],
  // onnxruntime-node has no bfloat16 tensors: bfloat16 lives inside a
  // graph only (initializers, and the values between Casts).
  bfloat16: [16, Uint16Array, null],
  // 4-bit integers (initializers only): one element a byte here, packed
  // two a byte (the first in the low 4 bits) in the model.
  uint4: [21, Uint8Array, null], int4: [22, Int8Array, null],
};
const BIG = new Set(['int64', 'uint64']);

// f16 returns the float16 bits nearest x (ties to even); f16Value the value
// of float16 bits h. float16 data is given and written as numbers.
function f16(x) {
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0, a = Math.abs(x);
  if (Number.isNaN(x)) return 0x7e00;
  if (a >= 65520) return sign | 0x7c00;
  if (a < 2 ** -14) return sign | roundEven(a * 2 ** 24); // subnormal (or the smallest normal)
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  return sign | (((e + 15) << 10) + roundEven((a / 2 ** e - 1) * 1024)); // a carry moves to the exponent
}
function roundEven(v) {
  const fl = Math.floor(v), d = v - fl;
  return d > 0.5 || (d === 0.5 && fl % 2 === 1) ? fl + 1 : fl;
}
// bf16 returns the bfloat16 bits nearest x (ties to even; NaN 0x7fc1, as
// onnxruntime); bfloat16 data is given as numbers.
function bf16(x) {
  const b = new Uint32Array(new Float32Array([x]).buffer)[0];
  if (Number.isNaN(x)) return 0x7fc1;
  return Number((BigInt(b) + 0x7fffn + ((BigInt(b) >> 16n) & 1n)) >> 16n) & 0xffff;
}
function f16Value(h) {
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e === 0x1f) return m ? NaN : s * Infinity;
  return e === 0 ? s * m * 2 ** -24 : s * (1 + m / 1024) * 2 ** (e - 15);
}

function rng(name) {
  let s = 2166136261;
  for (const c of name) s = Math.imul(s ^ c.charCodeAt(0), 16777619) >>> 0;
  s = s || 1;
  return () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 4294967296; };
}

// values fills a tensor: given data, or deterministic values by dtype.
function values(dtype, shape, data, r) {
  const n = shape.reduce((a, b) => a * b, 1);
  const [, Arr] = TYPES[dtype];
  if (data) {
    if (data.length !== n) throw new Error(`data of ${data.length} for shape ${shape}`);
    if (dtype === 'float16') return Uint16Array.from(data, f16);
    if (dtype === 'bfloat16') return Uint16Array.from(data, bf16);
    // 64-bit data may be given as strings, for values beyond 2^53.
    return BIG.has(dtype) ? Arr.from(data.map(BigInt)) : Arr.from(data);
  }
  const a = new Arr(n);
  for (let i = 0; i < n; i++) {
    const u = r();
    switch (dtype) {
      case 'float32': case 'float64': a[i] = Math.fround(4 * u - 2); break;
      case 'float16': a[i] = f16(4 * u - 2); break;
      case 'bfloat16': a[i] = bf16(4 * u - 2); break;
      case 'int64': a[i] = BigInt(Math.floor(20 * u) - 10); break;
      case 'bool': a[i] = u < 0.5 ? 1 : 0; break;
      case 'uint8': a[i] = Math.floor(256 * u); break;
      case 'uint16': a[i] = Math.floor(65536 * u); break;
      case 'int16': a[i] = Math.floor(65536 * u) - 32768; break;
      case 'uint32': a[i] = Math.floor(4294967296 * u); break;
      case 'uint64': a[i] = BigInt(Math.floor(4294967296 * u)) << 32n | BigInt(Math.floor(4294967296 * r())); break;
      case 'int4': a[i] = Math.floor(16 * u) - 8; break;
      case 'uint4': a[i] = Math.floor(16 * u); break;
      default: a[i] = Math.floor(20 * u) - 10;
    }
  }
  return a;
}

function attr(name, v) {
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    // A graph (If's branches, a Loop's or Scan's body): {graph: {nodes,
    // inputs: [[name, dtype, shape]], outputs: [[name, dtype, shape?]]}},
    // its nodes in the format of a case's.
    if ('graph' in v) return { name, type: 5, g: subGraph(v.graph, name) };
    // A reference to an attribute of the local function the node is in.
    if ('ref' in v) return { name, type: { float: 1, int: 2, string: 3, floats: 6, ints: 7 }[v.type], refAttrName: v.ref };
    if ('f' in v) return { name, type: 1, f: v.f };
    if ('floats' in v) return { name, type: 6, floats: v.floats };
    // A 1-D tensor attribute: {t: dtype, data} (the _as_tensor attributes of ai.onnx.ml).
    if ('t' in v) return { name, type: 4, t: { dataType: TYPES[v.t][0], dims: [v.data.length], rawData: rawBytes(v.t, values(v.t, [v.data.length], v.data)) } };
    throw new Error(`attribute ${name}: ${JSON.stringify(v)}`);
  }
  if (typeof v === 'number') return Number.isInteger(v) ? { name, type: 2, i: v } : { name, type: 1, f: v };
  if (typeof v === 'string') return { name, type: 3, s: Buffer.from(v) };
  if (Array.isArray(v)) {
    if (v.every((x) => typeof x === 'string')) return { name, type: 8, strings: v.map((x) => Buffer.from(x)) };
    if (v.every(Number.isInteger)) return { name, type: 7, ints: v };
    return { name, type: 6, floats: v };
  }
  throw new Error(`attribute ${name}: ${v}`);
}

function subGraph(g, prefix) {
  return {
    name: prefix,
    node: g.nodes.map((n, i) => ({ opType: n.op, name: `${prefix}/${i}`, input: n.inputs, output: n.outputs,
      attribute: Object.entries(n.attrs || {}).map(([k, v]) => attr(k, v)) })),
    input: (g.inputs || []).map(([n, t, sh]) => valueInfo(n, t, sh)),
    output: g.outputs.map(([n, t, sh]) => valueInfo(n, t, sh)),
  };
}

function valueInfo(name, dtype, shape) {
  const t = { elemType: TYPES[dtype][0] };
  if (shape) t.shape = { dim: shape.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) };
  return { name, type: { tensorType: t } };
}

function rawBytes(dtype, arr) {
  if (dtype === 'int4' || dtype === 'uint4') {
    const b = Buffer.alloc((arr.length + 1) >> 1);
    arr.forEach((v, i) => { b[i >> 1] |= (v & 0xf) << (4 * (i & 1)); });
    return b;
  }
  return Buffer.from(arr.buffer, arr.byteOffset, arr.byteLength);
}

// json is a tensor of a golden file. 64-bit integers become exact JSON
// integers, and a negative zero -0 (JSON.stringify writes 0): a marked
// string here, unquoted by exactJSON.
function json(dtype, shape, arr) {
  if (dtype === 'float16') arr = Float64Array.from(arr, f16Value);
  const data = BIG.has(dtype) ? Array.from(arr, (x) => `\u0000int:${x}`)
    : Array.from(arr, (x) => (Object.is(x, -0) ? '\u0000int:-0' : Number.isFinite(x) || !dtype.startsWith('float') ? x : String(x)));
  return { dtype, shape, data };
}
function exactJSON(v) {
  return JSON.stringify(v).replace(/"\\u0000int:(-?[0-9]+)"/g, '$1');
}

async function build(c, dir) {
  const r = rng(c.name);
  const inits = [], graphIn = [], feeds = {}, goldIn = {};
  let extData = Buffer.alloc(0);
  for (const [name, dtype, shape, data, isConst] of c.inputs) {
    if (!name) continue;
    if (c.sizes && !isConst) { // symbolic dimensions: declared here, fed per size below
      graphIn.push(valueInfo(name, dtype, shape));
      continue;
    }
    const arr = values(dtype, shape, data, r);
    if (isConst) {
      if (c.external && arr.length >= 4) {
        // External data, as exporters save large models: the bytes in
        // NAME.data at offsets aligned to 64, the initializer naming them
        // (tiny ones stay inline, as exporters keep them).
        const raw = rawBytes(dtype, arr), off = Math.ceil(extData.length / 64) * 64;
        extData = Buffer.concat([extData, Buffer.alloc(off - extData.length), raw]);
        inits.push({ name, dataType: TYPES[dtype][0], dims: shape, dataLocation: 1, externalData: [
          { key: 'location', value: `${c.name}.data` }, { key: 'offset', value: String(off) }, { key: 'length', value: String(raw.length) }] });
        continue;
      }
      inits.push({ name, dataType: TYPES[dtype][0], dims: shape, rawData: rawBytes(dtype, arr) });
      continue;
    }
    graphIn.push(valueInfo(name, dtype, shape));
    feeds[name] = new ort.Tensor(TYPES[dtype][2], arr, shape);
    goldIn[name] = json(dtype, shape, arr);
  }
  // One node (op, domain, attrs, nodeInputs), or a graph of them: nodes, each
  // {op, inputs, outputs, attrs}, in order, reading graph inputs,
  // initializers and earlier nodes' outputs.
  const node = (n, i, prefix) => ({ opType: n.op, ...(n.domain ? { domain: n.domain } : {}), name: `${prefix}/${i}`, input: n.inputs, output: n.outputs,
    attribute: Object.entries(n.attrs || {}).map(([k, v]) => attr(k, v)) });
  const nodes = c.nodes ? c.nodes.map((n, i) => node(n, i, c.name))
    : [{ ...node({ op: c.op, domain: c.domain, attrs: c.attrs, inputs: c.nodeInputs || c.inputs.map((i) => i[0]), outputs: c.outputs.map((o) => o[0]) }, 0, c.name), name: c.name }];
  // A node of domain com.microsoft (onnxruntime's contrib ops) needs the
  // domain imported: version 1 unless the case's domains say otherwise.
  const domains = { ...(c.domains || {}) };
  if (nodes.some((n) => n.domain === 'com.microsoft') && !('com.microsoft' in domains)) domains['com.microsoft'] = 1;
  // Local functions: {name, domain, inputs, outputs, attrs: [names], nodes, opset}.
  const functions = (c.functions || []).map((f) => ({
    name: f.name, domain: f.domain, input: f.inputs, output: f.outputs, attribute: f.attrs || [],
    node: f.nodes.map((n, i) => node(n, i, f.name)),
    opsetImport: [{ domain: '', version: f.opset || c.opset }, ...Object.entries(c.domains || {}).map(([domain, version]) => ({ domain, version }))],
  }));
  const model = {
    irVersion: c.ir || 8, producerName: 'pipert onnx/testdata/opset/gen.js',
    opsetImport: [{ domain: '', version: c.opset }, ...Object.entries(domains).map(([domain, version]) => ({ domain, version }))],
    graph: { name: c.name, node: nodes, initializer: inits, input: graphIn, output: c.outputs.map(([n, t]) => valueInfo(n, t)) },
    functions,
  };
  const err = onnx.ModelProto.verify(model);
  if (err) throw new Error(`${c.name}: ${err}`);
  const bytes = onnx.ModelProto.encode(onnx.ModelProto.fromObject(model)).finish();
  let s;
  if (c.external) { // onnxruntime finds the data beside the model file
    fs.writeFileSync(path.join(dir, `${c.name}.data`), extData);
    fs.writeFileSync(path.join(dir, `${c.name}.onnx`), bytes);
    s = await ort.InferenceSession.create(path.join(dir, `${c.name}.onnx`), { graphOptimizationLevel: 'disabled', ...(c.threads ? { intraOpNumThreads: c.threads } : {}) });
  } else {
    s = await ort.InferenceSession.create(Buffer.from(bytes), { graphOptimizationLevel: 'disabled', ...(c.threads ? { intraOpNumThreads: c.threads } : {}) });
  }
  // A case with sizes declares its inputs' symbolic dimensions (names
  // for dim_param) and is run once a size: each entry of sizes gives the
  // inputs' shapes, the golden file one case of it ("ort" and its index).
  const runs = c.sizes ? c.sizes.map((sz, k) => {
    const fd = {}, gi = {};
    for (const [name, dtype, shape, , isConst] of c.inputs) {
      if (!name || isConst) continue;
      const sh = sz[name] || shape;
      if (sh.some((d) => typeof d === 'string')) throw new Error(`${c.name}: size ${k} leaves ${name}'s ${sh} symbolic`);
      const arr = values(dtype, sh, null, r);
      fd[name] = new ort.Tensor(TYPES[dtype][2], arr, sh);
      gi[name] = json(dtype, sh, arr);
    }
    return { name: `ort${k}`, feeds: fd, goldIn: gi };
  }) : [{ name: 'ort', feeds, goldIn }];
  const golden = [];
  let out; // the first run's, for a tail
  for (const run of runs) {
    const o = await s.run(run.feeds);
    out = out || o;
    const goldOut = {};
    for (const [name] of c.outputs) {
      const t = o[name];
      const dtype = Object.keys(TYPES).find((k) => TYPES[k][2] === t.type);
      goldOut[name] = json(dtype, t.dims.map(Number), t.data);
    }
    golden.push({ name: run.name, inputs: run.goldIn, outputs: goldOut });
  }
  let saved = bytes;
  if (c.tail) {
    // A tail of nodes whose outputs onnxruntime-node cannot return (a
    // ZipMap's sequence of maps): the model is saved with them and the
    // graph outputs c.tail.outputs gives (name and ONNX type), the golden
    // outputs are those onnxruntime computed without them. onnxruntime
    // must take the saved model and compute from it the same outputs
    // c.tail.fetch pairs: [output of the saved model, golden output].
    const full = { ...model, graph: { ...model.graph, node: [...nodes, ...c.tail.nodes.map((n, i) => node(n, i, `${c.name}/tail`))],
      output: c.tail.outputs.map(([name, type]) => ({ name, type })) } };
    const ferr = onnx.ModelProto.verify(full);
    if (ferr) throw new Error(`${c.name} (tail): ${ferr}`);
    saved = onnx.ModelProto.encode(onnx.ModelProto.fromObject(full)).finish();
    const fs2 = await ort.InferenceSession.create(Buffer.from(saved), { graphOptimizationLevel: 'disabled', ...(c.threads ? { intraOpNumThreads: c.threads } : {}) });
    const fout = await fs2.run(feeds, c.tail.fetch.map(([name]) => name));
    for (const [name, gold] of c.tail.fetch) {
      if (JSON.stringify(Array.from(fout[name].data, String)) !== JSON.stringify(Array.from(out[gold].data, String))) {
        throw new Error(`${c.name}: output ${name} of the model with its tail differs from ${gold}`);
      }
    }
  }
  fs.writeFileSync(path.join(dir, `${c.name}.onnx`), saved);
  fs.writeFileSync(path.join(dir, `${c.name}.golden.json`), exactJSON({
    model: `${c.name}.onnx`, runtime: `onnxruntime-node ${ort.env.versions.node} (CPU, graph optimizations disabled)`,
    cases: golden,
  }) + '\n');
}

(async () => {
  const dir = process.argv[2] || __dirname;
  // CASESDIR: the folder whose cases*.js files to build (default: this one).
  const casesDir = path.resolve(process.env.CASESDIR || __dirname);
  const cases = [];
  for (const f of fs.readdirSync(casesDir).filter((f) => /^cases.*\.js$/.test(f)).sort()) {
    cases.push(...require(path.join(casesDir, f)));
  }
  const only = process.env.CASES ? new RegExp(process.env.CASES) : null;
  let n = 0, failed = 0;
  for (const c of cases) {
    if (only && !only.test(c.name)) continue;
    try {
      await build(c, dir);
      n++;
    } catch (e) {
      // A case onnxruntime cannot run is not a reference: fix or drop it.
      console.error(`${c.name}: ${e.message.split('\n')[0]}`);
      failed++;
    }
  }
  console.log(`${n} cases written to ${dir}${failed ? `, ${failed} failed` : ''}`);
  if (failed) process.exit(1);
})().catch((e) => { console.error(e); process.exit(1); });
