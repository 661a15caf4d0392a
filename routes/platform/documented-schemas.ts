import { Type, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';

/**
 * What the OpenAPI document says the platform resources take and answer, beside the schemas the
 * routes validate and serialise with. The routes answer through the open JsonLdObject, so these
 * representations are documentation (route config, routes/http/documented-responses.ts): declared as
 * response schemas they would make fast-json-stringify reshape what the routes send.
 */

/** A reference to another record, as representations write it; a body's needs only `o:id`. */
const Reference = (resource: string) =>
  Type.Object(
    {
      '@id': Type.String({ description: `The record's URL (\`/api/${resource}/{id}\`).` }),
      'o:id': Type.Integer({ minimum: 1 }),
    },
    { additionalProperties: false },
  );

export const referenceTo = (resource: string, description: string) => ({ ...Reference(resource), description });

/** A reference as representations write it (json-ld.ts, `reference`). */
export type Reference = Static<ReturnType<typeof Reference>>;

const DateTime = Type.Object(
  {
    '@value': Type.String({ description: '`YYYY-MM-DD HH:MM:SS`, UTC.' }),
    '@type': Type.Literal('http://www.w3.org/2001/XMLSchema#dateTime'),
  },
  { additionalProperties: false },
);

/** The keys every representation ends with: who created it, and when it was created and last changed. */
const Stamps = Type.Object({
  'o:owner': Type.Unsafe<Reference | null>({
    ...Reference('users'),
    nullable: true,
    description: 'Who created it; null when imported without one.',
  }),
  'o:created': DateTime,
  'o:modified': DateTime,
});
export type Stamps = Static<typeof Stamps>;

/**
 * A representation of `type`: the JSON-LD header, the resource's fields, owner and times. Its
 * Static type is what the kind's `represent` returns (routes/platform/definitions.ts), so tsc
 * refuses a representation that misses a key it declares. `@type` is documented as the literal
 * and typed as the string jsonLd writes (routes/json-ld.ts).
 */
export function representation<P extends TProperties>(type: string, resource: string, fields: P) {
  return Type.Object(
    {
      '@context': Type.String({ description: 'URL of the JSON-LD context (`/api-context`).' }),
      '@id': Type.String({ description: `This record's URL (\`/api/${resource}/{id}\`).` }),
      '@type': Type.Unsafe<string>(Type.Literal(type)),
      'o:id': Type.Integer({ minimum: 1 }),
      ...fields,
      ...Stamps.properties,
    },
    { additionalProperties: false, title: type.replace('o:', '') },
  );
}

/**
 * The answers of one resource's routes, by operation: a list is an array of representations, a
 * read, create, update and delete answer one (a delete, the record as it was).
 */
export function representationAnswers(schema: TObject): {
  list: Record<number, TSchema>;
  one: Record<number, TSchema>;
  created: Record<number, TSchema>;
} {
  return {
    list: { 200: Type.Array(schema, { description: 'The page asked for.' }) },
    one: { 200: { ...schema, description: 'The record.' } },
    created: { 201: { ...schema, description: 'The record created.' } },
  };
}

/** The write body as documented: the route's own properties, with the keys a create needs. */
export function documentedBody(body: TObject, required: readonly string[]): TSchema {
  return Type.Object(body.properties, {
    description: body.description,
    additionalProperties: true,
    ...(required.length ? { required: [...required] } : {}),
  });
}
