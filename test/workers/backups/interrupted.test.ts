import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { testConfig } from '../../test-config.js';
import { createRuntime } from '../../../app/runtime.js';
import { requestBackup } from '../../../commands/backups/handlers.js';
import { findBackup } from '../../../queries/backups/backups.js';
import { INTERRUPTED_MESSAGE } from '../../../workers/backups/interrupted.js';
import { backupsDir } from '../../../contracts/backups/paths.js';
import { appModules } from '../../../app/modules.js';

const ALL = { include_db: true, include_files: true, include_themes: true, include_modules: true, include_api: true };

t.test('a backup left in progress by a stopped server is failed at the next start', async (t) => {
  const config = testConfig(t.testdir());
  const before = await createRuntime(config, { modules: appModules, startWorkers: false });
  const id = await requestBackup(before.commandContext(1), { includes: ALL, archives: before.backupArchives });
  const record = await findBackup(before.documents, id);
  t.equal(record?.status, 'in_progress');
  await before.close();
  mkdirSync(backupsDir(config.dataDir), { recursive: true });
  const partial = join(backupsDir(config.dataDir), `${record!.filename}.partial`);
  writeFileSync(partial, 'half an archive');

  const after = await createRuntime(config, { modules: appModules });
  t.teardown(() => after.close());
  const now = await findBackup(after.documents, id);
  t.equal(now?.status, 'failed');
  t.equal(now?.error, INTERRUPTED_MESSAGE);
  t.notOk(existsSync(partial), 'the partial archive is removed');
});
