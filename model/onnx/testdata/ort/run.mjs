// run.mjs runs an ONNX model in ONNX Runtime (onnxruntime-web's wasm
// backend under Node) and prints what it computes, for model/onnx's test.
//
// Usage: node run.mjs MODEL.onnx INPUTS.json
//
// INPUTS.json is {"features": {"dims": [batch, F], "data": [...]}}; the
// output is one JSON object: the session's input and output names, and for
// every output its dims and data.
import { readFile } from 'node:fs/promises';
import * as ort from 'onnxruntime-web';

const [modelPath, inputsPath] = process.argv.slice(2);
if (!modelPath || !inputsPath) {
  console.error('usage: node run.mjs MODEL.onnx INPUTS.json');
  process.exit(2);
}
// One thread: no worker threads to start, and the same arithmetic each run.
ort.env.wasm.numThreads = 1;

const model = await readFile(modelPath);
const session = await ort.InferenceSession.create(new Uint8Array(model), { executionProviders: ['wasm'] });
const inputs = JSON.parse(await readFile(inputsPath, 'utf8'));
const feeds = {};
for (const [name, t] of Object.entries(inputs)) {
  feeds[name] = new ort.Tensor('float32', Float32Array.from(t.data), t.dims);
}
const results = await session.run(feeds);
const out = { inputNames: session.inputNames, outputNames: session.outputNames, outputs: {} };
for (const [name, t] of Object.entries(results)) {
  out.outputs[name] = { dims: t.dims.map(Number), data: Array.from(t.data) };
}
process.stdout.write(JSON.stringify(out) + '\n');
