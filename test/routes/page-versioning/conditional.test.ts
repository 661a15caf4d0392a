import t from 'tap';
import { buildTestApp, json, keyFor, ROLE_USERS, sessionFor } from '../../helper.js';

const fixture = {
  users: ROLE_USERS,
  sites: [{ id: 1, slug: 'main', title: 'Main site' }],
  site_pages: [
    { id: 5, site_id: 1, slug: 'about', title: 'About', blocks: [{ layout: 'html', data: { html: '<p>One</p>' } }] },
  ],
};

t.test("a revert takes If-Match against the page's ETag", async (t) => {
  const { app } = await buildTestApp(t, { fixture });
  const cookie = await sessionFor(app, 'editor');
  const editor = keyFor('editor');
  const list = await app.inject({ url: '/api/page-versioning/5/versions', headers: { cookie } });
  const first = json<{ data: { versions: { id: number }[] } }>(list).data.versions[0].id;
  const etag = (await app.inject({ url: `/api/site_pages/5?${editor}` })).headers.etag as string;
  t.equal(
    (
      await app.inject({
        method: 'PATCH',
        url: `/api/site_pages/5?${editor}`,
        headers: { 'if-match': etag },
        payload: { 'o:title': 'About us' },
      })
    ).statusCode,
    200,
  );

  const stale = await app.inject({
    method: 'POST',
    url: `/api/page-versioning/version/${first}/revert`,
    headers: { cookie, 'if-match': etag },
    payload: {},
  });
  t.equal(stale.statusCode, 412);
  t.same(json(stale), {
    status: 'error',
    message: 'The resource was changed since it was read (If-Match does not match its current ETag).',
  });
  t.equal(
    json<Record<string, unknown>>(await app.inject({ url: '/api/site_pages/5' }))['o:title'],
    'About us',
    'the stale revert changed nothing',
  );

  const current = (await app.inject({ url: `/api/site_pages/5?${editor}` })).headers.etag as string;
  const reverted = await app.inject({
    method: 'POST',
    url: `/api/page-versioning/version/${first}/revert`,
    headers: { cookie, 'if-match': current },
    payload: {},
  });
  t.equal(reverted.statusCode, 200);
  t.equal(json<Record<string, unknown>>(await app.inject({ url: '/api/site_pages/5' }))['o:title'], 'About');
  const after = (await app.inject({ url: `/api/site_pages/5?${editor}` })).headers.etag as string;
  t.equal(
    String(reverted.headers.etag).split('-')[0],
    after.split('-')[0],
    "the revert answers the page's new version",
  );
  t.equal(
    (
      await app.inject({
        method: 'PATCH',
        url: `/api/site_pages/5?${editor}`,
        headers: { 'if-match': current },
        payload: { 'o:title': 'Lost' },
      })
    ).statusCode,
    412,
    'a revert is a change of the page',
  );
});
