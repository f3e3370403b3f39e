// Makes the light models' weighted twins and their reference outputs,
// computed by onnxruntime (CPU), for pipert's TestLightModels.
// Setup: npm install --ignore-scripts onnxruntime-node@1.30.0 onnx-proto@8.0.1
// Usage: NODE_PATH=…/node_modules node gen.js
//
// The light models (light_NAME.onnx, from the ONNX project) hold each
// weight as ConstantOfShape(shape, v): every weight is one value, so the
// classifiers' outputs are uniform and check little. For each, this writes
// NAME.weighted.onnx, the same graph (same opset, same nodes) with every
// ConstantOfShape(S, v) replaced by
//
//	Reshape(Slice(Tile(P, [ceil(n/17)]), starts [0], ends [n]), S)
//
// where n is the product of S and P is 17 float32 values that vary along
// the weight, h a hash of the weight's name: for a weight of rank 2 or
// more, sqrt(6/fan_in)·((j + h) mod 17 − 8)/8 (mean 0 and He's scale, so
// that activations keep their size through the layers); for a vector
// (biases and normalisation parameters), v·(1 + ((j + h) mod 17 − 8)/16),
// which keeps v's sign (variances stay positive). The graph computes the
// weights with copies only (the opset-9 forms of Tile, Slice and
// Reshape), so they are the same bits in any runtime. The inputs of the Softmax nodes become graph outputs too (the
// logits, which a comparison with a relative tolerance checks better than
// probabilities). NAME.weighted.golden.json holds the outputs onnxruntime
// computes for the input arange(n)/n in float32 (the ONNX runner's input
// for these models): {"runtime", "outputs": {NAME: {dtype, shape, data}}}.
const ort = require('onnxruntime-node');
const { onnx } = require('onnx-proto');
const fs = require('fs'), path = require('path');

function hash(s) {
  let h = 2166136261;
  for (const c of s) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return h;
}

function int64s(t) {
  if (t.int64Data && t.int64Data.length) return t.int64Data.map(Number);
  const b = Buffer.from(t.rawData);
  return Array.from({ length: b.length / 8 }, (_, i) => Number(b.readBigInt64LE(8 * i)));
}

function floatValue(t) {
  if (t.floatData && t.floatData.length) return t.floatData[0];
  return Buffer.from(t.rawData).readFloatLE(0);
}

function weighted(m) {
  const g = m.graph;
  const inits = new Map(g.initializer.map((t) => [t.name, t]));
  const nodes = [];
  for (const n of g.node) {
    if (n.opType !== 'ConstantOfShape') {
      nodes.push(n);
      continue;
    }
    const s = inits.get(n.input[0]);
    if (!s) throw new Error(`${n.output[0]}: the shape is not an initializer`);
    const value = n.attribute.find((a) => a.name === 'value');
    if (!value || value.t.dataType !== 1) throw new Error(`${n.output[0]}: no float value`);
    const v = floatValue(value.t), shape = int64s(s), count = shape.reduce((a, b) => a * b, 1);
    const out = n.output[0], h = hash(out) % 17;
    const fanIn = shape.slice(1).reduce((a, b) => a * b, 1);
    const pattern = Float32Array.from({ length: 17 }, (_, j) => (shape.length >= 2
      ? Math.sqrt(6 / fanIn) * ((((j + h) % 17) - 8) / 8) // a weight: He's scale, mean 0
      : v * (1 + (((j + h) % 17) - 8) / 16))); // a bias or normalisation parameter: v's sign
    g.initializer.push(
      { name: `${out}__pattern`, dataType: 1, dims: [17], rawData: Buffer.from(pattern.buffer) },
      { name: `${out}__repeats`, dataType: 7, dims: [1], rawData: Buffer.from(BigInt64Array.from([BigInt(Math.ceil(count / 17))]).buffer) });
    nodes.push(
      { opType: 'Tile', name: `${out}__tile`, input: [`${out}__pattern`, `${out}__repeats`], output: [`${out}__tiled`] },
      { opType: 'Slice', name: `${out}__slice`, input: [`${out}__tiled`], output: [`${out}__flat`],
        attribute: [{ name: 'starts', type: 7, ints: [0] }, { name: 'ends', type: 7, ints: [count] }, { name: 'axes', type: 7, ints: [0] }] },
      { opType: 'Reshape', name: `${out}__reshape`, input: [`${out}__flat`, n.input[0]], output: [out] });
  }
  g.node = nodes;
  for (const n of nodes.filter((n) => n.opType === 'Softmax')) {
    g.output.push({ name: n.input[0], type: { tensorType: { elemType: 1 } } });
  }
  return m;
}

(async () => {
  const dir = __dirname;
  for (const f of fs.readdirSync(dir).filter((f) => /^light_.*\.onnx$/.test(f)).sort()) {
    const name = f.replace(/^light_/, '').replace(/\.onnx$/, '');
    const m = weighted(onnx.ModelProto.decode(fs.readFileSync(path.join(dir, f))));
    const err = onnx.ModelProto.verify(m);
    if (err) throw new Error(`${name}: ${err}`);
    const bytes = onnx.ModelProto.encode(m).finish();
    fs.writeFileSync(path.join(dir, `${name}.weighted.onnx`), bytes);
    const s = await ort.InferenceSession.create(Buffer.from(bytes), { graphOptimizationLevel: 'disabled' });
    const inits = new Set(m.graph.initializer.map((t) => t.name));
    const inputs = m.graph.input.filter((v) => !inits.has(v.name));
    if (inputs.length !== 1) throw new Error(`${name}: ${inputs.length} inputs`);
    const dims = inputs[0].type.tensorType.shape.dim.map((d) => Number(d.dimValue));
    const count = dims.reduce((a, b) => a * b, 1);
    const x = Float32Array.from({ length: count }, (_, i) => i / count);
    const res = await s.run({ [inputs[0].name]: new ort.Tensor('float32', x, dims) });
    const outputs = {};
    for (const o of m.graph.output) {
      const t = res[o.name];
      outputs[o.name] = { dtype: 'float32', shape: t.dims, data: Array.from(t.data, (v) => (Number.isFinite(v) ? v : String(v))) };
    }
    fs.writeFileSync(path.join(dir, `${name}.weighted.golden.json`), JSON.stringify({
      runtime: `onnxruntime-node ${ort.env.versions.node} (CPU, graph optimizations disabled)`, outputs,
    }) + '\n');
    console.log(name, Object.entries(outputs).map(([k, t]) => `${k} ${t.shape} [${Math.min(...t.data)}, ${Math.max(...t.data)}]`).join('; '));
  }
})().catch((e) => { console.error(e); process.exit(1); });
