import { DependencyUnavailableError, errorField } from '../../infra/errors.js';

/**
 * What a person can act on when an archive cannot be written, without paths or driver text
 * (responses never show those).
 */
export function backupFailureMessage(error: unknown): string {
  if (error instanceof DependencyUnavailableError)
    return `The ${error.dependency} keeping backup archives is unavailable; try again later.`;
  const code = errorField(error, 'code');
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return 'There is not enough disk space for the backup archive.';
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return 'The backup folder or a file to archive cannot be accessed (permissions).';
    case 'ENOTDIR':
    case 'EEXIST':
    case 'EISDIR':
      return 'The backup folder cannot be used: something else is in its place.';
    case 'EMFILE':
    case 'ENFILE':
      return 'Too many files are open on the server; try again later.';
    default:
      return 'The backup archive could not be written.';
  }
}
