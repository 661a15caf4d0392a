import t from 'tap';
import { Type, type TSchema } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import { describeIssues, firstFieldMessage, type ValidationIssue } from '../../app/validation-messages.js';
import { buildTestApp, json, keyFor, ROLE_USERS, sessionFor } from '../helper.js';

function issuesOf(schema: TSchema, value: unknown): ValidationIssue[] {
  const validate = new Ajv({ allErrors: false }).compile(schema);
  t.notOk(validate(value), 'the value is refused');
  return validate.errors ?? [];
}

t.test('a union of literals names the values it accepts', async (t) => {
  const schema = Type.Object({
    status: Type.Union([Type.Literal('draft'), Type.Literal('pending'), Type.Literal('published')]),
  });
  const fields = describeIssues(issuesOf(schema, { status: 'live' }));
  t.same(fields, { status: ['status must be one of draft, pending, published.'] });
  t.equal(firstFieldMessage(fields), 'status must be one of draft, pending, published.');
});

t.test('a nullable value names both types; nested paths are named in full under their field', async (t) => {
  const schema = Type.Object({ 'o:item': Type.Object({ 'o:id': Type.Union([Type.Integer(), Type.Null()]) }) });
  t.same(describeIssues(issuesOf(schema, { 'o:item': { 'o:id': 'x' } })), {
    'o:item': ['o:item.o:id must be an integer or null.'],
  });
  const list = Type.Object({ ids: Type.Array(Type.Integer({ minimum: 1 })) });
  t.same(describeIssues(issuesOf(list, { ids: [3, 0] })), { ids: ['ids[1] must be at least 1.'] });
});

t.test('each keyword reads as a sentence about the field', async (t) => {
  const cases: [TSchema, unknown, string][] = [
    [Type.Object({ title: Type.String() }), { title: 5 }, 'title must be a string.'],
    [Type.Object({ title: Type.String({ minLength: 1 }) }), { title: '' }, 'title must not be empty.'],
    [
      Type.Object({ title: Type.String({ maxLength: 3 }) }),
      { title: 'long' },
      'title must be at most 3 characters long.',
    ],
    [Type.Object({ n: Type.Integer({ maximum: 9 }) }), { n: 10 }, 'n must be at most 9.'],
    [Type.Object({ flag: Type.Boolean() }), { flag: 'yes' }, 'flag must be true or false.'],
    [
      Type.Object({ tags: Type.Array(Type.String(), { maxItems: 1 }) }),
      { tags: ['a', 'b'] },
      'tags must have at most 1 entries.',
    ],
  ];
  for (const [schema, value, message] of cases)
    t.same(Object.values(describeIssues(issuesOf(schema, value)))[0], [message], message);
  t.same(describeIssues(issuesOf(Type.Object({ title: Type.String() }), {})), { title: ['This field is required.'] });
  t.equal(firstFieldMessage({ title: ['This field is required.'] }), 'title is required.');
});

t.test('API validation errors name the field and what it accepts, in each surface shape', async (t) => {
  const { app } = await buildTestApp(t, { fixture: { users: ROLE_USERS } });
  const item = await app.inject({
    method: 'POST',
    url: `/api/items?${keyFor('editor')}`,
    payload: { 'o:title': 'Map', 'o:is_public': 'yes' },
  });
  t.equal(item.statusCode, 422);
  t.same(json(item), { errors: { 'o:is_public': ['o:is_public must be true or false.'] } });

  const post = await app.inject({
    method: 'POST',
    url: `/api/blog_posts?${keyFor('editor')}`,
    payload: { title: 'Hello', status: 'live' },
  });
  t.equal(post.statusCode, 422);
  t.same(json(post), { errors: { status: ['status must be one of draft, pending, published.'] } });

  const cookie = await sessionFor(app, 'editor');
  const legacy = await app.inject({
    method: 'POST',
    url: '/api/blog/posts',
    headers: { cookie },
    payload: { title: 'Hello', content: '<p>Hi</p>', status: 'live' },
  });
  t.equal(legacy.statusCode, 422);
  t.match(json(legacy), { error: /^status must be one of draft, pending, published/ });

  const list = await app.inject({ method: 'GET', url: '/api/blog_posts?per_page=many' });
  t.equal(list.statusCode, 422);
  t.same(json(list), { errors: { per_page: ['per_page must be an integer.'] } });
});
