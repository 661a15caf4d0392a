import t from 'tap';
import { chatbotModule } from '../../../app/modules/chatbot.js';
import { buildTestApp, json } from '../../helper.js';
import { chatbotFixture, post, settle, type SearchBody } from '../../routes/chatbot/support.js';

t.test(
  "a resource the model has not read yet (its words' stand-in vectors) comes first for its own words, ahead of resources the model has read",
  async (t) => {
    const { app, runtime } = await buildTestApp(t, { fixture: chatbotFixture });
    await settle(runtime);
    const { vectorIndex, embedder } = runtime.module(chatbotModule).services;
    // As the index job writes a new item before its embed job: the stand-ins, under the model's name.
    const title = 'Astrolabe';
    const text = 'A brass astrolabe from Toledo for reading the stars.';
    const provisional = embedder.provisional?.([`${title}\n${text}`]);
    if (!provisional) return void t.fail('the embedded default has stand-in vectors');
    await vectorIndex.replace(
      { resourceType: 'item', resourceId: 104, title, path: '/item/104', siteIds: [1], itemSetIds: [] },
      [{ text, vector: provisional[0] }],
      embedder.model,
    );
    const results = json<SearchBody>(await post(app, 'search', { query: 'brass astrolabe Toledo' })).results;
    // With the words weighed 0.2 it came fourth, behind the violin the model had read (issue 51's notes).
    t.equal(results[0]?.url, '/item/104', results.map((r) => `${r.url} ${r.distance.toFixed(3)}`).join(', '));
  },
);
