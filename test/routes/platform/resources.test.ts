import t from 'tap';
import { buildTestApp, json, keyFor, ROLE_USERS } from '../../helper.js';

const fixture = {
  users: ROLE_USERS,
  sites: [{ id: 1, slug: 'main', title: 'Main site' }],
  item_sets: [
    { id: 10, title: 'Maps', site_ids: [1] },
    { id: 11, title: 'Secret set', is_public: false },
  ],
  items: [
    {
      id: 100,
      title: 'Map of Lisbon',
      description: 'A map',
      item_set_ids: [10],
      site_ids: [1],
      media: [{ id: 1000, title: 'Scan', text: 'transcription' }],
    },
    { id: 101, title: 'Hidden item', is_public: false },
    { id: 102, title: 'Third item', item_set_ids: [10] },
  ],
  site_pages: [
    { id: 5, site_id: 1, slug: 'about', title: 'About', blocks: [{ layout: 'html', data: { html: '<p>Hi</p>' } }] },
    { id: 6, site_id: 1, slug: 'draft', title: 'Draft page', is_public: false },
  ],
};

t.test('host platform resources', async (t) => {
  const { app } = await buildTestApp(t, { fixture });
  const editor = keyFor('editor');

  t.test('JSON-LD representation of an item', async (t) => {
    const res = await app.inject({ method: 'GET', url: '/api/items/100' });
    t.equal(res.statusCode, 200);
    const item = json<Record<string, unknown>>(res);
    t.equal(item['@type'], 'o:Item');
    t.equal(item['@id'], 'http://test.local/api/items/100');
    t.equal(item['@context'], 'http://test.local/api-context');
    t.equal(item['o:id'], 100);
    t.equal(item['o:title'], 'Map of Lisbon');
    t.same(item['o:item_set'], [{ '@id': 'http://test.local/api/item_sets/10', 'o:id': 10 }]);
    t.same(item['o:media'], [{ '@id': 'http://test.local/api/media/1000', 'o:id': 1000 }]);
    t.same(item['o:site'], [{ '@id': 'http://test.local/api/sites/1', 'o:id': 1 }]);
  });

  t.test('lists: array, total header, Link header, filters', async (t) => {
    const res = await app.inject({ method: 'GET', url: '/api/items?per_page=1&page=1' });
    t.equal(res.statusCode, 200);
    t.equal(res.headers['platform-total-results'], '2', 'private items are not counted for anonymous callers');
    t.same(
      json<{ 'o:id': number }[]>(res).map((i) => i['o:id']),
      [100],
    );
    const link = String(res.headers.link);
    t.match(link, /page=1&per_page=1>; rel="first"/);
    t.match(link, /page=2&per_page=1>; rel="next"/);
    t.match(link, /page=2&per_page=1>; rel="last"/);
    t.notMatch(link, /rel="prev"/);
    const asEditor = await app.inject({ method: 'GET', url: `/api/items?${editor}` });
    t.equal(asEditor.headers['platform-total-results'], '3', 'editors see private items');
    const bySet = await app.inject({ method: 'GET', url: '/api/items?item_set_id=10' });
    t.same(
      json<{ 'o:id': number }[]>(bySet).map((i) => i['o:id']),
      [100, 102],
    );
    const pages = await app.inject({ method: 'GET', url: '/api/site_pages?site_id=1' });
    t.same(
      json<{ 'o:id': number }[]>(pages).map((p) => p['o:id']),
      [5],
    );
    const media = await app.inject({ method: 'GET', url: '/api/media?item_id=100' });
    t.same(
      json<{ 'o:id': number }[]>(media).map((p) => p['o:id']),
      [1000],
    );
  });

  t.test('private records are 404 below editor, visible to editors', async (t) => {
    for (const url of ['/api/items/101', '/api/item_sets/11', '/api/site_pages/6']) {
      t.equal((await app.inject({ method: 'GET', url })).statusCode, 404, `${url} anonymous`);
      t.equal(
        (await app.inject({ method: 'GET', url: `${url}?${keyFor('researcher')}` })).statusCode,
        404,
        `${url} researcher`,
      );
      t.equal((await app.inject({ method: 'GET', url: `${url}?${editor}` })).statusCode, 200, `${url} editor`);
    }
    const missing = await app.inject({ method: 'GET', url: '/api/items/999' });
    t.equal(missing.statusCode, 404);
    t.same(json(missing), { errors: { error: 'Item not found.' } });
  });

  t.test('create, patch only present keys, put, delete', async (t) => {
    const created = await app.inject({
      method: 'POST',
      url: `/api/items?${editor}`,
      payload: { 'o:title': 'New', 'o:description': 'D', 'o:item_set': [{ 'o:id': 10 }] },
    });
    t.equal(created.statusCode, 201);
    const item = json<{ 'o:id': number; 'o:is_public': boolean }>(created);
    t.ok(item['o:id'] > 102, 'ids continue after imported ones');
    t.equal(item['o:is_public'], true);
    const patched = await app.inject({
      method: 'PATCH',
      url: `/api/items/${item['o:id']}?${editor}`,
      payload: { 'o:title': 'Renamed' },
    });
    t.equal(patched.statusCode, 200);
    t.equal(json<Record<string, unknown>>(patched)['o:title'], 'Renamed');
    t.equal(json<Record<string, unknown>>(patched)['o:description'], 'D', 'absent keys keep their value');
    const read = await app.inject({ method: 'GET', url: `/api/items/${item['o:id']}` });
    t.equal(json<Record<string, unknown>>(read)['o:title'], 'Renamed', 'read your write');
    const media = await app.inject({
      method: 'POST',
      url: `/api/media?${editor}`,
      payload: { 'o:item': { 'o:id': item['o:id'] }, 'o:title': 'Photo', 'o:text': 'words' },
    });
    t.equal(media.statusCode, 201);
    const withMedia = await app.inject({ method: 'GET', url: `/api/items/${item['o:id']}` });
    t.equal((json<Record<string, unknown[]>>(withMedia)['o:media'] ?? []).length, 1);
    const deleted = await app.inject({ method: 'DELETE', url: `/api/items/${item['o:id']}?${editor}` });
    t.equal(deleted.statusCode, 200);
    t.equal(json<Record<string, unknown>>(deleted)['o:title'], 'Renamed');
    t.equal((await app.inject({ method: 'GET', url: `/api/items/${item['o:id']}` })).statusCode, 404);
    const mediaId = json<{ 'o:id': number }>(media)['o:id'];
    t.equal(
      (await app.inject({ method: 'GET', url: `/api/media/${mediaId}?${editor}` })).statusCode,
      404,
      "an item's media go with it",
    );
    t.equal((await app.inject({ method: 'DELETE', url: `/api/items/${item['o:id']}?${editor}` })).statusCode, 404);
  });

  t.test('site pages carry blocks; slugs unique per site', async (t) => {
    const res = await app.inject({
      method: 'POST',
      url: `/api/site_pages?${editor}`,
      payload: {
        'o:site': { 'o:id': 1 },
        'o:slug': 'visit',
        'o:title': 'Visit',
        'o:block': [{ 'o:layout': 'html', 'o:data': { html: '<p>x</p>' } }],
      },
    });
    t.equal(res.statusCode, 201);
    t.same(json<Record<string, unknown>>(res)['o:block'], [{ 'o:layout': 'html', 'o:data': { html: '<p>x</p>' } }]);
    const clash = await app.inject({
      method: 'POST',
      url: `/api/site_pages?${editor}`,
      payload: { 'o:site': { 'o:id': 1 }, 'o:slug': 'visit', 'o:title': 'Again' },
    });
    t.equal(clash.statusCode, 422);
    t.same(json(clash), { errors: { 'o:slug': ['Another page of this site has this slug.'] } });
  });

  t.test('validation and client errors', async (t) => {
    const missing = await app.inject({ method: 'POST', url: `/api/items?${editor}`, payload: {} });
    t.equal(missing.statusCode, 422);
    t.same(json(missing), { errors: { 'o:title': ['This field is required.'] } });
    const wrongType = await app.inject({
      method: 'POST',
      url: `/api/items?${editor}`,
      payload: { 'o:title': 'x', 'o:is_public': 'maybe' },
    });
    t.equal(wrongType.statusCode, 422);
    t.ok(json<{ errors: Record<string, string[]> }>(wrongType).errors['o:is_public']);
    const badRef = await app.inject({
      method: 'POST',
      url: `/api/items?${editor}`,
      payload: { 'o:title': 'x', 'o:item_set': [{ 'o:id': 999 }] },
    });
    t.equal(badRef.statusCode, 422);
    const badJson = await app.inject({
      method: 'POST',
      url: `/api/items?${editor}`,
      headers: { 'content-type': 'application/json' },
      payload: '{"o:title": ',
    });
    t.equal(badJson.statusCode, 400);
    t.same(json(badJson), { errors: { error: 'The request body is not valid JSON.' } });
    const huge = await app.inject({
      method: 'POST',
      url: `/api/items?${editor}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ 'o:title': 'x', 'o:description': 'a'.repeat(1024 * 1024 + 10) }),
    });
    t.equal(huge.statusCode, 413);
    t.equal((await app.inject({ method: 'GET', url: '/api/items/abc' })).statusCode, 422, 'non-numeric id');
    t.equal((await app.inject({ method: 'GET', url: '/api/items/-1' })).statusCode, 422, 'negative id');
    const unknown = await app.inject({ method: 'GET', url: '/api/nothing-here' });
    t.equal(unknown.statusCode, 404);
    t.same(json(unknown), { errors: { error: 'Not found.' } });
  });

  t.test('the OpenAPI document lists the platform routes', async (t) => {
    const doc = json<{ paths: Record<string, unknown> }>(await app.inject({ method: 'GET', url: '/api/docs.json' }));
    for (const path of ['/api/sites', '/api/items/{id}', '/api/site_pages', '/login']) t.ok(doc.paths[path], path);
    t.equal((await app.inject({ method: 'GET', url: '/api/docs' })).statusCode < 400, true, 'interactive reference');
  });
});
