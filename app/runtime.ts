import type { Logger } from 'pino';
import { join } from 'node:path';
import { KeyedExclusion } from '../commands/keyed-exclusion.js';
import { SlugClaims } from '../commands/slug-claims.js';
import { metadataFor, type CommandContext } from '../commands/command-context.js';
import { releaseReservedIds } from '../commands/sequence.js';
import { systemClock, type Clock } from '../infra/clock/port.js';
import type { DocumentStore } from '../infra/document-store/port.js';
import type { EventBus } from '../infra/event-bus/port.js';
import type { EventStore } from '../infra/event-store/port.js';
import type { JobQueue } from '../infra/job-queue/port.js';
import { createInfrastructure, startupError, type Infrastructure } from '../infra/select.js';
import { ProjectionRunner } from '../projections/runner.js';
import type { AppConfig } from './config.js';
import { createLogger } from './logger.js';
import type { AppModule } from './module.js';
import { appModules } from './modules.js';

export interface Runtime {
  config: AppConfig;
  logger: Logger;
  clock: Clock;
  infra: Infrastructure;
  eventStore: EventStore;
  documents: DocumentStore;
  bus: EventBus;
  jobs: JobQueue;
  projections: ProjectionRunner;
  modules: readonly AppModule[];
  /**
   * Whether this process runs the modules' job workers (the server does; the CLIs do not). A
   * CLI enqueues no background jobs: the embedded queue would only hold them until it exits,
   * and the server's own projections see the CLI's events and enqueue what they need.
   */
  runsWorkers: boolean;
  /** The context commands run in, for a user (null: the system or an anonymous caller). */
  commandContext(userId: number | null, requestId?: string): CommandContext;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  clock?: Clock;
  logger?: Logger;
  modules?: readonly AppModule[];
  /** Start the modules' job workers in this process (the server does; the import CLI too). */
  startWorkers?: boolean;
  /** Let tests replace an adapter (e.g. a failing vector index). */
  infrastructure?: Partial<Infrastructure>;
}

/**
 * Wires the ports to their adapters, starts the projections (which rebuild in-memory read
 * models from the log) and the workers, and waits until the read models have caught up.
 */
export async function createRuntime(config: AppConfig, options: RuntimeOptions = {}): Promise<Runtime> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const modules = options.modules ?? appModules;
  const infra = { ...(await createInfrastructure(config, logger)), ...options.infrastructure };
  const projections = new ProjectionRunner(
    modules.flatMap((m) => m.projections ?? []),
    infra.bus,
    infra.eventStore,
    infra.documents,
    logger,
  );
  const exclusive = new KeyedExclusion();
  const slugClaims = new SlugClaims();
  const runtime: Runtime = {
    config,
    logger,
    clock,
    infra,
    eventStore: infra.eventStore,
    documents: infra.documents,
    bus: infra.bus,
    jobs: infra.jobs,
    projections,
    modules,
    runsWorkers: options.startWorkers !== false,
    commandContext(userId, requestId) {
      return {
        eventStore: infra.eventStore,
        documents: infra.documents,
        clock,
        userId,
        requestId,
        waitForProjections: (position) => projections.waitFor(position),
        exclusive,
        slugClaims,
      };
    },
    async close() {
      await projections.stop();
      for (const module of [...modules].reverse()) await module.stop?.(runtime);
      // Nothing takes ids any more: the next process goes on from the last one taken. Should
      // the log refuse, the reserve is only a gap in the ids, and the adapters still close.
      await releaseReservedIds(infra.eventStore, metadataFor(runtime.commandContext(null))).catch((err: unknown) =>
        logger.warn({ err }, 'could not give back the unused reserved ids; they stay unused'),
      );
      await infra.close();
    },
  };
  try {
    for (const module of modules) await module.init?.(runtime);
    await projections.start();
    if (runtime.runsWorkers) {
      for (const module of modules) await module.startWorkers?.(runtime);
    }
    await projections.catchUp();
  } catch (error) {
    // The event store connects lazily: an unreachable one is found here, by the first read.
    throw startupError(error);
  }
  return runtime;
}

export function filesDir(config: AppConfig): string {
  return join(config.dataDir, 'files');
}
