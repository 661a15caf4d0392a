import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import t from 'tap';
import type { LightMyRequestResponse } from 'fastify';
import { FixtureRefusedError, importFixture } from '../../../app/import-fixture.js';
import { buildTestApp, json, keyFor, ROLE_USERS, sessionFor } from '../../helper.js';
import { decoded, derivativesMade, photograph, uploadMedia } from './media-support.js';

const fixture = {
  users: ROLE_USERS,
  items: [
    { id: 100, title: 'Public item' },
    { id: 101, title: 'Private item', is_public: false },
  ],
};

t.test('a media with a file', async (t) => {
  const { app, runtime } = await buildTestApp(t, { fixture });
  const editor = keyFor('editor');
  // Stored 400 x 300, shown 300 x 400 (orientation 6: turned 90 degrees clockwise).
  const jpeg = await photograph(400, 300, { orientation: 6 });

  const res = await uploadMedia(
    app,
    editor,
    { 'o:item': { 'o:id': 100 }, 'o:ingester': 'upload', file_index: 0 },
    { filename: 'Photo 1.JPG', content: jpeg },
  );
  t.equal(res.statusCode, 201, res.body);
  const media = json<Record<string, unknown>>(res);
  t.equal(media['o:title'], 'Photo 1.JPG', 'the title defaults to the file name');
  t.equal(media['o:ingester'], 'upload');
  t.equal(media['o:source'], 'Photo 1.JPG');
  t.equal(media['o:media_type'], 'image/jpeg');
  t.equal(media['o:size'], jpeg.length);
  t.match(media['o:sha256'], /^[0-9a-f]{64}$/);
  const id = Number(media['o:id']);
  t.equal(media['o:original_url'], `http://test.local/files/original/${id}.jpg`);
  t.same(media['o:thumbnail_urls'], {}, 'no thumbnails before the worker made them');

  await derivativesMade(runtime);
  const after = json<Record<string, unknown>>(await app.inject({ method: 'GET', url: `/api/media/${id}` }));
  t.same(after['o:thumbnail_urls'], {
    large: `http://test.local/files/large/${id}.jpg`,
    medium: `http://test.local/files/medium/${id}.jpg`,
    square: `http://test.local/files/square/${id}.jpg`,
  });
  const item = json<Record<string, unknown>>(await app.inject({ method: 'GET', url: '/api/items/100' }));
  t.same(item['o:primary_media'], { '@id': `http://test.local/api/media/${id}`, 'o:id': id });
  t.same(item.thumbnail_display_urls, after['o:thumbnail_urls']);

  const original = await app.inject({ method: 'GET', url: `/files/original/${id}.jpg` });
  t.equal(original.statusCode, 200);
  t.same(original.rawPayload, jpeg, 'the original is served as uploaded');
  for (const [type, width, height] of [
    ['large', 300, 400],
    ['medium', 150, 200],
    ['square', 200, 200],
  ] as const) {
    const thumb = await app.inject({ method: 'GET', url: `/files/${type}/${id}.jpg` });
    t.equal(thumb.statusCode, 200, type);
    const meta = await decoded(thumb.rawPayload);
    t.same([meta.format, meta.width, meta.height], ['jpeg', width, height], `${type} is upright and sized`);
  }

  const info = await app.inject({ method: 'GET', url: `/iiif/3/image/${id}/info.json` });
  t.equal(info.statusCode, 200, info.body);
  const body = json<Record<string, unknown>>(info);
  t.same([body.width, body.height], [300, 400]);
  const tile = await app.inject({ method: 'GET', url: `/iiif/3/image/${id}/0,0,150,200/75,/0/default.jpg` });
  t.equal(tile.statusCode, 200);
  const meta = await decoded(tile.rawPayload);
  t.same([meta.width, meta.height], [75, 100]);
});

/** The stored files of the media area, and the partial uploads: what a refused upload must not leave. */
async function filesLeft(dataDir: string): Promise<string[]> {
  const list = async (dir: string) => readdir(join(dataDir, 'files', dir)).catch(() => [] as string[]);
  return [...(await list('media')), ...(await list('tmp'))];
}

