import type { FastifyReply, FastifyRequest } from 'fastify';
import { acceptedVersions } from './entity-tag.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's write takes If-Match against the resource's ETag (412 when stale): set by
     * `IF_MATCH_CONFIG`, read by the OpenAPI document (app/openapi-operations.ts).
     */
    ifMatch?: boolean;
    /** The route's 201 answers the created resource's strong ETag: set by `CREATED_ETAG_CONFIG`, read by the OpenAPI document. */
    createdETag?: boolean;
  }
}

/** The route config of a write that honours If-Match. */
export const IF_MATCH_CONFIG = { ifMatch: true } as const;

/** The route config of a create that declares the new resource's version (so its 201 carries an ETag). */
export const CREATED_ETAG_CONFIG = { createdETag: true } as const;

/**
 * The version of the single resource an answer represents, declared by its route and made into
 * the strong ETag by the conditional hook (app/conditional/hook.ts). Answers without one (lists,
 * documents a projection wrote before it kept versions) get a weak ETag of their body.
 */
const versions = new WeakMap<FastifyReply, number>();

export function answerVersion(reply: FastifyReply, version: number | undefined): void {
  if (version !== undefined && version > 0) versions.set(reply, version);
}

export function declaredVersion(reply: FastifyReply): number | undefined {
  return versions.get(reply);
}

/** The versions the request's If-Match accepts; undefined without a precondition (see acceptedVersions). */
export function ifMatchOf(request: FastifyRequest): readonly number[] | undefined {
  return acceptedVersions(request.headers['if-match']);
}
