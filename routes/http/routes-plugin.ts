import type { FastifyPluginAsync, RawServerDefault } from 'fastify';
import type { ModuleRuntime } from '../../commands/module-runtime.js';
import type { Infrastructure } from '../../infra/select.js';
import type { TypeBoxRequestProvider } from './type-provider.js';

/*
 * What a routes plugin is given and how it is typed. Types only. Routes sit below the app, so
 * they name what they use of a runtime here rather than the app's Runtime (app/kernel.ts), which
 * extends it with what only the composition knows (the modules, starting and closing).
 */

/**
 * What handlers use of a runtime: what importers and workers take (ModuleRuntime,
 * commands/module-runtime.ts) and the connections a request may share (the rate limits' Redis).
 */
export interface RouteRuntime extends ModuleRuntime {
  infra: Infrastructure;
}

/** What every routes plugin is given: the runtime its handlers work on. */
export interface RoutesOptions {
  runtime: RouteRuntime;
}

/**
 * Routes as a Fastify plugin typed through TypeBox (routes/http/type-provider.ts): each handler's
 * request.params, query and body have the types of its route's schemas, so no handler casts
 * them. Registered with app.register, optionally under a prefix; the permission table still
 * keys the full URL.
 */
export type RoutesPlugin<Options extends RoutesOptions = RoutesOptions> = FastifyPluginAsync<
  Options,
  RawServerDefault,
  TypeBoxRequestProvider
>;
