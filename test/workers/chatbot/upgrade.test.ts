import t from 'tap';
import { buildApp } from '../../../app/app.js';
import { importFixture } from '../../../app/import-fixture.js';
import { appModules } from '../../../app/modules.js';
import { chatbotModule } from '../../../app/modules/chatbot.js';
import { createRuntime } from '../../../app/runtime.js';
import { HYBRID_DIMENSION } from '../../../infra/embedder/hybrid.js';
import { LocalEmbedder } from '../../../infra/embedder/local.js';
import { SqliteVectorIndex } from '../../../infra/vector-index/sqlite.js';
import { vectorIndexFile } from '../../../infra/vector-index/select.js';
import { json } from '../../helper.js';
import { chatbotFixture, post, settle, type SearchBody } from '../../routes/chatbot/support.js';
import { testConfig } from '../../test-config.js';

/** The name the first embedded model (Universal Sentence Encoder lite, 512 numbers) gave its hybrid vectors. */
const EARLIER_MODEL = 'use-lite-512-p40+local-hashed-ngrams-v1-384:1/0.5';
/** Its vectors' layout: the model's 512 numbers, then 384 of word features. */
const EARLIER_MEANING = 512;

/**
 * The public items and media of the chatbot fixture as the earlier model left them in the index:
 * the model's part of each vector is made up (a direction no query of the new model comes
 * near), the words' part is what that hybrid wrote.
 */
async function earlierIndex(file: string): Promise<void> {
  const index = new SqliteVectorIndex(file);
  const words = new LocalEmbedder(384);
  const write = async (type: 'item' | 'media', id: number, title: string, text: string) => {
    const vector = new Float32Array(HYBRID_DIMENSION);
    vector[id % EARLIER_MEANING] = 1;
    vector.set(
      words.vector(`${title}\n${text}`).map((x) => x * 0.5),
      EARLIER_MEANING,
    );
    await index.replace(
      { resourceType: type, resourceId: id, title, path: `/${type}/${id}`, siteIds: [1], itemSetIds: [] },
      [{ text, vector }],
      EARLIER_MODEL,
    );
  };
  for (const item of chatbotFixture.items.filter((item) => item.is_public)) {
    await write('item', item.id, item.title, item.description ?? '');
    for (const media of item.media?.filter((media) => media.is_public) ?? [])
      await write('media', media.id, media.title, media.text ?? '');
  }
  await index.close();
}

t.test(
  "an index of the earlier model is searched by its words at once, read again by the new model in the background, and left with the new model's chunks alone",
  async (t) => {
    const config = testConfig(t.testdir(), { baseUrl: 'http://test.local', chatbotRateLimit: 0 });
    // As an installation of the earlier release leaves it: read models, and its model's index.
    const cli = await createRuntime(config, { modules: appModules, startWorkers: false });
    await importFixture(cli, chatbotFixture);
    await cli.close();
    await earlierIndex(vectorIndexFile(config));

    const runtime = await createRuntime(config, { modules: appModules, deferWorkers: true });
    const app = await buildApp(runtime);
    t.teardown(async () => {
      await app.close();
      await runtime.close();
    });
    const services = runtime.module(chatbotModule).services;
    const search = async (query: string) =>
      json<SearchBody>(await post(app, 'search', { query })).results.map((result) => result.url);
    t.not(services.embedder.model, EARLIER_MODEL, 'the embedder is the new model');
    t.same(
      Object.keys(await services.vectorIndex.models()),
      [EARLIER_MODEL],
      'the index holds the earlier model alone',
    );

    await runtime.startWorkers();
    t.same(services.indexModels.searched, [EARLIER_MODEL], 'the earlier model is searched too from the start');
    t.equal((await search('engraved map of the harbour'))[0], '/item/100', 'found by its words before any job ran');

    await runtime.background.settled();
    await settle(runtime);
    t.same(
      Object.keys(await services.vectorIndex.models()),
      [services.embedder.model],
      "the collection read again: the new model's chunks alone",
    );
    t.same(services.indexModels.searched, [], 'and no other model is searched any more');
    t.equal((await search('engraved map of the harbour'))[0], '/item/100', 'found by the new model');
    const health = (await app.inject({ method: 'GET', url: '/health' })).json<{
      chatbot: { resources: number; reading: boolean; searchable_by_meaning: number };
    }>();
    t.equal(health.chatbot.reading, false, '/health: the reading is over');
    t.equal(health.chatbot.searchable_by_meaning, health.chatbot.resources, '/health: every resource read by meaning');
  },
);

t.test('an index of a model of another dimension is cleared and read again', async (t) => {
  const config = testConfig(t.testdir(), { baseUrl: 'http://test.local', chatbotRateLimit: 0 });
  const cli = await createRuntime(config, { modules: appModules, startWorkers: false });
  await importFixture(cli, chatbotFixture);
  await cli.close();
  const other = new SqliteVectorIndex(vectorIndexFile(config));
  await other.replace(
    { resourceType: 'item', resourceId: 100, title: 'Map of Lisbon', path: '/item/100', siteIds: [1], itemSetIds: [] },
    [{ text: 'map', vector: new Float32Array(1024).fill(1) }],
    'embed-english-v3.0',
  );
  await other.close();

  const runtime = await createRuntime(config, { modules: appModules, deferWorkers: true });
  const app = await buildApp(runtime);
  t.teardown(async () => {
    await app.close();
    await runtime.close();
  });
  const services = runtime.module(chatbotModule).services;
  await runtime.startWorkers();
  t.same(services.indexModels.searched, [], 'a model of another dimension is not searched');
  await runtime.background.settled();
  await settle(runtime);
  t.same(Object.keys(await services.vectorIndex.models()), [services.embedder.model], 'read again by the new model');
  const results = json<SearchBody>(await post(app, 'search', { query: 'engraved map of the harbour' })).results;
  t.equal(results[0]?.url, '/item/100');
});
