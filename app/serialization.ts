import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type SerializerFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>['buildSerializer'];

/** Fastify's own serializer factory (fast-json-stringify), as Fastify builds it by default. */
const fastifyDefault = SerializerSelector();

/**
 * Fastify's response serializers, each built when its route first answers with that status:
 * fast-json-stringify building one for every response schema of every route was about 120 ms of
 * a start (docs/perf-history.md, "Start from a bundle"). The serializer is the one Fastify would
 * build, with the same shared schemas and options; only the moment differs. A test answers
 * every documented route (test/fault/), so a schema fast-json-stringify refuses still fails there.
 */
export const buildSerializerOnFirstUse: SerializerFactory = (externalSchemas, serializerOptions) => {
  const compile = fastifyDefault(externalSchemas, serializerOptions);
  return (routeSchema) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data: unknown) => (serialize ??= compile(routeSchema))(data);
  };
};
