import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { buildApp } from '../../app/app.js';
import { FixedClock } from '../../infra/clock/port.js';
import { buildTestApp, json, keyFor, ROLE_USERS, sessionFor, type RoleName } from '../helper.js';

const fixture = { users: ROLE_USERS, sites: [{ id: 1, slug: 'main', title: 'Main' }] };

t.test('login sets an HttpOnly SameSite=Lax cookie; wrong credentials get 401', async (t) => {
  const { app } = await buildTestApp(t, { fixture });
  const ok = await app.inject({
    method: 'POST',
    url: '/login',
    payload: { email: 'editor@example.org', password: 'editor-pass' },
  });
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

  const bad = await app.inject({
    method: 'POST',
    url: '/login',
    payload: { email: 'editor@example.org', password: 'nope' },
  });
  t.equal(bad.statusCode, 401);
  t.same(json(bad), { errors: { error: 'Invalid email or password.' } });
  const unknown = await app.inject({
    method: 'POST',
    url: '/login',
    payload: { email: 'ghost@example.org', password: 'x' },
  });
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
  const item = (app: typeof first.app) =>
    app.inject({ method: 'POST', url: '/api/item_sets', headers: { cookie }, payload: { 'o:title': 'Set' } });
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

t.test(
  'failed logins: past the limit for one email from one address, every try is a 429 until the window ends',
  async (t) => {
    const clock = new FixedClock(new Date('2026-03-01T10:00:00Z'));
    const { app } = await buildTestApp(t, {
      fixture,
      clock,
      config: { loginMaxFailures: 3, loginFailureWindowSeconds: 60 },
    });
    const login = (password: string, remoteAddress = '10.0.0.1', email = 'editor@example.org') =>
      app.inject({ method: 'POST', url: '/login', remoteAddress, payload: { email, password } });
    for (let i = 0; i < 3; i++) t.equal((await login('wrong')).statusCode, 401, `failure ${i + 1} is a 401`);
    const refused = await login('editor-pass');
    t.equal(refused.statusCode, 429, 'even the right password is refused once the limit is reached');
    t.same(json(refused), { errors: { error: 'Too many failed logins for this email. Try again later.' } });
    t.equal(refused.headers['retry-after'], '60');
    t.notOk(refused.headers['set-cookie'], 'no session');
    t.equal(
      (await login('editor-pass', '10.0.0.1', 'EDITOR@example.org ')).statusCode,
      429,
      'the email counts however it is written',
    );
    t.equal(
      (await login('editor-pass', '10.0.0.2')).statusCode,
      204,
      'the same email from another address is not locked out',
    );
    t.equal(
      (await login('reviewer-pass', '10.0.0.1', 'reviewer@example.org')).statusCode,
      204,
      'another email from the address is not either',
    );
    clock.advance(59_000);
    t.equal((await login('editor-pass')).headers['retry-after'], '1');
    clock.advance(1_000);
    t.equal((await login('editor-pass')).statusCode, 204, 'the window ended');
  },
);

t.test('a successful login clears the failures before it', async (t) => {
  const { app } = await buildTestApp(t, { fixture, config: { loginMaxFailures: 3 } });
  const login = (password: string) =>
    app.inject({ method: 'POST', url: '/login', payload: { email: 'editor@example.org', password } });
  for (let round = 0; round < 3; round++) {
    t.equal((await login('wrong')).statusCode, 401);
    t.equal((await login('wrong')).statusCode, 401);
    t.equal((await login('editor-pass')).statusCode, 204, `round ${round + 1}: two failures and a success`);
  }
});

t.test('LOGIN_MAX_FAILURES=0 counts no failures', async (t) => {
  const { app } = await buildTestApp(t, { fixture, config: { loginMaxFailures: 0 } });
  for (let i = 0; i < 12; i++)
    await app.inject({ method: 'POST', url: '/login', payload: { email: 'editor@example.org', password: 'wrong' } });
  t.equal(
    (
      await app.inject({
        method: 'POST',
        url: '/login',
        payload: { email: 'editor@example.org', password: 'editor-pass' },
      })
    ).statusCode,
    204,
  );
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
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/sites?key_identity=editor-id' })).statusCode,
    403,
    'half a pair is refused',
  );
  t.equal((await write('')).statusCode, 403, 'anonymous writes are refused');
  t.equal((await app.inject({ method: 'GET', url: '/api/sites' })).statusCode, 200, 'anonymous reads are fine');
});

t.test('a key verified once is cached, and still checked for the right credential', async (t) => {
  const { app } = await buildTestApp(t, { fixture });
  for (let i = 0; i < 3; i++) {
    t.equal((await app.inject({ method: 'GET', url: `/api/sites?${keyFor('editor')}` })).statusCode, 200);
  }
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/sites?key_identity=editor-id&key_credential=editor-secreT' }))
      .statusCode,
    403,
  );
});

t.test(
  'a login for an email without an account runs a password check, so its time does not tell which emails exist',
  async (t) => {
    // scrypt at 2^15, about 0.1 s a check here: a hundred times the rest of a login (0.7 ms).
    const users = [
      ROLE_USERS[2],
      { id: 9, email: 'keys-only@example.org', name: 'Keys Only', role: 'editor', api_keys: [] },
    ];
    const { app } = await buildTestApp(t, {
      fixture: { users },
      config: { secretHashCost: 32768, loginMaxFailures: 0 },
    });
    const fastest = async (email: string): Promise<number> => {
      let best = Infinity;
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        const answer = await app.inject({ method: 'POST', url: '/login', payload: { email, password: 'wrong' } });
        best = Math.min(best, performance.now() - started);
        t.equal(answer.statusCode, 401, email);
      }
      return best;
    };
    const wrongPassword = await fastest('editor@example.org');
    for (const email of ['ghost@example.org', 'keys-only@example.org']) {
      const took = await fastest(email);
      t.ok(
        took > wrongPassword / 2,
        `${email}: ${took.toFixed(1)} ms at best, a wrong password ${wrongPassword.toFixed(1)} ms`,
      );
    }
  },
);
