import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { ROOT } from '../process.js';
import { KEY, near, skipWithoutChromium, until, upload, viewerBench, type Rgb } from '../browser.js';

/**
 * The IIIF Image API through the real server, in a real viewer: a photograph with an EXIF
 * orientation tag is uploaded with the multipart API, its derivatives are awaited, and
 * OpenSeadragon (from npm) opens its info.json in headless Chromium from a page on another
 * origin. The test checks the tiles the browser asked for and got, the viewer's own events, the
 * pixels it drew (read back from its canvas, which CORS keeps untainted), a zoom into full
 * resolution, and that a private image is not served to the anonymous browser.
 */

const OSD_SCRIPT = join(ROOT, 'node_modules', 'openseadragon', 'build', 'openseadragon', 'openseadragon.min.js');
const ITEM_ID = 100;
/** As stored: 2400 x 1600 with EXIF orientation 6 (turn 90 degrees clockwise), so upright 1600 x 2400. */
const STORED = { width: 2400, height: 1600 };
const UPRIGHT = { width: 1600, height: 2400 };
/** The viewer element, of the upright image's aspect ratio, so the home view fills it. */
const VIEWER = { width: 600, height: 900 };

const RED: Rgb = [255, 0, 0];
const GREEN: Rgb = [0, 255, 0];
const BLUE: Rgb = [0, 0, 255];
const YELLOW: Rgb = [255, 255, 0];

const fixture = {
  users: [
    {
      id: 1,
      email: 'editor@example.org',
      name: 'Ed Editor',
      role: 'editor',
      password: 'editor-pass',
      api_keys: [{ identity: 'editor-id', credential: 'editor-secret', label: 'e2e' }],
    },
  ],
  items: [{ id: ITEM_ID, title: 'A public item' }],
};

/**
 * The photograph as a camera stores it, in four quadrants: red top left, green top right, blue
 * bottom left, yellow bottom right. Upright (orientation 6) they are blue top left, red top
 * right, yellow bottom left, green bottom right.
 */
async function photograph(): Promise<Buffer> {
  const { width, height } = STORED;
  const [w, h] = [width / 2, height / 2];
  const block = ([r, g, b]: Rgb) =>
    sharp({ create: { width: w, height: h, channels: 3, background: { r, g, b } } })
      .png()
      .toBuffer();
  const jpeg = await sharp({ create: { width, height, channels: 3, background: { r: 0, g: 0, b: 0 } } })
    .composite([
      { input: await block(RED), left: 0, top: 0 },
      { input: await block(GREEN), left: w, top: 0 },
      { input: await block(BLUE), left: 0, top: h },
      { input: await block(YELLOW), left: w, top: h },
    ])
    .jpeg({ quality: 90 })
    .toBuffer();
  return sharp(jpeg).withMetadata({ orientation: 6 }).jpeg({ quality: 90 }).toBuffer();
}