t.test('refused uploads leave nothing behind', async (t) => {
  const { app, config } = await buildTestApp(t, { fixture, config: { maxUploadBytes: 50_000 } });
  const editor = keyFor('editor');
  const jpeg = await photograph(40, 30);
  const file = { filename: 'a.jpg', content: jpeg };
  const item = { 'o:item': { 'o:id': 100 } };
  const cases: [string, () => Promise<LightMyRequestResponse>, number, string][] = [
    ['no file part', () => uploadMedia(app, editor, item, null), 400, 'file'],
    ['no data part', () => uploadMedia(app, editor, undefined, file), 422, 'data'],
    ['data that is not JSON', () => uploadMedia(app, editor, '{"o:item":', file), 422, 'data'],
    ['data of the wrong shape', () => uploadMedia(app, editor, { 'o:item': 'x' }, file), 422, 'o:item'],
    ['no item', () => uploadMedia(app, editor, { 'o:title': 'T' }, file), 422, 'o:item'],
    ['an item that does not exist', () => uploadMedia(app, editor, { 'o:item': { 'o:id': 999 } }, file), 422, 'o:item'],
    ['another ingester', () => uploadMedia(app, editor, { ...item, 'o:ingester': 'url' }, file), 422, 'o:ingester'],
    [
      'a file_index naming no part',
      () => uploadMedia(app, editor, { ...item, file_index: 1 }, file),
      422,
      'file_index',
    ],
    [
      'two files',
      () => uploadMedia(app, editor, item, file, [{ name: 'file[1]', filename: 'b.jpg', content: jpeg }]),
      400,
      'file',
    ],
    [
      'an empty file',
      () => uploadMedia(app, editor, item, { filename: 'e.jpg', content: Buffer.alloc(0) }),
      400,
      'file',
    ],
  ];
  for (const [name, send, status, field] of cases) {
    const res = await send();
    t.equal(res.statusCode, status, `${name}: ${status}`);
    t.ok(
      json<{ errors: Record<string, unknown> }>(res).errors[field],
      `${name}: the error names ${field} (${res.body})`,
    );
  }
  const big = await uploadMedia(app, editor, item, { filename: 'big.jpg', content: Buffer.alloc(60_000, 1) });
  t.equal(big.statusCode, 413, 'over MAX_UPLOAD_BYTES: 413');
  t.match(json(big), { errors: { error: /upload limit/ } });
  const anonymous = await uploadMedia(app, '', item, file);
  t.equal(anonymous.statusCode, 403, 'anonymous callers may not upload');
  const reviewer = await uploadMedia(app, keyFor('reviewer'), item, file);
  t.equal(reviewer.statusCode, 403, 'below Editor may not upload');
  t.same(await filesLeft(config.dataDir), [], 'no file is left behind');
  const list = await app.inject({ method: 'GET', url: `/api/media?${editor}` });
  t.same(json(list), [], 'no media was created');
  const good = await uploadMedia(app, editor, { ...item, file_index: 2 }, { ...file, field: 'file[2]' });
  t.equal(good.statusCode, 201, 'file_index names the part the file comes in');
});

