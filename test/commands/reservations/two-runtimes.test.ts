import t, { type Test } from 'tap';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../../app/app.js';
import { testConfig } from '../../test-config.js';
import { importFixture } from '../../../app/import-fixture.js';
import { createRuntime } from '../../../app/runtime.js';
import { json, keyFor, ROLE_USERS, sessionFor, type TestContext } from '../../helper.js';
import { appModules } from '../../../app/modules.js';

/**
 * Two runtimes on one DATA_DIR, as the server and the import CLI are: each has its own
 * connection to the log, its own commit thread and its own read models, so only the event store
 * can settle their races (issue 22).
 */
async function twoRuntimes(t: TestContext): Promise<[FastifyInstance, FastifyInstance]> {
  const config = testConfig(t.testdir(), { baseUrl: 'http://test.local' });
  const first = await createRuntime(config, { modules: appModules });
  await importFixture(first, {
    users: ROLE_USERS,
    sites: [{ id: 1, slug: 'main', title: 'Main' }],
    blog: { categories: [{ id: 1, name: 'News', slug: 'news' }] },
  });
  const second = await createRuntime(config, { modules: appModules });
  const apps = [await buildApp(first), await buildApp(second)] as const;
  t.teardown(async () => {
    for (const app of apps) await app.close();
    await second.close();
    await first.close();
  });
  return [...apps];
}

const editor = keyFor('editor');
const EACH = 10;

/** The same create sent EACH times to each runtime at once. */
function fromBoth(
  apps: FastifyInstance[],
  url: string,
  payload: (i: number) => object,
): Promise<LightMyRequestResponse[]> {
  return Promise.all(
    apps.flatMap((app, a) =>
      Array.from({ length: EACH }, (_, i) => app.inject({ method: 'POST', url, payload: payload(a * EACH + i) })),
    ),
  );
}

function oneWins(t: Test, answers: LightMyRequestResponse[], message: string): void {
  const codes = answers.map((res) => res.statusCode);
  t.equal(codes.filter((c) => c === 201).length, 1, `${message}: one 201`);
  t.equal(codes.filter((c) => c === 422).length, answers.length - 1, `${message}: the others 422 (${codes.join(' ')})`);
}

t.test('two runtimes on one DATA_DIR creating the same slug at once: exactly one wins', async (t) => {
  const apps = await twoRuntimes(t);
  oneWins(
    t,
    await fromBoth(apps, `/api/sites?${editor}`, (i) => ({ 'o:slug': 'shared', 'o:title': `Site ${i}` })),
    'sites',
  );
  oneWins(
    t,
    await fromBoth(apps, `/api/site_pages?${editor}`, (i) => ({
      'o:site': { 'o:id': 1 },
      'o:slug': 'shared',
      'o:title': `Page ${i}`,
    })),
    'site pages',
  );
  oneWins(
    t,
    await fromBoth(apps, `/api/blog_posts?${editor}`, (i) => ({ title: `Post ${i}`, slug: 'shared' })),
    'blog posts',
  );
  oneWins(
    t,
    await fromBoth(apps, `/api/blog_categories?${editor}`, (i) => ({ name: `Category ${i}`, slug: 'shared' })),
    'blog categories',
  );
});

t.test('two runtimes deriving slugs from one title at once: every one is distinct', async (t) => {
  const apps = await twoRuntimes(t);
  const answers = await fromBoth(apps, `/api/blog_posts?${editor}`, () => ({ title: 'Same Title', tags: ['Across'] }));
  t.same(
    answers.map((res) => res.statusCode),
    Array(2 * EACH).fill(201),
  );
  const slugs = answers.map((res) => json<{ 'o:slug': string }>(res)['o:slug']);
  t.equal(new Set(slugs).size, slugs.length, `distinct slugs: ${slugs.join(', ')}`);
  // Each runtime's read models see the other's writes once its subscription polls the log.
  await new Promise((resolve) => setTimeout(resolve, 700));
  for (const app of apps) {
    const tags = json<{ 'o:slug': string }[]>(await app.inject({ url: '/api/blog_tags?per_page=100' })).filter(
      (tag) => tag['o:slug'] === 'across',
    );
    t.equal(tags.length, 1, 'one tag named by posts in both runtimes');
  }
});

t.test('a site deleted in one runtime while the other creates its pages: none outlives it', async (t) => {
  const apps = await twoRuntimes(t);
  const creates = Array.from({ length: EACH }, (_, i) =>
    apps[1].inject({
      method: 'POST',
      url: `/api/site_pages?${editor}`,
      payload: { 'o:site': { 'o:id': 1 }, 'o:slug': `p${i}`, 'o:title': `P ${i}` },
    }),
  );
  const deleted = apps[0].inject({ method: 'DELETE', url: `/api/sites/1?${editor}` });
  await Promise.all(creates);
  t.equal((await deleted).statusCode, 200);
  await new Promise((resolve) => setTimeout(resolve, 700));
  for (const app of apps) {
    const pages = json<{ 'o:site': { 'o:id': number } }[]>(
      await app.inject({ url: `/api/site_pages?per_page=100&${editor}` }),
    );
    t.same(
      pages.filter((p) => p['o:site']['o:id'] === 1),
      [],
      'no page of the deleted site is listed',
    );
  }
});

t.test('two runtimes writing the folder tree at once: sibling slugs stay distinct and no cycle forms', async (t) => {
  const apps = await twoRuntimes(t);
  const cookies = await Promise.all(apps.map((app) => sessionFor(app, 'editor')));
  const BASE = '/api/asset-picker/folders';
  const create = (a: number, payload: object) =>
    apps[a].inject({ method: 'POST', url: BASE, headers: { cookie: cookies[a] }, payload });
  const created = await Promise.all(
    [0, 1].flatMap((a) => Array.from({ length: EACH }, () => create(a, { title: 'Same' }))),
  );
  t.same(
    created.map((res) => res.statusCode),
    Array(2 * EACH).fill(201),
  );
  const folders = created.map((res) => json<{ folder: { id: number; slug: string } }>(res).folder);
  t.equal(
    new Set(folders.map((f) => f.slug)).size,
    folders.length,
    `distinct slugs: ${folders.map((f) => f.slug).join(', ')}`,
  );
  // Both runtimes know every folder once their subscriptions have polled the log.
  await new Promise((resolve) => setTimeout(resolve, 700));
  const ring = folders.slice(0, 6).map((f) => f.id);
  const moves = await Promise.all(
    ring.map((id, i) =>
      apps[i % 2].inject({
        method: 'PUT',
        url: `${BASE}/${id}`,
        headers: { cookie: cookies[i % 2] },
        payload: { parent_id: ring[(i + 1) % ring.length] },
      }),
    ),
  );
  const codes = moves.map((res) => res.statusCode);
  t.equal(
    codes.filter((c) => c === 400).length,
    1,
    `exactly the move closing the ring is refused (${codes.join(' ')})`,
  );
});
