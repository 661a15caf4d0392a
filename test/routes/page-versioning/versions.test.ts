import t from 'tap';
import { FixedClock } from '../../../infra/clock/port.js';
import { buildTestApp, json, keyFor, ROLE_USERS, sessionFor, type RoleName } from '../../helper.js';

const fixture = {
  users: ROLE_USERS,
  sites: [{ id: 1, slug: 'main', title: 'Main site' }],
  site_pages: [
    { id: 5, site_id: 1, slug: 'about', title: 'About', blocks: [{ layout: 'html', data: { html: '<p>One</p>' } }] },
    { id: 6, site_id: 1, slug: 'draft', title: 'Draft page', is_public: false },
    { id: 7, site_id: 1, slug: 'contact', title: 'Contact' },
  ],
};

interface Summary {
  id: number;
  resource_id: number;
  resource_type: string;
  title: string;
  slug: string;
  operation: string;
  editor_id: number | null;
  editor_name: string;
  summary: string | null;
  created_at: string;
}
interface ListData {
  resource_id: number;
  resource_type: string;
  total: number;
  limit: number;
  offset: number;
  versions: Summary[];
}
interface Payload {
  title: string;
  slug: string;
  is_public: boolean;
  layout: string | null;
  layout_data: Record<string, unknown>;
  blocks: { layout: string; data: Record<string, unknown> }[];
  site_id: number;
}
type Full = Summary & Omit<Payload, 'title' | 'slug'> & { payload: Payload };
interface Ok<T> {
  status: 'ok';
  data: T;
}

