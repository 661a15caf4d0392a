import t, { type Test } from 'tap';
import { buildTestApp, json } from '../../helper.js';
import { directoryFixture, OPEN_TOKEN, VISIBLE_ORDER } from './fixture.js';

interface DatabaseRecord {
  handle: string;
  name: string;
  description: string;
  subjects: { handle: string; name: string }[];
  types: { handle: string; name: string }[];
  access: string;
  audience: string[];
  featured: boolean;
  links: { open: string; details: string };
}
interface ListBody {
  data: DatabaseRecord[];
  meta: { page: number; per_page: number; total: number; total_pages: number };
}

t.test('directory API: endpoints, filters, paging and hidden databases', async (t) => {
  const { app } = await buildTestApp(t, { fixture: { directory: directoryFixture() } });
  const get = (path: string) =>
    app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${OPEN_TOKEN}` } });
  const handles = async (tt: Test, query: string) => {
    const res = await get(`/api/v1/databases${query}`);
    tt.equal(res.statusCode, 200, `databases${query}`);
    return json<ListBody>(res).data.map((d) => d.handle);
  };

  t.test('GET /api/v1/library', async (t) => {
    const res = await get('/api/v1/library');
    t.equal(res.statusCode, 200);
    t.match(res.headers['content-type'], /application\/json/);
    const body = json<{ data: Record<string, unknown> }>(res);
    t.match(body.data, { name: 'City Library', plan: 'plus', brand_color: '#8a1538', database_count: 5 });
    t.same(body.data.lists, [{ handle: 'starter', name: 'Start here' }]);
    t.equal((body.data.links as Record<string, string>).widget, 'http://test.local/widget.js');
    t.notOk('proxy_prefix' in body.data, 'the proxy prefix is not published');
  });

  t.test('GET /api/v1/databases: record shape, order, hidden left out', async (t) => {
    const res = await get('/api/v1/databases');
    const body = json<ListBody>(res);
    t.same(
      body.data.map((d) => d.handle),
      VISIBLE_ORDER,
      'name A to Z, case-insensitive; hidden absent',
    );
    t.same(body.meta, { page: 1, per_page: 25, total: 5, total_pages: 1 });
    const jstor = body.data.find((d) => d.handle === 'jstor');
    t.same(jstor, {
      handle: 'jstor',
      name: 'JSTOR',
      description: 'Journal archive for the humanities.',
      subjects: [
        { handle: 'history', name: 'History' },
        { handle: 'literature', name: 'Literature' },
      ],
      types: [{ handle: 'journals', name: 'Journals' }],
      access: 'subscription',
      audience: ['undergraduate', 'graduate'],
      featured: true,
      links: { open: 'http://test.local/directory/go/jstor', details: 'http://test.local/directory/databases/jstor' },
    });
    for (const db of body.data) {
      t.ok(db.links.open.startsWith('http://test.local/'), 'links.open is absolute on this server');
      t.notOk('url' in db, 'the raw URL is not exposed (clicks go through the redirect)');
      t.notOk('hidden' in db);
    }
  });

  t.test('q matches name and description, case-insensitive', async (t) => {
    t.same(await handles(t, '?q=jstor'), ['jstor']);
    t.same(await handles(t, '?q=HISTORY'), ['ancestry', 'zeta'], 'description match; the hidden one never');
    t.same(await handles(t, '?q=secret'), [], 'hidden databases are not found by search');
    t.same(await handles(t, '?q=' + encodeURIComponent('.*')), [], 'regex characters are literal');
    t.same(await handles(t, '?q=%20'), VISIBLE_ORDER, 'blank q is no filter');
  });

  t.test('subject, type, access, audience, featured filters', async (t) => {
    t.same(await handles(t, '?subject=history'), ['ancestry', 'britannica', 'jstor']);
    t.same(await handles(t, '?subject=art'), [], 'only the hidden database has art');
    t.same(await handles(t, '?subject=nope'), [], 'unknown subject matches nothing');
    t.same(await handles(t, '?type=journals'), ['jstor', 'pubmed', 'zeta']);
    t.same(await handles(t, '?access=open'), ['pubmed']);
    t.same(await handles(t, '?access=subscription'), ['jstor', 'zeta']);
    t.same(await handles(t, '?audience=public'), ['ancestry', 'britannica']);
    t.same(await handles(t, '?featured=1'), ['ancestry', 'jstor']);
    t.same(await handles(t, '?featured=0'), VISIBLE_ORDER, 'featured=0 is no filter');
    t.same(
      await handles(t, '?subject=&type=&access=&audience=&featured=&q='),
      VISIBLE_ORDER,
      'empty values are no filter',
    );
    t.same(
      await handles(t, '?subject=history&type=reference&access=trial&audience=undergraduate&q=encyclo'),
      ['britannica'],
      'filters combine',
    );
  });

  t.test('paging: page, per_page default 25, above 100 treated as 100', async (t) => {
    const p1 = json<ListBody>(await get('/api/v1/databases?per_page=2'));
    t.same(
      p1.data.map((d) => d.handle),
      ['ancestry', 'britannica'],
    );
    t.same(p1.meta, { page: 1, per_page: 2, total: 5, total_pages: 3 });
    const p3 = json<ListBody>(await get('/api/v1/databases?per_page=2&page=3'));
    t.same(
      p3.data.map((d) => d.handle),
      ['zeta'],
    );
    t.same(p3.meta, { page: 3, per_page: 2, total: 5, total_pages: 3 });
    const past = json<ListBody>(await get('/api/v1/databases?per_page=2&page=9'));
    t.same(past.data, [], 'a page past the end is empty');
    t.equal(past.meta.total, 5);
    t.equal(json<ListBody>(await get('/api/v1/databases?per_page=1000')).meta.per_page, 100);
    const filtered = json<ListBody>(await get('/api/v1/databases?subject=history&per_page=1'));
    t.same(filtered.meta, { page: 1, per_page: 1, total: 3, total_pages: 3 }, 'total counts the filtered, visible set');
  });

  t.test('bad query values are 400 with {error}', async (t) => {
    for (const query of ['?page=0', '?per_page=0', '?page=abc', '?per_page=-3', '?access=free', '?featured=yes']) {
      const res = await get(`/api/v1/databases${query}`);
      t.equal(res.statusCode, 400, query);
      const body = json<Record<string, unknown>>(res);
      t.same(Object.keys(body), ['error'], `${query}: plain error body`);
      t.type(body.error, 'string');
    }
  });

  t.test('GET /api/v1/databases/{handle}: visible ones only', async (t) => {
    const res = await get('/api/v1/databases/pubmed');
    t.equal(res.statusCode, 200);
    t.equal(json<{ data: DatabaseRecord }>(res).data.name, 'PubMed');
    const hidden = await get('/api/v1/databases/secret');
    t.equal(hidden.statusCode, 404, 'hidden is 404');
    t.same(json(hidden), { error: 'Database not found.' });
    t.equal((await get('/api/v1/databases/nope')).statusCode, 404);
  });

  t.test('subjects and types with counts of visible databases', async (t) => {
    const subjects = json<{ data: unknown[] }>(await get('/api/v1/subjects'));
    t.same(subjects, {
      data: [
        { handle: 'art', name: 'Art', database_count: 0 },
        { handle: 'history', name: 'History', database_count: 3 },
        { handle: 'literature', name: 'Literature', database_count: 2 },
        { handle: 'mathematics', name: 'Mathematics', database_count: 1 },
        { handle: 'medicine', name: 'Medicine', database_count: 1 },
      ],
    });
    const types = json<{ data: unknown[] }>(await get('/api/v1/types'));
    t.same(types, {
      data: [
        { handle: 'ebooks', name: 'E-books', database_count: 0 },
        { handle: 'journals', name: 'Journals', database_count: 3 },
        { handle: 'records', name: 'Records', database_count: 1 },
        { handle: 'reference', name: 'Reference', database_count: 1 },
      ],
    });
  });

  t.test('curated lists keep their order and drop hidden databases', async (t) => {
    const res = await get('/api/v1/lists/starter');
    t.equal(res.statusCode, 200);
    const body = json<{ data: { handle: string; name: string; databases: DatabaseRecord[] } }>(res);
    t.equal(body.data.name, 'Start here');
    t.same(
      body.data.databases.map((d) => d.handle),
      ['pubmed', 'jstor', 'ancestry'],
    );
    t.equal(body.data.databases[0].links.open, 'http://test.local/directory/go/pubmed');
    t.same(json(await get('/api/v1/lists')), { data: [{ handle: 'starter', name: 'Start here' }] });
    t.equal((await get('/api/v1/lists/nope')).statusCode, 404);
  });

  t.test('the OpenAPI document describes the directory', async (t) => {
    const doc = json<{ paths: Record<string, Record<string, { tags?: string[]; summary?: string }>> }>(
      await app.inject({ method: 'GET', url: '/api/docs.json' }),
    );
    for (const path of [
      '/api/v1/library',
      '/api/v1/databases',
      '/api/v1/databases/{handle}',
      '/api/v1/subjects',
      '/api/v1/types',
      '/api/v1/lists/{handle}',
      '/directory/go/{handle}',
      '/directory/databases/{handle}',
      '/widget.js',
      '/api/directory/tokens',
      '/api/directory/tokens/{id}',
      '/api/directory/clicks',
    ]) {
      const ops = doc.paths[path];
      t.ok(ops, `${path} is documented`);
      for (const op of Object.values(ops ?? {})) t.ok(op.summary, `${path} has a summary`);
    }
    const params = (doc.paths['/api/v1/databases'].get as unknown as { parameters: { name: string }[] }).parameters.map(
      (p) => p.name,
    );
    for (const name of ['q', 'subject', 'type', 'access', 'audience', 'featured', 'page', 'per_page', 'token'])
      t.ok(params.includes(name), `documents ${name}`);
    const ui = await app.inject({ method: 'GET', url: '/api/docs' });
    t.ok(ui.statusCode < 400, 'interactive reference is served');
  });
});
