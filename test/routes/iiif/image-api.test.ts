import t, { type Test } from 'tap';
import sharp from 'sharp';
import { buildTestApp, json, keyFor, ROLE_USERS } from '../../helper.js';
import { decoded, derivativesMade, photograph, pixel, uploadMedia } from '../platform/media-support.js';

/**
 * The IIIF Image API 3.0 at level 2 through app.inject: every parameter's answer decoded with
 * sharp, its exact pixel size asserted; gray is gray, mirroring mirrors, errors are 400 or 501.
 */
const fixture = { users: ROLE_USERS, items: [{ id: 100, title: 'Public item' }] };

const RED = [255, 0, 0];
const GREEN = [0, 255, 0];
const BLUE = [0, 0, 255];
const WHITE = [255, 255, 255];

function near(t: Test, actual: number[], expected: number[], message: string) {
  t.ok(
    actual.every((value, i) => Math.abs(value - expected[i]) < 40),
    `${message}: ${actual.join(',')} is about ${expected.join(',')}`,
  );
}

t.test('IIIF Image API', async (t) => {
  const { app, runtime } = await buildTestApp(t, { fixture });
  // 400 x 300: red top left, green top right, blue bottom left, white bottom right.
  const png = await photograph(400, 300, { format: 'png' });
  const created = await uploadMedia(
    app,
    keyFor('editor'),
    { 'o:item': { 'o:id': 100 } },
    { filename: 'q.png', content: png },
  );
  t.equal(created.statusCode, 201, created.body);
  const id = json<{ 'o:id': number }>(created)['o:id'];
  const base = `/iiif/3/image/${id}`;
  const get = (path: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url: `${base}/${path}`, headers });

  async function sized(t: Test, path: string, width: number, height: number) {
    const res = await get(path);
    t.equal(res.statusCode, 200, `${path} answers 200 ${res.statusCode === 200 ? '' : res.body}`);
    const meta = await decoded(res.rawPayload);
    t.same([meta.width, meta.height], [width, height], `${path} is ${width} x ${height}`);
    return res;
  }

  t.test('from the original, before the pyramid exists', async (t) => {
    await sized(t, 'full/max/0/default.jpg', 400, 300);
    await sized(t, 'full/200,/0/default.jpg', 200, 150);
  });

  await derivativesMade(runtime);

  t.test('the base answers 303 to info.json', async (t) => {
    const res = await app.inject({ method: 'GET', url: base });
    t.equal(res.statusCode, 303);
    t.equal(res.headers.location, `http://test.local${base}/info.json`);
    t.equal(res.headers['access-control-allow-origin'], '*');
  });

  t.test('info.json', async (t) => {
    const res = await get('info.json');
    t.equal(res.statusCode, 200);
    t.equal(res.headers['content-type'], 'application/ld+json;profile="http://iiif.io/api/image/3/context.json"');
    t.equal(res.headers['access-control-allow-origin'], '*');
    t.match(res.headers.etag, /^"[^"]+"$/, 'a strong ETag');
    const info = json<Record<string, unknown>>(res);
    t.match(info, {
      '@context': 'http://iiif.io/api/image/3/context.json',
      id: `http://test.local${base}`,
      type: 'ImageService3',
      protocol: 'http://iiif.io/api/image',
      profile: 'level2',
      width: 400,
      height: 300,
    });
    t.same(info.sizes, [
      { type: 'Size', width: 200, height: 150 },
      { type: 'Size', width: 400, height: 300 },
    ]);
    t.same(info.tiles, [{ type: 'Tile', width: 512, scaleFactors: [1] }]);
    const plain = await get('info.json', { accept: 'application/json' });
    t.equal(plain.headers['content-type'], 'application/json');
    const ld = await get('info.json', { accept: 'application/ld+json, application/json' });
    t.match(ld.headers['content-type'], /^application\/ld\+json/);
    const again = await get('info.json', { 'if-none-match': String(res.headers.etag) });
    t.equal(again.statusCode, 304);
    t.equal(again.body, '');
  });

  t.test('regions', async (t) => {
    await sized(t, 'full/max/0/default.png', 400, 300);
    await sized(t, 'square/max/0/default.png', 300, 300);
    const px = await sized(t, '0,0,200,150/max/0/default.png', 200, 150);
    near(t, await pixel(px.rawPayload, 100, 75), RED, 'x,y,w,h: the top left quadrant is red');
    const pct = await sized(t, 'pct:50,50,50,50/max/0/default.png', 200, 150);
    near(t, await pixel(pct.rawPayload, 100, 75), WHITE, 'pct: the bottom right quadrant is white');
    await sized(t, '300,200,500,500/max/0/default.png', 100, 100);
  });

  t.test('sizes', async (t) => {
    await sized(t, 'full/200,/0/default.jpg', 200, 150);
    await sized(t, 'full/,150/0/default.jpg', 200, 150);
    await sized(t, 'full/pct:25/0/default.jpg', 100, 75);
    await sized(t, 'full/100,100/0/default.jpg', 100, 100);
    await sized(t, 'full/!100,100/0/default.jpg', 100, 75);
    await sized(t, 'full/^800,/0/default.jpg', 800, 600);
    // Up to maxArea (4096 x 4096 here), keeping the aspect ratio.
    await sized(t, 'full/^max/0/default.jpg', 4729, 3547);
    await sized(t, 'full/^!1000,1000/0/default.jpg', 1000, 750);
    await sized(t, 'full/^pct:150/0/default.jpg', 600, 450);
    await sized(t, 'full/!1000,1000/0/default.jpg', 400, 300);
  });

  t.test('rotation and mirroring', async (t) => {
    const turned = await sized(t, 'full/max/90/default.png', 300, 400);
    near(t, await pixel(turned.rawPayload, 299, 0), RED, 'turned 90: red at the top right');
    near(t, await pixel(turned.rawPayload, 0, 0), BLUE, 'turned 90: blue at the top left');
    const mirrored = await sized(t, 'full/max/!0/default.png', 400, 300);
    near(t, await pixel(mirrored.rawPayload, 0, 0), GREEN, 'mirrored: green at the top left');
    near(t, await pixel(mirrored.rawPayload, 399, 0), RED, 'mirrored: red at the top right');
    const upside = await sized(t, 'full/max/180/default.png', 400, 300);
    near(t, await pixel(upside.rawPayload, 0, 0), WHITE, '180: white at the top left');
    const both = await sized(t, 'full/max/!90/default.png', 300, 400);
    // Mirrored: green red / white blue; then turned 90 degrees clockwise: white green / blue red.
    near(t, await pixel(both.rawPayload, 0, 0), WHITE, 'mirrored then turned 90: white at the top left');
    near(t, await pixel(both.rawPayload, 299, 0), GREEN, 'mirrored then turned 90: green at the top right');
    near(t, await pixel(both.rawPayload, 299, 399), RED, 'mirrored then turned 90: red at the bottom right');
    near(t, await pixel(both.rawPayload, 0, 399), BLUE, 'mirrored then turned 90: blue at the bottom left');
    await sized(t, 'full/max/270/default.png', 300, 400);
  });

  t.test('qualities and formats', async (t) => {
    const gray = await get('full/max/0/gray.png');
    const grayMeta = await decoded(gray.rawPayload);
    t.equal(grayMeta.channels, 1, 'gray is one channel');
    const [r, g, b] = await pixel(gray.rawPayload, 100, 75);
    t.ok(r === g && g === b, 'gray is gray');
    const bitonal = await get('full/max/0/bitonal.png');
    const raw = await sharp(bitonal.rawPayload).greyscale().raw().toBuffer();
    t.ok(
      [...raw].every((v) => v === 0 || v === 255),
      'bitonal is black and white only',
    );
    for (const [format, expected] of [
      ['jpg', 'jpeg'],
      ['png', 'png'],
      ['webp', 'webp'],
    ] as const) {
      const res = await get(`full/100,/0/color.${format}`);
      t.equal(res.statusCode, 200);
      t.equal(res.headers['content-type'], `image/${expected}`);
      t.equal((await decoded(res.rawPayload)).format, expected);
    }
  });

  t.test('caching, CORS and the canonical link', async (t) => {
    const first = await get('0,0,100,100/max/0/default.jpg');
    t.equal(first.statusCode, 200);
    t.equal(first.headers['access-control-allow-origin'], '*');
    t.equal(first.headers['cache-control'], 'public, max-age=86400', 'public images may be kept a day');
    t.match(first.headers.etag, /^"[^W]/);
    t.equal(first.headers.link, `<http://test.local${base}/0,0,100,100/max/0/default.jpg>;rel="canonical"`);
    const second = await get('0,0,100,100/max/0/default.jpg');
    t.same(second.rawPayload, first.rawPayload, 'the kept answer is the same image');
    t.equal(second.headers.etag, first.headers.etag);
    const notModified = await get('0,0,100,100/max/0/default.jpg', { 'if-none-match': String(first.headers.etag) });
    t.equal(notModified.statusCode, 304);
  });

  t.test('refusals', async (t) => {
    for (const path of [
      'nonsense/max/0/default.jpg',
      'full/nonsense/0/default.jpg',
      'full/max/0/nonsense.jpg',
      'full/max/0/default',
      'full/max/abc/default.jpg',
      '500,500,10,10/max/0/default.jpg',
      '0,0,0,10/max/0/default.jpg',
      'full/800,/0/default.jpg',
      'full/0,/0/default.jpg',
      'full/^100000,/0/default.jpg',
    ]) {
      const res = await get(path);
      t.equal(res.statusCode, 400, `${path} is 400`);
      t.match(json(res), { errors: { error: String } });
    }
    for (const path of ['full/max/45/default.jpg', 'full/max/0/default.tif', 'full/max/0/default.gif']) {
      const res = await get(path);
      t.equal(res.statusCode, 501, `${path} is 501`);
      t.match(json(res), { errors: { error: String } });
    }
    t.equal((await app.inject({ method: 'GET', url: '/iiif/3/image/999999/info.json' })).statusCode, 404);
    t.equal((await app.inject({ method: 'GET', url: '/iiif/3/image/abc/info.json' })).statusCode, 400);
  });
});
