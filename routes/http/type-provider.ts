import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyTypeProvider } from 'fastify';

/**
 * TypeBox types for what a route reads: request.params, query, body and headers have the
 * Static type of the route's schemas (as with TypeBoxTypeProvider), while replies stay untyped.
 * Representations are built as JSON-LD records and some lists send bytes serialised ahead
 * (routes/blog/post-json.ts), so a reply is checked by its response schema when serialised,
 * not by the compiler.
 */
export interface TypeBoxRequestProvider extends FastifyTypeProvider {
  validator: this['schema'] extends TSchema ? Static<this['schema']> : unknown;
  serializer: unknown;
}
