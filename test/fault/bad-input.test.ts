import t, { type Test } from 'tap';
import type { LightMyRequestResponse } from 'fastify';
import { surfaceFor } from '../../routes/http/error-format.js';
import { buildTestApp, keyFor, ROLE_USERS, sessionFor } from '../helper.js';

/**
 * A generated sweep over every route of the OpenAPI document with malformed JSON, wrong types,
 * huge strings, bad ids, unknown fields and injection-looking strings. No answer may be a 5xx,
 * carry a stack trace or an internal path, or leave the surface's documented error shape.
 */

interface Operation {
  path: string;
  method: string;
  parameters: { name: string; in: string; schema?: { type?: string } }[];
  bodyProperties: Record<string, { type?: string | string[] }>;
}

interface OpenApi {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Operation['parameters'];
        requestBody?: { content?: Record<string, { schema?: { properties?: Operation['bodyProperties'] } }> };
      }
    >
  >;
}

const HOSTILE_STRINGS = [
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '${jndi:ldap://127.0.0.1/x}',
  '{"$gt": ""}',
  'nul\u0000byte',
  '\ud800',
  'x'.repeat(100_000),
];
const BAD_IDS = ['-1', '0', 'abc', '1.5', '99999999999999999999999', '%00', '..%2F..%2Fetc', '1e3', ' '];
const WRONG_TYPES: unknown[] = [null, 12345, -1, 1.5, true, [], {}, [1, 'a'], { $where: 'sleep(1000)' }, { $gt: '' }];
const MALFORMED_BODIES = ['{', '[1,2', '{"a":', 'nul', '"\\u12"', '{"a":1}}', '\u0000', '['.repeat(5000)];

function operations(doc: OpenApi): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const content = op.requestBody?.content ?? {};
      const schema = content['application/json']?.schema ?? Object.values(content)[0]?.schema;
      ops.push({
        path,
        method: method.toUpperCase(),
        parameters: op.parameters ?? [],
        bodyProperties: schema?.properties ?? {},
      });
    }
  }
  return ops;
}

/** Percent-encodes a value; a lone surrogate (not encodable) goes as the invalid UTF-8 bytes it would be. */
function queryValue(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
}

function fillPath(path: string, value: string): string {
  return path.replace(/\{[^}]+\}/g, value);
}

function checkResponse(t: Pick<Test, 'fail'>, label: string, url: string, res: LightMyRequestResponse): boolean {
  const problems: string[] = [];
  if (res.statusCode >= 500) problems.push(`status ${res.statusCode}`);
  // A backup record's o:path is the one absolute path the API may show (CONTRACT.md section 3).
  const body = res.body.replace(/"o:path":"[^"]*"/g, '"o:path":""');
  if (/\n\s+at .+\(.*:\d+:\d+\)|node_modules|\/work\/|SQLITE_|TypeError|ReferenceError|better-sqlite3/.test(body)) {
    problems.push('leaks internals');
  }
  const type = String(res.headers['content-type'] ?? '');
  if (res.statusCode >= 400 && type.includes('application/json')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      problems.push('error body is not JSON');
    }
    const surface = surfaceFor(url);
    const shape = parsed as Record<string, unknown>;
    if (surface === 'native' && !(shape && typeof shape.errors === 'object' && shape.errors !== null))
      problems.push('native error shape');
    if (surface === 'plain' && !(shape && typeof shape.error === 'string')) problems.push('plain error shape');
    if (surface === 'status-envelope' && !(shape && shape.status === 'error' && typeof shape.message === 'string')) {
      problems.push('status envelope shape');
    }
  }
  if (problems.length > 0) {
    t.fail(`${label}: ${problems.join(', ')} (${res.statusCode} ${body.slice(0, 200)})`);
    return false;
  }
  return true;
}

t.test('hostile input sweep over every documented route', async (t) => {
  const { app } = await buildTestApp(t, {
    fixture: {
      users: ROLE_USERS,
      sites: [{ id: 1, slug: 'main', title: 'Main' }],
      items: [{ id: 1, title: 'Item', media: [{ id: 1, title: 'Scan' }] }],
      site_pages: [{ id: 1, site_id: 1, slug: 'about', title: 'About' }],
    },
  });
  const cookie = await sessionFor(app, 'global_admin');
  const key = keyFor('global_admin');
  const doc = (await app.inject({ method: 'GET', url: '/api/docs.json' })).json() as OpenApi;
  const ops = operations(doc).filter((op) => op.path !== '/logout' && !op.path.startsWith('/api/docs'));
  t.ok(ops.length > 10, `${ops.length} operations documented`);

  let sent = 0;
  let clean = 0;
  const send = async (
    label: string,
    method: string,
    url: string,
    payload?: string,
    contentType = 'application/json',
  ) => {
    const joiner = url.includes('?') ? '&' : '?';
    const full = url.startsWith('/api/') && !url.startsWith('/api/page-versioning') ? `${url}${joiner}${key}` : url;
    const res = await app.inject({
      method: method as 'GET',
      url: full,
      headers: { cookie, ...(payload !== undefined ? { 'content-type': contentType } : {}) },
      ...(payload !== undefined ? { payload } : {}),
    });
    sent++;
    if (checkResponse(t, `${method} ${url} ${label}`, url, res)) clean++;
  };

  for (const op of ops) {
    const hasBody = ['POST', 'PUT', 'PATCH'].includes(op.method);
    const basePath = fillPath(op.path, '1');
    for (const id of op.path.includes('{') ? BAD_IDS : []) {
      await send(`id=${id}`, op.method, fillPath(op.path, encodeURIComponent(id)), hasBody ? '{}' : undefined);
    }
    for (const param of op.parameters.filter((p) => p.in === 'query')) {
      for (const value of [...BAD_IDS, ...HOSTILE_STRINGS]) {
        await send(
          `query ${param.name}`,
          op.method,
          `${basePath}?${param.name}=${queryValue(value)}`,
          hasBody ? '{}' : undefined,
        );
      }
    }
    if (!hasBody) continue;
    for (const body of MALFORMED_BODIES) await send('malformed JSON', op.method, basePath, body);
    await send(
      'unknown fields',
      op.method,
      basePath,
      JSON.stringify({
        unexpected: 'x',
        __proto__: { polluted: true },
        constructor: { prototype: { polluted: true } },
      }),
    );
    await send('array body', op.method, basePath, '[]');
    await send('form body', op.method, basePath, 'a=1&b[]=2&c[d]=3', 'application/x-www-form-urlencoded');
    for (const field of Object.keys(op.bodyProperties)) {
      for (const value of [...WRONG_TYPES, ...HOSTILE_STRINGS]) {
        await send(
          `${field}=${JSON.stringify(value).slice(0, 30)}`,
          op.method,
          basePath,
          JSON.stringify({ [field]: value }),
        );
      }
    }
  }
  t.ok(sent >= 2000, `${sent} requests sent`);
  t.equal(clean, sent, 'every answer was clean');
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype pollution');
});
