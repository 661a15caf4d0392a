import t from 'tap';
import { buildTestApp, json, keyFor, ROLE_USERS } from '../../helper.js';

/**
 * Rules that span records, with the requests at once (issue 22): a unique slug is given to one
 * of them, and a page never outlives its site.
 */
const fixture = { users: ROLE_USERS, sites: [{ id: 1, slug: 'main', title: 'Main site' }] };
const editor = keyFor('editor');
const AT_ONCE = 20;

const page = (siteId: number, slug: string, title: string) => ({
  'o:site': { 'o:id': siteId },
  'o:slug': slug,
  'o:title': title,
  'o:is_public': true,
});

t.test('20 sites created at once with one slug: one is created', async (t) => {
  const { app } = await buildTestApp(t, { fixture });
  const answers = await Promise.all(
    Array.from({ length: AT_ONCE }, (_, i) =>
      app.inject({
        method: 'POST',
        url: `/api/sites?${editor}`,
        payload: { 'o:slug': 'same', 'o:title': `Site ${i}` },
      }),
    ),
  );
  const codes = answers.map((res) => res.statusCode);
  t.equal(codes.filter((c) => c === 201).length, 1, 'one 201');
  t.equal(codes.filter((c) => c === 422).length, AT_ONCE - 1, 'the others 422');
  const refused = answers.find((res) => res.statusCode === 422);
  t.same(refused && json(refused), { errors: { 'o:slug': ['Another site has this slug.'] } }, 'the duplicate message');
  const list = json<{ 'o:slug': string }[]>(await app.inject({ method: 'GET', url: '/api/sites?per_page=100' }));
  t.equal(list.filter((s) => s['o:slug'] === 'same').length, 1, 'the list shows one');
});

t.test('20 pages of one site created at once with one slug: one is created', async (t) => {
  const { app } = await buildTestApp(t, { fixture });
  const answers = await Promise.all(
    Array.from({ length: AT_ONCE }, (_, i) =>
      app.inject({ method: 'POST', url: `/api/site_pages?${editor}`, payload: page(1, 'same', `Page ${i}`) }),
    ),
  );
  const codes = answers.map((res) => res.statusCode);
  t.equal(codes.filter((c) => c === 201).length, 1, 'one 201');
  t.equal(codes.filter((c) => c === 422).length, AT_ONCE - 1, 'the others 422');
  const refused = answers.find((res) => res.statusCode === 422);
  t.same(refused && json(refused), { errors: { 'o:slug': ['Another page of this site has this slug.'] } });
  const list = json<{ 'o:slug': string }[]>(
    await app.inject({ method: 'GET', url: '/api/site_pages?site_id=1&per_page=100' }),
  );
  t.equal(list.filter((p) => p['o:slug'] === 'same').length, 1, 'the list shows one');
});

t.test('a renamed or deleted site lets go of its slug', async (t) => {
  const { app } = await buildTestApp(t, { fixture });
  const create = (slug: string) =>
    app.inject({ method: 'POST', url: `/api/sites?${editor}`, payload: { 'o:slug': slug, 'o:title': slug } });
  const first = json<{ 'o:id': number }>(await create('one'))['o:id'];
  const renamed = await app.inject({
    method: 'PATCH',
    url: `/api/sites/${first}?${editor}`,
    payload: { 'o:slug': 'two' },
  });
  t.equal(renamed.statusCode, 200);
  t.equal((await create('two')).statusCode, 422, 'the new slug is held');
  t.equal((await create('one')).statusCode, 201, 'the old slug is free again');
  t.equal((await app.inject({ method: 'DELETE', url: `/api/sites/${first}?${editor}` })).statusCode, 200);
  t.equal((await create('two')).statusCode, 201, 'a deleted site’s slug is free again');
});

t.test('a site deleted while 10 of its pages are created: none of them outlives it', async (t) => {
  const { app } = await buildTestApp(t, { fixture });
  const site = json<{ 'o:id': number }>(
    await app.inject({
      method: 'POST',
      url: `/api/sites?${editor}`,
      payload: { 'o:slug': 'doomed', 'o:title': 'Doomed' },
    }),
  )['o:id'];
  const creates = Array.from({ length: 10 }, (_, i) =>
    app.inject({ method: 'POST', url: `/api/site_pages?${editor}`, payload: page(site, `p${i}`, `P ${i}`) }),
  );
  const deleted = app.inject({ method: 'DELETE', url: `/api/sites/${site}?${editor}` });
  const answers = await Promise.all(creates);
  t.equal((await deleted).statusCode, 200, 'the delete succeeds');
  for (const res of answers) {
    t.ok(res.statusCode === 201 || res.statusCode === 422, `a create answers 201 or 422 (${res.statusCode})`);
    if (res.statusCode === 422) t.same(json(res), { errors: { 'o:site': ['Every site must exist.'] } });
    if (res.statusCode === 201) {
      const id = json<{ 'o:id': number }>(res)['o:id'];
      t.equal(
        (await app.inject({ method: 'GET', url: `/api/site_pages/${id}?${editor}` })).statusCode,
        404,
        `page ${id} is gone`,
      );
    }
  }
  const list = json<unknown[]>(await app.inject({ method: 'GET', url: `/api/site_pages?site_id=${site}&${editor}` }));
  t.same(list, [], 'no page of the deleted site is listed');
  const all = json<{ 'o:site': { 'o:id': number } }[]>(
    await app.inject({ method: 'GET', url: `/api/site_pages?per_page=100&${editor}` }),
  );
  t.equal(all.filter((p) => p['o:site']['o:id'] === site).length, 0, 'nor in the whole list');
  const late = await app.inject({
    method: 'POST',
    url: `/api/site_pages?${editor}`,
    payload: page(site, 'late', 'Late'),
  });
  t.equal(late.statusCode, 422, 'a create after the delete is refused');
});

t.test('a site renamed while 20 of its pages are created: every write succeeds', async (t) => {
  const { app } = await buildTestApp(t, { fixture });
  const creates = Array.from({ length: AT_ONCE }, (_, i) =>
    app.inject({ method: 'POST', url: `/api/site_pages?${editor}`, payload: page(1, `q${i}`, `Q ${i}`) }),
  );
  const renamed = app.inject({ method: 'PATCH', url: `/api/sites/1?${editor}`, payload: { 'o:title': 'Renamed' } });
  t.same(
    (await Promise.all(creates)).map((res) => res.statusCode),
    Array(AT_ONCE).fill(201),
  );
  t.equal((await renamed).statusCode, 200, 'the pages attaching to the site do not make its update fail');
});
