import t from 'tap';
import type { Static } from '@sinclair/typebox';
import { jsonLd, type JsonLdBody } from '../../routes/json-ld.js';
import { BackupRecord, representBackup, type Backup } from '../../routes/backups/representation.js';
import type { BackupDoc } from '../../contracts/backups/documents.js';
import { INCLUDE_FLAGS } from '../../contracts/backups/fields.js';
import { CreateBackupBody, includesFrom } from '../../commands/backups/schemas.js';

/*
 * Replies are typed (issue 49): a backup's representation returns the Static type of the response
 * schema its routes answer with, so a key the schema declares and is not produced, or one produced
 * and not declared, fails `tsc` (which checks test/ too: each @ts-expect-error below is itself an
 * error the day the mistake it marks compiles). The flags are declared once
 * (contracts/backups/fields.ts): the runtime tests check the body and the record follow them.
 */

/** True only when A and B are the same type. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

const exact: Same<ReturnType<typeof representBackup>, Static<typeof BackupRecord>> = true;

const BASE = 'http://test.local';
const AT = '2026-01-02T03:04:05.000Z';
const failed: BackupDoc = {
  _id: 7,
  id: 7,
  filename: 'backup-7-20260102-030405.zip',
  path: '/data/backups/backup-7-20260102-030405.zip',
  storage: 'local',
  includes: includesFrom({ include_api: false }),
  created_by: 1,
  created_at: AT,
  module_version: '1.0.0',
  status: 'failed',
  size: 0,
  checksum: null,
  event_count: null,
  error: 'The disk is full.',
};

/** A response schema with one field more: the representation does not produce it. */
type WithDuration = Backup & { 'o:duration': number };
export function backupWithDuration(): WithDuration {
  // @ts-expect-error 'o:duration' is declared and not produced.
  return representBackup(failed, BASE, '/data');
}

/** The body literal handed to jsonLd is checked against the schema's type, key by key. */
export function backupWithAnUndeclaredKey(doc: BackupDoc): Backup {
  return jsonLd<JsonLdBody<Backup>>(BASE, 'o:Backup', 'backups', doc.id, {
    'o:filename': doc.filename,
    'o:path': doc.path,
    'o:storage': doc.storage,
    'o:size': doc.size,
    'o:status': doc.status,
    'o:checksum': doc.checksum,
    'o:created_by': doc.created_by,
    'o:created_at': doc.created_at,
    'o:metadata': { backup_module_version: doc.module_version, created_at: doc.created_at, includes: doc.includes },
    // @ts-expect-error 'o:owner' is produced and not declared.
    'o:owner': doc.created_by,
  });
}

const keys = (value: object) => Object.keys(value).sort();

t.test("a backup's representation is typed by its schema (checked by tsc)", async (t) => {
  t.equal(exact, true, 'the real check is tsc, which compiles this file');
});

t.test('the record, the body and the defaults follow the flags', async (t) => {
  const record = representBackup(failed, BASE, '/data');
  t.same(keys(record), keys(BackupRecord.properties), 'a failed record shows every key, o:error too');
  t.same(Object.keys(record['o:metadata'].includes), INCLUDE_FLAGS, 'its includes, every flag in order');
  t.same(Object.keys(CreateBackupBody.properties), INCLUDE_FLAGS, 'the body takes every flag');
  t.ok(
    Object.values(CreateBackupBody.properties).every((schema) => schema.default === true),
    'each defaulting to true',
  );
  t.same(includesFrom(undefined), Object.fromEntries(INCLUDE_FLAGS.map((flag) => [flag, true])), 'no body: every part');
});
