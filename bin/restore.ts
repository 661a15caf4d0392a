import { resolve } from 'node:path';
import { createLogger } from '../app/logger.js';
import { loadConfig } from '../infra/config.js';
import { restoreArchive, RestoreRefusedError, type RestoreProgress } from '../workers/backups/restore.js';
import { progressBar } from './progress.js';
import { errorMessage } from '../infra/errors.js';

/**
 * `npm run restore -- ARCHIVE.zip`: restores a backup into an empty DATA_DIR. The archive is
 * checked first (its .sha256 file when present, then every entry against manifest.json); a
 * non-empty target or a damaged archive is refused and nothing is written.
 */
async function main(): Promise<number> {
  const file = process.argv[2];
  if (!file) {
    console.error('Usage: npm run restore -- ARCHIVE.zip   (restores into DATA_DIR, which must be empty)');
    return 2;
  }
  const config = { ...loadConfig(), logLevel: process.env.LOG_LEVEL ?? 'warn' };
  const logger = createLogger(config.logLevel);
  const progress: RestoreProgress = { start: (phase, total) => progressBar(phase, total) };
  try {
    const result = await restoreArchive({ archive: resolve(file), config, logger, progress });
    if (!result.checkedChecksumFile)
      console.error('Note: no .sha256 file beside the archive; checked the checksums in manifest.json only.');
    console.log(
      `Restored ${result.events} events and ${result.files} files (backup of ${result.manifest.created_at}, version ${result.manifest.backup_module_version}) into ${config.dataDir}.`,
    );
    console.log(
      result.readSideRestored > 0
        ? `Put back ${result.readSideRestored} read-side file(s) with their checkpoints: the server starts without a rebuild.`
        : 'The archive holds no read-side snapshot usable here: the first start rebuilds the read models from the log.',
    );
    if (result.backupsNotRestored > 0) {
      console.log(
        `${result.backupsNotRestored} backup record(s) left the list: their archives are not part of the restored data (they stay where the old installation kept them).`,
      );
    }
    if (config.mongoUrl)
      console.log('Read models live in MongoDB: run `npm run rebuild` if that database was not empty.');
    return 0;
  } catch (error) {
    if (error instanceof RestoreRefusedError) {
      console.error(`Restore refused, nothing was written: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`Restore failed, the target was left as it was: ${errorMessage(error)}`);
    process.exit(1);
  },
);
