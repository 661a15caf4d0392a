import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pino from 'pino';
import t from 'tap';
import { testConfig } from '../../test-config.js';
import { appModules } from '../../../app/modules.js';
import { chatbotModule } from '../../../app/modules/chatbot.js';
import { createRuntime } from '../../../app/runtime.js';
import { readSideFiles } from '../../../infra/read-side-files.js';
import { items as itemDocs } from '../../../contracts/platform/documents.js';
import { createArchive } from '../../../workers/backups/create-archive.js';
import { parseManifest } from '../../../workers/backups/manifest.js';
import { restoreArchive } from '../../../workers/backups/restore.js';
import { readModelsStamp } from '../../../infra/log-identity.js';
import { buildTestApp, json, keyFor, ROLE_USERS } from '../../helper.js';
import { settle } from '../../routes/chatbot/support.js';
import { unzip } from './zip-helpers.js';

const logger = pino({ level: 'silent' });
const admin = keyFor('global_admin');
const ALL = { include_db: true, include_files: true, include_themes: true, include_modules: true, include_api: false };

/** The projections' checkpoints stored in a read-models file. */
function checkpointsIn(file: string): number[] {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT doc FROM "docs__checkpoints"').pluck().all() as string[]).map(
      (doc) => (JSON.parse(doc) as { position: number }).position,
    );
  } finally {
    db.close();
  }
}

