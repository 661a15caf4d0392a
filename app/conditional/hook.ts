import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  formatTag,
  noneMatch,
  parseTagList,
  versionTag,
  type EntityTag,
} from '../../routes/http/conditional/entity-tag.js';
import { declaredVersion } from '../../routes/http/conditional/resource-version.js';
import { viewerOf, type Viewer } from './viewer.js';

/** Anonymous answers: caches may keep them but must ask again (with If-None-Match) before reuse. */
export const PUBLIC_CACHE_CONTROL = 'public, max-age=0, must-revalidate';
/**
 * A viewer's own answers: never in a shared cache; their browser may keep them and revalidate,
 * which is safe because their tags are theirs alone (app/conditional/viewer.ts).
 */
export const PRIVATE_CACHE_CONTROL = 'private, no-cache';

const WRITES = new Set(['PUT', 'PATCH', 'POST']);

function digestOf(viewer: Viewer, payload: string | Buffer): string {
  return createHash('sha256').update(viewer.key).update('\u0000').update(payload).digest('base64url').slice(0, 22);
}

function addVary(reply: FastifyReply, headers: readonly string[]): void {
  if (headers.length === 0) return;
  const current = reply.getHeader('vary');
  const listed =
    typeof current === 'string'
      ? current
          .split(',')
          .map((h) => h.trim())
          .filter(Boolean)
      : [];
  const lower = new Set(listed.map((h) => h.toLowerCase()));
  for (const header of headers) if (!lower.has(header.toLowerCase())) listed.push(header);
  reply.header('Vary', listed.join(', '));
}

/**
 * ETags and conditional reads for every route (RFC 9110 §13), in one onSend hook: a successful
 * GET or HEAD answers an ETag (strong with the version its route declared, else weak), a
 * Cache-Control by viewer and the Vary its credentials make, and a 304 without body when
 * If-None-Match names its tag. A write that declared the resource's new version answers its ETag.
 * Answers that set their own ETag (asset files) or stream are left alone.
 */
export function installConditionalRequests(app: FastifyInstance): void {
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (reply.statusCode !== 200 && reply.statusCode !== 201) return payload;
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    if (reply.hasHeader('etag')) return payload;
    const read = request.method === 'GET' || request.method === 'HEAD';
    const version = declaredVersion(reply);
    if (!read && !(WRITES.has(request.method) && version !== undefined)) return payload;
    const viewer = viewerOf(request);
    const digest = digestOf(viewer, payload);
    const tag: EntityTag = version !== undefined ? versionTag(version, digest) : { weak: true, opaque: digest };
    reply.header('ETag', formatTag(tag));
    if (!read) return payload;
    if (!reply.hasHeader('cache-control'))
      reply.header('Cache-Control', viewer.anonymous ? PUBLIC_CACHE_CONTROL : PRIVATE_CACHE_CONTROL);
    addVary(reply, viewer.vary);
    const ifNoneMatch = parseTagList(request.headers['if-none-match']);
    if (reply.statusCode === 200 && ifNoneMatch !== undefined && !noneMatch(ifNoneMatch, tag)) {
      reply.code(304);
      reply.removeHeader('content-type');
      reply.removeHeader('content-length');
      return null;
    }
    return payload;
  });
}