t.test('files that are not images, and images that cannot be decoded', async (t) => {
  const { app, runtime } = await buildTestApp(t, { fixture });
  const editor = keyFor('editor');
  const text = await uploadMedia(
    app,
    editor,
    { 'o:item': { 'o:id': 100 }, 'o:title': 'Notes' },
    { filename: 'notes.txt', content: Buffer.from('plain text & more') },
  );
  t.equal(text.statusCode, 201);
  const textMedia = json<Record<string, unknown>>(text);
  t.equal(textMedia['o:media_type'], 'text/plain');
  const textId = Number(textMedia['o:id']);
  const jpeg = await photograph(64, 48);
  // A JPEG whose header reads but whose pixels stop half way.
  const broken = await uploadMedia(
    app,
    editor,
    { 'o:item': { 'o:id': 100 } },
    { filename: 'broken.jpg', content: jpeg.subarray(0, Math.floor(jpeg.length * 0.6)) },
  );
  t.equal(broken.statusCode, 201, 'an image that cannot be decoded is kept');
  const brokenId = Number(json<Record<string, unknown>>(broken)['o:id']);
  // Not an image at all, though named like one.
  const garbage = await uploadMedia(
    app,
    editor,
    { 'o:item': { 'o:id': 100 } },
    { filename: 'garbage.jpg', content: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 5]) },
  );
  t.equal(garbage.statusCode, 201);
  const garbageId = Number(json<Record<string, unknown>>(garbage)['o:id']);
  await derivativesMade(runtime);
  for (const id of [textId, brokenId, garbageId]) {
    const media = json<Record<string, unknown>>(await app.inject({ method: 'GET', url: `/api/media/${id}` }));
    t.same(media['o:thumbnail_urls'], {}, `media ${id}: no thumbnails`);
    for (const path of [
      `/iiif/3/image/${id}/info.json`,
      `/iiif/3/image/${id}/full/max/0/default.jpg`,
      `/files/large/${id}.jpg`,
    ]) {
      const res = await app.inject({ method: 'GET', url: path });
      t.equal(res.statusCode, 404, `${path}: 404, never a 5xx`);
    }
    t.equal(
      (await app.inject({ method: 'GET', url: String(media['o:original_url']).replace('http://test.local', '') }))
        .statusCode,
      200,
      'its original is served',
    );
  }
  const health = json<{ images: { undecodable: number; derivatives_pending: number } }>(
    await app.inject({ method: 'GET', url: '/health' }),
  );
  t.same(
    health.images,
    { derivatives_pending: 0, undecodable: 2 },
    '/health counts the images that could not be decoded',
  );
  const item = json<Record<string, unknown>>(await app.inject({ method: 'GET', url: '/api/items/100' }));
  t.same(
    item['o:primary_media'],
    { '@id': `http://test.local/api/media/${textId}`, 'o:id': textId },
    'the first media with a file is the primary one',
  );
  t.same(item.thumbnail_display_urls, { large: null, medium: null, square: null });
});

t.test('deleting a media removes its files', async (t) => {
  const { app, runtime, config } = await buildTestApp(t, { fixture });
  const editor = keyFor('editor');
  const res = await uploadMedia(
    app,
    editor,
    { 'o:item': { 'o:id': 100 } },
    { filename: 'a.jpg', content: await photograph(300, 200) },
  );
  const id = Number(json<Record<string, unknown>>(res)['o:id']);
  await derivativesMade(runtime);
  t.equal((await filesLeft(config.dataDir)).length, 5, 'the original, three JPEGs and the pyramid');
  await app.inject({ method: 'GET', url: `/iiif/3/image/${id}/full/50,/0/default.jpg` });
  const deleted = await app.inject({ method: 'DELETE', url: `/api/media/${id}?${editor}` });
  t.equal(deleted.statusCode, 200);
  await runtime.projections.catchUp();
  t.same(await filesLeft(config.dataDir), [], 'every stored file is gone');
  t.same(await readdir(join(config.dataDir, 'cache', 'iiif')).catch(() => []), [], 'and the rendered images');
  const item = json<Record<string, unknown>>(await app.inject({ method: 'GET', url: '/api/items/100' }));
  t.equal(item['o:primary_media'], null);
  // The item's delete removes its media's files too.
  const again = await uploadMedia(
    app,
    editor,
    { 'o:item': { 'o:id': 100 } },
    { filename: 'b.jpg', content: await photograph(30, 20) },
  );
  t.equal(again.statusCode, 201);
  await derivativesMade(runtime);
  t.equal((await app.inject({ method: 'DELETE', url: `/api/items/100?${editor}` })).statusCode, 200);
  await runtime.projections.catchUp();
  t.same(await filesLeft(config.dataDir), [], "an item's delete removes its media's files");
});

