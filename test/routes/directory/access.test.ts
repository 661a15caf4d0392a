import t from 'tap';
import { configureLibrary } from '../../../commands/directory/handlers.js';
import { buildTestApp, json } from '../../helper.js';
import { directoryFixture, LIBRARY_ORIGIN, OPEN_TOKEN, SITE_TOKEN } from './fixture.js';

const ENDPOINTS = [
  '/api/v1/library',
  '/api/v1/databases',
  '/api/v1/databases/jstor',
  '/api/v1/subjects',
  '/api/v1/types',
  '/api/v1/lists/starter',
];

t.test('tokens and origins', async (t) => {
  const { app } = await buildTestApp(t, { fixture: { directory: directoryFixture() } });

  t.test('missing or wrong token: 401 with {error} on every endpoint', async (t) => {
    for (const url of ENDPOINTS) {
      const none = await app.inject({ method: 'GET', url });
      t.equal(none.statusCode, 401, `${url} without a token`);
      t.same(Object.keys(json(none)), ['error']);
      t.match(none.headers['www-authenticate'], /^Bearer/);
      const wrong = await app.inject({ method: 'GET', url: `${url}?token=nope` });
      t.equal(wrong.statusCode, 401, `${url} with a wrong token`);
    }
    const basic = await app.inject({
      method: 'GET',
      url: '/api/v1/library',
      headers: { authorization: `Basic ${OPEN_TOKEN}` },
    });
    t.equal(basic.statusCode, 401, 'another Authorization scheme is refused');
    const empty = await app.inject({ method: 'GET', url: '/api/v1/library?token=' });
    t.equal(empty.statusCode, 401, 'an empty token is refused');
    t.equal(json<{ error: string }>(empty).error, 'The directory API token is not valid.');
  });

  t.test('the token is accepted as Bearer header or ?token=', async (t) => {
    t.equal(
      (await app.inject({ method: 'GET', url: '/api/v1/library', headers: { authorization: `Bearer ${OPEN_TOKEN}` } }))
        .statusCode,
      200,
    );
    t.equal(
      (await app.inject({ method: 'GET', url: '/api/v1/library', headers: { authorization: `bearer ${OPEN_TOKEN}` } }))
        .statusCode,
      200,
    );
    t.equal((await app.inject({ method: 'GET', url: `/api/v1/library?token=${OPEN_TOKEN}` })).statusCode, 200);
    const headerWins = await app.inject({
      method: 'GET',
      url: `/api/v1/library?token=${OPEN_TOKEN}`,
      headers: { authorization: 'Bearer nope' },
    });
    t.equal(headerWins.statusCode, 401, 'the header is the token when both are sent');
  });

  t.test('a token with allowed origins', async (t) => {
    const from = (origin?: string, url = '/api/v1/databases') =>
      app.inject({ method: 'GET', url: `${url}?token=${SITE_TOKEN}`, headers: origin ? { origin } : {} });
    const serverToServer = await from();
    t.equal(serverToServer.statusCode, 200, 'no Origin header: not refused for its origin');
    t.notOk(serverToServer.headers['access-control-allow-origin']);

    const allowed = await from(LIBRARY_ORIGIN);
    t.equal(allowed.statusCode, 200);
    t.equal(allowed.headers['access-control-allow-origin'], LIBRARY_ORIGIN, 'CORS echoes the allowed origin');
    t.match(String(allowed.headers.vary), /Origin/);

    for (const origin of [
      'https://evil.example.com',
      'http://library.example.edu',
      'https://library.example.edu:8443',
      'null',
    ]) {
      for (const url of ENDPOINTS) {
        const refused = await from(origin, url);
        t.equal(refused.statusCode, 403, `${origin} ${url} is refused`);
        t.same(Object.keys(json(refused)), ['error']);
        t.notOk(refused.headers['access-control-allow-origin'], 'no CORS header for a refused origin');
      }
    }
  });

  t.test('a token without allowed origins works from any site', async (t) => {
    const res = await app.inject({
      method: 'GET',
      url: `/api/v1/subjects?token=${OPEN_TOKEN}`,
      headers: { origin: 'https://anywhere.example.org' },
    });
    t.equal(res.statusCode, 200);
    t.equal(res.headers['access-control-allow-origin'], 'https://anywhere.example.org');
  });

  t.test('CORS preflight', async (t) => {
    const preflight = (url: string, origin: string) =>
      app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      });
    const ok = await preflight('/api/v1/databases', LIBRARY_ORIGIN);
    t.equal(ok.statusCode, 204);
    t.equal(ok.headers['access-control-allow-origin'], LIBRARY_ORIGIN);
    t.match(String(ok.headers['access-control-allow-headers']), /Authorization/i);
    t.match(String(ok.headers['access-control-allow-methods']), /GET/);
    const refused = await preflight(`/api/v1/databases?token=${SITE_TOKEN}`, 'https://evil.example.com');
    t.equal(refused.statusCode, 403, 'a preflight with a query token is checked against its origins');
    t.notOk(refused.headers['access-control-allow-origin']);
    const allowedWithToken = await preflight(`/api/v1/library?token=${SITE_TOKEN}`, LIBRARY_ORIGIN);
    t.equal(allowedWithToken.statusCode, 204);
  });
});

