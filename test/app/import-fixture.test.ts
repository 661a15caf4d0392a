import t from 'tap';
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { fixtureSchema, fixtureSchemaText } from '../../app/fixture-schema.js';
import { FixtureRefusedError, importFixture, validateFixture } from '../../app/import-fixture.js';
import { appModules } from '../../app/modules.js';
import { projectFile } from '../../infra/project-root.js';
import { buildTestApp, json } from '../helper.js';

const example = JSON.parse(readFileSync(projectFile('examples/library.json'), 'utf8')) as Record<string, unknown>;

t.test('docs/fixture.schema.json is the schema the importer validates with', async (t) => {
  t.equal(
    readFileSync(projectFile('docs/fixture.schema.json'), 'utf8'),
    fixtureSchemaText(appModules),
    'regenerate it with npm run fixture-schema',
  );
});

t.test('the example library is valid by the published schema and imports whole', async (t) => {
  const validate = new Ajv({ strict: false }).compile(fixtureSchema(appModules));
  t.ok(validate(example), JSON.stringify(validate.errors));
  const { app, runtime } = await buildTestApp(t);
  t.equal(await importFixture(runtime, example), 48);
  const roles = new Set((example.users as { role: string }[]).map((u) => u.role));
  t.same(
    [...roles].sort(),
    ['author', 'editor', 'global_admin', 'researcher', 'reviewer', 'site_admin'],
    'a user of every role',
  );
  const item = await app.inject({
    method: 'GET',
    url: '/api/items/100?key_identity=example-editor&key_credential=example-editor-secret',
  });
  t.equal(item.statusCode, 200, 'its API keys work');
  t.equal(json<Record<string, unknown>>(item)['o:title'], 'Map of Lisbon, 1756');
});

t.test('a misspelled key is refused with its JSON path and the keys allowed there', async (t) => {
  const { runtime } = await buildTestApp(t);
  const problems = await validateFixture(runtime, { items: [{ id: 1, title: 'Map', is_publik: true }] });
  t.same(problems[0], {
    path: '$.items[0].is_publik',
    message:
      'Unknown key "is_publik"; the keys allowed here are id, title, description, is_public, item_set_ids, site_ids, rights, media.',
  });
  const nested = await validateFixture(runtime, { blog: { posts: [{ title: 'Hi', categroy_id: 1 }] } });
  t.match(nested[0], {
    path: '$.blog.posts[0].categroy_id',
    message: /^Unknown key "categroy_id"; the keys allowed here are id, title, slug/,
  });
  const top = await validateFixture(runtime, { user: [] });
  t.same(top[0], {
    path: '$.user',
    message:
      'Unknown key "user"; the keys allowed here are users, sites, item_sets, items, site_pages, blog, directory.',
  });
  const before = await runtime.eventStore.countEvents();
  const refused = await importFixture(runtime, { items: [{ title: 'Map', is_publik: true }] }).catch(
    (error: unknown) => error,
  );
  t.ok(refused instanceof FixtureRefusedError, 'the import is refused');
  t.equal(await runtime.eventStore.countEvents(), before, 'and nothing was written');
});

t.test('a wrong enum names the values allowed', async (t) => {
  const { runtime } = await buildTestApp(t);
  const problems = await validateFixture(runtime, { users: [{ email: 'a@example.org', name: 'A', role: 'admin' }] });
  t.same(problems[0], {
    path: '$.users[0].role',
    message: 'Must be one of global_admin, site_admin, editor, reviewer, author, researcher; got "admin".',
  });
  const plan = await validateFixture(runtime, { directory: { library: { name: 'L', plan: 'gold' } } });
  t.same(plan[0], { path: '$.directory.library.plan', message: 'Must be one of basic, plus, trial; got "gold".' });
});

t.test('a wrong type deep in a record is refused with its JSON path, and nothing is written', async (t) => {
  const { runtime } = await buildTestApp(t);
  const fixture = {
    sites: [{ id: 1, slug: 'main', title: 'Main' }],
    items: [{ id: 1, title: 'Map', media: [{ title: 5 }] }],
    site_pages: [{ id: 1, site_id: 1, slug: 'a', title: 'A', blocks: [{ layout: 'html', data: 'x' }] }],
  };
  t.same(await validateFixture(runtime, fixture), [
    { path: '$.items[0].media[0].title', message: 'Expected string' },
    { path: '$.site_pages[0].blocks[0].data', message: 'Expected object' },
  ]);
  const before = await runtime.eventStore.countEvents();
  const refused = await importFixture(runtime, fixture).catch((error: unknown) => error);
  t.ok(refused instanceof FixtureRefusedError, 'the import is refused');
  t.match(refused, { message: '$.items[0].media[0].title: Expected string' });
  t.equal(await runtime.eventStore.countEvents(), before, 'not even the valid site was imported');
});

t.test('a document that is not an object is refused at $', async (t) => {
  const { runtime } = await buildTestApp(t);
  for (const fixture of [[{ items: [] }], 'items', null]) {
    t.same(await validateFixture(runtime, fixture), [{ path: '$', message: 'The fixture must be a JSON object.' }]);
    const refused = await importFixture(runtime, fixture).catch((error: unknown) => error);
    t.ok(refused instanceof FixtureRefusedError, JSON.stringify(fixture));
  }
});
