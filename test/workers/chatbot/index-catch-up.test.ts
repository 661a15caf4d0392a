import t from 'tap';
import { buildApp } from '../../../app/app.js';
import { importFixture } from '../../../app/import-fixture.js';
import { appModules } from '../../../app/modules.js';
import { chatbotModule } from '../../../app/modules/chatbot.js';
import { createRuntime } from '../../../app/runtime.js';
import { MemoryDocumentStore } from '../../../infra/document-store/memory.js';
import type { Document } from '../../../infra/document-store/port.js';
import { idPages } from '../../../workers/chatbot/id-pages.js';
import { INDEX_CATCH_UP_TASK } from '../../../workers/chatbot/index-catch-up.js';
import { chatbotFixture, settle } from '../../routes/chatbot/support.js';
import { testConfig } from '../../test-config.js';

/** Public resources of the chatbot fixture: items 100-102, media 1000 and 1010, page 5 (1030's item is private). */
const PUBLIC_RESOURCES = 6;
/** Every item, media and page of it, public or not: what the catch-up walks through. */
const ALL_RESOURCES = 4 + 4 + 2;

t.test(
  'an empty vector index is refilled after the workers start, in the background, with its progress in /health',
  async (t) => {
    const config = testConfig(t.testdir(), { baseUrl: 'http://test.local' });
    // As `npm run import` leaves it: read models, and an empty index (a CLI runs no workers).
    const cli = await createRuntime(config, { modules: appModules, startWorkers: false });
    await importFixture(cli, chatbotFixture);
    await cli.close();

    // As bin/serve.ts starts: the workers wait until it listens.
    const runtime = await createRuntime(config, { modules: appModules, deferWorkers: true });
    const app = await buildApp(runtime);
    t.teardown(async () => {
      await app.close();
      await runtime.close();
    });
    const vectorIndex = runtime.module(chatbotModule).services.vectorIndex;
    await new Promise((resolve) => setTimeout(resolve, 50));
    t.equal(await vectorIndex.size(), 0, 'nothing indexed before the workers start');
    const before = (await app.inject({ method: 'GET', url: '/health' })).json();
    t.same(before.background, [], 'no background work before the workers start');
    t.same(
      before.jobs.queues.find((q: { queue: string }) => q.queue === 'chatbot-index') ?? { waiting: 0 },
      { waiting: 0 },
      'and no index job waits',
    );

    await runtime.startWorkers();
    t.match(
      runtime.background.report(),
      [{ name: INDEX_CATCH_UP_TASK, state: 'running' }],
      'the start of the workers does not wait for the catch-up',
    );

    await runtime.background.settled();
    await settle(runtime);
    const health = await app.inject({ method: 'GET', url: '/health' });
    t.equal(health.statusCode, 200);
    t.match(health.json().background, [
      { name: INDEX_CATCH_UP_TASK, state: 'done', done: ALL_RESOURCES, total: ALL_RESOURCES, error: null },
    ]);
    const search = await app.inject({
      method: 'POST',
      url: '/chatbot/api/search',
      payload: { query: 'Stradivari violin' },
    });
    t.equal(search.json().total, PUBLIC_RESOURCES, 'every public resource is searchable');
  },
);

t.test('the workers start once: a second call answers the first one', async (t) => {
  const runtime = await createRuntime(testConfig(t.testdir()), { modules: appModules, deferWorkers: true });
  t.teardown(() => runtime.close());
  t.equal(runtime.startWorkers(), runtime.startWorkers());
  await runtime.startWorkers();
  await runtime.background.settled();
  t.match(
    runtime.background.report(),
    [{ name: INDEX_CATCH_UP_TASK, state: 'done', done: 0, total: 0 }],
    'one catch-up, of nothing',
  );
});

t.test('a runtime without workers (a CLI) starts none when asked', async (t) => {
  const runtime = await createRuntime(testConfig(t.testdir()), { modules: appModules, startWorkers: false });
  t.teardown(() => runtime.close());
  await runtime.startWorkers();
  t.same(runtime.background.report(), []);
  t.same(await runtime.jobs.backlog?.(), [], 'no queue has a handler or a job');
});

t.test('idPages lists every id in order, a page at most of the size asked, over dense and sparse ids', async (t) => {
  const store = new MemoryDocumentStore();
  const collection = store.collection<Document & { _id: number }>('things');
  const ids = [
    ...Array.from({ length: 1234 }, (_, i) => i + 1),
    5_000,
    1_000_000,
    ...Array.from({ length: 700 }, (_, i) => 2_000_000_000 + i),
  ];
  await collection.putMany(ids.map((_id) => ({ _id })));
  const pages: number[][] = [];
  for await (const page of idPages(collection, 100)) pages.push(page);
  t.same(pages.flat(), ids, 'every id once, in order');
  t.ok(
    pages.every((page) => page.length > 0 && page.length <= 100),
    'no page longer than asked, none empty',
  );
  t.ok(pages.length < 60, `a few searches over the gaps (${pages.length} pages)`);

  const empty: number[][] = [];
  for await (const page of idPages(store.collection<Document & { _id: number }>('nothing'), 100)) empty.push(page);
  t.same(empty, []);
});
