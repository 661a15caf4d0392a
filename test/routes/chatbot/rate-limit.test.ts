import t from 'tap';
import { buildTestApp, json } from '../../helper.js';
import { FixedClock } from '../../../infra/clock/port.js';
import { form, post } from './support.js';

const LIMITED = { error: 'Rate limit exceeded. Please try again shortly.' };

t.test('one per-IP limit shared by both endpoints', async (t) => {
  const clock = new FixedClock(new Date('2026-03-01T12:00:00Z'));
  const { app } = await buildTestApp(t, { clock, config: { chatbotRateLimit: 3, chatbotRateWindowSeconds: 60 } });

  t.test('valid or not, every POST counts; the fourth is refused with Retry-After', async (t) => {
    const ip = { 'x-forwarded-for': '203.0.113.1' };
    t.equal((await post(app, 'search', { query: 'maps' }, ip)).statusCode, 200);
    t.equal((await post(app, 'chat', {}, ip)).statusCode, 400, 'an invalid request counts too');
    t.equal((await form(app, 'search', 'query=', ip)).statusCode, 400);
    const refused = await post(app, 'chat', { question: 'maps' }, ip);
    t.equal(refused.statusCode, 429);
    t.same(json(refused), LIMITED);
    t.equal(refused.headers['retry-after'], '60');
    const bad = await app.inject({ method: 'POST', url: '/chatbot/api/search', headers: { 'content-type': 'application/json', ...ip }, payload: '{' });
    t.equal(bad.statusCode, 429, 'refused before the body is read');
    t.equal((await app.inject({ method: 'GET', url: '/chatbot/api/search', headers: ip })).statusCode, 405, 'a GET is not limited');

    clock.advance(30_000);
    t.equal((await post(app, 'search', { query: 'maps' }, ip)).headers['retry-after'], '30');
    clock.advance(30_000);
    t.equal((await post(app, 'search', { query: 'maps' }, ip)).statusCode, 200, 'a new window starts');
  });

  t.test('the client IP: Edge-Connecting-IP, then the first X-Forwarded-For address, then the remote address', async (t) => {
    const spend = async (headers: Record<string, string>) => {
      for (let i = 0; i < 3; i++) t.equal((await post(app, 'search', { query: 'x' }, headers)).statusCode, 200);
    };
    await spend({ 'edge-connecting-ip': '198.51.100.7', 'x-forwarded-for': '192.0.2.50' });
    t.equal((await post(app, 'search', { query: 'x' }, { 'edge-connecting-ip': '198.51.100.7' })).statusCode, 429, 'counted for the edge IP');
    t.equal((await post(app, 'search', { query: 'x' }, { 'x-forwarded-for': '192.0.2.50' })).statusCode, 200, 'not for the forwarded one');

    await spend({ 'x-forwarded-for': '192.0.2.60, 10.0.0.1, 10.0.0.2' });
    t.equal((await post(app, 'search', { query: 'x' }, { 'x-forwarded-for': '192.0.2.60' })).statusCode, 429, 'the leftmost address counts');
    t.equal((await post(app, 'search', { query: 'x' }, { 'x-forwarded-for': '10.0.0.1' })).statusCode, 200, 'proxies in the chain do not');

    await spend({});
    t.equal((await post(app, 'search', { query: 'x' })).statusCode, 429, 'no header: the remote address');
    t.equal((await post(app, 'search', { query: 'x' }, { 'x-forwarded-for': '192.0.2.99' })).statusCode, 200, 'a header overrides the remote address');
  });
});

t.test('CHATBOT_RATE_LIMIT and the window come from the configuration', async (t) => {
  const { app } = await buildTestApp(t, { config: { chatbotRateLimit: 1, chatbotRateWindowSeconds: 5 } });
  t.equal((await post(app, 'search', { query: 'x' })).statusCode, 200);
  const refused = await post(app, 'chat', { question: 'x' });
  t.equal(refused.statusCode, 429);
  const retryAfter = Number(refused.headers['retry-after']);
  t.ok(retryAfter >= 1 && retryAfter <= 5, `Retry-After within the 5 s window (${retryAfter})`);
});
