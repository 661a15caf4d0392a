import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startServer } from '../process.js';
import { chatbotFixture } from '../../routes/chatbot/support.js';
import { readEvents } from '../../routes/chatbot/sse.js';
import { FAKE_ANSWER_PIECES, startFakeCohere } from './fake-cohere.js';

interface ChatAnswer {
  answer_html: string;
  sources: { url: string }[];
}

const QUESTION = 'question=When+does+the+museum+open+on+Saturdays%3F&site_slug=main';
const PROVIDER_FAILED = 'The language model provider returned an error while answering.';

t.test(
  'with COHERE_API_KEY and COHERE_BASE_URL, the real server embeds and answers through the cohere-ai client, streamed and not',
  async (t) => {
    const cohere = await startFakeCohere();
    t.teardown(() => cohere.close());
    const dataDir = t.testdir();
    const file = join(dataDir, 'fixture.json');
    writeFileSync(file, JSON.stringify(chatbotFixture));
    const env = {
      DATA_DIR: dataDir,
      CHATBOT_RATE_LIMIT: '50',
      COHERE_API_KEY: 'test-key',
      COHERE_BASE_URL: cohere.url,
    };
    const imported = await runCli('import.ts', [file], env);
    t.equal(imported.code, 0, imported.stderr);
    const server = await startServer(env);
    t.teardown(() => server.stop());
    const call = (path: string, init: RequestInit) => fetch(`${server.baseUrl}${path}`, init);
    const chat = (accept: string, signal?: AbortSignal) =>
      call('/chatbot/api/chat', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept },
        body: QUESTION,
        signal,
      });

    // Indexed by the provider's embeddings (the fake's word hashes): the opening hours are found.
    let total = 0;
    for (let i = 0; i < 100 && total < 6; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 200));
      const res = await call('/chatbot/api/search', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'museum opening hours on Saturdays' }),
      });
      t.equal(res.status, 200);
      total = ((await res.json()) as { total: number }).total;
    }
    t.equal(total, 6, 'every public resource is indexed by the provider');
    const embeds = cohere.requests.filter((r) => r.path === '/v1/embed');
    t.ok(embeds.length > 0);
    t.ok(
      embeds.every((r) => r.authorization === 'Bearer test-key'),
      'the key is sent as the bearer token',
    );
    t.same(
      [...new Set(embeds.map((r) => r.body.input_type))].sort(),
      ['search_document', 'search_query'],
      'documents and queries by their input types',
    );

    const whole = await chat('application/json');
    t.equal(whole.status, 200);
    const answer = (await whole.json()) as ChatAnswer;
    t.match(
      answer.answer_html,
      /The museum opens at ten on Saturdays\. ?<sup><a href="#chatbot-source-1" class="chatbot-citation">1<\/a><\/sup>/,
      "the provider's answer, its citation as a link to the source",
    );
    const chats = cohere.requests.filter((r) => r.path === '/v1/chat');
    t.match(chats.at(-1)?.body, { message: 'When does the museum open on Saturdays?', documents: [{ id: '1' }] });

    // Streamed: the provider's pieces as text events in order, the sources, an end equal to the JSON answer.
    const streamed = await chat('text/event-stream');
    t.equal(streamed.status, 200);
    const events = await readEvents(streamed.body as ReadableStream<Uint8Array>);
    t.same(
      events.map((e) => e.event),
      ['text', 'text', 'sources', 'end'],
    );
    t.same(
      events.filter((e) => e.event === 'text').map((e) => (e.data as { text: string }).text),
      FAKE_ANSWER_PIECES,
      "the provider's pieces, as they came",
    );
    t.same(events.at(-1)?.data, answer, 'the end event is the JSON answer');
    t.equal(cohere.requests.at(-1)?.body.stream, true, "the provider's streaming API");

    // The provider cuts the connection after its first piece: that piece, then an error event.
    cohere.mode = 'cut';
    const cut = await chat('text/event-stream');
    t.equal(cut.status, 200);
    t.same(await readEvents(cut.body as ReadableStream<Uint8Array>), [
      { event: 'text', data: { text: FAKE_ANSWER_PIECES[0] } },
      { event: 'error', data: { error: PROVIDER_FAILED } },
    ]);

    // The provider refuses before anything is sent: the seed's 503 and body, no stream.
    cohere.mode = 'refuse';
    const refused = await chat('text/event-stream');
    t.equal(refused.status, 503);
    t.same(await refused.json(), {
      error: 'The language model provider returned an error while answering (HTTP 400).',
    });

    // A client that goes away mid-answer: the server stops the provider's stream too.
    cohere.mode = 'hold';
    const leaving = new AbortController();
    const held = await chat('text/event-stream', leaving.signal);
    await readEvents(held.body as ReadableStream<Uint8Array>, (seen) => seen.length >= 1);
    leaving.abort();
    for (let i = 0; i < 50 && cohere.abandonedStreams === 0; i++) await new Promise((r) => setTimeout(r, 100));
    t.equal(cohere.abandonedStreams, 1, "the provider's request is aborted with the client's");

    // The server still answers after all of it.
    cohere.mode = 'whole';
    const after = await chat('text/event-stream');
    t.same((await readEvents(after.body as ReadableStream<Uint8Array>)).at(-1)?.data, answer);

    const health = (await (await call('/health', { method: 'GET' })).json()) as {
      ports: { embedder: { adapter: string; reachable: boolean } };
    };
    t.same(health.ports.embedder, { adapter: 'production', reachable: true }, '/health asks the provider');
    t.ok(cohere.requests.some((r) => r.path === '/v1/check-api-key'));
  },
);