t.test('an archive carries the read models with their checkpoints, and a restore starts from them', async (t) => {
  const items = Array.from({ length: 30 }, (_, i) => ({ id: 10 + i, title: `Item ${i}` }));
  const { app, runtime } = await buildTestApp(t, {
    fixture: { users: ROLE_USERS.slice(0, 1), sites: [{ id: 1, slug: 'main', title: 'Main' }], items },
  });
  await settle(runtime);
  const chunks = await runtime.module(chatbotModule).services.vectorIndex.size();
  t.ok(chunks >= 30, `the items are indexed (${chunks} chunks)`);
  await runtime
    .module(chatbotModule)
    .services.questions.recorded({ question: 'Which map shows Lisbon?', siteId: 1 }, { sources: [] });
  const res = await app.inject({ method: 'POST', url: `/api/backups?${admin}` });
  t.equal(res.statusCode, 201);
  const archive = json<{ 'o:path': string }>(res)['o:path'];
  const root = mkdtempSync(join(tmpdir(), 'read-side-test-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));

  const entries = await unzip(archive);
  const manifest = parseManifest(entries.get('manifest.json')!.content.toString('utf8'));
  t.equal(manifest.format_version, 2);
  const readModels = manifest.entries.find((e) => e.path === 'read-side/read-models.sqlite');
  t.ok(readModels, 'the read models are in the archive');
  t.equal(readModels?.part, 'db', 'as part of the db part');
  const snapshot = join(root, 'snapshot.sqlite');
  writeFileSync(snapshot, entries.get('read-side/read-models.sqlite')!.content);
  const checkpoints = checkpointsIn(snapshot);
  t.ok(checkpoints.length > 0 && checkpoints.every((p) => p > 0), 'with their checkpoints');
  t.ok(Math.max(...checkpoints) <= manifest.last_position, 'none ahead of the archived log');

  const target = join(root, 'restored');
  const result = await restoreArchive({ archive, config: testConfig(target), logger });
  t.ok(result.readSideRestored >= 1, 'the restore put the read models back');
  t.same(checkpointsIn(join(target, 'read-models.sqlite')).sort(), checkpoints.sort(), 'as they were archived');

  const restored = await createRuntime(testConfig(target), { modules: appModules, logger, startWorkers: false });
  t.teardown(() => restored.close());
  for (const stats of restored.projections.startStats()) {
    t.ok(stats.resumedFrom > 0, `${stats.name} resumed from its checkpoint`);
    t.ok(
      stats.firstApplied === null || stats.firstApplied > stats.resumedFrom,
      `${stats.name} applied only what came after it`,
    );
  }
  const applied = restored.projections.startStats().reduce((n, s) => n + s.applied, 0);
  t.ok(applied < 10, `the start applied ${applied} event applications, not the whole log`);
  t.equal(await itemDocs(restored.documents).count({}), 30, 'and answers from the restored read models');
  const restoredIndex = restored.module(chatbotModule).services.vectorIndex;
  t.equal(await restoredIndex.size(), chunks, 'the vector index came back whole: nothing to embed, no worker ran');
  // The restored log is a new one (infra/log-identity.ts): what came back is stamped with it.
  const restoredLog = await restored.eventStore.identity();
  t.not(restoredLog, await runtime.eventStore.identity(), 'the restored log has an identity of its own');
  t.equal(
    (await readModelsStamp(restored.documents, testConfig(target)).read())?.log,
    restoredLog,
    'the read models are its',
  );
  t.equal((await restoredIndex.logStamp())?.log, restoredLog, 'and so is the vector index');
  const restoredQuestions = (await restored.module(chatbotModule).services.questions.list({}, 0, 10)).questions;
  t.same(
    restoredQuestions.map((q) => [q.question, q.siteId]),
    [['Which map shows Lisbon?', 1]],
    'the chatbot questions came back',
  );
  t.equal(await itemDocs(runtime.documents).count({}), 30);
});

t.test(
  'an archive without read-side files (made before they were added) restores, and the start replays',
  async (t) => {
    const { runtime, config } = await buildTestApp(t, {
      fixture: {
        users: ROLE_USERS.slice(0, 1),
        sites: [{ id: 1, slug: 'main', title: 'Main' }],
        items: [{ id: 5, title: 'Map' }],
      },
    });
    const root = mkdtempSync(join(tmpdir(), 'read-side-old-'));
    t.teardown(() => rmSync(root, { recursive: true, force: true }));
    const archive = join(root, 'old.zip');
    await createArchive({
      file: archive,
      dataDir: config.dataDir,
      includes: ALL,
      backupId: null,
      createdAt: new Date(),
      eventStore: runtime.eventStore,
      upTo: await runtime.eventStore.lastPosition(),
      api: null,
    });
    // An archive of format version 1, as this application wrote before the read side was archived.
    const entries = await unzip(archive);
    const manifest = JSON.parse(entries.get('manifest.json')!.content.toString('utf8')) as {
      format_version: number;
      entries: { path: string }[];
    };
    t.notOk(
      manifest.entries.some((e) => e.path.startsWith('read-side/')),
      'no read side without the runtime list',
    );
    const { ZipWriter } = await import('../../../workers/backups/zip-writer.js');
    const old = join(root, 'v1.zip');
    const writer = new ZipWriter(old, new Date());
    for (const [name, entry] of entries) if (name !== 'manifest.json') await writer.add(name, entry.content);
    await writer.add('manifest.json', JSON.stringify({ ...manifest, format_version: 1 }));
    await writer.finish();

    const target = join(root, 'restored');
    const result = await restoreArchive({ archive: old, config: testConfig(target), logger });
    t.equal(result.readSideRestored, 0);
    const restored = await createRuntime(testConfig(target), { modules: appModules, logger, startWorkers: false });
    t.teardown(() => restored.close());
    t.ok(
      restored.projections.startStats().every((s) => s.resumedFrom === 0),
      'the start replays the log',
    );
    t.equal(await itemDocs(restored.documents).count({}), 1, 'and answers');
  },
);

t.test(
  'the read side of a configuration: the read models first, none of them in MongoDB, no vector index in Elasticsearch',
  async (t) => {
    const config = testConfig('/data');
    t.same(
      readSideFiles(config).map((f) => f.name),
      [
        'read-models.sqlite',
        'read-models-text.sqlite',
        'embeddings.sqlite',
        'vector-index.sqlite',
        'chatbot-questions.sqlite',
      ],
    );
    t.same(
      readSideFiles({ ...config, mongoUrl: 'mongodb://x' }).map((f) => f.name),
      ['embeddings.sqlite', 'vector-index.sqlite', 'chatbot-questions.sqlite'],
    );
    t.same(
      readSideFiles({ ...config, elasticsearchUrl: 'http://es:9200' }).map((f) => f.name),
      ['read-models.sqlite', 'read-models-text.sqlite', 'embeddings.sqlite', 'chatbot-questions.sqlite'],
    );
  },
);

t.test(
  'a snapshot folder a crash left behind for a day is removed by the next backup; a recent one is kept',
  async (t) => {
    const { app, config } = await buildTestApp(t, { fixture: { users: ROLE_USERS.slice(0, 1) } });
    const old = join(config.dataDir, 'backups', '.read-side-crashed');
    const recent = join(config.dataDir, 'backups', '.read-side-running');
    for (const folder of [old, recent]) {
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, 'read-models.sqlite'), 'x');
    }
    const dayAndMore = new Date(Date.now() - 25 * 60 * 60 * 1000);
    utimesSync(old, dayAndMore, dayAndMore);
    t.equal((await app.inject({ method: 'POST', url: `/api/backups?${admin}` })).statusCode, 201);
    t.notOk(existsSync(old), 'the abandoned folder is gone');
    t.ok(existsSync(recent), 'one that may belong to a running backup stays');
    t.same(
      readdirSync(join(config.dataDir, 'backups')).filter((n) => n.startsWith('.read-side-')),
      ['.read-side-running'],
      "the backup's own snapshots were removed after it",
    );
  },
);

