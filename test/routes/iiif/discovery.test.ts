import t from 'tap';
import { buildTestApp, json, keyFor, ROLE_USERS } from '../../helper.js';
import { derivativesMade, photograph, uploadMedia } from '../platform/media-support.js';

/**
 * IIIF Change Discovery 1.0 through app.inject: the activities of manifests and collections as
 * anonymous callers see them (Create when one appears, Update when it changes, Delete when it
 * goes), in pages oldest first, the newest page last.
 */
interface Activity {
  type: string;
  object: { id: string; type: string };
  endTime: string;
}

const M = (id: number) => `http://test.local/iiif/3/item/${id}/manifest`;
const S = (id: number) => `http://test.local/iiif/3/item-set/${id}/collection`;
const TOP = 'http://test.local/iiif/3/collection';

t.test('Change Discovery', async (t) => {
  const { app, runtime } = await buildTestApp(t, {
    fixture: {
      users: ROLE_USERS,
      item_sets: [{ id: 10, title: 'Maps' }],
      items: [
        { id: 1, title: 'Chart', item_set_ids: [10] },
        { id: 2, title: 'Private', is_public: false },
      ],
    },
  });
  const editor = keyFor('editor');
  const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });
  const activities = async (): Promise<[string, string, string][]> => {
    const collection = json<{ totalItems: number; last: { id: string } }>(await get('/iiif/discovery/changes'));
    const items: Activity[] = [];
    for (let page = 0; page * 100 < collection.totalItems; page++)
      items.push(...json<{ orderedItems: Activity[] }>(await get(`/iiif/discovery/changes/page/${page}`)).orderedItems);
    t.equal(items.length, collection.totalItems, 'the pages hold totalItems activities');
    return items.map((a) => [a.type, a.object.type, a.object.id]);
  };
  const photo = await photograph(60, 40);
  const upload = async (item: number, extra: object = {}) => {
    const res = await uploadMedia(
      app,
      editor,
      { 'o:item': { 'o:id': item }, ...extra },
      { filename: 'p.jpg', content: photo },
    );
    t.equal(res.statusCode, 201);
    return Number(json<Record<string, unknown>>(res)['o:id']);
  };

  t.same(
    await activities(),
    [
      ['Create', 'Collection', S(10)],
      ['Update', 'Collection', TOP],
    ],
    'a public set is a collection from its creation',
  );
  const empty = json<Record<string, unknown>>(await get('/iiif/discovery/changes'));
  t.match(empty, {
    '@context': 'http://iiif.io/api/discovery/1/context.json',
    id: 'http://test.local/iiif/discovery/changes',
    type: 'OrderedCollection',
    totalItems: 2,
    first: { id: 'http://test.local/iiif/discovery/changes/page/0', type: 'OrderedCollectionPage' },
    last: { id: 'http://test.local/iiif/discovery/changes/page/0', type: 'OrderedCollectionPage' },
  });

  const hiddenMedia = await upload(1, { 'o:is_public': false });
  await upload(2);
  t.equal((await activities()).length, 2, 'a private image, or an image of a private item, changes nothing public');
  const media = await upload(1);
  await derivativesMade(runtime);
  const patch = (url: string, payload: object) => app.inject({ method: 'PATCH', url: `${url}?${editor}`, payload });
  t.equal((await patch('/api/items/1', { 'o:title': 'Sea chart' })).statusCode, 200);
  t.equal((await patch('/api/items/1', { 'o:is_public': false })).statusCode, 200);
  t.equal((await patch('/api/items/1', { 'o:is_public': true })).statusCode, 200);
  t.equal((await patch(`/api/media/${hiddenMedia}`, { 'o:title': 'Still hidden' })).statusCode, 200);
  t.equal((await app.inject({ method: 'DELETE', url: `/api/media/${media}?${editor}` })).statusCode, 200);
  t.equal((await patch('/api/item_sets/10', { 'o:is_public': false })).statusCode, 200);
  t.same(
    (await activities()).slice(2),
    [
      ['Create', 'Manifest', M(1)],
      ['Update', 'Collection', S(10)],
      ['Update', 'Manifest', M(1)],
      ['Update', 'Manifest', M(1)],
      ['Delete', 'Manifest', M(1)],
      ['Update', 'Collection', S(10)],
      ['Create', 'Manifest', M(1)],
      ['Update', 'Collection', S(10)],
      ['Delete', 'Manifest', M(1)],
      ['Update', 'Collection', S(10)],
      ['Delete', 'Collection', S(10)],
      ['Update', 'Collection', TOP],
    ],
    'its image, its thumbnails, a new title, made private, public again, its last image gone, its set made private',
  );

  const page = json<{ orderedItems: Activity[] }>(await get('/iiif/discovery/changes/page/0'));
  t.match(page, {
    '@context': 'http://iiif.io/api/discovery/1/context.json',
    type: 'OrderedCollectionPage',
    partOf: { id: 'http://test.local/iiif/discovery/changes', type: 'OrderedCollection' },
  });
  t.ok(
    page.orderedItems.every((a) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(a.endTime)),
    'endTime in xsd:dateTime',
  );
  const res = await get('/iiif/discovery/changes/page/0');
  t.equal(res.headers['access-control-allow-origin'], '*');
  t.equal((await get('/iiif/discovery/changes/page/0', { 'if-none-match': String(res.headers.etag) })).statusCode, 304);
  t.equal((await get('/iiif/discovery/changes/page/1')).statusCode, 404, 'no page past the last');
});

t.test('pages of a hundred, the newest last', async (t) => {
  const { app, runtime } = await buildTestApp(t, {
    fixture: { users: ROLE_USERS, items: [{ id: 1, title: 'Chart 0' }] },
  });
  const editor = keyFor('editor');
  await uploadMedia(app, editor, { 'o:item': { 'o:id': 1 } }, { filename: 'p.jpg', content: await photograph(20, 20) });
  await derivativesMade(runtime);
  for (let i = 1; i <= 210; i++)
    await app.inject({ method: 'PATCH', url: `/api/items/1?${editor}`, payload: { 'o:title': `Chart ${i}` } });
  const collection = json<Record<string, unknown>>(await app.inject({ method: 'GET', url: '/iiif/discovery/changes' }));
  t.match(collection, { totalItems: 212, last: { id: 'http://test.local/iiif/discovery/changes/page/2' } });
  const middle = json<Record<string, unknown>>(
    await app.inject({ method: 'GET', url: '/iiif/discovery/changes/page/1' }),
  );
  t.match(middle, {
    startIndex: 100,
    prev: { id: 'http://test.local/iiif/discovery/changes/page/0' },
    next: { id: 'http://test.local/iiif/discovery/changes/page/2' },
  });
  t.equal((middle.orderedItems as unknown[]).length, 100);
  const last = json<Record<string, unknown>>(
    await app.inject({ method: 'GET', url: '/iiif/discovery/changes/page/2' }),
  );
  t.equal((last.orderedItems as unknown[]).length, 12);
  t.notOk('next' in last);
});
