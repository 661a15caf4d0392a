import t from 'tap';
import { buildTestApp, json, keyFor, ROLE_USERS } from '../../helper.js';
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
