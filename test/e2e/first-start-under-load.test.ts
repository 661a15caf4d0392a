import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { itemsFixture } from '../../bench/import.js';
import { importFixtureFile, startServer } from './process.js';

t.setTimeout(600_000);

/**
 * Items of the fixture, each with one media: 2 x ITEMS resources for the chatbot to index. On the
 * 2-core development machine under load their index jobs take well over ten seconds, the plugin
 * timeout the start used to run them into (issue 36).
 */
const ITEMS = 3_000;
/** The busy processes' own end, should a teardown never come (a killed test run). */
const LOAD_LIMIT_MS = 300_000;

/** One process per core spinning for at most LOAD_LIMIT_MS: the other engineers' test runs. */
function busyProcess(): ChildProcess {
  return spawn(process.execPath, ['-e', `const end = Date.now() + ${LOAD_LIMIT_MS}; while (Date.now() < end);`], {
    stdio: 'ignore',
  });
}

/** What a start leaves of the vector index: nothing, as after an import or `rm vector-index.sqlite`. */
function deleteVectorIndex(dataDir: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(join(dataDir, `vector-index.sqlite${suffix}`), { force: true });
}

t.test(
  'the first start after an import comes up on a loaded machine, with the vector index refilled in the background',
  async (t) => {
    const dataDir = join(t.testdir(), 'data');
    const imported = await importFixtureFile(dataDir, itemsFixture(ITEMS), 'items');
    t.equal(imported.code, 0, imported.stderr);

    const load = [busyProcess(), busyProcess()];
    t.teardown(() => {
      for (const child of load) child.kill('SIGKILL');
    });

    for (let start = 1; start <= 3; start++) {
      deleteVectorIndex(dataDir);
      // Before the fix every start exited with "Plugin did not start in time: '@fastify/swagger-ui'".
      const server = await startServer({ DATA_DIR: dataDir }, 120_000);
      try {
        const items = await fetch(`${server.baseUrl}/api/items?per_page=1`);
        t.equal(items.status, 200, `start ${start}: the items list`);
        t.equal(items.headers.get('platform-total-results'), String(ITEMS), `start ${start}: every item counted`);
        t.equal(((await items.json()) as unknown[]).length, 1, `start ${start}: one per page`);

        const health = await fetch(`${server.baseUrl}/health`);
        t.equal(health.status, 200, `start ${start}: /health`);
        const body = (await health.json()) as {
          status: string;
          background: { name: string; state: string; done: number; total: number | null }[];
        };
        // Every port answered its probe within its second, with the index jobs running.
        t.equal(body.status, 'ok', `start ${start}: healthy while indexing`);
        const catchUp = body.background.find((task) => task.name === 'chatbot-index-catch-up');
        t.ok(catchUp, `start ${start}: the catch-up is listed`);
        t.ok(
          catchUp && catchUp.state === 'running' && catchUp.done < 2 * ITEMS,
          `start ${start}: still refilling, in the background (${JSON.stringify(catchUp)})`,
        );
      } finally {
        await server.stop();
      }
    }
  },
);
