import t from 'tap';
import { derivedOperationId, securityFor } from '../../app/openapi-operations.js';
import { buildTestApp, json } from '../helper.js';

interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
  responses: Record<
    string,
    {
      headers?: Record<string, { required?: boolean; schema: object }>;
      content?: Record<string, { schema: { title?: string } }>;
    }
  >;
}
type Paths = Record<string, Record<string, Operation>>;

/** Operations that answer no 4xx by design (listed with the reason in redocly.yaml). */
const NO_CLIENT_ERROR = new Set([
  'post /logout',
  'get /api-context',
  'get /widget.js',
  'get /chat-widget.js',
  'get /health',
  'get /iiif/discovery/changes',
  'get /oai-pmh',
]);

/** 4xx answers without a body by design: a range outside the file says only its size, in Content-Range. */
const EMPTY_CLIENT_ERRORS = new Set([
  'get /asset-files/{file} 416',
  'get /files/original/{file} 416',
  'get /api/backups/{id}/archive 416',
]);

t.test('operation ids are derived from the method and the path', async (t) => {
  t.equal(derivedOperationId('GET', '/api/blog_posts/:id'), 'getApiBlogPostsById');
  t.equal(
    derivedOperationId('POST', '/api/page-versioning/version/:versionId/revert'),
    'postApiPageVersioningVersionByVersionIdRevert',
  );
});

t.test(
  'security follows the permission table: anonymous callers welcome show an empty requirement first',
  async (t) => {
    t.same(securityFor({ credentials: [], allow: 'public' }), []);
    t.same(securityFor({ credentials: ['api_key', 'session'], allow: 'everyone' }), [
      {},
      { apiKeyIdentity: [], apiKeyCredential: [] },
      { session: [] },
    ]);
    t.same(securityFor({ credentials: ['session'], allow: 'logged_in' }), [{ session: [] }]);
    t.same(securityFor({ credentials: ['directory_token'], allow: 'directory_token' }), [{ directoryToken: [] }]);
  },
);

t.test(
  'every operation of /api/docs.json has a unique id, its security, its 4xx answers and its headers',
  async (t) => {
    const { app } = await buildTestApp(t);
    const doc = json<{ paths: Paths }>(await app.inject({ method: 'GET', url: '/api/docs.json' }));
    const ids = new Map<string, string>();
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const name = `${method} ${path}`;
        t.ok(operation.operationId, `${name} has an operationId`);
        t.notOk(
          ids.has(operation.operationId ?? ''),
          `${name}: ${operation.operationId} is unique (also ${ids.get(operation.operationId ?? '')})`,
        );
        ids.set(operation.operationId ?? '', name);
        t.ok(Array.isArray(operation.security), `${name} declares its security`);
        const clientErrors = Object.keys(operation.responses).filter((status) => status.startsWith('4'));
        if (!NO_CLIENT_ERROR.has(name)) t.ok(clientErrors.length > 0, `${name} lists its 4xx answers`);
        for (const status of clientErrors) {
          if (!EMPTY_CLIENT_ERRORS.has(`${name} ${status}`))
            t.ok(operation.responses[status].content, `${name} ${status} has a body schema`);
        }
        if (operation.responses['429'])
          t.ok(operation.responses['429'].headers?.['Retry-After'], `${name} 429 documents Retry-After`);
      }
    }
    t.ok(ids.size > 90, `${ids.size} operations`);
    const items = doc.paths['/api/items'].get;
    t.ok(
      items.responses['200'].headers?.['Platform-Total-Results'] && items.responses['200'].headers.Link,
      'lists document their pagination headers',
    );
    t.equal(
      items.responses['422'].content?.['application/json'].schema.title,
      'NativeError',
      'in the native error shape',
    );
    t.equal(
      doc.paths['/api/blog/posts/{id}'].get.responses['404'].content?.['application/json'].schema.title,
      'PlainError',
      'legacy blog in its own',
    );
    t.ok(doc.paths['/directory/go/{handle}'].get.responses['302'].headers?.Location, 'a redirect documents Location');
    t.same(
      doc.paths['/api/backups'].get.security,
      [{ apiKeyIdentity: [], apiKeyCredential: [] }, { session: [] }],
      'backups need a key or a session',
    );
    t.same(
      doc.paths['/api/page-versioning/{pageId}/versions'].get.security,
      [{ session: [] }],
      'version history needs a session',
    );
    t.same(doc.paths['/chatbot/api/chat'].post.security, [], 'the chatbot is public');
  },
);

