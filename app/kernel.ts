import type { TSchema } from '@sinclair/typebox';
import type { FastifyPluginAsync, RawServerDefault } from 'fastify';
import type { Logger } from 'pino';
import type { CommandContext } from '../commands/command-context.js';
import type { Clock } from '../infra/clock/port.js';
import type { DocumentStore } from '../infra/document-store/port.js';
import type { EventBus } from '../infra/event-bus/port.js';
import type { EventStore } from '../infra/event-store/port.js';
import type { JobQueue } from '../infra/job-queue/port.js';
import type { Infrastructure } from '../infra/select.js';
import type { Projection } from '../projections/projection.js';
import type { ProjectionRunner } from '../projections/runner.js';
import type { BackgroundTasks } from '../infra/background-tasks.js';
import type { AppConfig } from '../infra/config.js';
import type { TypeBoxRequestProvider } from './type-provider.js';

/*
 * The kernel: the types every module shares (the runtime, a module, its routes plugin, its
 * part of the fixture import). Types only, importing no module and nothing that imports a
 * module, so routes, workers and importers depend on it and it on none of them: the
 * composition (app/runtime.ts, app/app.ts, app/modules.ts) stays the only place that knows
 * every module.
 */

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
   * What a module built for this runtime (its services, routes, workers), the instance its
   * create returned, typed by its definition: `runtime.module(chatbotModule).services`. Throws
   * for a module this runtime does not run.
   */
  module<Instance extends ModuleInstance>(definition: AppModule<Instance>): Instance;
  /**
   * Whether this process runs the modules' job workers (the server does; the CLIs do not). A
   * CLI enqueues no background jobs: the embedded queue would only hold them until it exits,
   * and the server's own projections see the CLI's events and enqueue what they need.
   */
  runsWorkers: boolean;
  /**
   * Starts the modules' job workers, once (later calls answer the first one's promise; nothing in
   * a runtime that runs no workers). createRuntime calls it itself unless told the caller will:
   * the server does once it listens, so no job shares the event loop with its start.
   */
  startWorkers(): Promise<void>;
  /** The work owed at a start that no request waits for, with its progress (/health). */
  background: BackgroundTasks;
  /** The context commands run in, for a user (null: the system or an anonymous caller). */
  commandContext(userId: number | null, requestId?: string): CommandContext;
  close(): Promise<void>;
}

/** What every routes plugin is given: the runtime its handlers work on. */
export interface RoutesOptions {
  runtime: Runtime;
}

/**
 * Routes as a Fastify plugin typed through TypeBox (app/type-provider.ts): each handler's
 * request.params, query and body have the types of its route's schemas, so no handler casts
 * them. Registered with app.register, optionally under a prefix; the permission table still
 * keys the full URL.
 */
export type RoutesPlugin<Options extends RoutesOptions = RoutesOptions> = FastifyPluginAsync<Options, RawServerDefault, TypeBoxRequestProvider>;

/**
 * One feature module (platform, blog, assets, ...): its projections and what it imports from a
 * fixture, the same in every runtime, and create, which builds what it runs in one runtime. The
 * app and the CLIs are built from the list in modules.ts.
 */
export interface AppModule<Instance extends ModuleInstance = ModuleInstance> {
  name: string;
  projections?: Projection[];
  importer?: FixtureImporter;
  /**
   * Builds the module's services for this runtime, once, before the projections start, and
   * hands them to its routes, workers and projection listeners: nothing looks them up later.
   * Without it the module runs nothing of its own (projections and an importer only).
   */
  create?(runtime: Runtime): Instance | Promise<Instance>;
}

/** What a module runs in one runtime, with the services its create built. */
export interface ModuleInstance {
  /** Registered once on the app with `{ runtime }`, in the order of modules.ts. */
  routes?: RoutesPlugin;
  /**
   * Started after the projections, in a runtime that runs workers: by the server once it listens.
   * Registers job handlers and timers; work proportional to the collection goes to
   * runtime.background, never awaited here.
   */
  startWorkers?(): Promise<void>;
  /** Called when the runtime closes, in the reverse order of modules.ts. */
  stop?(): Promise<void>;
}

/** The fixture document of CONTRACT.md section 4; every key optional, each module reads its own. */
export type Fixture = Record<string, unknown>;

export interface FixtureProblem {
  /** JSON path of the offending value, e.g. `$.blog.posts[2].status`. */
  path: string;
  message: string;
}

export interface ImportProgress {
  tick(): void;
}

/**
 * A module's part of the fixture import. validate sees the whole fixture (references may cross
 * modules) and the runtime's read models (ids that already exist are refused); import runs the
 * module's commands, the same ones the API uses.
 */
export interface FixtureImporter {
  /** Lower runs first: users 10, sites 20, item sets 30, items 40, media 50, pages 60, blog 70, directory 80. */
  order: number;
  /** The top-level keys of the fixture this module reads, each with its schema (docs/fixture.schema.json is made of these). */
  sections: Record<string, TSchema>;
  validate(fixture: Fixture, runtime: Runtime): Promise<FixtureProblem[]>;
  count(fixture: Fixture): number;
  import(fixture: Fixture, runtime: Runtime, progress: ImportProgress): Promise<void>;
}
