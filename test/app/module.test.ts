import { Type } from '@sinclair/typebox';
import t, { type Test } from 'tap';
import { buildApp } from '../../app/app.js';
import { testConfig } from '../test-config.js';
import type { AppModule } from '../../app/kernel.js';
import type { RoutesPlugin } from '../../routes/http/routes-plugin.js';
import { createRuntime } from '../../app/runtime.js';
import { usersModule } from '../../app/modules/core.js';
import { json } from '../helper.js';

const postParts: RoutesPlugin = async (app, { runtime }) => {
  app.get(
    '/:id',
    {
      schema: {
        params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
        querystring: Type.Object({ note: Type.Optional(Type.String()) }),
      },
    },
    // Typed from the schemas: `id` is a number and `note` a string without a cast, or this file does not compile.
    async (request) => ({
      id: request.params.id + 1,
      note: request.query.note?.toUpperCase() ?? null,
      baseUrl: runtime.config.baseUrl,
    }),
  );
};

function moduleWith(prefix: string): AppModule {
  return {
    name: 'test-routes',
    create: () => ({
      routes: async (app, { runtime }) => {
        await app.register(postParts, { runtime, prefix });
      },
    }),
  };
}

async function appWith(t: Test, module: AppModule) {
  const runtime = await createRuntime(testConfig(t.testdir(), { baseUrl: 'http://test.local' }), {
    modules: [usersModule, module],
  });
  t.teardown(() => runtime.close());
  return buildApp(runtime);
}

t.test('a module registers its routes as a typed plugin under a prefix, gated by the full URL', async (t) => {
  const app = await appWith(t, moduleWith('/api/blog_posts'));
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'GET', url: '/api/blog_posts/41?note=hi' });
  t.equal(res.statusCode, 200);
  t.same(
    json(res),
    { id: 42, note: 'HI', baseUrl: 'http://test.local' },
    "the path parameter arrives as the schema's integer, the runtime as the plugin option",
  );
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/blog_posts/0' })).statusCode,
    422,
    'the params schema still validates (native error shape)',
  );
  t.equal(
    (await app.inject({ method: 'GET', url: '/41' })).statusCode,
    404,
    'nothing is registered without the prefix',
  );
});

t.test('the permission gate sees the prefixed URL: a route the table does not know stops the start', async (t) => {
  await t.rejects(
    appWith(t, moduleWith('/api/not_in_the_table')),
    /GET \/api\/not_in_the_table\/:id has no entry in the permission table/,
  );
});
