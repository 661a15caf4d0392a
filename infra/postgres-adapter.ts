import type { Pool, PoolClient } from 'pg';
import { DependencyUnavailableError } from './errors.js';
import { isPostgresUnavailable, quoteIdentifier } from './postgres-errors.js';

/**
 * What the PostgreSQL adapters (event store, file storage, question log) share of talking to the
 * driver: rows checked rather than cast, driver errors translated, one transaction's handling.
 */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Column values checked, not cast. */
export interface ColumnReaders {
  integer(value: unknown, column: string): number;
  text(value: unknown, column: string): string;
}

/** A column's value checked; `adapter` names the adapter in the message ("PostgreSQL event log: ..."). */
export function columnReaders(adapter: string): ColumnReaders {
  return {
    integer(value, column) {
      // int8 and count(*) arrive as strings (pg keeps 64 bits exact); int4 as numbers.
      const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isSafeInteger(n))
        throw new TypeError(`PostgreSQL ${adapter}: ${column} is not a safe integer (${String(value)}).`);
      return n;
    },
    text(value, column) {
      if (typeof value !== 'string') throw new TypeError(`PostgreSQL ${adapter}: ${column} is not text.`);
      return value;
    },
  };
}

/** A driver error as the port's: unavailability as DependencyUnavailableError naming `dependency`. */
export function translatorFor(dependency: string): (error: unknown) => Error {
  return (error) => {
    if (isPostgresUnavailable(error)) return new DependencyUnavailableError(dependency);
    return error instanceof Error ? error : new Error(String(error));
  };
}

/**
 * `work` in one transaction on a pooled client: committed, or rolled back and its error
 * translated; a client whose connection broke is dropped from the pool, not reused.
 */
export async function inTransaction<T>(
  pool: Pool,
  translate: (error: unknown) => Error,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw translate(error);
  }
  let broken = false;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    broken = isPostgresUnavailable(error);
    if (!broken) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
    }
    throw translate(error);
  } finally {
    client.release(broken);
  }
}

/** Whether both tables (quoted, schema-qualified names) exist. */
export async function tablesExist(client: PoolClient, first: string, second: string): Promise<boolean> {
  const { rows } = await client.query('SELECT to_regclass($1) IS NOT NULL AND to_regclass($2) IS NOT NULL AS made', [
    first,
    second,
  ]);
  const row: unknown = rows[0];
  return isRecord(row) && row.made === true;
}

/** The class of the advisory lock under which every adapter creates its schema (the other key is the name's hash). */
const SCHEMA_LOCK_CLASS = 0x73636d61; // 'scma'

/**
 * Creates the schema unless it is there, in the caller's transaction. The event store, the file
 * storage and the question log may be given one schema (one `?schema=` on all three URLs) and
 * start at once: each creating it under a lock of its own, two would race and one fail on
 * PostgreSQL's unique name. They all take this one lock, held until the transaction ends.
 */
export async function createSchemaOnce(client: PoolClient, schema: string): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [SCHEMA_LOCK_CLASS, schema]);
  const { rows } = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
  if (rows.length === 0) await client.query(`CREATE SCHEMA ${quoteIdentifier(schema)}`);
}

/**
 * Creates an adapter's schema and its two tables (quoted, schema-qualified) with `create`, unless
 * the tables are there: once across processes, under the advisory lock `lockClass` of the
 * schema. Tables already made are left untouched, so a user that may not create anything (an
 * administrator made the tables) starts too. Run inside the adapter's transaction.
 */
export async function createTablesOnce(
  client: PoolClient,
  { lockClass, schema, tables: [first, second] }: { lockClass: number; schema: string; tables: [string, string] },
  create: () => Promise<void>,
): Promise<void> {
  if (await tablesExist(client, first, second)) return;
  await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [lockClass, `schema:${schema}`]);
  if (await tablesExist(client, first, second)) return;
  await createSchemaOnce(client, schema);
  await create();
}
