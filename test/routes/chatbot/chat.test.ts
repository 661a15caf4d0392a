import t from 'tap';
import { buildTestApp, json } from '../../helper.js';
import { DependencyUnavailableError } from '../../../infra/errors.js';
import { NO_ANSWER, type Answerer, type AnswerRequest } from '../../../infra/answerer/port.js';
import { SqliteVectorIndex } from '../../../infra/vector-index/sqlite.js';
import { chatbotModule } from '../../../app/modules/chatbot.js';
import { chatbotFixture, form, post, settle, type ChatBody } from './support.js';

const sup = (n: number) => `<sup><a href="#chatbot-source-${n}" class="chatbot-citation">${n}</a></sup>`;

t.test('POST /chatbot/api/chat', async (t) => {
  const { app, runtime } = await buildTestApp(t, { fixture: chatbotFixture, config: { chatbotRateLimit: 0 } });
  await settle(runtime);
  const services = runtime.module(chatbotModule).services;
  const chat = async (payload: object) => {
    const res = await post(app, 'chat', payload);
    t.equal(res.statusCode, 200, JSON.stringify(payload));
    return json<ChatBody>(res);
  };

  t.test('answers with the evidence sentence, cited, and lists only cited sources', async (t) => {
    const body = await chat({ question: 'Who made the violin, and where?' });
    t.same(Object.keys(body).sort(), ['answer_html', 'sources']);
    t.match(
      body.answer_html,
      /^<p>.*A violin made by Antonio Stradivari in Cremona in 1715\. <sup><a href="#chatbot-source-1" class="chatbot-citation">1<\/a><\/sup>.*<\/p>$/,
    );
    t.same(body.sources[0], {
      citation_num: 1,
      title: 'Stradivari violin',
      url: '/item/101',
      resource_type: 'item',
      resource_id: 101,
      snippet: 'A violin made by Antonio Stradivari in Cremona in 1715. It was donated to the museum in 1950.',
    });
    const cited = [...body.answer_html.matchAll(/chatbot-source-(\d+)/g)].map((m) => Number(m[1]));
    t.same(
      body.sources.map((s) => s.citation_num),
      [...new Set(cited)],
      'sources are exactly the cited evidence, in citation order',
    );
  });

  t.test('site_slug rewrites source URLs; site_id restricts evidence', async (t) => {
    const body = await chat({ question: 'When does the museum open on Saturdays?', site_id: 1, site_slug: 'main' });
    t.match(body.answer_html, /opens at nine on weekdays and at ten on Saturdays\./);
    t.equal(body.sources[0].url, '/s/main/page/visit');
    t.equal(body.sources[0].resource_type, 'site_page');
    const annex = await chat({ question: 'When does the museum open on Saturdays?', site_id: 2 });
    t.notOk(
      annex.sources.some((s) => s.resource_type === 'site_page'),
      'the visit page belongs to site 1',
    );
  });

  t.test('item_set_ids restricts evidence to those items and their media', async (t) => {
    const body = await chat({ question: 'What does the violin photograph show?', item_set_ids: [10] });
    t.notOk(
      body.sources.some((s) => [101, 1010].includes(s.resource_id)),
      'the violin is in set 20',
    );
    const instruments = await chat({ question: 'What does the violin photograph show?', item_set_ids: ['20'] });
    t.ok(instruments.sources.some((s) => s.resource_id === 1010));
  });

  t.test('a chunk containing <script> comes back escaped', async (t) => {
    const body = await chat({ question: 'Was there a script alert in the harpsichord inventory?' });
    t.match(body.answer_html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    t.notMatch(body.answer_html, /<script>/);
    const source = body.sources.find((s) => s.resource_id === 102);
    t.ok(source, 'the harpsichord is cited');
    t.match(source?.snippet, /^A Flemish harpsichord/);
  });

  t.test('says plainly when the evidence does not answer, and cites nothing', async (t) => {
    const body = await chat({ question: 'What is the airspeed velocity of a swallow?' });
    t.same(body, { answer_html: `<p>${NO_ANSWER}</p>`, sources: [] });
  });

  t.test('form bodies are accepted', async (t) => {
    const res = await form(app, 'chat', 'question=Who+made+the+violin%3F&site_slug=annex&item_set_ids%5B%5D=20');
    t.equal(res.statusCode, 200);
    t.equal(json<ChatBody>(res).sources[0].url, '/s/annex/item/101');
  });

  t.test('the answerer gets numbered evidence and the system prompt; bad markers are dropped', async (t) => {
    const original = services.answerer;
    t.teardown(() => {
      services.answerer = original;
    });
    let seen: AnswerRequest | null = null;
    const scripted: Answerer = {
      async answer(request) {
        seen = request;
        return 'Second first [2], then <b>one</b> [1].\n\nInvented [9]. Again [2].';
      },
    };
    services.answerer = scripted;
    const body = await chat({ question: 'violin harpsichord', system_prompt: 'Answer like a pirate.' });
    const request = seen as AnswerRequest | null;
    t.equal(request?.systemPrompt, 'Answer like a pirate.');
    t.equal(request?.question, 'violin harpsichord');
    t.same(
      request?.evidence.map((e) => e.number),
      [1, 2, 3, 4, 5],
    );
    t.equal(
      body.answer_html,
      `<p>Second first ${sup(2)}, then &lt;b&gt;one&lt;/b&gt; ${sup(1)}.</p><p>Invented. Again ${sup(2)}.</p>`,
    );
    t.same(
      body.sources.map((s) => s.citation_num),
      [2, 1],
    );
    t.equal(body.sources[0].title, request?.evidence[1].title);
    for (const source of body.sources) t.ok([...source.snippet].length <= 200);
    await chat({ question: 'violin' });
    t.equal((seen as AnswerRequest | null)?.systemPrompt, undefined, 'no system_prompt: the answerer uses its default');
  });

  t.test('sources snippets are the first 200 characters of the chunk', async (t) => {
    const original = services.answerer;
    t.teardown(() => {
      services.answerer = original;
    });
    services.answerer = { answer: async () => 'See [1].' };
    const long = 'Astrolabe '.repeat(60).trim();
    await runtime.eventStore.append(
      'blog_post-3',
      [
        {
          type: 'BlogPostCreated',
          data: {
            id: 3,
            fields: {
              title: 'Astrolabes',
              slug: 'astrolabes',
              excerpt: '',
              content: long,
              status: 'published',
              published_at: '2025-01-01 00:00:00',
              tags: [],
              site_ids: [1],
            },
          },
          metadata: { userId: 1, at: '2026-01-01 00:00:00' },
        },
      ],
      'any',
    );
    await settle(runtime);
    const body = await chat({ question: 'astrolabe' });
    t.equal(body.sources[0].url, '/blog/astrolabes');
    t.equal(body.sources[0].snippet, long.slice(0, 200));
  });

  t.test('errors: 400, 405, 503 for the index or the provider, 500 otherwise', async (t) => {
    const cases: [object, string][] = [
      [{}, 'Question is required.'],
      [{ question: '' }, 'Question is required.'],
      [{ question: ' \n ' }, 'Question is required.'],
      [{ query: 'violin' }, 'Question is required.'],
      [{ question: 'x'.repeat(1001) }, 'Question must be at most 1000 characters.'],
      [{ question: ['a', 1] }, 'Question must be a string.'],
      [{ question: ['a', 'b'] }, 'Question must be a string.'],
      [{ question: ['a'] }, 'Question must be a string.'],
      [{ question: 'violin', site_slug: '\ud800' }, 'site_slug is not valid text.'],
      [{ question: 'violin', system_prompt: ['p', 'q'] }, 'system_prompt must be a string.'],
      [{ question: 'violin', site_id: 0 }, 'site_id must be a positive integer.'],
      [{ question: 'violin', system_prompt: 'p'.repeat(4001) }, 'system_prompt must be at most 4000 characters.'],
    ];
    for (const [payload, error] of cases) {
      const res = await post(app, 'chat', payload);
      t.equal(res.statusCode, 400, JSON.stringify(payload).slice(0, 60));
      t.same(json(res), { error });
    }
    t.equal((await post(app, 'chat', { question: 'x'.repeat(1000) })).statusCode, 200);
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE'] as const) {
      const res = await app.inject({ method, url: '/chatbot/api/chat' });
      t.same([res.statusCode, json(res)], [405, { error: 'Method not allowed.' }], method);
    }

    const index = services.vectorIndex;
    const answerer = services.answerer;
    t.teardown(() => {
      services.vectorIndex = index;
      services.answerer = answerer;
    });
    const failing = new SqliteVectorIndex();
    failing.search = async () => {
      throw new DependencyUnavailableError('vector index', 'The vector index is unavailable.');
    };
    services.vectorIndex = failing;
    for (const path of ['chat', 'search'] as const) {
      const res = await post(app, path, { question: 'violin', query: 'violin' });
      t.same([res.statusCode, json(res)], [503, { error: 'The vector index is unavailable.' }], path);
    }
    services.vectorIndex = index;
    services.answerer = {
      answer: async () => {
        throw new DependencyUnavailableError(
          'model provider',
          'The language model provider returned an error while answering (HTTP 429).',
        );
      },
    };
    const provider = await post(app, 'chat', { question: 'violin' });
    t.same(
      [provider.statusCode, json(provider)],
      [503, { error: 'The language model provider returned an error while answering (HTTP 429).' }],
    );
    services.answerer = {
      answer: async () => {
        throw new TypeError('cannot read properties of undefined (reading "x") at /secret/path.ts');
      },
    };
    const bug = await post(app, 'chat', { question: 'violin' });
    t.same([bug.statusCode, json(bug)], [500, { error: 'An unexpected error occurred. Please try again.' }]);
  });
});
