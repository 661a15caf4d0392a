import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import ajvFormats from 'ajv-formats';
import { ROOT } from '../../e2e/process.js';

/**
 * The IIIF consortium's Presentation 3.0 JSON schema, as its presentation validator uses it
 * (test/fixtures/schemas/iiif/README.md says where it comes from), read with ajv: every manifest
 * and collection the tests make is checked by it.
 */
const schema: unknown = JSON.parse(
  readFileSync(join(ROOT, 'test', 'fixtures', 'schemas', 'iiif', 'presentation-3.0.json'), 'utf8'),
);
const ajv = new Ajv({ allErrors: true, strict: false });
// ajv-formats is a CommonJS module whose export is the plugin itself (as routes/http/validation.ts reads it).
(ajvFormats as unknown as (ajv: Ajv) => Ajv)(ajv);
const validate = ajv.compile(schema as object);

/** The schema's complaints about a document; empty when it validates. */
export function presentationProblems(document: unknown): string[] {
  if (validate(document)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ''}`);
}
