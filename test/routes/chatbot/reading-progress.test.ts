import t from 'tap';
import { chatbotModule } from '../../../app/modules/chatbot.js';
import { indexOutbox, outboxMark } from '../../../contracts/chatbot/documents.js';
import { CollectionReading, readingPace } from '../../../queries/chatbot/reading-progress.js';
import { buildTestApp, json } from '../../helper.js';
import { chatbotFixture, post, settle } from './support.js';
import { parseEvents } from './sse.js';
import { OUTBOX_RESUME_DELAY_MS } from '../../../workers/chatbot/worker.js';

interface Health {
  chatbot: {
    resources: number;
    searchable_by_words: number;
    searchable_by_meaning: number;
    reading: boolean;
    seconds_left: number | null;
  };
}

t.test('/health and the chat answer say how far the collection has been read', async (t) => {
  const { app, runtime } = await buildTestApp(t, { fixture: chatbotFixture, config: { chatbotRateLimit: 0 } });
  await settle(runtime);
  const { services } = runtime.module(chatbotModule);
  const health = async () => json<Health>(await app.inject({ method: 'GET', url: '/health' })).chatbot;
  // A fresh answer to "still reading?" for each chat: the services' own one is reused for 2 s.
  const chat = async () => {
    services.reading = new CollectionReading(runtime.documents);
    const res = await post(app, 'chat', { question: 'Who made the violin?' });
    t.equal(res.statusCode, 200);
    return json<{ answer_html: string; still_reading?: boolean }>(res);
  };

  // 4 items, 4 media, 2 site pages; no blog post.
  t.same(
    await health(),
    {
      resources: 10,
      searchable_by_words: 10,
      searchable_by_meaning: 10,
      reading: false,
      seconds_left: 0,
      questions_not_recorded: 0,
      embeddings_not_cached: 0,
    },
    'all read',
  );
  t.notOk('still_reading' in (await chat()), "a chat answer has the seed's fields only");

  // The start's resume of the outbox has run (it would give the marks below their jobs, which remove them).
  await new Promise((resolve) => setTimeout(resolve, OUTBOX_RESUME_DELAY_MS + 500));
  await settle(runtime);
  // One resource owes its index job, another only the model's vectors; no pace measured (the first indexing may have saved one).
  await readingPace(runtime.documents).deleteOne({ _id: 'pace' });
  await indexOutbox(runtime.documents).put(outboxMark({ type: 'item', id: 100 }, 1));
  await indexOutbox(runtime.documents).put({ ...outboxMark({ type: 'item', id: 101 }, 1), stage: 'embed' });
  t.same(
    await health(),
    {
      resources: 10,
      searchable_by_words: 9,
      searchable_by_meaning: 8,
      reading: true,
      seconds_left: null,
      questions_not_recorded: 0,
      embeddings_not_cached: 0,
    },
    'no pace measured: time left unknown',
  );
  await readingPace(runtime.documents).put({
    _id: 'pace',
    resources_per_second: 0.5,
    measured_at: runtime.clock.now().toISOString(),
  });
  t.equal((await health()).seconds_left, 4, 'two resources at half a resource a second');
  await readingPace(runtime.documents).put({
    _id: 'pace',
    resources_per_second: 0.5,
    measured_at: new Date(runtime.clock.now().getTime() - 10 * 60_000).toISOString(),
  });
  t.equal((await health()).seconds_left, null, 'a pace ten minutes old is not used');
  const reading = await chat();
  t.equal(reading.still_reading, true, 'the chat answer says the collection is still being read');
  t.match(reading.answer_html, /violin/i);
  services.reading = new CollectionReading(runtime.documents);
  const streamed = parseEvents(
    (await post(app, 'chat', { question: 'Who made the violin?' }, { accept: 'text/event-stream' })).body,
  );
  t.match(streamed.at(-1), { event: 'end', data: { still_reading: true } }, "the stream's end event says it too");

  const docs = json<{
    paths: Record<
      string,
      {
        post: {
          responses: Record<
            string,
            { content: Record<string, { schema: { properties: Record<string, unknown>; required: string[] } }> }
          >;
        };
      }
    >;
  }>(await app.inject({ method: 'GET', url: '/api/docs.json' }));
  const schema = docs.paths['/chatbot/api/chat'].post.responses['200'].content['application/json'].schema;
  t.ok(schema.properties.still_reading, 'documented');
  t.notOk(schema.required.includes('still_reading'), "off the seed's required fields");
});
