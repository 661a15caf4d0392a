import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { type BackupIncludes, INCLUDE_FLAGS } from '../../../contracts/backups/events.js';
import type { EventStore } from '../../../infra/event-store/port.js';
import { backupsModule } from '../../../app/modules/backups.js';
import { createArchive } from '../../../workers/backups/create-archive.js';
import { parseManifest } from '../../../workers/backups/manifest.js';
import { buildTestApp, ROLE_USERS } from '../../helper.js';
import { unzip, unzipTestPasses } from './zip-helpers.js';

const fixture = {
  users: ROLE_USERS.slice(0, 1),
  sites: [{ id: 1, slug: 'main', title: 'Main' }],
  items: Array.from({ length: 30 }, (_, i) => ({
    id: 100 + i,
    title: `Item ${i}`,
    site_ids: [1],
    is_public: i % 2 === 0,
  })),
};

const sha = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

function combinations(): BackupIncludes[] {
  return Array.from(
    { length: 2 ** INCLUDE_FLAGS.length },
    (_, mask) =>
      Object.fromEntries(
        INCLUDE_FLAGS.map((flag, bit) => [flag, (mask & (1 << bit)) !== 0]),
      ) as unknown as BackupIncludes,
  );
}

t.test('archive contents for every include combination', async (t) => {
  const { runtime, config } = await buildTestApp(t, { fixture });
  const app = runtime.module(backupsModule).apiSource.app;
  t.ok(app, 'the app registered itself as the API source');
  const data = config.dataDir;
  const sources: Record<string, Buffer> = {
    'files/notes.txt': Buffer.from('uploaded text '.repeat(500)),
    'files/2026/photo.jpg': Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4]),
    'themes/default/theme.ini': Buffer.from('name = "Default"'),
    'modules/Backup/module.ini': Buffer.from('version = "1.0"'),
  };
  for (const [path, bytes] of Object.entries(sources)) {
    mkdirSync(join(data, path, '..'), { recursive: true });
    writeFileSync(join(data, path), bytes);
  }
  // An upload being received (or one a crash left) is no file of the site.
  mkdirSync(join(data, 'files', 'tmp'), { recursive: true });
  writeFileSync(join(data, 'files', 'tmp', 'host@1@partial.part'), 'half an upload');
  // Other backups must never end up inside an archive.
  mkdirSync(join(data, 'backups'), { recursive: true });
  writeFileSync(join(data, 'backups', 'older.zip'), 'an older backup');
  const upTo = await runtime.eventStore.lastPosition();
  const log = await runtime.eventStore.readAll(0, 100_000);

  let n = 0;
  for (const includes of combinations()) {
    const file = join(data, 'backups', `test-${n++}.zip`);
    const label = INCLUDE_FLAGS.filter((f) => includes[f]).join(',') || 'nothing';
    const result = await createArchive({
      file,
      dataDir: data,
      includes,
      backupId: n,
      createdAt: new Date('2026-01-02T03:04:05Z'),
      eventStore: runtime.eventStore,
      upTo,
      api: { app: app!, baseUrl: config.baseUrl, userId: 1 },
    });
    const bytes = readFileSync(file);
    t.equal(result.size, bytes.length, `${label}: size in bytes`);
    t.equal(result.checksum, `sha256:${sha(bytes)}`, `${label}: checksum of the archive file`);
    t.equal(
      readFileSync(`${file}.sha256`, 'utf8'),
      `${sha(bytes)}  test-${n - 1}.zip\n`,
      `${label}: checksum file beside the archive`,
    );
    if (unzipTestPasses(file) === false) t.fail(`${label}: unzip -t refuses the archive`);

    const entries = await unzip(file);
    const names = [...entries.keys()];
    t.ok(names.includes('manifest.json'), `${label}: manifest`);
    t.notOk(
      names.some((name) => name.startsWith('backups/') || name.includes('older.zip')),
      `${label}: no other backup inside`,
    );
    t.notOk(
      names.some((name) => name.startsWith('files/tmp/')),
      `${label}: no partial upload inside`,
    );
    t.equal(names.includes('events.ndjson'), includes.include_db, `${label}: event log iff include_db`);
    for (const [path, content] of Object.entries(sources)) {
      const part = path.split('/')[0] as 'files' | 'themes' | 'modules';
      const wanted = includes[`include_${part}`];
      t.equal(entries.has(path), wanted, `${label}: ${path}`);
      if (wanted) t.same(entries.get(path)?.content, content, `${label}: ${path} content`);
    }
    t.equal(
      names.some((name) => name.startsWith('api/')),
      includes.include_api,
      `${label}: api exports iff include_api`,
    );
    t.notOk(names.includes('api/health.json'), `${label}: the health report is no data of the site`);

    const manifest = parseManifest(entries.get('manifest.json')!.content.toString('utf8'));
    t.equal(manifest.backup_module_version, '0.1.0');
    t.same(manifest.includes, includes);
    t.same(
      Object.keys(manifest.parts).sort(),
      ['api', 'db', 'files', 'modules', 'themes'],
      `${label}: manifest names the parts`,
    );
    for (const [part, summary] of Object.entries(manifest.parts)) {
      t.equal(
        summary.included,
        includes[`include_${part === 'db' ? 'db' : part}` as keyof BackupIncludes],
        `${label}: part ${part} flagged`,
      );
    }
    t.equal(manifest.event_count, includes.include_db ? log.length : 0, `${label}: event count`);
    t.same(
      manifest.entries.map((e) => e.path).sort(),
      names.filter((name) => name !== 'manifest.json').sort(),
      `${label}: manifest lists every entry`,
    );
    for (const entry of manifest.entries) {
      const got = entries.get(entry.path)!.content;
      if (got.length !== entry.size || sha(got) !== entry.sha256) t.fail(`${label}: ${entry.path} checksum`);
    }
  }

  t.test('the event log is the whole log as NDJSON, in order', async (t) => {
    const entries = await unzip(join(data, 'backups', `test-${2 ** INCLUDE_FLAGS.length - 1}.zip`));
    const lines = entries
      .get('events.ndjson')!
      .content.toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    t.same(
      lines,
      log.map((e) => ({
        position: e.position,
        streamId: e.streamId,
        streamVersion: e.streamVersion,
        type: e.type,
        data: e.data,
        metadata: e.metadata,
      })),
    );
  });

  t.test('compressible files are deflated, compressed formats stored', async (t) => {
    const entries = await unzip(join(data, 'backups', `test-${2 ** INCLUDE_FLAGS.length - 1}.zip`));
    t.equal(entries.get('files/notes.txt')?.method, 8, 'text deflated');
    t.equal(entries.get('events.ndjson')?.method, 8, 'event log deflated');
    t.equal(entries.get('files/2026/photo.jpg')?.method, 0, 'jpeg stored');
  });

  t.test('api exports hold every page of the lists, as the administrator sees them', async (t) => {
    const entries = await unzip(join(data, 'backups', `test-${2 ** INCLUDE_FLAGS.length - 1}.zip`));
    const items = JSON.parse(entries.get('api/api/items.json')!.content.toString('utf8')) as { 'o:id': number }[];
    t.equal(items.length, 30, 'all 30 items, private ones too, beyond the first page');
    const sites = JSON.parse(entries.get('api/api/sites.json')!.content.toString('utf8')) as { 'o:slug': string }[];
    t.same(
      sites.map((s) => s['o:slug']),
      ['main'],
    );
  });

  t.test('an anonymous export (no user) shows only public records', async (t) => {
    const file = join(data, 'backups', 'anonymous.zip');
    await createArchive({
      file,
      dataDir: data,
      includes: {
        include_db: false,
        include_files: false,
        include_themes: false,
        include_modules: false,
        include_api: true,
      },
      backupId: null,
      createdAt: new Date(),
      eventStore: runtime.eventStore,
      upTo,
      api: { app: app!, baseUrl: config.baseUrl, userId: null },
    });
    const items = JSON.parse((await unzip(file)).get('api/api/items.json')!.content.toString('utf8')) as unknown[];
    t.equal(items.length, 15);
  });
});

