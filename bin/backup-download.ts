import { resolve } from 'node:path';
import { loadConfig } from '../infra/config.js';
import { appModules } from '../app/modules.js';
import { createRuntime } from '../app/runtime.js';
import { downloadArchive, DownloadRefusedError } from '../workers/backups/download-archive.js';
import { parseBackupDownloadArgs } from './backup-download-flags.js';
import { progressBar, type ProgressBar } from './progress.js';
import { errorMessage } from '../infra/errors.js';

/**
 * `npm run backup:download -- ID DEST.zip`: copies a complete backup's archive out of its store
 * (DATA_DIR/backups, or FILES_URL's database, shared by every server) to a local file, with
 * `DEST.zip.sha256` beside it, for `npm run restore`. Checked against the record's checksum; an
 * existing DEST is never overwritten. One line on stdout when done; on failure one on stderr and
 * exit code 1 (2 for a usage error).
 */
async function main(): Promise<number> {
  const args = parseBackupDownloadArgs(process.argv.slice(2));
  if ('error' in args) {
    console.error(args.error);
    return 2;
  }
  const config = { ...loadConfig(), logLevel: process.env.LOG_LEVEL ?? 'fatal' };
  const runtime = await createRuntime(config, { modules: appModules, startWorkers: false });
  let bar: ProgressBar | undefined;
  try {
    const target = resolve(args.dest);
    const done = await downloadArchive(runtime, args.id, target, {
      start: (total) => (bar = progressBar('download', total)),
      tick: (amount) => bar?.tick(amount),
    });
    bar?.stop();
    console.log(`Backup ${args.id} (${done.filename}, ${done.size} bytes, ${done.checksum}) written to ${target}.`);
    return 0;
  } catch (error) {
    bar?.stop();
    if (error instanceof DownloadRefusedError) {
      console.error(`Download refused: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    await runtime.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`Download failed, nothing was written: ${errorMessage(error)}`);
    process.exit(1);
  },
);
