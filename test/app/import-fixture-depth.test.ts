import t from 'tap';
import { FIXTURE_MAX_DEPTH, FixtureRefusedError, firstTooDeep, importFixture } from '../../app/import-fixture.js';
import { buildTestApp, json, keyFor, ROLE_USERS } from '../helper.js';

/** `levels` objects inside one another. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

const page = (id: number, layoutData: unknown) => ({
  id,
  site_id: 1,
  slug: `p${id}`,
  title: `Page ${id}`,
  layout_data: layoutData,
});

t.test('firstTooDeep names the first value nested too deep, without recursion', async (t) => {
  t.equal(firstTooDeep({ a: [{ b: 1 }] }, 3), null);
  t.equal(firstTooDeep({ a: [{ b: {} }] }, 3), '$.a[0].b');
  t.equal(firstTooDeep({ x: 1, a: [[], [[1]]] }, 3), '$.a[1][0]');
  t.match(firstTooDeep(nested(200_000), 66), /^\$(\.a){66}$/);
});

t.test('a fixture nested past the limit is refused whole, naming where', async (t) => {
  const { app, runtime } = await buildTestApp(t, {
    fixture: { users: ROLE_USERS, sites: [{ id: 1, slug: 'main', title: 'Main' }] },
  });
  const deepest = FIXTURE_MAX_DEPTH - 3; // the fixture, its list of pages and the page come first
  for (const levels of [deepest + 1, 4200]) {
    const refused = await importFixture(runtime, { site_pages: [page(5, {}), page(6, nested(levels))] }).catch(
      (error: unknown) => error,
    );
    t.type(refused, FixtureRefusedError, `${levels} levels of layout data are refused`);
    t.match(
      (refused as Error).message,
      /^\$\.site_pages\[1\]\.layout_data(\.a)+: Nested more than 66 levels deep/,
      'naming where',
    );
  }
  const pages = json<unknown[]>(await app.inject({ method: 'GET', url: `/api/site_pages?${keyFor('editor')}` }));
  t.equal(pages.length, 0, 'nothing imported, not even the page before');

  await importFixture(runtime, { site_pages: [page(7, nested(deepest))] });
  const imported = await app.inject({ method: 'GET', url: `/api/site_pages/7?${keyFor('editor')}` });
  t.equal(imported.statusCode, 200, 'as deep as the API takes is imported');
  const viaApi = await app.inject({
    method: 'POST',
    url: `/api/site_pages?${keyFor('editor')}`,
    payload: { 'o:site': { 'o:id': 1 }, 'o:slug': 'api', 'o:title': 'API', 'o:layout_data': nested(deepest) },
  });
  t.equal(viaApi.statusCode, 201, 'the same layout data through the API');
});
