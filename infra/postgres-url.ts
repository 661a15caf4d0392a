/**
 * The schema a PostgreSQL URL (EVENTSTORE_URL, FILES_URL, QUESTION_LOG_URL) names with
 * `?schema=name`: the event log's table, the stored files' or the questions' tables live there
 * (created on first use) rather than in `public`, so deployments, or tests, can share one
 * database. The parameter is this application's, not libpq's: it is taken out of the URL the
 * driver is given.
 */
export interface PostgresLocation {
  /** The URL without `schema`, for the driver. */
  connectionString: string;
  /** The schema; undefined when the URL names none (the adapter's default, `public`). */
  schema: string | undefined;
}

/** An unquoted PostgreSQL identifier: what a schema is named here (at most 63 bytes). */
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * Splits `?schema=` off a postgres:// or postgresql:// URL; a bad schema name throws naming the
 * variable (never the URL, which may hold a password). A URL the WHATWG parser refuses is handed
 * on as it is: the driver reports it.
 */
export function postgresLocation(url: string, variable: string): PostgresLocation {
  if (!URL.canParse(url)) return { connectionString: url, schema: undefined };
  const parsed = new URL(url);
  const schemas = parsed.searchParams.getAll('schema');
  if (schemas.length === 0) return { connectionString: url, schema: undefined };
  const [schema] = schemas;
  if (schemas.length > 1 || !SCHEMA_NAME.test(schema))
    throw new Error(
      `${variable}: ?schema= must name one schema, of letters, digits and '_' (not starting with a digit), at most 63.`,
    );
  parsed.searchParams.delete('schema');
  return { connectionString: parsed.toString(), schema };
}