t.test('private images answer 404 to those who may not see them', async (t) => {
  const { app, runtime } = await buildTestApp(t, { fixture });
  const editor = keyFor('editor');
  const jpeg = await photograph(300, 200);
  const privateMedia = await uploadMedia(
    app,
    editor,
    { 'o:item': { 'o:id': 100 }, 'o:is_public': false },
    { filename: 'p.jpg', content: jpeg },
  );
  const ofPrivateItem = await uploadMedia(
    app,
    editor,
    { 'o:item': { 'o:id': 101 } },
    { filename: 'i.jpg', content: jpeg },
  );
  const ids = [privateMedia, ofPrivateItem].map((res) => Number(json<Record<string, unknown>>(res)['o:id']));
  await derivativesMade(runtime);
  const cookie = await sessionFor(app, 'editor');
  for (const id of ids) {
    const urls = [
      `/files/original/${id}.jpg`,
      `/files/large/${id}.jpg`,
      `/files/medium/${id}.jpg`,
      `/files/square/${id}.jpg`,
      `/iiif/3/image/${id}`,
      `/iiif/3/image/${id}/info.json`,
      `/iiif/3/image/${id}/full/max/0/default.jpg`,
      `/iiif/3/image/${id}/0,0,100,100/50,/0/default.jpg`,
      `/api/media/${id}`,
    ];
    for (const url of urls) {
      const anonymous = await app.inject({ method: 'GET', url });
      t.equal(anonymous.statusCode, 404, `${url}: 404 anonymously`);
      t.notOk(anonymous.headers.etag, `${url}: no ETag anonymously`);
      const researcher = await app.inject({ method: 'GET', url: `${url}?${keyFor('researcher')}` });
      t.equal(researcher.statusCode, 404, `${url}: 404 below Editor`);
      const byKey = await app.inject({ method: 'GET', url: `${url}?${editor}` });
      t.ok([200, 303].includes(byKey.statusCode), `${url}: served to an editor's API key (${byKey.statusCode})`);
      const bySession = await app.inject({ method: 'GET', url, headers: { cookie } });
      t.ok([200, 303].includes(bySession.statusCode), `${url}: served to an editor's session`);
      if (byKey.statusCode === 200 && !url.startsWith('/api/'))
        t.equal(byKey.headers['cache-control'], 'private, no-cache', `${url}: never kept by a shared cache`);
    }
  }
  const wrongKey = await app.inject({
    method: 'GET',
    url: `/files/original/${ids[0]}.jpg?key_identity=editor-id&key_credential=wrong`,
  });
  t.equal(wrongKey.statusCode, 403, 'a wrong API key is refused, never taken as anonymous');
  const item = json<Record<string, unknown>>(await app.inject({ method: 'GET', url: '/api/items/100' }));
  t.equal(item['o:primary_media'], null, "a private media is not a public item's primary media");
  t.same(item.thumbnail_display_urls, { large: null, medium: null, square: null });
  const asEditor = json<Record<string, unknown>>(await app.inject({ method: 'GET', url: `/api/items/100?${editor}` }));
  t.same(asEditor['o:primary_media'], { '@id': `http://test.local/api/media/${ids[0]}`, 'o:id': ids[0] });
});

t.test('conditional reads of the files', async (t) => {
  const { app, runtime } = await buildTestApp(t, { fixture });
  const jpeg = await photograph(300, 200);
  const res = await uploadMedia(
    app,
    keyFor('editor'),
    { 'o:item': { 'o:id': 100 } },
    { filename: 'a.jpg', content: jpeg },
  );
  const id = Number(json<Record<string, unknown>>(res)['o:id']);
  await derivativesMade(runtime);
  for (const url of [`/files/original/${id}.jpg`, `/files/square/${id}.jpg`]) {
    const first = await app.inject({ method: 'GET', url });
    t.equal(first.statusCode, 200);
    t.match(first.headers.etag, /^"[0-9a-f-.a-z]+"$/, `${url}: a strong ETag`);
    t.equal(first.headers['cache-control'], 'public, max-age=86400');
    t.equal(first.headers['access-control-allow-origin'], '*');
    const again = await app.inject({ method: 'GET', url, headers: { 'if-none-match': String(first.headers.etag) } });
    t.equal(again.statusCode, 304, `${url}: 304 on its ETag`);
    t.equal(again.body, '');
  }
  const range = await app.inject({ method: 'GET', url: `/files/original/${id}.jpg`, headers: { range: 'bytes=0-9' } });
  t.equal(range.statusCode, 206);
  t.same(range.rawPayload, jpeg.subarray(0, 10));
  t.equal(
    (await app.inject({ method: 'GET', url: `/files/original/${id}.png` })).statusCode,
    404,
    'another extension is not the file',
  );
  t.equal((await app.inject({ method: 'GET', url: `/files/huge/${id}.jpg` })).statusCode, 404);
});

