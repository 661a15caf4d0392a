import t from 'tap';
import { importFixture, validateFixture } from '../../../app/import-fixture.js';
import { buildTestApp, json, keyFor, ROLE_USERS } from '../../helper.js';
import { derivativesMade, photograph, uploadMedia } from '../platform/media-support.js';
import { presentationProblems } from './presentation-schema.js';

/**
 * IIIF Presentation 3.0 through app.inject: every manifest and collection validated by the IIIF
 * consortium's schema; canvases with the images' upright sizes; privacy; ETag and 304; CORS.
 */
const fixture = {
  users: ROLE_USERS,
  item_sets: [
    { id: 10, title: 'Maps & Charts' },
    { id: 11, title: 'Hidden set', is_public: false },
  ],
  items: [
    { id: 100, title: 'Map of Lisbon <1755>', description: 'Before the earthquake', item_set_ids: [10, 11] },
    { id: 101, title: 'Private item', is_public: false, item_set_ids: [10] },
    { id: 102, title: 'No images', item_set_ids: [10] },
  ],
};

const M = (id: number) => `http://test.local/iiif/3/item/${id}/manifest`;

t.test('IIIF Presentation 3.0', async (t) => {
  const { app, runtime } = await buildTestApp(t, {
    fixture,
    config: { collectionName: 'City Museum', collectionAttribution: 'Courtesy of the City Museum' },
  });
  const editor = keyFor('editor');
  const upload = async (item: number, orientation: number, extra: object = {}) => {
    const res = await uploadMedia(
      app,
      editor,
      { 'o:item': { 'o:id': item }, ...extra },
      { filename: 'p.jpg', content: await photograph(300, 200, { orientation }) },
    );
    t.equal(res.statusCode, 201);
    return Number(json<Record<string, unknown>>(res)['o:id']);
  };
  const first = await upload(100, 1, { 'o:title': 'Recto' });
  const second = await upload(100, 6, { 'o:title': 'Verso' });
  const hidden = await upload(100, 1, { 'o:title': 'Conservation photo', 'o:is_public': false });
  await upload(101, 1);
  const text = await uploadMedia(
    app,
    editor,
    { 'o:item': { 'o:id': 102 } },
    { filename: 'n.txt', content: Buffer.from('notes') },
  );
  t.equal(text.statusCode, 201);
  await derivativesMade(runtime);

  const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });

  t.test('a manifest', async (t) => {
    const res = await get('/iiif/3/item/100/manifest');
    t.equal(res.statusCode, 200);
    t.equal(
      res.headers['content-type'],
      'application/ld+json;profile="http://iiif.io/api/presentation/3/context.json"',
    );
    t.equal(res.headers['access-control-allow-origin'], '*');
    const manifest = json<Record<string, unknown>>(res);
    t.same(presentationProblems(manifest), [], 'valid against the IIIF Presentation 3.0 schema');
    t.not(
      presentationProblems({ ...manifest, label: 'a plain string' }),
      [],
      'the schema refuses a label that is no language map',
    );
    t.not(
      presentationProblems({ ...manifest, rights: 'https://example.org/mine' }),
      [],
      'and rights outside CC and RightsStatements',
    );
    t.match(manifest, {
      '@context': 'http://iiif.io/api/presentation/3/context.json',
      id: M(100),
      type: 'Manifest',
      label: { none: ['Map of Lisbon <1755>'] },
      summary: { none: ['Before the earthquake'] },
      homepage: [{ id: 'http://test.local/item/100', type: 'Text', format: 'text/html' }],
      seeAlso: [{ id: 'http://test.local/api/items/100', type: 'Dataset' }],
      partOf: [{ id: 'http://test.local/iiif/3/item-set/10/collection', type: 'Collection' }],
      provider: [{ type: 'Agent', label: { none: ['City Museum'] } }],
      requiredStatement: { value: { none: ['Courtesy of the City Museum'] } },
    });
    const canvases = manifest.items as {
      id: string;
      width: number;
      height: number;
      label: unknown;
      items: unknown[];
    }[];
    t.same(
      canvases.map((c) => [c.id, c.width, c.height]),
      [
        [`${M(100)}/canvas/${first}`, 300, 200],
        [`${M(100)}/canvas/${second}`, 200, 300],
      ],
      'one canvas per public image media, in media order, upright sizes',
    );
    t.match(canvases[1].items, [
      {
        type: 'AnnotationPage',
        items: [
          {
            type: 'Annotation',
            motivation: 'painting',
            target: `${M(100)}/canvas/${second}`,
            body: {
              type: 'Image',
              width: 200,
              height: 300,
              service: [{ id: `http://test.local/iiif/3/image/${second}`, type: 'ImageService3', profile: 'level2' }],
            },
          },
        ],
      },
    ]);
    t.notMatch(JSON.stringify(manifest), /Hidden set|Conservation photo/, 'nothing private anonymously');
    const again = await get('/iiif/3/item/100/manifest', { 'if-none-match': String(res.headers.etag) });
    t.equal(again.statusCode, 304, '304 on its ETag');
    const asJson = await get('/iiif/3/item/100/manifest', { accept: 'application/json' });
    t.equal(asJson.headers['content-type'], 'application/json');
    t.not(asJson.headers.etag, res.headers.etag, 'each media type has its own tag');
  });

  t.test('as an editor: private media and sets too', async (t) => {
    const res = await get(`/iiif/3/item/100/manifest?${editor}`);
    const manifest = json<Record<string, unknown>>(res);
    t.same(presentationProblems(manifest), []);
    t.equal((manifest.items as unknown[]).length, 3);
    t.match(JSON.stringify(manifest), /Hidden set/);
    t.equal(res.headers['cache-control'], 'private, no-cache');
    const privateItem = await get(`/iiif/3/item/101/manifest?${editor}`);
    t.equal(privateItem.statusCode, 200);
    t.same(presentationProblems(json(privateItem)), []);
  });

  t.test('404 where there is nothing the caller may see', async (t) => {
    for (const url of [
      '/iiif/3/item/101/manifest',
      '/iiif/3/item/102/manifest',
      '/iiif/3/item/999/manifest',
      '/iiif/3/item-set/11/collection',
      '/iiif/3/item-set/999/collection',
    ]) {
      const res = await get(url);
      t.equal(res.statusCode, 404, url);
      t.equal(res.headers['access-control-allow-origin'], '*', `${url}: CORS on the 404 too`);
    }
    t.equal((await get(`/iiif/3/item/102/manifest?${editor}`)).statusCode, 404, 'no image: no manifest, for anyone');
  });

  t.test('collections', async (t) => {
    const set = json<Record<string, unknown>>(await get('/iiif/3/item-set/10/collection'));
    t.same(presentationProblems(set), []);
    t.match(set, { type: 'Collection', label: { none: ['Maps & Charts'] } });
    t.same(set.items, [{ id: M(100), type: 'Manifest', label: { none: ['Map of Lisbon <1755>'] } }]);
    const asEditor = json<Record<string, unknown>>(await get(`/iiif/3/item-set/10/collection?${editor}`));
    t.same(
      (asEditor.items as { id: string }[]).map((item) => item.id),
      [M(100), M(101)],
    );
    const top = json<Record<string, unknown>>(await get('/iiif/3/collection'));
    t.same(presentationProblems(top), []);
    t.same(top.items, [
      { id: 'http://test.local/iiif/3/item-set/10/collection', type: 'Collection', label: { none: ['Maps & Charts'] } },
    ]);
    t.match(top, { label: { none: ['City Museum'] } });
    const all = json<Record<string, unknown>>(await get(`/iiif/3/collection?${editor}`));
    t.same(presentationProblems(all), []);
    t.equal((all.items as unknown[]).length, 2);
  });

  t.test('the read model follows the log', async (t) => {
    const before = await get('/iiif/3/item/100/manifest');
    const renamed = await app.inject({
      method: 'PATCH',
      url: `/api/media/${first}?${editor}`,
      payload: { 'o:title': 'Front' },
    });
    t.equal(renamed.statusCode, 200);
    const after = await get('/iiif/3/item/100/manifest', { 'if-none-match': String(before.headers.etag) });
    t.equal(after.statusCode, 200, 'a change is a new tag');
    t.match(json(after), { items: [{ label: { none: ['Front'] } }] });
    t.equal(
      (await app.inject({ method: 'PATCH', url: `/api/items/100?${editor}`, payload: { 'o:is_public': false } }))
        .statusCode,
      200,
    );
    t.equal((await get('/iiif/3/item/100/manifest')).statusCode, 404, 'an item made private has no public manifest');
    t.equal(
      (await app.inject({ method: 'PATCH', url: `/api/items/100?${editor}`, payload: { 'o:is_public': true } }))
        .statusCode,
      200,
    );
    for (const id of [first, second])
      t.equal((await app.inject({ method: 'DELETE', url: `/api/media/${id}?${editor}` })).statusCode, 200);
    t.equal((await get('/iiif/3/item/100/manifest')).statusCode, 404, 'its last public image gone: no public manifest');
    t.equal(
      (await get(`/iiif/3/item/100/manifest?${editor}`)).statusCode,
      200,
      'the private one is still there for editors',
    );
    t.ok(hidden);
  });
});

