import Fastify from 'fastify';
import t from 'tap';
import { buildSerializerOnFirstUse } from '../../app/serialization.js';

function appWith(response: Record<string, unknown>) {
  const app = Fastify({ schemaController: { compilersFactory: { buildSerializer: buildSerializerOnFirstUse } } });
  app.get('/thing', { schema: { response: { 200: response } } }, async () => ({
    id: 7,
    name: 'map',
    secret: 'not in the schema',
  }));
  return app;
}

t.test('answers are serialized by the response schema, as Fastify would: fields it lacks are left out', async (t) => {
  const app = appWith({ type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } });
  t.teardown(() => app.close());
  for (let i = 0; i < 2; i++) {
    const res = await app.inject({ method: 'GET', url: '/thing' });
    t.equal(res.statusCode, 200);
    t.same(res.json(), { id: 7, name: 'map' }, `answer ${i + 1}`);
  }
});

t.test('a serializer is built when its route first answers, not when the app starts', async (t) => {
  // fast-json-stringify refuses a $ref it cannot resolve when it builds the serializer.
  const app = appWith({ $ref: 'missing#/definitions/thing' });
  t.teardown(() => app.close());
  await t.resolves(async () => {
    await app.ready();
  }, 'the app starts without building it');
  const res = await app.inject({ method: 'GET', url: '/thing' });
  t.equal(res.statusCode, 500, 'the first answer builds it, and fails');
});