t.test(
  'conditional requests are documented: If-None-Match and 304 on reads, If-Match and 412 on the writes that take it',
  async (t) => {
    const { app } = await buildTestApp(t);
    type Documented = Operation & { parameters?: { in: string; name: string }[] };
    const doc = json<{ paths: Record<string, Record<string, Documented>> }>(
      await app.inject({ method: 'GET', url: '/api/docs.json' }),
    );
    const headers = (operation: Documented) =>
      (operation.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name);
    const writes = [
      ['patch', '/api/items/{id}', 'NativeError'],
      ['delete', '/api/sites/{id}', 'NativeError'],
      ['put', '/api/blog_posts/{id}', 'NativeError'],
      ['delete', '/api/blog_comments/{id}', 'NativeError'],
      ['put', '/api/asset-picker/folders/{id}', 'StatusError'],
      ['delete', '/api/asset-picker/assets/{id}', 'StatusError'],
      ['patch', '/api/directory/databases/{handle}', 'NativeError'],
      ['post', '/api/page-versioning/version/{versionId}/revert', 'StatusError'],
    ] as const;
    for (const [method, path, shape] of writes) {
      const operation = doc.paths[path][method];
      t.ok(headers(operation).includes('If-Match'), `${method} ${path} takes If-Match`);
      t.equal(
        operation.responses['412']?.content?.['application/json'].schema.title,
        shape,
        `${method} ${path} answers 412 as ${shape}`,
      );
      t.ok(operation.responses['412'].headers?.ETag, 'with the current ETag');
    }
    t.notOk(doc.paths['/api/blog_posts'].post.responses['412'], 'a create takes no If-Match');
    for (const path of [
      '/api/items',
      '/api/items/{id}',
      '/api/blog_posts',
      '/api/asset-picker/assets/{id}',
      '/api/v1/databases/{handle}',
    ]) {
      const read = doc.paths[path].get;
      t.ok(headers(read).includes('If-None-Match'), `GET ${path} takes If-None-Match`);
      t.ok(read.responses['304'], `GET ${path} may answer 304`);
      t.ok(
        read.responses['200'].headers?.ETag && read.responses['200'].headers['Cache-Control'],
        'its 200 documents ETag and Cache-Control',
      );
    }
    t.notOk(
      doc.paths['/api/items/{id}'].delete.responses['200'].headers?.ETag,
      'a deletion answers the record as it was, without ETag',
    );
    t.ok(
      doc.paths['/api/blog_posts'].post.responses['201'].headers?.ETag,
      'a create that answers the new ETag documents it',
    );
    t.notOk(doc.paths['/api/blog_comments'].post.responses['201'].headers?.ETag, 'one that does not, does not');
    t.notOk(doc.paths['/directory/go/{handle}'].get.responses['304'], 'a redirect never becomes a 304');
    t.ok(
      doc.paths['/api/items'].get.responses['304'].headers?.['Platform-Total-Results'],
      "a list's 304 keeps its total",
    );
  },
);

t.test('response headers always sent are required; those sent only sometimes are not, and say when', async (t) => {
  const { app } = await buildTestApp(t);
  const res = await app.inject({ method: 'GET', url: '/api/docs.json' });
  t.notMatch(res.body, 'x-sometimes-sent', 'the marker of headers sent sometimes stays out of the document');
  const doc = json<{ paths: Paths }>(res);
  const list = doc.paths['/api/items'].get.responses['200'].headers ?? {};
  t.equal(list.ETag?.required, true, 'ETag is always sent');
  t.equal(list['Platform-Total-Results']?.required, true, 'so is the total');
  t.equal(list.Link?.required, undefined, 'Link is left out when the query is too long to repeat');
  t.equal(list.Vary?.required, undefined, 'Vary only when the answer depends on a request header');
  t.equal(
    doc.paths['/api/v1/databases'].get.responses['401'].headers?.Vary?.required,
    true,
    'the directory API varies by Origin, errors included',
  );
});