t.test(
  'when the log does not come back at its archived positions, the snapshots are left out and the start replays',
  async (t) => {
    const { app } = await buildTestApp(t, {
      fixture: {
        users: ROLE_USERS.slice(0, 1),
        sites: [{ id: 1, slug: 'main', title: 'Main' }],
        items: [{ id: 5, title: 'Map' }],
      },
    });
    const res = await app.inject({ method: 'POST', url: `/api/backups?${admin}` });
    const archive = json<{ 'o:path': string }>(res)['o:path'];
    const root = mkdtempSync(join(tmpdir(), 'read-side-gap-'));
    t.teardown(() => rmSync(root, { recursive: true, force: true }));
    // A log with a gap after its first event (as another event store's positions may have): the
    // restored log numbers its events 1, 2, 3..., so the snapshots' checkpoints would name other events.
    const entries = await unzip(archive);
    const manifest = parseManifest(entries.get('manifest.json')!.content.toString('utf8'));
    const lines = entries.get('events.ndjson')!.content.toString('utf8').trim().split('\n');
    const shifted = lines.map((line, i) => {
      const event = JSON.parse(line) as { position: number };
      return JSON.stringify({ ...event, position: i === 0 ? event.position : event.position + 100 });
    });
    const { ZipWriter } = await import('../../../workers/backups/zip-writer.js');
    const gapped = join(root, 'gapped.zip');
    const writer = new ZipWriter(gapped, new Date());
    const written = [];
    for (const entry of manifest.entries) {
      const content =
        entry.path === 'events.ndjson' ? Buffer.from(`${shifted.join('\n')}\n`) : entries.get(entry.path)!.content;
      written.push({ ...(await writer.add(entry.path, content)), part: entry.part });
    }
    await writer.add(
      'manifest.json',
      JSON.stringify({ ...manifest, last_position: manifest.last_position + 100, entries: written }),
    );
    await writer.finish();

    const target = join(root, 'restored');
    const result = await restoreArchive({ archive: gapped, config: testConfig(target), logger });
    t.ok(result.events > 0);
    t.equal(
      result.readSideRestored,
      1,
      'no snapshot put back but the chatbot questions, which are not made from the log',
    );
    t.ok(existsSync(join(target, 'chatbot-questions.sqlite')));
    const restored = await createRuntime(testConfig(target), { modules: appModules, logger, startWorkers: false });
    t.teardown(() => restored.close());
    t.ok(
      restored.projections.startStats().every((s) => s.resumedFrom === 0),
      'the start replays the log',
    );
    t.equal(await itemDocs(restored.documents).count({}), 1, 'and answers');
  },
);
