import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { buildApp } from '../../app/app.js';
import { buildTestApp, json, keyFor, ROLE_USERS, sessionFor, type RoleName } from '../helper.js';

const fixture = { users: ROLE_USERS, sites: [{ id: 1, slug: 'main', title: 'Main' }] };

t.test('login sets an HttpOnly SameSite=Lax cookie; wrong credentials get 401', async (t) => {
  const { app } = await buildTestApp(t, { fixture });
  const ok = await app.inject({ method: 'POST', url: '/login', payload: { email: 'editor@example.org', password: 'editor-pass' } });
  t.equal(ok.statusCode, 204);
  const setCookie = String(ok.headers['set-cookie']);
  t.match(setCookie, /sid=/);
  t.match(setCookie, /HttpOnly/);
  t.match(setCookie, /SameSite=Lax/);

  const form = await app.inject({
    method: 'POST',
    url: '/login',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'email=editor%40example.org&password=editor-pass',
  });
  t.equal(form.statusCode, 204, 'form bodies are accepted');

  const bad = await app.inject({ method: 'POST', url: '/login', payload: { email: 'editor@example.org', password: 'nope' } });
  t.equal(bad.statusCode, 401);
  t.same(json(bad), { errors: { error: 'Invalid email or password.' } });
  const unknown = await app.inject({ method: 'POST', url: '/login', payload: { email: 'ghost@example.org', password: 'x' } });
  t.equal(unknown.statusCode, 401);
});

t.test('logout ends the session', async (t) => {
  const { app } = await buildTestApp(t, { fixture });
  const cookie = await sessionFor(app, 'editor');
  const create = () =>
    app.inject({ method: 'POST', url: '/api/item_sets', headers: { cookie }, payload: { 'o:title': 'Set' } });
  t.equal((await create()).statusCode, 201);
  const out = await app.inject({ method: 'POST', url: '/logout', headers: { cookie } });
  t.equal(out.statusCode, 204);
  t.equal((await create()).statusCode, 403, 'after logout the cookie is anonymous');
});

t.test('a session outlives a restart of the server, and a logout on one server ends it on another', async (t) => {
  const dataDir = t.testdir();
  // Closed by hand below, to restart over the same data.
  const first = await buildTestApp({ testdir: () => dataDir, teardown: () => undefined }, { fixture });
  const cookie = await sessionFor(first.app, 'editor');
  const item = (app: typeof first.app) => app.inject({ method: 'POST', url: '/api/item_sets', headers: { cookie }, payload: { 'o:title': 'Set' } });
  t.equal((await item(first.app)).statusCode, 201);
  await first.app.close();
  await first.runtime.close();

  const restarted = await buildTestApp({ testdir: () => dataDir, teardown: (fn) => t.teardown(fn) });
  t.equal((await item(restarted.app)).statusCode, 201, 'the editor is still logged in after the restart');
  const sessionsFile = readFileSync(join(dataDir, 'sessions.sqlite')).toString('latin1');
  t.notOk(sessionsFile.includes(cookie.slice('sid='.length)), 'the sessions file holds no token');

  const second = await buildApp(restarted.runtime);
  t.teardown(() => second.close());
  t.equal((await item(second)).statusCode, 201, 'a second server over the same data shares the session');
  t.equal((await second.inject({ method: 'POST', url: '/logout', headers: { cookie } })).statusCode, 204);
  t.equal((await item(restarted.app)).statusCode, 403, 'logged out everywhere');
});

t.test('API keys: every role, wrong pair, half pair, no key', async (t) => {
  const { app } = await buildTestApp(t, { fixture });
  const write = (query: string) =>
    app.inject({ method: 'POST', url: `/api/item_sets?${query}`, payload: { 'o:title': 'Set' } });
  const expected: Record<RoleName, number> = {
    global_admin: 201,
    site_admin: 201,
    editor: 201,
    reviewer: 403,
    author: 403,
    researcher: 403,
  };
  for (const [role, status] of Object.entries(expected)) {
    t.equal((await write(keyFor(role as RoleName))).statusCode, status, `${role} writes: ${status}`);
  }
  const wrong = await write('key_identity=editor-id&key_credential=wrong');
  t.equal(wrong.statusCode, 403, 'a wrong credential is refused');
  t.same(json(wrong), { errors: { error: 'Invalid API key.' } });
  const wrongRead = await app.inject({ method: 'GET', url: '/api/sites?key_identity=nobody&key_credential=x' });
  t.equal(wrongRead.statusCode, 403, 'a wrong pair is never treated as anonymous, even for reads');
  t.equal((await app.inject({ method: 'GET', url: '/api/sites?key_identity=editor-id' })).statusCode, 403, 'half a pair is refused');
  t.equal((await write('')).statusCode, 403, 'anonymous writes are refused');
  t.equal((await app.inject({ method: 'GET', url: '/api/sites' })).statusCode, 200, 'anonymous reads are fine');
});

t.test('a key verified once is cached, and still checked for the right credential', async (t) => {
  const { app } = await buildTestApp(t, { fixture });
  for (let i = 0; i < 3; i++) {
    t.equal((await app.inject({ method: 'GET', url: `/api/sites?${keyFor('editor')}` })).statusCode, 200);
  }
  t.equal((await app.inject({ method: 'GET', url: '/api/sites?key_identity=editor-id&key_credential=editor-secreT' })).statusCode, 403);
});
