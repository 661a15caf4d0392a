import t from 'tap';
import { backupDecider, type BackupCommand } from '../../../commands/backups/decider.js';
import type { BackupEvent, BackupRequested } from '../../../contracts/backups/events.js';
import { ConflictError, NotFoundError } from '../../../infra/errors.js';

const requestedData: BackupRequested['data'] = {
  id: 7,
  filename: 'backup-7-20260102-030405.zip',
  path: '/data/backups/backup-7-20260102-030405.zip',
  storage: 'local',
  includes: { include_db: true, include_files: false, include_themes: true, include_modules: true, include_api: false },
  created_by: 1,
  created_at: '2026-01-02T03:04:05.000Z',
  module_version: '0.1.0',
};
const requested: BackupEvent = { type: 'BackupRequested', data: requestedData };
const completed: BackupEvent = {
  type: 'BackupCompleted',
  data: { id: 7, size: 10, checksum: 'sha256:ab', event_count: 3 },
};
const failed: BackupEvent = { type: 'BackupFailed', data: { id: 7, error: 'disk full' } };
const deleted: BackupEvent = { type: 'BackupDeleted', data: { id: 7 } };

/** given(events).when(command): the events decided, or the error thrown. */
function given(events: BackupEvent[]) {
  const state = events.reduce((s, e) => backupDecider.evolve(s, e), backupDecider.initialState());
  return { when: (command: BackupCommand) => () => backupDecider.decide(command, state) };
}

const complete: BackupCommand = { type: 'CompleteBackup', data: { size: 10, checksum: 'sha256:ab', event_count: 3 } };
const fail: BackupCommand = { type: 'FailBackup', data: { error: 'disk full' } };
const remove: BackupCommand = { type: 'DeleteBackup', data: {} };

t.test('a request on a new stream records the backup as requested', async (t) => {
  t.same(given([]).when({ type: 'RequestBackup', data: requestedData })(), [requested]);
  t.throws(given([requested]).when({ type: 'RequestBackup', data: requestedData }), ConflictError, 'never twice');
});

t.test('an in-progress backup completes or fails, once', async (t) => {
  t.same(given([requested]).when(complete)(), [completed]);
  t.same(given([requested]).when(fail)(), [failed]);
  t.throws(given([requested, completed]).when(complete), ConflictError);
  t.throws(given([requested, completed]).when(fail), ConflictError);
  t.throws(given([requested, failed]).when(complete), ConflictError);
  t.throws(given([]).when(complete), NotFoundError);
  t.throws(given([requested, deleted]).when(complete), NotFoundError, 'deleted while running: nothing to complete');
});

t.test('any existing record may be deleted, once', async (t) => {
  t.same(given([requested]).when(remove)(), [deleted], 'also one stuck in progress');
  t.same(given([requested, completed]).when(remove)(), [deleted]);
  t.same(given([requested, failed]).when(remove)(), [deleted]);
  t.throws(given([]).when(remove), NotFoundError);
  t.throws(given([requested, completed, deleted]).when(remove), NotFoundError);
});
