import t from 'tap';
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { installPermissionGate } from '../../app/permission-gate.js';
import { PERMISSIONS, refusalFor, type Permission, type Refusal } from '../../app/permissions.js';
import type { Role } from '../../contracts/users/roles.js';
import { buildTestApp, keyFor, ROLE_USERS, sessionFor, type RoleName } from '../helper.js';

/**
 * Generated from the permission table (app/permissions.ts): every entry is called as anonymous and
 * as each of the six roles, by API key and by session. A caller the table refuses gets exactly the
 * table's status and message in the surface's documented error body; a caller it allows is not
 * refused (it may still get 404 or 422: writes go to ids that do not exist, with bodies that fail
 * validation, so nothing is changed and nothing slow runs).
 */

const ROLES: RoleName[] = ['global_admin', 'site_admin', 'editor', 'reviewer', 'author', 'researcher'];
const TOKEN = 'perm-token';
const MISSING_ID = '999999';

const fixture = {
  users: ROLE_USERS,
  sites: [{ id: 1, slug: 'main', title: 'Main' }],
  item_sets: [{ id: 10, title: 'Maps', site_ids: [1] }],
  items: [
    {
      id: 100,
      title: 'Map',
      description: 'text',
      item_set_ids: [10],
      site_ids: [1],
      is_public: true,
      media: [{ id: 1000, title: 'Scan', text: 'words', is_public: true }],
    },
  ],
  site_pages: [
    { id: 5, site_id: 1, slug: 'about', title: 'About', is_public: true, layout: null, layout_data: {}, blocks: [] },
  ],
  blog: {
    settings: { comments_enabled: true },
    categories: [{ id: 1, name: 'News', slug: 'news', description: '' }],
    posts: [
      {
        id: 1,
        title: 'Hello',
        slug: 'hello',
        excerpt: '',
        content: '<p>Hi</p>',
        status: 'published',
        author_id: 1,
        category_id: 1,
        tags: ['maps'],
        site_ids: [1],
        published_at: '2020-01-02 03:04:05',
      },
    ],
    comments: [
      { id: 1, post_id: 1, author_name: 'Bo', author_email: 'bo@example.org', body: 'Nice', status: 'approved' },
    ],
  },
  directory: {
    library: { name: 'City Library', plan: 'plus', brand_color: '#0b5394', proxy_prefix: '' },
    tokens: [{ token: TOKEN, allowed_origins: [] }],
    subjects: [{ handle: 'history', name: 'History' }],
    types: [{ handle: 'journals', name: 'Journals' }],
    databases: [
      {
        handle: 'jstor',
        name: 'JSTOR',
        description: 'text',
        url: 'https://www.jstor.org/',
        subjects: ['history'],
        types: ['journals'],
        access: 'subscription',
        audience: ['undergraduate'],
        featured: true,
        hidden: false,
        proxied: false,
      },
    ],
    lists: [{ handle: 'starter', name: 'Start here', databases: ['jstor'] }],
  },
};

/** A concrete path for a route url: existing records for reads, a missing id for writes. */
function pathFor(method: string, url: string): string {
  const id = method === 'GET' ? '1' : MISSING_ID;
  return url
    .replace(':pageId', '5')
    .replace(':versionId', id)
    .replace('/lists/:handle', '/lists/starter')
    .replace(':handle', 'jstor')
    .replace(':file', 'nothing.txt')
    .replace(':id', id)
    .replace('/api/v1/*', '/api/v1/databases')
    .replace('*', 'x');
}

/** The documented error body of each surface, written out here rather than taken from the app. */
function refusalBody(url: string, message: string): Record<string, unknown> {
  if (['/api/blog/', '/api/v1/', '/chatbot/', '/directory/'].some((prefix) => url.startsWith(prefix)))
    return { error: message };
  if (url.startsWith('/api/asset-picker/') || url.startsWith('/api/page-versioning/'))
    return { status: 'error', message };
  return { errors: { error: message } };
}

interface Caller {
  name: string;
  role: Role | null;
  kind: 'anonymous' | 'api_key' | 'session';
  query?: string;
  cookie?: string;
}

let callCount = 0;

async function call(
  app: FastifyInstance,
  method: string,
  url: string,
  caller: { query?: string; cookie?: string; token?: string },
): Promise<LightMyRequestResponse> {
  const path = pathFor(method, url);
  const query = [caller.query, caller.token ? `token=${caller.token}` : undefined].filter(Boolean).join('&');
  callCount += 1;
  return app.inject({
    method: method as 'GET',
    url: query ? `${path}?${query}` : path,
    headers: {
      ...(caller.cookie ? { cookie: caller.cookie } : {}),
      // Each call its own client, so the chatbot's per-IP limit does not answer instead of the route.
      'edge-connecting-ip': `10.${Math.floor(callCount / 65536) % 256}.${Math.floor(callCount / 256) % 256}.${callCount % 256}`,
    },
    ...(['POST', 'PUT', 'PATCH'].includes(method) ? { payload: [] } : {}),
  });
}

function parse(res: LightMyRequestResponse): unknown {
  try {
    return JSON.parse(res.body);
  } catch {
    return res.body;
  }
}

/** The refusal this caller should get, treating credentials the surface does not recognise as absent. */
function expectedRefusal(permission: Permission, caller: Caller): Refusal | null {
  if (permission.allow === 'directory_token') return permission.anonymous ?? null;
  const recognised = caller.kind !== 'anonymous' && permission.credentials.includes(caller.kind);
  return refusalFor(permission, recognised ? caller.role : null);
}

