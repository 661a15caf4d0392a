import t from 'tap';
import { buildTestApp, json, keyFor, ROLE_USERS } from '../../helper.js';

const fixture = {
  users: ROLE_USERS,
  sites: [{ id: 1, slug: 'main', title: 'Main' }],
  item_sets: [
    { id: 10, title: 'Maps', site_ids: [1] },
    { id: 11, title: 'Acquisitions under review', is_public: false },
  ],
  items: [
    {
      id: 100,
      title: 'Map of Lisbon',
      item_set_ids: [10, 11],
      is_public: true,
      media: [
        { id: 1000, title: 'Scan', text: 'public', is_public: true },
        { id: 1001, title: 'Restorer notes', text: 'private', is_public: false },
      ],
    },
    {
      id: 103,
      title: 'Secret ledger',
      is_public: false,
      media: [{ id: 1030, title: 'Ledger page', text: 'public media of a private item', is_public: true }],
    },
  ],
};

type Ref = { 'o:id': number };
const refIds = (refs: Ref[]) => refs.map((ref) => ref['o:id']);

t.test('a representation lists only the children the caller may see', async (t) => {
  const { app } = await buildTestApp(t, { fixture });
  const get = (url: string, query = '') => app.inject({ method: 'GET', url: `${url}${query ? `?${query}` : ''}` });

  for (const [who, query] of [
    ['anonymous', ''],
    ['a researcher key', keyFor('researcher')],
    ['an author key', keyFor('author')],
  ] as const) {
    const one = await get('/api/items/100', query);
    t.equal(one.statusCode, 200, who);
    const item = json<{ 'o:media': Ref[]; 'o:item_set': Ref[] }>(one);
    t.same(refIds(item['o:media']), [1000], `${who}: the private media's id is not listed`);
    t.same(refIds(item['o:item_set']), [10], `${who}: the private item set's id is not listed`);
    const list = json<{ 'o:id': number; 'o:media': Ref[]; 'o:item_set': Ref[] }[]>(await get('/api/items', query));
    t.same(
      list.map((i) => [i['o:id'], refIds(i['o:media']), refIds(i['o:item_set'])]),
      [[100, [1000], [10]]],
      `${who}: the list too`,
    );
    t.equal(
      (await get('/api/media/1030', query)).statusCode,
      404,
      `${who}: a media of a private item is as private as its item`,
    );
    t.same(
      json<{ 'o:id': number }[]>(await get('/api/media', query)).map((m) => m['o:id']),
      [1000],
      `${who}: media list`,
    );
    t.equal(json<unknown[]>(await get('/api/item_sets', query)).length, 1, `${who}: item set list`);
    const inPrivateSet = await get('/api/items', `item_set_id=11${query ? `&${query}` : ''}`);
    t.same(
      [json(inPrivateSet), inPrivateSet.headers['platform-total-results']],
      [[], '0'],
      `${who}: what a private set holds is not told`,
    );
    t.equal(
      json<unknown[]>(await get('/api/items', `item_set_id=10${query ? `&${query}` : ''}`)).length,
      1,
      `${who}: a public set's items are`,
    );
  }

  for (const role of ['editor', 'global_admin'] as const) {
    const item = json<{ 'o:media': Ref[]; 'o:item_set': Ref[] }>(await get('/api/items/100', keyFor(role)));
    t.same(refIds(item['o:media']), [1000, 1001], `${role} sees private media`);
    t.same(refIds(item['o:item_set']), [10, 11], `${role} sees private item sets`);
    t.equal(
      json<unknown[]>(await get('/api/items', `item_set_id=11&${keyFor(role)}`)).length,
      1,
      `${role} lists a private set's items`,
    );
    const media = await get('/api/media/1030', keyFor(role));
    t.equal(media.statusCode, 200, `${role} reads the media of a private item`);
    t.same(json<{ 'o:item': Ref }>(media)['o:item']['o:id'], 103);
  }
});
