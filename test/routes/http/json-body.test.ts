import t from 'tap';
import { JSON_LIMITS, jsonLimitBreach } from '../../../routes/http/json-body.js';
import { buildTestApp, json, keyFor, ROLE_USERS, sessionFor } from '../../helper.js';

/** A JSON text of `levels` objects inside one another: `{"a":{"a":...{"a":1}}}`. */
function nested(levels: number): string {
  return '{"a":'.repeat(levels - 1) + '{"a":1' + '}'.repeat(levels);
}

t.test('the limits: depth, keys per object, entries per array, values in all', async (t) => {
  t.equal(jsonLimitBreach(JSON.parse(nested(JSON_LIMITS.depth))), null, '64 levels pass');
  t.match(jsonLimitBreach(JSON.parse(nested(JSON_LIMITS.depth + 1))), /nested more than 64 levels/);
  t.equal(jsonLimitBreach(JSON.parse('['.repeat(64) + ']'.repeat(64))), null, 'arrays count as levels too');
  t.match(jsonLimitBreach(JSON.parse('['.repeat(65) + ']'.repeat(65))), /nested more than 64 levels/);
  t.match(
    jsonLimitBreach(JSON.parse(nested(200_000))),
    /nested more than 64 levels/,
    'any depth is refused without a recursion',
  );

  const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
  t.equal(jsonLimitBreach(keys(1000)), null);
  t.match(jsonLimitBreach(keys(1001)), /more than 1000 keys/);
  t.equal(jsonLimitBreach(new Array(10_000).fill(0)), null);
  t.match(jsonLimitBreach(new Array(10_001).fill(0)), /more than 10000 entries/);
  const manyValues = Array.from({ length: 11 }, () => new Array(10_000).fill(0));
  t.match(jsonLimitBreach(manyValues), /more than 100000 values/);

  t.equal(jsonLimitBreach(JSON.parse('{"__proto__":{"x":1}}')), 'The key __proto__ is not allowed.');
  t.equal(
    jsonLimitBreach(JSON.parse('{"a":[{"b":{"__proto__":1}}]}')),
    'The key __proto__ is not allowed.',
    'at any depth',
  );
  t.match(jsonLimitBreach(JSON.parse('{"constructor":{"prototype":{"x":1}}}')), /constructor/);
  t.equal(jsonLimitBreach(JSON.parse('{"constructor":"a name","prototype":1}')), null, 'the words alone are fine');
  t.equal(({} as Record<string, unknown>).x, undefined, 'nothing polluted');
});

const fixture = {
  users: ROLE_USERS,
  sites: [{ id: 1, slug: 'main', title: 'Main' }],
  site_pages: [{ id: 5, site_id: 1, slug: 'about', title: 'About' }],
  blog: {
    posts: [
      {
        id: 1,
        title: 'Hello',
        slug: 'hello',
        content: '<p>Hi</p>',
        status: 'published',
        author_id: 1,
        published_at: '2026-01-02 03:04:05',
      },
    ],
  },
};

