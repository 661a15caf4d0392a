import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../../app/runtime.js';
import { directoryAccessHook } from './access.js';
import { directoryAdminRoutes } from './admin.js';
import { directoryApiRoutes } from './api-v1.js';
import { directoryLinkRoutes } from './links.js';
import { directoryPreflight } from './preflight.js';
import { registerTokenRateLimit } from './rate-limit.js';
import { widgetRoutes } from './widget.js';

/**
 * The directory: the token-protected /api/v1/ API in its own scope (access hook and rate limit
 * apply there only), the patron links, the admin endpoints and the widget script.
 */
export async function directoryRoutes(app: FastifyInstance, runtime: Runtime): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('onRequest', directoryAccessHook(runtime));
    await registerTokenRateLimit(scope, runtime);
    scope.options('/api/v1/*', { schema: { hide: true }, config: { rateLimit: false } }, directoryPreflight(runtime));
    await directoryApiRoutes(scope, runtime);
  });
  await directoryLinkRoutes(app, runtime);
  await directoryAdminRoutes(app, runtime);
  await widgetRoutes(app);
}
