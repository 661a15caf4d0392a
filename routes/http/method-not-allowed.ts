import type { FastifyInstance, HTTPMethods } from 'fastify';
import { MethodNotAllowedError } from '../../infra/errors.js';

const METHODS: HTTPMethods[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * Answers 405 (with an Allow header) for the methods a path does not support, where a seed asks
 * for 405 rather than Fastify's default 404. The message is the surface's own.
 */
export function refuseOtherMethods(
  app: FastifyInstance,
  url: string,
  allowed: HTTPMethods[],
  message = 'Method not allowed.',
): void {
  const others = METHODS.filter((m) => !allowed.includes(m) && !(m === 'GET' && allowed.includes('HEAD')));
  if (others.length === 0) return;
  app.route({
    method: others,
    url,
    schema: { hide: true },
    handler: async (_request, reply) => {
      reply.header('Allow', allowed.join(', '));
      throw new MethodNotAllowedError(message);
    },
  });
}
