import t from 'tap';
import { buildTestApp, json } from '../../helper.js';
import { DependencyUnavailableError } from '../../../infra/errors.js';
import { chatbotModule } from '../../../app/modules/chatbot.js';
import { chatbotFixture, post, settle } from './support.js';

const PAGE = 'https://museum.example.org';
const OTHER = 'https://elsewhere.example.net';

function preflight(
  app: Awaited<ReturnType<typeof buildTestApp>>['app'],
  path: 'chat' | 'search',
  origin?: string,
  ip = '203.0.113.9',
) {
  const headers: Record<string, string> = {
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'content-type',
    'x-forwarded-for': ip,
  };
  if (origin !== undefined) headers.origin = origin;
  return app.inject({ method: 'OPTIONS', url: `/chatbot/api/${path}`, headers });
}

t.test('by default any origin may call both endpoints', async (t) => {
  const { app, runtime } = await buildTestApp(t, { fixture: chatbotFixture, config: { chatbotRateLimit: 2 } });
  await settle(runtime);

  t.test('the preflight answers 204 with what the POST may use', async (t) => {
    for (const path of ['chat', 'search'] as const) {
      const res = await preflight(app, path, PAGE);
      t.equal(res.statusCode, 204, path);
      t.equal(res.headers['access-control-allow-origin'], '*');
      t.equal(res.headers['access-control-allow-methods'], 'POST');
      t.equal(res.headers['access-control-allow-headers'], 'content-type');
      t.equal(res.headers['access-control-max-age'], '600');
      t.notOk(res.headers['access-control-allow-credentials'], 'no credentials are ever allowed');
      t.equal(res.body, '');
    }
  });

  t.test('answers and errors carry Access-Control-Allow-Origin and expose Retry-After', async (t) => {
    const ip = { origin: PAGE, 'x-forwarded-for': '198.51.100.1' };
    const ok = await post(app, 'chat', { question: 'When does the museum open on Saturdays?' }, ip);
    t.equal(ok.statusCode, 200);
    t.equal(ok.headers['access-control-allow-origin'], '*');
    t.equal(ok.headers['access-control-expose-headers'], 'Retry-After');
    t.notOk(ok.headers['access-control-allow-credentials']);

    const invalid = await post(app, 'search', {}, ip);
    t.equal(invalid.statusCode, 400);
    t.equal(invalid.headers['access-control-allow-origin'], '*', 'a 400 is readable by the page');

    const limited = await post(app, 'search', { query: 'violin' }, ip);
    t.equal(limited.statusCode, 429);
    t.same(json(limited), { error: 'Rate limit exceeded. Please try again shortly.' });
    t.equal(limited.headers['access-control-allow-origin'], '*', 'a 429 is readable by the page');
    t.equal(limited.headers['access-control-expose-headers'], 'Retry-After');
    t.ok(limited.headers['retry-after']);

    const badJson = await app.inject({
      method: 'POST',
      url: '/chatbot/api/chat',
      headers: { 'content-type': 'application/json', origin: PAGE },
      payload: '{',
    });
    t.equal(badJson.statusCode, 400);
    t.equal(badJson.headers['access-control-allow-origin'], '*', 'a body that is not JSON is readable too');
  });

  t.test('a 503 and a 500 carry Access-Control-Allow-Origin too', async (t) => {
    const services = runtime.module(chatbotModule).services;
    const original = services.answerer;
    t.teardown(() => {
      services.answerer = original;
    });
    const headers = { origin: PAGE, 'x-forwarded-for': '198.51.100.2' };
    services.answerer = {
      answer: async () => {
        throw new DependencyUnavailableError(
          'model provider',
          'The language model provider returned an error while answering (HTTP 500).',
        );
      },
    };
    const unavailable = await post(app, 'chat', { question: 'Who made the violin?' }, headers);
    t.equal(unavailable.statusCode, 503);
    t.equal(unavailable.headers['access-control-allow-origin'], '*');
    services.answerer = {
      answer: async () => {
        throw new TypeError('a bug');
      },
    };
    const bug = await post(app, 'chat', { question: 'Who made the violin?' }, headers);
    t.equal(bug.statusCode, 500);
    t.equal(bug.headers['access-control-allow-origin'], '*');
  });

  t.test('preflights do not count toward the per-IP limit', async (t) => {
    const ip = '192.0.2.44';
    for (let i = 0; i < 5; i++) t.equal((await preflight(app, i % 2 ? 'chat' : 'search', PAGE, ip)).statusCode, 204);
    const headers = { origin: PAGE, 'x-forwarded-for': ip };
    t.equal(
      (await post(app, 'search', { query: 'violin' }, headers)).statusCode,
      200,
      'the first POST after five preflights',
    );
    t.equal(
      (await post(app, 'search', { query: 'violin' }, headers)).statusCode,
      200,
      'the second: still within the limit of 2',
    );
    t.equal(
      (await post(app, 'search', { query: 'violin' }, headers)).statusCode,
      429,
      'the third POST is the first refused',
    );
    t.equal((await preflight(app, 'chat', PAGE, ip)).statusCode, 204, 'a preflight is answered even past the limit');
  });

  t.test('other methods still answer 405, and only the two endpoints have a preflight', async (t) => {
    t.equal((await app.inject({ method: 'GET', url: '/chatbot/api/chat', headers: { origin: PAGE } })).statusCode, 405);
    t.equal(
      (await app.inject({ method: 'OPTIONS', url: '/chatbot/api/other', headers: { origin: PAGE } })).statusCode,
      404,
    );
  });
});

t.test('CHATBOT_ALLOWED_ORIGINS restricts which pages may call', async (t) => {
  const { app } = await buildTestApp(t, { config: { chatbotAllowedOrigins: [PAGE] } });

  t.test('a listed origin is echoed, with Vary: Origin', async (t) => {
    const pre = await preflight(app, 'chat', PAGE);
    t.equal(pre.statusCode, 204);
    t.equal(pre.headers['access-control-allow-origin'], PAGE);
    t.match(pre.headers.vary, /Origin/);
    const res = await post(app, 'search', { query: 'violin' }, { origin: PAGE });
    t.equal(res.statusCode, 200);
    t.equal(res.headers['access-control-allow-origin'], PAGE);
    t.match(res.headers.vary, /Origin/);
    const upper = await post(app, 'search', { query: 'violin' }, { origin: 'HTTPS://Museum.Example.org' });
    t.equal(upper.headers['access-control-allow-origin'], 'HTTPS://Museum.Example.org', 'origins compare as URLs do');
  });

  t.test('another origin gets no CORS headers, and its preflight a 403 in the chatbot error shape', async (t) => {
    const pre = await preflight(app, 'chat', OTHER);
    t.equal(pre.statusCode, 403);
    t.same(json(pre), { error: 'This origin may not call the chatbot.' });
    t.notOk(pre.headers['access-control-allow-origin']);
    t.notOk(pre.headers['access-control-allow-methods']);
    t.match(pre.headers.vary, /Origin/);
    const res = await post(app, 'search', { query: 'violin' }, { origin: OTHER });
    t.notOk(res.headers['access-control-allow-origin'], 'the browser keeps the answer from that page');
    t.match(res.headers.vary, /Origin/);
  });

  t.test('a call without Origin (server to server) is answered, without CORS headers', async (t) => {
    const res = await post(app, 'search', { query: 'violin' });
    t.equal(res.statusCode, 200);
    t.notOk(res.headers['access-control-allow-origin']);
  });
});
