import t from 'tap';
import { FixedClock } from '../../../infra/clock/port.js';
import { NO_ANSWER } from '../../../infra/answerer/port.js';
import { chatbotModule } from '../../../app/modules/chatbot.js';
import { buildTestApp, json, keyFor, ROLE_USERS, sessionFor, type RoleName } from '../../helper.js';
import { chatbotFixture, post, settle } from './support.js';

const LIST = '/api/chatbot/questions';
const SUMMARY = '/api/chatbot/questions/summary';
const DAY = 24 * 60 * 60 * 1000;

interface QuestionBody {
  id: number;
  question: string;
  asked_at: string;
  site_id: number | null;
  answered: boolean;
  sources: { resource_type: string; resource_id: number; title: string; url: string }[];
}

t.test('GET /api/chatbot/questions and /summary', async (t) => {
  const clock = new FixedClock(new Date('2026-03-01T09:00:00.000Z'));
  const { app, runtime } = await buildTestApp(t, {
    fixture: { ...chatbotFixture, users: ROLE_USERS },
    config: { chatbotRateLimit: 0, chatbotSentenceModel: false, chatbotQuestionRetentionDays: 30 },
    clock,
  });
  await settle(runtime);
  const services = runtime.module(chatbotModule).services;
  const editor = keyFor('editor');
  const get = async (url: string) => app.inject({ method: 'GET', url });

  t.test('roles: 401 without credentials, 403 below Editor (key or session), in the native error shape', async (t) => {
    for (const url of [LIST, SUMMARY]) {
      const anonymous = await get(url);
      t.equal(anonymous.statusCode, 401, url);
      t.same(json(anonymous), { errors: { error: 'Log in or send an API key to read the chatbot questions.' } });
      const wrongKey = await get(`${url}?key_identity=editor-id&key_credential=nope`);
      t.equal(wrongKey.statusCode, 403, 'a wrong key pair is refused, not anonymous');
      for (const role of ['reviewer', 'author', 'researcher'] as RoleName[]) {
        const byKey = await get(`${url}?${keyFor(role)}`);
        t.equal(byKey.statusCode, 403, `${role} by key on ${url}`);
        t.same(json(byKey), { errors: { error: 'Editor or above is required to read the chatbot questions.' } });
        const bySession = await app.inject({ method: 'GET', url, headers: { cookie: await sessionFor(app, role) } });
        t.equal(bySession.statusCode, 403, `${role} by session on ${url}`);
      }
      for (const role of ['editor', 'site_admin', 'global_admin'] as RoleName[]) {
        t.equal((await get(`${url}?${keyFor(role)}`)).statusCode, 200, `${role} by key on ${url}`);
      }
      const bySession = await app.inject({ method: 'GET', url, headers: { cookie: await sessionFor(app, 'editor') } });
      t.equal(bySession.statusCode, 200, 'an editor by session');
    }
    t.equal((await app.inject({ method: 'POST', url: `${LIST}?${editor}` })).statusCode, 405);
  });

  t.test('each chat is recorded: text, time, site, cited resources, answered or not; never the client', async (t) => {
    const asked = await post(
      app,
      'chat',
      { question: 'Who made the violin?', site_id: 1, site_slug: 'main' },
      { 'x-forwarded-for': '203.0.113.9', cookie: 'sid=patron-cookie' },
    );
    t.equal(asked.statusCode, 200);
    const cited = json<{ sources: { resource_id: number }[] }>(asked).sources;
    t.ok(cited.length > 0, 'the chat cited something');

    clock.advance(60_000);
    const answerer = services.answerer;
    services.answerer = { answer: async () => NO_ANSWER };
    t.teardown(() => {
      services.answerer = answerer;
    });
    t.equal((await post(app, 'chat', { question: 'Do you have dinosaur bones?' })).statusCode, 200);
    services.answerer = answerer;

    const res = await get(`${LIST}?${editor}`);
    t.equal(res.statusCode, 200);
    t.equal(res.headers['platform-total-results'], '2');
    t.notMatch(String(res.headers['cache-control']), /public/, 'never cached as public');
    t.ok(res.headers.etag, 'an ETag, as every native list');
    const [last, first] = json<QuestionBody[]>(res);
    t.match(last, {
      question: 'Do you have dinosaur bones?',
      asked_at: '2026-03-01 09:01:00',
      site_id: null,
      answered: false,
      sources: [],
    });
    t.match(first, { question: 'Who made the violin?', asked_at: '2026-03-01 09:00:00', site_id: 1, answered: true });
    t.same(
      first.sources.map((s) => s.resource_id),
      cited.map((s) => s.resource_id),
      'the cited resources, in citation order',
    );
    t.match(first.sources[0], { url: /^\/s\/main\// });
    t.notMatch(res.body, /203\.0\.113\.9|patron-cookie/, 'no client address nor cookie');
    t.same(Object.keys(first).sort(), ['answered', 'asked_at', 'id', 'question', 'site_id', 'sources']);

    t.same(
      json<QuestionBody[]>(await get(`${LIST}?${editor}&answered=false`)).map((q) => q.question),
      ['Do you have dinosaur bones?'],
    );
    t.same(
      json<QuestionBody[]>(await get(`${LIST}?${editor}&answered=1`)).map((q) => q.question),
      ['Who made the violin?'],
    );
    t.same(
      json<QuestionBody[]>(await get(`${LIST}?${editor}&site_id=1`)).map((q) => q.question),
      ['Who made the violin?'],
    );
    t.same(
      json<QuestionBody[]>(await get(`${LIST}?${editor}&since=2026-03-01%2009:00:30`)).map((q) => q.question),
      ['Do you have dinosaur bones?'],
    );
    t.same(
      json<QuestionBody[]>(await get(`${LIST}?${editor}&until=2026-03-01%2009:00:00`)).map((q) => q.question),
      ['Who made the violin?'],
    );
    t.equal(json<QuestionBody[]>(await get(`${LIST}?${editor}&until=2026-02-28`)).length, 0);
    const paged = await get(`${LIST}?${editor}&per_page=1&page=2`);
    t.same(
      json<QuestionBody[]>(paged).map((q) => q.question),
      ['Who made the violin?'],
    );
    t.match(paged.headers.link, /rel="first"/);
    t.notMatch(paged.headers.link, /key_credential/, 'no credential in the Link header');
    const farPage = await get(`${LIST}?${editor}&page=99999999999999999999999`);
    t.equal(farPage.statusCode, 200, 'a page far past the end is empty');
    t.same(json(farPage), []);

    const summary = json<{
      questions: number;
      answered: number;
      unanswered: number;
      topics: { word: string }[];
      unanswered_most_asked: { question: string; count: number; last_asked_at: string }[];
    }>(await get(`${SUMMARY}?${editor}`));
    t.match(summary, { questions: 2, answered: 1, unanswered: 1 });
    t.same(summary.unanswered_most_asked, [
      { question: 'Do you have dinosaur bones?', count: 1, last_asked_at: '2026-03-01 09:01:00' },
    ]);
    t.ok(summary.topics.some((topic) => topic.word === 'violin'));

    // The first past its 30 days, the second not yet: no longer served at once, then gone from the store by the sweep.
    clock.advance(30 * DAY - 30_000);
    t.same(
      json<QuestionBody[]>(await get(`${LIST}?${editor}`)).map((q) => q.question),
      ['Do you have dinosaur bones?'],
    );
    t.equal(await services.questions.sweep(), 1);
    clock.advance(DAY);
    t.equal(await services.questions.sweep(), 1);
    t.same(json(await get(`${LIST}?${editor}`)), []);
    t.match(json(await get(`${SUMMARY}?${editor}`)), {
      questions: 0,
      topics: [],
      most_cited: [],
      unanswered_most_asked: [],
    });
  });

  t.test('a streamed chat is recorded as the JSON one is', async (t) => {
    const streamed = await post(
      app,
      'chat',
      { question: 'Who made the streamed violin?' },
      { accept: 'text/event-stream' },
    );
    t.equal(streamed.statusCode, 200);
    t.match(streamed.headers['content-type'], /^text\/event-stream/);
    const [recorded] = json<QuestionBody[]>(await get(`${LIST}?${editor}`));
    t.match(recorded, { question: 'Who made the streamed violin?', answered: true });
    t.ok(recorded.sources.length > 0, 'with the resources the stream cited');
  });

  t.test('bad filters are 422 in the native shape, naming the field', async (t) => {
    const cases: [string, string][] = [
      [`${LIST}?${editor}&answered=maybe`, 'answered'],
      [`${LIST}?${editor}&since=yesterday`, 'since'],
      [`${LIST}?${editor}&until=2026-13-45`, 'until'],
      [`${LIST}?${editor}&since=2026-03-02&until=2026-03-01`, 'until'],
      [`${LIST}?${editor}&site_id=abc`, 'site_id'],
      [`${LIST}?${editor}&page=0`, 'page'],
      [`${SUMMARY}?${editor}&limit=51`, 'limit'],
      [`${SUMMARY}?${editor}&since=2026-03-01T25:00:00Z`, 'since'],
    ];
    for (const [url, field] of cases) {
      const res = await get(url);
      t.equal(res.statusCode, 422, url);
      const body = json<{ errors: Record<string, string[]> }>(res);
      t.ok(Array.isArray(body.errors[field]), `${url}: ${res.body}`);
    }
  });
});
