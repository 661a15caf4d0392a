import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, DependencyUnavailableError, PreconditionFailedError, RateLimitedError } from '../infra/errors.js';
import { translateStorageError } from '../infra/storage-errors.js';
import { formatTag } from '../routes/http/conditional/entity-tag.js';
import { errorBody, surfaceFor, validationStatusFor } from '../routes/http/error-format.js';
import { describeIssues, firstFieldMessage, type ValidationIssue } from './validation-messages.js';

/** Client errors that Fastify itself raises (bad JSON, wrong content type, body too large). */
function clientMessage(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'The request body is not valid JSON.';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'The request body is too large.';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Unsupported content type.';
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'Invalid Content-Length.';
    default:
      return error.statusCode === 404 ? 'Not found.' : 'Invalid request.';
  }
}

function isSyntaxError(error: unknown): boolean {
  return error instanceof SyntaxError || (error as { name?: string })?.name === 'SyntaxError';
}

/**
 * The one error handler: maps the project's errors and Fastify's client errors to the surface's
 * documented body; anything else is a 500 (or 503 for an unavailable dependency) with a generic
 * message, logged with its stack but never sent.
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const surface = surfaceFor(request.url);
    // Adapters translate their storage's errors; one that did not (a full disk under a file
    // being written) is still the client's 507 or 503, never a 500.
    const known = translateStorageError(error, 'storage');
    if (known instanceof AppError) {
      if (
        known instanceof RateLimitedError ||
        (known instanceof DependencyUnavailableError && known.retryAfterSeconds !== undefined)
      ) {
        reply.header('Retry-After', String(known.retryAfterSeconds));
      }
      // The version alone: what a retried If-Match must name (its GET adds the digest after a '-').
      if (known instanceof PreconditionFailedError && known.currentVersion > 0) {
        reply.header('ETag', formatTag({ weak: false, opaque: String(known.currentVersion) }));
      }
      if (known.statusCode >= 500) request.log.error({ err: error }, known.message);
      return reply.status(known.statusCode).send(errorBody(surface, known.message, known.fields));
    }
    if (error.validation) {
      const fields = describeIssues(error.validation as ValidationIssue[], error.validationContext ?? 'body');
      const status = validationStatusFor(surface, request.url);
      return reply.status(status).send(errorBody(surface, firstFieldMessage(fields), fields));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      if (status === 429 && !reply.hasHeader('Retry-After')) reply.header('Retry-After', '60');
      const message = status === 429 ? 'Rate limit exceeded.' : clientMessage(error);
      return reply.status(status).send(errorBody(surface, message));
    }
    if (isSyntaxError(error) && status === 400) {
      return reply.status(400).send(errorBody(surface, 'The request body is not valid JSON.'));
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send(errorBody(surface, 'An unexpected error occurred. Please try again.'));
  });

  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send(errorBody(surfaceFor(request.url), 'Not found.'));
  });
}
