import type { TObject } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { copyWith } from '../objects/copy-with.js';
import type { Upcaster } from './upcast.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The upcaster of events whose data carries a record's whole `fields` (`{id, fields, ...}`): a
 * field of `schema` with a default (infra/schema/record-fields.ts, `withDefault`) that a stored
 * event lacks takes its default. A field is added with the default a record given nothing has,
 * which is what every record written before the field existed was given: so the default is the
 * truthful value (an item's `rights`: none). A field whose default is not needs an upcaster of
 * its own. Data of another shape, or with every such field, comes back as it is.
 */
export function fieldDefaultsUpcaster(schema: TObject): Upcaster {
  const defaults: [string, unknown][] = [];
  for (const [key, property] of Object.entries(schema.properties))
    if ('default' in property) defaults.push([key, property.default]);
  return (data) => {
    if (!isRecord(data) || !isRecord(data.fields)) return data;
    const fields = data.fields;
    let added: Record<string, unknown> | null = null;
    for (const [key, value] of defaults) {
      if (key in fields) continue;
      added ??= {};
      added[key] = Value.Clone(value);
    }
    return added === null ? data : copyWith(data, { fields: copyWith(fields, added) });
  };
}
