import formbody from '@fastify/formbody';
import Fastify from 'fastify';
import { parse as parseQueryString } from 'fast-querystring';
import t from 'tap';
import { markFormBody, validatorCompiler } from '../../../routes/http/validation.js';

async function appWithRoute() {
  const app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  await app.register(formbody, { parser: (text) => markFormBody(parseQueryString(text)) });
  const properties = { count: { type: 'integer' }, name: { type: 'string' }, flag: { type: 'boolean' } };
  app.post(
    '/things/:id',
    {
      schema: {
        params: { type: 'object', properties: { id: { type: 'integer' } } },
        querystring: { type: 'object', properties: { page: { type: 'integer' } } },
        body: { type: 'object', properties },
      },
    },
    async (request) => ({ params: request.params, query: request.query, body: request.body }),
  );
  return app;
}

t.test('a JSON body keeps its types: a wrong one is refused, never converted', async (t) => {
  const app = await appWithRoute();
  t.teardown(() => app.close());
  for (const body of [{ count: '3' }, { name: 5 }, { name: ['x'] }, { flag: 'true' }, { count: 1.5 }]) {
    const res = await app.inject({ method: 'POST', url: '/things/1', payload: body });
    t.equal(res.statusCode, 400, JSON.stringify(body));
  }
  const ok = await app.inject({ method: 'POST', url: '/things/1', payload: { count: 3, name: 'x', flag: true } });
  t.equal(ok.statusCode, 200);
  t.same(ok.json<{ body: unknown }>().body, { count: 3, name: 'x', flag: true });
});

t.test('a form body, the query string and the path are text: their values are converted', async (t) => {
  const app = await appWithRoute();
  t.teardown(() => app.close());
  const postForm = (url: string, text: string) =>
    app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: text,
    });
  const res = await postForm('/things/7?page=2', 'count=3&name=5&flag=true');
  t.equal(res.statusCode, 200, res.body);
  t.same(res.json(), { params: { id: 7 }, query: { page: 2 }, body: { count: 3, name: '5', flag: true } });
  const bad = await postForm('/things/7', 'count=three');
  t.equal(bad.statusCode, 400, 'text that is no number is still refused');
  t.equal(
    (await app.inject({ method: 'POST', url: '/things/x', payload: {} })).statusCode,
    400,
    'a path id that is no number',
  );
});

t.test('text that reads as an infinite number is refused, in the query, the path and a form', async (t) => {
  const app = await appWithRoute();
  t.teardown(() => app.close());
  for (const [url, payload, type] of [
    ['/things/1?page=1e400', {}, 'application/json'],
    ['/things/1?page=-1e400', {}, 'application/json'],
    ['/things/1e400', {}, 'application/json'],
    ['/things/1', 'count=1e400', 'application/x-www-form-urlencoded'],
  ] as const) {
    const res = await app.inject({ method: 'POST', url, payload, headers: { 'content-type': type } });
    t.equal(res.statusCode, 400, `${url} ${JSON.stringify(payload)}`);
    t.match(res.json(), { message: /must be a finite number/ });
  }
  const fine = await app.inject({ method: 'POST', url: '/things/1e3?page=2', payload: {} });
  t.equal(fine.statusCode, 200, 'a finite exponent is a number like any other');
});

t.test('page=1e400 on the lists that once answered 500', async (t) => {
  const { buildTestApp, ROLE_USERS, sessionFor } = await import('../../helper.js');
  const { app } = await buildTestApp(t, { fixture: { users: ROLE_USERS } });
  const cookie = await sessionFor(app, 'editor');
  for (const [url, status, shape] of [
    ['/api/blog/posts?page=1e400', 422, { error: 'page must be a finite number.' }],
    ['/api/blog_posts?page=1e400', 422, { errors: { page: ['page must be a finite number.'] } }],
    ['/api/items?page=1e400', 422, { errors: { page: ['page must be a finite number.'] } }],
    ['/api/asset-picker/assets?page=1e400', 400, { status: 'error', message: 'page must be a finite number.' }],
  ] as const) {
    const res = await app.inject({ method: 'GET', url, headers: { cookie } });
    t.equal(res.statusCode, status, url);
    t.same(res.json(), shape, `${url}: in the surface's shape`);
  }
});
