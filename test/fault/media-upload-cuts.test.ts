import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import t from 'tap';
import { ROLE_USERS } from '../helper.js';
import { seededRandom } from '../seeded-random.js';
import { importFixtureFile, startServer } from '../e2e/process.js';
import { rawRequest } from '../e2e/raw-http.js';

/**
 * POST /api/media as a form, cut at random byte offsets, through the real server process: every
 * cut is a 4xx in the native error shape, nothing is half written (no media without its file,
 * no stored file without its media, no partial upload left), and the process keeps serving.
 */
t.setTimeout(240_000);

const BOUNDARY = 'MediaCut';
const SEED = 47;
const CUTS = 120;

async function form(): Promise<Buffer> {
  const jpeg = await sharp({ create: { width: 16, height: 12, channels: 3, background: '#c33' } })
    .jpeg()
    .toBuffer();
  return Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="data"\r\n\r\n` +
        `{"o:item":{"o:id":100},"o:title":"Cut","o:ingester":"upload","file_index":0}\r\n` +
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file[0]"; filename="cut.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
    ),
    jpeg,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

t.test('media uploads cut at random byte offsets', async (t) => {
  const dataDir = t.testdir();
  const fixture = { users: ROLE_USERS, items: [{ id: 100, title: 'Item' }] };
  const imported = await importFixtureFile(dataDir, fixture, 'media-upload-cuts');
  t.equal(imported.code, 0, `import exits 0: ${imported.stderr}`);
  const server = await startServer({ DATA_DIR: dataDir });
  t.teardown(() => server.stop('SIGKILL'));
  const port = Number(new URL(server.baseUrl).port);
  const path = '/api/media?key_identity=editor-id&key_credential=editor-secret';
  const headers = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };
  const body = await form();
  const random = seededRandom(SEED);
  const offsets = Array.from({ length: CUTS }, () => Math.floor(random() * body.length));
  const wrong: string[] = [];
  let whole = 0;
  for (const offset of offsets) {
    const prefix = body.subarray(0, offset);
    // The connection ends before the announced body does.
    await rawRequest(port, { method: 'POST', path, headers, body: prefix, contentLength: body.length });
    // The body is all there, but the form stops short.
    const cut = await rawRequest(port, { method: 'POST', path, headers, body: prefix, contentLength: prefix.length });
    if (prefix.includes(`--${BOUNDARY}--`)) {
      if (cut.status === 201) whole++;
      continue;
    }
    const shaped = cut.status !== null && cut.status >= 400 && cut.status < 500 && /^\{"errors":\{/.test(cut.body);
    if (!shaped) wrong.push(`offset ${offset} (seed ${SEED}): ${cut.status} ${cut.body}`);
    if (server.child.exitCode !== null) break;
  }
  t.same(wrong, [], 'every cut form is a 4xx in the platform error shape');
  const complete = await rawRequest(port, { method: 'POST', path, headers, body, contentLength: body.length });
  t.equal(complete.status, 201, 'a whole form is taken after all the cuts');
  whole++;
  const list = await fetch(`${server.baseUrl}${path}&per_page=100`);
  t.equal(list.status, 200, 'the server still serves');
  const media = (await list.json()) as { 'o:original_url'?: string }[];
  t.equal(media.length, whole, 'one media per whole form, none for a cut one');
  t.ok(
    media.every((m) => typeof m['o:original_url'] === 'string'),
    'every media has its file',
  );
  const originals = readdirSync(join(dataDir, 'files', 'media')).filter((name) => name.endsWith('.jpg'));
  t.ok(originals.length >= whole, 'every media file is stored');
  const partial = readdirSync(join(dataDir, 'files', 'tmp'));
  t.same(partial, [], 'no partial upload is left');
});
