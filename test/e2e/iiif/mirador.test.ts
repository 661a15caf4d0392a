import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { ROOT } from '../process.js';
import { KEY, near, skipWithoutChromium, until, upload, viewerBench, type Rgb } from '../browser.js';

/**
 * The IIIF Presentation API through the real server, in a real viewer: two photographs (one with
 * an EXIF orientation tag) are uploaded to a public item with the multipart API, their
 * derivatives are awaited, and Mirador (from npm) opens the item's manifest in headless Chromium
 * from a page on another origin. The test checks what the browser asked for and got (the
 * manifest, the image services, the tiles, all with CORS), the window's title, the pixels
 * OpenSeadragon drew inside Mirador (read back from its canvas and from a screenshot), the
 * second canvas after Mirador's "next" button, and that a private item's manifest is a 404 that
 * Mirador shows as an error, with none of its images served.
 */

const MIRADOR_SCRIPT = join(ROOT, 'node_modules', 'mirador', 'dist', 'mirador.min.js');
const ITEM_ID = 100;
/** An ampersand and characters beyond ASCII, as the window's title must show them. */
const TITLE = 'Carte de Lisbonne & environs — 1755';
const WINDOW_ID = 'map-window';
/** Both photographs as stored; the second with EXIF orientation 6, so upright 1200 x 1600. */
const STORED = { width: 1600, height: 1200 };
/** The Mirador element (the whole page). */
const PAGE = { width: 1280, height: 900 };

const RED: Rgb = [255, 0, 0];
const GREEN: Rgb = [0, 255, 0];
const BLUE: Rgb = [0, 0, 255];
const YELLOW: Rgb = [255, 255, 0];
const MAGENTA: Rgb = [255, 0, 255];
const CYAN: Rgb = [0, 255, 255];
const ORANGE: Rgb = [255, 128, 0];
const PURPLE: Rgb = [128, 0, 255];

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
  items: [{ id: ITEM_ID, title: TITLE }],
};

/** A photograph of STORED size as a camera stores it: quadrants top left, top right, bottom left, bottom right. */
async function photograph(quadrants: [Rgb, Rgb, Rgb, Rgb], orientation: number): Promise<Buffer> {
  const { width, height } = STORED;
  const [w, h] = [width / 2, height / 2];
  const block = ([r, g, b]: Rgb) =>
    sharp({ create: { width: w, height: h, channels: 3, background: { r, g, b } } })
      .png()
      .toBuffer();
  const [tl, tr, bl, br] = await Promise.all(quadrants.map(block));
  const jpeg = await sharp({ create: { width, height, channels: 3, background: { r: 0, g: 0, b: 0 } } })
    .composite([
      { input: tl, left: 0, top: 0 },
      { input: tr, left: w, top: 0 },
      { input: bl, left: 0, top: h },
      { input: br, left: w, top: h },
    ])
    .jpeg({ quality: 90 })
    .toBuffer();
  return orientation === 1 ? jpeg : sharp(jpeg).withMetadata({ orientation }).jpeg({ quality: 90 }).toBuffer();
}

/**
 * The host site: Mirador with one window on `manifestId`, OpenSeadragon drawing on a 2D canvas
 * with CORS image loads (so its pixels can be read back), and a few hooks the test calls.
 * `preserveViewport: false`: Mirador's default keeps the first (landscape) canvas's viewport on
 * the next canvas, which would leave the lower half of the portrait one out of view.
 */
