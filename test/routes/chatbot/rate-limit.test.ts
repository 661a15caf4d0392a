import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { buildTestApp, json } from '../../helper.js';
import { form, post } from './support.js';

const LIMITED = { error: 'Rate limit exceeded. Please try again shortly.' };
const redisUrl = process.env.REDIS_URL;

/** An address no other run uses: counts in Redis outlive a test for up to its window. */
function freshAddress(): string {
  return `2001:db8::${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;
}

/**
 * The Retry-After values a window could show: the limiter reads its own clock, so the window began
 * somewhere between sending the first request and its answer, and the refusal was timed somewhere
 * between sending it and its answer. On a loaded machine those moments are far apart.
 */
function secondsLeftBounds(
  windowMs: number,
  began: { sent: number; answered: number },
  refusal: { sent: number; answered: number },
): [number, number] {
  const left = (elapsedMs: number) => Math.max(1, Math.ceil((windowMs - elapsedMs) / 1000));
  return [left(refusal.answered - began.sent), left(refusal.sent - began.answered)];
}

async function timed<T>(request: () => Promise<T>): Promise<{ answer: T; sent: number; answered: number }> {
  const sent = Date.now();
  const answer = await request();
  return { answer, sent, answered: Date.now() };
}

function assertSecondsLeft(t: Test, header: unknown, bounds: [number, number], message: string): void {
  const seconds = Number(header);
  t.ok(
    seconds >= bounds[0] && seconds <= bounds[1],
    `${message}: Retry-After ${String(header)} within ${bounds[0]}..${bounds[1]}`,
  );
}

t.test('one per-IP limit shared by both endpoints', async (t) => {
  const { app } = await buildTestApp(t, { config: { chatbotRateLimit: 3, chatbotRateWindowSeconds: 60 } });

  t.test('valid or not, every POST counts; the fourth is refused with Retry-After', async (t) => {
    const ip = { 'x-forwarded-for': '203.0.113.1' };
    const first = await timed(() => post(app, 'search', { query: 'maps' }, ip));
    t.equal(first.answer.statusCode, 200);
    t.equal((await post(app, 'chat', {}, ip)).statusCode, 400, 'an invalid request counts too');
    t.equal((await form(app, 'search', 'query=', ip)).statusCode, 400);
    const refusal = await timed(() => post(app, 'chat', { question: 'maps' }, ip));
    const refused = refusal.answer;
    t.equal(refused.statusCode, 429);
    t.same(json(refused), LIMITED);
    assertSecondsLeft(t, refused.headers['retry-after'], secondsLeftBounds(60_000, first, refusal), 'the window left');
    t.notOk(refused.headers['x-ratelimit-limit'], 'no count headers: the chatbot answers as before');
    const streamed = await post(app, 'chat', { question: 'maps' }, { ...ip, accept: 'text/event-stream' });
    t.same(
      [streamed.statusCode, json(streamed)],
      [429, LIMITED],
      'the streamed answer is refused the same, before any event',
    );
    t.ok(Number(streamed.headers['retry-after']) >= 1, 'with Retry-After');
    const bad = await app.inject({
      method: 'POST',
      url: '/chatbot/api/search',
      headers: { 'content-type': 'application/json', ...ip },
      payload: '{',
    });
    t.equal(bad.statusCode, 429, 'refused before the body is read');
    t.equal(
      (await app.inject({ method: 'GET', url: '/chatbot/api/search', headers: ip })).statusCode,
      405,
      'a GET is not limited',
    );
  });

  t.test(
    'the client IP: Edge-Connecting-IP, then the first X-Forwarded-For address, then the remote address',
    async (t) => {
      const spend = async (headers: Record<string, string>) => {
        for (let i = 0; i < 3; i++) t.equal((await post(app, 'search', { query: 'x' }, headers)).statusCode, 200);
      };
      await spend({ 'edge-connecting-ip': '198.51.100.7', 'x-forwarded-for': '192.0.2.50' });
      t.equal(
        (await post(app, 'search', { query: 'x' }, { 'edge-connecting-ip': '198.51.100.7' })).statusCode,
        429,
        'counted for the edge IP',
      );
      t.equal(
        (await post(app, 'search', { query: 'x' }, { 'x-forwarded-for': '192.0.2.50' })).statusCode,
        200,
        'not for the forwarded one',
      );

      await spend({ 'x-forwarded-for': '192.0.2.60, 10.0.0.1, 10.0.0.2' });
      t.equal(
        (await post(app, 'search', { query: 'x' }, { 'x-forwarded-for': '192.0.2.60' })).statusCode,
        429,
        'the leftmost address counts',
      );
      t.equal(
        (await post(app, 'search', { query: 'x' }, { 'x-forwarded-for': '10.0.0.1' })).statusCode,
        200,
        'proxies in the chain do not',
      );

      await spend({});
      t.equal((await post(app, 'search', { query: 'x' })).statusCode, 429, 'no header: the remote address');
      t.equal(
        (await post(app, 'search', { query: 'x' }, { 'x-forwarded-for': '192.0.2.99' })).statusCode,
        200,
        'a header overrides the remote address',
      );
    },
  );
});

t.test(
  'CHATBOT_RATE_LIMIT and the window come from the configuration; Retry-After counts down; a new window starts',
  async (t) => {
    const { app } = await buildTestApp(t, { config: { chatbotRateLimit: 1, chatbotRateWindowSeconds: 2 } });
    // The first search starts the sentence model, seconds on a busy machine: longer than the window.
    t.equal(
      (await post(app, 'search', { query: 'x' }, { 'x-forwarded-for': '192.0.2.200' })).statusCode,
      200,
      'warmed up from another address',
    );
    const first = await timed(() => post(app, 'search', { query: 'x' }));
    t.equal(first.answer.statusCode, 200);
    const refusal = await timed(() => post(app, 'chat', { question: 'x' }));
    t.equal(refusal.answer.statusCode, 429);
    assertSecondsLeft(
      t,
      refusal.answer.headers['retry-after'],
      secondsLeftBounds(2_000, first, refusal),
      'at once, the whole 2 s window is left',
    );
    await sleep(Math.max(0, first.answered + 1_100 - Date.now()));
    const later = await timed(() => post(app, 'chat', { question: 'x' }));
    if (later.sent - first.sent < 2_000) {
      t.equal(later.answer.statusCode, 429);
      assertSecondsLeft(
        t,
        later.answer.headers['retry-after'],
        secondsLeftBounds(2_000, first, later),
        'over a second later, it counts down',
      );
      t.ok(Number(later.answer.headers['retry-after']) < 2, 'less than a second is left');
    }
    await sleep(Math.max(0, first.answered + 2_050 - Date.now()));
    t.equal((await post(app, 'search', { query: 'x' })).statusCode, 200, 'the window has ended: a new one starts');
  },
);

t.test('CHATBOT_RATE_LIMIT=0 turns the limit off', async (t) => {
  const { app } = await buildTestApp(t, { config: { chatbotRateLimit: 0, chatbotRateWindowSeconds: 60 } });
  for (let i = 0; i < 15; i++) {
    const answer = await post(app, 'search', { query: 'x' });
    if (answer.statusCode !== 200) t.fail(`request ${i + 1}: ${answer.statusCode}`);
  }
  t.pass('15 requests from one address, none refused');
});

t.test(
  'with REDIS_URL, servers share one budget per address in Redis',
  { skip: redisUrl ? false : 'REDIS_URL is not set' },
  async (t) => {
    // Servers of one deployment: the same DATA_DIR (t.testdir() is one directory per test).
    const config = { redisUrl, chatbotRateLimit: 3, chatbotRateWindowSeconds: 60 };
    const one = await buildTestApp(t, { config });
    const two = await buildTestApp(t, { config });
    // The first search starts the sentence model, seconds on a busy machine: warmed up from elsewhere.
    t.equal((await post(one.app, 'search', { query: 'maps' }, { 'x-forwarded-for': freshAddress() })).statusCode, 200);
    const ip = { 'x-forwarded-for': freshAddress() };
    const first = await timed(() => post(one.app, 'search', { query: 'maps' }, ip));
    t.equal(first.answer.statusCode, 200);
    t.equal((await post(two.app, 'chat', {}, ip)).statusCode, 400, 'an invalid request counts on the other server too');
    t.equal((await post(one.app, 'search', { query: 'maps' }, ip)).statusCode, 200);
    const refusal = await timed(() => post(two.app, 'search', { query: 'maps' }, ip));
    const refused = refusal.answer;
    t.equal(refused.statusCode, 429, 'the fourth request is refused, though this server saw only two');
    t.same(json(refused), LIMITED);
    assertSecondsLeft(
      t,
      refused.headers['retry-after'],
      secondsLeftBounds(60_000, first, refusal),
      "the window's time left",
    );
    t.equal(
      (await post(one.app, 'chat', { question: 'maps' }, { 'x-forwarded-for': freshAddress() })).statusCode,
      200,
      'another address has its own budget',
    );
  },
);

t.test(
  'with REDIS_URL, another deployment on the same Redis has its own budget',
  { skip: redisUrl ? false : 'REDIS_URL is not set' },
  async (t) => {
    // Two DATA_DIRs: two deployments, as two museums' servers on one Redis.
    const config = { redisUrl, chatbotRateLimit: 2, chatbotRateWindowSeconds: 60 };
    const one = await buildTestApp(t, { config: { ...config, dataDir: join(t.testdir(), 'one') } });
    const two = await buildTestApp(t, { config: { ...config, dataDir: join(t.testdir(), 'two') } });
    const ip = { 'x-forwarded-for': freshAddress() };
    t.equal((await post(one.app, 'search', { query: 'maps' }, ip)).statusCode, 200);
    t.equal((await post(one.app, 'search', { query: 'maps' }, ip)).statusCode, 200);
    t.equal(
      (await post(one.app, 'search', { query: 'maps' }, ip)).statusCode,
      429,
      "the first deployment's budget is spent",
    );
    t.equal((await post(two.app, 'search', { query: 'maps' }, ip)).statusCode, 200, "the other deployment's is whole");
  },
);

t.test('with Redis away, a POST is a fast 503 in the chatbot error shape, never let through uncounted', async (t) => {
  // Nothing listens on port 1: every connection attempt is refused at once.
  const { app } = await buildTestApp(t, { config: { redisUrl: 'redis://127.0.0.1:1', chatbotRateLimit: 3 } });
  for (const endpoint of ['search', 'chat'] as const) {
    const started = Date.now();
    const answer = await post(app, endpoint, endpoint === 'search' ? { query: 'maps' } : { question: 'maps' }, {
      origin: 'https://museum.example.org',
    });
    const ms = Date.now() - started;
    t.equal(answer.statusCode, 503, endpoint);
    t.same(json(answer), { error: 'The rate limit store is unavailable.' });
    t.equal(answer.headers['access-control-allow-origin'], '*', 'the page can read why');
    t.ok(ms < 3_000, `${endpoint} answered in ${ms} ms`);
  }
  const preflight = await app.inject({
    method: 'OPTIONS',
    url: '/chatbot/api/chat',
    headers: { origin: 'https://museum.example.org' },
  });
  t.equal(preflight.statusCode, 204, 'a preflight does not ask Redis');
});
