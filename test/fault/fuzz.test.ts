import t from 'tap';
import type { InjectOptions } from 'fastify';
import { buildTestApp, keyFor, ROLE_USERS, sessionFor } from '../helper.js';
import { seededRandom } from '../seeded-random.js';

/**
 * Random hostile requests to every route of the OpenAPI document, as anonymous, as a Global
 * Administrator's API key and as their session: no answer may be a 5xx. The generator is seeded
 * (FUZZ_SEED, default below), so a failure prints what to send again and reproduces.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_124);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 3000);
const TIME_BUDGET_MS = 120_000;
const TOKEN = 'fuzz-token-0123456789abcdefghijklmnop';
/** A request left without an answer is a failure too (a client would wait for ever). */
const ANSWER_WITHIN_MS = 10_000;

async function answerWithin<T>(answer: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const random = seededRandom(SEED);
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)];
const chance = (p: number) => random() < p;

/** JSON text written as it is: deep nesting that JSON.stringify itself could not write. */
class RawJson {
  constructor(readonly text: string) {}
}

function nested(levels: number): RawJson {
  let text = '1';
  for (let i = 0; i < levels; i++) text = chance(0.5) ? `[${text}]` : `{"a":${text}}`;
  return new RawJson(text);
}

/** JSON.stringify, except that RawJson goes in as it is and `__proto__` stays a plain key. */
function toJson(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([key, v]) => `${JSON.stringify(key)}:${toJson(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const STRINGS = [
  '',
  ' ',
  'a',
  'x'.repeat(5000),
  'x'.repeat(300_000),
  '\ud800',
  'a\udfffb',
  '\u0000',
  'NaN',
  'Infinity',
  '-Infinity',
  'undefined',
  'null',
  'true',
  '1e309',
  '-1',
  '0',
  '9007199254740993',
  '1.5',
  '0x10',
  '%00',
  '..%2f..%2fetc%2fpasswd',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '{"$gt":""}',
  '__proto__',
  'constructor',
  'main',
  'published',
  '2026-01-02 03:04:05',
  '2026-13-45 99:99:99',
  'https://example.org/',
  'javascript:alert(1)',
  '😀'.repeat(600),
];

const NUMBERS = [0, -1, 1, 2, 5, 10, 100, 1000, 1.5, -0.5, 1e308, -1e308, 2 ** 53, 2 ** 53 + 2, 2 ** 31, 1e21];

function hostileValue(depth = 0): unknown {
  switch (Math.floor(random() * 9)) {
    case 0:
      return pick(STRINGS);
    case 1:
      return pick(NUMBERS);
    case 2:
      return pick([true, false, null]);
    case 3:
      return depth > 2 ? [] : Array.from({ length: Math.floor(random() * 4) }, () => hostileValue(depth + 1));
    case 4:
      return depth > 2
        ? {}
        : { [pick(['a', 'o:id', 'id', '$gt', 'constructor', 'toString'])]: hostileValue(depth + 1) };
    case 5:
      return nested(pick([63, 64, 65, 200, 4200]));
    case 6:
      return Array.from({ length: pick([100, 10_001]) }, (_, i) => i);
    case 7:
      return [pick(STRINGS), pick(STRINGS)];
    default:
      return { 'o:id': pick([1, 5, 10, 100, 1000, 1001, -1, 0, 2 ** 53]) };
  }
}

const PATH_VALUES = [
  '%zz',
  '%',
  '%2e%2e',
  '1',
  '5',
  '6',
  '100',
  '1000',
  '1001',
  '1',
  '5',
  '10',
  '100',
  '1000',
  '1001',
  '0',
  '-1',
  '1.5',
  'abc',
  '%00',
  '..%2f',
  '..%2f..%2fetc',
  '%ED%A0%80',
  '9'.repeat(400),
  'x'.repeat(2000),
  'jstor',
  'history',
  'NaN',
  '1e3',
  '%20',
];
const QUERY_VALUES = [
  '%zz',
  '%',
  '%E0%A4%A',
  '%C0%AE',
  'a%26b%3Dc',
  '1',
  '0',
  '-1',
  'abc',
  '%00',
  '%ED%A0%80',
  'x'.repeat(3000),
  'NaN',
  '1e400',
  '9007199254740993',
  'true',
  'published',
  'asc',
  'name',
  'site_page',
  '%5B%5D',
  '',
];

/** The part of a JSON schema the generator reads. */
interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  default?: unknown;
}

interface Operation {
  path: string;
  method: string;
  query: [string, Schema][];
  body: [string, Schema][];
  multipart: boolean;
}

interface OpenApi {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: { name: string; in: string; schema?: Schema }[];
        requestBody?: { content?: Record<string, { schema?: Schema }> };
      }
    >
  >;
}

const PLAUSIBLE_TEXT = [
  'Title',
  'main',
  'about',
  'hello',
  'news',
  'maps',
  'published',
  'draft',
  'approved',
  'delete',
  'a@example.org',
  '2026-01-02 03:04:05',
  'jstor',
  'history',
];
const PLAUSIBLE_IDS = [1, 5, 6, 10, 11, 100, 101, 1000, 1001];

/** A value the schema accepts, or nearly: what reaches past validation into the handlers. */
function plausible(schema: Schema | undefined, depth = 0): unknown {
  if (!schema || depth > 3) return pick(PLAUSIBLE_TEXT);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return pick(schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return plausible(pick(alternatives), depth + 1);
  const type = Array.isArray(schema.type) ? pick(schema.type) : schema.type;
  switch (type) {
    case 'integer':
    case 'number':
      return pick(PLAUSIBLE_IDS);
    case 'boolean':
      return chance(0.5);
    case 'null':
      return null;
    case 'array':
      return [plausible(schema.items, depth + 1)];
    case 'object':
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([key, property]) => [key, plausible(property, depth + 1)]),
      );
    default:
      return pick(PLAUSIBLE_TEXT);
  }
}

/** Half the time a value the schema takes, half the time a hostile one. */
function fieldValue(schema: Schema | undefined): unknown {
  return chance(0.5) ? plausible(schema) : hostileValue();
}

function operations(doc: OpenApi): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    if (path === '/logout' || path.startsWith('/api/docs')) continue;
    for (const [method, op] of Object.entries(methods)) {
      const content = op.requestBody?.content ?? {};
      const body = Object.values(content).flatMap((c) => Object.entries(c.schema?.properties ?? {}));
      const query = (op.parameters ?? [])
        .filter((p) => p.in === 'query')
        .map((p): [string, Schema] => [p.name, p.schema ?? {}]);
      ops.push({ path, method: method.toUpperCase(), query, body, multipart: 'multipart/form-data' in content });
    }
  }
  return ops;
}

const HEADER_VALUES = [
  '',
  'x',
  'Bearer ',
  `Bearer ${'x'.repeat(5000)}`,
  'Basic YTpi',
  'null',
  '..%2f',
  '1.2.3.4',
  '::1',
  '999.999.1.1, 1.2.3.4',
  'https://evil.example',
  'sid=',
  'sid=x; sid=y',
  `sid=${'a'.repeat(300)}`,
];

/** Now and then a hostile header a route reads: credentials, origin, client address, cookie. */
function hostileHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!chance(0.3)) return headers;
  const name = pick([
    'authorization',
    'origin',
    'x-forwarded-for',
    'edge-connecting-ip',
    'cookie',
    'accept',
    'content-length',
  ]);
  if (name !== 'content-length') headers[name] = pick(HEADER_VALUES);
  return headers;
}

/** A multipart body whose parts are named after the route's fields (`file[0]`, `file`, `o:name`, ...). */
function multipart(op: Operation): { payload: string; contentType: string } {
  const boundary = 'fuzzboundary';
  const names = [...op.body.map(([name]) => name), 'file', 'file[0]', 'o:name', 'folder_id'];
  const parts = Array.from({ length: 1 + Math.floor(random() * 3) }, () => {
    const name = pick(names);
    const filename = chance(0.6)
      ? `; filename="${pick(['a.png', '../../x.png', 'x'.repeat(300), '', 'a.exe', '%00.jpg'])}"`
      : '';
    const type = filename
      ? `\r\nContent-Type: ${pick(['image/png', 'text/plain', 'application/octet-stream', ''])}`
      : '';
    return `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename}${type}\r\n\r\n${pick(['', 'data', '\u0089PNG\r\n', String(pick(STRINGS)).slice(0, 2000)])}\r\n`;
  });
  const end = chance(0.9) ? `--${boundary}--\r\n` : '';
  return { payload: parts.join('') + end, contentType: `multipart/form-data; boundary=${boundary}` };
}

function body(op: Operation): { payload?: string; contentType?: string } {
  if (op.multipart && chance(0.7)) return multipart(op);
  const roll = random();
  if (roll < 0.08) return {};
  if (roll < 0.13) return { payload: '', contentType: 'application/json' };
  if (roll < 0.2)
    return {
      payload: pick([
        '{',
        '[1,',
        '{"a":1}}',
        'null',
        '"text"',
        '42',
        '[]',
        '{"__proto__":{"x":1}}',
        '{"constructor":{"prototype":{"x":1}}}',
      ]),
      contentType: 'application/json',
    };
  if (roll < 0.26)
    return {
      payload: toJson(hostileValue()),
      contentType: pick([
        'text/plain',
        'application/xml',
        'application/json; charset=latin1',
        'multipart/form-data; boundary=x',
      ]),
    };
  // An object without a prototype: a `__proto__` field is then an own key, as a client sends it.
  const fields = Object.create(null) as Record<string, unknown>;
  // Mostly a body the schema takes but for at most one field, so the handlers are reached too.
  const mostlyValid = chance(0.6);
  for (const [field, schema] of op.body) {
    if (chance(0.7)) fields[field] = mostlyValid ? plausible(schema) : fieldValue(schema);
  }
  if (mostlyValid && op.body.length > 0 && chance(0.5)) fields[pick(op.body)[0]] = hostileValue();
  if (chance(0.2)) fields[pick(['__proto__', 'constructor', 'unknown', 'x'.repeat(1000)])] = hostileValue();
  if (chance(0.2)) {
    const form = Object.entries(fields)
      .map(
        ([key, value]) =>
          `${encodeURIComponent(key)}=${typeof value === 'string' ? pick(QUERY_VALUES) : encodeURIComponent(toJson(value)).slice(0, 2000)}`,
      )
      .join('&');
    return { payload: form, contentType: 'application/x-www-form-urlencoded' };
  }
  return { payload: toJson(fields), contentType: 'application/json' };
}

t.test('random hostile requests to every documented route never get a 5xx', async (t) => {
  const { app } = await buildTestApp(t, {
    config: { chatbotRateLimit: 0 },
    fixture: {
      users: ROLE_USERS,
      sites: [{ id: 1, slug: 'main', title: 'Main' }],
      item_sets: [
        { id: 10, title: 'Maps', site_ids: [1] },
        { id: 11, title: 'Private set', is_public: false },
      ],
      items: [
        {
          id: 100,
          title: 'Map',
          item_set_ids: [10, 11],
          site_ids: [1],
          media: [
            { id: 1000, title: 'Scan', text: 'map text' },
            { id: 1001, title: 'Notes', is_public: false },
          ],
        },
        { id: 101, title: 'Private item', is_public: false },
      ],
      site_pages: [
        {
          id: 5,
          site_id: 1,
          slug: 'about',
          title: 'About',
          blocks: [{ layout: 'html', data: { html: '<p>About</p>' } }],
        },
        { id: 6, site_id: 1, slug: 'draft', title: 'Draft', is_public: false },
      ],
      blog: {
        categories: [{ id: 1, name: 'News', slug: 'news' }],
        posts: [
          {
            id: 1,
            title: 'Hello',
            slug: 'hello',
            content: '<p>Hi</p>',
            status: 'published',
            author_id: 1,
            category_id: 1,
            tags: ['maps'],
            site_ids: [1],
            published_at: '2026-01-02 03:04:05',
          },
        ],
        comments: [
          { id: 1, post_id: 1, author_name: 'Bo', author_email: 'bo@example.org', body: 'Nice', status: 'approved' },
        ],
      },
      directory: {
        library: { name: 'City Library', plan: 'plus' },
        tokens: [{ token: TOKEN, allowed_origins: [] }],
        subjects: [{ handle: 'history', name: 'History' }],
        types: [{ handle: 'journals', name: 'Journals' }],
        databases: [
          {
            handle: 'jstor',
            name: 'JSTOR',
            url: 'https://www.jstor.org/',
            subjects: ['history'],
            types: ['journals'],
            access: 'open',
          },
        ],
        lists: [{ handle: 'starter', name: 'Start', databases: ['jstor'] }],
      },
    },
  });
  const cookie = await sessionFor(app, 'global_admin');
  const ops = operations((await app.inject({ method: 'GET', url: '/api/docs.json' })).json() as OpenApi);
  t.ok(ops.length > 30, `${ops.length} operations documented`);

  const callers: { name: string; query: string; headers: Record<string, string> }[] = [
    { name: 'anonymous', query: '', headers: {} },
    { name: 'admin key', query: keyFor('global_admin'), headers: {} },
    { name: 'admin session', query: '', headers: { cookie } },
  ];
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  const started = Date.now();
  let sent = 0;
  while (sent < REQUESTS && Date.now() - started < TIME_BUDGET_MS) {
    const op = pick(ops);
    const caller = pick(callers);
    const path = op.path.replace(/\{[^}]+\}/g, () => pick(PATH_VALUES));
    const params: string[] = [];
    for (const [name, schema] of op.query) {
      if (!chance(0.5)) continue;
      const value = () => (chance(0.5) ? encodeURIComponent(String(plausible(schema))) : pick(QUERY_VALUES));
      // Now and then the parameter twice, or in the bracket form some clients send lists in.
      const key = chance(0.1) ? `${name}[]` : name;
      params.push(`${key}=${value()}`);
      if (chance(0.1)) params.push(`${key}=${value()}`);
    }
    if (chance(0.1)) params.push(`${pick(['unknown', '__proto__', 'x'.repeat(500)])}=${pick(QUERY_VALUES)}`);
    if (caller.query) params.push(caller.query);
    if (path.startsWith('/api/v1/') && chance(0.8)) params.push(`token=${TOKEN}`);
    const url = params.length > 0 ? `${path}?${params.join('&')}` : path;
    const hasBody = ['POST', 'PUT', 'PATCH'].includes(op.method) || chance(0.05);
    const { payload, contentType } = hasBody ? body(op) : {};
    const request: InjectOptions = {
      method: op.method as InjectOptions['method'],
      url,
      headers: { ...caller.headers, ...hostileHeaders(), ...(contentType ? { 'content-type': contentType } : {}) },
      ...(payload !== undefined ? { payload } : {}),
    };
    const res = await answerWithin(app.inject(request), ANSWER_WITHIN_MS);
    sent++;
    if (res === null) {
      failures.push(
        `no answer within ${ANSWER_WITHIN_MS} ms: ${op.method} ${url.slice(0, 300)} as ${caller.name}\n  headers: ${JSON.stringify(request.headers)}\n  body: ${JSON.stringify(payload)?.slice(0, 600)}`,
      );
      break;
    }
    statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
    if (res.statusCode >= 500) {
      failures.push(
        `${res.statusCode} ${op.method} ${url.slice(0, 300)} as ${caller.name}\n  content-type: ${contentType}\n  body: ${String(payload).slice(0, 300)}\n  answer: ${res.body.slice(0, 300)}`,
      );
    }
  }
  const answered = [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}: ${n}`);
  t.comment(`seed ${SEED}: ${sent} requests in ${Date.now() - started} ms; ${answered.join(', ')}`);
  t.ok(sent >= Math.min(REQUESTS, 1000), `${sent} requests sent`);
  t.same(failures, [], `no 5xx (reproduce with FUZZ_SEED=${SEED})`);
  t.equal(({} as Record<string, unknown>).x, undefined, 'no prototype pollution');
});
