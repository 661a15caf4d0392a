import type { FastifyInstance } from 'fastify';
import type { Projection } from '../projections/projection.js';
import type { FixtureImporter } from './fixture.js';
import type { Runtime } from './runtime.js';

/**
 * One feature module (platform, blog, assets, ...): its projections, its routes, what it
 * imports from a fixture, and the workers it runs. The app and the CLIs are built from the list
 * in modules.ts.
 */
export interface AppModule {
  name: string;
  projections?: Projection[];
  routes?: (app: FastifyInstance, runtime: Runtime) => Promise<void>;
  importer?: FixtureImporter;
  /** Runs before projections start (e.g. to create indexes or register listeners). */
  init?(runtime: Runtime): Promise<void>;
  startWorkers?(runtime: Runtime): Promise<void>;
  stop?(runtime: Runtime): Promise<void>;
}
