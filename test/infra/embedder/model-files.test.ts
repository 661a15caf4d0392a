import t from 'tap';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_SENTENCE_MODEL } from '../../../infra/embedder/sentence-model/model-files.js';

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

t.test("the committed sentence model's files are the ones models/extract.sh took from the Maven jar", async (t) => {
  const { dir, sha256: expected } = DEFAULT_SENTENCE_MODEL;
  t.equal(sha256(join(dir, 'model.onnx')), expected.model, 'model.onnx');
  t.equal(sha256(join(dir, 'tokenizer.json')), expected.tokenizer, 'tokenizer.json');
  t.match(readFileSync(join(dir, 'LICENSE'), 'utf8'), /Apache License\s+Version 2\.0/, 'its licence beside it');
});
