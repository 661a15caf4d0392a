import t from 'tap';
import { chatbotModule } from '../../../app/modules/chatbot.js';
import { buildTestApp, json } from '../../helper.js';
import { chatbotFixture, post, settle, type SearchBody } from './support.js';

t.test('with CHATBOT_SENTENCE_MODEL=off the chatbot embeds by words alone, and still finds by them', async (t) => {
  const { app, runtime } = await buildTestApp(t, { fixture: chatbotFixture, config: { chatbotSentenceModel: false } });
  await settle(runtime);
  const { embedder } = runtime.module(chatbotModule).services;
  t.notMatch(embedder.model, /minilm/, `the model is the word features alone (${embedder.model})`);
  const res = await post(app, 'search', { query: 'Stradivari violin' });
  t.equal(res.statusCode, 200);
  const body = json<SearchBody>(res);
  t.match(body.results[0], { title: 'Stradivari violin' }, 'a title in its own words comes first');
  for (const result of body.results)
    t.ok(result.distance >= 0 && result.distance <= 2, 'distances stay cosine distances');
});
