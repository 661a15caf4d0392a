import t from 'tap';
import { Ajv } from 'ajv';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildTestApp, json, keyFor, ROLE_USERS, sessionFor } from '../helper.js';
import { multipart, PNG } from '../routes/assets/support.js';
import { directoryFixture, OPEN_TOKEN } from '../routes/directory/fixture.js';

/**
 * The document tells the truth about answers: real requests, at least one per tag and each kind
 * of answer a third-party client generated from the document would meet, and each answer's
 * status, media type and body checked against what the document declares for its operation,
 * with the document's own schemas (ajv, as such a client would).
 */

interface Answer {
  content?: Record<string, { schema: object }>;
}
interface Operation {
  tags?: string[];
  responses: Record<string, Answer>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
}

const FIXTURE = {
  users: ROLE_USERS,
  sites: [{ id: 1, slug: 'main', title: 'Main site' }],
  item_sets: [{ id: 10, title: 'Maps', site_ids: [1] }],
  items: [{ id: 100, title: 'Map of Lisbon', description: 'text', item_set_ids: [10], site_ids: [1], is_public: true, media: [{ id: 1000, title: 'Scan', text: 'words', is_public: true }] }],
  site_pages: [{ id: 5, site_id: 1, slug: 'about', title: 'About', is_public: true, layout: null, layout_data: {}, blocks: [{ layout: 'html', data: { html: '<p>Hi</p>' } }] }],
  blog: {
    categories: [{ id: 1, name: 'News', slug: 'news', description: '' }],
    posts: [{ id: 1, title: 'Hello', slug: 'hello', excerpt: '', content: '<p>Hi</p>', status: 'published', author_id: 1, category_id: 1, tags: ['maps'], site_ids: [1], published_at: '2026-01-02 03:04:05' }],
  },
  directory: directoryFixture(),
};

/** `application/json; charset=utf-8` → `application/json`. */
const mediaTypeOf = (res: LightMyRequestResponse) => String(res.headers['content-type'] ?? '').split(';')[0].trim();

