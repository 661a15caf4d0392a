import t from 'tap';
import { buildTestApp, json, keyFor, ROLE_USERS, type RoleName } from '../../helper.js';
import { PNG, sessions, uploaded, type AssetJson } from './support.js';

const BASE = '/api/asset-picker';

interface Page {
  status: string;
  assets: AssetJson[];
  total: number;
  page: number;
  per_page: number;
}

interface Usage {
  id: number;
  asset_id: number;
  context_type: string;
  context_id: number | null;
  user_id: number | null;
  created_at: string;
}

t.test('asset library assets', async (t) => {
  const { app } = await buildTestApp(t, { fixture: { users: ROLE_USERS } });
  const cookies = await sessions(app);
  const editor = cookies.editor;
  const get = (url: string, cookie = editor) =>
    app.inject({ method: 'GET', url: `${BASE}${url}`, headers: { cookie } });
  const bulk = (payload: object, cookie = editor) =>
    app.inject({ method: 'PATCH', url: `${BASE}/assets/bulk`, headers: { cookie }, payload });
  const list = async (query: string) => {
    const res = await get(`/assets${query}`);
    t.equal(res.statusCode, 200, `list ${query}`);
    return json<Page>(res);
  };
  const folder = async (title: string) =>
    json<{ folder: { id: number } }>(
      await app.inject({ method: 'POST', url: `${BASE}/folders`, headers: { cookie: editor }, payload: { title } }),
    ).folder.id;

  const titles = ['delta', 'Alpha', 'charlie', 'Bravo', 'echo'];
  const assets: AssetJson[] = [];
  for (const title of titles) assets.push(await uploaded(app, editor, `${title}.png`, PNG, { 'o:name': title }));
  const ids = assets.map((a) => a.id);
  const photos = await folder('Photos');
  const scans = await folder('Scans');

  await t.test('GET one asset has the seed shape', async (t) => {
    const res = await get(`/assets/${ids[0]}`, cookies.reviewer);
    t.equal(res.statusCode, 200);
    const body = json<{ status: string; asset: AssetJson }>(res);
    t.equal(body.status, 'success');
    t.same(Object.keys(body.asset).sort(), [
      'canonical_url',
      'created_at',
      'filename',
      'folders',
      'id',
      'metadata',
      'mime_type',
    ]);
    t.match(body.asset, {
      id: ids[0],
      filename: 'delta.png',
      mime_type: 'image/png',
      metadata: { title: 'delta', alt: '' },
      folders: [],
    });
    t.match(body.asset.created_at, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    t.match(body.asset.canonical_url, /^http:\/\/test\.local\//);
    t.equal((await get('/assets/999')).statusCode, 404);
    t.same(json(await get('/assets/999')), { status: 'error', message: 'Asset not found.' });
    t.equal((await get('/assets/0')).statusCode, 400);
  });

  await t.test('list: defaults, paging, sorting, search', async (t) => {
    const all = await list('');
    t.same(
      { ...all, assets: all.assets.map((a) => a.id) },
      { status: 'success', assets: [...ids].reverse(), total: 5, page: 1, per_page: 24 },
      'newest first by default',
    );
    t.same(
      (await list('?sort_order=asc')).assets.map((a) => a.id),
      ids,
    );
    const byName = await list('?sort_by=name&sort_order=asc');
    t.same(
      byName.assets.map((a) => a.metadata.title),
      ['Alpha', 'Bravo', 'charlie', 'delta', 'echo'],
      'name sort ignores case',
    );
    t.same(
      (await list('?sort_by=name')).assets.map((a) => a.metadata.title),
      ['echo', 'delta', 'charlie', 'Bravo', 'Alpha'],
    );
    const page2 = await list('?per_page=2&page=2&sort_order=asc');
    t.same(
      { ...page2, assets: page2.assets.map((a) => a.id) },
      { status: 'success', assets: [ids[2], ids[3]], total: 5, page: 2, per_page: 2 },
    );
    t.same((await list('?per_page=2&page=9')).assets, [], 'past the end: empty page');
    t.equal((await list('?per_page=500')).per_page, 100, 'per_page is capped at 100');
    t.same(
      (await list('?search=HAR')).assets.map((a) => a.metadata.title),
      ['charlie'],
      'search: case-insensitive substring of the name',
    );
    t.same((await list('?search=.*')).assets, [], 'search is literal, not a pattern');
    t.same((await list('?search=')).total, 5, 'empty search: everything');
    for (const bad of ['?sort_by=size', '?sort_order=up', '?page=0', '?per_page=0', '?page=x', '?folder_id=abc']) {
      const res = await get(`/assets${bad}`);
      t.equal(res.statusCode, 400, bad);
      t.equal(json<{ status: string }>(res).status, 'error');
    }
  });

  await t.test('bulk: only the keys present change', async (t) => {
    const res = await bulk({ ids: [ids[0], ids[1]], alt_text: 'A map' });
    t.equal(res.statusCode, 200);
    const body = json<{ status: string; assets: AssetJson[] }>(res);
    t.equal(body.status, 'success');
    t.same(
      body.assets.map((a) => [a.id, a.metadata]),
      [
        [ids[0], { title: 'delta', alt: 'A map' }],
        [ids[1], { title: 'Alpha', alt: 'A map' }],
      ],
    );
    await bulk({ ids: [ids[0]], name: 'Delta renamed' });
    t.same(
      json<{ asset: AssetJson }>(await get(`/assets/${ids[0]}`)).asset.metadata,
      { title: 'Delta renamed', alt: 'A map' },
      'alt kept',
    );
    t.same(
      (await list('?search=renamed')).assets.map((a) => a.id),
      [ids[0]],
      'the new name is searchable',
    );
    t.same(
      json<{ asset: AssetJson }>(await get(`/assets/${ids[2]}`)).asset.metadata,
      { title: 'charlie', alt: '' },
      'others untouched',
    );
  });

  await t.test('bulk folder_id moves into that one folder; null takes out of every folder', async (t) => {
    await bulk({ ids: [ids[0], ids[1], ids[2]], folder_id: photos });
    t.same(
      (await list(`?folder_id=${photos}&sort_order=asc`)).assets.map((a) => a.id),
      [ids[0], ids[1], ids[2]],
    );
    await bulk({ ids: [ids[1]], folder_id: scans });
    t.same(json<{ asset: AssetJson }>(await get(`/assets/${ids[1]}`)).asset.folders, [scans], 'moved, not added');
    t.same(
      (await list(`?folder_id=${photos}&sort_order=asc`)).assets.map((a) => a.id),
      [ids[0], ids[2]],
    );
    const folders = json<{ folders: { id: number; asset_count: number }[] }>(await get('/folders')).folders;
    t.same(
      folders.map((f) => [f.id, f.asset_count]),
      [
        [photos, 2],
        [scans, 1],
      ],
    );
    await bulk({ ids: [ids[0], ids[1]], folder_id: null });
    t.same(json<{ asset: AssetJson }>(await get(`/assets/${ids[0]}`)).asset.folders, []);
    t.same(json<{ asset: AssetJson }>(await get(`/assets/${ids[1]}`)).asset.folders, []);
    t.same(
      (await list(`?folder_id=${photos}`)).assets.map((a) => a.id),
      [ids[2]],
    );
    t.same(
      json<{ asset: AssetJson }>(await get(`/assets/${ids[0]}`)).asset.metadata.title,
      'Delta renamed',
      'moving leaves the name alone',
    );
  });

  await t.test('bulk refusals change nothing', async (t) => {
    const cases: [string, object, number][] = [
      ['an unknown id', { ids: [ids[3], 999], name: 'X' }, 404],
      ['an unknown folder', { ids: [ids[3]], folder_id: 999 }, 400],
      ['no ids', { ids: [], name: 'X' }, 400],
      ['ids missing', { name: 'X' }, 400],
      ['nothing to change', { ids: [ids[3]] }, 400],
      ['an empty name', { ids: [ids[3]], name: '' }, 400],
      ['an unknown action', { ids: [ids[3]], action: 'explode' }, 400],
      ['folder 0', { ids: [ids[3]], folder_id: 0 }, 400],
    ];
    for (const [label, payload, status] of cases) {
      const res = await bulk(payload);
      t.equal(res.statusCode, status, label);
      t.equal(json<{ status: string }>(res).status, 'error', `${label}: envelope`);
      t.type(json<{ message: string }>(res).message, 'string');
    }
    t.match(json<{ message: string }>(await bulk({ ids: [ids[3], 999], name: 'X' })).message, /999/);
    t.same(
      json<{ asset: AssetJson }>(await get(`/assets/${ids[3]}`)).asset.metadata.title,
      'Bravo',
      'the known asset was not renamed',
    );
    t.same(json<{ asset: AssetJson }>(await get(`/assets/${ids[3]}`)).asset.folders, []);
  });

  await t.test('usage: record, list newest first, at most 100', async (t) => {
    const post = (payload: object, id = ids[4], cookie = editor) =>
      app.inject({ method: 'POST', url: `${BASE}/assets/${id}/usage`, headers: { cookie }, payload });
    const first = await post({ context_type: 'site_page', context_id: 7 });
    t.equal(first.statusCode, 201);
    const record = json<{ status: string; usage: Usage }>(first);
    t.equal(record.status, 'success');
    t.match(record.usage, { asset_id: ids[4], context_type: 'site_page', context_id: 7, user_id: 3 });
    t.match(record.usage.created_at, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    t.equal(json<{ usage: Usage }>(await post({ context_type: 'blog_post', context_id: null })).usage.context_id, null);
    t.equal(
      json<{ usage: Usage }>(await post({ context_type: 'blog_post' })).usage.context_id,
      null,
      'context_id defaults to null',
    );
    for (const [label, payload] of [
      ['no context_type', { context_id: 1 }],
      ['empty context_type', { context_type: '' }],
      ['text context_id', { context_type: 'page', context_id: 'seven' }],
      ['fractional context_id', { context_type: 'page', context_id: 1.5 }],
    ] as const) {
      t.equal((await post(payload)).statusCode, 400, label);
    }
    t.equal((await post({ context_type: 'page' }, 999)).statusCode, 404, 'unknown asset');

    for (let i = 0; i < 100; i++) await post({ context_type: 'page', context_id: 1000 + i });
    const res = await get(`/assets/${ids[4]}/usage`, cookies.author);
    t.equal(res.statusCode, 200);
    const usage = json<{ status: string; usage: Usage[] }>(res).usage;
    t.equal(usage.length, 100, 'the most recent 100');
    t.equal(usage[0].context_id, 1099, 'newest first');
    t.equal(usage[99].context_id, 1000);
    t.same(Object.keys(usage[0]).sort(), ['asset_id', 'context_id', 'context_type', 'created_at', 'id', 'user_id']);
    t.equal((await get('/assets/999/usage')).statusCode, 404);
  });

  await t.test('delete removes folder assignments and usage records, then the asset', async (t) => {
    await bulk({ ids: [ids[4]], folder_id: scans });
    const res = await app.inject({ method: 'DELETE', url: `${BASE}/assets/${ids[4]}`, headers: { cookie: editor } });
    t.equal(res.statusCode, 200);
    t.same(json(res), { status: 'success', message: 'Asset deleted.' });
    t.equal((await get(`/assets/${ids[4]}`)).statusCode, 404);
    t.equal((await get(`/assets/${ids[4]}/usage`)).statusCode, 404);
    const folders = json<{ folders: { id: number; asset_count: number }[] }>(await get('/folders')).folders;
    t.equal(folders.find((f) => f.id === scans)?.asset_count, 0);
    t.equal(
      (await app.inject({ method: 'DELETE', url: `${BASE}/assets/${ids[4]}`, headers: { cookie: editor } })).statusCode,
      404,
      'only once',
    );
  });

  await t.test('bulk delete answers the deleted ids', async (t) => {
    const res = await bulk({ ids: [ids[0], ids[1], ids[0]], action: 'delete' });
    t.equal(res.statusCode, 200);
    t.same(json(res), { status: 'success', deleted: [ids[0], ids[1]] });
    t.same(
      (await list('?sort_order=asc')).assets.map((a) => a.id),
      [ids[2], ids[3]],
    );
    t.equal((await bulk({ ids: [ids[2], ids[0]], action: 'delete' })).statusCode, 404, 'an already deleted id');
    t.equal((await list('')).total, 2, 'and nothing was deleted');
  });

  await t.test('roles: authors and reviewers read, editors and above write, others are refused', async (t) => {
    const target = ids[2];
    const reads = [`/folders`, `/folders/${photos}`, `/assets`, `/assets/${target}`, `/assets/${target}/usage`];
    const writes: { method: 'POST' | 'PUT' | 'PATCH' | 'DELETE'; url: string; payload?: object }[] = [
      { method: 'POST', url: '/folders', payload: { title: 'New' } },
      { method: 'PUT', url: `/folders/${photos}`, payload: { title: 'Photos' } },
      { method: 'DELETE', url: `/folders/${scans}` },
      { method: 'PATCH', url: '/assets/bulk', payload: { ids: [target], alt_text: 'x' } },
      { method: 'POST', url: `/assets/${target}/usage`, payload: { context_type: 'page' } },
      { method: 'POST', url: '/assets' },
      { method: 'PUT', url: `/assets/${target}/replace` },
      { method: 'DELETE', url: `/assets/${target}` },
    ];
    const check = async (
      label: string,
      headers: Record<string, string>,
      query: string,
      readStatus: number,
      writeStatus: number | null,
    ) => {
      for (const url of reads) {
        const res = await app.inject({ method: 'GET', url: `${BASE}${url}${query}`, headers });
        t.equal(res.statusCode, readStatus, `${label} GET ${url}`);
        if (readStatus >= 400)
          t.match(json(res), { status: 'error', message: String }, `${label} GET ${url}: envelope`);
      }
      if (writeStatus === null) return;
      for (const write of writes) {
        const res = await app.inject({
          method: write.method,
          url: `${BASE}${write.url}${query}`,
          headers,
          payload: write.payload ?? {},
        });
        t.equal(res.statusCode, writeStatus, `${label} ${write.method} ${write.url}`);
        t.match(json(res), { status: 'error', message: String }, `${label} ${write.method} ${write.url}: envelope`);
      }
    };
    await check('anonymous', {}, '', 401, 401);
    await check('an API key', {}, `?${keyFor('global_admin')}`, 401, 401);
    await check('a stale cookie', { cookie: 'sid=forged' }, '', 401, 401);
    await check('researcher', { cookie: cookies.researcher }, '', 403, 403);
    for (const role of ['author', 'reviewer'] as RoleName[]) await check(role, { cookie: cookies[role] }, '', 200, 403);
    for (const role of ['editor', 'site_admin', 'global_admin'] as RoleName[]) {
      await check(role, { cookie: cookies[role] }, '', 200, null);
      const res = await bulk({ ids: [target], alt_text: role }, cookies[role]);
      t.equal(res.statusCode, 200, `${role} writes`);
    }
  });
});
