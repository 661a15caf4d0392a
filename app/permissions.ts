import type { Role } from '../contracts/users/roles.js';

/**
 * Who may call each route: ONE table, read by the permission gate (app/permission-gate.ts) that
 * refuses callers before their body is validated, and by test/fault/permissions.test.ts, which
 * calls every entry as anonymous and as every role. A route the app registers without an entry
 * here makes startup fail, so no route goes unguarded.
 *
 * The routes keep their finer checks (private records, what a lower role sees); this table is the
 * coarse gate: which credentials the surface reads, which callers get through, and the status and
 * message a refused caller gets on that surface (the error handler shapes the body by URL).
 */

/** What a surface reads to know its caller. */
export type Credential = 'api_key' | 'session' | 'directory_token';

/**
 * - `public`: no credential is read; nobody is refused here (405 refusers, docs, patron links).
 * - `everyone`: anonymous callers are welcome, but a credential sent is checked (a wrong API key
 *   pair is a 403, never anonymous) because it changes what the caller sees.
 * - `logged_in`: any role.
 * - a role list: only those roles.
 * - `directory_token`: the directory's own onRequest hook (routes/directory/access.ts) checks the
 *   token, its origins and the plan; roles play no part.
 */
export type Allowed = 'public' | 'everyone' | 'logged_in' | 'directory_token' | readonly Role[];

export interface Refusal {
  status: 401 | 403;
  message: string;
}

export interface Permission {
  credentials: readonly Credential[];
  allow: Allowed;
  /** How a caller without (recognised) credentials is refused; absent when anonymous callers get through. */
  anonymous?: Refusal;
  /** How a logged-in caller whose role is not allowed is refused; absent when every role gets through. */
  insufficientRole?: Refusal;
}

export type PermissionTable = Readonly<Record<string, Permission>>;

const EDITORS: readonly Role[] = ['global_admin', 'site_admin', 'editor'];
const ADMINS: readonly Role[] = ['global_admin', 'site_admin'];
const GLOBAL_ADMINS: readonly Role[] = ['global_admin'];
const ASSET_READERS: readonly Role[] = [...EDITORS, 'reviewer', 'author'];

const KEY_OR_SESSION: readonly Credential[] = ['api_key', 'session'];
const SESSION: readonly Credential[] = ['session'];

const PUBLIC: Permission = { credentials: [], allow: 'public' };
const NATIVE_READ: Permission = { credentials: KEY_OR_SESSION, allow: 'everyone' };

function refusedAlike(status: 401 | 403, message: string): Pick<Permission, 'anonymous' | 'insufficientRole'> {
  return { anonymous: { status, message }, insufficientRole: { status, message } };
}

const PLATFORM_WRITE: Permission = {
  credentials: KEY_OR_SESSION,
  allow: EDITORS,
  ...refusedAlike(403, 'Editor or above is required to change this resource.'),
};
const BLOG_WRITE: Permission = {
  credentials: KEY_OR_SESSION,
  allow: EDITORS,
  ...refusedAlike(403, 'Editor or above is required for this operation.'),
};
const BACKUPS: Permission = {
  credentials: KEY_OR_SESSION,
  allow: ADMINS,
  ...refusedAlike(403, 'Only a Global Administrator or a Supervisor may manage backups.'),
};
const DIRECTORY_ADMIN: Permission = {
  credentials: KEY_OR_SESSION,
  allow: GLOBAL_ADMINS,
  ...refusedAlike(403, 'A Global Administrator is required.'),
};
const CHATBOT_QUESTIONS: Permission = {
  credentials: KEY_OR_SESSION,
  allow: EDITORS,
  anonymous: { status: 401, message: 'Log in or send an API key to read the chatbot questions.' },
  insufficientRole: { status: 403, message: 'Editor or above is required to read the chatbot questions.' },
};
const ASSET_LOGIN: Refusal = { status: 401, message: 'Log in to use the asset library.' };
const ASSET_READ: Permission = {
  credentials: SESSION,
  allow: ASSET_READERS,
  anonymous: ASSET_LOGIN,
  insufficientRole: { status: 403, message: 'Your role does not give access to the asset library.' },
};
const ASSET_WRITE: Permission = {
  credentials: SESSION,
  allow: EDITORS,
  anonymous: ASSET_LOGIN,
  insufficientRole: { status: 403, message: 'Editor or above is required to change the asset library.' },
};
const VERSIONS_LOGIN: Refusal = { status: 403, message: 'A login session is required.' };
const VERSIONS_READ: Permission = { credentials: SESSION, allow: 'logged_in', anonymous: VERSIONS_LOGIN };
const VERSIONS_REVERT: Permission = {
  credentials: SESSION,
  allow: EDITORS,
  anonymous: VERSIONS_LOGIN,
  insufficientRole: { status: 403, message: 'Reverting a page needs the Editor role or higher.' },
};
const DIRECTORY_API: Permission = {
  credentials: ['directory_token'],
  allow: 'directory_token',
  anonymous: { status: 401, message: 'A directory API token is required (Authorization: Bearer <token> or ?token=).' },
};

