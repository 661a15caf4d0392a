import t from 'tap';
import { existsSync, rmSync } from 'node:fs';
import { buildApp } from '../../../app/app.js';
import { testConfig } from '../../test-config.js';
import { importFixture } from '../../../app/import-fixture.js';
import { appModules } from '../../../app/modules.js';
import { createRuntime } from '../../../app/runtime.js';
import type { CachedEmbedder } from '../../../infra/embedder/cached.js';
import { embeddingCacheFile } from '../../../infra/embedder/select.js';
import { vectorIndexFile } from '../../../infra/vector-index/select.js';
import { chatbotModule } from '../../../app/modules/chatbot.js';
import { json } from '../../helper.js';
import { chatbotFixture, post, settle, type SearchBody } from '../../routes/chatbot/support.js';

t.test('a restart on the same data directory searches the persisted index at once and embeds nothing', async (t) => {
  const config = testConfig(t.testdir(), { baseUrl: 'http://test.local', chatbotRateLimit: 0 });
  const start = async () => {
    const runtime = await createRuntime(config, { modules: appModules });
    const app = await buildApp(runtime);
    return {
      runtime,
      app,
      stop: async () => {
        await app.close();
        await runtime.close();
      },
    };
  };
  const results = (body: SearchBody) => body.results.map((r) => `${r.url} ${r.distance.toFixed(4)}`);

  const first = await start();
  await importFixture(first.runtime, chatbotFixture);
  await settle(first.runtime);
  const before = results(json<SearchBody>(await post(first.app, 'search', { query: 'violin from Cremona' })));
  t.ok(before.length > 0, 'found before the restart');
  const chunks = await first.runtime.module(chatbotModule).services.vectorIndex.size();
  await first.stop();
  t.ok(existsSync(vectorIndexFile(config)), 'the index is a file of the data directory');
  // Without the embedding cache, any reindex at start would have to embed again, and so be seen.
  rmSync(embeddingCacheFile(config), { force: true });

  const second = await start();
  t.teardown(second.stop);
  const services = second.runtime.module(chatbotModule).services;
  t.equal(services.vectorIndex.persistent, true);
  t.equal(await services.vectorIndex.size(), chunks, 'every chunk is there at start');
  const after = results(json<SearchBody>(await post(second.app, 'search', { query: 'violin from Cremona' })));
  t.same(after, before, 'the same answer at once, before any job ran');
  await settle(second.runtime);
  t.equal((services.embedder as CachedEmbedder).embeddedCount, 1, 'the query alone was embedded: no resource was');
});