t.test('plan rule: only plus and trial may use the API', async (t) => {
  const { app, runtime } = await buildTestApp(t, { fixture: { directory: directoryFixture({ plan: 'basic' }) } });
  for (const [plan, status] of [
    ['basic', 403],
    ['trial', 200],
    ['plus', 200],
    ['basic', 403],
  ] as const) {
    await configureLibrary(runtime.commandContext(null), { plan });
    for (const url of ENDPOINTS) {
      const res = await app.inject({
        method: 'GET',
        url: `${url}?token=${OPEN_TOKEN}`,
        headers: { origin: 'https://anywhere.example.org' },
      });
      t.equal(res.statusCode, status, `${plan}: ${url} is ${status}`);
      if (status === 403) {
        t.match(json<{ error: string }>(res).error, /plan/);
        t.equal(res.headers['access-control-allow-origin'], 'https://anywhere.example.org', 'the widget can read why');
      }
    }
  }
  const bare = await buildTestApp(t, {
    fixture: { directory: { tokens: [{ token: OPEN_TOKEN, allowed_origins: [] }] } },
  });
  const res = await bare.app.inject({ method: 'GET', url: `/api/v1/library?token=${OPEN_TOKEN}` });
  t.equal(res.statusCode, 403, 'no library configured: no plan, no access');
});

t.test('rate limit: 120 requests per minute per token', async (t) => {
  const { app } = await buildTestApp(t, { fixture: { directory: directoryFixture() } });
  const call = (token: string, origin?: string) =>
    app.inject({ method: 'GET', url: `/api/v1/types?token=${token}`, headers: origin ? { origin } : {} });
  const first = await call(OPEN_TOKEN);
  t.equal(first.headers['x-ratelimit-limit'], '120');
  t.equal(first.headers['x-ratelimit-remaining'], '119');
  t.ok(Number(first.headers['x-ratelimit-reset']) > 0, 'reset header');
  for (let i = 2; i <= 120; i++) {
    const res = await call(OPEN_TOKEN);
    if (res.statusCode !== 200) t.fail(`request ${i} was ${res.statusCode}`);
  }
  const over = await call(OPEN_TOKEN, 'https://anywhere.example.org');
  t.equal(over.statusCode, 429, 'request 121 is refused');
  t.same(Object.keys(json(over)), ['error']);
  t.match(json<{ error: string }>(over).error, /Rate limit exceeded/);
  const retryAfter = Number(over.headers['retry-after']);
  t.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After is ${over.headers['retry-after']}`);
  t.equal(over.headers['x-ratelimit-remaining'], '0');
  t.equal(over.headers['access-control-allow-origin'], 'https://anywhere.example.org', 'the widget can read the 429');
  t.equal(
    (await app.inject({ method: 'GET', url: `/api/v1/databases/jstor?token=${OPEN_TOKEN}` })).statusCode,
    429,
    'one count for every endpoint',
  );
  t.equal((await call(SITE_TOKEN)).statusCode, 200, 'another token has its own count');
  const bad = await app.inject({ method: 'GET', url: '/api/v1/types?token=nope' });
  t.equal(bad.statusCode, 401, 'an unknown token is 401, not 429');
  t.notOk(bad.headers['x-ratelimit-limit'], 'refused tokens are not counted');
});