function hostPage(manifestId: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Mirador host</title>
<link rel="icon" href="data:,">
<style>
  html, body { margin: 0; padding: 0; }
  #mirador { position: relative; width: ${PAGE.width}px; height: ${PAGE.height}px; }
</style></head><body>
<div id="mirador"></div>
<script src="/mirador.min.js"></script>
<script>
  var WINDOW_ID = ${JSON.stringify(WINDOW_ID)};
  var manifestId = ${JSON.stringify(manifestId)};
  var mirador = Mirador.viewer({
    id: 'mirador',
    windows: [{ id: WINDOW_ID, manifestId: manifestId }],
    osdConfig: { drawer: 'canvas', crossOriginPolicy: 'Anonymous', blendTime: 0, animationTime: 0, immediateRender: false, preserveViewport: false },
  });
  function osd() {
    var ref = Mirador.OSDReferences.get(WINDOW_ID);
    return ref && ref.current ? ref.current : null;
  }
  window.miradorTest = {
    state: function () {
      var state = mirador.store.getState();
      var manifest = state.manifests[manifestId] || {};
      var win = state.windows[WINDOW_ID] || {};
      var json = manifest.json || null;
      return {
        isFetching: !!manifest.isFetching,
        error: manifest.error ? String(manifest.error) : null,
        canvasIds: json && json.items ? json.items.map(function (canvas) { return canvas.id; }) : [],
        canvasId: win.canvasId || null,
        infoErrors: Object.keys(state.infoResponses || {}).filter(function (id) {
          return !!state.infoResponses[id].error;
        }),
      };
    },
    /** The image OpenSeadragon shows in the window. */
    image: function () {
      var viewer = osd();
      if (!viewer) return null;
      var count = viewer.world.getItemCount();
      var item = count ? viewer.world.getItemAt(0) : null;
      return {
        drawer: viewer.drawer.getType(),
        items: count,
        service: item && item.source ? String(item.source.id || item.source['@id'] || '') : null,
        size: item && item.source ? [item.source.width, item.source.height] : null,
        fullyLoaded: !!item && item.getFullyLoaded(),
      };
    },
    /**
     * At these image points of the image shown: where they are on the page (CSS pixels) and the
     * colour OpenSeadragon's canvas has there.
     */
    sample: function (points) {
      var viewer = osd();
      var item = viewer.world.getItemAt(0);
      var canvas = viewer.drawer.canvas;
      var box = canvas.getBoundingClientRect();
      var ratio = canvas.width / canvas.clientWidth;
      var context = canvas.getContext('2d');
      return points.map(function (point) {
        var at = viewer.viewport.pixelFromPoint(item.imageToViewportCoordinates(point[0], point[1], true), true);
        var data = context.getImageData(Math.round(at.x * ratio), Math.round(at.y * ratio), 1, 1).data;
        return { page: [box.left + at.x, box.top + at.y], rgba: [data[0], data[1], data[2], data[3]] };
      });
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

interface MiradorState {
  isFetching: boolean;
  error: string | null;
  canvasIds: string[];
  canvasId: string | null;
  infoErrors: string[];
}
interface ShownImage {
  drawer: string;
  items: number;
  service: string | null;
  size: [number, number] | null;
  fullyLoaded: boolean;
}
interface Sample {
  page: [number, number];
  rgba: number[];
}
interface MiradorTest {
  state(): MiradorState;
  image(): ShownImage | null;
  sample(points: [number, number][]): Sample[];
  status(url: string): Promise<number | string>;
}
/** The host page's hooks: a global there, read by the functions page.evaluate runs in the page. */
declare const miradorTest: MiradorTest;

/** A response the browser got from the collections server. */
interface Answer {
  url: string;
  path: string;
  status: number;
  contentType: string;
  allowOrigin: string | undefined;
}

/** The colours of a page screenshot at these page points (CSS pixels, deviceScaleFactor 1). */
async function screenshotColours(page: Page, points: [number, number][]): Promise<number[][]> {
  const png = await page.screenshot({ timeout: 15_000 });
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return points.map(([x, y]) => {
    const at = (Math.round(y) * info.width + Math.round(x)) * info.channels;
    return Array.from(data.subarray(at, at + 3));
  });
}

// A server started from the sources, two derivative runs and a browser on a busy 2-core machine:
// a generous bound; every wait inside has its own, shorter one.
t.setTimeout(180_000);

t.test(
  "an item's manifest through the real server, opened in Mirador on another origin",
  { skip: skipWithoutChromium },
  async (t) => {
    const bench = await viewerBench(t, fixture, 'iiif-mirador-');
    const base = bench.server.baseUrl;
    const serverOrigin = new URL(base).origin;

    // The photographs, in media order: a landscape one, then one a camera held upright.
    const first = await upload(
      base,
      { 'o:item': { 'o:id': ITEM_ID }, 'o:ingester': 'upload' },
      await photograph([RED, GREEN, BLUE, YELLOW], 1),
      'Landscape.jpg',
    );
    const second = await upload(
      base,
      { 'o:item': { 'o:id': ITEM_ID }, 'o:ingester': 'upload' },
      await photograph([MAGENTA, CYAN, ORANGE, PURPLE], 6),
      'Portrait.jpg',
    );

    // A private item with an image of its own.
    const created = await fetch(`${base}/api/items?${KEY}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ 'o:title': 'Private survey', 'o:is_public': false }),
      signal: AbortSignal.timeout(10_000),
    });
    const createdBody = (await created.json()) as Record<string, unknown>;
    if (created.status !== 201)
      throw new Error(`POST /api/items answered ${created.status}: ${JSON.stringify(createdBody)}`);
    const privateItem = Number(createdBody['o:id']);
    const privateMedia = await upload(
      base,
      { 'o:item': { 'o:id': privateItem }, 'o:ingester': 'upload' },
      await photograph([BLUE, BLUE, RED, RED], 1),
      'Private.jpg',
    );

    await until('the derivatives', 30_000, async () => {
      for (const id of [first, second, privateMedia]) {
        const res = await fetch(`${base}/api/media/${id}?${KEY}`, { signal: AbortSignal.timeout(5_000) });
        const media = (await res.json()) as Record<string, unknown>;
        if (Object.keys((media['o:thumbnail_urls'] as object | undefined) ?? {}).length === 0) return false;
      }
      return true;
    });

    const manifestId = `${base}/iiif/3/item/${ITEM_ID}/manifest`;
    const privateManifestId = `${base}/iiif/3/item/${privateItem}/manifest`;
    const canvasId = (media: number) => `${manifestId}/canvas/${media}`;
    const imageBase = (media: number) => `${base}/iiif/3/image/${media}`;

    await t.test('the manifest, as the server describes it', async (t) => {
      const res = await fetch(manifestId, { signal: AbortSignal.timeout(5_000) });
      t.equal(res.status, 200);
      const manifest = (await res.json()) as { label: unknown; items: { id: string; width: number; height: number }[] };
      t.equal(res.headers.get('access-control-allow-origin'), '*', 'with CORS');
      t.same(manifest.label, { none: [TITLE] }, 'labelled with the title');
      t.same(
        manifest.items.map((canvas) => [canvas.id, canvas.width, canvas.height]),
        [
          [canvasId(first), 1600, 1200],
          [canvasId(second), 1200, 1600],
        ],
        'two canvases, in media order, of the upright sizes',
      );
      const hidden = await fetch(privateManifestId, { signal: AbortSignal.timeout(5_000) });
      await hidden.arrayBuffer();
      t.equal(hidden.status, 404, "the private item's manifest is a 404 anonymously");
      const withKey = await fetch(`${privateManifestId}?${KEY}`, { signal: AbortSignal.timeout(5_000) });
      const privateManifest = (await withKey.json()) as { items?: { id: string }[] };
      t.equal(withKey.status, 200, 'and a manifest to the editor');
      t.same(
        (privateManifest.items ?? []).map((canvas) => canvas.id),
        [`${privateManifestId}/canvas/${privateMedia}`],
        'with a canvas for its image',
      );
    });

    // The host page on another origin (its own port), serving Mirador from node_modules.
    const miradorScript = readFileSync(MIRADOR_SCRIPT);
    const hostOrigin = await bench.host({
      '/': { type: 'text/html; charset=utf-8', body: (url) => hostPage(url.searchParams.get('manifest') ?? '') },
      '/mirador.min.js': { type: 'text/javascript; charset=utf-8', body: miradorScript },
    });
    t.not(hostOrigin, serverOrigin, 'the page and the IIIF server are on different origins');

    const launched = await bench.browser();

    /** A page in a context of its own, recording what it asked the server, what failed and its errors. */
    async function openMirador(manifest: string) {
      const context = await launched.newContext({ viewport: PAGE, deviceScaleFactor: 1 });
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      const answers: Answer[] = [];
      const elsewhere: string[] = [];
      const failedRequests: string[] = [];
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      page.on('requestfailed', (request) => failedRequests.push(`${request.url()}: ${request.failure()?.errorText}`));
      page.on('request', (request) => {
        const { origin } = new URL(request.url());
        if (origin !== serverOrigin && origin !== hostOrigin && !request.url().startsWith('data:'))
          elsewhere.push(request.url());
      });
      page.on('response', (response) => {
        const url = new URL(response.url());
        if (url.origin !== serverOrigin) return;
        const headers = response.headers();
        answers.push({
          url: response.url(),
          path: url.pathname,
          status: response.status(),
          contentType: headers['content-type'] ?? '',
          allowOrigin: headers['access-control-allow-origin'],
        });
      });
      await page.goto(`${hostOrigin}/?manifest=${encodeURIComponent(manifest)}`, { timeout: 15_000 });
      return { page, answers, elsewhere, failedRequests, pageErrors };
    }

    /**
     * Waits until OpenSeadragon shows the image of `media`, fully loaded, and its canvas has the
     * expected colours at the centres of the upright image's quadrants; answers what it saw.
     */
    async function shown(page: Page, media: number, upright: { width: number; height: number }, colours: Rgb[]) {
      const { width: w, height: h } = upright;
      const points: [number, number][] = [
        [w / 4, h / 4],
        [(3 * w) / 4, h / 4],
        [w / 4, (3 * h) / 4],
        [(3 * w) / 4, (3 * h) / 4],
      ];
      let image: ShownImage | null = null;
      let samples: Sample[] = [];
      try {
        await until(`Mirador to draw media ${media}`, 30_000, async () => {
          image = await page.evaluate(() => miradorTest.image());
          if (!image || image.items !== 1 || image.service !== imageBase(media) || !image.fullyLoaded) return false;
          samples = await page.evaluate((at) => miradorTest.sample(at), points);
          return samples.every((sample, i) => near(sample.rgba, colours[i]));
        });
      } catch (error) {
        const state = await page.evaluate(() => miradorTest.state()).catch(() => null);
        throw new Error(
          `${(error as Error).message}: image ${JSON.stringify(image)}, samples ${JSON.stringify(samples)}, state ${JSON.stringify(state)}`,
        );
      }
      return { image: image as ShownImage | null, samples };
    }

    const viewer = await openMirador(manifestId);
    const { page } = viewer;
    const answersFor = (media: number) => viewer.answers.filter((a) => a.path.startsWith(`/iiif/3/image/${media}/`));
    const isImage = (a: Answer) => !a.path.endsWith('/info.json');

    await t.test('Mirador opens the manifest and shows its label as the window title', async (t) => {
      await page
        .waitForFunction(() => !miradorTest.state().isFetching && miradorTest.state().canvasIds.length > 0, undefined, {
          timeout: 20_000,
        })
        .catch(async (error: Error) => {
          throw new Error(`${error.message}: ${JSON.stringify(await page.evaluate(() => miradorTest.state()))}`);
        });
      const state = await page.evaluate(() => miradorTest.state());
      t.equal(state.error, null, 'no manifest error');
      t.same(state.canvasIds, [canvasId(first), canvasId(second)], 'Mirador read both canvases');
      t.equal(state.canvasId, canvasId(first), 'the window shows the first canvas');
      const manifestAnswers = viewer.answers.filter((a) => a.url === manifestId);
      t.equal(manifestAnswers.length, 1, 'the manifest was requested once');
      t.match(
        manifestAnswers[0],
        { status: 200, allowOrigin: '*', contentType: /^application\/ld\+json/ },
        'and answered 200, JSON-LD, readable by another origin',
      );
      const title = page.locator(`#mirador [class*="window-top-bar"] h2`, { hasText: TITLE });
      await title.first().waitFor({ timeout: 20_000 });
      t.equal((await title.first().textContent())?.trim(), TITLE, 'the window title is the label, & and — as written');
    });

    await t.test('the first canvas: its image service and tiles were loaded and drawn', async (t) => {
      const { image, samples } = await shown(page, first, { width: 1600, height: 1200 }, [RED, GREEN, BLUE, YELLOW]);
      t.equal(image?.drawer, 'canvas', 'OpenSeadragon draws on a 2D canvas');
      t.same(image?.size, [1600, 1200], 'OpenSeadragon sees the image of the size in info.json');
      const [tl, tr, bl, br] = samples.map((s) => s.rgba);
      t.ok(near(tl, RED), `top left is red: ${tl.join(',')}`);
      t.ok(near(tr, GREEN), `top right is green: ${tr.join(',')}`);
      t.ok(near(bl, BLUE), `bottom left is blue: ${bl.join(',')}`);
      t.ok(near(br, YELLOW), `bottom right is yellow: ${br.join(',')}`);

      const onScreen = await screenshotColours(
        page,
        samples.map((s) => s.page),
      );
      t.ok(
        [RED, GREEN, BLUE, YELLOW].every((colour, i) => near(onScreen[i], colour)),
        `and the screenshot shows them there: ${JSON.stringify(onScreen)}`,
      );

      const answers = answersFor(first);
      const info = answers.filter((a) => a.path === `/iiif/3/image/${first}/info.json`);
      t.ok(info.length >= 1, 'info.json was requested');
      t.same(
        info.filter(
          (a) => a.status !== 200 || a.allowOrigin !== '*' || !/^application\/(ld\+)?json/.test(a.contentType),
        ),
        [],
        'and answered 200 with JSON and CORS',
      );
      const tiles = answers.filter(isImage);
      t.ok(tiles.length >= 1, `images were requested from the image service (${tiles.length})`);
      t.same(
        tiles.filter((a) => a.status !== 200 || !/^image\//.test(a.contentType) || a.allowOrigin !== '*'),
        [],
        'every one answered 200 with an image and CORS',
      );
      const regions = tiles.filter((a) => /^\/iiif\/3\/image\/\d+\/\d+,\d+,\d+,\d+\//.test(a.path));
      t.ok(regions.length >= 4, `tiles of regions among them, as info.json's tiles describe (${regions.length})`);
      t.same(answersFor(second), [], "the second canvas's image is not asked for yet");
    });

    await t.test("Mirador's next button shows the second canvas, upright", async (t) => {
      const infoResponse = page.waitForResponse((res) => res.url() === `${imageBase(second)}/info.json`, {
        timeout: 20_000,
      });
      await page.locator('#mirador .mirador-next-canvas-button').first().click({ timeout: 10_000 });
      const info = (await (await infoResponse).json()) as { width: number; height: number };
      t.same([info.width, info.height], [1200, 1600], 'info.json: the upright size, taller than wide');
      t.ok(info.width < info.height, 'info.json width < height for the landscape-stored photograph');

      // Upright (orientation 6 turns it 90 degrees clockwise): stored bottom left, top left, bottom right, top right.
      const upright = [ORANGE, MAGENTA, PURPLE, CYAN];
      const { image, samples } = await shown(page, second, { width: 1200, height: 1600 }, upright);
      t.equal((await page.evaluate(() => miradorTest.state())).canvasId, canvasId(second), 'the window is on canvas 2');
      t.same(image?.size, [1200, 1600], 'OpenSeadragon sees the upright size');
      const [tl, tr, bl, br] = samples.map((s) => s.rgba);
      t.ok(near(tl, ORANGE), `top left is orange (stored bottom left): ${tl.join(',')}`);
      t.ok(near(tr, MAGENTA), `top right is magenta (stored top left): ${tr.join(',')}`);
      t.ok(near(bl, PURPLE), `bottom left is purple (stored bottom right): ${bl.join(',')}`);
      t.ok(near(br, CYAN), `bottom right is cyan (stored top right): ${br.join(',')}`);
      const onScreen = await screenshotColours(
        page,
        samples.map((s) => s.page),
      );
      t.ok(
        upright.every((colour, i) => near(onScreen[i], colour)),
        `and the screenshot shows them there: ${JSON.stringify(onScreen)}`,
      );

      const answers = answersFor(second);
      t.ok(
        answers.some((a) => a.path.endsWith('/info.json') && a.status === 200 && a.allowOrigin === '*'),
        'info.json answered 200 with CORS',
      );
      const tiles = answers.filter(isImage);
      t.ok(tiles.length >= 1, `images were requested from its image service (${tiles.length})`);
      t.same(
        answers.filter(
          (a) => a.status !== 200 || a.allowOrigin !== '*' || (isImage(a) && !/^image\//.test(a.contentType)),
        ),
        [],
        'every one answered 200 with CORS, the images as images',
      );
    });

    await t.test('nothing failed on the page', async (t) => {
      t.same(viewer.pageErrors, [], 'no script errors');
      t.same(viewer.failedRequests, [], 'no request failed');
      t.same(
        viewer.answers.filter((a) => a.status >= 400),
        [],
        'no answer from the server was an error',
      );
      t.same(viewer.elsewhere, [], 'nothing was asked of a third origin');
      t.same((await page.evaluate(() => miradorTest.state())).infoErrors, [], 'no image service error in Mirador');
    });

    await t.test("a private item's manifest: Mirador shows an error, no image is served", async (t) => {
      const hidden = await openMirador(privateManifestId);
      await hidden.page
        .waitForFunction(() => miradorTest.state().error !== null, undefined, { timeout: 20_000 })
        .catch(async (error: Error) => {
          throw new Error(`${error.message}: ${JSON.stringify(await hidden.page.evaluate(() => miradorTest.state()))}`);
        });
      const state = await hidden.page.evaluate(() => miradorTest.state());
      t.equal(state.error, 'Not Found', 'Mirador records the 404');
      t.same(state.canvasIds, [], 'and no canvas');
      await hidden.page
        .getByRole('alert')
        .filter({ hasText: 'An error occurred' })
        .first()
        .waitFor({ timeout: 20_000 });
      t.pass('Mirador shows "An error occurred"');
      const titleError = hidden.page.locator(`#mirador [class*="window-top-bar"] h2`, { hasText: 'Not Found' });
      await titleError.first().waitFor({ timeout: 20_000 });
      t.pass('and the error in the window title');

      const manifestAnswers = hidden.answers.filter((a) => a.url === privateManifestId);
      t.equal(manifestAnswers.length, 1, 'the manifest was requested');
      t.match(manifestAnswers[0], { status: 404, allowOrigin: '*' }, 'and answered 404, readable by another origin');

      // Asked from the page, as a viewer that knew the address would ask.
      const info = `${imageBase(privateMedia)}/info.json`;
      const full = `${imageBase(privateMedia)}/full/max/0/default.jpg`;
      t.same(
        [
          await hidden.page.evaluate((url) => miradorTest.status(url), info),
          await hidden.page.evaluate((url) => miradorTest.status(url), full),
        ],
        [404, 404],
        "the private media's info.json and image answer 404 to the page",
      );
      const privateAnswers = [...viewer.answers, ...hidden.answers].filter((a) =>
        a.path.startsWith(`/iiif/3/image/${privateMedia}/`),
      );
      t.equal(privateAnswers.length, 2, 'the only requests for its images are those two');
      t.same(
        privateAnswers.filter((a) => a.status === 200 || a.allowOrigin !== '*'),
        [],
        'none answered 200; each allows any origin',
      );
      t.same(hidden.pageErrors, [], 'no script errors');
      t.same(hidden.failedRequests, [], 'no request failed');
      t.same(hidden.elsewhere, [], 'nothing was asked of a third origin');
    });
  },
);
