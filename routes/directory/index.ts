import type { RoutesPlugin } from '../http/routes-plugin.js';
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
export const directoryRoutes: RoutesPlugin = async (app, { runtime }) => {
  await app.register(tokenProtectedApi, { runtime, prefix: '/api/v1' });
  await app.register(directoryLinkRoutes, { runtime, prefix: '/directory' });
  await app.register(directoryAdminRoutes, { runtime, prefix: '/api/directory' });
  await app.register(widgetRoutes, { runtime });
};

/** /api/v1/: the token check and the token's rate limit apply to these routes only. */
const tokenProtectedApi: RoutesPlugin = async (scope, { runtime }) => {
  scope.addHook('onRequest', directoryAccessHook(runtime));
  await registerTokenRateLimit(scope, runtime);
  scope.options('/*', { schema: { hide: true } }, directoryPreflight(runtime));
  await scope.register(directoryApiRoutes, { runtime });
};
