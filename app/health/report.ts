import type { BackgroundTaskReport } from '../../infra/background-tasks.js';
import type { AppConfig } from '../../infra/config.js';
import type { Runtime } from '../runtime.js';
import type { QueueBacklog } from '../../infra/job-queue/port.js';
import type { SessionStore } from '../../infra/session-store/port.js';
import type { VectorIndex } from '../../infra/vector-index/port.js';
import type { ReadingProgress } from '../../queries/chatbot/reading-progress.js';

/** How far the chatbot has read the collection, and the writes that only save work it skipped on a refusing disk. */
export type ChatbotHealth = ReadingProgress & { questions_not_recorded: number; embeddings_not_cached: number };
import { nextRun } from '../../infra/schedule/cron.js';
import { lastScheduledBackup } from '../../queries/backups/schedule.js';
import { type LastScheduledBackupDoc } from '../../contracts/backups/documents.js';
import { answers } from './probe.js';
import { imageCounts, type ImageCounts } from '../../queries/platform/media-files.js';
import { cohereReachable } from './provider-probe.js';
import { storageReport, type StorageReport } from './storage.js';
import { PORTS, type PortName } from '../../routes/health/ports.js';

export type Adapter = 'embedded' | 'production';

export interface PortHealth {
  adapter: Adapter;
  reachable: boolean;
}

/** Without these nothing can be read or written: /health answers 503 while either is away. */
export const CORE_PORTS: readonly PortName[] = ['event_store', 'document_store'];

export interface HealthReport {
  /** `unavailable`: a core store is away; `degraded`: another port is away, a projection is parked, or the storage refuses writes. */
  status: 'ok' | 'degraded' | 'unavailable';
  ports: Record<PortName, PortHealth>;
  /** The log's newest position, how far the read models hold it, and the difference (the lag). */
  log: { last_position: number | null; handled_position: number | null; lag: number | null };
  /** stale: parked, so its read model lacks the log's events after its position. */
  projections: { name: string; position: number; stale: boolean }[];
  parked: { name: string; position: number; event_type: string; error: string; since: string }[];
  jobs: { queues: QueueBacklog[] | null };
  /** BACKUP_SCHEDULE: null when unset. */
  backup_schedule: {
    expression: string;
    timezone: string;
    /** ISO 8601, by the runtime's clock. */
    next_run: string;
    last: {
      tick: string;
      status: 'running' | 'complete' | 'failed';
      backup_id: number | null;
      error: string | null;
    } | null;
  } | null;
  /** The work a start owes that no request waits for (the vector index refilled after an import), with its progress. */
  background: BackgroundTaskReport[];
  storage: StorageReport;
  /** How far the chatbot has read the collection; null when the document store did not answer. */
  chatbot: ChatbotHealth | null;
  /** Media images still owed their derivatives, and those that could not be decoded; null when the document store did not answer. */
  images: ImageCounts | null;
}

/** A lookup of a token no session can have: a read of the store that changes nothing. */
const PROBE_TOKEN = 'health-probe';

function adapterOf(config: AppConfig, port: PortName): Adapter {
  const production: Record<PortName, unknown> = {
    // EVENTSTORE_URL: PostgreSQL (postgres://) or EventStoreDB (esdb://), both production adapters.
    event_store: config.eventStoreUrl,
    event_bus: config.kafkaBrokers?.length,
    document_store: config.mongoUrl,
    vector_index: config.elasticsearchUrl,
    job_queue: config.redisUrl,
    embedder: config.cohere,
    session_store: config.redisUrl,
    // FILES_URL: PostgreSQL; unset, DATA_DIR/files (a volume every server mounts, or one server).
    file_storage: config.filesUrl,
  };
  return production[port] ? 'production' : 'embedded';
}

async function backlogOf(runtime: Runtime): Promise<QueueBacklog[] | null> {
  if (!runtime.jobs.backlog) return null;
  let queues: QueueBacklog[] | null = null;
  const told = await answers(async () => {
    queues = await (runtime.jobs.backlog as () => Promise<QueueBacklog[]>).call(runtime.jobs);
  });
  return told ? queues : null;
}

/**
 * The ports no runtime holds, asked for when checked: the chatbot module builds the vector
 * index, and a test may swap it after the app is built.
 */
export interface ModulePorts {
  vectorIndex(): VectorIndex;
  /** How far the chatbot has read the collection (queries/chatbot/reading-progress.ts). */
  chatbotReading(): Promise<ChatbotHealth>;
}

/**
 * Each port's adapter and whether a cheap check of it answers within a second, the projections'
 * positions against the log's, the parked ones, and the job queues' backlog. Checks run side by
 * side, so the report takes about one timeout at worst.
 */
