import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import pino from 'pino';
import t from 'tap';
import { buildApp } from '../../../app/app.js';
import { testConfig } from '../../test-config.js';
import { createRuntime } from '../../../app/runtime.js';
import { SqliteEventStore } from '../../../infra/event-store/sqlite.js';
import type { StoredEvent } from '../../../infra/event-store/port.js';
import { createArchive } from '../../../workers/backups/create-archive.js';
import { restoreArchive, RestoreRefusedError } from '../../../workers/backups/restore.js';
import { buildTestApp, json, keyFor, ROLE_USERS } from '../../helper.js';
import { unzip } from './zip-helpers.js';
import { appModules } from '../../../app/modules.js';

const logger = pino({ level: 'silent' });
const ALL = { include_db: true, include_files: true, include_themes: true, include_modules: true, include_api: true };
const admin = keyFor('global_admin');

async function eventsOf(dataDir: string): Promise<StoredEvent[]> {
  const store = new SqliteEventStore(join(dataDir, 'events.sqlite'));
  try {
    return await store.readAll(0, 1_000_000);
  } finally {
    await store.close();
  }
}

const restore = (archive: string, dataDir: string) => restoreArchive({ archive, config: testConfig(dataDir), logger });

t.test('restore', async (t) => {
  const { app, runtime, config } = await buildTestApp(t, {
    fixture: {
      users: ROLE_USERS.slice(0, 1),
      sites: [{ id: 1, slug: 'main', title: 'Main' }],
      items: [{ id: 5, title: 'Map' }],
    },
  });
  mkdirSync(join(config.dataDir, 'files', 'deep', 'er'), { recursive: true });
  writeFileSync(join(config.dataDir, 'files', 'deep', 'er', 'scan.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 9, 9]));
  mkdirSync(join(config.dataDir, 'themes', 'x'), { recursive: true });
  writeFileSync(join(config.dataDir, 'themes', 'x', 'style.css'), 'body{}');
  const res = await app.inject({ method: 'POST', url: `/api/backups?${admin}` });
  t.equal(res.statusCode, 201);
  const archive = json<{ 'o:path': string }>(res)['o:path'];
  const root = mkdtempSync(join(tmpdir(), 'restore-test-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));

  t.test('round trip: the log comes back event for event, the files byte for byte', async (t) => {
    const target = join(root, 'restored');
    const result = await restore(archive, target);
    t.equal(result.checkedChecksumFile, true);
    const original = (await runtime.eventStore.readAll(0, 1_000_000)).filter(
      (e) => e.position <= result.manifest.last_position,
    );
    t.equal(result.events, original.length);
    t.same(await eventsOf(target), original, 'same streams, versions, positions, data and metadata');
    t.same(
      readFileSync(join(target, 'files', 'deep', 'er', 'scan.png')),
      readFileSync(join(config.dataDir, 'files', 'deep', 'er', 'scan.png')),
    );
    t.equal(readFileSync(join(target, 'themes', 'x', 'style.css'), 'utf8'), 'body{}');
    t.notOk(existsSync(join(target, 'backups')), 'backups are not restored');
    t.notOk(existsSync(join(target, 'api')), 'API exports are not restored: the read models rebuild from the log');
    t.same(
      readdirSync(root)
        .filter((name) => !name.endsWith('.zip'))
        .sort(),
      ['restored'],
      'nothing beside the target',
    );
    t.notOk(
      readdirSync(target).some((name) => name.startsWith('.restoring-')),
      'no staging folder left',
    );
  });

  t.test('an archive without the event log puts the files back and replays nothing', async (t) => {
    const filesOnly = join(root, 'files-only.zip');
    await createArchive({
      file: filesOnly,
      dataDir: config.dataDir,
      includes: { ...ALL, include_db: false, include_api: false },
      backupId: null,
      createdAt: new Date(),
      eventStore: runtime.eventStore,
      upTo: await runtime.eventStore.lastPosition(),
      api: null,
    });
    const target = join(root, 'files-only');
    const result = await restore(filesOnly, target);
    t.equal(result.events, 0);
    t.equal(result.files, 2);
    t.same(await eventsOf(target), []);
    t.ok(existsSync(join(target, 'files', 'deep', 'er', 'scan.png')));
  });

  t.test('an existing empty target is fine; a non-empty one is refused and left alone', async (t) => {
    const empty = join(root, 'empty');
    mkdirSync(empty);
    await restore(archive, empty);
    t.ok(existsSync(join(empty, 'events.sqlite')));
    const busy = join(root, 'busy');
    mkdirSync(busy);
    writeFileSync(join(busy, 'keep.txt'), 'mine');
    await t.rejects(
      restore(archive, busy),
      new RestoreRefusedError(`The target DATA_DIR ${busy} is not empty; restore only into an empty or new directory.`),
    );
    t.same(readdirSync(busy), ['keep.txt']);
  });

  t.test('a damaged archive is refused with a clear message and nothing is written', async (t) => {
    const bytes = readFileSync(archive);
    const damaged = join(root, 'damaged.zip');
    const flipped = Buffer.from(bytes);
    flipped[Math.floor(bytes.length / 3)] ^= 0xff;
    writeFileSync(damaged, flipped);
    copyFileSync(`${archive}.sha256`, `${damaged}.sha256`);
    const target = join(root, 'from-damaged');
    await t.rejects(restore(damaged, target), {
      name: 'RestoreRefusedError',
      message: /does not match its \.sha256 checksum file/,
    });

    // Without the checksum file, the manifest's per-entry checksums still catch damaged content.
    rmSync(`${damaged}.sha256`);
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 9, 9]);
    const inContent = Buffer.from(bytes);
    const at = inContent.indexOf(png);
    t.ok(at > 0, 'the stored PNG is in the archive as it is');
    inContent[at + 4] ^= 0xff;
    writeFileSync(damaged, inContent);
    await t.rejects(restore(damaged, target), {
      name: 'RestoreRefusedError',
      message: 'files/deep/er/scan.png does not match the checksum in manifest.json: the archive is damaged.',
    });

    const truncated = join(root, 'truncated.zip');
    writeFileSync(truncated, bytes.subarray(0, bytes.length - 100));
    await t.rejects(restore(truncated, target), {
      name: 'RestoreRefusedError',
      message: /not a readable backup archive/,
    });

    const notZip = join(root, 'not.zip');
    writeFileSync(notZip, 'hello');
    await t.rejects(restore(notZip, target), { name: 'RestoreRefusedError', message: /not a readable backup archive/ });
    await t.rejects(restore(join(root, 'missing.zip'), target), {
      name: 'RestoreRefusedError',
      message: /does not exist/,
    });
    t.notOk(existsSync(target), 'the target was never created');
    t.notOk(
      readdirSync(root).some((name) => name.includes('.restoring-')),
      'no staging folder left',
    );
  });

  t.test('an archive whose entries do not match its manifest is refused', async (t) => {
    const { ZipWriter } = await import('../../../workers/backups/zip-writer.js');
    const entries = await unzip(archive);
    const manifest = JSON.parse(entries.get('manifest.json')!.content.toString('utf8')) as {
      entries: { path: string }[];
    };
    const forged = join(root, 'forged.zip');
    const writer = new ZipWriter(forged, new Date());
    for (const [name, entry] of entries) {
      if (name === 'manifest.json') continue;
      await writer.add(
        name,
        name === 'events.ndjson' ? Buffer.concat([entry.content, Buffer.from('{"x":1}\n')]) : entry.content,
      );
    }
    await writer.add('manifest.json', JSON.stringify(manifest));
    await writer.finish();
    await t.rejects(restore(forged, join(root, 'from-forged')), {
      message: 'events.ndjson does not match the checksum in manifest.json: the archive is damaged.',
    });

    const extra = join(root, 'extra.zip');
    const writer2 = new ZipWriter(extra, new Date());
    for (const [name, entry] of entries) await writer2.add(name, entry.content);
    await writer2.add('files/smuggled.txt', 'not in the manifest');
    await writer2.finish();
    await t.rejects(restore(extra, join(root, 'from-extra')), {
      message: 'The archive holds files/smuggled.txt, which its manifest does not list.',
    });

    // A consistent manifest over an inconsistent log: refused while replaying, and the target stays as it was.
    const lines = entries.get('events.ndjson')!.content.toString('utf8').trim().split('\n');
    const streams = lines.map((l) => (JSON.parse(l) as { streamId: string }).streamId);
    const gapAt = streams.findIndex((id, i) => i > 0 && streams.indexOf(id) < i);
    t.ok(gapAt > 0, 'some stream has a second event');
    const gappy = Buffer.from(`${lines.filter((_, i) => i !== streams.indexOf(streams[gapAt])).join('\n')}\n`);
    const full = JSON.parse(entries.get('manifest.json')!.content.toString('utf8')) as {
      event_count: number;
      entries: { path: string; size: number; sha256: string }[];
    };
    full.event_count -= 1;
    const logEntry = full.entries.find((e) => e.path === 'events.ndjson')!;
    logEntry.size = gappy.length;
    logEntry.sha256 = createHash('sha256').update(gappy).digest('hex');
    const inconsistent = join(root, 'inconsistent.zip');
    const writer4 = new ZipWriter(inconsistent, new Date());
    for (const [name, entry] of entries)
      if (name !== 'manifest.json') await writer4.add(name, name === 'events.ndjson' ? gappy : entry.content);
    await writer4.add('manifest.json', JSON.stringify(full));
    await writer4.finish();
    const existing = join(root, 'existing-empty');
    mkdirSync(existing);
    await t.rejects(restore(inconsistent, existing), {
      name: 'RestoreRefusedError',
      message: /events\.ndjson line \d+: stream .* skips from version/,
    });
    t.same(readdirSync(existing), [], 'the existing target is empty again');
    await t.rejects(restore(inconsistent, join(root, 'new-target')), { name: 'RestoreRefusedError' });
    t.notOk(existsSync(join(root, 'new-target')), 'a target that did not exist is not left behind');

    const bare = join(root, 'bare.zip');
    const writer3 = new ZipWriter(bare, new Date());
    await writer3.add('events.ndjson', entries.get('events.ndjson')!.content);
    await writer3.finish();
    await t.rejects(restore(bare, join(root, 'from-bare')), { message: /no manifest\.json/ });
  });

  t.test('a malformed manifest or event line is refused, naming where, and nothing is restored', async (t) => {
    const { ZipWriter } = await import('../../../workers/backups/zip-writer.js');
    const entries = await unzip(archive);
    const manifestOf = () =>
      JSON.parse(entries.get('manifest.json')!.content.toString('utf8')) as {
        includes: Record<string, unknown>;
        entries: { path: string; size: number; sha256: string }[];
      };
    /** The archive with its log and manifest replaced, every checksum consistent: only the content is wrong. */
    const forge = async (name: string, log: Buffer, manifest = manifestOf()) => {
      const logEntry = manifest.entries.find((e) => e.path === 'events.ndjson')!;
      logEntry.size = log.length;
      logEntry.sha256 = createHash('sha256').update(log).digest('hex');
      const file = join(root, `${name}.zip`);
      const writer = new ZipWriter(file, new Date());
      for (const [entry, { content }] of entries)
        if (entry !== 'manifest.json') await writer.add(entry, entry === 'events.ndjson' ? log : content);
      await writer.add('manifest.json', JSON.stringify(manifest));
      await writer.finish();
      return file;
    };
    const log = entries.get('events.ndjson')!.content;
    const lines = log.toString('utf8').trim().split('\n');
    const withLine = (n: number, line: string) =>
      Buffer.from(`${lines.map((original, i) => (i === n - 1 ? line : original)).join('\n')}\n`);
    const third = JSON.parse(lines[2]) as Record<string, unknown>;

    const refusals: [string, Buffer, string][] = [
      [
        'metadata-string',
        withLine(3, JSON.stringify({ ...third, metadata: 'alice' })),
        'events.ndjson line 3 is not an event: /metadata: Expected object.',
      ],
      [
        'version-text',
        withLine(3, JSON.stringify({ ...third, streamVersion: '1' })),
        'events.ndjson line 3 is not an event: /streamVersion: Expected integer.',
      ],
      ['not-json', withLine(2, '{"position": 2,'), 'events.ndjson line 2 is not an event: Not JSON ('],
    ];
    for (const [name, forgedLog, message] of refusals) {
      const target = join(root, `from-${name}`);
      mkdirSync(target);
      const refused = await restore(await forge(name, forgedLog), target).catch((error: unknown) => error);
      t.ok(refused instanceof RestoreRefusedError, `${name}: refused`);
      t.ok(refused instanceof Error && refused.message.startsWith(message), `${name}: ${String(refused)}`);
      t.same(readdirSync(target), [], `${name}: nothing restored, the target is empty again`);
    }

    const badDigest = manifestOf();
    const png = badDigest.entries.findIndex((e) => e.path === 'files/deep/er/scan.png');
    badDigest.entries[png].sha256 = 'not hex';
    const badFlag = manifestOf();
    badFlag.includes.include_files = 'yes';
    const manifests: [string, ReturnType<typeof manifestOf>, string][] = [
      ['digest', badDigest, `/entries/${png}/sha256: Expected string to match '^[0-9a-f]{64}$'.`],
      ['flag', badFlag, '/includes/include_files: Expected boolean.'],
    ];
    for (const [name, manifest, where] of manifests) {
      const target = join(root, `from-manifest-${name}`);
      await t.rejects(restore(await forge(`manifest-${name}`, log, manifest), target), {
        name: 'RestoreRefusedError',
        message: `The archive's manifest cannot be used: manifest.json is not a valid manifest: ${where}`,
      });
      t.notOk(existsSync(target), `manifest ${name}: the target was never created`);
    }
  });
});

t.test('a backup made while writes keep arriving holds a prefix of the log', async (t) => {
  const { app, runtime, config } = await buildTestApp(t, { fixture: { users: ROLE_USERS.slice(0, 1) } });
  let writing = true;
  let written = 0;
  const writer = (async () => {
    while (writing) {
      const res = await app.inject({
        method: 'POST',
        url: `/api/item_sets?${admin}`,
        payload: { 'o:title': `Set ${written}` },
      });
      if (res.statusCode !== 201) throw new Error(`write failed: ${res.statusCode}`);
      written += 1;
    }
  })();
  while (written < 20) await new Promise((resolve) => setTimeout(resolve, 5));
  const archives: string[] = [];
  for (let i = 0; i < 3; i++) {
    const file = join(config.dataDir, 'backups', `busy-${i}.zip`);
    await createArchive({
      file,
      dataDir: config.dataDir,
      includes: { ...ALL, include_api: false },
      backupId: null,
      createdAt: new Date(),
      eventStore: runtime.eventStore,
      upTo: await runtime.eventStore.lastPosition(),
      api: null,
    });
    archives.push(file);
  }
  writing = false;
  await writer;
  t.equal(
    (await app.inject({ method: 'POST', url: `/api/item_sets?${admin}`, payload: { 'o:title': 'After' } })).statusCode,
    201,
    'one more write after the last backup',
  );
  const log = await runtime.eventStore.readAll(0, 1_000_000);
  for (const file of archives) {
    const lines = (await unzip(file))
      .get('events.ndjson')!
      .content.toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as StoredEvent);
    t.ok(lines.length > 0 && lines.length < log.length, `${file}: part of the log`);
    t.same(
      lines,
      log.slice(0, lines.length).map((e) => ({
        position: e.position,
        streamId: e.streamId,
        streamVersion: e.streamVersion,
        type: e.type,
        data: e.data,
        metadata: e.metadata,
      })),
      'exactly the first events of the log',
    );
    const target = join(config.dataDir, '..', `restored-busy-${archives.indexOf(file)}`);
    t.teardown(() => rmSync(target, { recursive: true, force: true }));
    const result = await restore(file, target);
    t.equal(result.events, lines.length, 'and it restores');
  }
});

t.test('backups listed in the restored log whose archives are not in the restored data leave the list', async (t) => {
  const { app } = await buildTestApp(t, { fixture: { users: ROLE_USERS.slice(0, 1) } });
  const older = await app.inject({ method: 'POST', url: `/api/backups?${admin}` });
  t.equal(older.statusCode, 201);
  const olderId = json<{ 'o:id': number }>(older)['o:id'];
  const latest = await app.inject({ method: 'POST', url: `/api/backups?${admin}` });
  t.equal(latest.statusCode, 201);
  const root = mkdtempSync(join(tmpdir(), 'restore-records-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const target = join(root, 'restored');
  const result = await restore(json<{ 'o:path': string }>(latest)['o:path'], target);
  t.equal(result.backupsNotRestored, 1, 'the older backup, complete in the restored log, has no archive here');
  const events = await eventsOf(target);
  t.match(events[events.length - 1], {
    streamId: `backup-${olderId}`,
    type: 'BackupArchiveNotRestored',
    data: { id: olderId },
  });

  const restored = await createRuntime(testConfig(target), { modules: appModules });
  const restoredApp = await buildApp(restored);
  t.teardown(async () => {
    await restoredApp.close();
    await restored.close();
  });
  const list = await restoredApp.inject({ method: 'GET', url: `/api/backups?${admin}` });
  t.same(json(list), [], 'no record points at an archive this installation does not have');
  t.equal((await restoredApp.inject({ method: 'GET', url: `/api/backups/${olderId}?${admin}` })).statusCode, 404);
  const made = await restoredApp.inject({ method: 'POST', url: `/api/backups?${admin}` });
  t.equal(made.statusCode, 201);
  t.equal(
    json<{ 'o:path': string }>(made)['o:path'].startsWith(join(target, 'backups')),
    true,
    "new records show this installation's path",
  );
});
