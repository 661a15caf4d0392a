import { randomUUID } from 'node:crypto';
import t from 'tap';
import { buildTestApp } from '../../helper.js';
import { directoryFixture } from './fixture.js';

const redisUrl = process.env.REDIS_URL;

t.test(
  'with REDIS_URL, app instances share the per-token count',
  { skip: redisUrl ? false : 'REDIS_URL is not set' },
  async (t) => {
    // A fresh token per run: counts in Redis outlive the test for up to a minute.
    const token = `redis-token-${randomUUID()}`;
    const fixture = { directory: directoryFixture({ tokens: [{ token, allowed_origins: [] }] }) };
    const one = await buildTestApp(t, { fixture, config: { redisUrl } });
    const two = await buildTestApp(t, { fixture, config: { redisUrl } });
    const call = (app: typeof one.app) => app.inject({ method: 'GET', url: `/api/v1/types?token=${token}` });
    for (let i = 0; i < 60; i++) {
      const [a, b] = await Promise.all([call(one.app), call(two.app)]);
      if (a.statusCode !== 200 || b.statusCode !== 200) t.fail(`round ${i}: ${a.statusCode} ${b.statusCode}`);
    }
    const last = await call(one.app);
    t.equal(last.statusCode, 429, 'the 121st request is refused, though this instance saw only 61');
    t.equal(last.headers['x-ratelimit-remaining'], '0');
    t.ok(Number(last.headers['retry-after']) >= 1);
    t.equal((await call(two.app)).statusCode, 429);
  },
);

t.test('with Redis away, requests are let through uncounted rather than refused, fast', async (t) => {
  const token = 'redis-away-token';
  const fixture = { directory: directoryFixture({ tokens: [{ token, allowed_origins: [] }] }) };
  // Nothing listens on port 1: every connection attempt is refused at once.
  const { app } = await buildTestApp(t, { fixture, config: { redisUrl: 'redis://127.0.0.1:1' } });
  const started = Date.now();
  const answer = await app.inject({ method: 'GET', url: `/api/v1/types?token=${token}` });
  const ms = Date.now() - started;
  t.equal(answer.statusCode, 200, answer.body);
  t.notOk(answer.headers['x-ratelimit-remaining'], 'no count to report');
  t.ok(ms < 3_000, `the first answered in ${ms} ms`);
  // Once Redis is known to be away, requests no longer wait for it at all.
  for (let i = 0; i < 5; i++) {
    const again = Date.now();
    t.equal((await app.inject({ method: 'GET', url: `/api/v1/types?token=${token}` })).statusCode, 200);
    const took = Date.now() - again;
    t.ok(took < 300, `then one answered in ${took} ms`);
  }
});