export async function healthReport(
  runtime: Runtime,
  sessions: SessionStore,
  modulePorts: ModulePorts,
): Promise<HealthReport> {
  const { config } = runtime;
  let lastPosition: number | null = null;
  const checks: Record<PortName, () => Promise<boolean>> = {
    event_store: () =>
      answers(async () => {
        lastPosition = await runtime.eventStore.lastPosition();
      }),
    // The embedded bus is the event store's own subscription: it answers when the store does.
    event_bus: () =>
      runtime.bus.ping
        ? answers(() => (runtime.bus.ping as () => Promise<void>).call(runtime.bus))
        : answers(() => runtime.eventStore.lastPosition()),
    document_store: () => answers(() => runtime.documents.collection('_checkpoints').count()),
    vector_index: () => answers(() => modulePorts.vectorIndex().size()),
    job_queue: () =>
      runtime.jobs.ping
        ? answers(() => (runtime.jobs.ping as () => Promise<void>).call(runtime.jobs))
        : Promise.resolve(true),
    // The local model runs in this process; Cohere is asked whether the key is good.
    embedder: () => (config.cohere ? cohereReachable(config.cohere) : Promise.resolve(true)),
    session_store: () => answers(() => sessions.userIdFor(PROBE_TOKEN)),
    file_storage: () => answers(() => runtime.files.check()),
  };
  let handled: number | null = null;
  const [reachable, , queues, schedule, reading, images] = await Promise.all([
    Promise.all(PORTS.map((port) => checks[port]())),
    // The position the read models hold (a read of the checkpoints when servers share them).
    answers(async () => {
      handled = await runtime.projections.handledPosition();
    }),
    backlogOf(runtime),
    backupScheduleOf(runtime),
    readingOf(modulePorts),
    imagesOf(runtime),
  ]);
  const ports = Object.fromEntries(
    PORTS.map((port, i) => [port, { adapter: adapterOf(config, port), reachable: reachable[i] }]),
  ) as Record<PortName, PortHealth>;
  const status = runtime.projections.status();
  const parked = status.flatMap((p) =>
    p.parked
      ? [
          {
            name: p.name,
            position: p.parked.position,
            event_type: p.parked.eventType,
            error: p.parked.error,
            since: p.parked.since,
          },
        ]
      : [],
  );
  const coreDown = CORE_PORTS.some((port) => !ports[port].reachable);
  const anyDown = PORTS.some((port) => !ports[port].reachable);
  const storage = storageReport(runtime);
  return {
    status: coreDown ? 'unavailable' : anyDown || parked.length > 0 || storage.refusing.length > 0 ? 'degraded' : 'ok',
    ports,
    log: logProgress(lastPosition, handled),
    projections: status.map((p) => ({ name: p.name, position: p.position, stale: p.parked !== null })),
    parked,
    jobs: { queues },
    backup_schedule: schedule,
    background: runtime.background.report(),
    storage,
    chatbot: reading,
    images,
  };
}

/**
 * The lag: events the log holds that the read models have not folded yet. Never below 0: the
 * newest position is read at about the same moment as the handled one, and may be the older.
 */
function logProgress(last: number | null, handled: number | null): HealthReport['log'] {
  return {
    last_position: last,
    handled_position: handled,
    lag: last === null || handled === null ? null : Math.max(0, last - handled),
  };
}

async function imagesOf(runtime: Runtime): Promise<ImageCounts | null> {
  let counts: ImageCounts | null = null;
  await answers(async () => {
    counts = await imageCounts(runtime.documents);
  });
  return counts;
}

async function readingOf(modulePorts: ModulePorts): Promise<ChatbotHealth | null> {
  let progress: ChatbotHealth | null = null;
  await answers(async () => {
    progress = await modulePorts.chatbotReading();
  });
  return progress;
}

/** The schedule, its next run, and how the last run went (null while the read models do not answer). */
async function backupScheduleOf(runtime: Runtime): Promise<HealthReport['backup_schedule']> {
  const schedule = runtime.config.backupSchedule;
  if (!schedule) return null;
  let last: LastScheduledBackupDoc | null = null;
  await answers(async () => {
    last = await lastScheduledBackup(runtime.documents);
  });
  const told = last as LastScheduledBackupDoc | null;
  return {
    expression: schedule.expression,
    timezone: schedule.timezone,
    next_run: nextRun(schedule, runtime.clock.now()).toISOString(),
    last: told ? { tick: told.tick, status: told.status, backup_id: told.backup_id, error: told.error } : null,
  };
}