/** The host site: OpenSeadragon with a canvas drawer, and a few hooks the test calls. */
function hostPage(infoUrl: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Viewer host</title>
<style>
  html, body { margin: 0; padding: 0; background: rgb(40, 40, 40); }
  #viewer { width: ${VIEWER.width}px; height: ${VIEWER.height}px; background: rgb(40, 40, 40); }
</style></head><body>
<div id="viewer"></div>
<script src="/openseadragon.min.js"></script>
<script>
  var stats = { tileLoaded: 0, tileDrawn: 0, tileFailed: [], fullyLoaded: 0, opened: false, openFailed: null };
  var viewer = OpenSeadragon({
    id: 'viewer',
    tileSources: ${JSON.stringify(infoUrl)},
    crossOriginPolicy: 'Anonymous',
    drawer: 'canvas',
    showNavigationControl: false,
    animationTime: 0,
    blendTime: 0,
    immediateRender: false,
    imageLoaderLimit: 4,
  });
  viewer.addHandler('open', function () { stats.opened = true; });
  viewer.addHandler('open-failed', function (e) { stats.openFailed = String(e.message); });
  viewer.addHandler('tile-loaded', function () { stats.tileLoaded++; });
  viewer.addHandler('tile-drawn', function () { stats.tileDrawn++; });
  viewer.addHandler('tile-load-failed', function (e) { stats.tileFailed.push(String(e.message)); });
  viewer.world.addHandler('add-item', function (e) {
    e.item.addHandler('fully-loaded-change', function (change) { if (change.fullyLoaded) stats.fullyLoaded++; });
  });
  window.osdTest = {
    stats: function () {
      var item = viewer.world.getItemAt(0);
      return Object.assign({}, stats, {
        drawer: viewer.drawer.getType(),
        fullyLoadedNow: !!item && item.getFullyLoaded(),
        size: item ? [item.source.width, item.source.height] : null,
      });
    },
    /** The colours drawn at these image points, read from the viewer's canvas. */
    sample: function (points) {
      var item = viewer.world.getItemAt(0);
      var canvas = viewer.drawer.canvas;
      var ratio = canvas.width / canvas.clientWidth;
      var context = canvas.getContext('2d');
      return points.map(function (point) {
        var at = item.imageToViewerElementCoordinates(new OpenSeadragon.Point(point[0], point[1]));
        var data = context.getImageData(Math.round(at.x * ratio), Math.round(at.y * ratio), 1, 1).data;
        return [data[0], data[1], data[2], data[3]];
      });
    },
    /** Shows the image region x, y, w, h (image pixels) at once. */
    zoomTo: function (x, y, w, h) {
      var item = viewer.world.getItemAt(0);
      viewer.viewport.fitBounds(item.imageToViewportRectangle(x, y, w, h), true);
      viewer.viewport.applyConstraints(true);
      viewer.forceRedraw();
    },
    /** For each URL, whether an <img> without CORS loads it: 'loaded', 'error' or 'timeout'. */
    loads: function (urls) {
      return Promise.all(urls.map(function (url) {
        return new Promise(function (resolve) {
          var img = new Image();
          var timer = setTimeout(function () { resolve('timeout'); }, 10000);
          img.onload = function () { clearTimeout(timer); resolve('loaded'); };
          img.onerror = function () { clearTimeout(timer); resolve('error'); };
          img.src = url;
        });
      }));
    },
    status: function (url) {
      return fetch(url).then(
        function (res) { return res.text().then(function () { return res.status; }); },
        function (error) { return 'failed: ' + error; }
      );
    },
  };
</script></body></html>`;
}

interface Stats {
  tileLoaded: number;
  tileDrawn: number;
  tileFailed: string[];
  fullyLoaded: number;
  opened: boolean;
  openFailed: string | null;
  drawer: string;
  fullyLoadedNow: boolean;
  size: [number, number] | null;
}
interface OsdTest {
  stats(): Stats;
  sample(points: [number, number][]): number[][];
  zoomTo(x: number, y: number, w: number, h: number): void;
  loads(urls: string[]): Promise<string[]>;
  status(url: string): Promise<number | string>;
}
/** The host page's hooks: a global there, read by the functions page.evaluate runs in the page. */
declare const osdTest: OsdTest;

/** A tile the browser asked the image service for, with its answer. */
interface TileAnswer {
  url: string;
  status: number;
  contentType: string;
  allowOrigin: string | undefined;
  /** Image pixels under the tile: x, y, w, h. */
  region: [number, number, number, number];
  /** Pixels answered per image pixel (1 at full resolution). */
  scale: number;
}

/** `{base}/{region}/{size}/0/default.jpg` read back into the region and the scale asked for. */
function tileOf(url: string, base: string): Omit<TileAnswer, 'status' | 'contentType' | 'allowOrigin'> | null {
  if (!url.startsWith(`${base}/`)) return null;
  const [region, size] = url.slice(base.length + 1).split('/');
  if (!region || !size || region === 'info.json') return null;
  const box: [number, number, number, number] =
    region === 'full' ? [0, 0, UPRIGHT.width, UPRIGHT.height] : (region.split(',').map(Number) as typeof box);
  const width = Number(size.replace(/^[!^]+/, '').split(',')[0]);
  return { url, region: box, scale: width / box[2] };
}

// A server started from the sources and a browser on a busy 2-core machine: a generous bound (a run
// takes about 15 seconds); every wait inside has its own, shorter one.
t.setTimeout(150_000);

t.test(
  'a photograph uploaded through the real server, opened in OpenSeadragon on another origin',
  { skip: skipWithoutChromium },
  async (t) => {
    const bench = await viewerBench(t, fixture, 'iiif-viewer-');
    const base = bench.server.baseUrl;

    const jpeg = await photograph();
    const id = await upload(base, { 'o:item': { 'o:id': ITEM_ID }, 'o:ingester': 'upload' }, jpeg, 'Portrait.jpg');
    const imageBase = `${base}/iiif/3/image/${id}`;

    let media: Record<string, unknown> = {};
    await until('the derivatives', 30_000, async () => {
      const res = await fetch(`${base}/api/media/${id}?${KEY}`, { signal: AbortSignal.timeout(5_000) });
      media = (await res.json()) as Record<string, unknown>;
      return Object.keys((media['o:thumbnail_urls'] as object | undefined) ?? {}).length > 0;
    });
    t.same(Object.keys(media['o:thumbnail_urls'] as object).sort(), ['large', 'medium', 'square'], 'derivatives made');
    const large = await fetch((media['o:thumbnail_urls'] as Record<string, string>).large, {
      signal: AbortSignal.timeout(5_000),
    });
    t.equal(large.status, 200);
    const largeMeta = await sharp(Buffer.from(await large.arrayBuffer())).metadata();
    t.ok(largeMeta.height === 800 && Math.abs(largeMeta.width - 533) <= 1, 'the large thumbnail is upright');

    await t.test('info.json describes the upright image', async (t) => {
      const res = await fetch(`${imageBase}/info.json`, { signal: AbortSignal.timeout(5_000) });
      t.equal(res.status, 200);
      t.equal(res.headers.get('access-control-allow-origin'), '*');
      const info = (await res.json()) as Record<string, unknown>;
      t.equal(info.id, imageBase);
      t.same([info.width, info.height], [UPRIGHT.width, UPRIGHT.height], 'width and height after EXIF orientation');
      t.same(info.tiles, [{ type: 'Tile', width: 512, scaleFactors: [1, 2, 4, 8] }]);
    });

    // The host page on another origin (its own port), serving OpenSeadragon from node_modules.
    const osdScript = readFileSync(OSD_SCRIPT);
    const hostOrigin = await bench.host({
      '/': { type: 'text/html; charset=utf-8', body: hostPage(`${imageBase}/info.json`) },
      '/openseadragon.min.js': { type: 'text/javascript; charset=utf-8', body: osdScript },
    });
    t.not(hostOrigin, new URL(base).origin, 'the page and the image service are on different origins');

    const browser = await bench.browser();
    const page: Page = await browser.newPage({ viewport: { width: 800, height: 1000 }, deviceScaleFactor: 1 });
    page.setDefaultTimeout(20_000);
    const tiles: TileAnswer[] = [];
    const failedRequests: string[] = [];
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('requestfailed', (request) => failedRequests.push(`${request.url()}: ${request.failure()?.errorText}`));
    page.on('response', (response) => {
      const tile = tileOf(response.url(), imageBase);
      if (!tile) return;
      const headers = response.headers();
      tiles.push({
        ...tile,
        status: response.status(),
        contentType: headers['content-type'] ?? '',
        allowOrigin: headers['access-control-allow-origin'],
      });
    });

    await page.goto(`${hostOrigin}/`, { timeout: 15_000 });
    await page.waitForFunction(() => osdTest.stats().opened || osdTest.stats().openFailed !== null, undefined, {
      timeout: 15_000,
    });
    const openFailed = await page.evaluate(() => osdTest.stats().openFailed);
    if (openFailed !== null) throw new Error(`OpenSeadragon could not open ${imageBase}/info.json: ${openFailed}`);
    await page.waitForFunction(() => osdTest.stats().fullyLoadedNow, undefined, { timeout: 20_000 });
    const home = await page.evaluate(() => osdTest.stats());
    const homeTiles = [...tiles];

    await t.test('the viewer opened the image and loaded its tiles', async (t) => {
      t.equal(home.openFailed, null, 'no open-failed');
      t.equal(home.drawer, 'canvas');
      t.same(home.size, [UPRIGHT.width, UPRIGHT.height], 'the viewer sees the upright size');
      t.ok(home.fullyLoaded >= 1, 'fully-loaded-change fired');
      t.ok(home.tileLoaded >= 4, `tile-loaded fired for several tiles (${home.tileLoaded})`);
      t.ok(home.tileDrawn >= 4, `tile-drawn fired (${home.tileDrawn})`);
      t.same(home.tileFailed, [], 'no tile failed');
      t.ok(homeTiles.length >= 4, `several tiles were requested (${homeTiles.length})`);
      t.same(
        homeTiles.filter((tile) => tile.status !== 200 || !/^image\//.test(tile.contentType)),
        [],
        'every tile answered 200 with an image',
      );
      t.ok(
        homeTiles.every((tile) => tile.allowOrigin === '*'),
        'every tile answer allows any origin',
      );
      t.ok(
        homeTiles.some((tile) => tile.region[2] < UPRIGHT.width || tile.region[3] < UPRIGHT.height),
        'some tiles are regions of the image, not the whole of it',
      );
      t.same(pageErrors, [], 'no script errors on the page');
      t.same(failedRequests, [], 'no request failed');
    });

    await t.test('the drawn pixels show the photograph upright', async (t) => {
      const { width: w, height: h } = UPRIGHT;
      const [tl, tr, bl, br] = await page.evaluate((points) => osdTest.sample(points), [
        [w / 4, h / 4],
        [(3 * w) / 4, h / 4],
        [w / 4, (3 * h) / 4],
        [(3 * w) / 4, (3 * h) / 4],
      ] as [number, number][]);
      t.ok(near(tl, BLUE), `top left is blue (stored bottom left): ${tl.join(',')}`);
      t.ok(near(tr, RED), `top right is red (stored top left): ${tr.join(',')}`);
      t.ok(near(bl, YELLOW), `bottom left is yellow (stored bottom right): ${bl.join(',')}`);
      t.ok(near(br, GREEN), `bottom right is green (stored top right): ${br.join(',')}`);
    });

    await t.test('zooming in loads full-resolution tiles', async (t) => {
      const before = tiles.length;
      const loadedBefore = home.tileLoaded;
      // A 400 x 600 region inside the upright top right (red) quadrant, shown 1.5 times larger than its pixels.
      await page.evaluate(() => osdTest.zoomTo(1000, 300, 400, 600));
      const fullResolution = () => tiles.slice(before).filter((tile) => Math.abs(tile.scale - 1) < 0.01);
      await until('full-resolution tiles', 20_000, () => fullResolution().length >= 2);
      await page.waitForFunction(
        (loaded) => osdTest.stats().fullyLoadedNow && osdTest.stats().tileLoaded > loaded,
        loadedBefore,
        { timeout: 20_000 },
      );
      const zoomed = tiles.slice(before);
      t.same(
        zoomed.filter((tile) => tile.status !== 200 || !/^image\//.test(tile.contentType)),
        [],
        'every new tile answered 200 with an image',
      );
      const full = fullResolution();
      t.ok(full.length >= 2, `full-resolution tiles were requested (${full.length})`);
      t.ok(
        full.every((tile) => tile.region[2] <= 512 && tile.region[3] <= 512),
        'each a region of at most 512 x 512 pixels',
      );
      t.ok(
        full.every(({ region: [x, y, w, h] }) => x + w > 1000 && x < 1400 && y + h > 300 && y < 900),
        'each under the region shown',
      );
      t.ok(
        home.tileFailed.length === 0 && (await page.evaluate(() => osdTest.stats().tileFailed)).length === 0,
        'no tile failed',
      );
      const [centre, corner] = await page.evaluate((points) => osdTest.sample(points), [
        [1200, 600],
        [1010, 310],
      ] as [number, number][]);
      t.ok(near(centre, RED) && near(corner, RED), `the zoomed view is red: ${centre.join(',')} ${corner.join(',')}`);
    });

    await t.test('a private image is not served to the anonymous browser', async (t) => {
      const privateId = await upload(
        base,
        { 'o:item': { 'o:id': ITEM_ID }, 'o:is_public': false },
        await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 9, g: 9, b: 9 } } })
          .jpeg()
          .toBuffer(),
        'Private.jpg',
      );
      const info = `${base}/iiif/3/image/${privateId}/info.json`;
      const image = `${base}/iiif/3/image/${privateId}/full/max/0/default.jpg`;
      const publicImage = `${imageBase}/full/200,/0/default.jpg`;

      // Asked as the browser asks (no credentials, its Origin), so the answers' headers can be read.
      for (const url of [info, image]) {
        const res = await fetch(url, { headers: { origin: hostOrigin }, signal: AbortSignal.timeout(5_000) });
        await res.arrayBuffer();
        t.equal(res.status, 404, `${url.slice(base.length)} answers 404 without credentials`);
        t.equal(res.headers.get('access-control-allow-origin'), '*', 'the 404 allows other origins');
      }
      const fromPage = await page.evaluate((url) => osdTest.status(url), info);
      t.not(fromPage, 200, `the page cannot read info.json (${fromPage})`);
      t.equal(fromPage, 404, 'the page reads the 404');
      t.same(
        await page.evaluate((urls) => osdTest.loads(urls), [image, publicImage]),
        ['error', 'loaded'],
        'an <img> of the private image fails where one of the public image loads',
      );

      const withKey = await fetch(`${info}?${KEY}`, { signal: AbortSignal.timeout(5_000) });
      t.equal(withKey.status, 200, 'info.json answers 200 with the editor key');
      t.equal(((await withKey.json()) as Record<string, unknown>).width, 64);
      const fromPageWithKey = await page.evaluate((url) => osdTest.status(url), `${info}?${KEY}`);
      t.equal(fromPageWithKey, 200, 'and to the page with the key');
    });
  },
);
