import { Type, type TSchema } from '@sinclair/typebox';
import { fixtureObject } from '../commands/fixture.js';
import { importersOf } from './import-fixture.js';
import type { AppModule } from './kernel.js';

/**
 * The whole fixture document as one JSON Schema, made of the sections each module's importer
 * validates, so the published schema (docs/fixture.schema.json) is the importer's own.
 */
export function fixtureSchema(modules: readonly AppModule[]): TSchema {
  const sections: Record<string, TSchema> = {};
  for (const importer of importersOf(modules)) {
    for (const [key, schema] of Object.entries(importer.sections)) sections[key] = Type.Optional(schema);
  }
  return fixtureObject(sections, {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'Collections backend fixture',
    description:
      'The document `npm run import -- FILE.json` takes (docs/fixtures.md). Every key is optional; ids given are kept.',
  });
}

/** The schema as the file holds it: stable key order, two-space indent, a final newline. */
export function fixtureSchemaText(modules: readonly AppModule[]): string {
  return `${JSON.stringify(fixtureSchema(modules), null, 2)}\n`;
}
