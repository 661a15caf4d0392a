/** Where archives are written on this machine: declared with the archives' store (infra/backup-archives/). */
export { archiveFileFor, backupsDir, checksumFileFor } from '../../infra/backup-archives/paths.js';