t.test('a failure halfway leaves no archive behind', async (t) => {
  const { runtime, config } = await buildTestApp(t, {});
  mkdirSync(join(config.dataDir, 'files'), { recursive: true });
  writeFileSync(join(config.dataDir, 'files', 'a.txt'), 'x');
  const file = join(config.dataDir, 'backups', 'fail.zip');
  const store = runtime.eventStore;
  let pages = 0;
  // The log fails on its second page, after the first one went into the archive.
  const failing: EventStore = Object.assign(Object.create(store) as EventStore, {
    readAll: async () =>
      pages++ === 0
        ? [{ position: 1, streamId: 's', streamVersion: 1, type: 'T', data: {}, metadata: { userId: null, at: '' } }]
        : Promise.reject(new Error('disk gone')),
  });
  const includes = {
    include_db: true,
    include_files: true,
    include_themes: false,
    include_modules: false,
    include_api: false,
  };
  await t.rejects(
    createArchive({
      file,
      dataDir: config.dataDir,
      includes,
      backupId: 1,
      createdAt: new Date(),
      eventStore: failing,
      upTo: 5,
      api: null,
    }),
    /disk gone/,
  );
  t.equal(pages, 2);
  t.notOk(existsSync(file), 'no archive');
  t.same(readdirSync(join(config.dataDir, 'backups')), [], 'no partial file, no checksum file');
});
