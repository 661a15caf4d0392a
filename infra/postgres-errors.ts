/**
 * What the PostgreSQL adapters (infra/event-store/postgres.ts, infra/file-storage/postgres.ts)
 * share of the `pg` driver's errors and SQL text, so both translate a failure alike.
 */

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

/**
 * The server cannot be reached or cannot serve now: a socket error, SQLSTATE class 08
 * (connection exception), 57P01-57P03 (shut down, starting), class 53 (out of connections,
 * memory or disk), or the driver's own messages for a dropped socket or a pool timeout.
 */
export function isPostgresUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || /^(08|53|57P0[123])/.test(code))) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connection error/i.test(
    error.message,
  );
}

/** A schema, table or channel name as SQL text, quoted. */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
