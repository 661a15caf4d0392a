import { randomUUID } from 'node:crypto';
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
