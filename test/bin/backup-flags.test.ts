import t from 'tap';
import { BACKUP_USAGE, parseBackupFlags } from '../../bin/backup-flags.js';

const ALL = { include_db: true, include_files: true, include_themes: true, include_modules: true, include_api: true };

t.test('no flag includes every part, as an empty POST /api/backups body does', async (t) => {
  t.same(parseBackupFlags([]), { includes: ALL });
});

t.test('each --no-PART flag leaves its part out', async (t) => {
  for (const part of ['db', 'files', 'themes', 'modules', 'api']) {
    t.same(parseBackupFlags([`--no-${part}`]), { includes: { ...ALL, [`include_${part}`]: false } }, `--no-${part}`);
  }
  t.same(
    parseBackupFlags(['--no-files', '--no-api', '--no-files']),
    { includes: { ...ALL, include_files: false, include_api: false } },
    'several, repeated',
  );
});

t.test('anything else is refused by name with the usage', async (t) => {
  for (const arg of ['--no-everything', '--files', 'db', '--no-db=1', '-n']) {
    t.same(parseBackupFlags(['--no-db', arg]), { error: `Unknown argument "${arg}". ${BACKUP_USAGE}` }, arg);
  }
});
