import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import t from 'tap';
import { runCli, startServer, importFixtureFile, type ServerProcess } from '../process.js';

/**
 * A media's file, its derivatives and its image service are facts of the log and files under
 * DATA_DIR/files: `npm run rebuild` and a backup restored into an empty DATA_DIR give back the
 * same representations, the same info.json, manifest, change pages and OAI-PMH records, and the same bytes.
 */
t.setTimeout(300_000);

const BASE_URL = 'http://images-e2e.test';
const KEY = 'key_identity=ADMIN&key_credential=ADMIN-SECRET';
const fixture = {
  users: [
    {
      id: 1,
      email: 'admin@example.org',
      name: 'Ada',
      role: 'global_admin',
      password: 'admin-pass',
      api_keys: [{ identity: 'ADMIN', credential: 'ADMIN-SECRET' }],
    },
  ],
  items: [{ id: 1, title: 'Portrait' }],
};

const sha = (bytes: ArrayBuffer) => createHash('sha256').update(Buffer.from(bytes)).digest('hex');

/** What a viewer and a client see of the media: its JSON, its item's, info.json, and the bytes of its files. */
async function seen(server: ServerProcess, id: number) {
  const text = async (path: string) => (await fetch(`${server.baseUrl}${path}`)).text();
  const bytes = async (path: string) => {
    const res = await fetch(`${server.baseUrl}${path}`);
    return `${res.status} ${sha(await res.arrayBuffer())}`;
  };
  return {
    media: await text(`/api/media/${id}`),
    item: await text('/api/items/1'),
    info: await text(`/iiif/3/image/${id}/info.json`),
    original: await bytes(`/files/original/${id}.jpg`),
    large: await bytes(`/files/large/${id}.jpg`),
    tile: await bytes(`/iiif/3/image/${id}/0,0,256,256/128,/0/default.jpg`),
    manifest: await text('/iiif/3/item/1/manifest'),
    changes: await text('/iiif/discovery/changes'),
    firstChanges: await text('/iiif/discovery/changes/page/0'),
    // The OAI-PMH records, datestamps included (the answer's own time aside).
    oai: (await text('/oai-pmh?verb=ListRecords&metadataPrefix=oai_dc')).replace(/<responseDate>[^<]*</, '<'),
  };
}

t.test('a rebuild and a restore keep media files, derivatives and the image service', async (t) => {
  const dataDir = t.testdir();
  const imported = await importFixtureFile(dataDir, fixture, 'images-rebuild');
  t.equal(imported.code, 0, `import exits 0: ${imported.stderr}`);
  let server = await startServer({ DATA_DIR: dataDir, BASE_URL });
  t.teardown(() => server.stop('SIGKILL'));
  const photo = await sharp({ create: { width: 900, height: 600, channels: 3, background: '#8a5' } })
    .withMetadata({ orientation: 6 })
    .jpeg()
    .toBuffer();
  const form = new FormData();
  form.append('data', JSON.stringify({ 'o:item': { 'o:id': 1 } }));
  form.append('file[0]', new Blob([photo], { type: 'image/jpeg' }), 'portrait.jpg');
  const created = await fetch(`${server.baseUrl}/api/media?${KEY}`, { method: 'POST', body: form });
  t.equal(created.status, 201);
  const id = ((await created.json()) as { 'o:id': number })['o:id'];
  for (let tries = 0; tries < 300; tries++) {
    const media = (await (await fetch(`${server.baseUrl}/api/media/${id}`)).json()) as {
      'o:thumbnail_urls': Record<string, string>;
    };
    if (media['o:thumbnail_urls'].large) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const before = await seen(server, id);
  t.match(before.info, /"width":600,"height":900/, 'upright size');
  t.match(before.large, /^200 /);
  t.match(
    before.firstChanges,
    /"type":"Create","object":\{"id":"http:\/\/images-e2e.test\/iiif\/3\/item\/1\/manifest"/,
  );
  t.match(before.oai, /<identifier>oai:images-e2e\.test:1<\/identifier>/, 'the item is an OAI-PMH record');
  const backup = await fetch(`${server.baseUrl}/api/backups?${KEY}`, { method: 'POST' });
  t.equal(backup.status, 201, 'a backup');
  const archive = ((await backup.json()) as { 'o:path': string })['o:path'];
  await server.stop();

  const rebuilt = await runCli('rebuild.ts', [], { DATA_DIR: dataDir, BASE_URL });
  t.equal(rebuilt.code, 0, `rebuild: ${rebuilt.stderr}`);
  server = await startServer({ DATA_DIR: dataDir, BASE_URL });
  t.same(await seen(server, id), before, 'after a rebuild: the same answers');
  await server.stop();

  const restored = join(dataDir, '..', `restored-${process.pid}`);
  t.teardown(() => rm(restored, { recursive: true, force: true }));
  const restore = await runCli('restore.ts', [archive], { DATA_DIR: restored, BASE_URL });
  t.equal(restore.code, 0, `restore: ${restore.stderr}`);
  server = await startServer({ DATA_DIR: restored, BASE_URL });
  t.same(await seen(server, id), before, 'after a restore: the same answers');
});
