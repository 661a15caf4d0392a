import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';

/** A schema name no other test or run uses: each test's log starts empty and sees no other's. */
export function freshSchema(): string {
  return `es_test_${randomUUID().replace(/-/g, '')}`;
}

/** Drops a test's schema with its log. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/**
 * A PostgreSQL database no other run uses (`<prefix>_<random>`), made on the server of `url` and
 * dropped after the test: for adapters configured by URL alone, whose tables are in `public`.
 */
export async function freshDatabase(
  t: { teardown(fn: () => unknown): void },
  url: string,
  prefix: string,
): Promise<string> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  t.teardown(async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.end();
  });
  const own = new URL(url);
  own.pathname = `/${name}`;
  return own.toString();
}

/**
 * A schema of its own on the database of `url`, dropped after the test, and `url` naming it
 * (`?schema=`): for an adapter configured by URL alone (FILES_URL, EVENTSTORE_URL).
 */
export function freshSchemaUrl(t: { teardown(fn: () => unknown): void }, url: string): { schema: string; url: string } {
  const schema = freshSchema();
  t.teardown(() => dropSchema(url, schema));
  const own = new URL(url);
  own.searchParams.set('schema', schema);
  return { schema, url: own.toString() };
}
