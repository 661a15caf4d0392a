import type { CommandContext } from '../command-context.js';
import { handleCommand } from '../handle-command.js';
import { nextId } from '../sequence.js';
import { backupDecider } from './decider.js';
import { backupStream } from '../../contracts/backups/events.js';
import type { BackupIncludes } from '../../contracts/backups/fields.js';
import type { BackupArchives } from '../../infra/backup-archives/port.js';
import { BACKUP_MODULE_VERSION } from './module-version.js';

/** `backup-7-20260102-030405.zip`: the id keeps names unique, the time helps people sort them. */
export function archiveFilename(id: number, at: Date): string {
  const stamp = at.toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
  return `backup-${id}-${stamp}.zip`;
}

/** Records a new backup as in progress and returns its id; the archive is the worker's job. */
export async function requestBackup(
  ctx: CommandContext,
  input: { includes: BackupIncludes; archives: Pick<BackupArchives, 'kind' | 'location'> },
): Promise<number> {
  const id = await nextId(ctx, 'backup');
  const now = ctx.clock.now();
  const filename = archiveFilename(id, now);
  await handleCommand(ctx, {
    stream: backupStream(id),
    decider: backupDecider,
    command: {
      type: 'RequestBackup',
      data: {
        id,
        filename,
        path: input.archives.location(filename),
        storage: input.archives.kind,
        includes: input.includes,
        created_by: ctx.userId,
        created_at: now.toISOString(),
        module_version: BACKUP_MODULE_VERSION,
      },
    },
  });
  return id;
}

export async function completeBackup(
  ctx: CommandContext,
  id: number,
  result: { size: number; checksum: string; event_count: number },
): Promise<void> {
  await handleCommand(ctx, {
    stream: backupStream(id),
    decider: backupDecider,
    command: { type: 'CompleteBackup', data: result },
  });
}

export async function failBackup(ctx: CommandContext, id: number, error: string): Promise<void> {
  await handleCommand(ctx, {
    stream: backupStream(id),
    decider: backupDecider,
    command: { type: 'FailBackup', data: { error } },
  });
}

export async function deleteBackup(ctx: CommandContext, id: number): Promise<void> {
  await handleCommand(ctx, {
    stream: backupStream(id),
    decider: backupDecider,
    command: { type: 'DeleteBackup', data: {} },
  });
}
