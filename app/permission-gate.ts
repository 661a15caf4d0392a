import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ForbiddenError, UnauthorizedError } from '../infra/errors.js';
import type { AuthMode } from '../routes/http/auth.js';
import { PERMISSIONS, permissionFor, refusalFor, type Permission, type PermissionTable } from './permissions.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The permission table's entry of this route, per method (app/permissions.ts). */
    permissions?: Readonly<Record<string, Permission>>;
  }
}

/** Each table entry's mode, worked out once: the gate runs on every request. */
const authModes = new WeakMap<Permission, AuthMode | null>();

function authModeOf(permission: Permission): AuthMode | null {
  let mode = authModes.get(permission);
  if (mode === undefined) {
    const apiKey = permission.credentials.includes('api_key');
    const session = permission.credentials.includes('session');
    mode = apiKey || session ? { apiKey, session } : null;
    authModes.set(permission, mode);
  }
  return mode;
}

async function applyGate(request: FastifyRequest): Promise<void> {
  // No route matched: the not-found handler answers.
  if (request.routeOptions.url === undefined) return;
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  const permission = request.routeOptions.config.permissions?.[method];
  // Startup refuses routes without an entry, so this only guards against a method Fastify adds on its own.
  if (!permission) throw new ForbiddenError();
  const mode = authModeOf(permission);
  if (!mode) return;
  // Also for callers the table welcomes: a wrong API key pair is a 403, never anonymous (CONTRACT.md section 2).
  const user = await request.principal(mode);
  const refusal = refusalFor(permission, user?.role ?? null);
  if (!refusal) return;
  throw refusal.status === 401 ? new UnauthorizedError(refusal.message) : new ForbiddenError(refusal.message);
}

/**
 * Guards every route from the permission table. Call right after creating the app, before any
 * route exists: the onRoute hook attaches each route's entry to its config and makes startup fail
 * for a route the table does not know; the preValidation hook refuses callers the entry does not
 * allow, after the body is parsed but before it is validated, so a refused caller learns nothing
 * about what the body should be.
 */
export function installPermissionGate(app: FastifyInstance, table: PermissionTable = PERMISSIONS): void {
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const permissions: Record<string, Permission> = {};
    for (const method of methods) {
      const permission = permissionFor(method, route.url, table);
      if (!permission) {
        throw new Error(`The route ${method} ${route.url} has no entry in the permission table (app/permissions.ts).`);
      }
      permissions[method === 'HEAD' ? 'GET' : method] = permission;
    }
    route.config = { ...route.config, permissions };
  });
  app.addHook('preValidation', applyGate);
}
