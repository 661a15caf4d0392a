import type { FastifyRequest } from 'fastify';

/**
 * One text parameter of the query string, for hooks that serve many routes (API keys, the
 * directory token): no single route's schema says what the query holds there, so it is looked
 * at as the unknown it is. A repeated parameter (a list) is not text: undefined.
 */
export function queryText(request: FastifyRequest, name: string): string | undefined {
  const query: unknown = request.query;
  if (typeof query !== 'object' || query === null) return undefined;
  const value: unknown = Reflect.get(query, name);
  return typeof value === 'string' ? value : undefined;
}
