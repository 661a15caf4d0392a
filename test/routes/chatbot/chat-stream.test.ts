import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import t, { type Test } from 'tap';
import { buildTestApp, json } from '../../helper.js';
import { DependencyUnavailableError } from '../../../infra/errors.js';
import type { Answerer } from '../../../infra/answerer/port.js';
import { SqliteVectorIndex } from '../../../infra/vector-index/sqlite.js';
import { chatbotModule } from '../../../app/modules/chatbot.js';
import { chatbotFixture, form, post, settle, type ChatBody } from './support.js';
import { parseEvents, readEvents } from './sse.js';

const STREAM = { accept: 'text/event-stream' };

t.test('POST /chatbot/api/chat with Accept: text/event-stream', async (t) => {
  const { app, runtime } = await buildTestApp(t, { fixture: chatbotFixture, config: { chatbotRateLimit: 0 } });
  await settle(runtime);
  const services = runtime.module(chatbotModule).services;
  const swapAnswerer = (t: Test, answerer: Answerer) => {
    const original = services.answerer;
    t.teardown(() => {
      services.answerer = original;
    });
    services.answerer = answerer;
  };

  t.test('text events sentence by sentence, then the sources, then the JSON answer itself', async (t) => {
    for (const payload of [
      { question: 'Who made the violin, and where?' },
      { question: 'When does the museum open?', site_slug: 'main' },
      { question: 'What is the airspeed velocity of a swallow?' },
    ]) {
      const res = await post(app, 'chat', payload, STREAM);
      t.equal(res.statusCode, 200);
      t.match(res.headers['content-type'], /^text\/event-stream/);
      t.equal(res.headers['cache-control'], 'no-cache');
      const events = parseEvents(res.body);
      const names = events.map((e) => e.event);
      t.match(names.join(' '), /^(text )+sources end$/, `the order (${names.join(' ')})`);
      const expected = json<ChatBody>(await post(app, 'chat', payload));
      const end = events.at(-1)?.data;
      t.same(end, expected, 'the end event is what the same request answers without the header');
      t.same(Object.keys(end as object).sort(), ['answer_html', 'sources']);
      t.same(events.at(-2)?.data, { sources: expected.sources });
      const text = events.filter((e) => e.event === 'text').map((e) => (e.data as { text: string }).text);
      t.equal(text.join(''), text.join('').trim(), 'pieces join with their own spaces');
      t.equal(text.length, (text.join('').match(/\[\d+\]/g) ?? ['no marker']).length, 'one piece per cited sentence');
    }
  });

  t.test('form bodies and an Accept listing JSON too stream; a wildcard or q=0 keeps JSON', async (t) => {
    const streamed = await form(app, 'chat', 'question=Who+made+the+violin%3F&site_slug=annex', {
      accept: 'application/json;q=0.5, text/event-stream',
    });
    t.equal(parseEvents(streamed.body).at(-1)?.event, 'end');
    for (const accept of ['*/*', 'text/*', 'text/event-stream;q=0', 'application/json']) {
      const res = await post(app, 'chat', { question: 'violin' }, { accept });
      t.match(res.headers['content-type'], /^application\/json/, accept);
      t.ok(json<ChatBody>(res).answer_html);
    }
  });

  t.test('an answerer without a stream of its own: its whole answer is one text event', async (t) => {
    swapAnswerer(t, { answer: async () => 'Second [2], then <b>one</b> [1].' });
    const events = parseEvents((await post(app, 'chat', { question: 'violin harpsichord' }, STREAM)).body);
    t.same(
      events.map((e) => e.event),
      ['text', 'sources', 'end'],
    );
    t.same(
      events[0].data,
      { text: 'Second [2], then <b>one</b> [1].' },
      'the plain text, unescaped: a client shows it as text',
    );
    t.same(
      (events[2].data as ChatBody).sources.map((s) => s.citation_num),
      [2, 1],
    );
  });

  t.test(
    'the end carries the whole answer even when the pieces lack its markers (a provider adds them last)',
    async (t) => {
      swapAnswerer(t, {
        answer: async () => 'Made in Cremona.[1]',
        async *stream() {
          yield 'Made in ';
          yield 'Cremona.';
          return 'Made in Cremona.[1]';
        },
      });
      const events = parseEvents((await post(app, 'chat', { question: 'violin' }, STREAM)).body);
      t.same(
        events.slice(0, 2).map((e) => e.data),
        [{ text: 'Made in ' }, { text: 'Cremona.' }],
      );
      t.equal(
        (events[3].data as ChatBody).answer_html,
        '<p>Made in Cremona.<sup><a href="#chatbot-source-1" class="chatbot-citation">1</a></sup></p>',
      );
      t.equal((events[3].data as ChatBody).sources.length, 1);
    },
  );

  t.test('bad input and failures before the first event: the seed statuses and bodies, no stream', async (t) => {
    for (const [payload, error] of [
      [{}, 'Question is required.'],
      [{ question: 'x'.repeat(1001) }, 'Question must be at most 1000 characters.'],
      [{ question: 'violin', site_id: 0 }, 'site_id must be a positive integer.'],
    ] as const) {
      const res = await post(app, 'chat', payload, STREAM);
      t.same([res.statusCode, json(res)], [400, { error }]);
      t.match(res.headers['content-type'], /^application\/json/);
    }
    const get = await app.inject({ method: 'GET', url: '/chatbot/api/chat', headers: STREAM });
    t.same([get.statusCode, json(get)], [405, { error: 'Method not allowed.' }]);

    const index = services.vectorIndex;
    t.teardown(() => {
      services.vectorIndex = index;
    });
    const failing = new SqliteVectorIndex();
    failing.search = async () => {
      throw new DependencyUnavailableError('vector index', 'The vector index is unavailable.');
    };
    services.vectorIndex = failing;
    const down = await post(app, 'chat', { question: 'violin' }, STREAM);
    t.same([down.statusCode, json(down)], [503, { error: 'The vector index is unavailable.' }]);
    services.vectorIndex = index;

    swapAnswerer(t, {
      answer: async () => '',
      // eslint-disable-next-line require-yield -- fails before its first piece, as a provider refusing the request does
      async *stream() {
        throw new DependencyUnavailableError(
          'model provider',
          'The language model provider returned an error while answering (HTTP 429).',
        );
      },
    });
    const provider = await post(app, 'chat', { question: 'violin' }, STREAM);
    t.same(
      [provider.statusCode, json(provider)],
      [503, { error: 'The language model provider returned an error while answering (HTTP 429).' }],
    );
  });

  t.test('a failure after the first event is an error event, with the message the status would carry', async (t) => {
    for (const [failure, message] of [
      [
        new DependencyUnavailableError(
          'model provider',
          'The language model provider returned an error while answering.',
        ),
        'The language model provider returned an error while answering.',
      ],
      [
        new TypeError('cannot read properties of undefined at /secret/path.ts'),
        'An unexpected error occurred. Please try again.',
      ],
    ] as const) {
      swapAnswerer(t, {
        answer: async () => '',
        async *stream() {
          yield 'The violin ';
          throw failure;
        },
      });
      const res = await post(app, 'chat', { question: 'violin' }, STREAM);
      t.equal(res.statusCode, 200, 'the status went out with the first event');
      t.same(parseEvents(res.body), [
        { event: 'text', data: { text: 'The violin ' } },
        { event: 'error', data: { error: message } },
      ]);
    }
  });

  t.test('a client that disconnects mid-stream stops the work on its answer', async (t) => {
    let signalled: AbortSignal | null = null;
    let piecesAsked = 0;
    swapAnswerer(t, {
      answer: async () => '',
      async *stream(_request, signal) {
        signalled = signal;
        while (!signal.aborted && piecesAsked < 200) {
          piecesAsked++;
          yield `Piece ${piecesAsked}. `;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return '';
      },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    // node:http, not fetch: aborting a fetch leaves undici's socket open, and this process is the
    // server too, so app.close() would wait out the keep-alive (72 s). A destroyed request closes
    // the connection as a browser leaving the page does.
    const request = httpRequest({
      host: '127.0.0.1',
      port: address.port,
      path: '/chatbot/api/chat',
      method: 'POST',
      headers: { 'content-type': 'application/json', ...STREAM },
    });
    request.end(JSON.stringify({ question: 'violin' }));
    const [response] = (await once(request, 'response')) as [IncomingMessage];
    const events = await readEvents(
      Readable.toWeb(response) as ReadableStream<Uint8Array>,
      (events) => events.length >= 2,
    );
    t.same(
      events.slice(0, 2).map((e) => e.data),
      [{ text: 'Piece 1. ' }, { text: 'Piece 2. ' }],
    );
    request.destroy();
    const signal = signalled as AbortSignal | null;
    if (signal && !signal.aborted) await once(signal, 'abort');
    t.ok(signal?.aborted, 'the answerer was told to stop');
    const asked = piecesAsked;
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.equal(piecesAsked, asked, 'and asked for nothing more');
    t.ok(asked < 200, `it stopped before the answerer ran out of pieces (${asked} of 200)`);
  });
});
