import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { SERVE_NODE_FLAGS } from '../../bin/serve-flags.js';
import { eventLogFile } from '../../infra/select.js';
import { testConfig } from '../test-config.js';
import { childEnv, freePort, importFixtureFile, ROOT, runCli, runProcess, startServer } from './process.js';

t.setTimeout(300_000);

/**
 * One log per deployment, through the real processes: a server whose DATA_DIR holds read models
 * built from another log refuses to start, naming both logs, and `npm run rebuild` gives the
 * read models to its log.
 */
t.test('a server on read models of another log exits non-zero naming both; a rebuild lets it start', async (t) => {
  const dir = t.testdir();
  const [a, b] = [join(dir, 'a'), join(dir, 'b')];
  for (const dataDir of [a, b]) {
    const server = await startServer({ DATA_DIR: dataDir });
    await server.stop();
  }
  // Log b holds a site, which log a never had.
  const imported = await importFixtureFile(b, { sites: [{ id: 1, slug: 'only-in-b', title: 'Only in b' }] }, 'b');
  t.equal(imported.code, 0, imported.stderr);
  // The log of b beside the read models of a (as a second log feeding one read-model database).
  const logA = eventLogFile(testConfig(a));
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${logA}${suffix}`, { force: true });
  copyFileSync(eventLogFile(testConfig(b)), logA);

  const port = await freePort();
  const refused = await runProcess(
    process.execPath,
    [...SERVE_NODE_FLAGS, '--import', 'tsx', join(ROOT, 'bin', 'serve.ts')],
    {
      cwd: ROOT,
      env: childEnv({ DATA_DIR: a, HOST: '127.0.0.1', PORT: String(port) }),
    },
  );
  t.not(refused.code, 0, 'the server exits with a failure');
  t.match(
    refused.stderr,
    /^Refusing to start: the read models in .*read-models\.sqlite were built from the event log [0-9a-f-]{36} \(.*a[/\\]events\.sqlite\), but this server's event log is [0-9a-f-]{36} \(.*a[/\\]events\.sqlite\)/,
  );
  t.match(refused.stderr, /npm run rebuild/);
  const [built, current] = [...refused.stderr.matchAll(/event log ([0-9a-f-]{36})/g)].map((m) => m[1]);
  t.not(built, current, 'two identities named');

  const rebuilt = await runCli('rebuild.ts', [], { DATA_DIR: a });
  t.equal(rebuilt.code, 0, rebuilt.stderr);
  // The server of a indexed for log a: its vector index goes too, refilled at the next start.
  t.match(rebuilt.stdout, /The vector index was built from another event log: emptied/);

  const server = await startServer({ DATA_DIR: a });
  t.teardown(() => server.stop());
  const sites = await fetch(`${server.baseUrl}/api/sites`);
  t.equal(sites.status, 200, 'it serves');
  t.match(await sites.text(), /only-in-b/, "the read models are the log's");
});