const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;
const ALL_METHODS = ['GET', ...WRITE_METHODS] as const;

/** The 405 answers of `refuseOtherMethods` (and blog tag writes): open to all, they only say no. */
function methodRefusers(url: string, allowed: readonly string[]): Record<string, Permission> {
  return Object.fromEntries(ALL_METHODS.filter((m) => !allowed.includes(m)).map((m) => [`${m} ${url}`, PUBLIC]));
}

/** A native resource: reads for everyone, the given writes under one rule. */
function nativeResource(
  path: string,
  write: Permission,
  writes: readonly string[] = ['POST', 'PUT', 'PATCH', 'DELETE'],
): Record<string, Permission> {
  const base = `/api/${path}`;
  const entries: Record<string, Permission> = { [`GET ${base}`]: NATIVE_READ, [`GET ${base}/:id`]: NATIVE_READ };
  for (const method of writes) entries[method === 'POST' ? `POST ${base}` : `${method} ${base}/:id`] = write;
  return entries;
}

const PLATFORM_RESOURCES = ['sites', 'item_sets', 'items', 'media', 'site_pages'];

export const PERMISSIONS: PermissionTable = {
  // Sessions, the JSON-LD context and the OpenAPI reference.
  'POST /login': PUBLIC,
  'POST /logout': PUBLIC,
  'GET /api-context': PUBLIC,
  'GET /api/docs': PUBLIC,
  'GET /api/docs/': PUBLIC,
  'GET /api/docs/static/index.html': PUBLIC,
  'GET /api/docs/static/swagger-initializer.js': PUBLIC,
  'GET /api/docs/static/*': PUBLIC,
  'GET /api/docs/json': PUBLIC,
  'GET /api/docs/yaml': PUBLIC,
  'GET /api/docs.json': PUBLIC,

  // Operations: what a load balancer checks, with no credentials (routes/health).
  'GET /health': PUBLIC,

  // Host platform resources (CONTRACT.md section 6): reads for everyone, writes Editor and above.
  ...Object.assign({}, ...PLATFORM_RESOURCES.map((path) => nativeResource(path, PLATFORM_WRITE))),

  // Media files and their IIIF image service (CONTRACT.md section 9): as the media's record,
  // everyone for a public media, Editor and above for a private one (404 for others, by the route).
  'GET /files/original/:file': NATIVE_READ,
  'GET /files/:type/:file': NATIVE_READ,
  'GET /iiif/3/image/:id': NATIVE_READ,
  'GET /iiif/3/image/:id/info.json': NATIVE_READ,
  'GET /iiif/3/image/:id/:region/:size/:rotation/:file': NATIVE_READ,
  // IIIF Presentation (CONTRACT.md section 9): what a caller sees of the items, sets and media.
  'GET /iiif/3/item/:id/manifest': NATIVE_READ,
  'GET /iiif/3/item-set/:id/collection': NATIVE_READ,
  'GET /iiif/3/collection': NATIVE_READ,
  // IIIF Change Discovery: what became of public manifests and collections, for everyone.
  'GET /iiif/discovery/changes': PUBLIC,
  'GET /iiif/discovery/changes/page/:page': PUBLIC,
  // OAI-PMH (CONTRACT.md section 9): harvesters, with no credentials; public records only.
  'GET /oai-pmh': PUBLIC,
  'POST /oai-pmh': PUBLIC,

  // Native blog resources (seed 001): reads for everyone, writes Editor and above; comments may be posted by anyone.
  ...nativeResource('blog_posts', BLOG_WRITE),
  ...nativeResource('blog_categories', BLOG_WRITE),
  ...nativeResource('blog_tags', BLOG_WRITE, []),
  ...Object.fromEntries(
    ['/api/blog_tags', '/api/blog_tags/:id'].flatMap((url) => WRITE_METHODS.map((m) => [`${m} ${url}`, PUBLIC])),
  ),
  ...nativeResource('blog_comments', BLOG_WRITE, ['PUT', 'PATCH', 'DELETE']),
  'POST /api/blog_comments': NATIVE_READ,

  // Legacy blog (seed 001): browser sessions only; reads are public, creating a post needs a login (401).
  'GET /api/blog/posts': PUBLIC,
  'GET /api/blog/posts/:id': PUBLIC,
  'POST /api/blog/posts': {
    credentials: SESSION,
    allow: 'logged_in',
    anonymous: { status: 401, message: 'Log in to create posts.' },
  },
  'POST /api/blog/posts/:id/comments': { credentials: SESSION, allow: 'everyone' },
  ...methodRefusers('/api/blog/posts', ['GET', 'POST']),
  ...methodRefusers('/api/blog/posts/:id', ['GET']),
  ...methodRefusers('/api/blog/posts/:id/comments', ['POST']),

  // Asset library (seed 002): session only; authors and reviewers read, editors and above write.
  'GET /api/asset-picker/folders': ASSET_READ,
  'POST /api/asset-picker/folders': ASSET_WRITE,
  'GET /api/asset-picker/folders/:id': ASSET_READ,
  'PUT /api/asset-picker/folders/:id': ASSET_WRITE,
  'DELETE /api/asset-picker/folders/:id': ASSET_WRITE,
  'GET /api/asset-picker/assets': ASSET_READ,
  'POST /api/asset-picker/assets': ASSET_WRITE,
  'GET /api/asset-picker/assets/:id': ASSET_READ,
  'DELETE /api/asset-picker/assets/:id': ASSET_WRITE,
  'PATCH /api/asset-picker/assets/bulk': ASSET_WRITE,
  'PUT /api/asset-picker/assets/:id/replace': ASSET_WRITE,
  'GET /api/asset-picker/assets/:id/usage': ASSET_READ,
  'POST /api/asset-picker/assets/:id/usage': ASSET_WRITE,
  // The files behind canonical_url are what the public site embeds.
  'GET /asset-files/:file': PUBLIC,

  // Backups (seed 002): Global Administrators and Supervisors only, 403 for everyone else.
  'GET /api/backups': BACKUPS,
  'POST /api/backups': BACKUPS,
  'GET /api/backups/:id': BACKUPS,
  'DELETE /api/backups/:id': BACKUPS,
  'GET /api/backups/:id/archive': BACKUPS,
  ...methodRefusers('/api/backups', ['GET', 'POST']),
  ...methodRefusers('/api/backups/:id', ['GET', 'DELETE']),
  ...methodRefusers('/api/backups/:id/archive', ['GET']),

  // Page version history (seed 002): a login session (403 without one); reverting needs Editor or higher.
  'GET /api/page-versioning/:pageId/versions': VERSIONS_READ,
  'GET /api/page-versioning/version/:versionId': VERSIONS_READ,
  'POST /api/page-versioning/version/:versionId/revert': VERSIONS_REVERT,
  'GET /api/page-versioning/version/:versionId/diff': VERSIONS_READ,
  ...methodRefusers('/api/page-versioning/:pageId/versions', ['GET']),
  ...methodRefusers('/api/page-versioning/version/:versionId', ['GET']),
  ...methodRefusers('/api/page-versioning/version/:versionId/revert', ['POST']),
  ...methodRefusers('/api/page-versioning/version/:versionId/diff', ['GET']),

  // Collection chatbot (seed 000): public, limited per client IP by its own hook; CORS preflights
  // are not limited; the chat panel's script is what any visitor of a library's site loads.
  'POST /chatbot/api/chat': PUBLIC,
  'POST /chatbot/api/search': PUBLIC,
  'OPTIONS /chatbot/api/chat': PUBLIC,
  'OPTIONS /chatbot/api/search': PUBLIC,
  'GET /chat-widget.js': PUBLIC,
  ...methodRefusers('/chatbot/api/chat', ['POST']),
  ...methodRefusers('/chatbot/api/search', ['POST']),
  // What patrons asked (routes/chatbot/questions.ts): librarians, Editor and above.
  'GET /api/chatbot/questions': CHATBOT_QUESTIONS,
  'GET /api/chatbot/questions/summary': CHATBOT_QUESTIONS,
  ...methodRefusers('/api/chatbot/questions', ['GET']),
  ...methodRefusers('/api/chatbot/questions/summary', ['GET']),

  // Directory API v1 (seed 000, CONTRACT.md section 5): directory tokens, outside role checks.
  'OPTIONS /api/v1/*': PUBLIC,
  'GET /api/v1/library': DIRECTORY_API,
  'GET /api/v1/databases': DIRECTORY_API,
  'GET /api/v1/databases/:handle': DIRECTORY_API,
  'GET /api/v1/subjects': DIRECTORY_API,
  'GET /api/v1/types': DIRECTORY_API,
  'GET /api/v1/lists': DIRECTORY_API,
  'GET /api/v1/lists/:handle': DIRECTORY_API,
  // Patron links and the widget script: what any visitor of a library's site follows or loads.
  'GET /directory/go/:handle': PUBLIC,
  'GET /directory/databases/:handle': PUBLIC,
  'GET /widget.js': PUBLIC,
  // The directory's admin area ("API & widget"): Global Administrators only.
  'POST /api/directory/tokens': DIRECTORY_ADMIN,
  'GET /api/directory/tokens': DIRECTORY_ADMIN,
  'DELETE /api/directory/tokens/:id': DIRECTORY_ADMIN,
  'GET /api/directory/clicks': DIRECTORY_ADMIN,
  'GET /api/directory/library': DIRECTORY_ADMIN,
  'PATCH /api/directory/library': DIRECTORY_ADMIN,
  'PATCH /api/directory/databases/:handle': DIRECTORY_ADMIN,
};

/** The entry of a route: `HEAD` routes Fastify adds for a `GET` share the `GET` entry. */
export function permissionFor(
  method: string,
  url: string,
  table: PermissionTable = PERMISSIONS,
): Permission | undefined {
  const key = `${method === 'HEAD' ? 'GET' : method} ${url}`;
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** Whether the table lets this caller (null: anonymous) through; `directory_token` is left to the directory's hook. */
export function refusalFor(permission: Permission, role: Role | null): Refusal | null {
  const { allow } = permission;
  if (allow === 'public' || allow === 'everyone' || allow === 'directory_token') return null;
  if (role === null) return permission.anonymous ?? { status: 403, message: 'Permission denied.' };
  if (allow === 'logged_in' || allow.includes(role)) return null;
  return permission.insufficientRole ?? { status: 403, message: 'Permission denied.' };
}
