import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { runCli, startServer } from '../process.js';
import { storedFileNames } from '../topology.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((path) =>
  existsSync(path),
);
const LIMIT = 100 * 1024;
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>fetch("/pwned-by-svg")</script><rect width="10" height="10"/></svg>';

interface Asset {
  id: number;
  canonical_url: string;
  mime_type: string;
}

// Two server starts, a CLI import and a browser: allow more than the default per-file timeout on a busy machine.
t.setTimeout(300_000);

t.test('asset files through the real server: upload, serve, replace, oversize, SVG in a browser', async (t) => {
  const dataDir = t.testdir();
  const fixtureFile = join(dataDir, '..', `assets-fixture-${process.pid}.json`);
  writeFileSync(
    fixtureFile,
    JSON.stringify({
      users: [{ id: 1, email: 'ed@example.org', name: 'Ed', role: 'editor', password: 'editor-pass' }],
    }),
  );
  const imported = await runCli('import.ts', [fixtureFile], { DATA_DIR: dataDir });
  t.equal(imported.code, 0, `import exits 0: ${imported.stderr}`);
  let server = await startServer({ DATA_DIR: dataDir, MAX_UPLOAD_BYTES: String(LIMIT) });
  t.teardown(() => server.stop('SIGKILL'));
  const base = server.baseUrl;

  const login = await fetch(`${base}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'ed@example.org', password: 'editor-pass' }),
  });
  t.equal(login.status, 204);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];

  const send = (method: string, path: string, file: Blob, filename: string, field: string) => {
    const form = new FormData();
    form.append(field, file, filename);
    return fetch(`${base}/api/asset-picker/${path}`, { method, headers: { cookie }, body: form });
  };

  const pngRes = await send('POST', 'assets', new Blob([PNG]), 'map.png', 'file[0]');
  t.equal(pngRes.status, 201);
  const png = ((await pngRes.json()) as { asset: Asset }).asset;
  t.equal(png.canonical_url, `${base}/asset-files/${png.id}.png`, 'canonical_url is an absolute URL on this server');
  const served = await fetch(png.canonical_url);
  t.equal(served.status, 200);
  t.equal(served.headers.get('content-type'), 'image/png');
  t.same(Buffer.from(await served.arrayBuffer()), PNG);

  const replaced = await send(
    'PUT',
    `assets/${png.id}/replace`,
    new Blob([PNG, Buffer.from('trailer')]),
    'map-2.png',
    'file',
  );
  t.equal(replaced.status, 200);
  t.equal(
    Number((await fetch(png.canonical_url)).headers.get('content-length')),
    PNG.length + 7,
    'the same URL serves the new file',
  );

  const big = await send('POST', 'assets', new Blob([Buffer.alloc(LIMIT * 3, 1)]), 'big.png', 'file[0]').catch(
    (error: Error) => error,
  );
  if (big instanceof Error) t.fail(`oversize upload: ${big.message}`);
  else {
    t.equal(big.status, 413, 'an oversize upload gets 413 over a real socket');
    t.match(await big.json(), { status: 'error', message: /larger than/ });
  }
  t.same(await storedFileNames(dataDir, 'tmp'), [], 'and leaves no temporary file');
  t.equal((await storedFileNames(dataDir, 'assets')).length, 1, 'nor a stored one');

  const svgRes = await send('POST', 'assets', new Blob([SVG]), 'logo.svg', 'file[0]');
  t.equal(svgRes.status, 201);
  const svg = ((await svgRes.json()) as { asset: Asset }).asset;
  t.equal(svg.mime_type, 'image/svg+xml');

  await t.test(
    'a served SVG does not run its script in a browser',
    { skip: CHROMIUM ? false : 'no Chromium installed' },
    async (t) => {
      const { chromium } = await import('playwright-core');
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
      t.teardown(() => browser.close());
      const page = await browser.newPage();
      const requested: string[] = [];
      page.on('request', (request) => requested.push(new URL(request.url()).pathname));
      await page.goto(`${base}/api/docs.json`);

      // Control: the same script in an ordinary same-origin frame does run and is seen.
      await page.evaluate((markup) => {
        const frame = document.createElement('iframe');
        frame.srcdoc = markup.replace('/pwned-by-svg', '/control-script-ran');
        document.body.appendChild(frame);
      }, SVG);
      await page.waitForRequest((request) => request.url().endsWith('/control-script-ran'), { timeout: 10_000 });

      await page.evaluate((url) => {
        for (const tag of ['iframe', 'object', 'embed', 'img']) {
          const element = document.createElement(tag);
          element.setAttribute(tag === 'object' ? 'data' : 'src', url);
          document.body.appendChild(element);
        }
      }, svg.canonical_url);
      const direct = await browser.newPage();
      direct.on('request', (request) => requested.push(new URL(request.url()).pathname));
      await direct.goto(svg.canonical_url).catch(() => undefined);
      await page.waitForTimeout(1500);
      t.ok(requested.includes(new URL(svg.canonical_url).pathname), 'the browser did load the SVG');
      t.notOk(requested.includes('/pwned-by-svg'), 'but its script never ran');
    },
  );

  await t.test('after a restart the read models are rebuilt from the log and the files are still served', async (t) => {
    await server.stop();
    server = await startServer({ DATA_DIR: dataDir, MAX_UPLOAD_BYTES: String(LIMIT) });
    const again = await fetch(`${server.baseUrl}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ed@example.org', password: 'editor-pass' }),
    });
    const freshCookie = (again.headers.get('set-cookie') ?? '').split(';')[0];
    const list = await fetch(`${server.baseUrl}/api/asset-picker/assets?sort_order=asc`, {
      headers: { cookie: freshCookie },
    });
    t.equal(list.status, 200);
    const body = (await list.json()) as { total: number; assets: { id: number; filename: string }[] };
    t.same(
      body.assets.map((a) => [a.id, a.filename]),
      [
        [png.id, 'map-2.png'],
        [svg.id, 'logo.svg'],
      ],
    );
    const file = await fetch(`${server.baseUrl}/asset-files/${png.id}.png`);
    t.equal(file.status, 200);
    t.equal(Number(file.headers.get('content-length')), PNG.length + 7, 'the replaced file, not the first one');
  });
});
