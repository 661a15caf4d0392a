import t from 'tap';
import { buildTestApp, json, ROLE_USERS } from '../../helper.js';
import { PNG, sessions, uploaded, type FolderJson } from './support.js';

const BASE = '/api/asset-picker';

t.test(
  'folders: a strong ETag; a stale If-Match on a rename or delete is a 412 in the envelope and changes nothing',
  async (t) => {
    const { app } = await buildTestApp(t, { fixture: { users: ROLE_USERS } });
    const { editor, site_admin: admin } = await sessions(app);
    const created = await app.inject({
      method: 'POST',
      url: `${BASE}/folders`,
      headers: { cookie: editor },
      payload: { title: 'Maps' },
    });
    const id = json<{ folder: FolderJson }>(created).folder.id;
    const read = await app.inject({ url: `${BASE}/folders/${id}`, headers: { cookie: editor } });
    const etag = read.headers.etag as string;
    t.match(etag, /^"[1-9][0-9]*-/);
    t.equal(read.headers['cache-control'], 'private, no-cache');
    t.equal(
      (await app.inject({ url: `${BASE}/folders/${id}`, headers: { cookie: editor, 'if-none-match': etag } }))
        .statusCode,
      304,
    );

    const [a, b] = await Promise.all([
      app.inject({
        method: 'PUT',
        url: `${BASE}/folders/${id}`,
        headers: { cookie: editor, 'if-match': etag },
        payload: { title: 'Charts' },
      }),
      app.inject({
        method: 'PUT',
        url: `${BASE}/folders/${id}`,
        headers: { cookie: admin, 'if-match': etag },
        payload: { title: 'Plans' },
      }),
    ]);
    t.same([a.statusCode, b.statusCode].sort(), [200, 412]);
    const [won, lost] = a.statusCode === 200 ? [a, b] : [b, a];
    t.same(json(lost), {
      status: 'error',
      message: 'The resource was changed since it was read (If-Match does not match its current ETag).',
    });
    t.ok(lost.headers.etag);
    const now = json<{ folder: FolderJson }>(
      await app.inject({ url: `${BASE}/folders/${id}`, headers: { cookie: editor } }),
    ).folder;
    t.equal(now.title, json<{ folder: FolderJson }>(won).folder.title, 'the loser renamed nothing');

    const stale = await app.inject({
      method: 'DELETE',
      url: `${BASE}/folders/${id}`,
      headers: { cookie: editor, 'if-match': etag },
    });
    t.equal(stale.statusCode, 412);
    t.equal((await app.inject({ url: `${BASE}/folders/${id}`, headers: { cookie: editor } })).statusCode, 200);
    const current = await app.inject({
      method: 'DELETE',
      url: `${BASE}/folders/${id}`,
      headers: { cookie: editor, 'if-match': won.headers.etag as string },
    });
    t.equal(current.statusCode, 200);
  },
);

t.test('assets: a strong ETag; a stale If-Match on a delete is a 412 and the asset stays', async (t) => {
  const { app } = await buildTestApp(t, { fixture: { users: ROLE_USERS } });
  const { editor } = await sessions(app);
  const asset = await uploaded(app, editor, 'dot.png', PNG);
  const etag = (await app.inject({ url: `${BASE}/assets/${asset.id}`, headers: { cookie: editor } })).headers
    .etag as string;
  t.match(etag, /^"[1-9][0-9]*-/);
  await app.inject({
    method: 'PATCH',
    url: `${BASE}/assets/bulk`,
    headers: { cookie: editor },
    payload: { ids: [asset.id], name: 'Dot' },
  });
  const stale = await app.inject({
    method: 'DELETE',
    url: `${BASE}/assets/${asset.id}`,
    headers: { cookie: editor, 'if-match': etag },
  });
  t.equal(stale.statusCode, 412);
  t.equal(json<{ status: string }>(stale).status, 'error');
  const fresh = await app.inject({ url: `${BASE}/assets/${asset.id}`, headers: { cookie: editor } });
  t.not(fresh.headers.etag, etag, 'the rename made a new version');
  t.equal(
    (
      await app.inject({
        method: 'DELETE',
        url: `${BASE}/assets/${asset.id}`,
        headers: { cookie: editor, 'if-match': fresh.headers.etag as string },
      })
    ).statusCode,
    200,
  );
});

t.test('the asset list: a weak ETag, 304 while unchanged, 200 after an upload', async (t) => {
  const { app } = await buildTestApp(t, { fixture: { users: ROLE_USERS } });
  const { editor } = await sessions(app);
  const first = await app.inject({ url: `${BASE}/assets`, headers: { cookie: editor } });
  const etag = first.headers.etag as string;
  t.match(etag, /^W\//);
  t.equal(
    (await app.inject({ url: `${BASE}/assets`, headers: { cookie: editor, 'if-none-match': etag } })).statusCode,
    304,
  );
  await uploaded(app, editor, 'dot.png', PNG);
  t.equal(
    (await app.inject({ url: `${BASE}/assets`, headers: { cookie: editor, 'if-none-match': etag } })).statusCode,
    200,
  );
});

t.test('an asset file revalidates like every other read: a list of tags, weak comparison', async (t) => {
  const { app } = await buildTestApp(t, { fixture: { users: ROLE_USERS } });
  const { editor } = await sessions(app);
  const asset = await uploaded(app, editor, 'dot.png', PNG);
  const path = new URL(asset.canonical_url).pathname;
  const etag = (await app.inject({ url: path })).headers.etag as string;
  t.equal((await app.inject({ url: path, headers: { 'if-none-match': etag } })).statusCode, 304);
  t.equal((await app.inject({ url: path, headers: { 'if-none-match': `"other", W/${etag}` } })).statusCode, 304);
  t.equal((await app.inject({ url: path, headers: { 'if-none-match': '"other"' } })).statusCode, 200);
});