t.test('a fixture names its media files', async (t) => {
  const { runtime, app, config } = await buildTestApp(t);
  const dir = join(config.dataDir, 'fixture');
  await mkdir(join(dir, 'images'), { recursive: true });
  const jpeg = await photograph(120, 80, { orientation: 8 });
  await writeFile(join(dir, 'images', 'photo.jpg'), jpeg);
  const withFile = {
    users: ROLE_USERS,
    items: [{ id: 100, title: 'Imported', media: [{ id: 7, title: 'Photo', file: 'images/photo.jpg' }] }],
  };
  await importFixture(runtime, withFile, undefined, { dir });
  await derivativesMade(runtime);
  const media = json<Record<string, unknown>>(await app.inject({ method: 'GET', url: '/api/media/7' }));
  t.equal(media['o:source'], 'photo.jpg');
  t.equal(media['o:media_type'], 'image/jpeg');
  t.equal(media['o:size'], jpeg.length);
  t.equal(Object.keys(media['o:thumbnail_urls'] as object).length, 3);
  const info = json<Record<string, unknown>>(await app.inject({ method: 'GET', url: '/iiif/3/image/7/info.json' }));
  t.same([info.width, info.height], [80, 120], 'orientation 8: shown upright');
  const missing = { items: [{ id: 200, title: 'Broken', media: [{ title: 'None', file: 'images/none.jpg' }] }] };
  const refused = await importFixture(runtime, missing, undefined, { dir }).catch((error: unknown) => error);
  t.ok(refused instanceof FixtureRefusedError, 'a missing file refuses the fixture');
  t.match(refused instanceof FixtureRefusedError ? refused.problems : null, [
    { path: '$.items[0].media[0].file', message: /No readable file at images\/none.jpg/ },
  ]);
});

t.test('JPEG, PNG, TIFF, WebP and GIF all get their derivatives', async (t) => {
  const { app, runtime } = await buildTestApp(t, { fixture });
  const ids: [string, number][] = [];
  for (const format of ['jpeg', 'png', 'tiff', 'webp', 'gif'] as const) {
    const content = await photograph(300, 240, { format });
    const res = await uploadMedia(
      app,
      keyFor('editor'),
      { 'o:item': { 'o:id': 100 } },
      { filename: `a.${format}`, content },
    );
    t.equal(res.statusCode, 201, format);
    t.equal(json<Record<string, unknown>>(res)['o:media_type'], `image/${format}`, `${format} is sniffed`);
    ids.push([format, Number(json<Record<string, unknown>>(res)['o:id'])]);
  }
  await derivativesMade(runtime);
  for (const [format, id] of ids) {
    const square = await app.inject({ method: 'GET', url: `/files/square/${id}.jpg` });
    t.equal(square.statusCode, 200, `${format}: a square thumbnail`);
    const meta = await decoded(square.rawPayload);
    t.same([meta.format, meta.width, meta.height], ['jpeg', 200, 200], `${format}: a 200 x 200 JPEG`);
    const large = await decoded((await app.inject({ method: 'GET', url: `/files/large/${id}.jpg` })).rawPayload);
    t.same([large.width, large.height], [300, 240], `${format}: large is never enlarged`);
  }
});

t.test('a TIFF whose directory comes after its pixels (as libtiff writes it) is an image', async (t) => {
  const { app, runtime } = await buildTestApp(t, { fixture });
  const tiff = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#396' } })
    .tiff({ compression: 'none' })
    .toBuffer();
  t.ok(tiff.readUInt32LE(4) > 4100, 'its first directory lies past the head the type is sniffed from');
  const res = await uploadMedia(
    app,
    keyFor('editor'),
    { 'o:item': { 'o:id': 100 } },
    { filename: 'scan.tif', content: tiff },
  );
  t.equal(json<Record<string, unknown>>(res)['o:media_type'], 'image/tiff');
  await derivativesMade(runtime);
  const id = Number(json<Record<string, unknown>>(res)['o:id']);
  const info = json<Record<string, unknown>>(await app.inject({ method: 'GET', url: `/iiif/3/image/${id}/info.json` }));
  t.same([info.width, info.height], [400, 300]);
  t.equal((await app.inject({ method: 'GET', url: `/files/square/${id}.jpg` })).statusCode, 200);
});
