import type { Logger } from 'pino';
import { metadataFor } from '../commands/command-context.js';
import { releaseReservedIds } from '../commands/sequence.js';
import { systemClock, type Clock } from '../infra/clock/port.js';
import { scryptHasher } from '../infra/crypto/secret-hash.js';
import { appendsGuardedBy } from '../infra/event-store/guarded.js';
import { createInfrastructure, startupError, type Infrastructure } from '../infra/select.js';
import { dropReadModelsOfAnotherLog, holdReadModelsToLog } from '../infra/log-identity.js';
import { ProjectionRunner } from '../projections/runner.js';
import type { AppConfig } from '../infra/config.js';
import { createLogger } from './logger.js';
import type { AppModule, ModuleInstance, Runtime } from './kernel.js';
import { BackgroundTasks } from '../infra/background-tasks.js';

export type { Runtime } from './kernel.js';

export interface RuntimeOptions {
  clock?: Clock;
  logger?: Logger;
  /** The feature modules this process runs: bin/ passes app/modules.ts's list, so this file imports no module. */
  modules: readonly AppModule[];
  /** Run the modules' job workers in this process (the server and tests do; the CLIs do not). */
  startWorkers?: boolean;
  /**
   * Leave the workers' start to the caller's `runtime.startWorkers()`: bin/serve.ts calls it once
   * it listens. Otherwise (tests, which answer through app.inject) they start before this returns.
   */
  deferWorkers?: boolean;
  /**
   * The caller rebuilds the read models from this log (bin/rebuild.ts): read models of another
   * log (infra/log-identity.ts) are dropped, not refused, before anything folds into them, and
   * the start does not wait for the projections to catch up (the rebuild replays the log).
   */
  rebuildsReadModels?: boolean;
  /** Let tests replace an adapter (e.g. a failing vector index). */
  infrastructure?: Partial<Infrastructure>;
}

/**
 * Wires the ports to their adapters, starts the projections (which catch their read models up
 * from their checkpoints) and, unless deferred, the workers, and waits until the read models have
 * caught up: a wait bounded by the log written since the checkpoints (none after a clean stop or
 * an import, which applies its own events), and by catchUp's timeout.
 */
export async function createRuntime(config: AppConfig, options: RuntimeOptions): Promise<Runtime> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const hashSecret = scryptHasher(config.secretHashCost);
  const modules = options.modules;
  const infra = { ...(await createInfrastructure(config, logger, clock)), ...options.infrastructure };
  const projections = new ProjectionRunner(
    modules.flatMap((m) => m.projections ?? []),
    infra.bus,
    infra.eventStore,
    infra.documents,
    logger,
  );
  // Commands append nothing while the read models cannot save for a full disk: a 507, not an
  // event acknowledged that its writer could not read back.
  const commandEventStore = appendsGuardedBy(infra.eventStore, () => projections.refuseWritesWhileFull());
  const instances = new Map<AppModule, ModuleInstance>();
  const background = new BackgroundTasks(logger);
  let workersStarted: Promise<void> | null = null;
  const startModuleWorkers = async () => {
    try {
      for (const instance of instances.values()) await instance.startWorkers?.();
    } catch (error) {
      // A queue that cannot be reached says so as the rest of the start does.
      throw startupError(error, config);
    }
  };
  const runtime: Runtime = {
    config,
    logger,
    clock,
    infra,
    eventStore: infra.eventStore,
    documents: infra.documents,
    bus: infra.bus,
    jobs: infra.jobs,
    files: infra.files,
    backupArchives: infra.backupArchives,
    projections,
    modules,
    module<Instance extends ModuleInstance>(definition: AppModule<Instance>): Instance {
      const instance = instances.get(definition);
      if (!instance) throw new Error(`The ${definition.name} module does not run in this runtime.`);
      // The map holds what definition.create returned for this very definition: its Instance.
      return instance as Instance;
    },
    runsWorkers: options.startWorkers !== false,
    startWorkers() {
      if (!runtime.runsWorkers) return Promise.resolve();
      workersStarted ??= startModuleWorkers();
      return workersStarted;
    },
    background,
    commandContext(userId, requestId) {
      return {
        eventStore: commandEventStore,
        documents: infra.documents,
        clock,
        hashSecret,
        userId,
        requestId,
        waitForProjections: (position) => projections.waitFor(position),
      };
    },
    async close() {
      await background.stop();
      await projections.stop();
      for (const instance of [...instances.values()].reverse()) await instance.stop?.();
      // Nothing takes ids any more: the next process goes on from the last one taken. Should
      // the log refuse, the reserve is only a gap in the ids, and the adapters still close.
      // Commands take ids through the guarded store, CLIs and importers through the bare one:
      // each keeps its own reserve.
      for (const store of [commandEventStore, infra.eventStore]) {
        await releaseReservedIds(store, metadataFor(runtime.commandContext(null))).catch((err: unknown) =>
          logger.warn({ err }, 'could not give back the unused reserved ids; they stay unused'),
        );
      }
      await infra.close();
    },
  };
  try {
    // Read models built from another log are refused before anything folds or serves.
    if (options.rebuildsReadModels) await dropReadModelsOfAnotherLog(config, infra, logger);
    else await holdReadModelsToLog(config, infra, clock.now());
    for (const module of modules) instances.set(module, (await module.create?.(runtime)) ?? {});
    await projections.start();
    if (!options.deferWorkers) await runtime.startWorkers();
    if (!options.rebuildsReadModels) {
      await projections.catchUp();
      logReadModelsReady(logger, projections);
    }
  } catch (error) {
    // The event store connects lazily: an unreachable one is found here, by the first read.
    throw startupError(error, config);
  }
  return runtime;
}

/**
 * How the start found the read models: resumed from each projection's checkpoint, and how many
 * events it applied to catch up (0 on a restart after a clean stop; the whole log after a rebuild).
 */
function logReadModelsReady(logger: Logger, projections: ProjectionRunner): void {
  const stats = projections.startStats();
  const applied = stats.reduce((n, s) => n + s.applied, 0);
  const resumedFrom = Math.min(...stats.map((s) => s.resumedFrom), projections.currentPosition);
  logger.info(
    { position: projections.currentPosition, projections: stats },
    `Read models ready at log position ${projections.currentPosition}: resumed from checkpoints at ${resumedFrom} or later, ${applied} event applications to catch up`,
  );
}
