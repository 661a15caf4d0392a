import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import t from 'tap';
import { PostgresEventStore } from '../../infra/event-store/postgres.js';
import { freePort } from '../../infra/net/free-port.js';
import { ROOT, runProcess, type RunResult } from '../e2e/process.js';

/**
 * stack/postgres/start.sh and stop.sh, and the `postgres` engine of stack/up.sh and down.sh, on
 * the machine's PostgreSQL (127.0.0.1:5432, user postgres). Skipped when it does not answer.
 */

function answers(): boolean {
  try {
    execFileSync('pg_isready', ['-q', '-h', '127.0.0.1', '-p', '5432'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const SKIP = answers() ? false : 'no PostgreSQL answers at 127.0.0.1:5432 (or pg_isready is not installed)';

/** The scripts' environment: the machine's server, whatever the caller's PG* variables say. */
function env(extra: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(base)) if (name.startsWith('PG')) delete base[name];
  return { ...base, PGHOST: '127.0.0.1', PGPORT: '5432', PGUSER: 'postgres', ...extra };
}

function run(script: string, args: string[], extra: Record<string, string>): Promise<RunResult> {
  return runProcess('bash', [join(ROOT, 'stack', script), ...args], { env: env(extra) });
}

async function databaseExists(name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await client.connect();
  try {
    return (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  } finally {
    await client.end();
  }
}

t.test(
  'start.sh creates the database once, prints the three URLs, which work; down keeps it, --drop drops it',
  { skip: SKIP },
  async (t) => {
    const database = `stack_test_${randomBytes(6).toString('hex')}`;
    const vars = { POSTGRES_DB: database, STACK_DIR: t.testdir() };
    t.teardown(() => run('postgres/stop.sh', ['--drop'], vars));
    const url = `postgres://postgres@127.0.0.1:5432/${database}`;
    const lines = `EVENTSTORE_URL=${url}\nFILES_URL=${url}\nQUESTION_LOG_URL=${url}\n`;

    const first = await run('postgres/start.sh', [], vars);
    t.equal(first.code, 0, first.stderr);
    t.equal(first.stdout, lines, 'the three variables on stdout, nothing else');
    t.match(first.stderr, `created database ${database} at 127.0.0.1:5432`);
    t.ok(await databaseExists(database));

    const again = await run('postgres/start.sh', [], vars);
    t.equal(again.code, 0, again.stderr);
    t.equal(again.stdout, lines, 'a second run prints the same');
    t.equal(again.stderr, '', 'and creates nothing');

    const store = new PostgresEventStore(url);
    const appended = await store.append(
      's-1',
      [{ type: 'Noted', data: {}, metadata: { userId: null, at: '2026-01-01T00:00:00.000Z' } }],
      0,
    );
    t.equal(appended.position, 1, 'the printed EVENTSTORE_URL holds a log');
    await store.close();

    const up = await run('up.sh', ['postgres'], vars);
    t.equal(up.code, 0, up.stderr);
    t.equal(up.stdout, lines, 'stack/up.sh postgres prints them');
    t.equal(readFileSync(join(vars.STACK_DIR, 'env'), 'utf8'), lines, 'and keeps them in STACK_DIR/env');
    const down = await run('down.sh', ['postgres'], vars);
    t.equal(down.code, 0, down.stderr);
    t.ok(await databaseExists(database), 'stack/down.sh keeps the database and its log');

    const dropped = await run('postgres/stop.sh', ['--drop'], vars);
    t.equal(dropped.code, 0, dropped.stderr);
    t.notOk(await databaseExists(database), 'stop.sh --drop drops it');
  },
);

t.test('no server answering: a message saying how to point it at one, nothing on stdout', { skip: SKIP }, async (t) => {
  const port = String(await freePort());
  const failed = await run('postgres/start.sh', [], { PGPORT: port, POSTGRES_READY_TIMEOUT: '1' });
  t.equal(failed.code, 1);
  t.equal(failed.stdout, '');
  t.match(failed.stderr, `no PostgreSQL server answers at 127.0.0.1:${port}`);
  t.match(failed.stderr, /point it at a running server with PGHOST and PGPORT/);

  const bad = await run('postgres/start.sh', [], { POSTGRES_DB: 'no-dashes' });
  t.equal(bad.code, 1);
  t.match(bad.stderr, /POSTGRES_DB must be letters, digits and '_'/);
});