t.test('a manifest of an item with many canvases validates', async (t) => {
  const { app, runtime } = await buildTestApp(t, {
    fixture: { users: ROLE_USERS, items: [{ id: 1, title: 'Album' }] },
  });
  const jpeg = await photograph(40, 30);
  for (let i = 0; i < 25; i++) {
    const res = await uploadMedia(
      app,
      keyFor('editor'),
      { 'o:item': { 'o:id': 1 } },
      { filename: `${i}.jpg`, content: jpeg },
    );
    t.equal(res.statusCode, 201);
  }
  await derivativesMade(runtime);
  const manifest = json<Record<string, unknown>>(await app.inject({ method: 'GET', url: '/iiif/3/item/1/manifest' }));
  t.equal((manifest.items as unknown[]).length, 25);
  t.same(presentationProblems(manifest), []);
});

t.test("an item's rights: Creative Commons or RightsStatements.org, shown in its manifest", async (t) => {
  const { app, runtime } = await buildTestApp(t, {
    fixture: { users: ROLE_USERS, items: [{ id: 1, title: 'Chart' }] },
  });
  const editor = keyFor('editor');
  const patch = (rights: unknown) =>
    app.inject({ method: 'PATCH', url: `/api/items/1?${editor}`, payload: { 'o:rights': rights } });
  for (const bad of ['https://example.org/licence', 'All rights reserved', 'http://creativecommons.org/licenses/']) {
    const res = await patch(bad);
    t.equal(res.statusCode, 422, `${bad}: 422`);
    t.ok(json<{ errors: Record<string, unknown> }>(res).errors['o:rights'], 'naming o:rights');
  }
  const cc = await patch('https://creativecommons.org/licenses/by/4.0/');
  t.equal(cc.statusCode, 200);
  t.equal(
    json<Record<string, unknown>>(cc)['o:rights'],
    'http://creativecommons.org/licenses/by/4.0/',
    'kept as http://',
  );
  await uploadMedia(app, editor, { 'o:item': { 'o:id': 1 } }, { filename: 'c.jpg', content: await photograph(60, 40) });
  await derivativesMade(runtime);
  const manifest = json<Record<string, unknown>>(await app.inject({ method: 'GET', url: '/iiif/3/item/1/manifest' }));
  t.equal(manifest.rights, 'http://creativecommons.org/licenses/by/4.0/');
  t.same(presentationProblems(manifest), []);
  t.equal((await patch('http://rightsstatements.org/vocab/InC/1.0/')).statusCode, 200);
  const statement = json<Record<string, unknown>>(await app.inject({ method: 'GET', url: '/iiif/3/item/1/manifest' }));
  t.equal(statement.rights, 'http://rightsstatements.org/vocab/InC/1.0/');
  t.same(presentationProblems(statement), []);
  const cleared = await patch(null);
  t.notOk('o:rights' in json<Record<string, unknown>>(cleared), 'null removes it');
  const none = json<Record<string, unknown>>(await app.inject({ method: 'GET', url: '/iiif/3/item/1/manifest' }));
  t.notOk('rights' in none);
});

t.test("a fixture's rights are checked and kept in their http:// form", async (t) => {
  const { runtime, app } = await buildTestApp(t);
  const refused = await validateFixture(runtime, { items: [{ title: 'A', rights: 'mine' }] });
  t.match(refused, [{ path: '$.items[0].rights', message: /Creative Commons/ }]);
  await importFixture(runtime, {
    items: [{ id: 5, title: 'B', rights: 'https://rightsstatements.org/vocab/NoC-US/1.0/' }],
  });
  const item = json<Record<string, unknown>>(await app.inject({ method: 'GET', url: '/api/items/5' }));
  t.equal(item['o:rights'], 'http://rightsstatements.org/vocab/NoC-US/1.0/');
});
