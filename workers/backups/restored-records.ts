import { existsSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { EventMetadata, EventStore } from '../../infra/event-store/port.js';
import type { BackupArchiveNotRestored } from '../../contracts/backups/events.js';
import type { EventLine } from './event-log.js';
import { archiveFileFor } from '../../contracts/backups/paths.js';

export const NOT_RESTORED_REASON =
  'The archive is not part of the restored data: it stays where the installation that made it kept it.';

/** What a BackupRequested line must carry for its record to be followed (a line of an archive is checked, not trusted). */
const RequestedData = Type.Object({ id: Type.Number(), filename: Type.String() });

interface SeenBackup {
  streamId: string;
  id: number;
  filename: string;
  version: number;
  removed: boolean;
}

/**
 * The backup records of a log being restored, followed line by line as the restore replays it,
 * so the records whose archives the restored data lacks can be closed without reading the log again.
 */
export class RestoredBackupRecords {
  private readonly seen = new Map<string, SeenBackup>();

  see(line: EventLine): void {
    if (!line.streamId.startsWith('backup-')) return;
    const data = line.data;
    const known = this.seen.get(line.streamId);
    if (line.type === 'BackupRequested' && Value.Check(RequestedData, data)) {
      this.seen.set(line.streamId, {
        streamId: line.streamId,
        id: data.id,
        filename: data.filename,
        version: line.streamVersion,
        removed: false,
      });
      return;
    }
    if (!known) return;
    known.version = line.streamVersion;
    if (line.type === 'BackupDeleted' || line.type === 'BackupArchiveNotRestored') known.removed = true;
  }

  /**
   * Records BackupArchiveNotRestored for every listed backup whose archive is not in the
   * restored DATA_DIR's backups folder; answers how many.
   */
  async closeMissing(store: EventStore, dataDir: string, metadata: EventMetadata): Promise<number> {
    let closed = 0;
    for (const backup of this.seen.values()) {
      if (backup.removed || existsSync(archiveFileFor(dataDir, backup.filename))) continue;
      const event: BackupArchiveNotRestored = {
        type: 'BackupArchiveNotRestored',
        data: { id: backup.id, reason: NOT_RESTORED_REASON },
      };
      await store.append(backup.streamId, [{ ...event, metadata }], backup.version);
      closed += 1;
    }
    return closed;
  }
}
