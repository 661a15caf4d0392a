import { Type, type TSchema } from '@sinclair/typebox';

/**
 * Answers a route gives that its response schemas cannot hold without changing what it sends:
 * a stream, an HTML page, a status with no body, a second media type for one status. Fastify
 * serialises through `schema.response`; these live in the route's config, which only the
 * OpenAPI document reads (app/openapi-operations.ts merges them over the declared ones).
 */
declare module 'fastify' {
  interface FastifyContextConfig {
    documentedResponses?: Readonly<Record<number, TSchema>>;
    /** The request body as the document shows it, where it says more than the route validates (keys a handler requires). */
    documentedBody?: TSchema;
  }
}

type Headers = Record<string, TSchema>;

/** A body in each of the given media types (`{'text/html': Type.String()}`), as @fastify/swagger reads `content`. */
export function answerIn(description: string, bodies: Record<string, TSchema>, headers?: Headers): TSchema {
  const content = Object.fromEntries(Object.entries(bodies).map(([mediaType, schema]) => [mediaType, { schema }]));
  // Not a JSON schema but a response object: @fastify/swagger copies `content` and `headers` as they are.
  return { description, content, ...(headers ? { headers } : {}) } as unknown as TSchema;
}

/** An answer without a body. */
export function emptyAnswer(description: string, headers?: Headers): TSchema {
  return Type.Null({ description, ...(headers ? { headers } : {}) });
}

/**
 * Marks a response header the answer sends only in some cases (its description says which). Every
 * other documented response header is sent always: the document marks those `required`
 * (`requireHeaders` in app/openapi-operations.ts removes this marker).
 */
export const SOMETIMES_SENT = 'x-sometimes-sent';

export function sometimesSent<T extends TSchema>(schema: T): T {
  return { ...schema, [SOMETIMES_SENT]: true };
}

/** The bytes of a file, in whatever media type it is served as. */
export const BINARY = Type.String({ format: 'binary' });
