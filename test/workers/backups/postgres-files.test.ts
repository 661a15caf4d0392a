import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import pino from 'pino';
import t from 'tap';
import { FILE_AREAS, type FileAreas } from '../../../infra/file-storage/port.js';
import { PostgresFileAreas } from '../../../infra/file-storage/postgres.js';
import { restoreArchive, RestoreRefusedError } from '../../../workers/backups/restore.js';
import { buildTestApp, json, keyFor, ROLE_USERS, sessionFor } from '../../helper.js';
import { testConfig } from '../../test-config.js';
import { dropSchema, freshSchema } from '../../infra/event-store/postgres-schemas.js';
import { PNG, uploaded } from '../../routes/assets/support.js';
import { derivativesMade, photograph, uploadMedia } from '../../routes/platform/media-support.js';
import { unzip } from './zip-helpers.js';

/** A postgres:// URL of a database the tests may create schemas in (.ci/run sets it when PostgreSQL answers). */
const URL = process.env.PG_EVENTSTORE_URL;
const logger = pino({ level: 'silent' });
const admin = keyFor('global_admin');

interface Context {
  teardown(fn: () => unknown): void;
}

/** Stored files in a schema of their own, dropped after the test. */
function filesOnSchema(t: Context, copiesDir: string): PostgresFileAreas {
  const url = URL ?? '';
  const schema = freshSchema();
  const files = new PostgresFileAreas(url, { schema, copiesDir });
  t.teardown(async () => {
    await files.close();
    await dropSchema(url, schema);
  });
  return files;
}

async function bytesOf(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(Buffer.isBuffer(part) ? part : Buffer.from(String(part)));
  return Buffer.concat(parts);
}

/** Every stored file, `files/<area>/<name>` as an archive names it, with its SHA-256. */
async function storedFiles(files: FileAreas): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const area of FILE_AREAS) {
    for (const { storedName } of await files.area(area).list()) {
      const bytes = await bytesOf(files.area(area).openRead(storedName));
      out.set(`files/${area}/${storedName}`, createHash('sha256').update(bytes).digest('hex'));
    }
  }
  return out;
}

t.test(
  'backups of files kept in PostgreSQL: archived through the storage, restored into it',
  { skip: URL ? false : 'PG_EVENTSTORE_URL unset (a postgres:// URL of a database to test against)' },
  async (t) => {
    const root = t.testdir();
    const files = filesOnSchema(t, join(root, 'copies'));
    const { app, runtime, config } = await buildTestApp(t, {
      fixture: { users: ROLE_USERS, items: [{ id: 100, title: 'Item' }] },
      infrastructure: { files },
    });
    const editor = await sessionFor(app, 'editor');
    await uploaded(app, editor, 'map.png', PNG);
    const media = await uploadMedia(
      app,
      keyFor('editor'),
      { 'o:item': { 'o:id': 100 } },
      {
        filename: 'photo.jpg',
        content: await photograph(300, 200),
      },
    );
    t.equal(media.statusCode, 201, media.body);
    await derivativesMade(runtime);
    const original = await storedFiles(files);
    t.equal(original.size, 6, 'an asset, and a media original with its three JPEGs and pyramid');
    t.notOk(existsSync(join(config.dataDir, 'files')), 'nothing on the local disk');

    const res = await app.inject({ method: 'POST', url: `/api/backups?${admin}` });
    t.equal(res.statusCode, 201, res.body);
    const archive = json<{ 'o:path': string }>(res)['o:path'];
    const entries = await unzip(archive);
    const archived = new Map(
      [...entries]
        .filter(([name]) => name.startsWith('files/'))
        .map(([name, entry]) => [name, createHash('sha256').update(entry.content).digest('hex')]),
    );
    t.same(archived, original, 'files/<area>/<name>, as the disk would have them, byte for byte');

    const target = join(root, 'restored');
    const restoredFiles = filesOnSchema(t, join(root, 'restored-copies'));
    const result = await restoreArchive({ archive, config: testConfig(target), logger, files: restoredFiles });
    t.equal(result.files, 6);
    t.same(await storedFiles(restoredFiles), original, 'every file back in the database, under its name');
    t.notOk(existsSync(join(target, 'files')), 'and none on the restored DATA_DIR');

    const again = join(root, 'again');
    mkdirSync(again);
    await t.rejects(
      restoreArchive({ archive, config: testConfig(again), logger, files: restoredFiles }),
      new RestoreRefusedError('The target file storage (FILES_URL) is not empty.'),
    );
    t.same(readdirSync(again), [], 'a refused restore leaves the target as it was');
    t.same(await storedFiles(restoredFiles), original, 'and the files already there');
  },
);
