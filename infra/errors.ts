/**
 * The project's own errors. Adapters translate driver errors into these, deciders throw the
 * domain ones, and the single HTTP error handler maps each to a status and the surface's body.
 */
export class AppError extends Error {
  constructor(
    message: string,
    readonly statusCode: number,
    readonly fields?: Record<string, string[]>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A client sent something the domain refuses (422 on native resources, 400 elsewhere unless a seed says otherwise). */
export class ValidationError extends AppError {
  constructor(message: string, fields?: Record<string, string[]>, statusCode = 422) {
    super(message, statusCode, fields);
  }
  /**
   * A refusal of one field. The native body keys the message by the field; surfaces whose body
   * holds one message get a predicate with its subject ("Must be at most 200 characters." for
   * title reads "title must be at most 200 characters.").
   */
  static field(field: string, message: string, statusCode = 422): ValidationError {
    const named = message.startsWith('Must ') ? `${field} must ${message.slice('Must '.length)}` : message;
    return new ValidationError(named, { [field]: [message] }, statusCode);
  }
}

export class BadRequestError extends AppError {
  constructor(message: string) {
    super(message, 400);
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'Not found.') {
    super(message, 404);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Authentication required.') {
    super(message, 401);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'Permission denied.') {
    super(message, 403);
  }
}

export class MethodNotAllowedError extends AppError {
  constructor(message = 'Method not allowed.') {
    super(message, 405);
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super(message, 409);
  }
}

/** The event store refused an append because the stream moved on since it was read. */
export class VersionConflictError extends AppError {
  constructor(
    readonly streamId: string,
    readonly expected: number | 'any',
    readonly actual: number,
  ) {
    super(`The resource was changed by another request; try again.`, 409);
  }
}

/**
 * A piece of infrastructure (database, broker, queue, provider) did not answer. The projection
 * runner takes it as "try this batch again later", never as a failure of the event.
 */
export class DependencyUnavailableError extends AppError {
  constructor(
    readonly dependency: string,
    message = `${dependency} is unavailable.`,
    statusCode = 503,
    /** Seconds after which trying again may succeed: the Retry-After header, when set. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message, statusCode);
  }
}

/**
 * The file system under DATA_DIR has no room for a write (SQLITE_FULL, ENOSPC, EDQUOT): 507
 * Insufficient Storage. Nothing of the refused write was kept; the same request succeeds once
 * space is freed, with no restart.
 */
export class StorageFullError extends DependencyUnavailableError {
  constructor(
    dependency: string,
    message = "The server's storage is full: nothing was saved. Try again once space has been freed.",
  ) {
    super(dependency, message, 507, 60);
  }
}

/** Too many requests in the window; retryAfterSeconds goes to the Retry-After header. */
export class RateLimitedError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message, 429);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message = 'Request body is too large.') {
    super(message, 413);
  }
}

/**
 * An If-Match named none of the resource's current versions (RFC 9110 §13.1.1): nothing was
 * written. The current version goes to the answer's ETag header.
 */
export class PreconditionFailedError extends AppError {
  constructor(readonly currentVersion: number) {
    super('The resource was changed since it was read (If-Match does not match its current ETag).', 412);
  }
}

/**
 * A property of a caught error (`code` of Node's system errors: 'ENOENT', ...; `statusCode` of
 * Fastify's), read without assuming what was thrown: undefined when it has none.
 */
export function errorField(error: unknown, key: 'code' | 'statusCode'): unknown {
  if (typeof error !== 'object' || error === null) return undefined;
  if (key === 'code') return 'code' in error ? error.code : undefined;
  return 'statusCode' in error ? error.statusCode : undefined;
}

/** A caught error's message, whatever was thrown (a non-Error as its text). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
