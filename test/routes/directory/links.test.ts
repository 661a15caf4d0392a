import t from 'tap';
import { FixedClock } from '../../../infra/clock/port.js';
import { buildTestApp, json, keyFor, ROLE_USERS } from '../../helper.js';
import { directoryFixture, OPEN_TOKEN, PROXY_PREFIX } from './fixture.js';

t.test('tracked redirect, click counts and details pages', async (t) => {
  const clock = new FixedClock(new Date('2026-03-01T10:00:00Z'));
  const { app, runtime } = await buildTestApp(t, {
    fixture: { users: ROLE_USERS, directory: directoryFixture() },
    clock,
  });
  const clicks = (query = '') =>
    app.inject({ method: 'GET', url: `/api/directory/clicks?${keyFor('global_admin')}${query}` });

  t.test('links.open answers 302 to the database, behind the proxy when proxied', async (t) => {
    const list = json<{ data: { handle: string; links: { open: string } }[] }>(
      await app.inject({ method: 'GET', url: `/api/v1/databases?token=${OPEN_TOKEN}` }),
    );
    const openOf = (handle: string) => new URL(list.data.find((d) => d.handle === handle)!.links.open).pathname;
    const proxied = await app.inject({ method: 'GET', url: openOf('jstor') });
    t.equal(proxied.statusCode, 302);
    t.equal(
      proxied.headers.location,
      `${PROXY_PREFIX}https://www.jstor.org/`,
      'the URL is appended to the prefix as it is',
    );
    t.equal(proxied.headers['cache-control'], 'no-store', 'every click reaches the server');
    const withQuery = await app.inject({ method: 'GET', url: openOf('zeta') });
    t.equal(withQuery.headers.location, `${PROXY_PREFIX}https://zeta.example.com/search?a=1&b=2`);
    const direct = await app.inject({ method: 'GET', url: openOf('pubmed') });
    t.equal(direct.statusCode, 302);
    t.equal(direct.headers.location, 'https://pubmed.ncbi.nlm.nih.gov/', 'not proxied: the URL itself');
  });

  t.test('hidden and unknown databases are 404 and not counted', async (t) => {
    const hidden = await app.inject({ method: 'GET', url: '/directory/go/secret' });
    t.equal(hidden.statusCode, 404);
    t.same(json(hidden), { error: 'Database not found.' });
    t.equal((await app.inject({ method: 'GET', url: '/directory/go/nope' })).statusCode, 404);
    const page = await app.inject({ method: 'GET', url: '/directory/go/secret', headers: { accept: 'text/html' } });
    t.equal(page.statusCode, 404);
    t.match(page.headers['content-type'], /text\/html/, 'a browser gets an HTML page');
    const counted = json<{ handle: string }[]>(await clicks());
    t.notOk(counted.some((c) => c.handle === 'secret' || c.handle === 'nope'));
  });

  t.test('each click is an event and is counted per database and day', async (t) => {
    const before = json<{ handle: string; date: string; count: number }[]>(await clicks());
    t.same(before, [
      { handle: 'jstor', date: '2026-03-01', count: 1 },
      { handle: 'pubmed', date: '2026-03-01', count: 1 },
      { handle: 'zeta', date: '2026-03-01', count: 1 },
    ]);
    await app.inject({ method: 'GET', url: '/directory/go/jstor' });
    clock.set(new Date('2026-03-02T23:59:00Z'));
    await app.inject({ method: 'GET', url: '/directory/go/jstor' });
    await app.inject({ method: 'GET', url: '/directory/go/jstor' });
    t.same(json(await clicks('&handle=jstor')), [
      { handle: 'jstor', date: '2026-03-01', count: 2 },
      { handle: 'jstor', date: '2026-03-02', count: 2 },
    ]);
    t.same(json(await clicks('&from=2026-03-02&to=2026-03-02')), [{ handle: 'jstor', date: '2026-03-02', count: 2 }]);
    t.same(json(await clicks('&to=2026-03-01&handle=pubmed')), [{ handle: 'pubmed', date: '2026-03-01', count: 1 }]);
    t.same(json(await clicks('&from=2026-04-01')), []);
    const events = (await runtime.eventStore.readStream('directory-clicks-jstor')).map((e) => e.type);
    t.same(events, ['DatabaseLinkClicked', 'DatabaseLinkClicked', 'DatabaseLinkClicked', 'DatabaseLinkClicked']);
  });

  t.test('click counts: admins only, dates checked', async (t) => {
    const anonymous = await app.inject({ method: 'GET', url: '/api/directory/clicks' });
    t.equal(anonymous.statusCode, 403);
    t.same(json(anonymous), { errors: { error: 'A Global Administrator is required.' } });
    t.equal(
      (await app.inject({ method: 'GET', url: `/api/directory/clicks?${keyFor('site_admin')}` })).statusCode,
      403,
    );
    t.equal((await clicks('&from=yesterday')).statusCode, 422);
    const backwards = await clicks('&from=2026-03-02&to=2026-03-01');
    t.equal(backwards.statusCode, 422);
    t.ok(json<{ errors: Record<string, unknown> }>(backwards).errors.from);
  });

  t.test('details page: escaped HTML with the tracked open link', async (t) => {
    const res = await app.inject({ method: 'GET', url: '/directory/databases/zeta' });
    t.equal(res.statusCode, 200);
    t.match(res.headers['content-type'], /text\/html/);
    const html = res.body;
    t.match(html, /<h1>Zeta Maths<\/h1>/);
    t.match(html, /Algebra &lt;b&gt;bold&lt;\/b&gt; &amp; &quot;quotes&quot;/, 'the description is escaped');
    t.notMatch(html, /<b>bold<\/b>/);
    t.match(html, /Mathematics/, 'subjects');
    t.match(html, /Journals/, 'types');
    t.match(html, /Library subscription/, 'access');
    t.match(html, /href="http:\/\/test.local\/directory\/go\/zeta"/, 'the open link goes through the tracked redirect');
    t.notMatch(html, /zeta\.example\.com/, 'the raw URL is not on the page');
    t.match(html, /#8a1538/, 'brand color');
    t.equal((await app.inject({ method: 'GET', url: '/directory/databases/secret' })).statusCode, 404, 'hidden: 404');
    t.equal((await app.inject({ method: 'GET', url: '/directory/databases/nope' })).statusCode, 404);
  });
  t.test('HEAD is not a click', async (t) => {
    const total = async () =>
      json<{ count: number }[]>(await clicks('&handle=pubmed')).reduce((n, c) => n + c.count, 0);
    const before = await total();
    const head = await app.inject({ method: 'HEAD', url: '/directory/go/pubmed' });
    t.equal(head.statusCode, 302);
    t.equal(await total(), before);
  });

  t.test('GET /widget.js serves the script to any site', async (t) => {
    const res = await app.inject({ method: 'GET', url: '/widget.js' });
    t.equal(res.statusCode, 200);
    t.match(res.headers['content-type'], /^application\/javascript/);
    t.equal(res.headers['access-control-allow-origin'], '*');
    t.match(res.body, /data-catalog-az/);
    t.match(res.body, /attachShadow/);
    t.notMatch(res.body, /https?:\/\/(?!www\.w3\.org)/, 'no hard-coded external address');
  });
});