// One app for the file: users are scrypt-hashed on import, so building it once keeps the file fast.
const { app } = await buildTestApp(t, { fixture });

t.test('every route against every role, anonymous and the wrong key', async (t) => {
  const callers: Caller[] = [{ name: 'anonymous', role: null, kind: 'anonymous' }];
  for (const role of ROLES) {
    callers.push({ name: `${role} key`, role, kind: 'api_key', query: keyFor(role) });
    callers.push({ name: `${role} session`, role, kind: 'session', cookie: await sessionFor(app, role) });
  }

  for (const [key, permission] of Object.entries(PERMISSIONS)) {
    const [method, url] = key.split(' ');
    t.ok(app.hasRoute({ method: method as 'GET', url }), `${key} is a route the app registers`);
    for (const caller of callers) {
      const res = await call(app, method, url, caller);
      // Logging out ends the caller's session: log in again for the rows that follow.
      if (key === 'POST /logout' && caller.role && caller.kind === 'session')
        caller.cookie = await sessionFor(app, caller.role as RoleName);
      const refusal = expectedRefusal(permission, caller);
      if (refusal) {
        t.equal(res.statusCode, refusal.status, `${key} as ${caller.name}: refused with ${refusal.status}`);
        t.same(parse(res), refusalBody(url, refusal.message), `${key} as ${caller.name}: the surface's error body`);
      } else {
        t.notOk(
          [401, 403].includes(res.statusCode),
          `${key} as ${caller.name}: not refused (got ${res.statusCode} ${res.body.slice(0, 120)})`,
        );
      }
    }

    if (method === 'GET' && permission.anonymous) {
      const head = await app.inject({ method: 'HEAD', url: pathFor(method, url) });
      t.equal(head.statusCode, permission.anonymous.status, `HEAD ${url} as anonymous: refused like GET`);
    }
    if (permission.allow === 'directory_token') {
      const res = await call(app, method, url, { token: TOKEN });
      t.equal(res.statusCode, 200, `${key} with a directory token: allowed`);
    }
    if (permission.credentials.includes('api_key')) {
      const res = await call(app, method, url, { query: 'key_identity=nobody&key_credential=wrong' });
      t.equal(res.statusCode, 403, `${key} with a wrong API key pair: 403, never anonymous`);
      t.same(
        parse(res),
        refusalBody(url, 'Invalid API key.'),
        `${key} with a wrong API key pair: the surface's error body`,
      );
    }
  }
});

t.test('every entry that refuses says how', async (t) => {
  for (const [key, permission] of Object.entries(PERMISSIONS)) {
    const { allow } = permission;
    if (allow === 'public' || allow === 'everyone') {
      t.notOk(
        permission.anonymous ?? permission.insufficientRole,
        `${key}: nobody is refused, so no refusal is declared`,
      );
      continue;
    }
    t.ok(permission.anonymous, `${key}: declares how anonymous callers are refused`);
    if (Array.isArray(allow)) t.ok(permission.insufficientRole, `${key}: declares how other roles are refused`);
    if (allow !== 'directory_token') t.ok(permission.credentials.length > 0, `${key}: says which credentials it reads`);
  }
});

t.test('a refused caller is refused before the body is validated', async (t) => {
  const invalid = { 'o:title': { not: 'a string' } };
  const res = await app.inject({ method: 'POST', url: `/api/item_sets?${keyFor('author')}`, payload: invalid });
  t.equal(res.statusCode, 403, 'an invalid body does not turn the refusal into a 422');
  const ok = await app.inject({ method: 'POST', url: `/api/item_sets?${keyFor('editor')}`, payload: invalid });
  t.equal(ok.statusCode, 422, 'an allowed caller reaches validation');
});

t.test('a route missing from the table makes startup fail', async (t) => {
  const app = Fastify();
  t.teardown(() => app.close());
  installPermissionGate(app, { 'GET /known': { credentials: [], allow: 'public' } });
  app.get('/known', async () => 'ok');
  await t.rejects(
    (async () => {
      app.post('/unguarded', async () => 'nope');
      await app.ready();
    })(),
    /POST \/unguarded has no entry in the permission table/,
  );
});

t.test('the gate applies a table it is given, HEAD like GET', async (t) => {
  const app = Fastify();
  t.teardown(() => app.close());
  // A stand-in for the auth plugin: the role comes from a header.
  app.decorateRequest('principal', async function principal(this: { headers: Record<string, unknown> }) {
    const role = this.headers['x-role'];
    return typeof role === 'string' ? { id: 1, name: 'X', email: 'x@example.org', role: role as Role } : null;
  });
  installPermissionGate(app, {
    'GET /editors': {
      credentials: ['session'],
      allow: ['editor'],
      anonymous: { status: 401, message: 'Log in.' },
      insufficientRole: { status: 403, message: 'Editors only.' },
    },
  });
  app.get('/editors', async () => ({ ok: true }));
  t.equal((await app.inject({ method: 'GET', url: '/editors' })).statusCode, 401);
  t.equal((await app.inject({ method: 'HEAD', url: '/editors' })).statusCode, 401);
  t.equal((await app.inject({ method: 'GET', url: '/editors', headers: { 'x-role': 'author' } })).statusCode, 403);
  t.equal((await app.inject({ method: 'GET', url: '/editors', headers: { 'x-role': 'editor' } })).statusCode, 200);
  t.equal(
    (await app.inject({ method: 'GET', url: '/nowhere' })).statusCode,
    404,
    'no route: the gate stays out of the way',
  );
});
