import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BadRequestError, ValidationError } from '../../infra/errors.js';
import { surfaceFor, validationStatusFor } from './error-format.js';

/**
 * Limits on the shape of every JSON body, checked as it is parsed, before a route, a schema or
 * a decider looks at it. No request the seeds describe comes near them; a body past one could
 * only overflow a recursive walk later on (JSON.stringify overflowed at about 4,200 levels), or
 * break the production read models (MongoDB refuses documents nested past 100 levels).
 */
/** The largest JSON (or form) body, in bytes: 413 past it (CONTRACT.md section 7). */
export const JSON_BODY_LIMIT = 1024 * 1024;

export const JSON_LIMITS = {
  /** Objects and arrays inside one another; the body itself is the first level. */
  depth: 64,
  keysPerObject: 1_000,
  entriesPerArray: 10_000,
  /** Every object, array, string, number, boolean and null in the body, the body included. */
  values: 100_000,
} as const;

/** Why a parsed JSON value is refused, or null when it is within the limits. */
export function jsonLimitBreach(root: unknown): string | null {
  // Iterative, with parallel stacks: a recursive walk is what deep bodies are refused to spare.
  const pending: unknown[] = [root];
  const depths: number[] = [1];
  let values = 0;
  while (pending.length > 0) {
    const value = pending.pop();
    const depth = depths.pop() as number;
    if (++values > JSON_LIMITS.values) return `The request body holds more than ${JSON_LIMITS.values} values.`;
    if (value === null || typeof value !== 'object') continue;
    if (depth > JSON_LIMITS.depth) return `The request body is nested more than ${JSON_LIMITS.depth} levels deep.`;
    if (Array.isArray(value)) {
      if (value.length > JSON_LIMITS.entriesPerArray) {
        return `An array in the request body has more than ${JSON_LIMITS.entriesPerArray} entries.`;
      }
      for (const entry of value) {
        pending.push(entry);
        depths.push(depth + 1);
      }
      continue;
    }
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    if (keys.length > JSON_LIMITS.keysPerObject)
      return `An object in the request body has more than ${JSON_LIMITS.keysPerObject} keys.`;
    for (const key of keys) {
      const child = record[key];
      // The keys that reach Object.prototype when a body is merged into another object.
      if (key === '__proto__') return 'The key __proto__ is not allowed.';
      if (key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype')) {
        return 'The key constructor holding a key prototype is not allowed.';
      }
      pending.push(child);
      depths.push(depth + 1);
    }
  }
  return null;
}

/** Parses a JSON body and checks its limits; a refusal is in the request's surface's shape. */
export function parseJsonBody(request: FastifyRequest, text: string): unknown {
  let value: unknown;
  try {
    // JSON.parse itself is not recursive in V8: a deep body is parsed, then refused below.
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    throw new BadRequestError('The request body is not valid JSON.');
  }
  const breach = jsonLimitBreach(value);
  if (breach !== null) {
    // 422 where the surface answers validation errors so (native resources, legacy blog), else 400.
    throw ValidationError.field('body', breach, validationStatusFor(surfaceFor(request.url), request.url));
  }
  return value;
}

/**
 * Replaces the scope's JSON parser with parseJsonBody. `emptyBody` is what an empty body means
 * where the route's body is optional; without it an empty body is not valid JSON.
 */
export function installJsonBodyParser(scope: FastifyInstance, options: { emptyBody?: () => unknown } = {}): void {
  if (scope.hasContentTypeParser('application/json')) scope.removeContentTypeParser('application/json');
  // No bodyLimit of its own: the server's (JSON_BODY_LIMIT, 413 past it) applies.
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      if (options.emptyBody) return done(null, options.emptyBody());
      return done(new BadRequestError('The request body is not valid JSON.'), undefined);
    }
    try {
      done(null, parseJsonBody(request, text));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
