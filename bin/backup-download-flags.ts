export const BACKUP_DOWNLOAD_USAGE =
  "Usage: npm run backup:download -- ID DEST.zip   (a complete backup's archive, from wherever it is stored)";

/** The backup's id and the file to write, exactly two arguments; anything else is refused with the usage. */
export function parseBackupDownloadArgs(args: readonly string[]): { id: number; dest: string } | { error: string } {
  const [id, dest, ...rest] = args;
  if (id === undefined || dest === undefined || rest.length > 0) return { error: BACKUP_DOWNLOAD_USAGE };
  if (!/^[1-9][0-9]{0,15}$/.test(id)) return { error: `"${id}" is not a backup id. ${BACKUP_DOWNLOAD_USAGE}` };
  if (dest === '') return { error: BACKUP_DOWNLOAD_USAGE };
  return { id: Number(id), dest };
}
