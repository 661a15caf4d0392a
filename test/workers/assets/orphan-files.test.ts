import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import t from 'tap';
import { filesRoot } from '../../../infra/file-storage/select.js';
import { findAsset } from '../../../queries/assets/assets.js';
import { removeOrphanAssetFiles as removeOrphanFiles } from '../../../workers/assets/orphan-files.js';
import { ORPHAN_AGE_MS } from '../../../workers/files/orphan-files.js';
import { buildTestApp, json, ROLE_USERS, sessionFor, type TestApp } from '../../helper.js';
import { multipart, PNG } from '../../routes/assets/support.js';

/** A last write long before the age limit, in seconds as utimes takes it. */
const LONG_AGO = (Date.now() - 2 * ORPHAN_AGE_MS) / 1000;

/** Writes a file, dated `at` (seconds) when given, as a crash long ago would have left it. */
function fileAt(path: string, at?: number): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, 'bytes');
  if (at !== undefined) utimesSync(path, at, at);
  return path;
}

/** Uploads an asset and answers the path of its stored file, dated long ago. */
async function uploadedFile({ app, runtime, config }: TestApp): Promise<string> {
  const cookie = await sessionFor(app, 'editor');
  const body = multipart([{ name: 'file[0]', filename: 'map.png', content: PNG }]);
  const res = await app.inject({
    method: 'POST',
    url: '/api/asset-picker/assets',
    payload: body.payload,
    headers: { ...body.headers, cookie },
  });
  if (res.statusCode !== 201) throw new Error(`upload failed: ${res.body}`);
  const asset = await findAsset(runtime.documents, json<{ asset: { id: number } }>(res).asset.id);
  const path = join(filesRoot(config), 'assets', asset?.stored_name ?? 'missing');
  utimesSync(path, LONG_AGO, LONG_AGO);
  return path;
}

/** Every kind of file under DATA_DIR the clean-up meets, and whether it must go. */
function layout(dataDir: string) {
  const files = join(dataDir, 'files');
  return {
    gone: [
      fileAt(join(files, 'assets', `${randomUUID()}.png`), LONG_AGO),
      fileAt(join(files, 'assets', randomUUID()), LONG_AGO),
    ],
    kept: [
      fileAt(join(files, 'assets', `${randomUUID()}.png`)), // an upload being recorded right now
      fileAt(join(files, 'assets', 'notes.txt'), LONG_AGO), // not a name the storage gives
      fileAt(join(files, 'other', `${randomUUID()}.png`), LONG_AGO), // not the assets' area
      fileAt(join(dataDir, 'backups', 'backup-1.zip'), LONG_AGO),
      fileAt(join(dataDir, 'themes', 'default', `${randomUUID()}.css`), LONG_AGO),
    ],
  };
}

t.test('asset files no record owns are removed once old; owned, recent and foreign files stay', async (t) => {
  const test = await buildTestApp(t, { fixture: { users: ROLE_USERS } });
  const owned = await uploadedFile(test);
  const { gone, kept } = layout(test.config.dataDir);
  const storage = test.runtime.files.area('assets');

  t.equal(await removeOrphanFiles(test.runtime, storage, Date.now()), gone.length, 'answers how many it removed');
  for (const path of gone) t.notOk(existsSync(path), `removed: ${path}`);
  for (const path of [owned, ...kept]) t.ok(existsSync(path), `kept: ${path}`);
  t.equal(await removeOrphanFiles(test.runtime, storage, Date.now()), 0, 'a second pass finds nothing');
});

t.test('nothing is removed while the assets read model is parked: its records may be missing', async (t) => {
  const test = await buildTestApp(t, { fixture: { users: ROLE_USERS } });
  const owned = await uploadedFile(test);
  const { gone } = layout(test.config.dataDir);
  const status = test.runtime.projections.status.bind(test.runtime.projections);
  test.runtime.projections.status = () =>
    status().map((s) =>
      s.name === 'assets'
        ? {
            ...s,
            parked: {
              name: 'assets',
              position: 1,
              eventType: 'AssetUploaded',
              error: 'boom',
              since: new Date().toISOString(),
            },
          }
        : s,
    );
  t.equal(await removeOrphanFiles(test.runtime, test.runtime.files.area('assets'), Date.now()), 0);
  for (const path of [owned, ...gone]) t.ok(existsSync(path), `kept: ${path}`);
});

t.test('the server removes them once it listens, and logs how many', async (t) => {
  const lines: string[] = [];
  const logger = pino(
    { level: 'info' },
    new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString()), done()) }),
  );
  const test = await buildTestApp(t, { fixture: { users: ROLE_USERS }, logger });
  const { gone, kept } = layout(test.config.dataDir);
  t.ok(
    gone.every((path) => existsSync(path)),
    'built, not listening: nothing removed yet',
  );
  await test.app.listen({ host: '127.0.0.1', port: 0 });
  const logged = () => lines.find((line) => line.includes('asset files no asset record owns'));
  for (let waited = 0; !logged() && waited < 10_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
  t.match(JSON.parse(logged() ?? '{}'), {
    count: gone.length,
    msg: `removed ${gone.length} asset files no asset record owns`,
  });
  for (const path of gone) t.notOk(existsSync(path), `removed: ${path}`);
  for (const path of kept) t.ok(existsSync(path), `kept: ${path}`);
});