t.test('every surface refuses a body past a limit when it is parsed, in its own shape', async (t) => {
  const { app } = await buildTestApp(t, { fixture });
  const cookie = await sessionFor(app, 'global_admin');
  const versions = await app.inject({ method: 'GET', url: '/api/page-versioning/5/versions', headers: { cookie } });
  const versionId = json<{ data: { versions: { id: number }[] } }>(versions).data.versions[0].id;
  const depthMessage = 'The request body is nested more than 64 levels deep.';

  /** One JSON field around a value of `levels - 1` levels, so the whole body has `levels`. */
  const bodyWith = (fields: Record<string, unknown>, field: string, levels: number) =>
    JSON.stringify(fields).replace(
      /}$/,
      `${Object.keys(fields).length > 0 ? ',' : ''}"${field}":${nested(levels - 1)}}`,
    );

  interface Surface {
    name: string;
    url: string;
    fields: Record<string, unknown>;
    field: string;
    ok: number;
    refused: number;
    shape: object;
  }
  const surfaces: Surface[] = [
    {
      name: 'native',
      url: `/api/site_pages?${keyFor('global_admin')}`,
      fields: { 'o:site': { 'o:id': 1 }, 'o:title': 'Deep' },
      field: 'o:layout_data',
      ok: 201,
      refused: 422,
      shape: { errors: { body: [depthMessage] } },
    },
    {
      name: 'legacy blog',
      url: '/api/blog/posts',
      fields: { title: 'Deep', content: '<p>x</p>' },
      field: 'extra',
      ok: 201,
      refused: 422,
      shape: { error: depthMessage },
    },
    {
      name: 'chatbot',
      url: '/chatbot/api/search',
      fields: { query: 'map' },
      field: 'extra',
      ok: 200,
      refused: 400,
      shape: { error: depthMessage },
    },
    {
      name: 'asset library',
      url: '/api/asset-picker/folders',
      fields: { title: 'Deep' },
      field: 'extra',
      ok: 201,
      refused: 400,
      shape: { status: 'error', message: depthMessage },
    },
    {
      name: 'page versioning',
      url: `/api/page-versioning/version/${versionId}/revert`,
      fields: {},
      field: 'extra',
      ok: 200,
      refused: 400,
      shape: { status: 'error', message: depthMessage },
    },
    {
      name: 'backups (own parser)',
      url: `/api/backups?${keyFor('global_admin')}`,
      fields: {},
      field: 'extra',
      ok: 422,
      refused: 422,
      shape: { errors: { body: [depthMessage] } },
    },
  ];
  for (const surface of surfaces) {
    const send = (levels: number, fields: Record<string, unknown> = surface.fields) =>
      app.inject({
        method: 'POST',
        url: surface.url,
        headers: { cookie, 'content-type': 'application/json' },
        payload: bodyWith(fields, surface.field, levels),
      });
    const passing = await send(
      63,
      surface.name === 'native' ? { ...surface.fields, 'o:slug': 'deep-63' } : surface.fields,
    );
    if (surface.name === 'backups (own parser)') {
      // Backups refuse unknown flags: 63 levels get as far as the schema, 65 do not.
      t.notMatch(passing.body, /nested more than/, `${surface.name}: 63 levels are parsed`);
    } else {
      t.equal(passing.statusCode, surface.ok, `${surface.name}: 63 levels pass (${passing.body.slice(0, 200)})`);
    }
    const refused = await send(
      65,
      surface.name === 'native' ? { ...surface.fields, 'o:slug': 'deep-65' } : surface.fields,
    );
    t.equal(refused.statusCode, surface.refused, `${surface.name}: 65 levels are refused`);
    t.same(json(refused), surface.shape, `${surface.name}: in the surface's shape, naming the limit`);
  }
});

t.test('the reported reproductions: deep layout data, and __proto__ named for what it is', async (t) => {
  const { app } = await buildTestApp(t, { fixture });
  const cookie = await sessionFor(app, 'global_admin');
  for (const levels of [4000, 4200]) {
    const res = await app.inject({
      method: 'POST',
      url: `/api/site_pages?${keyFor('global_admin')}`,
      headers: { 'content-type': 'application/json' },
      payload: `{"o:site":{"o:id":1},"o:slug":"deep-${levels}","o:title":"Deep","o:layout_data":${nested(levels)}}`,
    });
    t.equal(res.statusCode, 422, `${levels} levels: refused, neither stored nor a 500`);
    t.same(json(res), { errors: { body: ['The request body is nested more than 64 levels deep.'] } });
    const stored = await app.inject({ method: 'GET', url: `/api/site_pages?site_id=1&${keyFor('global_admin')}` });
    t.notMatch(stored.body, new RegExp(`deep-${levels}`), 'nothing stored');
  }
  const cases = [
    {
      url: `/api/items?${keyFor('global_admin')}`,
      body: { errors: { body: ['The key __proto__ is not allowed.'] } },
      status: 422,
    },
    { url: '/api/blog/posts', body: { error: 'The key __proto__ is not allowed.' }, status: 422 },
    { url: '/chatbot/api/chat', body: { error: 'The key __proto__ is not allowed.' }, status: 400 },
    {
      url: '/api/asset-picker/folders',
      body: { status: 'error', message: 'The key __proto__ is not allowed.' },
      status: 400,
    },
  ];
  for (const { url, body, status } of cases) {
    const res = await app.inject({
      method: 'POST',
      url,
      headers: { cookie, 'content-type': 'application/json' },
      payload: '{"question":"map","o:title":"x","title":"x","content":"x","__proto__":{"polluted":true}}',
    });
    t.equal(res.statusCode, status, url);
    t.same(json(res), body, `${url}: says which key is refused`);
  }
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'nothing polluted');
  const broken = await app.inject({
    method: 'POST',
    url: `/api/items?${keyFor('global_admin')}`,
    headers: { 'content-type': 'application/json' },
    payload: '{"o:title":',
  });
  t.same(
    [broken.statusCode, json(broken)],
    [400, { errors: { error: 'The request body is not valid JSON.' } }],
    'broken JSON is still told so',
  );
});

t.test('the OpenAPI document states the limits', async (t) => {
  const { app } = await buildTestApp(t);
  const doc = json<{ info: { description: string } }>(await app.inject({ method: 'GET', url: '/api/docs.json' }));
  t.match(
    doc.info.description,
    /64 levels of nesting, 1000 keys in an object, 10000 entries in an array, 100000 values in all, and no `__proto__` key/,
  );
});
