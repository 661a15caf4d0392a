import type { FastifyInstance } from 'fastify';
import { SESSION_COOKIE } from '../../infra/session-store/cookie.js';
import { OPERATIONS_TAG } from '../../infra/operations-tag.js';

/**
 * The HTTP app serving the backups module's runtime, so its worker can export the API as it
 * answers: the module builds one, its routes attach the app they are registered on, its
 * worker reads it. Empty in a process without the app (a CLI), or once the app has closed.
 */
export class ApiSource {
  private current: FastifyInstance | null = null;

  attach(app: FastifyInstance): void {
    this.current = app;
    app.addHook('onClose', async () => {
      if (this.current === app) this.current = null;
    });
  }

  get app(): FastifyInstance | null {
    return this.current;
  }
}

const MAX_PAGES = 10_000;

/**
 * GET paths of the OpenAPI document that need no path parameter, e.g. `/api/items`. Operations
 * routes (/health) describe the process, not the site's data: not exported.
 */
export async function listablePaths(app: FastifyInstance): Promise<string[]> {
  await app.ready();
  const document = app.swagger();
  return Object.entries(document.paths ?? {})
    .filter(
      ([path, operations]) =>
        operations.get !== undefined && !path.includes('{') && !operations.get.tags?.includes(OPERATIONS_TAG),
    )
    .map(([path]) => path)
    .sort();
}

/** `/api/items` is saved as `api/api/items.json`. */
export function exportNameFor(path: string): string {
  return `api${path}.json`;
}

function nextLink(header: unknown, baseUrl: string): string | null {
  const match = /<([^>]+)>;\s*rel="next"/.exec(typeof header === 'string' ? header : '');
  if (!match) return null;
  return match[1].startsWith(baseUrl) ? match[1].slice(baseUrl.length) : null;
}

/**
 * Every listable GET of the API, as the requesting administrator (or an anonymous visitor for
 * a backup without a user) sees it, through the app itself; lists that page are followed to
 * the end. Answers other than a JSON 200 (a surface needing a token, say) are left out.
 */
export async function* apiExports(
  app: FastifyInstance,
  baseUrl: string,
  userId: number | null,
  /** Called after each listable path, exported or left out (a progress bar counts them). */
  onPath?: () => void,
): AsyncGenerator<{ name: string; body: string }> {
  const token = userId === null ? null : await app.sessions.create(userId);
  const headers = token ? { cookie: `${SESSION_COOKIE}=${token}` } : {};
  try {
    for (const path of await listablePaths(app)) {
      let url: string | null = `${path}?per_page=100`;
      let response = await app.inject({ method: 'GET', url, headers });
      if (response.statusCode !== 200) response = await app.inject({ method: 'GET', url: (url = path), headers });
      if (response.statusCode !== 200 || !String(response.headers['content-type'] ?? '').includes('json')) {
        onPath?.();
        continue;
      }
      let first: unknown = JSON.parse(response.body);
      if (Array.isArray(first)) {
        const all: unknown[] = [...first];
        for (let page = 1; page < MAX_PAGES && (url = nextLink(response.headers.link, baseUrl)); page++) {
          response = await app.inject({ method: 'GET', url, headers });
          const body: unknown = response.statusCode === 200 ? JSON.parse(response.body) : null;
          if (!Array.isArray(body)) break;
          all.push(...body);
        }
        first = all;
      }
      yield { name: exportNameFor(path), body: JSON.stringify(first, null, 1) };
      onPath?.();
    }
  } finally {
    // The token never left this process; if the store is away now, the session just expires.
    if (token) await app.sessions.destroy(token).catch(() => undefined);
  }
}
