import { PreconditionFailedError } from '../infra/errors.js';
import type { StoredEvent } from '../infra/event-store/port.js';

/**
 * An If-Match carried into a command: checked against the stream the command has just read, so
 * it is atomic with the append (a write between the read and the append is a version conflict,
 * and the retry reads the new version and refuses).
 */
export interface VersionPrecondition {
  /** The versions the client's If-Match names (routes/http/conditional/entity-tag.ts). */
  accepted: readonly number[];
  /**
   * The event types that make the resource's version: those its read model folds into its
   * document (which keeps the version of the last one). Others in the stream (a child attached
   * to its parent, an asset's usage) leave the representation, and so the version, as it was.
   */
  counts: ReadonlySet<string>;
}

/** The stream version of the stream's last event that counts, 0 when none does. */
export function resourceVersion(stored: readonly StoredEvent[], counts: ReadonlySet<string>): number {
  for (let i = stored.length - 1; i >= 0; i--) {
    if (counts.has(stored[i].type)) return stored[i].streamVersion;
  }
  return 0;
}

/** Throws PreconditionFailedError when the stream's version is not one the client accepts. */
export function checkPrecondition(stored: readonly StoredEvent[], precondition: VersionPrecondition | undefined): void {
  if (!precondition) return;
  const current = resourceVersion(stored, precondition.counts);
  if (!precondition.accepted.includes(current)) throw new PreconditionFailedError(current);
}

/** The precondition of an If-Match's versions for a resource whose version these types make. */
export function ifMatching(
  accepted: readonly number[] | undefined,
  counts: ReadonlySet<string>,
): VersionPrecondition | undefined {
  return accepted === undefined ? undefined : { accepted, counts };
}
