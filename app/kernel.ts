import type { FixtureImporter } from '../commands/fixture.js';
import type { EventBus } from '../infra/event-bus/port.js';
import type { Projection } from '../projections/projection.js';
import type { ProjectionRunner } from '../projections/runner.js';
import type { RouteRuntime, RoutesPlugin } from '../routes/http/routes-plugin.js';

/*
 * The kernel: the types of the composition (the runtime, a module, what it runs). Types only,
 * importing no module and nothing that imports a module: the composition (app/runtime.ts,
 * app/app.ts, app/modules.ts) stays the only place that knows every module. What routes take of
 * a runtime is below, in routes/http/routes-plugin.ts; what importers and workers take, in
 * commands/module-runtime.ts; the fixture importer's contract, in commands/fixture.ts.
 */

/**
 * A runtime: the ports, projections and command context every module uses (ModuleRuntime,
 * commands/module-runtime.ts, which importers and workers take; RouteRuntime,
 * routes/http/routes-plugin.ts, which routes take), with the modules it runs.
 */
export interface Runtime extends RouteRuntime {
  bus: EventBus;
  /** The runner itself: the modules see what ModuleRuntime says of it (ReadModelProgress). */
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
  close(): Promise<void>;
}

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