t.test('real answers match the status, media type and body schema the document declares for their operation', async (t) => {
  const { app } = await buildTestApp(t, { fixture: FIXTURE });
  const doc = json<Document>(await app.inject({ method: 'GET', url: '/api/docs.json' }));
  // OpenAPI 3.0 schemas: `nullable`, `format: binary` and descriptive keywords are not JSON Schema's strict vocabulary.
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
  const exercised = new Set<string>();

  async function answer(operation: string, request: InjectOptions, expected?: number): Promise<LightMyRequestResponse> {
    const [method, path] = operation.split(' ');
    const documented = doc.paths[path]?.[method];
    if (!documented) {
      t.fail(`${operation} is in the document`);
      return app.inject(request);
    }
    const res = await app.inject(request);
    const name = `${operation} → ${res.statusCode}`;
    exercised.add(operation);
    for (const tag of documented.tags ?? []) exercised.add(`tag ${tag}`);
    if (expected !== undefined) t.equal(res.statusCode, expected, `${name}: the status this case is about`);
    const declared = documented.responses[String(res.statusCode)];
    if (!declared) {
      t.fail(`${name} is a documented status (${Object.keys(documented.responses).join(', ')})`);
      return res;
    }
    if (!declared.content) {
      t.equal(res.rawPayload.length, 0, `${name}: no body, as documented`);
      return res;
    }
    const mediaType = mediaTypeOf(res);
    const body = declared.content[mediaType];
    if (!body) {
      t.fail(`${name}: ${mediaType} is a documented media type (${Object.keys(declared.content).join(', ')})`);
      return res;
    }
    if (mediaType === 'application/json') {
      const validate = ajv.compile(body.schema);
      const valid = validate(json(res));
      t.ok(valid, `${name}: the body matches the documented schema`, { errors: validate.errors, body: res.body.slice(0, 500) });
    } else if ((body.schema as { format?: string }).format !== 'binary') {
      const validate = ajv.compile(body.schema);
      t.ok(validate(res.body), `${name}: the ${mediaType} body matches the documented schema`);
    }
    return res;
  }

  const editor = await sessionFor(app, 'editor');
  const admin = `?${keyFor('global_admin')}`;

  // auth: 204, the 401 of a wrong password, a form body, a validation error.
  await answer('post /login', { method: 'POST', url: '/login', payload: { email: 'editor@example.org', password: 'editor-pass' } }, 204);
  await answer('post /login', { method: 'POST', url: '/login', payload: { email: 'editor@example.org', password: 'wrong' } }, 401);
  await answer('post /login', { method: 'POST', url: '/login', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'email=editor%40example.org&password=wrong' }, 401);
  await answer('post /login', { method: 'POST', url: '/login', payload: { email: '' } }, 422);
  await answer('post /logout', { method: 'POST', url: '/logout' }, 204);

  // platform: the context, every operation of one resource, and reads of the others.
  await answer('get /api-context', { method: 'GET', url: '/api-context' }, 200);
  for (const path of ['sites', 'item_sets', 'items', 'media', 'site_pages']) await answer(`get /api/${path}`, { method: 'GET', url: `/api/${path}${admin}` }, 200);
  await answer('get /api/sites/{id}', { method: 'GET', url: '/api/sites/1' }, 200);
  await answer('get /api/item_sets/{id}', { method: 'GET', url: '/api/item_sets/10' }, 200);
  await answer('get /api/media/{id}', { method: 'GET', url: '/api/media/1000' }, 200);
  await answer('get /api/site_pages/{id}', { method: 'GET', url: '/api/site_pages/5' }, 200);
  const item = await answer('get /api/items/{id}', { method: 'GET', url: '/api/items/100' }, 200);
  await answer('get /api/items/{id}', { method: 'GET', url: '/api/items/100', headers: { 'if-none-match': String(item.headers.etag) } }, 304);
  await answer('get /api/items/{id}', { method: 'GET', url: '/api/items/999' }, 404);
  await answer('post /api/items', { method: 'POST', url: `/api/items${admin}`, payload: {} }, 422);
  await answer('post /api/items', { method: 'POST', url: '/api/items', payload: { 'o:title': 'x' } }, 403);
  const created = json<{ 'o:id': number }>(
    await answer('post /api/items', { method: 'POST', url: `/api/items${admin}`, payload: { 'o:title': 'Atlas', 'o:site': [{ 'o:id': 1 }], 'o:unknown': 1 } }, 201),
  );
  await answer('patch /api/items/{id}', { method: 'PATCH', url: `/api/items/${created['o:id']}${admin}`, payload: { 'o:is_public': false } }, 200);
  await answer('put /api/items/{id}', { method: 'PUT', url: `/api/items/${created['o:id']}${admin}`, payload: { 'o:title': 'Atlas 2' }, headers: { 'if-match': '"1"' } }, 412);
  await answer('delete /api/items/{id}', { method: 'DELETE', url: `/api/items/${created['o:id']}${admin}` }, 200);
  // Every operation of every resource: its representation is what the document says.
  const creates: Record<string, object> = {
    sites: { 'o:slug': 'second', 'o:title': 'Second site' },
    item_sets: { 'o:title': 'Views', 'o:is_public': false, 'o:site': [{ 'o:id': 1 }] },
    items: { 'o:title': 'Globe', 'o:description': 'round', 'o:item_set': [{ 'o:id': 10 }] },
    media: { 'o:item': { 'o:id': 100 }, 'o:title': 'Back', 'o:text': 'more words' },
    site_pages: { 'o:site': { 'o:id': 1 }, 'o:slug': 'new', 'o:title': 'New', 'o:layout': null, 'o:block': [{ 'o:layout': 'html', 'o:data': { html: '<p>x</p>' } }] },
  };
  for (const [path, body] of Object.entries(creates)) {
    const made = json<{ 'o:id': number }>(await answer(`post /api/${path}`, { method: 'POST', url: `/api/${path}${admin}`, payload: body }, 201));
    const one = `/api/${path}/${made['o:id']}${admin}`;
    await answer(`get /api/${path}/{id}`, { method: 'GET', url: one }, 200);
    await answer(`put /api/${path}/{id}`, { method: 'PUT', url: one, payload: { 'o:title': 'Renamed' } }, 200);
    await answer(`patch /api/${path}/{id}`, { method: 'PATCH', url: one, payload: { ...body, 'o:title': 'Again' } }, 200);
    await answer(`delete /api/${path}/{id}`, { method: 'DELETE', url: one }, 200);
  }

  // blog, native and legacy.
  await answer('get /api/blog_posts', { method: 'GET', url: '/api/blog_posts' }, 200);
  await answer('get /api/blog_posts/{id}', { method: 'GET', url: '/api/blog_posts/1' }, 200);
  await answer('post /api/blog_categories', { method: 'POST', url: `/api/blog_categories${admin}`, payload: { name: 'Events' } }, 201);
  await answer('post /api/blog_tags', { method: 'POST', url: `/api/blog_tags${admin}`, payload: {} }, 405);
  await answer('get /api/blog/posts', { method: 'GET', url: '/api/blog/posts', headers: { cookie: editor } }, 200);
  await answer('get /api/blog/posts/{id}', { method: 'GET', url: '/api/blog/posts/999', headers: { cookie: editor } }, 404);

  // asset library: an upload, its file whole, in part, revalidated, out of range, unknown.
  const upload = multipart([{ name: 'file[0]', filename: 'map.png', content: PNG, contentType: 'image/png' }]);
  const uploaded = await answer('post /api/asset-picker/assets', { method: 'POST', url: '/api/asset-picker/assets', headers: { ...upload.headers, cookie: editor }, payload: upload.payload }, 201);
  const file = new URL(json<{ asset: { canonical_url: string } }>(uploaded).asset.canonical_url).pathname;
  const whole = await answer('get /asset-files/{file}', { method: 'GET', url: file }, 200);
  t.equal(mediaTypeOf(whole), 'image/png');
  await answer('get /asset-files/{file}', { method: 'GET', url: file, headers: { range: 'bytes=0-9' } }, 206);
  await answer('get /asset-files/{file}', { method: 'GET', url: file, headers: { 'if-none-match': String(whole.headers.etag) } }, 304);
  await answer('get /asset-files/{file}', { method: 'GET', url: file, headers: { range: 'bytes=100000-' } }, 416);
  await answer('get /asset-files/{file}', { method: 'GET', url: '/asset-files/999.png' }, 404);
  await answer('get /api/asset-picker/folders', { method: 'GET', url: '/api/asset-picker/folders', headers: { cookie: editor } }, 200);

  // backups, page versioning.
  await answer('get /api/backups', { method: 'GET', url: `/api/backups${admin}` }, 200);
  await answer('get /api/backups', { method: 'GET', url: `/api/backups?${keyFor('editor')}` }, 403);
  await answer('get /api/page-versioning/{pageId}/versions', { method: 'GET', url: '/api/page-versioning/5/versions', headers: { cookie: editor } }, 200);

  // chatbot: a preflight and a search.
  await answer('options /chatbot/api/search', { method: 'OPTIONS', url: '/chatbot/api/search', headers: { origin: 'https://museum.example', 'access-control-request-method': 'POST' } }, 204);
  await answer('post /chatbot/api/search', { method: 'POST', url: '/chatbot/api/search', payload: { query: 'lisbon' } }, 200);
  await answer('post /chatbot/api/search', { method: 'POST', url: '/chatbot/api/search', payload: {} }, 400);

  // directory: the token API, the patron links (HTML and JSON 404s), the admin API.
  const bearer = { authorization: `Bearer ${OPEN_TOKEN}` };
  await answer('get /api/v1/databases', { method: 'GET', url: '/api/v1/databases', headers: bearer }, 200);
  await answer('get /api/v1/databases/{handle}', { method: 'GET', url: '/api/v1/databases/jstor', headers: bearer }, 200);
  await answer('get /api/v1/databases', { method: 'GET', url: '/api/v1/databases' }, 401);
  await answer('get /directory/databases/{handle}', { method: 'GET', url: '/directory/databases/jstor' }, 200);
  await answer('get /directory/databases/{handle}', { method: 'GET', url: '/directory/databases/nope', headers: { accept: 'text/html' } }, 404);
  await answer('get /directory/databases/{handle}', { method: 'GET', url: '/directory/databases/nope', headers: { accept: 'application/json' } }, 404);
  await answer('get /directory/go/{handle}', { method: 'GET', url: '/directory/go/jstor' }, 302);
  await answer('get /directory/go/{handle}', { method: 'GET', url: '/directory/go/nope', headers: { accept: 'text/html' } }, 404);
  await answer('get /api/directory/library', { method: 'GET', url: `/api/directory/library${admin}` }, 200);

  // widgets and operations.
  await answer('get /widget.js', { method: 'GET', url: '/widget.js' }, 200);
  await answer('get /chat-widget.js', { method: 'GET', url: '/chat-widget.js' }, 200);
  await answer('get /health', { method: 'GET', url: '/health' });

  const tags = new Set(Object.values(doc.paths).flatMap((operations) => Object.values(operations).flatMap((operation) => operation.tags ?? [])));
  for (const tag of tags) t.ok(exercised.has(`tag ${tag}`), `an answer of tag ${tag} is checked`);
  const platform = Object.entries(doc.paths).flatMap(([path, operations]) =>
    Object.entries(operations).filter(([, operation]) => operation.tags?.includes('platform')).map(([method]) => `${method} ${path}`),
  );
  t.same(platform.filter((operation) => !exercised.has(operation)), [], `each of the ${platform.length} platform operations is checked`);
});
