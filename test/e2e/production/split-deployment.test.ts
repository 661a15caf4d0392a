import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import t from 'tap';
import { SERVE_NODE_FLAGS } from '../../../bin/serve-flags.js';
import { childEnv, freePort, ROOT, runProcess, startServer } from '../process.js';
import { freshDataDir, skipUnlessStack, stackEnv } from './stack.js';

t.setTimeout(300_000);

/**
 * Issue 50, item 6, on the production engines, as the issue tried it: two servers on one MongoDB
 * database, each with a DATA_DIR of its own and so an event log of its own (SQLite). The first
 * stamps the read models with its log; the second refuses to start, naming both logs, before it
 * writes anything: two logs feeding one database would each give out the same ids and slugs.
 */
t.test(
  'a second log on the same MongoDB read models is refused at start, naming both',
  { skip: skipUnlessStack() },
  async (t) => {
    // One call: t.testdir() empties its folder each time it is called.
    const testDir = t.testdir();
    const name = `e2e_${randomBytes(6).toString('hex')}`;
    const server = await startServer(stackEnv(freshDataDir(testDir), name), 120_000);
    t.teardown(() => server.stop('SIGKILL'));
    t.equal((await fetch(`${server.baseUrl}/api/blog/posts`)).status, 200, 'the first server serves');

    const other = stackEnv(freshDataDir(testDir), name);
    const port = await freePort();
    const refused = await runProcess(
      process.execPath,
      [...SERVE_NODE_FLAGS, '--import', 'tsx', join(ROOT, 'bin', 'serve.ts')],
      {
        cwd: ROOT,
        env: childEnv({ ...other, HOST: '127.0.0.1', PORT: String(port) }),
      },
    );
    t.not(refused.code, 0, 'the second server exits with a failure');
    t.match(refused.stderr, /Refusing to start: the read models .* were built from the event log [0-9a-f-]{36} \(/);
    const logs = [...refused.stderr.matchAll(/event log (?:is )?([0-9a-f-]{36}) \(([^)]*)\)/g)].map((m) => [
      m[1],
      m[2],
    ]);
    t.equal(logs.length, 2, `two logs named: ${refused.stderr.slice(0, 400)}`);
    t.not(logs[0]?.[0], logs[1]?.[0], 'two identities');
    t.match(logs[1]?.[1], other.DATA_DIR, "this server's log is its DATA_DIR's");
    t.notMatch(refused.stderr, /mongodb:\/\/[^@\s]*:[^@\s]*@/, 'no password in the message');

    t.equal((await fetch(`${server.baseUrl}/api/blog/posts`)).status, 200, 'the first server still serves');
  },
);

/**
 * The same for the chatbot's Elasticsearch index: a second deployment with read models of its own
 * (another MongoDB database) but the first one's ELASTICSEARCH_INDEX is refused, naming both logs,
 * before it indexes anything into the first one's chunks.
 */
t.test(
  'a second log on the same Elasticsearch index is refused at start, naming both',
  { skip: skipUnlessStack() },
  async (t) => {
    const testDir = t.testdir();
    const first = stackEnv(freshDataDir(testDir));
    const server = await startServer(first, 120_000);
    t.teardown(() => server.stop('SIGKILL'));
    t.equal((await fetch(`${server.baseUrl}/api/blog/posts`)).status, 200, 'the first server serves');

    // Its own MongoDB database (a fresh name), the first one's index.
    const other = { ...stackEnv(freshDataDir(testDir)), ELASTICSEARCH_INDEX: first.ELASTICSEARCH_INDEX };
    const port = await freePort();
    const refused = await runProcess(
      process.execPath,
      [...SERVE_NODE_FLAGS, '--import', 'tsx', join(ROOT, 'bin', 'serve.ts')],
      { cwd: ROOT, env: childEnv({ ...other, HOST: '127.0.0.1', PORT: String(port) }) },
    );
    t.not(refused.code, 0, 'the second server exits with a failure');
    t.match(
      refused.stderr,
      new RegExp(
        `Refusing to start: the chunks of the vector index ${first.ELASTICSEARCH_INDEX} in .* were built from the event log [0-9a-f-]{36} \\(`,
      ),
    );
    const logs = [...refused.stderr.matchAll(/event log (?:is )?([0-9a-f-]{36}) \(([^)]*)\)/g)].map((m) => m[1]);
    t.equal(logs.length, 2, `two logs named: ${refused.stderr.slice(0, 400)}`);
    t.not(logs[0], logs[1], 'two identities');
    t.match(refused.stderr, /ELASTICSEARCH_INDEX|npm run reindex/, 'and the way out');
    t.equal((await fetch(`${server.baseUrl}/api/blog/posts`)).status, 200, 'the first server still serves');
  },
);