t.test('page version history over HTTP', async (t) => {
  const clock = new FixedClock(new Date('2026-03-01T12:00:00Z'));
  const { app } = await buildTestApp(t, { fixture, clock });
  const sessions = {} as Record<RoleName, string>;
  for (const role of ['global_admin', 'editor', 'reviewer', 'author', 'researcher'] as const)
    sessions[role] = await sessionFor(app, role);
  const as = (role: RoleName) => ({ cookie: sessions[role] });
  const get = (url: string, role: RoleName | null = 'editor') =>
    app.inject({ method: 'GET', url, headers: role ? as(role) : {} });
  const list = async (pageId: number, query = '', role: RoleName = 'editor') => {
    const res = await get(`/api/page-versioning/${pageId}/versions${query}`, role);
    t.equal(res.statusCode, 200, `list of page ${pageId}${query}: ${res.body}`);
    return json<Ok<ListData>>(res).data;
  };
  const revert = (
    versionId: number | string,
    payload?: object | string,
    role: RoleName = 'editor',
    headers: Record<string, string> = {},
  ) =>
    app.inject({
      method: 'POST',
      url: `/api/page-versioning/version/${versionId}/revert`,
      headers: { ...as(role), ...headers },
      payload,
    });
  const patchPage = async (id: number, body: object, role: RoleName = 'editor') => {
    clock.advance(60_000);
    const res = await app.inject({ method: 'PATCH', url: `/api/site_pages/${id}`, headers: as(role), payload: body });
    t.equal(res.statusCode, 200, `PATCH page ${id}: ${res.body}`);
  };

  let createId = 0;
  let updateId = 0;

  await t.test('importing a page records its first version', async (t) => {
    const data = await list(5);
    t.same(
      { ...data, versions: [] },
      { resource_id: 5, resource_type: 'site_page', total: 1, limit: 50, offset: 0, versions: [] },
    );
    const [version] = data.versions;
    createId = version.id;
    t.ok(Number.isInteger(createId) && createId > 0, 'the version id is a positive integer');
    t.same(version, {
      id: createId,
      resource_id: 5,
      resource_type: 'site_page',
      title: 'About',
      slug: 'about',
      operation: 'create',
      editor_id: null,
      editor_name: '',
      summary: null,
      created_at: '2026-03-01 12:00:00',
    });
  });

  await t.test('updates through the platform API are versions, newest first, with the editor', async (t) => {
    await patchPage(5, {
      'o:title': 'About us',
      'o:block': [{ 'o:layout': 'html', 'o:data': { html: '<p>Two</p>' } }],
    });
    await patchPage(5, { 'o:slug': 'about-us' }, 'global_admin');
    const data = await list(5);
    t.equal(data.total, 3);
    t.same(
      data.versions.map((v) => [v.operation, v.title, v.slug, v.editor_id, v.editor_name, v.summary, v.created_at]),
      [
        ['update', 'About us', 'about-us', 1, 'Gail Global', null, '2026-03-01 12:02:00'],
        ['update', 'About us', 'about', 3, 'Ed Editor', null, '2026-03-01 12:01:00'],
        ['create', 'About', 'about', null, '', null, '2026-03-01 12:00:00'],
      ],
    );
    t.ok(data.versions[0].id > data.versions[1].id && data.versions[1].id > data.versions[2].id, 'ids grow with time');
    updateId = data.versions[1].id;
    const other = await list(7);
    t.equal(other.total, 1, "another page's versions are its own");
    t.ok(!data.versions.some((v) => v.id === other.versions[0].id), 'version ids are unique across pages');
  });

  await t.test('limit and offset page through the list; total counts all', async (t) => {
    const window = await list(5, '?limit=1&offset=1');
    t.same([window.total, window.limit, window.offset, window.versions.map((v) => v.id)], [3, 1, 1, [updateId]]);
    t.same((await list(5, '?limit=200&offset=3')).versions, [], 'past the end: empty');
    t.equal((await list(5, '?type=site_page')).total, 3);
  });

  await t.test('one version: summary plus the payload, replayed from the stream', async (t) => {
    const res = await get(`/api/page-versioning/version/${createId}`, 'researcher');
    t.equal(res.statusCode, 200, 'any session may read a version');
    const full = json<Ok<Full>>(res);
    t.equal(full.status, 'ok');
    const payload: Payload = {
      title: 'About',
      slug: 'about',
      is_public: true,
      layout: null,
      layout_data: {},
      blocks: [{ layout: 'html', data: { html: '<p>One</p>' } }],
      site_id: 1,
    };
    t.same(full.data.payload, payload);
    t.equal(full.data.operation, 'create');
    t.same(full.data.blocks, payload.blocks, 'payload keys are repeated at the top level');
    t.equal(full.data.site_id, 1);
    const second = json<Ok<Full>>(await get(`/api/page-versioning/version/${updateId}`)).data;
    t.same(
      [second.payload.title, second.payload.slug, second.payload.blocks],
      ['About us', 'about', [{ layout: 'html', data: { html: '<p>Two</p>' } }]],
    );
    t.equal(second.editor_name, 'Ed Editor');
  });

  let revertId = 0;
  await t.test('revert restores the page and records a revert version with the default note', async (t) => {
    clock.advance(60_000);
    const res = await revert(createId);
    t.equal(res.statusCode, 200, res.body);
    const body = json<Ok<{ new_version_id: number }>>(res);
    t.equal(body.status, 'ok');
    revertId = body.data.new_version_id;
    const page = json<Record<string, unknown>>(await get('/api/site_pages/5'));
    t.equal(page['o:title'], 'About');
    t.equal(page['o:slug'], 'about');
    t.same(page['o:block'], [{ 'o:layout': 'html', 'o:data': { html: '<p>One</p>' } }]);
    const data = await list(5);
    t.equal(data.total, 4);
    t.same(data.versions[0], {
      id: revertId,
      resource_id: 5,
      resource_type: 'site_page',
      title: 'About',
      slug: 'about',
      operation: 'revert',
      editor_id: 3,
      editor_name: 'Ed Editor',
      summary: `Reverted to version #${createId} (saved 2026-03-01 12:00:00)`,
      created_at: '2026-03-01 12:03:00',
    });
    const full = json<Ok<Full>>(await get(`/api/page-versioning/version/${revertId}`)).data;
    t.same(
      full.payload,
      json<Ok<Full>>(await get(`/api/page-versioning/version/${createId}`)).data.payload,
      'the revert version holds the old content',
    );
  });

  await t.test('revert of a revert, with a note from a form body', async (t) => {
    await patchPage(5, { 'o:title': 'Changed again' });
    const res = await revert(revertId, 'summary=Undo+the+change', 'global_admin', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    t.equal(res.statusCode, 200, res.body);
    const newest = (await list(5)).versions[0];
    t.same(
      [newest.id, newest.operation, newest.summary, newest.title, newest.editor_name],
      [
        json<Ok<{ new_version_id: number }>>(res).data.new_version_id,
        'revert',
        'Undo the change',
        'About',
        'Gail Global',
      ],
    );
    t.equal(json<Record<string, unknown>>(await get('/api/site_pages/5'))['o:title'], 'About');
  });

  await t.test('revert with a JSON note, an empty JSON body, or no body at all', async (t) => {
    const noted = await revert(updateId, { summary: 'Second draft back' });
    t.equal(noted.statusCode, 200, noted.body);
    t.equal((await list(5)).versions[0].summary, 'Second draft back');
    const empty = await revert(updateId, '', 'editor', { 'content-type': 'application/json' });
    t.equal(empty.statusCode, 200, `empty JSON body: ${empty.body}`);
    const none = await revert(updateId);
    t.equal(none.statusCode, 200, `no body: ${none.body}`);
    t.match((await list(5)).versions[0].summary, /^Reverted to version #\d+ \(saved 2026-03-01 12:01:00\)$/);
    const bad = await revert(updateId, '{"summary":', 'editor', { 'content-type': 'application/json' });
    t.equal(bad.statusCode, 400);
    t.same(json(bad), { status: 'error', message: 'The request body is not valid JSON.' });
    const long = await revert(updateId, { summary: 'x'.repeat(1001) });
    t.equal(long.statusCode, 400);
    t.equal(json<{ status: string }>(long).status, 'error');
  });

  await t.test('diff: fields and blocks with before and after', async (t) => {
    const res = await get(`/api/page-versioning/version/${updateId}/diff`);
    t.equal(res.statusCode, 200, res.body);
    t.same(json(res), {
      status: 'ok',
      data: {
        version_id: updateId,
        against_version_id: createId,
        resource_id: 5,
        resource_type: 'site_page',
        fields: [{ field: 'title', before: 'About', after: 'About us' }],
        blocks: [
          {
            index: 0,
            change: 'changed',
            before: { layout: 'html', data: { html: '<p>One</p>' } },
            after: { layout: 'html', data: { html: '<p>Two</p>' } },
          },
        ],
      },
    });
    const first = json<
      Ok<{ against_version_id: number | null; fields: { field: string }[]; blocks: { change: string }[] }>
    >(await get(`/api/page-versioning/version/${createId}/diff`)).data;
    t.equal(first.against_version_id, null, 'the first version has nothing before it');
    t.same(
      first.fields.map((f) => f.field),
      ['title', 'slug', 'is_public', 'layout', 'layout_data', 'site_id'],
    );
    t.same(
      first.blocks.map((b) => b.change),
      ['added'],
    );
    const same = json<Ok<{ fields: unknown[]; blocks: unknown[] }>>(
      await get(`/api/page-versioning/version/${revertId}/diff?against=${createId}`),
    ).data;
    t.same([same.fields, same.blocks], [[], []], 'a revert to a version equals it');
    const backwards = json<Ok<{ fields: { field: string; before: unknown; after: unknown }[] }>>(
      await get(`/api/page-versioning/version/${createId}/diff?against=${updateId}`),
    ).data;
    t.same(backwards.fields, [{ field: 'title', before: 'About us', after: 'About' }]);
    const otherPage = (await list(7)).versions[0].id;
    const cross = await get(`/api/page-versioning/version/${createId}/diff?against=${otherPage}`);
    t.equal(cross.statusCode, 400);
    t.same(json(cross), { status: 'error', message: 'Both versions must belong to the same page.' });
    t.equal((await get(`/api/page-versioning/version/${createId}/diff?against=99999`)).statusCode, 404);
    t.equal((await get(`/api/page-versioning/version/${createId}/diff?against=abc`)).statusCode, 400);
    t.equal((await get(`/api/page-versioning/version/${createId}/diff`, null)).statusCode, 403);
  });

  await t.test('roles: revert needs Editor or higher; every endpoint needs a session', async (t) => {
    const before = (await list(5)).total;
    for (const role of ['reviewer', 'author', 'researcher'] as const) {
      const res = await revert(createId, {}, role);
      t.equal(res.statusCode, 403, `${role} cannot revert`);
      t.same(json(res), { status: 'error', message: 'Reverting a page needs the Editor role or higher.' });
    }
    t.equal((await list(5)).total, before, 'refused reverts record nothing');
    const urls = [
      `/api/page-versioning/5/versions`,
      `/api/page-versioning/version/${createId}`,
      `/api/page-versioning/version/${createId}/diff`,
    ];
    for (const url of urls) {
      const anonymous = await get(url, null);
      t.equal(anonymous.statusCode, 403, `${url} without a session`);
      t.same(json(anonymous), { status: 'error', message: 'A login session is required.' });
      t.equal((await get(`${url}?${keyFor('editor')}`, null)).statusCode, 403, `${url}: API keys are not recognised`);
    }
    const keyRevert = await app.inject({
      method: 'POST',
      url: `/api/page-versioning/version/${createId}/revert?${keyFor('global_admin')}`,
    });
    t.equal(keyRevert.statusCode, 403, 'revert with an API key only');
    t.equal(
      (await get('/api/page-versioning/5/versions', 'researcher')).statusCode,
      200,
      'any session lists a public page',
    );
  });

  await t.test('private pages are 404 for those who cannot see them', async (t) => {
    for (const role of ['reviewer', 'author', 'researcher'] as const) {
      const res = await get('/api/page-versioning/6/versions', role);
      t.equal(res.statusCode, 404, role);
      t.same(json(res), { status: 'error', message: 'Page not found.' });
    }
    t.equal((await list(6, '', 'global_admin')).total, 1);
  });

  await t.test("a private page's versions and diffs are 404 too, not its private text", async (t) => {
    const privateVersion = (await list(6, '', 'global_admin')).versions[0].id;
    const urls = [
      `/api/page-versioning/version/${privateVersion}`,
      `/api/page-versioning/version/${privateVersion}/diff`,
    ];
    for (const role of ['reviewer', 'author', 'researcher'] as const) {
      for (const url of urls) {
        const res = await get(url, role);
        t.equal(res.statusCode, 404, `${role} ${url}`);
        t.same(json(res), { status: 'error', message: 'Version not found.' }, 'as for an id that never existed');
        t.notMatch(res.body, /Draft page/, 'nothing of the page is told');
      }
    }
    for (const url of urls) t.equal((await get(url, 'editor')).statusCode, 200, `an editor reads ${url}`);
    const diffAgainstPrivate = await get(
      `/api/page-versioning/version/${createId}/diff?against=${privateVersion}`,
      'researcher',
    );
    t.equal(diffAgainstPrivate.statusCode, 400, 'a version of another page is refused without its content');
    t.notMatch(diffAgainstPrivate.body, /Draft page/);
  });

  await t.test('400 for bad ids and parameters, 404 for unknown pages and versions', async (t) => {
    for (const url of [
      '/api/page-versioning/abc/versions',
      '/api/page-versioning/0/versions',
      '/api/page-versioning/-1/versions',
      '/api/page-versioning/1.5/versions',
      '/api/page-versioning/version/abc',
      '/api/page-versioning/version/0',
      '/api/page-versioning/version/abc/diff',
      '/api/page-versioning/5/versions?limit=0',
      '/api/page-versioning/5/versions?limit=201',
      '/api/page-versioning/5/versions?limit=ten',
      '/api/page-versioning/5/versions?offset=-1',
      '/api/page-versioning/5/versions?type=item',
    ]) {
      const res = await get(url);
      t.equal(res.statusCode, 400, url);
      t.equal(json<{ status: string }>(res).status, 'error', `${url} envelope`);
      t.type(json<{ message: unknown }>(res).message, 'string');
    }
    const badRevert = await revert('x1');
    t.equal(badRevert.statusCode, 400);
    t.same(json<{ status: string }>(badRevert).status, 'error');
    for (const url of [
      '/api/page-versioning/999/versions',
      '/api/page-versioning/version/999999',
      '/api/page-versioning/version/999999/diff',
    ]) {
      const res = await get(url);
      t.equal(res.statusCode, 404, url);
      t.equal(json<{ status: string }>(res).status, 'error');
    }
    const missing = await revert(999999);
    t.equal(missing.statusCode, 404);
    t.same(json(missing), { status: 'error', message: 'Version not found.' });
  });

  await t.test('405 for wrong methods, in the envelope', async (t) => {
    const cases: [string, string][] = [
      ['POST', '/api/page-versioning/5/versions'],
      ['DELETE', '/api/page-versioning/5/versions'],
      ['PUT', `/api/page-versioning/version/${createId}`],
      ['DELETE', `/api/page-versioning/version/${createId}`],
      ['GET', `/api/page-versioning/version/${createId}/revert`],
      ['PUT', `/api/page-versioning/version/${createId}/revert`],
      ['POST', `/api/page-versioning/version/${createId}/diff`],
    ];
    for (const [method, url] of cases) {
      const res = await app.inject({ method: method as 'GET', url, headers: as('editor') });
      t.equal(res.statusCode, 405, `${method} ${url}`);
      t.same(json(res), { status: 'error', message: 'Method not allowed.' });
    }
  });

  await t.test('a revert whose old slug now belongs to another page is refused, nothing written', async (t) => {
    await patchPage(5, { 'o:slug': 'about-new' });
    await patchPage(7, { 'o:slug': 'about' });
    const before = await list(5);
    const res = await revert(createId);
    t.equal(res.statusCode, 409);
    t.match(json<{ status: string; message: string }>(res), { status: 'error', message: /slug/ });
    t.same(await list(5), before, 'no version recorded');
    t.equal(json<Record<string, unknown>>(await get('/api/site_pages/5'))['o:slug'], 'about-new');
  });

  await t.test('a deleted page has no versions any more', async (t) => {
    const pageVersion = (await list(7)).versions[0].id;
    const deleted = await app.inject({ method: 'DELETE', url: '/api/site_pages/7', headers: as('editor') });
    t.equal(deleted.statusCode, 200);
    t.equal((await get('/api/page-versioning/7/versions')).statusCode, 404);
    t.equal((await get(`/api/page-versioning/version/${pageVersion}`)).statusCode, 404);
    t.equal((await revert(pageVersion)).statusCode, 404);
  });

  await t.test('nested layout data and block data come back whole', async (t) => {
    const layoutData = { columns: 2, grid: { widths: [1, 2], label: 'x' }, empty: null };
    const blocks = [{ 'o:layout': 'media', 'o:data': { ids: [1, 2], options: { caption: true, size: 'large' } } }];
    await patchPage(6, { 'o:layout': 'columns', 'o:layout_data': layoutData, 'o:block': blocks, 'o:is_public': true });
    const [newest] = (await list(6)).versions;
    const full = json<Ok<Full>>(await get(`/api/page-versioning/version/${newest.id}`)).data;
    t.same(full.payload, {
      title: 'Draft page',
      slug: 'draft',
      is_public: true,
      layout: 'columns',
      layout_data: layoutData,
      blocks: [{ layout: 'media', data: { ids: [1, 2], options: { caption: true, size: 'large' } } }],
      site_id: 1,
    });
  });

  await t.test('the OpenAPI document describes the endpoints, diff included', async (t) => {
    const doc = json<{ paths: Record<string, Record<string, { tags?: string[]; summary?: string }>> }>(
      await app.inject({ method: 'GET', url: '/api/docs.json' }),
    );
    for (const [path, method] of [
      ['/api/page-versioning/{pageId}/versions', 'get'],
      ['/api/page-versioning/version/{versionId}', 'get'],
      ['/api/page-versioning/version/{versionId}/revert', 'post'],
      ['/api/page-versioning/version/{versionId}/diff', 'get'],
    ]) {
      const operation = doc.paths[path]?.[method];
      t.ok(operation, `${method} ${path} is documented`);
      t.same(operation?.tags, ['page-versioning']);
      t.ok(operation?.summary);
    }
  });
});
