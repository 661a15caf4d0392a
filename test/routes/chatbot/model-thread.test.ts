import t from 'tap';
import { HybridEmbedder } from '../../../infra/embedder/hybrid.js';
import { chatbotModule } from '../../../app/modules/chatbot.js';
import { buildTestApp, json } from '../../helper.js';
import { chatbotFixture, post, settle, type SearchBody } from './support.js';

const misbehavingThread = new URL('../../fixtures/chatbot/misbehaving-model-thread.ts', import.meta.url);

t.test('a model thread that stops or hangs fails only the search it holds, and the next one works', async (t) => {
  const { app, runtime } = await buildTestApp(t, { fixture: chatbotFixture, config: { chatbotRateLimit: 0 } });
  await settle(runtime);
  // Not cached: every query goes to the thread.
  const embedder = new HybridEmbedder({
    threadScript: misbehavingThread,
    batchTimeoutMs: 1_000,
    closeTimeoutMs: 1_000,
  });
  const original = runtime.module(chatbotModule).services.embedder;
  t.teardown(async () => {
    await embedder.close();
    // The runtime closes the embedder it holds at the end, this one: the original is closed here.
    await original.close();
  });
  runtime.module(chatbotModule).services.embedder = embedder;

  const violinFirst = async (label: string) => {
    const res = await post(app, 'search', { query: 'Stradivari violin' });
    t.equal(res.statusCode, 200, label);
    t.equal(json<SearchBody>(res).results[0]?.resource_id, 101, `${label}: the violin first`);
  };
  await violinFirst('before');
  t.equal(embedder.modelThreadsStarted, 1);

  const crashed = await post(app, 'search', { query: 'please crash the model' });
  t.equal(crashed.statusCode, 503, 'the search the crash affects is refused');
  t.match(json<{ error: string }>(crashed), { error: /sentence model stopped/ }, "in the chatbot's error shape");
  t.notMatch(crashed.body, /\bat |\.ts|\/work\//, 'no stack or path');
  await violinFirst('after the crash');
  t.equal(embedder.modelThreadsStarted, 2, 'a new thread took over');

  const started = Date.now();
  const hung = await post(app, 'search', { query: 'now hang the model' });
  t.equal(hung.statusCode, 503, 'a hung model is a 503, not a hung request');
  t.ok(Date.now() - started < 10_000, `answered in ${Date.now() - started} ms`);
  await violinFirst('after the hang');
  t.equal(embedder.modelThreadsStarted, 3, 'the hung thread was replaced');

  const chat = await post(app, 'chat', { question: 'could you crash the model' });
  t.equal(chat.statusCode, 503, 'a chat the crash affects is refused the same way');
  t.match(json<{ error: string }>(chat), { error: /sentence model/ });
});
