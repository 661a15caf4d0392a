import type { Logger } from 'pino';
import type { ReadModelProgress } from '../contracts/read-model-progress.js';
import type { BackgroundTasks } from '../infra/background-tasks.js';
import type { Clock } from '../infra/clock/port.js';
import type { AppConfig } from '../infra/config.js';
import type { DocumentStore } from '../infra/document-store/port.js';
import type { EventStore } from '../infra/event-store/port.js';
import type { BackupArchives } from '../infra/backup-archives/port.js';
import type { FileAreas } from '../infra/file-storage/port.js';
import type { JobQueue } from '../infra/job-queue/port.js';
import type { CommandContext } from './command-context.js';

/**
 * What a module's importers and workers use of a runtime: its configuration, ports and
 * projections, and the context its commands run in. Types only. What routes take
 * (RouteRuntime, routes/http/routes-plugin.ts) extends it, and the app's `Runtime`
 * (app/kernel.ts) extends that with what only the composition knows (the modules, their
 * instances, starting and closing), so commands/ and workers/ import nothing from app/.
 */
export interface ModuleRuntime {
  config: AppConfig;
  logger: Logger;
  clock: Clock;
  eventStore: EventStore;
  documents: DocumentStore;
  jobs: JobQueue;
  /** The stored files, by area: every FileStorage of the process comes from here. */
  files: FileAreas;
  /** Where backup archives live (DATA_DIR/backups, or FILES_URL's database). */
  backupArchives: BackupArchives;
  /** How far the read models are (the runner: app/kernel.ts's Runtime). */
  projections: ReadModelProgress;
  /** The work owed at a start that no request waits for, with its progress (/health). */
  background: BackgroundTasks;
  /** The context commands run in, for a user (null: the system or an anonymous caller). */
  commandContext(userId: number | null, requestId?: string): CommandContext;
}
