import t from 'tap';
import { BACKUP_DOWNLOAD_USAGE, parseBackupDownloadArgs } from '../../bin/backup-download-flags.js';

t.test('an id and a destination, nothing else', async (t) => {
  t.same(parseBackupDownloadArgs(['7', 'out.zip']), { id: 7, dest: 'out.zip' });
  t.same(parseBackupDownloadArgs([]), { error: BACKUP_DOWNLOAD_USAGE });
  t.same(parseBackupDownloadArgs(['7']), { error: BACKUP_DOWNLOAD_USAGE });
  t.same(parseBackupDownloadArgs(['7', 'a.zip', 'b.zip']), { error: BACKUP_DOWNLOAD_USAGE });
  t.same(parseBackupDownloadArgs(['7', '']), { error: BACKUP_DOWNLOAD_USAGE });
  for (const bad of ['0', '-1', 'x', '1.5', '01'])
    t.same(
      parseBackupDownloadArgs([bad, 'out.zip']),
      { error: `"${bad}" is not a backup id. ${BACKUP_DOWNLOAD_USAGE}` },
      bad,
    );
});
