import t from 'tap';
import { CachedEmbedder } from '../../../infra/embedder/cached.js';
import { HybridEmbedder } from '../../../infra/embedder/hybrid.js';
import { SqliteVectorIndex } from '../../../infra/vector-index/sqlite.js';
import { chatbotModule } from '../../../app/modules/chatbot.js';
import { retrieve } from '../../../queries/chatbot/retrieve.js';
import { allResources } from '../../../workers/chatbot/all-resources.js';
import { indexResource } from '../../../workers/chatbot/index-resource.js';
import { buildTestApp, json, keyFor, ROLE_USERS } from '../../helper.js';
import { chatbotFixture, post, settle, type SearchBody } from '../../routes/chatbot/support.js';

t.test(
  'vectors are cached by model and text: a reindex of the same content embeds nothing, a change embeds only itself',
  async (t) => {
    const { app, runtime } = await buildTestApp(t, {
      fixture: { ...chatbotFixture, users: ROLE_USERS },
      config: { chatbotRateLimit: 0 },
    });
    await settle(runtime);
    const services = runtime.module(chatbotModule).services;
    const embedder = services.embedder as CachedEmbedder;
    const first = embedder.embeddedCount;
    t.ok(first >= 6, `the first index embedded every chunk (${first})`);

    // Found by meaning once the model's vectors are in: no word of the query is in the item.
    // ("an Italian fiddle" put the harpsichord first by 0.003 with all-MiniLM-L6-v2 and the words at 0.5.)
    const search = json<SearchBody>(await post(app, 'search', { query: 'a bowed string instrument from Italy' }));
    t.ok(
      [101, 1010].includes(search.results[0]?.resource_id),
      `the violin or its photograph, by meaning: ${search.results.map((r) => `${r.url} ${r.distance.toFixed(3)}`).join(', ')}`,
    );
    const afterQuery = embedder.embeddedCount;

    const deps = { documents: runtime.documents, embedder, vectorIndex: services.vectorIndex };
    for (const ref of await allResources(runtime.documents)) await indexResource(deps, ref, runtime.clock.now());
    t.equal(embedder.embeddedCount, afterQuery, 'a full reindex of the same content embeds nothing');

    const patched = await app.inject({
      method: 'PATCH',
      url: `/api/items/100?${keyFor('editor')}`,
      payload: { 'o:description': 'A woodcut of Lisbon seen from the river, printed in Antwerp.' },
    });
    t.equal(patched.statusCode, 200);
    await settle(runtime);
    t.equal(embedder.embeddedCount, afterQuery + 1, 'the changed item alone was embedded (one chunk)');
  },
);

t.test('a resource is found by its words before the model has read it, and by meaning after', async (t) => {
  const dir = t.testdir();
  const embedder = new CachedEmbedder(new HybridEmbedder(), `${dir}/embeddings.sqlite`);
  t.teardown(() => embedder.close());
  const { runtime } = await buildTestApp(t, { fixture: chatbotFixture });
  await settle(runtime);
  const vectorIndex = new SqliteVectorIndex();
  const deps = { documents: runtime.documents, embedder, vectorIndex };
  const ref = { type: 'item' as const, id: 101 };

  t.equal(
    await indexResource(deps, ref, runtime.clock.now(), { provisionalFirst: true }),
    'provisional',
    'indexed at once by its words',
  );
  t.equal(embedder.embeddedCount, 0, 'nothing embedded yet');
  // Not the item's bare title ('Stradivari violin'), which a query naming it finds at the title's
  // distance, whatever vectors the chunks hold (queries/chatbot/title-match.ts).
  const query = 'a Stradivari violin made in Cremona';
  const byWords = await retrieve({ embedder, vectorIndex }, { text: query, filter: {} });
  t.equal(byWords[0]?.best.resourceId, 101, 'found by its words');

  const beforeModel = embedder.embeddedCount;
  t.equal(await indexResource(deps, ref, runtime.clock.now()), 'indexed', "then the model's vectors replace them");
  t.equal(embedder.embeddedCount, beforeModel + 1, 'its one chunk embedded');
  const byWordsAfter = await retrieve({ embedder, vectorIndex }, { text: query, filter: {} });
  t.ok(byWordsAfter[0].best.distance < byWords[0].best.distance, 'nearer once the meaning is in');

  t.equal(
    await indexResource(deps, ref, runtime.clock.now(), { provisionalFirst: true }),
    'indexed',
    'the cache has them: no stand-ins again',
  );
  t.equal(embedder.embeddedCount, beforeModel + 1, 'and nothing embedded again');
});
